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
    {"Katmai", CPU_LEVEL_SSE3},      {"Coppermine", CPU_LEVEL_SSE3},
    {"Northwood", CPU_LEVEL_SSE3},   {"Prescott", CPU_LEVEL_SSE3},
    {"Banias", CPU_LEVEL_SSE3},      {"Atom", CPU_LEVEL_SSE3},
    {"Core2", CPU_LEVEL_SSE3},       {"Penryn", CPU_LEVEL_SSE3},
    {"Dunnington", CPU_LEVEL_SSE3},  {"Nehalem", CPU_LEVEL_SSE3},
    {"Athlon", CPU_LEVEL_SSE3},      {"Opteron", CPU_LEVEL_SSE3},
    {"Opteron_SSE3", CPU_LEVEL_SSE3}, {"Barcelona", CPU_LEVEL_SSE3},
    {"Nano", CPU_LEVEL_SSE3},        {"Bobcat", CPU_LEVEL_SSE3},
    {"Sandybridge", CPU_LEVEL_AVX},  {"Bulldozer", CPU_LEVEL_AVX},
    {"Piledriver", CPU_LEVEL_AVX},   {"Steamroller", CPU_LEVEL_AVX},
    {"Excavator", CPU_LEVEL_AVX},    {"Haswell", CPU_LEVEL_AVX2},
    {"Zen", CPU_LEVEL_AVX2},         {"SkylakeX", CPU_LEVEL_AVX512},
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
    case CPU_LEVEL_AVX512:
        return "SkylakeX";
    case CPU_LEVEL_AVX2:
        return amd ? "Zen" : "Haswell";
    case CPU_LEVEL_AVX:
        return "Sandybridge";
    default:
        return NULL;
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
