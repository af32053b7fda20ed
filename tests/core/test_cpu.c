/* test_cpu.c - the kernel decision table: processor features x the kernel
 * OpenBLAS reports x the user's OPENBLAS_CORETYPE, and cpuid read on this
 * machine against what /proc/cpuinfo says.
 *
 * The processors are written out as features, so every case runs on any
 * machine: among them the one of issue 15, an Intel Xeon with AVX-512 on which
 * OpenBLAS 0.3.21 reports Prescott. Two are read from /proc/cpuinfo fixtures
 * in tests/data/cpu: amd_epyc_zen3.cpuinfo, this project's AMD EPYC copied
 * whole; intel_xeon_skylakesp.cpuinfo, a Xeon Platinum 8175M (Skylake-SP) as
 * Linux lists it under a hypervisor, written out from that processor's
 * documented flags (avx512f, cd, dq, bw, vl; no VNNI).
 */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cpu.h"
#include "core/mat.h"

static const CpuFeatures SSE3_ONLY = {.sse3 = true};
static const CpuFeatures SANDY = {.sse3 = true, .avx = true, .family = 6, .model = 42};
static const CpuFeatures ZEN3 = {
    .amd = true, .family = 25, .model = 1, .sse3 = true, .avx = true, .avx2 = true, .fma = true};
static const CpuFeatures HASWELL = {
    .family = 6, .model = 60, .sse3 = true, .avx = true, .avx2 = true, .fma = true};
static const CpuFeatures EMERALD = {.family = 6,
                                    .model = 207,
                                    .sse3 = true,
                                    .avx = true,
                                    .avx2 = true,
                                    .fma = true,
                                    .avx512 = true};
static const CpuFeatures ZEN4 = {.amd = true,
                                 .family = 25,
                                 .model = 97,
                                 .sse3 = true,
                                 .avx = true,
                                 .avx2 = true,
                                 .fma = true,
                                 .avx512 = true};

static void expect(const CpuFeatures *f, const char *reported, bool switchable, const char *user,
                   CpuBlasAction action, const char *coretype)
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

/* The whole text of a file (at most 256 KB), or NULL; the caller frees. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 256 * 1024, len;
    char *buf = malloc(cap + 1);
    len = buf ? fread(buf, 1, cap, f) : 0;
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* The features a fixture's /proc/cpuinfo gives. */
static CpuFeatures fixture(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/cpu/%s", TEST_DATA_DIR, name);
    char *text = slurp(path);
    assert_non_null(text);
    CpuFeatures f;
    assert_true(cpu_features_parse(text, &f));
    free(text);
    return f;
}

static void test_cpu_fixture_amd_zen3(void **state)
{
    (void)state;
    /* This project's AMD EPYC (Zen 3, family 25 model 1): AVX2 and FMA, no
     * AVX-512. OpenBLAS 0.3.21 reports Zen, which fits; were it to fall back
     * (ATTNVIZ_BLAS_PRETEND_KERNEL=Prescott), attnviz forces Zen. */
    CpuFeatures f = fixture("amd_epyc_zen3.cpuinfo");
    assert_true(f.amd);
    assert_int_equal(f.family, 25);
    assert_int_equal(f.model, 1);
    assert_true(f.sse3 && f.avx && f.avx2 && f.fma);
    assert_false(f.avx512);
    assert_int_equal(cpu_level(&f), CPU_LEVEL_AVX2);
    expect(&f, "Zen", true, NULL, CPU_BLAS_KEEP, NULL);
    expect(&f, "Prescott", true, NULL, CPU_BLAS_FORCE, "Zen");
    expect(&f, "Prescott", true, "Prescott", CPU_BLAS_USER, NULL);
    expect(&f, "Prescott", false, NULL, CPU_BLAS_FIXED, "Zen");
}

