/* hfwordpiece.h - BERT's vocabulary as Hugging Face ships it, read into a
 * WordPiece (core/wordpiece.h): vocab.txt (one token a line, the id its line
 * number from 0; lines end in \n, \r\n or \r, as Python reads them), or
 * tokenizer.json's WordPiece model (model.vocab, an object from token to id;
 * model.unk_token, model.continuing_subword_prefix and
 * model.max_input_chars_per_word when given; model.type, when given, must be
 * "WordPiece"), and tokenizer_config.json's do_lower_case (true when the file
 * or the key is absent) and strip_accents (as do_lower_case when absent or
 * null, as Hugging Face's BertTokenizer reads it).
 *
 * Everything is checked before use; the first fault is refused with one line
 * in why naming the file and where (line or byte): bad UTF-8 or JSON, a token
 * too long, ids that do not run 0..n-1, no [UNK], [CLS] or [SEP].
 */
#ifndef ATTNVIZ_HFWORDPIECE_H
#define ATTNVIZ_HFWORDPIECE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/wordpiece.h"

/* The largest vocabulary file read (bytes). */
#define HFWP_MAX_FILE (64u << 20)

/* Build and finish *w (overwritten; wp_free it after AV_OK) from the bytes of
 * a vocab.txt, lower-casing (and stripping accents) or not. Returns AV_OK, AV_ERR_MODEL (why says
 * what is wrong, naming vocab.txt and the line) or AV_ERR_NOMEM; on an error *w is freed. */
int hfwp_parse_vocab(const char *txt, size_t len, bool lower, WordPiece *w, char *why,
                     size_t whylen);

/* As hfwp_parse_vocab, from the bytes of a tokenizer.json. */
int hfwp_parse_tokenizer(const char *json, size_t len, bool lower, WordPiece *w, char *why,
                         size_t whylen);

/* tokenizer_config.json's do_lower_case into *lower (true when absent) and
 * strip_accents into *strip (*lower when absent or null). Returns AV_OK or
 * AV_ERR_MODEL (not a JSON object, or a value is not true or false). */
int hfwp_parse_config(const char *json, size_t len, bool *lower, bool *strip, char *why,
                      size_t whylen);

/* Read folder dir's vocab.txt, or, when it is absent, its tokenizer.json, and
 * its tokenizer_config.json when present. Returns as hfwp_parse_vocab
 * (AV_ERR_MODEL also when neither vocabulary file is there or one is not a
 * regular file), or AV_ERR_IO (errno set; why names the file), or
 * AV_ERR_TOO_LARGE (a file past HFWP_MAX_FILE). */
int hfwp_read_dir(const char *dir, WordPiece *w, char *why, size_t whylen);

#endif
