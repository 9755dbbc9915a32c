// SQLite (the system's libsqlite3) for BriefcaseSQLite. Debian/Ubuntu: apt-get install libsqlite3-dev.
#include <sqlite3.h>
#include <string.h>
#include <strings.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: the same value as a function.
static inline sqlite3_destructor_type briefcase_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_db_config takes variadic arguments, which Swift cannot call: one flag on or off.
static inline int briefcase_sqlite_db_config_flag(sqlite3 *db, int op, int on) {
    return sqlite3_db_config(db, op, on, (int *)0);
}

// Before the first connection: no memory statistics, whose global mutex every allocation takes.
static inline int briefcase_sqlite_configure(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

// The authorizer of `briefcase query` (Spec/sqlite-mapping.md §6): the statement, and every view
// and trigger it reaches, may not call functions that reveal memory addresses or reach outside the
// database (fts3_tokenizer returns a pointer, and with two arguments installs one; load_extension
// loads a library), nor set a pragma (a value given: settings of the connection or process, such as
// temp_store_directory), nor attach another file. Reading pragmas (table_info(…)) stay allowed.
static inline int briefcase_sqlite_query_authorizer(void *unused, int action, const char *a, const char *b,
                                                    const char *database, const char *trigger) {
    (void)unused; (void)database; (void)trigger;
    switch (action) {
    case SQLITE_FUNCTION:
        if (b && (strcasecmp(b, "fts3_tokenizer") == 0 || strcasecmp(b, "load_extension") == 0)) return SQLITE_DENY;
        return SQLITE_OK;
    case SQLITE_PRAGMA:
        // A pragma with an argument sets something, unless it names a table or index to describe.
        if (b == 0) return SQLITE_OK;
        if (a && (strcasecmp(a, "table_info") == 0 || strcasecmp(a, "table_xinfo") == 0 || strcasecmp(a, "index_info") == 0
                  || strcasecmp(a, "index_xinfo") == 0 || strcasecmp(a, "index_list") == 0 || strcasecmp(a, "foreign_key_list") == 0
                  || strcasecmp(a, "table_list") == 0 || strcasecmp(a, "function_list") == 0 || strcasecmp(a, "pragma_list") == 0))
            return SQLITE_OK;
        return SQLITE_DENY;
    case SQLITE_ATTACH:
    case SQLITE_DETACH:
        return SQLITE_DENY;
    default:
        return SQLITE_OK;
    }
}

static inline int briefcase_sqlite_restrict_query(sqlite3 *db) {
    return sqlite3_set_authorizer(db, briefcase_sqlite_query_authorizer, 0);
}

// The virtual tables of `briefcase query` (Spec/sqlite-mapping.md §6): SQLite's table and cursor,
// each with the Swift object that answers for it (C "subclassing": the base first).
typedef struct { sqlite3_vtab base; void *owner; } briefcase_vtab;
typedef struct { sqlite3_vtab_cursor base; void *owner; } briefcase_vtab_cursor;

// sqlite3_vtab_config is variadic: the tables only read the briefcase, so views may use them
// with TRUSTED_SCHEMA off.
static inline int briefcase_sqlite_vtab_innocuous(sqlite3 *db) {
    return sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
}

// An error message SQLite frees (sqlite3_mprintf is variadic).
static inline char *briefcase_sqlite_message(const char *text) {
    return sqlite3_mprintf("%s", text);
}
