/* term.h - the terminal's life cycle under curses: start, restore, signals,
 * and the fatal path that restores the terminal before it says anything.
 * Knows nothing of attnviz's state; every other file of src/ui/ may use it.
 */
#ifndef ATTNVIZ_TERM_H
#define ATTNVIZ_TERM_H

#include <stdbool.h>
#include <stddef.h>

/* Start curses on a terminal already checked to be one, in raw mode (no flow
 * control; Ctrl-C arrives as a key), no echo, keypad and mouse on, the
 * cursor hidden, reads waiting at most 100 ms. The caller has set a UTF-8
 * locale (main.c). Registers term_end with atexit. Exits with status 1 and
 * one line on stderr when curses cannot start. */
void term_begin(void);

/* Forget the buttons curses holds as pressed (mouse reports off and on
 * again). curses keeps a press as held until its release arrives and reads
 * the next press before that release as a drag, so a press whose release
 * never came (let go outside the window, a report cut short) cost the next
 * click. Called after every mouse event. */
void term_mouse_forget(void);

/* Restore the terminal: mouse reports off, endwin. Idempotent, and a no-op
 * before term_begin; safe from atexit. */
void term_end(void);

/* SIGINT, SIGTERM, SIGHUP and SIGQUIT only set a flag (never drawn from a
 * handler); term_signalled returns it (0 = none). */
void term_signals(void);
int term_signalled(void);

/* Restore the terminal, print "attnviz: <message>" on stderr, exit 1. */
void term_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* The same with the exit status a failure asks for (app_poll's APP_DO_FAIL:
 * a bad file found while the interface is up exits 2): msg is one line. */
void term_fail(int status, const char *msg) __attribute__((noreturn));

/* realloc that never fails: out of memory ends in term_die. size 0 gives a
 * 1-byte block. */
void *term_xrealloc(void *p, size_t size);

/* CLOCK_MONOTONIC in milliseconds. */
double term_now_ms(void);

#endif
