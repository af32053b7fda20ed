/* bench_gpt2.h - GPT-2's figures for bench.c (bench_gpt2.c). */
#ifndef ATTNVIZ_BENCH_GPT2_H
#define ATTNVIZ_BENCH_GPT2_H

/* Print the bench gpt2_* lines: a full-size gpt2-shaped model of random
 * weights in memory, its whole forward at several lengths against
 * peak_gflops (the machine's sgemm peak measured in the same run; 0: not
 * measured) and a typed key through the KV cache against the memory
 * bandwidth measured here. */
void bench_gpt2(double peak_gflops);

#endif
