#ifndef BRIEFCASE_JSON_SCAN_H
#define BRIEFCASE_JSON_SCAN_H

#include <stddef.h>

/// Where a scan of a JSON array's items stands (all zero before the byte after its `[`).
typedef struct {
    size_t depth;
    int in_string;
    int escaped;
    size_t count;
} briefcase_json_scan;

/// Goes on with the scan of a JSON array over `bytes[from ..< to]`, noting where its items start:
/// each `{` or `[` met at the array's own level, outside strings (strings are skipped, escapes
/// included; nothing is parsed or checked). Writes item offsets to `starts` (`state->count` of
/// them, at most `capacity`; with `starts` NULL only counted, without bound). Returns 1 when the array's `]` is found (its offset in `close`), 0
/// when the bytes end first (call again with the next bytes), -1 when a `}` closes the array,
/// -2 when there are more than `capacity` items.
/// SSE2 on x86-64 (64 bytes at a time), a byte loop elsewhere; the same answer either way.
int briefcase_json_scan_items(briefcase_json_scan *state, const unsigned char *bytes, size_t from, size_t to,
                              size_t *starts, size_t capacity, size_t *close);

#endif
