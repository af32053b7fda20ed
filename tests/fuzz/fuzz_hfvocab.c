/* fuzz_hfvocab.c - libFuzzer harness for the vocabulary readers
 * (io/hfvocab.h). An input with a NUL byte is vocab.json before the first
 * NUL and merges.txt after it; one without is a tokenizer.json. Besides the
 * sanitizers, the harness aborts when the contract breaks: a refusal is
 * AV_ERR_MODEL with one line of valid UTF-8 in why and nothing allocated; an
 * accepted vocabulary has every id's token, a token for each byte, and
 * encodes a fixed text and the input itself so that decoding gives it back.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/bpe.h"
#include "core/utf8.h"
#include "io/hfvocab.h"

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_hfvocab: invariant broken: %s\n", what);
        abort();
    }
}

static void round_trip(const Bpe *b, const char *text, size_t len)
{
    if (utf8_valid_prefix(text, len) < len)
        return;
    BpeEncoding e = {0};
    check(bpe_encode(b, text, len, 1 << 20, &e) == AV_OK, "a valid text was not encoded");
    int *ids = malloc(((size_t)e.n + 1) * sizeof *ids);
    char *back = malloc(len + 1);
    check(ids && back, "out of memory");
    for (int i = 0; i < e.n; i++)
        ids[i] = e.piece[i].id;
    check(bpe_decode(b, ids, e.n, back, len) == len && memcmp(back, text, len) == 0,
          "decode(encode(x)) != x");
    free(ids);
    free(back);
    bpe_encoding_free(&e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    const char *nul = memchr(s, 0, size);
    char why[256] = "";
    Bpe b;
    int rc = nul ? hfvocab_parse(s, (size_t)(nul - s), nul + 1, size - (size_t)(nul - s) - 1, &b,
                                 why, sizeof why)
                 : hfvocab_parse_tokenizer(s, size, &b, why, sizeof why);
    if (rc != AV_OK) {
        check(rc == AV_ERR_MODEL || rc == AV_ERR_NOMEM, "an unexpected error code");
        check(why[0] && !strchr(why, '\n') && utf8_valid_prefix(why, strlen(why)) == strlen(why),
              "the reason is not one line of UTF-8");
        check(!b.pool && !b.off && !b.pair_key, "a refused vocabulary left memory behind");
        return 0;
    }
    for (int id = 0; id < b.n_vocab; id++) {
        size_t len;
        check(bpe_token(&b, id, &len) && len > 0, "an id without a token");
    }
    for (int c = 0; c < 256; c++)
        check(b.byte_id[c] >= 0, "a byte without a token");
    static const char text[] =
        "Hello world, it's 12 o'clock <|endoftext|> caf\xc3\xa9 \xf0\x9f\x98\x80";
    round_trip(&b, text, sizeof text - 1);
    round_trip(&b, s, size);
    bpe_free(&b);
    return 0;
}
