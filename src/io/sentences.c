/* sentences.c - the example sentences: the built-in list and a teacher's file.
 *
 * The built-in list is assets/sentences.txt, turned into a string literal at
 * build time (scripts/gen-sentences.sh), so an installed attnviz needs no data
 * files. Both go through the same parser, which also reads each example's
 * setting ('@' lines) and note ('>' lines); applying them is the interface's.
 */
#include "io/sentences.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/designed.h"
#include "core/model.h"
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

static const SentenceSetting keep = {-1, "", 0, 0, -1, -1, 0, ""};

/* "on" / "off" into *v; false when neither. */
static bool on_off(const char *v, int *out)
{
    if (strcmp(v, "on") == 0 || strcmp(v, "off") == 0) {
        *out = v[1] == 'n';
        return true;
    }
    return false;
}

/* A positive integer up to most into *out; false when not one. */
static bool number(const char *v, int most, int *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (!*v || *end || x < 1 || x > most)
        return false;
    *out = (int)x;
    return true;
}

/* One KEY=VALUE word into *out. */
static bool setting_word(const char *key, const char *v, SentenceSetting *out)
{
    size_t vlen = strlen(v);
    if (strcmp(key, "preset") == 0) {
        out->preset = strcmp(v, "designed") == 0 ? PRESET_DESIGNED
                      : strcmp(v, "random") == 0 ? PRESET_RANDOM
                                                 : -2;
        return out->preset != -2;
    }
    if (strcmp(key, "weights") == 0 || strcmp(key, "token") == 0) {
        char *dst = key[0] == 'w' ? out->weights : out->token;
        if (vlen == 0 || vlen >= SENTENCES_NAME_MAX || (key[0] == 'w' && strpbrk(v, "/\\.")))
            return false;
        memcpy(dst, v, vlen + 1);
        return true;
    }
    if (strcmp(key, "d_model") == 0)
        return number(v, AV_MAX_D_MODEL_OWN, &out->d_model);
    if (strcmp(key, "heads") == 0)
        return number(v, AV_MAX_HEADS, &out->heads);
    if (strcmp(key, "head") == 0)
        return number(v, AV_MAX_HEADS, &out->head);
    if (strcmp(key, "pe") == 0)
        return on_off(v, &out->pe);
    if (strcmp(key, "mask") == 0)
        return on_off(v, &out->causal);
    return false;
}

int sentences_setting(const char *words, SentenceSetting *out, char *err, size_t errlen)
{
    *out = keep;
    for (const char *p = words; *p;) {
        p += strspn(p, " \t");
        size_t len = strcspn(p, " \t");
        if (!len)
            break;
        char word[64] = "";
        const char *eq = memchr(p, '=', len);
        bool good = eq && len < sizeof word;
        if (good) {
            memcpy(word, p, len);
            word[eq - p] = '\0'; /* word: the key, word + (eq - p) + 1: the value */
            good = setting_word(word, word + (eq - p) + 1, out);
        }
        if (!good) {
            snprintf(err, errlen,
                     "not a setting: '%.*s' (preset= weights= d_model= heads= "
                     "pe= mask= head= token=)",
                     (int)(len < 24 ? len : 24), p);
            return AV_ERR_CONFIG;
        }
        p += len;
    }
    if (out->weights[0] && (!out->d_model || !out->heads)) {
        snprintf(err, errlen, "weights= needs d_model= and heads= beside it");
        return AV_ERR_CONFIG;
    }
    return AV_OK;
}

static int line_error(SentenceList *out, int line_no, int err, const char *why)
{
    out->bad_line = line_no;
    if (why)
        snprintf(out->err, sizeof out->err, "%s", why);
    return err;
}

/* The heads setting st gives its example (the designed six, weights= or
 * heads=, the random heads' default), or 0 when it keeps the screen's; -1
 * with err set when its sizes do not fit together. */
static int setting_heads(const SentenceSetting *st, char *err, size_t errlen)
{
    ModelConfig d;
    model_config_default(&d);
    bool sized = st->d_model || st->heads;
    if (st->preset == PRESET_DESIGNED && sized && !st->weights[0]) {
        snprintf(err, errlen, "preset=designed has d_model %d and %d heads: leave out %s",
                 DESIGNED_D_MODEL, DESIGNED_HEADS, st->heads ? "heads=" : "d_model=");
        return -1;
    }
    if (st->preset == PRESET_DESIGNED && !st->weights[0])
        return DESIGNED_HEADS;
    if (!sized && st->preset != PRESET_RANDOM)
        return 0;
    int dm = st->d_model ? st->d_model : d.d_model, h = st->heads ? st->heads : d.H;
    if (dm % h != 0) {
        snprintf(err, errlen, "d_model %d is not divisible by %d heads%s", dm, h,
                 st->d_model ? "" : " (d_model= not given: the default)");
        return -1;
    }
    return h;
}

