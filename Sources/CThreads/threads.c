#define _GNU_SOURCE
#include <errno.h>
#include "CThreads.h"

#ifdef __linux__
#include <pthread.h>

int catbird_set_thread_name(const char *name) { return pthread_setname_np(pthread_self(), name); }

int catbird_thread_name(char *buffer, size_t length) { return pthread_getname_np(pthread_self(), buffer, length); }

#else

int catbird_set_thread_name(const char *name) { (void)name; return ENOSYS; }
int catbird_thread_name(char *buffer, size_t length) { if (length > 0) buffer[0] = 0; return ENOSYS; }

#endif
