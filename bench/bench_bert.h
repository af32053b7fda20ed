/* bench_bert.h - BERT's figures for bench.c (bench_bert.c). */
#ifndef ATTNVIZ_BENCH_BERT_H
#define ATTNVIZ_BENCH_BERT_H

/* The bench bert_* lines: a whole forward of a bert-base-shaped and a
 * MiniLM-L6-shaped model (random weights in memory) at 32 tokens against
 * peak_gflops (the sgemm peak measured in the same run; 0: not measured)
 * and the read bandwidth measured here. on names the processor and kernel. */
void bench_bert(double peak_gflops, const char *on);

#endif
