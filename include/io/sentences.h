/* sentences.h - the example sentences: built in (assets/sentences.txt,
 * compiled into the binary) or a teacher's own file given with --sentences.
 *
 * File format: UTF-8, one sentence per line; blank lines and lines starting
 * with '#' are skipped; surrounding whitespace is trimmed; CR LF is accepted.
 */
#ifndef ATTNVIZ_SENTENCES_H
#define ATTNVIZ_SENTENCES_H

#include <stddef.h>

#define SENTENCES_MAX 1000         /* sentences kept from one file */
#define SENTENCES_MAX_LINE 4096    /* bytes in one sentence */

typedef struct {
    char **items; /* n NUL-terminated sentences, pointing into buf */
    int n;
    char *buf;
    int bad_line; /* with an error: the 1-based line at fault, else 0 */
} SentenceList;

/* Parse data[0..len) into *out (zeroed first). Returns AV_OK, AV_ERR_EMPTY
 * (no sentence), AV_ERR_UTF8 or AV_ERR_TOO_LARGE (a line over the limit or
 * more than SENTENCES_MAX sentences; out->bad_line set), AV_ERR_NOMEM. */
int sentences_parse(const char *data, size_t len, SentenceList *out);

/* The built-in list (assets/sentences.txt at build time). */
int sentences_builtin(SentenceList *out);

void sentences_free(SentenceList *s);

#endif
