/* bench_gpt2.h - GPT-2's figures for bench.c (bench_gpt2.c). */
#ifndef ATTNVIZ_BENCH_GPT2_H
#define ATTNVIZ_BENCH_GPT2_H

/* The folder of the full-size random gpt2-shaped checkpoint: $ATTNVIZ_BENCH_GPT2,
 * else $TMPDIR/attnviz-bench-gpt2 (or /tmp's), made by
 * scripts/bench-gpt2-checkpoint.sh when missing. Writes at most cap bytes. */
void bench_gpt2_dir(char *out, unsigned cap);

/* Make sure the checkpoint is there (the script's line is printed). Returns 0,
 * or -1 after a "bench gpt2 skipped reason=..." line (no NumPy, the script
 * failed). */
int bench_gpt2_checkpoint(const char *dir);

/* bench gpt2_load: opening dir from a warm page cache in a child process
 * (median of 5), and its resident memory over the float32 weights. Call it
 * while this process is small. on names the processor and kernel. */
void bench_gpt2_load(const char *dir, const char *on);

/* The bench gpt2_* lines of the model in dir: its whole forward at several
 * lengths against peak_gflops (the machine's sgemm peak measured in the same
 * run; 0: not measured) and the memory bandwidth measured here, and a typed
 * key through the KV cache, through the kind as the interface runs it. */
void bench_gpt2(double peak_gflops, const char *dir, const char *on);

/* The read bandwidth of 256 MB in GB/s on one thread (*gbs1, *cpu_gbs1 by
 * processor time) and on two (*gbs2): the best of 3 passes. */
void bandwidth_of_256mb(double *gbs1, double *cpu_gbs1, double *gbs2);

#endif
