/* task.h - training tasks: data generators with a seed.
 *
 * A task is a vocabulary and a pure function (seed, step) -> batch: B
 * sequences of n token ids, the next-token targets, a loss mask (1 where a
 * target counts) and a metric mask (the positions the task's accuracy is
 * measured on). Tasks:
 *   induction  a random segment of 4..12 letters, its period chosen per
 *              sequence, repeated to fill the context; loss and accuracy on
 *              the targets after the first period;
 *   copy, reverse, sort  "abc|abc." examples one after another; loss and
 *              accuracy on the answer only (after '|', the '.' included);
 *              letters, or digits with the "digits" variants;
 *   text       a character model of a UTF-8 text (vocab: its code points);
 *   grammar    the toy language of assets/grammar/ (grammar.h), words.
 */
#ifndef ATTNVIZ_TASK_H
#define ATTNVIZ_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/modelfile.h"

typedef enum {
    TASK_INDUCTION,
    TASK_COPY,
    TASK_REVERSE,
    TASK_SORT,
    TASK_TEXT,
    TASK_GRAMMAR
} TaskKind;

struct Grammar;

typedef struct {
    TaskKind kind;
    char name[32]; /* "induction", "copy", ..., "sort-digits", "text", "grammar" */
    ModelTok tokenizer;
    int V;
    char **vocab; /* V strings, owned */
    bool digits;  /* copy/reverse/sort of digits rather than letters */
    int *text;    /* text: the file as token ids, owned */
    long text_len;
    struct Grammar *grammar; /* grammar: the rules, owned */
} Task;

/* One batch: every array (B, n), row-major, owned. pairs: for grammar, per
 * sequence up to n (query, key) position pairs (pronoun, antecedent noun),
 * -1 terminated; NULL for other tasks. */
typedef struct {
    int B, n;
    int *tok, *tgt;
    float *mask, *metric;
    int *pairs; /* (B, n, 2) */
} Batch;

/* Names task_init knows, for messages: "induction copy reverse sort ...". */
const char *task_names(void);

/* Set up task name. data[0..len) is the text for "text" (UTF-8) or the rules
 * for "grammar" (grammar.h's format; NULL: the built-in task_grammar_rules);
 * NULL for the others. Returns AV_OK,
 * AV_ERR_NOMEM, AV_ERR_CONFIG (unknown name: why says so), AV_ERR_UTF8 or
 * AV_ERR_EMPTY (text), AV_ERR_MODEL (bad grammar: why names the line). */
int task_init(Task *t, const char *name, const char *data, size_t len, char *why, size_t whylen);

void task_free(Task *t);

/* A batch of B sequences of n tokens. AV_OK or AV_ERR_NOMEM. */
int task_batch_init(Batch *b, const Task *t, int B, int n);
void task_batch_free(Batch *b);

/* Fill b (sizes fixed by task_batch_init) with the batch for (seed, step):
 * the same arguments give the same batch. A text shorter than n + 1 tokens
 * repeats itself. */
void task_batch(const Task *t, uint64_t seed, long step, Batch *b);

/* The fraction of metric positions whose most likely token is the target,
 * from probabilities probs (B*n, V). */
double task_accuracy(const Batch *b, const float *probs, int V);

/* The same fraction from each row's most likely token best (B*n), the first
 * of equal largest probabilities (net.h's net->best after a forward with
 * targets; the same number as task_accuracy on that forward's probs). */
double task_accuracy_best(const Batch *b, const int *best);

/* The grammar task's built-in rules: the text of assets/grammar/grammar.txt. */
const char *task_grammar_rules(void);

/* Id of vocab entry str, or -1. */
int task_token_id(const Task *t, const char *str);

#endif
