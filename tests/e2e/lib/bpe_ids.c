/* bpe_ids.c - a test driver for GPT-2's tokenizer (core/bpe.h, io/hfvocab.h),
 * built by tests/e2e/bpe_gpt2.sh against the io and core archives.
 *
 *   bpe_ids DIR [--spans|--display|--time]  < lines
 *
 * Reads DIR's vocab.json + merges.txt (or tokenizer.json), then one text per
 * input line written in hex (its UTF-8 bytes), and prints one line per text:
 * the token ids separated by spaces; with --spans each as id:start:len; with
 * --display each token's display string, separated by a tab. Every encoding
 * is decoded again and must give back the text's bytes, its spans must cover
 * the text in order, else it exits 3. --time encodes each text 20 times and
 * prints the tokens per second of processor time on stderr. A vocabulary refused: its line on
 * stderr, exit 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/av.h"
#include "core/bpe.h"
#include "io/hfvocab.h"

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* s[0..n) in lowercase hex into out; the byte count, or -1 when not hex
 * (by hand: glibc's sscanf measures the whole rest of a string each call). */
static int unhex(const char *s, size_t n, char *out)
{
    if (n % 2)
        return -1;
    for (size_t k = 0; k < n; k += 2) {
        int hi = hexval(s[k]), lo = hexval(s[k + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[k / 2] = (char)(hi << 4 | lo);
    }
    return (int)(n / 2);
}

static int check(const Bpe *b, const char *t, size_t len, const BpeEncoding *e, char *buf)
{
    size_t at = 0;
    int *ids = malloc(((size_t)e->n + 1) * sizeof *ids);
    for (int i = 0; i < e->n; i++) {
        if (e->piece[i].start != at || e->piece[i].len == 0)
            return free(ids), 0;
        size_t tl;
        const char *tok = bpe_token(b, e->piece[i].id, &tl);
        if (!tok || tl != e->piece[i].len || memcmp(tok, t + at, tl) != 0)
            return free(ids), 0;
        at += e->piece[i].len;
        ids[i] = e->piece[i].id;
    }
    size_t n = bpe_decode(b, ids, e->n, buf, len);
    free(ids);
    return at == len && n == len && memcmp(buf, t, len) == 0;
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
        fprintf(stderr, "usage: bpe_ids DIR [--spans|--display|--time] < hex lines\n");
        return 2;
    }
    const char *mode = argc > 2 ? argv[2] : "";
    char why[256];
    Bpe b;
    int rc = hfvocab_read_dir(argv[1], &b, why, sizeof why);
    if (rc) {
        fprintf(stderr, "bpe_ids: %s\n", why);
        return av_exit_status(rc);
    }
    BpeEncoding e = {0};
    TokenList tl = {0};
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    double secs = 0;
    long tokens = 0;
    while ((got = getline(&line, &cap, stdin)) > 0) {
        size_t n = (size_t)got - (line[got - 1] == '\n');
        char *text = malloc(n / 2 + 1), *back = malloc(n / 2 + 1);
        int len = unhex(line, n, text);
        if (len < 0 || bpe_encode(&b, text, (size_t)len, 1 << 30, &e) != AV_OK ||
            !check(&b, text, (size_t)len, &e, back)) {
            fprintf(stderr, "bpe_ids: a text failed: %.*s\n", (int)n, line);
            return 3;
        }
        if (strcmp(mode, "--time") == 0) {
            double t0 = now();
            for (int r = 0; r < 20; r++)
                bpe_encode(&b, text, (size_t)len, 1 << 30, &e);
            secs += now() - t0, tokens += 20L * e.n;
        }
        if (strcmp(mode, "--display") == 0 && bpe_token_list(text, &e, &tl) == AV_OK)
            for (int i = 0; i < tl.n; i++)
                printf("%s%s", i ? "\t" : "", tl.tok[i].str);
        for (int i = 0; i < e.n && strcmp(mode, "--display") != 0; i++)
            if (strcmp(mode, "--spans") == 0)
                printf("%s%d:%zu:%zu", i ? " " : "", e.piece[i].id, e.piece[i].start,
                       e.piece[i].len);
            else
                printf("%s%d", i ? " " : "", e.piece[i].id);
        putchar('\n');
        free(text);
        free(back);
    }
    if (strcmp(mode, "--time") == 0 && secs > 0)
        fprintf(stderr, "bpe_ids: %ld tokens in %.3f s: %.0f tokens/s\n", tokens, secs,
                (double)tokens / secs);
    free(line);
    tokenize_free(&tl);
    bpe_encoding_free(&e);
    bpe_free(&b);
    return 0;
}
