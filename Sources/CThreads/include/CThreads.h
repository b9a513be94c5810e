#ifndef CATBIRD_THREADS_H
#define CATBIRD_THREADS_H

#include <stddef.h>

// Thread calls Swift's Glibc module cannot reach, compiled on their own (threads.c) with
// _GNU_SOURCE: glibc declares pthread_setname_np(3) only under it.
// It returns 0 or an errno value; off Linux it does nothing and returns ENOSYS.

// Names the calling thread for the kernel (/proc/<pid>/task/<tid>/comm): at most 15 bytes and
// a NUL, else ERANGE.
int catbird_set_thread_name(const char *name);

#endif
