/* keytty.h - the terminal the interface reads its keys from (keytty.c),
 * checked before curses starts.
 */
#ifndef ATTNVIZ_KEYTTY_H
#define ATTNVIZ_KEYTTY_H

#include <stdbool.h>

/* Whether the interface can run: standard output a terminal, and keys from
 * one. When the text was standard input (-f -: stdin_read), the keys come
 * from the controlling terminal instead (/dev/tty made standard input, as
 * less and vim - do). Returns 0, or 2 after one line on standard error:
 * not_tty when there is no terminal, or why the text's keys have none. */
int keytty_open(bool stdin_read, const char *not_tty);

#endif
