/* keytty.c - the terminal of the interface's keys (keytty.h): standard
 * input, or the controlling terminal when standard input held the text.
 */
#include "cli/keytty.h"

#include <fcntl.h>
#include <unistd.h>

#include "cli/say.h"

int keytty_open(bool stdin_read, const char *not_tty)
{
    const bool out = isatty(STDOUT_FILENO);
    if (out && !isatty(STDIN_FILENO) && stdin_read) {
        int fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
        if (fd >= 0 && isatty(fd) && dup2(fd, STDIN_FILENO) == STDIN_FILENO) {
            close(fd);
            return 0;
        }
        if (fd >= 0)
            close(fd);
        return say(2, "the text came from standard input (-f -) and no terminal is there for "
                      "the keys: use -f FILE");
    }
    if (out && isatty(STDIN_FILENO))
        return 0;
    return say(2, "%s", not_tty);
}
