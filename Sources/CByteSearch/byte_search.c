#define _GNU_SOURCE
#include <string.h>
#include "CByteSearch.h"

long catbird_memmem_offset(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length) {
    const void *found = memmem(haystack, haystack_length, needle, needle_length);
    return found == NULL ? -1 : (long)((const char *)found - (const char *)haystack);
}
