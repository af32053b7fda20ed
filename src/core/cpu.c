/* cpu.c - the processor's vector extensions from cpuid, and the table that
 * turns them, the kernel OpenBLAS reports and the user's OPENBLAS_CORETYPE
 * into the kernel to force.
 *
 * OpenBLAS's kernel names (its DYNAMIC_ARCH list, 0.3.21) are grouped by the
 * instructions they need. A kernel is "older" than the processor when its
 * group is below the processor's level; then the best kernel of the
 * processor's level is named, one that every OpenBLAS with DYNAMIC_ARCH since
 * 0.3.x carries. Names the table does not know are left alone: a newer
 * library knows more processors than this file does.
 */
#include "core/cpu.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#define CPU_X86 1
#endif

typedef struct {
    const char *name;
    CpuLevel level;
} KernelLevel;

static const KernelLevel KERNELS[] = {
    {"Katmai", CPU_LEVEL_SSE3},       {"Coppermine", CPU_LEVEL_SSE3},
    {"Northwood", CPU_LEVEL_SSE3},    {"Prescott", CPU_LEVEL_SSE3},
    {"Banias", CPU_LEVEL_SSE3},       {"Atom", CPU_LEVEL_SSE3},
    {"Core2", CPU_LEVEL_SSE3},        {"Penryn", CPU_LEVEL_SSE3},
    {"Dunnington", CPU_LEVEL_SSE3},   {"Nehalem", CPU_LEVEL_SSE3},
    {"Athlon", CPU_LEVEL_SSE3},       {"Opteron", CPU_LEVEL_SSE3},
    {"Opteron_SSE3", CPU_LEVEL_SSE3}, {"Barcelona", CPU_LEVEL_SSE3},
    {"Nano", CPU_LEVEL_SSE3},         {"Bobcat", CPU_LEVEL_SSE3},
    {"Sandybridge", CPU_LEVEL_AVX},   {"Bulldozer", CPU_LEVEL_AVX},
    {"Piledriver", CPU_LEVEL_AVX},    {"Steamroller", CPU_LEVEL_AVX},
    {"Excavator", CPU_LEVEL_AVX},     {"Haswell", CPU_LEVEL_AVX2},
    {"Zen", CPU_LEVEL_AVX2},          {"SkylakeX", CPU_LEVEL_AVX512},
    {"Cooperlake", CPU_LEVEL_AVX512}, {"SapphireRapids", CPU_LEVEL_AVX512},
};

#ifdef CPU_X86
/* XCR0: the registers the operating system saves on a context switch. */
static unsigned long long xcr0(void)
{
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (unsigned long long)hi << 32 | lo;
}
#endif

void cpu_features_read(CpuFeatures *f)
{
    memset(f, 0, sizeof *f);
#ifdef CPU_X86
    unsigned a, b, c, d, max;
    if (!__get_cpuid(0, &max, &b, &c, &d))
        return;
    char vendor[13] = {0};
    memcpy(vendor, &b, 4), memcpy(vendor + 4, &d, 4), memcpy(vendor + 8, &c, 4);
    f->amd = !strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine");
    if (max < 1 || !__get_cpuid(1, &a, &b, &c, &d))
        return;
    unsigned base = a >> 8 & 0xf;
    f->family = (int)(base == 0xf ? base + (a >> 20 & 0xff) : base);
    f->model = (int)((a >> 4 & 0xf) | (base == 6 || base == 0xf ? (a >> 16 & 0xf) << 4 : 0));
    f->sse3 = c & 1u;
    /* AVX registers count only when the system saves them (OSXSAVE, XCR0) */
    unsigned long long x = (c >> 27 & 1u) ? xcr0() : 0;
    bool ymm = (x & 0x6) == 0x6, zmm = ymm && (x & 0xe0) == 0xe0;
    f->avx = ymm && (c >> 28 & 1u);
    f->fma = f->avx && (c >> 12 & 1u);
    if (max < 7 || !__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return;
    f->avx2 = f->avx && (b >> 5 & 1u);
    /* F (16), DQ (17), BW (30), VL (31): what Skylake-X and every later one has */
    unsigned need = 1u << 16 | 1u << 17 | 1u << 30 | 1u << 31;
    f->avx512 = zmm && (b & need) == need;
#endif
}

/* The value of the first line starting with key in one processor's block
 * [p, end), or NULL: *len gets its length up to the end of the line. */
static const char *field(const char *p, const char *end, const char *key, size_t *len)
{
    size_t klen = strlen(key);
    for (; p && p < end; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, key, klen) != 0)
            continue;
        const char *colon = p + klen;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        if (*colon != ':')
            continue; /* "model name" is not "model" */
        const char *eol = strchr(p, '\n');
        colon += colon[1] == ' ' ? 2 : 1;
        *len = (size_t)((eol ? eol : colon + strlen(colon)) - colon);
        return colon;
    }
    return NULL;
}

