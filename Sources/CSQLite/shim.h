#ifndef TRELLIS_CSQLITE_SHIM_H
#define TRELLIS_CSQLITE_SHIM_H

#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot
 * import. These wrappers bind with SQLITE_TRANSIENT, so SQLite copies the bytes before
 * returning and the Swift buffer only has to live for the duration of the call.
 * https://sqlite.org/c3ref/bind_blob.html */
/* A NULL `bytes` (an empty Swift buffer) binds the empty string, not SQL NULL. */
static inline int trellis_bind_text_transient(sqlite3_stmt *statement, int index, const char *bytes, int count) {
    return sqlite3_bind_text(statement, index, bytes ? bytes : "", count, SQLITE_TRANSIENT);
}

static inline int trellis_bind_blob_transient(sqlite3_stmt *statement, int index, const void *bytes, int count) {
    return sqlite3_bind_blob(statement, index, bytes, count, SQLITE_TRANSIENT);
}

#endif
