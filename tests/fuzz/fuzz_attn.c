/* fuzz_attn.c - libFuzzer harness for imported attention (io/attnfile.h)
 * and its token files (io/tokfile.h).
 *
 * The first byte chooses the reader, the rest is the file (written to a
 * scratch file, since both readers take a path; attnfile maps it).
 *   Even: an attention .npy. An accepted header gives a shape within the
 *   limits, 3 or 4 dimensions, an item size of 4 or 8, and data that fits in
 *   the file; then the streamed check (attnfile_validate) runs and, whatever
 *   it says, every row is read through attnfile_row and attnfile_head
 *   (a read past the file would fault); a validated file's values are
 *   finite and non-negative, a causal one's upper triangles exactly 0, and
 *   rows outside the tolerance counted in bad_rows.
 *   Odd: a token file, the second byte the most tokens allowed. An accepted
 *   file has 1..max tokens, each printable (no control character), at most
 *   AV_MAX_TOKEN_BYTES of valid UTF-8, indexed into tokfile_text's text.
 *   A refusal is a documented code with a one-line message.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/av.h"
#include "core/tokenize.h"
#include "core/utf8.h"
#include "io/attnfile.h"
#include "io/tokfile.h"

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_attn: invariant broken: %s\n", what);
        abort();
    }
}

static void check_line(const char *msg)
{
    check(msg[0] != '\0', "a refusal without a message");
    for (const char *c = msg; *c; c++)
        check((unsigned char)*c >= 0x20 || *c == '\t', "a message that is not one line");
}

static const char *scratch(const uint8_t *d, size_t n)
{
    static char path[256];
    if (!path[0]) {
        const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(path, sizeof path, "%s/fuzz_attn.%ld.npy", base, (long)getpid());
    }
    FILE *f = fopen(path, "wb");
    check(f && fwrite(d, 1, n, f) == n && fclose(f) == 0, "cannot write the scratch file");
    return path;
}

static void attention(const uint8_t *d, size_t n)
{
    const char *path = scratch(d, n);
    AttnFile af;
    char msg[256] = "";
    int rc = attnfile_open(path, &af, msg, sizeof msg);
    if (rc != AV_OK) {
        check(rc == AV_ERR_NPY_FORMAT || rc == AV_ERR_NPY_DTYPE || rc == AV_ERR_NPY_SHAPE ||
                  rc == AV_ERR_TOO_MANY || rc == AV_ERR_IO || rc == AV_ERR_NOMEM,
              "attnfile_open: an undocumented code");
        check_line(msg);
        attnfile_close(&af);
        return;
    }
    check(af.ndim == 3 || af.ndim == 4, "a rank other than 3 or 4");
    check(af.ndim == 4 || af.L == 1, "a 3-dimensional file with L != 1");
    check(af.L >= 1 && af.L <= ATTNFILE_MAX_LAYERS && af.H >= 1 && af.H <= ATTNFILE_MAX_HEADS,
          "L or H out of range");
    check(af.n_q >= 1 && af.n_q <= AV_MAX_TOKENS && af.n_k >= 1 && af.n_k <= AV_MAX_TOKENS,
          "n_q or n_k out of range");
    check(af.itemsize == 4 || af.itemsize == 8, "an item size other than 4 or 8");
    size_t cells = (size_t)af.L * af.H * af.n_q * af.n_k;
    check(af.data_offset <= n && cells <= (n - af.data_offset) / (size_t)af.itemsize,
          "the data does not fit in the file");
    rc = attnfile_validate(&af, msg, sizeof msg);
    check(rc == AV_OK || rc == AV_ERR_NPY_NONFINITE || rc == AV_ERR_NPY_NEGATIVE,
          "attnfile_validate: an undocumented code");
    if (rc != AV_OK)
        check_line(msg);
    float *row = malloc((size_t)af.n_k * sizeof *row);
    float *head = malloc((size_t)af.n_q * af.n_k * sizeof *head);
    check(row && head, "out of memory in the harness");
    size_t bad = 0;
    for (int l = 0; l < af.L && cells <= 65536; l++)
        for (int h = 0; h < af.H; h++) {
            attnfile_head(&af, l, h, head);
            for (int i = 0; i < af.n_q; i++) {
                const float *r = attnfile_row(&af, l, h, i, row);
                check(memcmp(r, head + (size_t)i * af.n_k, (size_t)af.n_k * sizeof *r) == 0,
                      "attnfile_row and attnfile_head differ");
                double sum = 0;
                for (int j = 0; j < af.n_k && rc == AV_OK; j++) {
                    check(isfinite(r[j]) && r[j] >= 0.0f, "a validated value is bad");
                    check(!af.causal || j <= i || r[j] == 0.0f, "causal, yet above the diagonal");
                    sum += r[j];
                }
                bad += rc == AV_OK && fabs(sum - 1.0) > ATTNFILE_SUM_TOL * 1.01 + 1e-6;
            }
        }
    if (rc == AV_OK && cells <= 65536)
        check(bad <= af.bad_rows, "rows off 1 that bad_rows does not count");
    free(row);
    free(head);
    attnfile_close(&af);
}

static void tokens(const uint8_t *d, size_t n, int max)
{
    const char *path = scratch(d, n);
    TokenList t;
    memset(&t, 0, sizeof t);
    char msg[256] = "";
    int rc = tokfile_read(path, 0, max, &t, msg, sizeof msg);
    if (rc != AV_OK) {
        check(rc == AV_ERR_UTF8 || rc == TOKFILE_ERR || rc == AV_ERR_EMPTY ||
                  rc == AV_ERR_TOO_MANY || rc == AV_ERR_NOMEM || rc == AV_ERR_TOO_LARGE,
              "tokfile_read: an undocumented code");
        check_line(msg);
        tokenize_free(&t);
        return;
    }
    check(t.n >= 1 && t.n <= max, "a token count out of range");
    char *text;
    size_t len;
    check(tokfile_text(&t, &text, &len) == AV_OK, "tokfile_text");
    check(strlen(text) == len, "tokfile_text's length");
    for (int k = 0; k < t.n; k++) {
        const Token *tk = &t.tok[k];
        size_t sl = strlen(tk->str);
        check(sl >= 1 && sl <= AV_MAX_TOKEN_BYTES, "a token's length out of range");
        check(tk->start + tk->len <= len && tk->len == sl &&
                  memcmp(text + tk->start, tk->str, sl) == 0,
              "a token's span is not its text");
        for (size_t i = 0; i < sl;) {
            unsigned cp;
            int m = utf8_decode(tk->str + i, sl - i, &cp);
            check(m > 0, "a token is not UTF-8");
            check(cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp < 0xa0),
                  "a token holds a control character (C0, DEL or C1)");
            i += (size_t)m;
        }
    }
    free(text);
    tokenize_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    if (data[0] % 2 == 0)
        attention(data + 1, size - 1);
    else
        tokens(data + 2, size - 2, 1 + data[1] % 64);
    return 0;
}
