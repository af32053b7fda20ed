/* say.h - the command line's one way to report: "attnviz: " and one line
 * on standard error (say.c). Used before curses starts, never after.
 */
#ifndef ATTNVIZ_SAY_H
#define ATTNVIZ_SAY_H

/* Print "attnviz: " and the formatted message as one line on standard
 * error; returns status, for `return say(2, ...)`. */
int say(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* say(0, "%s", line): the hook by which io says what a killed run left
 * beside a file it writes (io/stale.h). */
void say_note(const char *line);

#endif
