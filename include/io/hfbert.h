/* hfbert.h - a Hugging Face BERT-family folder (BERT, DistilBERT, MiniLM)
 * read into core/bert.h's BertWeights (src/io/hf/hfbert.c, hfbertconf.c).
 *
 * DESIGN.md "A Hugging Face BERT-family folder" is the contract: config.json
 * with "model_type" "bert" or "distilbert"; model.safetensors or the shards
 * an index lists (io/hfweights.h reads them: F32 in place, F16 and BF16
 * converted, every value checked finite); names with or without the "bert."
 * or "distilbert." prefix (not a mix), LayerNorm's weight/bias or the older
 * gamma/beta; the pooler ignored; the masked-LM head (cls.predictions.*, or
 * DistilBERT's vocab_transform, vocab_layer_norm, vocab_projector) read when
 * there, its decoder the word embeddings unless config.json says
 * "tie_word_embeddings": false (as transformers: a decoder weight in the file
 * is then not read), else the file's own, which must be there.
 * The sentence-transformers layout (modules.json) holds its BERT in the
 * folder modules.json's Transformer module names ("" is the root).
 * Nothing prints: a failure is an AV_ERR_* code and one line in why.
 */
#ifndef ATTNVIZ_HFBERT_H
#define ATTNVIZ_HFBERT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/bert.h"
#include "io/hfweights.h"

typedef struct {
    BertWeights w;
    bool distil;     /* model_type "distilbert" */
    bool prefixed;   /* names began with "bert." or "distilbert." */
    bool tie;        /* config.json's "tie_word_embeddings" (true when absent) */
    bool tied;       /* there is an MLM head, its decoder the word embeddings */
    int dtype;       /* ST_F32, ST_F16 or ST_BF16 (that of the word embeddings) */
    char dir[4096];  /* the folder holding config.json (the module's, for
                        sentence-transformers) */
    HfWeights files; /* private: the maps and the arena */
} HfBert;

/* Parse config.json's text[0..len) into *cfg; *distil says the model type,
 * *tie (unless NULL) "tie_word_embeddings" (true when absent, as
 * transformers).
 * BERT's keys: vocab_size, hidden_size, num_hidden_layers,
 * num_attention_heads, intermediate_size, hidden_act ("gelu": the erf form;
 * another is refused), max_position_embeddings, type_vocab_size,
 * layer_norm_eps, position_embedding_type (only "absolute"), is_decoder and
 * add_cross_attention (refused when true). DistilBERT's: vocab_size, dim,
 * n_layers, n_heads, hidden_dim, activation, max_position_embeddings,
 * sinusoidal_pos_embds (refused when true); no token types, eps 1e-12. A
 * missing key takes Hugging Face's default (bert-base's, distilbert-base's);
 * a key given twice is refused; others are skipped. Returns AV_OK,
 * AV_ERR_MODEL or AV_ERR_NOMEM with one line in why naming the file. */
int hfbert_parse_config(const char *text, size_t len, const char *name, BertConfig *cfg,
                        bool *distil, bool *tie, char *why, size_t whylen);

/* Whether config.json's text[0..len) says "model_type" "bert" or
 * "distilbert" (false for anything else, malformed JSON included). */
bool hfbert_config_is_bert(const char *text, size_t len);

/* The folder of dir that holds the model: dir itself, or for the
 * sentence-transformers layout (dir/modules.json) the path of its
 * Transformer module, into out. Returns AV_OK, or AV_ERR_MODEL (a
 * modules.json that is malformed, names no Transformer module, or a path
 * that leaves dir) with one line in why. */
int hfbert_model_dir(const char *dir, char *out, size_t size, char *why, size_t whylen);

/* Whether dir is a BERT-family folder: its model folder's config.json says
 * "model_type" "bert" or "distilbert" (or dir holds modules.json). */
bool hfbert_is_folder(const char *dir);

/* Open the folder dir (hfbert_model_dir first): config.json, then the
 * weights, checked whole; progress as hfmodel_open's. Returns AV_OK,
 * AV_ERR_IO (errno set; exit status 1), AV_ERR_MODEL (exit status 2) or
 * AV_ERR_NOMEM, with one line in why; on error *m is zeroed. */
int hfbert_open(const char *dir, HfBert *m, HfProgress progress, void *ctx, char *why,
                size_t whylen);

/* Unmap and free; accepts a zeroed or closed HfBert, and leaves it zeroed. */
void hfbert_close(HfBert *m);

#endif
