/* bench_tty.c - the interface's figures for bench.c: ./attnviz on a
 * pseudo-terminal (forkpty) at 120x40, TERM=xterm-256color; a key is written
 * and the time taken until the program has been quiet for 40 ms after its
 * last byte (the screen complete).
 */
#include "bench_tty.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

typedef struct {
    pid_t pid;
    int fd;
} Tty;

/* Read what the program writes until it has been quiet for quiet_ms after the
 * first byte (or first_ms pass with nothing). Returns the bytes read and sets
 * *last to the time of the last byte. */
static long tty_drain(const Tty *t, double first_ms, double quiet_ms, double *last)
{
    char buf[65536];
    long total = 0;
    double start = now_ms();
    *last = start;
    for (;;) {
        double wait = total ? quiet_ms - (now_ms() - *last) : first_ms - (now_ms() - start);
        if (wait <= 0)
            break;
        struct pollfd pfd = {t->fd, POLLIN, 0};
        int rc = poll(&pfd, 1, (int)ceil(wait));
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc <= 0)
            break;
        ssize_t got = read(t->fd, buf, sizeof buf);
        if (got <= 0)
            break;
        total += got;
        *last = now_ms();
    }
    return total;
}

static int tty_start(Tty *t, char *const argv[])
{
    struct winsize ws = {.ws_row = 40, .ws_col = 120};
    t->pid = forkpty(&t->fd, NULL, NULL, &ws);
    if (t->pid < 0)
        return -1;
    if (t->pid == 0) {
        setenv("TERM", "xterm-256color", 1);
        unsetenv("NO_COLOR");
        execv(argv[0], argv);
        _exit(127);
    }
    return 0;
}

static void tty_stop(Tty *t)
{
    static const char quit[] = "\033[21~"; /* F10 */
    double last;
    if (write(t->fd, quit, sizeof quit - 1) < 0)
        (void)0;
    tty_drain(t, 300, 100, &last);
    if (waitpid(t->pid, NULL, WNOHANG) == 0) {
        kill(t->pid, SIGTERM);
        waitpid(t->pid, NULL, 0);
    }
    close(t->fd);
}

/* Keys in the application cursor mode ncurses turns on (xterm's kcud1, kcuu1). */
static const char KEY_DOWN_SEQ[] = "\033OB", KEY_UP_SEQ[] = "\033OA";
static const char KEY_MASK_SEQ[] = "\013"; /* Ctrl-K: causal mask on/off (src/ui/input.c) */
/* Typing: e edits the sentence (cursor at its end), then a letter and
 * Backspace in turn, each a new tokenisation, model run and redraw; Enter ends. */
static const char KEY_EDIT_SEQ[] = "e", KEY_TYPE_SEQ[] = "s", KEY_BKSP_SEQ[] = "\177";
static const char KEY_DONE_SEQ[] = "\r";

/* Bytes and milliseconds until the screen is complete after writing key. */
static long tty_key(const Tty *t, const char *key, double *ms)
{
    double last, t0 = now_ms();
    if (write(t->fd, key, strlen(key)) < 0)
        return -1;
    long bytes = tty_drain(t, 2000, 40, &last);
    *ms = last - t0;
    return bytes;
}

static void bench_tty_text(const char *prog, const char *label, char *const argv[], int keys)
{
    Tty t;
    double last, ms[64], one;
    if (access(prog, X_OK) || tty_start(&t, argv)) {
        printf("bench keystroke text=%s skipped reason=cannot_start_%s\n", label, prog);
        return;
    }
    long boot = tty_drain(&t, 5000, 300, &last);
    if (boot <= 0 || waitpid(t.pid, NULL, WNOHANG) != 0) {
        printf("bench keystroke text=%s skipped reason=no_interactive_screen\n", label);
        tty_stop(&t);
        return;
    }
    int got = 0;
    for (int k = 0; k < keys && k < 64; k++)
        if (tty_key(&t, k % 2 ? KEY_UP_SEQ : KEY_DOWN_SEQ, &ms[got]) > 0)
            got++;
    if (got < keys / 2) {
        printf("bench keystroke text=%s skipped reason=no_redraw_after_down_arrow\n", label);
    } else {
        double med = median(ms, got); /* sorts ms */
        printf("bench keystroke text=%s keys=%d ms=%.2f max_ms=%.2f\n", label, got, med,
               ms[got - 1]);
    }
    double mask_ms;
    long move = tty_key(&t, KEY_DOWN_SEQ, &one);
    long mask = tty_key(&t, KEY_MASK_SEQ, &mask_ms);
    printf("bench tty_bytes text=%s size=120x40 move=%ld mask=%ld mask_ms=%.2f\n", label, move,
           mask, mask_ms);
    tty_key(&t, KEY_MASK_SEQ, &one);
    tty_key(&t, KEY_EDIT_SEQ, &one);
    got = 0;
    for (int k = 0; k < keys && k < 64; k++)
        if (tty_key(&t, k % 2 ? KEY_BKSP_SEQ : KEY_TYPE_SEQ, &ms[got]) > 0)
            got++;
    tty_key(&t, KEY_DONE_SEQ, &one);
    if (got >= keys / 2) {
        double med = median(ms, got);
        printf("bench keystroke_typing text=%s keys=%d ms=%.2f max_ms=%.2f\n", label, got, med,
               ms[got - 1]);
    }
    fflush(stdout);
    tty_stop(&t);
}

/* A text of n tokens written to a temporary file; its path in path. */
static int long_text(int n, char *path, size_t cap)
{
    static const char *const words[] = {"the", "cat",   "sat",      "on",      "a",         "warm",
                                        "mat", "while", "students", "watched", "attention", "move"};
    snprintf(path, cap, "/tmp/attnviz-bench-XXXXXX");
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return -1;
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%c", words[(i * 7 + i / 12) % 12], i % 16 == 15 ? '\n' : ' ');
    return fclose(f) ? -1 : 0;
}

/* The targets are for the toy model (d_model 32, 4 heads: --preset random);
 * the interface now opens on the designed heads (d_model 192, 6 heads) when
 * no preset or size is given, measured too as "_designed". */
void bench_interface(const char *prog)
{
    char p[4096], path[64], rnd[] = "--preset", rnd_v[] = "random";
    snprintf(p, sizeof p, "%s", prog);
    char *short_argv[] = {p, rnd, rnd_v,
                          "the quick brown fox jumps over the lazy dog near the river", NULL};
    bench_tty_text(prog, "12_tokens", short_argv, 30);
    if (long_text(2048, path, sizeof path)) {
        printf("bench keystroke text=2048_tokens skipped reason=tmpfile\n");
        return;
    }
    char *long_argv[] = {p, rnd, rnd_v, "-f", path, NULL};
    bench_tty_text(prog, "2048_tokens", long_argv, 30);
    char *designed_argv[] = {p, "-f", path, NULL};
    bench_tty_text(prog, "2048_tokens_designed", designed_argv, 30);
    unlink(path);
}
