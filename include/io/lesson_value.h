/* lesson_value.h - the values of a lesson file's settings read from their
 * text (lesson_value.c): numbers in a range, on/off, a token, a pipeline
 * stage. Each returns AV_OK, or AV_ERR_LESSON with what is wrong as one line
 * in msg[0..len) (the file and line are the parser's to add).
 */
#ifndef ATTNVIZ_LESSON_VALUE_H
#define ATTNVIZ_LESSON_VALUE_H

#include <stdbool.h>
#include <stddef.h>

/* A whole number in [lo, hi]; name names the setting in the message. */
int lesson_value_int(const char *name, const char *v, long lo, long hi, int *out, char *msg,
                     size_t len);

/* A number in [lo, hi]. */
int lesson_value_number(const char *name, const char *v, double lo, double hi, double *out,
                        char *msg, size_t len);

/* on / yes / causal, or off / no / none. */
int lesson_value_onoff(const char *name, const char *v, bool *out, char *msg, size_t len);

/* A token: "none" (both left 0 / NULL), "last" (*index LESSON_TOKEN_LAST:
 * the text's last token), a 1-based index, a quoted "text"
 * (v is cut in place: the quotes dropped) or a token's text. *text points
 * into v. */
int lesson_value_token(const char *name, char *v, int *index, const char **text, char *msg,
                       size_t len);

/* A pipeline stage, 1-8 or its name (q, k, v, scores, scaled, masked,
 * weights, output), as 1-8 in *out and *last; or the stages a page speaks
 * of, "first-last" ("scores-scaled", "1-3"), *out the first, *last the
 * last (not before the first). */
int lesson_value_stage(const char *v, int *out, int *last, char *msg, size_t len);

#endif
