/* blaskern.h - the start-up step that gives OpenBLAS the processor's own
 * kernel, and the line that says which kernel runs and who chose it.
 *
 * OpenBLAS reads OPENBLAS_CORETYPE once, when it loads, so the only way to
 * change a kernel it chose badly is to start again with the variable set:
 * blaskern_ensure re-executes the program once (/proc/self/exe, same argv)
 * when cpu_blas_choose (core/cpu.h) says FORCE. The re-executed process carries
 * the private variable ATTNVIZ_BLAS_CHOSEN ("chosen:fallback") and never
 * re-executes again; a value of OPENBLAS_CORETYPE the user set is never touched.
 */
#ifndef ATTNVIZ_BLASKERN_H
#define ATTNVIZ_BLASKERN_H

#include <stddef.h>

/* The private mark of a re-execution, inherited by child processes. */
#define BLASKERN_MARK "ATTNVIZ_BLAS_CHOSEN"

/* Test seam: the kernel name the decision takes as OpenBLAS's choice, so that a
 * test on any machine can walk the re-execution (the processor's real
 * features still decide what is forced). */
#define BLASKERN_PRETEND "ATTNVIZ_BLAS_PRETEND_KERNEL"

/* First thing in main(), before any output or thread: when OpenBLAS chose an
 * older kernel than the processor runs, re-execute with OPENBLAS_CORETYPE set
 * (does not return then). Returns when nothing is to be done, or when the
 * re-execution failed (the program then runs on with OpenBLAS's kernel and an
 * unchanged environment). argv: main's, NULL-terminated. */
void blaskern_ensure(char *const argv[]);

typedef struct {
    char library[32];    /* "OpenBLAS 0.3.21", or "none" without BLAS */
    const char *kernel;  /* the kernel in use (static string) */
    const char *chooser; /* "openblas", "attnviz" or "user" (OPENBLAS_CORETYPE) */
    char fallback[32];   /* chooser attnviz: the kernel OpenBLAS had chosen */
    const char *could;   /* the kernel the processor could run but this
                          * OpenBLAS cannot switch to, or NULL */
} BlasKernInfo;

/* What runs now and why. Never fails. */
void blaskern_info(BlasKernInfo *info);

/* The same as one phrase, e.g. "OpenBLAS 0.3.21, kernel SkylakeX, chosen by
 * attnviz over Prescott", into buf (always terminated, cut at cap). */
void blaskern_describe(char *buf, size_t cap);

#endif
