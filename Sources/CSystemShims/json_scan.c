// The structural scan behind parsing a JSON document's elements on several threads
// (BriefcaseJSON's ElementsParsedAhead): a Swift byte loop spent a fifth of the parse's time
// here; 64 bytes at a time with SSE2 it is a small fraction. What it finds is only a hint: the
// reader takes a parsed element only where its own walk stands at the start found here.
#include "JSONScan.h"
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef briefcase_json_scan scan_state;

/// A bracket (or any byte) outside strings; 1 when the array's end is found (its offset in
/// *close), -1 or -2 on failure (see the header), 0 to go on.
static inline int scan_structural(scan_state *s, unsigned char c, size_t at, size_t *starts, size_t capacity, size_t *close) {
    switch (c) {
    case '"': s->in_string = 1; return 0;
    case '{': case '[':
        if (s->depth == 0) {
            if (starts) {
                if (s->count == capacity) return -2;
                starts[s->count] = at;
            }
            s->count++;
        }
        s->depth++;
        return 0;
    case '}': case ']':
        if (s->depth == 0) {
            if (c == '}') return -1;
            *close = at;
            return 1;
        }
        s->depth--;
        return 0;
    default: return 0;
    }
}

/// One byte of the scan, in a string or not (results as `scan_structural`).
static inline int scan_byte(scan_state *s, unsigned char c, size_t at, size_t *starts, size_t capacity, size_t *close) {
    if (s->in_string) {
        if (s->escaped) s->escaped = 0;
        else if (c == '\\') s->escaped = 1;
        else if (c == '"') s->in_string = 0;
        return 0;
    }
    return scan_structural(s, c, at, starts, capacity, close);
}

#if defined(__SSE2__)
/// Bit k set where bytes[k] == c, for 64 bytes.
static inline uint64_t mask_eq(__m128i a, __m128i b, __m128i c2, __m128i d, unsigned char c) {
    __m128i v = _mm_set1_epi8((char)c);
    uint64_t m0 = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(a, v));
    uint64_t m1 = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(b, v));
    uint64_t m2 = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(c2, v));
    uint64_t m3 = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(d, v));
    return m0 | (m1 << 16) | (m2 << 32) | (m3 << 48);
}

/// Bit k set where an odd number of `quotes` bits are at or below k: inside a string (its
/// opening quote included, its closing one not).
static inline uint64_t prefix_xor(uint64_t x) {
    x ^= x << 1; x ^= x << 2; x ^= x << 4; x ^= x << 8; x ^= x << 16; x ^= x << 32;
    return x;
}
#endif

int briefcase_json_scan_items(briefcase_json_scan *state, const unsigned char *bytes, size_t from, size_t to,
                              size_t *starts, size_t capacity, size_t *close) {
    scan_state s = *state;
    size_t k = from;
    int r = 0;
#if defined(__SSE2__)
    while (k + 64 <= to) {
        const unsigned char *p = bytes + k;
        __m128i a = _mm_loadu_si128((const __m128i *)p), b = _mm_loadu_si128((const __m128i *)(p + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(p + 32)), d = _mm_loadu_si128((const __m128i *)(p + 48));
        uint64_t backslashes = mask_eq(a, b, c, d, '\\');
        if (backslashes != 0 || s.escaped) {
            // Escapes: this block byte by byte (rare in data; exact whatever they are).
            for (size_t j = 0; j < 64; j++) {
                if ((r = scan_byte(&s, p[j], k + j, starts, capacity, close)) != 0) goto done;
            }
            k += 64;
            continue;
        }
        uint64_t quotes = mask_eq(a, b, c, d, '"');
        // '[' | 0x20 == '{' and ']' | 0x20 == '}': one compare finds both of a pair.
        __m128i lower = _mm_set1_epi8(0x20);
        __m128i la = _mm_or_si128(a, lower), lb = _mm_or_si128(b, lower), lc = _mm_or_si128(c, lower), ld = _mm_or_si128(d, lower);
        uint64_t opens = mask_eq(la, lb, lc, ld, '{');
        uint64_t closes = mask_eq(la, lb, lc, ld, '}');
        uint64_t inside = prefix_xor(quotes) ^ (s.in_string ? ~(uint64_t)0 : 0);
        uint64_t structural = (opens | closes) & ~inside;
        while (structural != 0) {
            unsigned bit = (unsigned)__builtin_ctzll(structural);
            structural &= structural - 1;
            if ((r = scan_structural(&s, p[bit], k + bit, starts, capacity, close)) != 0) goto done;
        }
        s.in_string = (int)(inside >> 63);
        k += 64;
    }
#endif
    for (; k < to; k++) {
        if ((r = scan_byte(&s, bytes[k], k, starts, capacity, close)) != 0) goto done;
    }
done:
    *state = s;
    return r;
}
