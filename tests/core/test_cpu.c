/* test_cpu.c - the kernel decision table: processor features x the kernel
 * OpenBLAS reports x the user's OPENBLAS_CORETYPE, and cpuid read on this
 * machine against what /proc/cpuinfo says.
 *
 * The processors are written out as features, so every case runs on any
 * machine: among them the one of issue 15, an Intel Xeon with AVX-512 on which
 * OpenBLAS 0.3.21 reports Prescott.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/mat.h"

static const CpuFeatures SSE3_ONLY = {.sse3 = true};
static const CpuFeatures SANDY = {.sse3 = true, .avx = true, .family = 6, .model = 42};
static const CpuFeatures ZEN3 = {.amd = true, .family = 25, .model = 1, .sse3 = true,
                                 .avx = true, .avx2 = true, .fma = true};
static const CpuFeatures HASWELL = {.family = 6, .model = 60, .sse3 = true, .avx = true,
                                    .avx2 = true, .fma = true};
static const CpuFeatures EMERALD = {.family = 6, .model = 207, .sse3 = true, .avx = true,
                                    .avx2 = true, .fma = true, .avx512 = true};
static const CpuFeatures ZEN4 = {.amd = true, .family = 25, .model = 97, .sse3 = true,
                                 .avx = true, .avx2 = true, .fma = true, .avx512 = true};

static void expect(const CpuFeatures *f, const char *reported, bool switchable,
                   const char *user, CpuBlasAction action, const char *coretype)
{
    CpuBlasChoice c = cpu_blas_choose(f, reported, switchable, user);
    if (c.action != action || (coretype == NULL) != (c.coretype == NULL) ||
        (coretype && strcmp(coretype, c.coretype) != 0)) {
        print_error("reported %s user %s: got action %d coretype %s, want %d %s\n",
                    reported ? reported : "(null)", user ? user : "(unset)", (int)c.action,
                    c.coretype ? c.coretype : "(none)", (int)action,
                    coretype ? coretype : "(none)");
        fail();
    }
}

static void test_cpu_levels(void **state)
{
    (void)state;
    /* Each processor is the highest level all of whose extensions it has. */
    assert_int_equal(cpu_level(&(CpuFeatures){0}), CPU_LEVEL_NONE);
    assert_int_equal(cpu_level(&SSE3_ONLY), CPU_LEVEL_SSE3);
    assert_int_equal(cpu_level(&SANDY), CPU_LEVEL_AVX);
    assert_int_equal(cpu_level(&ZEN3), CPU_LEVEL_AVX2);
    assert_int_equal(cpu_level(&EMERALD), CPU_LEVEL_AVX512);
    /* AVX2 without FMA is not enough for Haswell's kernels */
    CpuFeatures no_fma = HASWELL;
    no_fma.fma = false;
    assert_int_equal(cpu_level(&no_fma), CPU_LEVEL_AVX);
    /* kernel names: case ignored; unknown names -1 */
    assert_int_equal(cpu_kernel_level("Prescott"), CPU_LEVEL_SSE3);
    assert_int_equal(cpu_kernel_level("NEHALEM"), CPU_LEVEL_SSE3);
    assert_int_equal(cpu_kernel_level("Sandybridge"), CPU_LEVEL_AVX);
    assert_int_equal(cpu_kernel_level("Excavator"), CPU_LEVEL_AVX);
    assert_int_equal(cpu_kernel_level("zen"), CPU_LEVEL_AVX2);
    assert_int_equal(cpu_kernel_level("Haswell"), CPU_LEVEL_AVX2);
    assert_int_equal(cpu_kernel_level("SkylakeX"), CPU_LEVEL_AVX512);
    assert_int_equal(cpu_kernel_level("SapphireRapids"), CPU_LEVEL_AVX512);
    assert_int_equal(cpu_kernel_level("NeoverseN1"), -1);
    assert_int_equal(cpu_kernel_level("Unknown"), -1);
    assert_int_equal(cpu_kernel_level(""), -1);
    assert_int_equal(cpu_kernel_level(NULL), -1);
}

static void test_cpu_fallback_is_corrected(void **state)
{
    (void)state;
    /* Issue 15's machine: AVX-512, OpenBLAS 0.3.21 falls back to Prescott. */
    expect(&EMERALD, "Prescott", true, NULL, CPU_BLAS_FORCE, "SkylakeX");
    expect(&EMERALD, "Nehalem", true, NULL, CPU_BLAS_FORCE, "SkylakeX");
    expect(&EMERALD, "Haswell", true, NULL, CPU_BLAS_FORCE, "SkylakeX");
    expect(&ZEN4, "Zen", true, NULL, CPU_BLAS_FORCE, "SkylakeX");
    /* AVX2 machines: Zen for AMD, Haswell for the others */
    expect(&ZEN3, "Prescott", true, NULL, CPU_BLAS_FORCE, "Zen");
    expect(&HASWELL, "Prescott", true, NULL, CPU_BLAS_FORCE, "Haswell");
    expect(&HASWELL, "Sandybridge", true, NULL, CPU_BLAS_FORCE, "Haswell");
    expect(&SANDY, "Prescott", true, NULL, CPU_BLAS_FORCE, "Sandybridge");
    /* the name is matched whatever its case */
    expect(&ZEN3, "PRESCOTT", true, NULL, CPU_BLAS_FORCE, "Zen");
}