static void test_cpu_fixture_intel_avx512(void **state)
{
    (void)state;
    /* An Intel Xeon Skylake-SP (family 6 model 85) with avx512f, cd, dq, bw
     * and vl: SkylakeX is its kernel. A Prescott fallback (what 0.3.21 gives
     * a model it does not know, such as model 207) is replaced by SkylakeX;
     * SkylakeX itself is kept. */
    CpuFeatures f = fixture("intel_xeon_skylakesp.cpuinfo");
    assert_false(f.amd);
    assert_int_equal(f.family, 6);
    assert_int_equal(f.model, 85);
    assert_true(f.sse3 && f.avx && f.avx2 && f.fma && f.avx512);
    assert_int_equal(cpu_level(&f), CPU_LEVEL_AVX512);
    expect(&f, "Prescott", true, NULL, CPU_BLAS_FORCE, "SkylakeX");
    expect(&f, "Haswell", true, NULL, CPU_BLAS_FORCE, "SkylakeX");
    expect(&f, "SkylakeX", true, NULL, CPU_BLAS_KEEP, NULL);
    expect(&f, "Prescott", true, "Prescott", CPU_BLAS_USER, NULL);
    /* the same processor with one of the four AVX-512 parts missing is AVX2 */
    char *text = slurp(TEST_DATA_DIR "/cpu/intel_xeon_skylakesp.cpuinfo");
    assert_non_null(text);
    char *bw = strstr(text, " avx512bw");
    assert_non_null(bw);
    memcpy(bw, " xxxxxxxx", 9);
    CpuFeatures g;
    assert_true(cpu_features_parse(text, &g));
    free(text);
    assert_false(g.avx512);
    expect(&g, "Prescott", true, NULL, CPU_BLAS_FORCE, "Haswell");
}

static void test_cpu_parse_edges(void **state)
{
    (void)state;
    CpuFeatures f;
    /* no flags line: nothing known, nothing forced */
    assert_false(cpu_features_parse("processor\t: 0\nvendor_id\t: GenuineIntel\n", &f));
    assert_false(f.avx || f.sse3);
    assert_false(cpu_features_parse("", &f));
    assert_false(cpu_features_parse(NULL, &f));
    /* a flag is a whole word ("avx" is not "avx2"), "model name" is not "model",
     * and only the first processor's block counts */
    assert_true(cpu_features_parse("model name\t: X 9\nmodel\t\t: 7\n"
                                   "flags\t\t: pni avx2 fma\n\nflags\t: avx\n",
                                   &f));
    assert_int_equal(f.model, 7);
    assert_true(f.sse3);
    assert_false(f.avx || f.avx2 || f.fma);
    /* AVX only where listed: a system that does not save the registers hides it */
    assert_true(cpu_features_parse("flags\t: pni fma avx avx2\n", &f));
    assert_true(f.avx && f.avx2 && f.fma);
}

static void test_cpu_features_match_cpuinfo(void **state)
{
    (void)state;
    /* cpuid read here agrees with the kernel's view in /proc/cpuinfo (which
     * lists AVX flags only where the system enables them). */
    CpuFeatures f, g;
    cpu_features_read(&f);
    char *text = slurp("/proc/cpuinfo");
    bool parsed = cpu_features_parse(text, &g);
    free(text);
    if (!parsed || !g.sse3) {
        print_message("no x86 /proc/cpuinfo flags here: only the table is tested\n");
        skip();
    }
    assert_int_equal(f.amd, g.amd);
    assert_int_equal(f.family, g.family);
    assert_int_equal(f.model, g.model);
    assert_int_equal(f.sse3, g.sse3);
    assert_int_equal(f.avx, g.avx);
    assert_int_equal(f.avx2, g.avx2);
    assert_int_equal(f.fma, g.fma);
    assert_int_equal(f.avx512, g.avx512);
    assert_true(f.family > 0);
    /* and the library in use is known and fits this processor: on the
     * machines of this project, attnviz itself never has to restart here
     * unless OpenBLAS fell back */
    const char *k = mat_blas_kernel();
    print_message("kernel %s, processor level %d, family %d model %d\n", k, cpu_level(&f), f.family,
                  f.model);
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
        cmocka_unit_test(test_cpu_fixture_amd_zen3),
        cmocka_unit_test(test_cpu_fixture_intel_avx512),
        cmocka_unit_test(test_cpu_parse_edges),
        cmocka_unit_test(test_cpu_features_match_cpuinfo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
