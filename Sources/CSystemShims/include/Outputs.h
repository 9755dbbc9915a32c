#ifndef BRIEFCASE_OUTPUTS_H
#define BRIEFCASE_OUTPUTS_H

/// Renames `from` to `to` only if nothing exists at `to` (Linux renameat2 with RENAME_NOREPLACE,
/// Darwin renamex_np with RENAME_EXCL). Where the file system has no such rename: a file is
/// hard-linked to `to` (which fails when `to` exists) and unlinked from `from`; a directory gets
/// `to` made with mkdir (which fails when anything is there) and then renamed over that empty
/// directory of its own. Returns 0, or -1 with errno set (EEXIST when `to` exists).
int briefcase_rename_noreplace(const char *from, const char *to);

#endif
