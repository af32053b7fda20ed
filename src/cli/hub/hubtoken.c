/* hubtoken.c - the token attnviz sends to the hub (hubget.h's
 * hubget_token), found where huggingface_hub finds it: its environment
 * variables, else the file its login (`hf auth login`) saves; and, for the
 * line of a refusal, where it came from or why none was sent. The token
 * itself is never said.
 */
#include "cli/hubget.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/av.h"
#include "io/fileio.h"
#include "io/hfcache.h"

#define TOKEN_FILE_MAX (1 << 16) /* bytes: a larger file holds no token */

/* Whether the variable is true as huggingface_hub reads one: 1, on, yes or
 * true, in any case. */
static bool env_true(const char *name)
{
    const char *v = getenv(name);
    return v && (strcmp(v, "1") == 0 || strcasecmp(v, "on") == 0 || strcasecmp(v, "yes") == 0 ||
                 strcasecmp(v, "true") == 0);
}

/* t as huggingface_hub cleans a token, in place: its line breaks dropped,
 * the spaces around it trimmed. False when that leaves nothing. */
static bool clean(char *t)
{
    char *w = t;
    for (const char *p = t; *p; p++)
        if (*p != '\r' && *p != '\n')
            *w++ = *p;
    size_t end = (size_t)(w - t), at = 0;
    while (end > 0 && isspace((unsigned char)t[end - 1]))
        end--;
    while (at < end && isspace((unsigned char)t[at]))
        at++;
    memmove(t, t + at, end - at);
    t[end - at] = 0;
    return end > at;
}

/* The token in the file `hf auth login` saves, or NULL; said (size) as
 * hubget_token's. */
static char *from_file(char *said, size_t size, bool *nomem)
{
    static const char how[] = "set HF_TOKEN to an access token that may read it, or log in with "
                              "`hf auth login`";
    char path[HF_PATH_MAX], *text = NULL, why[96] = "";
    const char *from;
    size_t len;
    if (!hfcache_token_path(path, sizeof path, &from)) {
        snprintf(said, size,
                 "no token was found (HF_TOKEN, HUGGING_FACE_HUB_TOKEN; no token file "
                 "without HOME): %s",
                 how);
        return NULL;
    }
    int err = file_read_regular(path, TOKEN_FILE_MAX, &text, &len);
    if (err == AV_OK && clean(text)) {
        snprintf(said, size, "%s (%s)", path,
                 strcmp(from, "HF_TOKEN_PATH") == 0 ? "HF_TOKEN_PATH" : "saved by `hf auth login`");
        return text;
    }
    free(text);
    if (err == AV_ERR_NOMEM) {
        *nomem = true;
        return NULL;
    }
    if (err == AV_ERR_IO && errno != ENOENT)
        snprintf(why, sizeof why, ": %s", strerror(errno));
    else if (err == AV_ERR_MODEL)
        snprintf(why, sizeof why, ": not a file");
    else if (err == AV_ERR_TOO_LARGE)
        snprintf(why, sizeof why, ": larger than %d KB", TOKEN_FILE_MAX >> 10);
    snprintf(said, size, "no token was found (HF_TOKEN, HUGGING_FACE_HUB_TOKEN, %s%s): %s", path,
             why, how);
    return NULL;
}

char *hubget_token(char *said, size_t size, bool *nomem)
{
    *nomem = false;
    if (env_true("HF_HUB_DISABLE_IMPLICIT_TOKEN")) { /* as huggingface_hub: none at all */
        snprintf(said, size,
                 "HF_HUB_DISABLE_IMPLICIT_TOKEN is set, so no token was sent: unset it to "
                 "send HF_TOKEN's or `hf auth login`'s");
        return NULL;
    }
    const char *var = "HF_TOKEN", *v = getenv(var);
    if (!v || !*v) /* the first set and not empty, then cleaned */
        var = "HUGGING_FACE_HUB_TOKEN", v = getenv(var);
    if (v && *v) {
        char *t = strdup(v);
        if (!t) {
            *nomem = true;
            return NULL;
        }
        if (clean(t)) {
            snprintf(said, size, "%s", var);
            return t;
        }
        free(t); /* only spaces: the file's, as huggingface_hub */
    }
    return from_file(said, size, nomem);
}