static void test_cpu_right_kernel_is_kept(void **state)
{
    (void)state;
    /* The kernel fits the processor: nothing to do. */
    expect(&ZEN3, "Zen", true, NULL, CPU_BLAS_KEEP, NULL);
    expect(&ZEN3, "Haswell", true, NULL, CPU_BLAS_KEEP, NULL);
    expect(&HASWELL, "Haswell", true, NULL, CPU_BLAS_KEEP, NULL);
    expect(&EMERALD, "SkylakeX", true, NULL, CPU_BLAS_KEEP, NULL);
    expect(&EMERALD, "Cooperlake", true, NULL, CPU_BLAS_KEEP, NULL);
    expect(&EMERALD, "SapphireRapids", true, NULL, CPU_BLAS_KEEP, NULL);
    expect(&SANDY, "Sandybridge", true, NULL, CPU_BLAS_KEEP, NULL);
    /* SSE3 is the floor: Prescott on an SSE3 machine stays */
    expect(&SSE3_ONLY, "Prescott", true, NULL, CPU_BLAS_KEEP, NULL);
    /* a kernel above what cpuid shows (an emulator that hides AVX-512) stays */
    expect(&ZEN3, "SkylakeX", true, NULL, CPU_BLAS_KEEP, NULL);
    /* nothing known about the processor: nothing forced */
    expect(&(CpuFeatures){0}, "Prescott", true, NULL, CPU_BLAS_KEEP, NULL);
}

static void test_cpu_user_setting_wins(void **state)
{
    (void)state;
    /* Any OPENBLAS_CORETYPE the user set is left alone, even an older
     * kernel, even an empty value. */
    expect(&EMERALD, "Prescott", true, "Prescott", CPU_BLAS_USER, NULL);
    expect(&EMERALD, "Haswell", true, "Haswell", CPU_BLAS_USER, NULL);
    expect(&ZEN3, "Zen", true, "Zen", CPU_BLAS_USER, NULL);
    expect(&ZEN3, "Prescott", true, "", CPU_BLAS_USER, NULL);
    expect(&ZEN3, "Prescott", false, "Prescott", CPU_BLAS_USER, NULL);
}

static void test_cpu_unknown_or_fixed(void **state)
{
    (void)state;
    /* A library with one kernel ignores OPENBLAS_CORETYPE: no restart, but
     * the better kernel is named for the report. */
    expect(&EMERALD, "Prescott", false, NULL, CPU_BLAS_FIXED, "SkylakeX");
    expect(&ZEN3, "Zen", false, NULL, CPU_BLAS_KEEP, NULL);
    /* Names this table does not know are left alone. */
    expect(&EMERALD, "NeoverseV1", true, NULL, CPU_BLAS_UNKNOWN, NULL);
    expect(&EMERALD, "Unknown", true, NULL, CPU_BLAS_UNKNOWN, NULL);
    expect(&EMERALD, NULL, true, NULL, CPU_BLAS_UNKNOWN, NULL);
}

/* Whether /proc/cpuinfo's first flags line holds flag as a whole word. */
static int cpuinfo_has(const char *flag)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[8192];
    int found = -1;
    while (f && found < 0 && fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        found = 0;
        for (char *tok = strtok(strchr(line, ':') + 1, " \n"); tok; tok = strtok(NULL, " \n"))
            found |= strcmp(tok, flag) == 0;
    }
    if (f)
        fclose(f);
    return found;
}

static void test_cpu_features_match_cpuinfo(void **state)
{
    (void)state;
    /* cpuid read here agrees with the kernel's view in /proc/cpuinfo (which
     * lists AVX flags only where the system enables them). */
    CpuFeatures f;
    cpu_features_read(&f);
    if (cpuinfo_has("sse3") < 0) {
        print_message("no /proc/cpuinfo flags here: only the table is tested\n");
        skip();
    }
    assert_int_equal(f.sse3, cpuinfo_has("pni"));
    assert_int_equal(f.avx, cpuinfo_has("avx"));
    assert_int_equal(f.avx2, cpuinfo_has("avx2"));
    assert_int_equal(f.fma, cpuinfo_has("fma"));
    int all512 = cpuinfo_has("avx512f") && cpuinfo_has("avx512dq") && cpuinfo_has("avx512bw") &&
                 cpuinfo_has("avx512vl");
    assert_int_equal(f.avx512, all512);
    assert_true(f.family > 0);
    /* and the library in use is known and fits this processor: on the
     * machines of this project, attnviz itself never has to restart here
     * unless OpenBLAS fell back */
    const char *k = mat_blas_kernel();
    print_message("kernel %s, processor level %d, family %d model %d\n", k, cpu_level(&f),
                  f.family, f.model);
    assert_true(strcmp(k, "none") == 0 || cpu_kernel_level(k) >= 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_levels),
        cmocka_unit_test(test_cpu_fallback_is_corrected),
        cmocka_unit_test(test_cpu_right_kernel_is_kept),
        cmocka_unit_test(test_cpu_user_setting_wins),
        cmocka_unit_test(test_cpu_unknown_or_fixed),
        cmocka_unit_test(test_cpu_features_match_cpuinfo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
