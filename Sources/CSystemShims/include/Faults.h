#ifndef BRIEFCASE_FAULTS_H
#define BRIEFCASE_FAULTS_H

#include <stddef.h>

/// Notes a temporary file or folder to remove if the process dies of SIGBUS on a mapped input
/// (`briefcase_fault_install`): the path is copied into static memory, so the signal handler
/// needs no allocation. Returns a slot for `briefcase_temporary_forget`, or -1 when the path is
/// too long or every slot is taken (that path is then not removed by the handler).
int briefcase_temporary_note(const char *path);

/// Forgets the temporary path in `slot` (it was moved into place or removed). -1 is ignored.
void briefcase_temporary_forget(int slot);

/// Notes `count` bytes at `start` as a mapped input: a SIGBUS there means the file was truncated
/// under the mapping. Returns a slot for `briefcase_mapping_forget`, or -1 when every slot is taken.
int briefcase_mapping_note(const void *start, size_t count);

/// Forgets the mapping in `slot` (it is being unmapped). -1 is ignored.
void briefcase_mapping_forget(int slot);

/// The line written to standard error when a mapped input faults (a newline is added).
void briefcase_fault_set_message(const char *message);

/// Installs the SIGBUS handler: a fault inside a noted mapping removes every noted temporary path
/// (a folder emptied first), writes the message and ends the process with `_exit(status)`; a
/// fault anywhere else goes to the handler there was before (a crash report). Only
/// async-signal-safe calls are made. Returns 0, or -1 with errno set.
int briefcase_fault_install(int status);

#endif
