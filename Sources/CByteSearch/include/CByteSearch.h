#ifndef CATBIRD_BYTE_SEARCH_H
#define CATBIRD_BYTE_SEARCH_H

#include <stddef.h>

// The C library's memmem(3): the offset of the first occurrence of `needle` in `haystack`, or -1.
// glibc declares memmem only under _GNU_SOURCE, which Swift's Glibc module is not built with, so
// this wrapper is compiled on its own (byte_search.c) with it defined. glibc's memmem is linear
// in both lengths (the two-way algorithm for long needles, a hashed window for short ones).
long catbird_memmem_offset(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length);

#endif
