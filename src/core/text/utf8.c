/* utf8.c - strict UTF-8: decode and encode one code point, and the longest
 * valid prefix of a byte string. RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF. No allocation, no state.
 */
#include "core/utf8.h"

#include <stdint.h>
#include <string.h>

/* Decode with the continuation-byte ranges of RFC 3629 table 3-7: the narrowed
 * second-byte ranges after E0, ED, F0 and F4 reject overlongs, surrogates and
 * code points above U+10FFFF without a separate check. */
int utf8_decode(const char *s, size_t len, unsigned *cp)
{
    const unsigned char *p = (const unsigned char *)s;
    if (len == 0)
        return 0;
    unsigned b0 = p[0];
    if (b0 < 0x80) {
        *cp = b0;
        return 1;
    }
    int n;
    unsigned lo = 0x80, hi = 0xBF, c;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        n = 2, c = b0 & 0x1F;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        n = 3, c = b0 & 0x0F;
        lo = b0 == 0xE0 ? 0xA0 : 0x80;
        hi = b0 == 0xED ? 0x9F : 0xBF;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        n = 4, c = b0 & 0x07;
        lo = b0 == 0xF0 ? 0x90 : 0x80;
        hi = b0 == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 0; /* continuation byte, C0, C1 or F5..FF as a lead */
    }
    if (len < (size_t)n || p[1] < lo || p[1] > hi)
        return 0;
    c = (c << 6) | (p[1] & 0x3F);
    for (int k = 2; k < n; k++) {
        if (p[k] < 0x80 || p[k] > 0xBF)
            return 0;
        c = (c << 6) | (p[k] & 0x3F);
    }
    *cp = c;
    return n;
}

/* Surrogates and out-of-range values become U+FFFD, so the output is always
 * valid UTF-8. */
int utf8_encode(unsigned cp, char *buf)
{
    unsigned char *b = (unsigned char *)buf;
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        cp = 0xFFFD;
    if (cp < 0x80) {
        b[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        b[0] = (unsigned char)(0xC0 | (cp >> 6));
        b[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        b[0] = (unsigned char)(0xE0 | (cp >> 12));
        b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    b[0] = (unsigned char)(0xF0 | (cp >> 18));
    b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    b[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t utf8_valid_prefix(const char *s, size_t len)
{
    size_t pos = 0;
    unsigned cp;
    while (pos < len) {
        /* eight ASCII bytes at a time (no byte with its top bit set) */
        uint64_t eight;
        while (pos + 8 <= len && (memcpy(&eight, s + pos, 8), !(eight & 0x8080808080808080ULL)))
            pos += 8;
        if (pos >= len)
            break;
        if ((unsigned char)s[pos] < 0x80) {
            pos++;
            continue;
        }
        int n = utf8_decode(s + pos, len - pos, &cp);
        if (n == 0)
            break;
        pos += (size_t)n;
    }
    return pos;
}
