/* say.h - the command line's one way to report: "attnviz: " and one line
 * on standard error (say.c), or a progress line rewritten in place. Used
 * before curses starts, never after.
 */
#ifndef ATTNVIZ_SAY_H
#define ATTNVIZ_SAY_H

#include <stddef.h>

/* Print "attnviz: " and the formatted message as one line on standard
 * error; returns status, for `return say(2, ...)`. */
int say(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* say(0, "%s", line): the hook by which io says what a killed run left
 * beside a file it writes (io/stale.h). */
void say_note(const char *line);

/* Columns of the terminal on standard error (80 when it does not say). */
int say_columns(void);

/* Rewrite the progress line on a terminal's standard error: "\r", clear
 * the line, then "attnviz: " and the formatted message, cut to the
 * terminal's width less one column, so that it never wraps (a wrapped line
 * is left behind by the next "\r", one more line each frame). */
void say_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Seconds on the monotonic clock (from a fixed, unspecified start): the
 * pace of the progress lines and the time a step took. */
double say_now(void);

/* bytes as the progress lines give them: "12.3 MB", from 1e9 "1.23 GB". */
void say_mb(char *buf, size_t size, double bytes);

#endif
