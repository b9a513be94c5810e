#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import:
// these wrappers bind text and blobs that SQLite copies before returning.
static inline int catbird_sqlite3_bind_text_transient(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}
static inline int catbird_sqlite3_bind_blob_transient(sqlite3_stmt *stmt, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(stmt, index, bytes, length, SQLITE_TRANSIENT);
}
// The same for a function's text result (https://www.sqlite.org/c3ref/result_blob.html).
static inline void catbird_sqlite3_result_text_transient(sqlite3_context *context, const char *text, int length) {
    sqlite3_result_text(context, text, length, SQLITE_TRANSIENT);
}
static inline void catbird_sqlite3_result_blob_transient(sqlite3_context *context, const void *bytes, int length) {
    sqlite3_result_blob(context, bytes, length, SQLITE_TRANSIENT);
}

// sqlite3_config is variadic: this turns off SQLite's memory statistics
// (SQLITE_CONFIG_MEMSTATUS, https://www.sqlite.org/c3ref/c_config_covering_index_scan.html),
// which take a process-wide mutex around every allocation and free (a journal row costs about
// 17 of each). Only possible before SQLite initialises: returns SQLITE_MISUSE afterwards.
static inline int catbird_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

// The same for SQLite's memory allocator (https://www.sqlite.org/c3ref/mem_methods.html):
// read the default methods, and install ours, before SQLite initialises (SQLITE_MISUSE after).
static inline int catbird_sqlite3_get_allocator(sqlite3_mem_methods *methods) {
    return sqlite3_config(SQLITE_CONFIG_GETMALLOC, methods);
}
static inline int catbird_sqlite3_set_allocator(const sqlite3_mem_methods *methods) {
    return sqlite3_config(SQLITE_CONFIG_MALLOC, methods);
}

// glibc's allocator settings (malloc.h, which Swift's Glibc module leaves out), for the large
// values user SQL builds (https://man7.org/linux/man-pages/man3/mallopt.3.html). By default
// glibc raises its mmap threshold (up to 32 MiB) each time a large block is freed, so the next
// blocks of that size come from a thread's arena, whose free top is never given back: after a
// few queries with 30 MB values each SQL thread kept 30-60 MB resident. A fixed threshold keeps
// every block of at least `bytes` in its own mapping, returned to the system when freed.
// Returns 1 on success, 0 where it does not apply.
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif
#if defined(M_MMAP_THRESHOLD)
static inline int catbird_map_large_allocations(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}
#else
static inline int catbird_map_large_allocations(int bytes) {
    (void)bytes;
    return 0;
}
#endif

// sqlite3_db_config is variadic: this hardens one connection against untrusted SQL, as SQLite's
// "Defense Against The Dark Arts" advises (https://www.sqlite.org/security.html): defensive mode
// (no writable_schema, no writes to shadow tables or sqlite_dbpage), and off the two-argument
// fts3_tokenizer() (installs any address as a tokenizer) and load_extension() (loads code).
// See https://www.sqlite.org/c3ref/c_dbconfig_defensive.html. Returns SQLITE_OK or the first
// error.
static inline int catbird_sqlite3_harden(sqlite3 *db) {
    int status = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
    if (status == SQLITE_OK) status = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, (int *)0);
    if (status == SQLITE_OK) status = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0);
    return status;
}

// sqlite3_db_config is variadic: this makes the connection's close skip the checkpoint SQLite
// runs when the last connection on a WAL file closes, and so keep the -wal (and -shm) beside the
// file instead of copying the WAL into it and deleting it (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
// https://www.sqlite.org/c3ref/c_dbconfig_defensive.html, SQLite 3.16). Returns SQLITE_OK or an error.
static inline int catbird_sqlite3_keep_wal_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
