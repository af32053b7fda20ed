/* say.c - one line on standard error, "attnviz: " first: the form of every
 * error and warning of the command line (DESIGN.md), and the progress line
 * a terminal's standard error rewrites in place.
 */
#include "cli/say.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

int say(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("attnviz: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return status;
}

void say_note(const char *line)
{
    say(0, "%s", line);
}

int say_columns(void)
{
    struct winsize ws;
    return ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

/* Bytes of s that make at most cols characters of UTF-8 (a continuation
 * byte is no column of its own), never a character cut in two. */
static size_t fit(const char *s, int cols)
{
    size_t n = 0;
    for (int c = 0; s[n]; c++) {
        if (c == cols)
            break;
        n++;
        while ((s[n] & 0xC0) == 0x80)
            n++;
    }
    return n;
}

void say_progress(const char *fmt, ...)
{
    char line[1024] = "attnviz: ";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + 9, sizeof line - 9, fmt, ap);
    va_end(ap);
    /* the last column left empty: no wrap */
    fprintf(stderr, "\r\033[K%.*s", (int)fit(line, say_columns() - 1), line);
    fflush(stderr);
}

double say_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

void say_mb(char *buf, size_t size, double bytes)
{
    if (bytes >= 1e9)
        snprintf(buf, size, "%.2f GB", bytes / 1e9);
    else
        snprintf(buf, size, "%.1f MB", bytes / 1e6);
}
