/* fuzz_sentences.c - libFuzzer harness for the sentences-file reader.
 *
 * The input is the file's bytes. Besides the sanitizers, the harness checks
 * sentences.h's contract and aborts when it is broken: on success 1 to
 * SENTENCES_MAX sentences, each non-empty, trimmed, not a comment, without a
 * newline, valid UTF-8, at most SENTENCES_MAX_LINE bytes, inside the list's own
 * buffer, and found in the input; on failure nothing allocated and bad_line
 * set exactly for the errors that name a line.
 */
#define _GNU_SOURCE /* memmem */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/sentences.h"
#include "core/utf8.h"

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_sentences: invariant broken: %s\n", what);
        abort();
    }
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Count the input's lines, the way a bad_line number is counted. */
static int count_lines(const uint8_t *data, size_t size)
{
    int lines = 0;
    for (size_t k = 0; k < size; k++)
        lines += data[k] == '\n';
    return lines + (size > 0 && data[size - 1] != '\n');
}

static void check_sentence(const SentenceList *s, const char *item, const uint8_t *data,
                           size_t size, size_t buf_len)
{
    size_t len = strlen(item);
    check(item >= s->buf && item + len <= s->buf + buf_len, "sentence outside the buffer");
    check(len > 0 && len <= SENTENCES_MAX_LINE, "sentence empty or too long");
    check(item[0] != '#', "a comment was kept");
    check(!is_space(item[0]) && !is_space(item[len - 1]), "sentence not trimmed");
    check(!memchr(item, '\n', len), "sentence holds a newline");
    check(utf8_valid_prefix(item, len) == len, "sentence is not valid UTF-8");
    check(memmem(data, size, item, len) != NULL, "sentence not found in the input");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    SentenceList s;
    memset(&s, 0xA5, sizeof s); /* sentences_parse must reset it */
    int rc = sentences_parse((const char *)data, size, &s);
    if (rc != AV_OK) {
        check(rc == AV_ERR_EMPTY || rc == AV_ERR_UTF8 || rc == AV_ERR_TOO_LARGE ||
                  rc == AV_ERR_CONFIG || rc == AV_ERR_NOMEM,
              "sentences_parse returned an undocumented code");
        check(!s.items && !s.buf && s.n == 0, "an error left storage behind");
        if (rc == AV_ERR_EMPTY)
            check(s.bad_line == 0, "AV_ERR_EMPTY names a line");
        else if (rc != AV_ERR_NOMEM)
            check(s.bad_line >= 1 && s.bad_line <= count_lines(data, size),
                  "bad_line outside the input's lines");
        sentences_free(&s);
        return 0;
    }
    check(s.n >= 1 && s.n <= SENTENCES_MAX && s.items && s.buf, "bad sentence count");
    for (int k = 0; k < s.n; k++)
        check_sentence(&s, s.items[k], data, size, size + 1);
    for (int k = 1; k < s.n; k++)
        check(s.items[k] > s.items[k - 1], "sentences out of order");
    sentences_free(&s);
    check(!s.items && !s.buf && s.n == 0, "sentences_free left the list non-zero");
    return 0;
}