/* Whether the space-separated list [s, s + len) holds word. */
static bool has_word(const char *s, size_t len, const char *word)
{
    size_t w = strlen(word);
    for (const char *end = s + len; s < end;) {
        while (s < end && *s == ' ')
            s++;
        const char *e = s;
        while (e < end && *e != ' ')
            e++;
        if ((size_t)(e - s) == w && !strncmp(s, word, w))
            return true;
        s = e;
    }
    return false;
}

bool cpu_features_parse(const char *cpuinfo, CpuFeatures *f)
{
    memset(f, 0, sizeof *f);
    if (!cpuinfo)
        return false;
    /* the first processor's block ends at the first empty line */
    const char *end = strstr(cpuinfo, "\n\n");
    end = end ? end + 1 : cpuinfo + strlen(cpuinfo);
    size_t len;
    const char *flags = field(cpuinfo, end, "flags", &len);
    if (!flags)
        return false;
    size_t vlen, n;
    const char *vendor = field(cpuinfo, end, "vendor_id", &vlen);
    f->amd = vendor &&
             (has_word(vendor, vlen, "AuthenticAMD") || has_word(vendor, vlen, "HygonGenuine"));
    const char *v = field(cpuinfo, end, "cpu family", &n);
    f->family = v ? atoi(v) : 0;
    v = field(cpuinfo, end, "model", &n);
    f->model = v ? atoi(v) : 0;
    f->sse3 = has_word(flags, len, "pni");
    f->avx = has_word(flags, len, "avx");
    f->fma = f->avx && has_word(flags, len, "fma");
    f->avx2 = f->avx && has_word(flags, len, "avx2");
    f->avx512 = has_word(flags, len, "avx512f") && has_word(flags, len, "avx512dq") &&
                has_word(flags, len, "avx512bw") && has_word(flags, len, "avx512vl");
    return true;
}

CpuLevel cpu_level(const CpuFeatures *f)
{
    if (f->avx512 && f->avx2 && f->fma)
        return CPU_LEVEL_AVX512;
    if (f->avx2 && f->fma)
        return CPU_LEVEL_AVX2;
    if (f->avx)
        return CPU_LEVEL_AVX;
    return f->sse3 ? CPU_LEVEL_SSE3 : CPU_LEVEL_NONE;
}

int cpu_kernel_level(const char *kernel)
{
    for (size_t k = 0; kernel && k < sizeof KERNELS / sizeof *KERNELS; k++)
        if (!strcasecmp(kernel, KERNELS[k].name))
            return (int)KERNELS[k].level;
    return -1;
}

/* The kernel for a processor of level l, or NULL where nothing beats the floor. */
static const char *kernel_for(CpuLevel l, bool amd)
{
    switch (l) {
    case CPU_LEVEL_AVX512: return "SkylakeX";
    case CPU_LEVEL_AVX2: return amd ? "Zen" : "Haswell";
    case CPU_LEVEL_AVX: return "Sandybridge";
    default: return NULL;
    }
}

CpuBlasChoice cpu_blas_choose(const CpuFeatures *f, const char *reported, bool switchable,
                              const char *user)
{
    CpuBlasChoice c = {CPU_BLAS_KEEP, NULL};
    if (user) {
        c.action = CPU_BLAS_USER;
        return c;
    }
    int have = cpu_kernel_level(reported);
    if (have < 0) {
        c.action = CPU_BLAS_UNKNOWN;
        return c;
    }
    CpuLevel can = cpu_level(f);
    const char *best = kernel_for(can, f->amd);
    if (!best || (int)can <= have)
        return c;
    c.action = switchable ? CPU_BLAS_FORCE : CPU_BLAS_FIXED;
    c.coretype = best;
    return c;
}
