#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif
#include "Faults.h"

// MARK: What a SIGBUS handler needs, in static memory

enum { temporary_slots = 64, mapping_slots = 256, message_capacity = 4096 };
enum { slot_free = 0, slot_filling = 1, slot_set = 2 };

static char temporary_paths[temporary_slots][PATH_MAX];
static _Atomic int temporary_states[temporary_slots];
static _Atomic uintptr_t mapping_starts[mapping_slots];
static _Atomic uintptr_t mapping_ends[mapping_slots];
static _Atomic int mapping_states[mapping_slots];
static char fault_message[message_capacity];
static _Atomic size_t fault_message_length;
static _Atomic int fault_status = 2;
static struct sigaction previous_action;

int briefcase_temporary_note(const char *path) {
    size_t length = strlen(path);
    if (length >= PATH_MAX) return -1;
    for (int slot = 0; slot < temporary_slots; slot++) {
        int expected = slot_free;
        if (atomic_compare_exchange_strong(&temporary_states[slot], &expected, slot_filling)) {
            memcpy(temporary_paths[slot], path, length + 1);
            atomic_store(&temporary_states[slot], slot_set);
            return slot;
        }
    }
    return -1;
}

void briefcase_temporary_forget(int slot) {
    if (slot >= 0 && slot < temporary_slots) atomic_store(&temporary_states[slot], slot_free);
}

int briefcase_mapping_note(const void *start, size_t count) {
    for (int slot = 0; slot < mapping_slots; slot++) {
        int expected = slot_free;
        if (atomic_compare_exchange_strong(&mapping_states[slot], &expected, slot_filling)) {
            atomic_store(&mapping_starts[slot], (uintptr_t)start);
            atomic_store(&mapping_ends[slot], (uintptr_t)start + count);
            atomic_store(&mapping_states[slot], slot_set);
            return slot;
        }
    }
    return -1;
}

void briefcase_mapping_forget(int slot) {
    if (slot >= 0 && slot < mapping_slots) atomic_store(&mapping_states[slot], slot_free);
}

void briefcase_fault_set_message(const char *message) {
    size_t length = strlen(message);
    if (length > message_capacity - 2) length = message_capacity - 2;
    atomic_store(&fault_message_length, 0);
    memcpy(fault_message, message, length);
    fault_message[length] = '\n';
    atomic_store(&fault_message_length, length + 1);
}

static int inside_a_mapping(uintptr_t address) {
    for (int slot = 0; slot < mapping_slots; slot++) {
        if (atomic_load(&mapping_states[slot]) != slot_set) continue;
        if (address >= atomic_load(&mapping_starts[slot]) && address < atomic_load(&mapping_ends[slot])) return 1;
    }
    return 0;
}

#if defined(__linux__)
/// The record getdents64 fills (the C library declares no such type).
struct briefcase_dirent64 {
    uint64_t inode;
    int64_t offset;
    unsigned short length;
    unsigned char type;
    char name[];
};

/// Removes every entry of the directory `path` (files; an empty directory too) with raw system
/// calls, none of which allocates: what opendir/readdir would.
static void empty_directory(const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    char buffer[8192] __attribute__((aligned(8)));
    long count;
    while ((count = syscall(SYS_getdents64, fd, buffer, sizeof buffer)) > 0) {
        for (long offset = 0; offset < count;) {
            struct briefcase_dirent64 *entry = (struct briefcase_dirent64 *)(buffer + offset);
            offset += entry->length;
            const char *name = entry->name;
            if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
            if (unlinkat(fd, name, 0) != 0 && errno == EISDIR) (void)unlinkat(fd, name, AT_REMOVEDIR);
        }
    }
    close(fd);
}
#else
static void empty_directory(const char *path) { (void)path; }
#endif

static void remove_temporary(const char *path) {
    if (unlink(path) == 0 || errno == ENOENT) return;
    if (errno != EISDIR && errno != EPERM) return;
    // A folder: a file being written in it may appear while it is emptied, so a few passes.
    for (int pass = 0; pass < 4; pass++) {
        empty_directory(path);
        if (rmdir(path) == 0 || errno == ENOENT) return;
    }
}

static void on_bus_error(int signal, siginfo_t *info, void *context) {
    (void)context;
    if (info == NULL || !inside_a_mapping((uintptr_t)info->si_addr)) {
        // Not a mapped input: the handler there was before (a crash report) takes the fault,
        // which happens again as soon as this returns.
        (void)sigaction(signal, &previous_action, NULL);
        return;
    }
    for (int slot = 0; slot < temporary_slots; slot++) {
        if (atomic_load(&temporary_states[slot]) == slot_set) remove_temporary(temporary_paths[slot]);
    }
    size_t length = atomic_load(&fault_message_length);
    for (size_t done = 0; done < length;) {
        ssize_t n = write(2, fault_message + done, length - done);
        if (n <= 0) break;
        done += (size_t)n;
    }
    _exit(atomic_load(&fault_status));
}

int briefcase_fault_install(int status) {
    atomic_store(&fault_status, status);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_bus_error;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    return sigaction(SIGBUS, &action, &previous_action);
}
