#define _GNU_SOURCE
#include <errno.h>
#include "CThreads.h"

#ifdef __linux__
#include <pthread.h>

int catbird_set_thread_name(const char *name) { return pthread_setname_np(pthread_self(), name); }

#else

int catbird_set_thread_name(const char *name) { (void)name; return ENOSYS; }

#endif
