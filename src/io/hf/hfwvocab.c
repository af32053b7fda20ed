/* hfwvocab.c - vocab.json and merges.txt for a character model written as a
 * GPT-2 folder (hfwrite.h says the scheme): the model's characters keep
 * their ids, every byte has a token, and merges rebuild only the characters
 * of more than one byte. A token here is at most four raw bytes (one UTF-8
 * character or a prefix of one), so it is kept as a 64-bit key: its length
 * above its bytes. Nothing is printed.
 */
#include "io/hfwrite.h"

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/bpe.h"
#include "core/utf8.h"
#include "io/fileio.h"

/* The tokens in id order and an open-addressing set of their keys. */
typedef struct {
    uint64_t *key; /* id -> key */
    int n, cap;
    uint64_t *slot; /* key + 1 (0: empty) */
    int *slot_id;
    size_t slots;
} Toks;

static uint64_t key_of(const unsigned char *b, size_t len)
{
    uint64_t k = (uint64_t)len << 32;
    for (size_t i = 0; i < len; i++)
        k |= (uint64_t)b[i] << (8 * i);
    return k;
}

static size_t slot_of(const Toks *t, uint64_t key)
{
    size_t s = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (t->slots - 1);
    while (t->slot[s] && t->slot[s] != key + 1)
        s = (s + 1) & (t->slots - 1);
    return s;
}

/* The id of key, or -1. */
static int toks_find(const Toks *t, uint64_t key)
{
    size_t s = slot_of(t, key);
    return t->slot[s] ? t->slot_id[s] : -1;
}

/* Add key as the next id unless it is there (cap is sized by toks_init for
 * every token a vocabulary can need). */
static void toks_add(Toks *t, uint64_t key)
{
    size_t s = slot_of(t, key);
    if (t->slot[s])
        return;
    assert(t->n < t->cap);
    t->slot[s] = key + 1, t->slot_id[s] = t->n;
    t->key[t->n++] = key;
}

static void toks_free(Toks *t)
{
    free(t->key), free(t->slot), free(t->slot_id);
}

/* Room for V characters, 256 bytes and 2 prefixes per character. */
static int toks_init(Toks *t, int V)
{
    memset(t, 0, sizeof *t);
    t->cap = 3 * V + 256;
    t->slots = 1;
    while (t->slots < 2 * (size_t)t->cap)
        t->slots <<= 1;
    t->key = malloc(sizeof *t->key * (size_t)t->cap);
    t->slot = calloc(t->slots, sizeof *t->slot);
    t->slot_id = malloc(sizeof *t->slot_id * t->slots);
    if (!t->key || !t->slot || !t->slot_id)
        return toks_free(t), AV_ERR_NOMEM;
    return AV_OK;
}

/* Token key in GPT-2's byte alphabet, as JSON string content when json. */
static void put_token(FILE *f, uint64_t key, bool json)
{
    size_t len = (size_t)(key >> 32);
    for (size_t i = 0; i < len; i++) {
        unsigned cp = bpe_byte_unicode((unsigned char)(key >> (8 * i)));
        if (json && (cp == '"' || cp == '\\'))
            fputc('\\', f);
        char u[4];
        int m = utf8_encode(cp, u);
        fwrite(u, 1, (size_t)m, f);
    }
}

/* Whether vocab string s is one UTF-8 character. */
static bool one_char(const char *s)
{
    unsigned cp;
    size_t len = strlen(s);
    return len > 0 && utf8_decode(s, len, &cp) == (int)len;
}

int hfwrite_vocab_check(const ModelSpec *s, char *why, size_t whylen)
{
    if (s->tokenizer != MODEL_TOK_CHARS) {
        snprintf(why, whylen,
                 "a word model: GPT-2's tokenizer joins each word to the space "
                 "before it, so its ids would not be the model's (only character models "
                 "are written as GPT-2)");
        return AV_ERR_MODEL;
    }
    for (int i = 0; i < s->V; i++)
        if (!one_char(s->vocab[i])) {
            snprintf(why, whylen,
                     "token %d is not one character; GPT-2's tokenizer could "
                     "not give it its own id",
                     i);
            return AV_ERR_MODEL;
        }
    return AV_OK;
}

/* Every token: the V characters, the missing bytes, then each prefix that
 * merges make, with the merges (as pairs of ids) in merges[0..*n_merges). */
static void build(const ModelSpec *s, Toks *t, int *merges, int *n_merges)
{
    for (int i = 0; i < s->V; i++)
        toks_add(t, key_of((const unsigned char *)s->vocab[i], strlen(s->vocab[i])));
    for (int c = 0; c < 256; c++)
        toks_add(t, key_of(&(unsigned char){(unsigned char)c}, 1));
    *n_merges = 0;
    for (int i = 0; i < s->V; i++) {
        const unsigned char *b = (const unsigned char *)s->vocab[i];
        size_t len = strlen(s->vocab[i]);
        for (size_t j = 2; j <= len; j++) {
            uint64_t made = key_of(b, j);
            if (j < len && toks_find(t, made) >= 0)
                continue; /* a prefix another character made already */
            toks_add(t, made);
            merges[2 * *n_merges] = toks_find(t, key_of(b, j - 1));
            merges[2 * *n_merges + 1] = toks_find(t, key_of(b + j - 1, 1));
            ++*n_merges;
        }
    }
}

/* The two texts from the tokens and merges. */
static int write_texts(const Toks *t, const int *merges, int n_merges, char **vocab_json,
                       char **merges_txt)
{
    MemFile v, m;
    if (memfile_open(&v))
        return AV_ERR_NOMEM;
    if (memfile_open(&m))
        return memfile_free(&v), AV_ERR_NOMEM;
    fputc('{', v.f);
    for (int id = 0; id < t->n; id++) {
        fputs(id ? ", \"" : "\"", v.f);
        put_token(v.f, t->key[id], true);
        fprintf(v.f, "\": %d", id);
    }
    fprintf(v.f, ", \"%s\": %d}\n", BPE_EOT_TEXT, t->n);
    fputs("#version: 0.2\n", m.f);
    for (int k = 0; k < n_merges; k++) {
        put_token(m.f, t->key[merges[2 * k]], false);
        fputc(' ', m.f);
        put_token(m.f, t->key[merges[2 * k + 1]], false);
        fputc('\n', m.f);
    }
    if (memfile_close(&v) || memfile_close(&m)) {
        memfile_free(&v), memfile_free(&m);
        return AV_ERR_NOMEM;
    }
    *vocab_json = v.buf, *merges_txt = m.buf;
    return AV_OK;
}

int hfwrite_vocab(const ModelSpec *s, char **vocab_json, char **merges_txt, int *n_tokens)
{
    char why[160];
    *vocab_json = *merges_txt = NULL;
    if (hfwrite_vocab_check(s, why, sizeof why))
        return AV_ERR_MODEL;
    Toks t;
    if (toks_init(&t, s->V))
        return AV_ERR_NOMEM;
    int *merges = malloc(sizeof *merges * 2 * 3 * (size_t)s->V), n_merges = 0;
    int err = merges ? AV_OK : AV_ERR_NOMEM;
    if (!err) {
        build(s, &t, merges, &n_merges);
        err = write_texts(&t, merges, n_merges, vocab_json, merges_txt);
        *n_tokens = t.n + 1;
    }
    free(merges);
    toks_free(&t);
    return err;
}
