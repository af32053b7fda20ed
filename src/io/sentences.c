/* sentences.c - the example sentences: the built-in list and a teacher's file.
 *
 * The built-in list is assets/sentences.txt, turned into a string literal at
 * build time (scripts/gen-sentences.sh), so an installed attnviz needs no data
 * files. Both go through the same parser.
 */
#include "io/sentences.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/tokenize.h"
#include "core/utf8.h"

static const char builtin[] =
#include "sentences.inc"
    ;

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Trim line[0..*len) in place; returns the new start. */
static char *trim(char *line, size_t *len)
{
    while (*len && is_space(*line))
        line++, (*len)--;
    while (*len && is_space(line[*len - 1]))
        (*len)--;
    line[*len] = '\0';
    return line;
}

/* Parse the lines of buf (NUL-terminated, owned by out) into out->items. */
static int parse_lines(char *buf, size_t size, SentenceList *out)
{
    int line_no = 0;
    for (char *p = buf; p < buf + size;) {
        char *nl = memchr(p, '\n', (size_t)(buf + size - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(buf + size - p);
        char *next = nl ? nl + 1 : buf + size;
        line_no++;
        if (len > SENTENCES_MAX_LINE || utf8_valid_prefix(p, len) != len) {
            out->bad_line = line_no;
            return len > SENTENCES_MAX_LINE ? AV_ERR_TOO_LARGE : AV_ERR_UTF8;
        }
        char *s = trim(p, &len);
        if (len && *s != '#') {
            if (out->n == SENTENCES_MAX || memchr(s, '\0', len)) {
                out->bad_line = line_no;
                return out->n == SENTENCES_MAX ? AV_ERR_TOO_LARGE : AV_ERR_UTF8;
            }
            out->items[out->n++] = s;
        }
        p = next;
    }
    return out->n ? AV_OK : AV_ERR_EMPTY;
}

int sentences_parse(const char *data, size_t len, SentenceList *out)
{
    memset(out, 0, sizeof *out);
    out->buf = malloc(len + 1);
    out->items = malloc(SENTENCES_MAX * sizeof *out->items);
    if (!out->buf || !out->items) {
        sentences_free(out);
        return AV_ERR_NOMEM;
    }
    memcpy(out->buf, data, len);
    out->buf[len] = '\0';
    int bad = 0, err = parse_lines(out->buf, len, out);
    if (err) {
        bad = out->bad_line;
        sentences_free(out);
        out->bad_line = bad;
    }
    return err;
}

int sentences_builtin(SentenceList *out)
{
    return sentences_parse(builtin, sizeof builtin - 1, out);
}

void sentences_free(SentenceList *s)
{
    free(s->items);
    free(s->buf);
    memset(s, 0, sizeof *s);
}
