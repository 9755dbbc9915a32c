#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include "CSystemShims.h"

int briefcase_exchange_paths(const char *a, const char *b) {
#if defined(__linux__) && defined(RENAME_EXCHANGE)
    return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
#elif defined(__APPLE__) && defined(RENAME_SWAP)
    // Darwin's atomic exchange (<stdio.h>, macOS 10.12 / iOS 10): unchecked here, built on Linux only.
    return renamex_np(a, b, RENAME_SWAP);
#else
    (void)a; (void)b;
    errno = ENOSYS;
    return -1;
#endif
}

int briefcase_start_writeback(int fd, long long offset, long long count) {
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
    return sync_file_range(fd, (off_t)offset, (off_t)count, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd; (void)offset; (void)count;
    return 0;
#endif
}

int briefcase_settle_written(int fd, long long offset, long long count) {
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
    unsigned int flags = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;
    if (sync_file_range(fd, (off_t)offset, (off_t)count, flags) != 0) return -1;
    // Only a hint (its result is an error number, not -1): clean pages go, others stay.
    (void)posix_fadvise(fd, (off_t)offset, (off_t)count, POSIX_FADV_DONTNEED);
    return 0;
#else
    (void)fd; (void)offset; (void)count;
    return 0;
#endif
}
