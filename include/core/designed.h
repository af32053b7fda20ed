/* designed.h - hand-built heads whose behaviour is known by construction
 * (--preset designed), in place of random weights.
 *
 * The preset fixes d_model = 192 and H = 6 (d_k = 32). Its embeddings are
 * feature vectors from a toy lexicon (assets/lexicon.txt): a word class
 * (noun, verb, pronoun, ...), an agreement (female, male, thing, plural) and a
 * sparse identity code, all in even dimensions >= 128 where the sinusoidal
 * encoding is nearly zero; dimensions 0..31 carry the encoding alone. The
 * heads, in order:
 *   1 previous token  Q rotates each PE pair (sin, cos)(w pos) by -w, so
 *                     q_i . k_j = b sum_k cos(w_k (i - 1 - j)): the rotation
 *                     property of seed 000 makes the peak j = i - 1.
 *   2 self            the same without the rotation: peak j = i.
 *   3 first token     q is constant, k_j holds cos(w_k j): peak j = 0.
 *   4 same word       identity codes match; a small PE term keeps a word
 *                     from choosing itself when it occurs elsewhere.
 *   5 pronoun -> noun a pronoun's agreement asks for nouns that agree
 *                     ("she" -> Anna, "it" -> dog), and, when an adjective
 *                     that wants a living subject follows it ("it was
 *                     tired"), for animate nouns ("it" -> cat, not mat); a
 *                     capitalised unknown word not at a sentence's start is
 *                     a person; other tokens look at themselves a little.
 *   6 verb -> subject a verb looks for nouns and pronouns just before it.
 * Positions come from the encoding: with --no-pe heads 1, 2, 3 and 6 lose
 * their sense, which is itself a lesson.
 */
#ifndef ATTNVIZ_DESIGNED_H
#define ATTNVIZ_DESIGNED_H

#include <stdbool.h>

#include "core/tokenize.h"

#define DESIGNED_D_MODEL 192
#define DESIGNED_HEADS 6

/* The label of head h (0-based) of the preset, e.g. "previous token". */
const char *designed_head_label(int h);

/* A paragraph on how head h was built, for the help text. */
const char *designed_head_help(int h);

/* Write the designed W_q, W_k, W_v, W_o (each DESIGNED_D_MODEL squared,
 * row-major, caller-owned) of the layer that holds the designed heads. */
void designed_weights(float *Wq, float *Wk, float *Wv, float *Wo);

/* X (n, DESIGNED_D_MODEL): the lexicon feature embedding of each token. */
void designed_embed(const TokenList *t, float *X);

/* The lexicon class of a word ("noun", ...; "" when unknown). */
const char *designed_word_class(const char *word);

/* Whether the lexicon marks the word "animate": a noun naming something
 * alive, or an adjective that wants a living subject ("tired"). */
bool designed_word_animate(const char *word);

#endif
