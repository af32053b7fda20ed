/* sentences.h - the example sentences: built in (assets/sentences.txt,
 * compiled into the binary) or a teacher's own file given with --sentences.
 *
 * File format: UTF-8, one sentence per line; blank lines and lines starting
 * with '#' are skipped; surrounding whitespace is trimmed; CR LF is accepted.
 * A line starting with '@' gives the sentence above it its setting, words
 * KEY=VALUE separated by spaces:
 *   preset=designed|random   weights=NAME (assets/NAME: seed 001's example)
 *   d_model=N  heads=N       pe=on|off  mask=on|off
 *   head=N (1-based, focused)  token=WORD (the query token selected)
 * and a line starting with '>' its note (which article, what to look at),
 * shown when the example is loaded. Both are optional, at most one each.
 * preset=random, d_model= or heads= mean the random heads at that size (32
 * and 4 where not given); a setting whose heads do not divide d_model, whose
 * head= is past the example's heads or whose token= is not a token of its
 * sentence is an error naming the line.
 */
#ifndef ATTNVIZ_SENTENCES_H
#define ATTNVIZ_SENTENCES_H

#include <stddef.h>

#define SENTENCES_MAX 1000      /* sentences kept from one file */
#define SENTENCES_MAX_LINE 4096 /* bytes in one sentence */

#define SENTENCES_NAME_MAX 32 /* bytes of a weights= or token= value */

/* What an example needs: each field "keep" (-1, 0 or "") unless its line says. */
typedef struct {
    int preset;                       /* -1, PRESET_RANDOM or PRESET_DESIGNED */
    char weights[SENTENCES_NAME_MAX]; /* "" or a folder under assets/ (d_model and
                                         heads must be given with it) */
    int d_model, heads;               /* 0 or the value */
    int pe, causal;                   /* -1, 0 off or 1 on */
    int head;                         /* 0 or the 1-based head to focus */
    char token[SENTENCES_NAME_MAX];   /* "" or the text of the query token to select */
} SentenceSetting;

typedef struct {
    char **items; /* n NUL-terminated sentences, pointing into buf */
    int n;
    char *buf;
    char **notes;              /* n notes (into buf), NULL where a sentence has none */
    SentenceSetting *settings; /* n settings */
    int bad_line;              /* with an error: the 1-based line at fault, else 0 */
    char err[96];              /* with an error: what is wrong with that line, naming any limit */
} SentenceList;

/* Parse data[0..len) into *out (zeroed first). Returns AV_OK, AV_ERR_EMPTY
 * (no sentence), AV_ERR_UTF8 or AV_ERR_TOO_LARGE (a line over the limit or
 * more than SENTENCES_MAX sentences), AV_ERR_CONFIG (a setting or note line
 * that is malformed or has no sentence above it), AV_ERR_NOMEM. With an error
 * other than AV_ERR_EMPTY and AV_ERR_NOMEM, out->bad_line and out->err say
 * which line and why. */
int sentences_parse(const char *data, size_t len, SentenceList *out);

/* Parse one setting line's words (without the '@') into *out. Returns AV_OK,
 * or AV_ERR_CONFIG with a reason in err (errlen bytes). */
int sentences_setting(const char *words, SentenceSetting *out, char *err, size_t errlen);

/* The built-in list (assets/sentences.txt at build time). */
int sentences_builtin(SentenceList *out);

void sentences_free(SentenceList *s);

/* What the screen calls an example's weights folder NAME (weights=NAME):
 * whose worked example they are, by the article's title ("seed001": "the
 * worked example of \"Attention Mechanism & Transformers\""), or NULL for a
 * folder the articles do not have. */
const char *sentences_weights_about(const char *name);

#endif
