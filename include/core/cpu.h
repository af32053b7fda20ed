/* cpu.h - what the processor can run, and which OpenBLAS kernel that calls for.
 *
 * OpenBLAS picks its kernel once, when it loads, from the processor's
 * identity; a processor newer than the library (Debian's 0.3.21 on an Intel
 * family 6 model 207) gets its oldest kernel, Prescott (SSE3), at a fifth of
 * the speed. cpu_blas_choose is the decision attnviz takes at start (the
 * re-execution itself is src/cli/blaskern.c): a pure table from the processor's
 * features, the kernel OpenBLAS reports and the user's OPENBLAS_CORETYPE to the
 * kernel to force, or none. Everything here is x86-64; elsewhere the features
 * read as none and nothing is ever forced.
 */
#ifndef ATTNVIZ_CPU_H
#define ATTNVIZ_CPU_H

#include <stdbool.h>

/* Vector instruction levels, each including the ones below. */
typedef enum {
    CPU_LEVEL_NONE = 0, /* not x86-64, or nothing this table uses */
    CPU_LEVEL_SSE3,     /* OpenBLAS's Prescott .. Nehalem kernels */
    CPU_LEVEL_AVX,      /* Sandybridge, Bulldozer .. Excavator */
    CPU_LEVEL_AVX2,     /* AVX2 and FMA: Haswell, Zen */
    CPU_LEVEL_AVX512,   /* AVX-512 F, DQ, BW and VL: SkylakeX, Cooperlake, SapphireRapids */
} CpuLevel;

/* What cpuid says, each vector extension counted only when the operating
 * system also saves its registers (xgetbv). */
typedef struct {
    bool amd;                          /* AuthenticAMD or HygonGenuine: AVX2 gets the Zen kernel */
    int family, model;                 /* display family and model, as /proc/cpuinfo gives them */
    bool sse3, avx, avx2, fma, avx512; /* avx512: F, DQ, BW and VL together */
} CpuFeatures;

/* Fill *f from cpuid on this processor (all false off x86-64). Cannot fail. */
void cpu_features_read(CpuFeatures *f);

/* Fill *f from the text of /proc/cpuinfo: its first processor's vendor_id,
 * cpu family, model and flags (Linux lists an AVX flag only where the system
 * saves its registers, as cpu_features_read checks with xgetbv). Pure: the
 * caller reads the file, so tests can hand it the fixtures of other
 * processors. Returns false, *f all false, when the text has no flags line. */
bool cpu_features_parse(const char *cpuinfo, CpuFeatures *f);

/* The highest level every one of whose extensions f has. */
CpuLevel cpu_level(const CpuFeatures *f);

/* The level an OpenBLAS kernel name needs (case ignored), or -1 for a name
 * this table does not know (another architecture, a newer library). */
int cpu_kernel_level(const char *kernel);

typedef enum {
    CPU_BLAS_KEEP,    /* the kernel OpenBLAS chose fits the processor */
    CPU_BLAS_FORCE,   /* restart with OPENBLAS_CORETYPE = coretype */
    CPU_BLAS_USER,    /* the user set OPENBLAS_CORETYPE: never overridden */
    CPU_BLAS_FIXED,   /* the kernel is older, but this library has only the one */
    CPU_BLAS_UNKNOWN, /* a kernel name this table does not know: left alone */
} CpuBlasAction;

typedef struct {
    CpuBlasAction action;
    const char *coretype; /* FORCE and FIXED: the kernel for the processor (static) */
} CpuBlasChoice;

/* The decision. f: the processor; reported: openblas_get_corename() (NULL
 * counts as unknown); switchable: the library obeys OPENBLAS_CORETYPE
 * (mat_blas_switchable); user: getenv("OPENBLAS_CORETYPE"), NULL when unset
 * (any value, even empty, is the user's and wins). FORCE only when the
 * processor's level is above the reported kernel's: SkylakeX for AVX-512,
 * Zen (AMD) or Haswell for AVX2, Sandybridge for AVX; never for SSE3, the
 * floor OpenBLAS falls back to anyway. */
CpuBlasChoice cpu_blas_choose(const CpuFeatures *f, const char *reported, bool switchable,
                              const char *user);

#endif
