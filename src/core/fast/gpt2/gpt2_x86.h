/* gpt2_x86.h - what GPT-2's kernels (gpt2_kern.c, gpt2_head.c,
 * gpt2_dots.c) compile their AVX2 and FMA code with, private to
 * src/core/fast/gpt2/: KERN_X86 where the compiler can target x86-64's
 * vector units, and the attribute of the functions that use them (called
 * only when mat_packed_available() says the processor has them).
 */
#ifndef ATTNVIZ_GPT2_X86_H
#define ATTNVIZ_GPT2_X86_H

#if defined(__x86_64__) && defined(__GNUC__)
#define KERN_X86 1
#include <immintrin.h>
#define KERN_TARGET __attribute__((target("avx2,fma")))
#else
#define KERN_X86 0
#endif

#endif
