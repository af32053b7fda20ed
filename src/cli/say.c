/* say.c - one line on standard error, "attnviz: " first: the form of every
 * error and warning of the command line (DESIGN.md).
 */
#include "cli/say.h"

#include <stdarg.h>
#include <stdio.h>

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
