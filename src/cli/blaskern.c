/* blaskern.c - OpenBLAS on the processor's own kernel: the re-execution at
 * start, and the description --version and `make bench` print.
 *
 * Debian's OpenBLAS 0.3.21 does not know processors newer than itself (an
 * Intel family 6 model 207 with AVX-512 gets Prescott, SSE3: a fraction of
 * SkylakeX's speed, README "Performance"). Its kernel is fixed when the library loads, before
 * main, from OPENBLAS_CORETYPE when set. So main's first step asks
 * cpu_blas_choose and, on FORCE, sets OPENBLAS_CORETYPE and a private mark
 * and runs its own file (/proc/self/exe) again with the same argv. The mark
 * makes it happen once (a re-executed process, and every process it starts,
 * leaves things be); the user's own OPENBLAS_CORETYPE is the decision table's
 * first rule. The same re-execution gives OpenBLAS one thread when the
 * address space is limited below 1 GB (ulimit -v) and the user did not set
 * OPENBLAS_NUM_THREADS. Under valgrind nothing is re-executed.
 */
#include "cli/blaskern.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/cpu.h"
#include "core/mat.h"

#define CORETYPE "OPENBLAS_CORETYPE"
#define NUM_THREADS "OPENBLAS_NUM_THREADS"

/* Under valgrind the program is the tool's client: its cpuid hides AVX-512,
 * and a re-execution would leave the tool behind (or follow it only with
 * --trace-children). Valgrind preloads its vgpreload_*.so libraries. */
static bool under_valgrind(void)
{
    const char *pre = getenv("LD_PRELOAD");
    return pre && strstr(pre, "vgpreload");
}

/* Whether the address space is limited (ulimit -v) below what OpenBLAS's
 * threads need: each worker maps a buffer of 128 MB and, when that fails,
 * tries again for ever, so that under ulimit -v 150000 even --version hung at
 * exit. One thread allocates on demand; below MAT_BLAS_AS_MIN mat_sgemm gives
 * OpenBLAS no product at all (core/mat.h), and mat_set_threads adds no worker
 * without room for its buffer, so nothing waits on one. */
static bool address_space_small(void)
{
    struct rlimit r;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    /* the workers start with the library: one buffer each beyond the first
     * core's, on top of what the program needs */
    rlim_t need = (rlim_t)MAT_BLAS_AS_MIN + (rlim_t)(cpus > 1 ? cpus - 1 : 0) * MAT_BLAS_BUFFER;
    return getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY && r.rlim_cur < need &&
           !getenv(NUM_THREADS);
}

void blaskern_ensure(char *const argv[])
{
    if (!argv || !argv[0] || getenv(BLASKERN_MARK) || under_valgrind())
        return;
    const char *pretend = getenv(BLASKERN_PRETEND);
    const char *reported = pretend && *pretend ? pretend : mat_blas_kernel();
    CpuFeatures f;
    cpu_features_read(&f);
    CpuBlasChoice c = cpu_blas_choose(&f, reported, mat_blas_switchable(), getenv(CORETYPE));
    bool force = c.action == CPU_BLAS_FORCE, narrow = address_space_small();
    if (!force && !narrow)
        return;
    char mark[80];
    snprintf(mark, sizeof mark, "%s:%s", force ? c.coretype : "-", reported);
    /* the program's own file, as the kernel knows it */
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return;
    self[len] = '\0';
    if ((!force || setenv(CORETYPE, c.coretype, 1) == 0) &&
        (!narrow || setenv(NUM_THREADS, "1", 1) == 0) && setenv(BLASKERN_MARK, mark, 1) == 0)
        execv(self, argv);
    /* no /proc, or no memory: run on with OpenBLAS's own kernel */
    if (force)
        unsetenv(CORETYPE);
    if (narrow)
        unsetenv(NUM_THREADS);
    unsetenv(BLASKERN_MARK);
}

/* "OpenBLAS 0.3.21" from "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ...". */
static void library_name(char *out, size_t cap)
{
    const char *config = mat_blas_config();
    const char *sp = strchr(config, ' ');
    sp = sp ? strchr(sp + 1, ' ') : NULL;
    int len = sp ? (int)(sp - config) : (int)strlen(config);
    snprintf(out, cap, "%.*s", len, config);
}

void blaskern_info(BlasKernInfo *info)
{
    memset(info, 0, sizeof *info);
    library_name(info->library, sizeof info->library);
    info->kernel = mat_blas_kernel();
    info->chooser = "openblas";
    const char *core = getenv(CORETYPE), *mark = getenv(BLASKERN_MARK);
    const char *colon = mark ? strchr(mark, ':') : NULL;
    if (core && colon && strlen(core) == (size_t)(colon - mark) &&
        strncasecmp(core, mark, (size_t)(colon - mark)) == 0) {
        info->chooser = "attnviz";
        snprintf(info->fallback, sizeof info->fallback, "%s", colon + 1);
        return;
    }
    if (core) {
        info->chooser = "user";
        return;
    }
    CpuFeatures f;
    cpu_features_read(&f);
    CpuBlasChoice c = cpu_blas_choose(&f, info->kernel, mat_blas_switchable(), NULL);
    if (c.action == CPU_BLAS_FIXED)
        info->could = c.coretype;
}

void blaskern_describe(char *buf, size_t cap)
{
    BlasKernInfo i;
    blaskern_info(&i);
    if (!strcmp(i.kernel, "none")) {
        snprintf(buf, cap, "no BLAS (built with NO_BLAS=1)");
        return;
    }
    int len = snprintf(buf, cap, "%s, kernel %s, ", i.library, i.kernel);
    if (len < 0 || (size_t)len >= cap)
        return;
    buf += len, cap -= (size_t)len;
    if (!strcmp(i.chooser, "attnviz"))
        snprintf(buf, cap, "chosen by attnviz over %s", i.fallback);
    else if (!strcmp(i.chooser, "user"))
        snprintf(buf, cap, "chosen by the user (OPENBLAS_CORETYPE)");
    else if (i.could)
        snprintf(buf, cap,
                 "chosen by OpenBLAS (the processor runs %s, this OpenBLAS has "
                 "no other kernel)",
                 i.could);
    else
        snprintf(buf, cap, "chosen by OpenBLAS");
}
