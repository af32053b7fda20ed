/* lesson_value.c - a lesson setting's value read from its text, or one line
 * saying why it cannot be (lesson_value.h). No state, nothing printed.
 */
#include "io/lesson_value.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/lesson_kind.h"

int lesson_value_int(const char *name, const char *v, long lo, long hi, int *out, char *msg,
                     size_t len)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *end || errno || x < lo || x > hi) {
        snprintf(msg, len, "%s takes a whole number from %ld to %ld, not '%.40s'", name, lo, hi, v);
        return AV_ERR_LESSON;
    }
    *out = (int)x;
    return AV_OK;
}

int lesson_value_number(const char *name, const char *v, double lo, double hi, double *out,
                        char *msg, size_t len)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (!*v || *end || errno || !(x >= lo && x <= hi)) {
        snprintf(msg, len, "%s takes a number from %g to %g, not '%.40s'", name, lo, hi, v);
        return AV_ERR_LESSON;
    }
    *out = x;
    return AV_OK;
}

int lesson_value_onoff(const char *name, const char *v, bool *out, char *msg, size_t len)
{
    if (!strcmp(v, "on") || !strcmp(v, "yes") || !strcmp(v, "causal"))
        *out = true;
    else if (!strcmp(v, "off") || !strcmp(v, "no") || !strcmp(v, "none"))
        *out = false;
    else
        return snprintf(msg, len, "%s takes on or off, not '%.40s'", name, v), AV_ERR_LESSON;
    return AV_OK;
}

int lesson_value_token(const char *name, char *v, int *index, const char **text, char *msg,
                       size_t len)
{
    size_t n = strlen(v);
    *index = 0, *text = NULL;
    if (!strcmp(v, "none"))
        return AV_OK;
    if (!strcmp(v, "last")) { /* "last" in quotes is the word */
        *index = LESSON_TOKEN_LAST;
        return AV_OK;
    }
    if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
        v[n - 1] = '\0';
        *text = v + 1;
        if (**text)
            return AV_OK;
        return snprintf(msg, len, "%s names an empty token", name), AV_ERR_LESSON;
    }
    if (strspn(v, "0123456789") == n)
        return lesson_value_int(name, v, 1, AV_MAX_TOKENS, index, msg, len);
    *text = v;
    return AV_OK;
}

static int stage_one(const char *v, size_t n)
{
    static const char *const names[] = {"q",      "k",      "v",       "scores",
                                        "scaled", "masked", "weights", "output"};
    for (int k = 0; k < 8; k++)
        if ((strlen(names[k]) == n && !strncmp(v, names[k], n)) || (n == 1 && v[0] == '1' + k))
            return k + 1;
    return 0;
}

int lesson_value_stage(const char *v, int *out, int *last, char *msg, size_t len)
{
    const char *dash = strchr(v, '-');
    size_t n = dash ? (size_t)(dash - v) : strlen(v);
    int a = stage_one(v, n), b = dash ? stage_one(dash + 1, strlen(dash + 1)) : a;
    if (a && b && b >= a) {
        *out = a, *last = b;
        return AV_OK;
    }
    snprintf(msg, len,
             "stage takes 1-8 or q, k, v, scores, scaled, masked, weights, output, "
             "or two of them as first-last, not '%.30s'",
             v);
    return AV_ERR_LESSON;
}
