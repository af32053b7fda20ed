/* grammar.h - the toy language of the "grammar" task (assets/grammar/).
 * Private to src/train/.
 *
 * A sentence is "the N1 V the N2 . P A ." where N1 and N2 are nouns of
 * different pronoun classes (he: masculine singular, she: feminine singular,
 * they: plural), P is the pronoun of one of them, the antecedent, and A the
 * action word of that noun, agreeing in number (king -> "rules", kings ->
 * "rule"). Predicting A after P needs a head that finds the antecedent.
 *
 * Rules file, one rule a line, '#' comments:
 *   noun SINGULAR PLURAL m|f ACTION-SINGULAR ACTION-PLURAL
 *   verb WORD...                       (transitive verbs between the nouns)
 *   pronoun WORD m|f|* s|p             (* : either gender)
 */
#ifndef ATTNVIZ_TRAIN_GRAMMAR_H
#define ATTNVIZ_TRAIN_GRAMMAR_H

#include <stddef.h>

#include "core/rng.h"

#define GRAMMAR_MAX_NOUNS 64
#define GRAMMAR_MAX_VERBS 32

typedef struct {
    int sing, plur, gender, act_sing, act_plur; /* word ids; gender 0 m, 1 f */
} GrammarNoun;

typedef struct Grammar {
    int V;
    char **words; /* V words, owned, in order of first appearance */
    GrammarNoun noun[GRAMMAR_MAX_NOUNS];
    int n_nouns;
    int verb[GRAMMAR_MAX_VERBS], n_verbs;
    int pron[3];   /* he, she, they: [0] m s, [1] f s, [2] plural */
    int the, stop; /* "the" and "." */
} Grammar;

/* The rules of assets/grammar/grammar.txt, built in (test_task checks that
 * the two are the same text), for `attnviz train grammar` without a FILE. */
const char *grammar_builtin_rules(void);

/* Parse rules text[0..len) into *g. AV_OK, AV_ERR_NOMEM or AV_ERR_MODEL with
 * why naming the line. */
int grammar_parse(Grammar *g, const char *text, size_t len, char *why, size_t whylen);

void grammar_free(Grammar *g);

/* Write one sentence's ids into out (GRAMMAR_SENTENCE of them) and the
 * positions of its pronoun and antecedent within it. */
#define GRAMMAR_SENTENCE 9
void grammar_sentence(const Grammar *g, Rng *r, int *out, int *pron_pos, int *ante_pos);

#endif
