#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "Outputs.h"

int briefcase_rename_noreplace(const char *from, const char *to) {
#if defined(__linux__) && defined(RENAME_NOREPLACE)
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return 0;
    // Only a file system (or kernel) without the flag falls back; any other answer stands.
    if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP && errno != ENOTSUP) return -1;
#elif defined(__APPLE__) && defined(RENAME_EXCL)
    if (renamex_np(from, to, RENAME_EXCL) == 0) return 0;
    if (errno != ENOTSUP && errno != EINVAL) return -1;
#endif
    struct stat info;
    if (lstat(from, &info) != 0) return -1;
    if (S_ISDIR(info.st_mode)) {
        // mkdir claims the name (it fails on anything there, a dangling link included); the
        // rename then replaces only that empty directory of ours.
        if (mkdir(to, 0700) != 0) return -1;
        if (rename(from, to) != 0) {
            int failure = errno;
            (void)rmdir(to);  // fails, keeping them, if someone put files in it meanwhile
            errno = failure == ENOTEMPTY ? EEXIST : failure;
            return -1;
        }
        return 0;
    }
    if (link(from, to) != 0) return -1;
    (void)unlink(from);
    return 0;
}
