/* hfwrite.h - attnviz's own trained model written as a Hugging Face GPT-2
 * folder (src/io/hf/hfwrite.c, hfwvocab.c): config.json, model.safetensors,
 * vocab.json and merges.txt, which attnviz's GPT-2 reader (hfmodel.h,
 * hfvocab.h) and transformers' GPT2LMHeadModel read as the same model.
 *
 * What GPT-2 can express: pre-LayerNorm (LN1, LN2, LN_f), learned
 * positions (attnviz's sinusoidal table or no positions are written as the
 * learned table they amount to), a GELU (tanh form) MLP or none (written as
 * an MLP of zeros, which adds nothing), causal scaled attention. Biases
 * GPT-2 has and attnviz lacks (Q, K, V and the output projection) are
 * written as zeros; attnviz's unembedding is untied from the embedding, so
 * it is written as lm_head.weight (V, D) with "tie_word_embeddings": false.
 * Tensor names are those of GPT2LMHeadModel's save ("transformer.h.0...",
 * "lm_head.weight").
 *
 * The vocabulary: a character model's token i keeps id i. vocab.json holds
 * the V characters in GPT-2's byte alphabet, then the bytes none of them is
 * (GPT-2's tokenizer needs a token for every byte), the pieces that build
 * the characters of more than one byte, and <|endoftext|>; merges.txt
 * rebuilds each such character from its bytes, left to right, and has no
 * other merge, so GPT-2's byte-level BPE gives every character of the model
 * its own id. config.json's vocab_size is V: the tokens after the first V
 * belong to the tokenizer alone (the model has no row for them), and a text
 * that needs one holds a character the model never saw. Word models (the
 * grammar task) are refused: GPT-2's tokenizer joins a word to the space
 * before it, and its ids would not be the model's.
 */
#ifndef ATTNVIZ_HFWRITE_H
#define ATTNVIZ_HFWRITE_H

#include <stddef.h>

#include "io/modelfile.h"

/* Whether GPT-2 can express s (which passes modelfile_check): AV_OK, or
 * AV_ERR_MODEL with one line in why[0..whylen) saying what GPT-2 lacks and
 * how to train a model it can express. */
int hfwrite_check(const ModelSpec *s, char *why, size_t whylen);

/* The vocabulary's part of hfwrite_check: a character model whose tokens
 * are one UTF-8 character each. AV_OK or AV_ERR_MODEL with why. */
int hfwrite_vocab_check(const ModelSpec *s, char *why, size_t whylen);

/* Whether a save may replace dir: AV_OK when dir is missing or is a folder
 * holding only the four files a save writes; AV_ERR_IO with errno ENOTDIR
 * (dir is a file) or ENOTEMPTY (which names the first other entry), or the
 * error of reading dir. */
int hfwrite_save_check(const char *dir, char *which, size_t whichlen);

/* vocab.json's and merges.txt's texts for s (a character model that passes
 * hfwrite_check), malloc'd and NUL-terminated, and the number of tokens
 * vocab.json holds. Returns AV_OK, AV_ERR_NOMEM or AV_ERR_MODEL. */
int hfwrite_vocab(const ModelSpec *s, char **vocab_json, char **merges, int *n_tokens);

/* Write the folder dir whole from s and params (modelfile_layout's arena):
 * into a sibling folder that then replaces dir in one step (io/dirswap.h).
 * Returns AV_OK, AV_ERR_MODEL (s fails modelfile_check or hfwrite_check),
 * AV_ERR_NOMEM, or AV_ERR_IO (errno set; which[0..whichlen) names the file
 * within dir, or is "" for dir itself; ENOTEMPTY and ENOTDIR as
 * hfwrite_save_check). */
int hfwrite_save(const char *dir, const ModelSpec *s, const float *params, char *which,
                 size_t whichlen);

#endif
