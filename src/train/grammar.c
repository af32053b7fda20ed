/* grammar.c - the toy language of the "grammar" task: its rules read from
 * assets/grammar/grammar.txt and its sentences generated from a seed.
 *
 * Each sentence names two people of different pronoun classes and then
 * refers back to one of them by pronoun; the word after the pronoun is that
 * person's own action word, so it can only be predicted by finding which
 * noun the pronoun stands for (grammar.h).
 */
#include "grammar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"

const char *grammar_builtin_rules(void)
{
    return "# The toy language of `attnviz train grammar` (see README.md beside this file).\n"
           "# noun SINGULAR PLURAL GENDER ACTION-SINGULAR ACTION-PLURAL\n"
           "noun king kings m rules rule\n"
           "noun boy boys m runs run\n"
           "noun man men m works work\n"
           "noun father fathers m cooks cook\n"
           "noun queen queens f reigns reign\n"
           "noun girl girls f sings sing\n"
           "noun woman women f writes write\n"
           "noun mother mothers f reads read\n"
           "# transitive verbs between the two nouns\n"
           "verb saw met helped followed\n"
           "# pronoun WORD GENDER(m, f or * for either) NUMBER(s or p)\n"
           "pronoun he m s\n"
           "pronoun she f s\n"
           "pronoun they * p\n";
}

/* Id of word w, added to the vocabulary when new; -1 when out of memory. */
static int word_id(Grammar *g, const char *w)
{
    for (int i = 0; i < g->V; i++)
        if (strcmp(g->words[i], w) == 0)
            return i;
    char **v = realloc(g->words, (size_t)(g->V + 1) * sizeof *v);
    if (!v)
        return -1;
    g->words = v;
    if (!(v[g->V] = strdup(w)))
        return -1;
    return g->V++;
}

/* Split line into at most max words (modified in place); returns the count. */
static int split(char *line, char **w, int max)
{
    int n = 0;
    for (char *p = strtok(line, " \t\r"); p && n < max; p = strtok(NULL, " \t\r"))
        w[n++] = p;
    return n;
}

static int parse_line(Grammar *g, char **w, int n)
{
    if (strcmp(w[0], "noun") == 0 && n == 6 && (!strcmp(w[3], "m") || !strcmp(w[3], "f"))) {
        if (g->n_nouns == GRAMMAR_MAX_NOUNS)
            return AV_ERR_MODEL;
        GrammarNoun *no = &g->noun[g->n_nouns++];
        no->sing = word_id(g, w[1]), no->plur = word_id(g, w[2]);
        no->gender = w[3][0] == 'f';
        no->act_sing = word_id(g, w[4]), no->act_plur = word_id(g, w[5]);
        return no->sing < 0 || no->plur < 0 || no->act_sing < 0 || no->act_plur < 0 ? AV_ERR_NOMEM
                                                                                    : AV_OK;
    }
    if (strcmp(w[0], "verb") == 0 && n >= 2) {
        for (int k = 1; k < n; k++) {
            if (g->n_verbs == GRAMMAR_MAX_VERBS)
                return AV_ERR_MODEL;
            if ((g->verb[g->n_verbs++] = word_id(g, w[k])) < 0)
                return AV_ERR_NOMEM;
        }
        return AV_OK;
    }
    if (strcmp(w[0], "pronoun") == 0 && n == 4 && strchr("mf*", w[2][0]) && !w[2][1] &&
        (!strcmp(w[3], "s") || !strcmp(w[3], "p"))) {
        int cls = w[3][0] == 'p' ? 2 : w[2][0] == 'f' ? 1 : w[2][0] == 'm' ? 0 : -1;
        if (cls < 0)
            return AV_ERR_MODEL;
        return (g->pron[cls] = word_id(g, w[1])) < 0 ? AV_ERR_NOMEM : AV_OK;
    }
    return AV_ERR_MODEL;
}

int grammar_parse(Grammar *g, const char *text, size_t len, char *why, size_t whylen)
{
    memset(g, 0, sizeof *g);
    g->pron[0] = g->pron[1] = g->pron[2] = -1;
    int err = AV_OK, lineno = 0;
    if ((g->the = word_id(g, "the")) < 0 || (g->stop = word_id(g, ".")) < 0)
        err = AV_ERR_NOMEM;
    for (size_t at = 0; !err && at < len; lineno++) {
        const char *end = memchr(text + at, '\n', len - at);
        size_t n = end ? (size_t)(end - (text + at)) : len - at;
        char line[1024], *w[16];
        if (n >= sizeof line) {
            snprintf(why, whylen, "line %d is too long", lineno + 1);
            return grammar_free(g), AV_ERR_MODEL;
        }
        memcpy(line, text + at, n);
        line[n] = 0;
        at += n + 1;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        int nw = split(line, w, 16);
        if (nw && (err = parse_line(g, w, nw)) == AV_ERR_MODEL)
            snprintf(why, whylen,
                     "line %d: not a rule (noun S P m|f A-S A-P; verb W...; "
                     "pronoun W m|f|* s|p)",
                     lineno + 1);
    }
    if (!err &&
        (g->n_nouns < 2 || g->n_verbs < 1 || g->pron[0] < 0 || g->pron[1] < 0 || g->pron[2] < 0)) {
        snprintf(why, whylen, "needs two nouns, a verb and the three pronoun classes");
        err = AV_ERR_MODEL;
    }
    if (err)
        grammar_free(g);
    return err;
}

void grammar_free(Grammar *g)
{
    for (int i = 0; i < g->V; i++)
        free(g->words[i]);
    free(g->words);
    memset(g, 0, sizeof *g);
}

/* The pronoun class of a noun: 0 he, 1 she, 2 they. */
static int pron_class(const GrammarNoun *no, int plural)
{
    return plural ? 2 : no->gender;
}

void grammar_sentence(const Grammar *g, Rng *r, int *out, int *pron_pos, int *ante_pos)
{
    int a, d, a_pl, d_pl;
    /* the antecedent a and the distractor d must take different pronouns */
    do {
        a = (int)(rng_next(r) % (uint64_t)g->n_nouns);
        d = (int)(rng_next(r) % (uint64_t)g->n_nouns);
        a_pl = (int)(rng_next(r) & 1);
        d_pl = (int)(rng_next(r) & 1);
    } while (a == d || pron_class(&g->noun[a], a_pl) == pron_class(&g->noun[d], d_pl));
    const GrammarNoun *na = &g->noun[a], *nd = &g->noun[d];
    int wa = a_pl ? na->plur : na->sing, wd = d_pl ? nd->plur : nd->sing;
    int first = (int)(rng_next(r) & 1); /* 1: the antecedent is the subject */
    out[0] = g->the;
    out[1] = first ? wa : wd;
    out[2] = g->verb[rng_next(r) % (uint64_t)g->n_verbs];
    out[3] = g->the;
    out[4] = first ? wd : wa;
    out[5] = g->stop;
    out[6] = g->pron[pron_class(na, a_pl)];
    out[7] = a_pl ? na->act_plur : na->act_sing;
    out[8] = g->stop;
    *pron_pos = 6;
    *ante_pos = first ? 1 : 4;
}
