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
