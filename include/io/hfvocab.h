/* hfvocab.h - GPT-2's vocabulary as Hugging Face ships it, read into a Bpe
 * (core/bpe.h): vocab.json (an object from token, in GPT-2's printable byte
 * alphabet, to id) with merges.txt (an optional "#version" line, then one
 * merge "a b" a line, best first), or tokenizer.json (model.vocab and
 * model.merges, merges written as "a b" strings or as ["a", "b"] pairs;
 * model.type, when given, must be "BPE"; added_tokens are not read: GPT-2's
 * <|endoftext|> is in model.vocab).
 *
 * Everything is checked before use, and the first fault is refused with one
 * line in why naming the file and where: bad JSON or UTF-8, a token with a
 * character outside GPT-2's byte alphabet, a duplicate token or id, ids that
 * do not run 0..n-1, a merge line that is not two tokens, a merge naming an
 * unknown token or making one the vocabulary lacks, a byte with no token.
 */
#ifndef ATTNVIZ_HFVOCAB_H
#define ATTNVIZ_HFVOCAB_H

#include <stddef.h>

#include "core/bpe.h"

/* The largest vocabulary file read (bytes). */
#define HFVOCAB_MAX_FILE (64u << 20)

/* Build *b (overwritten; bpe_free it after AV_OK) from the bytes of a
 * vocab.json and a merges.txt. Returns AV_OK, AV_ERR_MODEL (why says what is
 * wrong, naming vocab.json or merges.txt and the byte or line) or
 * AV_ERR_NOMEM. On an error *b is freed. */
int hfvocab_parse(const char *vocab, size_t vlen, const char *merges, size_t mlen, Bpe *b,
                  char *why, size_t whylen);

/* As hfvocab_parse, from the bytes of a tokenizer.json. */
int hfvocab_parse_tokenizer(const char *json, size_t len, Bpe *b, char *why, size_t whylen);

/* Read folder dir's vocab.json and merges.txt, or, when vocab.json is absent,
 * its tokenizer.json. Returns as hfvocab_parse (AV_ERR_MODEL also when none
 * is there, or vocab.json has no merges.txt beside it, or one is not a
 * regular file), or AV_ERR_IO (errno set; why names the file) when a file
 * cannot be read, or AV_ERR_TOO_LARGE (a file past HFVOCAB_MAX_FILE). */
int hfvocab_read_dir(const char *dir, Bpe *b, char *why, size_t whylen);

#endif
