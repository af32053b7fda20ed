/* stale.h - temporaries left beside a target by a writer that was killed
 * (SIGKILL, a power cut): whose they are, and removing them.
 *
 * Every temporary attnviz writes carries its writer's process id in its name
 * (fileio.h: ".NAME.PID.XXXXXX", dirswap.h: ".NAME.new-PID-XXXXXX"). The next
 * writer of the same target sweeps the target's folder for names of exactly
 * that pattern: one whose process is gone is removed (a folder whole, no
 * symbolic link followed); one whose process may still be writing it, or one
 * that cannot be removed, is left and said in one line to the note hook
 * (stale_set_note). Nothing else in the folder is touched.
 */
#ifndef ATTNVIZ_STALE_H
#define ATTNVIZ_STALE_H

#include <stdbool.h>
#include <time.h>

typedef enum {
    STALE_GONE,   /* no process has that id, or one that started after the file
                   * was last written (the id was used again) */
    STALE_LIVE,   /* the process runs and started before the file's last write */
    STALE_UNSURE, /* it runs, and its start time cannot be read (no /proc) */
} StaleOwner;

/* Whether process pid can still be writing a file last modified at mtime:
 * kill(pid, 0) first (EPERM counts as running), then, where /proc is there,
 * the process's start time (/proc/PID/stat field 22 after btime of /proc/stat)
 * against mtime, with a 2-second margin for the rounding of both. */
StaleOwner stale_owner(long pid, time_t mtime);

/* Remove the entry name of the folder open as dirfd: a file or a symbolic
 * link (the link itself), or a folder and all it holds, opened with openat
 * O_NOFOLLOW at every level so no link is followed out of it. A missing
 * entry is not an error. Returns AV_OK or AV_ERR_IO (errno set). */
int stale_remove_at(int dirfd, const char *name);

/* The process id a temporary's name carries, or 0 when name is not one of
 * target's temporaries; match's ctx is what stale_sweep was given. */
typedef long (*StaleMatch)(const char *name, const void *ctx);

/* Called for a temporary whose process is gone before it is removed: return
 * true when it was dealt with otherwise (dirswap puts a folder renamed aside
 * back in place) and must not be removed. */
typedef bool (*StaleClaim)(int dirfd, const char *name, const void *ctx);

/* Sweep the folder parent ("." for the current one): every entry that
 * match names, of a process that is gone, is claimed or removed; the others
 * are left, each said in one line to the note hook (those of this very
 * process too recent to be an earlier one's are ours and not said). target
 * names the target in those lines. claim may be NULL. Best effort: a folder
 * that cannot be read is not swept, and nothing is returned. */
void stale_sweep(const char *parent, const char *target, StaleMatch match, StaleClaim claim,
                 const void *ctx);

/* Where stale_sweep says what it left: one line, no newline, no "attnviz: ".
 * NULL (the start) says nothing. The command line sets it to standard error
 * before writing; the interface leaves it unset (stderr would land on the
 * screen). Set it before any thread writes. */
typedef void (*StaleNote)(const char *line);
void stale_set_note(StaleNote fn);

#endif
