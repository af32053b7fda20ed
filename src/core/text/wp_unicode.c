/* wp_unicode.c - Unicode answers for BERT's basic tokenizer (wp_unicode.h):
 * binary searches over the generated tables of wp_unicode.inc, Python's
 * final-sigma rule and recursive canonical decomposition. No state.
 */
#include "core/wp_unicode.h"

#include <assert.h>

typedef struct {
    unsigned first, last, value;
} WpRange;

typedef struct {
    unsigned cp;
    unsigned to[3];
} WpMap;

#include "wp_unicode.inc"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Hangul syllables (Unicode 15.0 section 3.12). */
enum {
    S_BASE = 0xAC00,
    L_BASE = 0x1100,
    V_BASE = 0x1161,
    T_BASE = 0x11A7,
    V_COUNT = 21,
    T_COUNT = 28,
    N_COUNT = V_COUNT * T_COUNT,
    S_COUNT = 19 * N_COUNT
};

static unsigned range_value(const WpRange *r, size_t n, unsigned cp)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < r[mid].first)
            hi = mid;
        else if (cp > r[mid].last)
            lo = mid + 1;
        else
            return r[mid].value;
    }
    return 0;
}

static const WpMap *map_find(const WpMap *m, size_t n, unsigned cp)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < m[mid].cp)
            hi = mid;
        else if (cp > m[mid].cp)
            lo = mid + 1;
        else
            return &m[mid];
    }
    return NULL;
}

unsigned wp_flags(unsigned cp)
{
    return range_value(wp_props_tab, N_OF(wp_props_tab), cp);
}

unsigned wp_ccc(unsigned cp)
{
    return range_value(wp_ccc_tab, N_OF(wp_ccc_tab), cp);
}

int wp_is_cjk(unsigned cp)
{
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
           (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
           (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

int wp_lower(unsigned cp, unsigned out[3])
{
    const WpMap *m = map_find(wp_lower_tab, N_OF(wp_lower_tab), cp);
    if (!m) {
        out[0] = cp;
        return 1;
    }
    int n = 0;
    while (n < 3 && m->to[n])
        out[n] = m->to[n], n++;
    return n;
}

/* CPython's handle_capital_sigma: \p{cased}\p{case-ignorable}* before, and
 * not \p{case-ignorable}*\p{cased} after. */
static int final_sigma(const unsigned *s, size_t n, size_t i)
{
    size_t j = i;
    while (j > 0 && (wp_flags(s[j - 1]) & WP_CASE_IGN))
        j--;
    if (j == 0 || !(wp_flags(s[j - 1]) & WP_CASED))
        return 0;
    for (j = i + 1; j < n && (wp_flags(s[j]) & WP_CASE_IGN); j++)
        ;
    return j == n || !(wp_flags(s[j]) & WP_CASED);
}

int wp_lower_at(const unsigned *s, size_t n, size_t i, unsigned out[3])
{
    assert(i < n);
    if (s[i] == 0x3A3) {
        out[0] = final_sigma(s, n, i) ? 0x3C2 : 0x3C3;
        return 1;
    }
    return wp_lower(s[i], out);
}

int wp_decompose(unsigned cp, unsigned out[WP_DECOMP_MAX])
{
    if (cp >= S_BASE && cp < S_BASE + S_COUNT) {
        unsigned s = cp - S_BASE;
        out[0] = L_BASE + s / N_COUNT;
        out[1] = V_BASE + (s % N_COUNT) / T_COUNT;
        if (s % T_COUNT == 0)
            return 2;
        out[2] = T_BASE + s % T_COUNT;
        return 3;
    }
    const WpMap *m = map_find(wp_decomp_tab, N_OF(wp_decomp_tab), cp);
    if (!m) {
        out[0] = cp;
        return 1;
    }
    /* the first code point may decompose again; the second never does
     * (Unicode's stability policy), but recurse on both to be safe */
    unsigned a[WP_DECOMP_MAX], b[WP_DECOMP_MAX];
    int na = wp_decompose(m->to[0], a), nb = m->to[1] ? wp_decompose(m->to[1], b) : 0;
    assert(na + nb <= WP_DECOMP_MAX);
    int n = 0;
    for (int k = 0; k < na; k++)
        out[n++] = a[k];
    for (int k = 0; k < nb; k++)
        out[n++] = b[k];
    return n;
}
