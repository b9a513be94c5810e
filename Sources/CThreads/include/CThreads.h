#ifndef CATBIRD_THREADS_H
#define CATBIRD_THREADS_H

#include <stddef.h>

// Thread calls Swift's Glibc module cannot reach, compiled on their own (threads.c) with
// _GNU_SOURCE: glibc declares pthread_setname_np(3) and pthread_getname_np(3) only under it.
// Each returns 0 or an errno value; off Linux each does nothing and returns ENOSYS.

// Names the calling thread for the kernel (/proc/<pid>/task/<tid>/comm): at most 15 bytes and
// a NUL, else ERANGE.
int catbird_set_thread_name(const char *name);

// The calling thread's kernel name into `buffer` (at least 16 bytes), NUL-terminated.
int catbird_thread_name(char *buffer, size_t length);

#endif
