#ifndef BRIEFCASE_CSYSTEMSHIMS_H
#define BRIEFCASE_CSYSTEMSHIMS_H

/// Atomically exchanges the files or directories at `a` and `b` (Linux renameat2 with
/// RENAME_EXCHANGE, Darwin renamex_np with RENAME_SWAP). Returns 0, or -1 with errno set
/// (ENOSYS where the system has no such call).
int briefcase_exchange_paths(const char *a, const char *b);

/// Asks the kernel to start writing the file's dirty pages in `offset ..< offset + count` to disk,
/// without waiting for them (Linux sync_file_range with SYNC_FILE_RANGE_WRITE; elsewhere nothing,
/// returning 0). A hint: durability still takes fsync.
int briefcase_start_writeback(int fd, long long offset, long long count);

/// Waits until the file's pages in `offset ..< offset + count` are on disk (starting the writing
/// of any still dirty), then lets the page cache drop them (Linux sync_file_range with
/// SYNC_FILE_RANGE_WAIT_BEFORE | WRITE | WAIT_AFTER, then posix_fadvise POSIX_FADV_DONTNEED;
/// elsewhere nothing, returning 0). Returns 0, or -1 with errno set when the writing failed —
/// an error that a later fsync may no longer report, so the caller must keep it.
int briefcase_settle_written(int fd, long long offset, long long count);

#endif
