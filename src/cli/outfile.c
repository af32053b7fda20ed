/* outfile.c - a command's output written whole (cli/outfile.h). */
#include "cli/outfile.h"

#include <errno.h>
#include <string.h>

#include "io/fileio.h"
#include "cli/say.h"

int outfile_write(const char *path, const char *what, OutfileWriter write, void *ctx)
{
    MemFile m;
    if (memfile_open(&m))
        return say(1, "out of memory");
    int err = write(m.f, ctx);
    if (!err)
        err = memfile_close(&m);
    if (!err && path)
        err = file_write_atomic(path, m.buf, m.len, false);
    else if (!err)
        err = fwrite(m.buf, 1, m.len, stdout) != m.len || fflush(stdout) ? -1 : 0;
    memfile_free(&m);
    return err ? say(1, "cannot write %s: %s", path ? path : what, strerror(errno)) : 0;
}