/* Whether word is one of sentence's tokens (the tokenizer's, exactly). */
static int has_token(const char *sentence, const char *word, bool *found)
{
    TokenList t = {0};
    int err = tokenize(sentence, strlen(sentence), AV_MAX_TOKENS, &t);
    *found = false;
    for (int i = 0; !err && i < t.n && !*found; i++)
        *found = strcmp(t.tok[i].str, word) == 0;
    tokenize_free(&t);
    return err;
}

/* Setting st against its sentence: a head it has, a token it has. */
static int check_setting(SentenceList *out, int line_no, const SentenceSetting *st,
                         const char *sentence)
{
    char why[sizeof out->err];
    int H = setting_heads(st, why, sizeof why);
    if (H < 0)
        return line_error(out, line_no, AV_ERR_CONFIG, why);
    if (H && st->head > H) {
        snprintf(why, sizeof why, "head=%d, but the example has %d head%s", st->head, H,
                 H == 1 ? "" : "s");
        return line_error(out, line_no, AV_ERR_CONFIG, why);
    }
    bool found = true;
    int err = st->token[0] ? has_token(sentence, st->token, &found) : AV_OK;
    if (err)
        return line_error(out, line_no, err, "its sentence cannot be split into tokens");
    if (!found) {
        snprintf(why, sizeof why, "token=%s is not a token of the sentence above", st->token);
        return line_error(out, line_no, AV_ERR_CONFIG, why);
    }
    return AV_OK;
}

/* A setting ('@') or note ('>') line s for the last sentence. */
static int attach(SentenceList *out, char *s, int line_no)
{
    int k = out->n - 1;
    if (k < 0)
        return line_error(out, line_no, AV_ERR_CONFIG,
                          *s == '@' ? "a setting before any "
                                      "sentence"
                                    : "a note before any sentence");
    if (*s == '>') {
        s += 1 + strspn(s + 1, " \t");
        if (out->notes[k] || !*s)
            return line_error(out, line_no, AV_ERR_CONFIG,
                              out->notes[k] ? "a second note for one sentence" : "an empty note");
        out->notes[k] = s;
        return AV_OK;
    }
    if (memcmp(&out->settings[k], &keep, sizeof keep) != 0)
        return line_error(out, line_no, AV_ERR_CONFIG, "a second setting for one sentence");
    int err = sentences_setting(s + 1, &out->settings[k], out->err, sizeof out->err);
    if (err)
        return line_error(out, line_no, err, NULL);
    return check_setting(out, line_no, &out->settings[k], out->items[k]);
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
        if (len > SENTENCES_MAX_LINE)
            return line_error(out, line_no, AV_ERR_TOO_LARGE,
                              "longer than the 4096 bytes a "
                              "line may have");
        if (utf8_valid_prefix(p, len) != len)
            return line_error(out, line_no, AV_ERR_UTF8, "not valid UTF-8");
        char *s = trim(p, &len);
        if (len && *s != '#' && memchr(s, '\0', len)) /* a comment may hold anything */
            return line_error(out, line_no, AV_ERR_UTF8, "a NUL byte in the line");
        if (len && (*s == '@' || *s == '>')) {
            int err = attach(out, s, line_no);
            if (err)
                return err;
        } else if (len && *s != '#') {
            if (out->n == SENTENCES_MAX)
                return line_error(out, line_no, AV_ERR_TOO_LARGE,
                                  "more than the 1000 "
                                  "sentences a file may have");
            out->settings[out->n] = keep;
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
    out->notes = calloc(SENTENCES_MAX, sizeof *out->notes);
    out->settings = malloc(SENTENCES_MAX * sizeof *out->settings);
    if (!out->buf || !out->items || !out->notes || !out->settings) {
        sentences_free(out);
        return AV_ERR_NOMEM;
    }
    memcpy(out->buf, data, len);
    out->buf[len] = '\0';
    int err = parse_lines(out->buf, len, out);
    if (err) {
        int bad = out->bad_line;
        char why[sizeof out->err];
        memcpy(why, out->err, sizeof why);
        sentences_free(out);
        out->bad_line = bad;
        memcpy(out->err, why, sizeof why);
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
    free(s->notes);
    free(s->settings);
    free(s->buf);
    memset(s, 0, sizeof *s);
}

const char *sentences_weights_about(const char *name)
{
    if (strcmp(name, "seed001") == 0)
        return "the worked example of \"Attention Mechanism & Transformers\"";
    if (strcmp(name, "seed000") == 0)
        return "\"attention in action\" of \"Attention from Scratch\"";
    return NULL;
}
