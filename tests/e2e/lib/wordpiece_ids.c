/* wordpiece_ids.c - a test driver for BERT's tokenizer (core/wordpiece.h,
 * io/hfwordpiece.h), built by tests/e2e/wordpiece.sh from the sources.
 *
 *   wordpiece_ids DIR [--spans|--time] < lines
 *
 * Reads DIR's tokenizer files (vocab.txt or tokenizer.json, and
 * tokenizer_config.json), then one text per input line written in hex (its
 * UTF-8 bytes), and prints one line per text: the token ids separated by
 * spaces, then " | " and the index of the first token of the second sentence
 * (-1 for none); with --spans each id as id:start:len. Every encoding must
 * start with [CLS] and end with [SEP], its spans lie in the text with starts
 * that never go back, else it exits 3. --time encodes each text 20 times and
 * prints the tokens per second of processor time on stderr. A vocabulary
 * refused: its line on stderr, exit 2 (1: a file that cannot be read).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/av.h"
#include "core/wordpiece.h"
#include "io/hfwordpiece.h"

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* s[0..n) in lowercase hex into out; the byte count, or -1 when not hex. */
static long unhex(const char *s, size_t n, char *out)
{
    if (n % 2)
        return -1;
    for (size_t k = 0; k < n; k += 2) {
        int hi = hexval(s[k]), lo = hexval(s[k + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[k / 2] = (char)(hi << 4 | lo);
    }
    return (long)(n / 2);
}

static int check(const WordPiece *w, size_t len, const WpEncoding *e)
{
    if (e->n < 2 || e->piece[0].id != w->special[WP_CLS] ||
        e->piece[e->n - 1].id != w->special[WP_SEP])
        return 0;
    for (int i = 0; i < e->n; i++) {
        const WpPiece *p = &e->piece[i];
        if (p->id < 0 || p->id >= w->n_vocab || p->start > len || p->len > len - p->start)
            return 0;
        if (i > 0 && p->start < e->piece[i - 1].start)
            return 0;
    }
    return e->second == -1 || (e->second >= 2 && e->second < e->n);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: wordpiece_ids DIR [--spans|--time] < hex lines\n");
        return 2;
    }
    const char *mode = argc > 2 ? argv[2] : "";
    char why[256];
    WordPiece w;
    int rc = hfwp_read_dir(argv[1], &w, why, sizeof why);
    if (rc) {
        fprintf(stderr, "wordpiece_ids: %s\n", why);
        return av_exit_status(rc);
    }
    WpEncoding e = {0};
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    double secs = 0;
    long tokens = 0;
    while ((got = getline(&line, &cap, stdin)) > 0) {
        size_t n = (size_t)got - (line[got - 1] == '\n');
        char *text = malloc(n / 2 + 1);
        long len = unhex(line, n, text);
        if (len < 0 || wp_encode(&w, text, (size_t)len, 1 << 30, &e) != AV_OK ||
            !check(&w, (size_t)len, &e)) {
            fprintf(stderr, "wordpiece_ids: a text failed: %.*s\n", (int)n, line);
            return 3;
        }
        if (strcmp(mode, "--time") == 0) {
            double t0 = now();
            for (int r = 0; r < 20; r++)
                wp_encode(&w, text, (size_t)len, 1 << 30, &e);
            secs += now() - t0, tokens += 20L * e.n;
        }
        for (int i = 0; i < e.n; i++)
            if (strcmp(mode, "--spans") == 0)
                printf("%s%d:%zu:%zu", i ? " " : "", e.piece[i].id, e.piece[i].start,
                       e.piece[i].len);
            else
                printf("%s%d", i ? " " : "", e.piece[i].id);
        printf(" | %d\n", e.second);
        free(text);
    }
    if (strcmp(mode, "--time") == 0 && secs > 0)
        fprintf(stderr, "wordpiece_ids: %ld tokens in %.3f s: %.0f tokens/s\n", tokens, secs,
                (double)tokens / secs);
    free(line);
    wp_encoding_free(&e);
    wp_free(&w);
    return 0;
}
