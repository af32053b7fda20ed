/* bench_tty.h - the interface's figures: ./attnviz on a pseudo-terminal,
 * keys written and the time until the screen is complete (bench_tty.c).
 */
#ifndef ATTNVIZ_BENCH_TTY_H
#define ATTNVIZ_BENCH_TTY_H

/* Selection moves, a mask toggle and typing on a 12-token sentence and a
 * 2,048-token text (toy and designed heads) in prog; one `bench keystroke`,
 * `bench tty_bytes` and `bench keystroke_typing` line each. */
void bench_interface(const char *prog);

#endif
