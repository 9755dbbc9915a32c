// SQLite (the system's libsqlite3) for BriefcaseSQLite. Debian/Ubuntu: apt-get install libsqlite3-dev.
#include <sqlite3.h>

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
