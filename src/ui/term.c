/* term.c - the terminal's life cycle: curses started and restored, the
 * signals that end the program (a flag the loop reads), and term_die, the
 * one fatal path of the interface, which restores the terminal first
 * (htop's CRT_fatalError). Holds no state of its own beyond curses' and the
 * signal flag: term_end asks curses whether the screen is up.
 */
#include "term.h"

#include <curses.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t signalled;

static void on_signal(int sig)
{
    signalled = sig;
}

void term_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
}

int term_signalled(void)
{
    return signalled;
}

void term_end(void)
{
    if (!stdscr || isendwin())
        return;
    mousemask(0, NULL);
    fputs("\033[?2004l", stdout); /* bracketed paste off again */
    fflush(stdout);
    endwin();
}

void term_die(const char *fmt, ...)
{
    va_list ap;
    term_end();
    va_start(ap, fmt);
    fputs("attnviz: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

void term_fail(int status, const char *msg)
{
    term_end();
    fprintf(stderr, "attnviz: %s\n", msg);
    exit(status);
}

void *term_xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q)
        term_die("out of memory");
    return q;
}

static void mouse_on(void)
{
    mmask_t mask = BUTTON1_PRESSED | BUTTON1_CLICKED;
#if NCURSES_MOUSE_VERSION > 1
    mask |= BUTTON4_PRESSED | BUTTON5_PRESSED;
#endif
    mousemask(mask, NULL);
    mouseinterval(0);
}

void term_mouse_forget(void)
{
    mousemask(0, NULL);
    mouse_on();
}

void term_begin(void)
{
    set_escdelay(25);
    /* newterm, not initscr: initscr prints curses' own "Error opening
     * terminal" and exits when TERM names no terminfo entry */
    if (!newterm(NULL, stdout, stdin)) {
        const char *name = getenv("TERM");
        if (!name || !*name)
            fputs("attnviz: TERM is not set, so the terminal is unknown: set it (e.g. "
                  "TERM=xterm-256color), or use --export\n",
                  stderr);
        else
            fprintf(stderr,
                    "attnviz: the terminal (TERM=%s) has no terminfo entry here: set TERM to "
                    "one that has (e.g. TERM=xterm-256color), or use --export\n",
                    name);
        exit(1);
    }
    atexit(term_end);
    raw(); /* no flow control (Ctrl-S froze the screen); Ctrl-C is a key: quit */
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    curs_set(0);
    timeout(100);
    mouse_on();
    /* Bracketed paste: a paste comes between ESC [200~ and ESC [201~, so its
     * tabs and line breaks type into the sentence rather than act as keys
     * (input.c); a terminal without it ignores the request. */
    fputs("\033[?2004h", stdout);
    fflush(stdout);
}

double term_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
