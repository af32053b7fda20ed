/* kind.h - a model kind: one way of getting attention for a text, behind one
 * table of functions (in the manner of htop's MeterClass).
 *
 * The kinds are attnviz's own pipeline (kind_pipeline.c: random or designed
 * heads, or --weights), a trained model folder (kind_trained.c: --model DIR)
 * and imported attention (kind_imported.c: --attention FILE.npy). Each is one
 * file in src/app/ holding one KindClass; the readers below it (io) and the
 * maths (core, train) stay where they are. The batch command line, the
 * interface and the lessons' handouts run a text through kind_run and ask
 * kind_refuses what a kind cannot do: no other file tells the kinds apart.
 *
 * A new kind is a new file in src/app/ with its KindClass and an opener
 * (kind_<name>_open) that fills a Kind, plus its readers below.
 */
#ifndef ATTNVIZ_KIND_H
#define ATTNVIZ_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/combine.h"
#include "core/model.h"
#include "core/bert.h"
#include "core/gpt2.h"
#include "core/lens.h"
#include "io/attnimport.h"
#include "io/hfmodel.h"
#include "train/netresult.h"

/* What a user may ask of a model; kind_refuses says whether this kind cannot. */
typedef enum {
    KIND_ASK_EDIT,       /* type a text of one's own */
    KIND_ASK_MASK,       /* turn the causal mask off or on (or compare both) */
    KIND_ASK_SETTINGS,   /* heads, d_model, seed, preset, layers, PE */
    KIND_ASK_WHATIF,     /* scaling and temperature of the attention's softmax */
    KIND_ASK_CROSS,      /* attend over a second sentence (cross-attention) */
    KIND_ASK_EXAMPLES,   /* the built-in example sentences */
    KIND_ASK_GENERATE,   /* continue the text by a token */
    KIND_ASK_TRACE,      /* the calculation trace (Q, K, V of the heads) */
    KIND_ASK_VIEWS,      /* a view past the heatmaps (PE, pipeline: the model's vectors) */
    KIND_ASK_PE_VIEW,    /* the PE view, which draws sinusoidal encodings */
    KIND_ASK_HEADS_HELP, /* how the heads were built */
    KIND_ASK_DIMS,       /* browse the dimensions of the vectors */
    KIND_ASK_NORMS,      /* value-weighted norms (the model's V and W_O) */
    KIND_ASK_LENS,       /* the logit lens (u, --export lens): why a kind has none */
    KIND_ASK_COUNT
} KindAsk;

typedef struct Kind Kind;

/* Returned by poll while a kind's background work goes on. */
#define KIND_BUSY 1

/* What the last run cost: the forward's FLOPs over the positions it really
 * computed, and how many positions it took from a cache. */
typedef struct {
    double flops;      /* floating-point operations of the positions computed */
    double whole;      /* a whole forward's of the same text (nothing cached) */
    int computed;      /* positions computed */
    int cached;        /* positions reused from the cache (their keys and values) */
    double ms;         /* the forward's time when it ran off the caller's thread, else 0 */
    double kv_token;   /* the KV cache's bytes a token (model_kv_bytes), 0: no cache */
    double kv_now;     /* ... at the text's length */
    double kv_context; /* ... at the model's context */
} KindCost;

typedef struct {
    const char *name; /* "pipeline", "trained", "imported", shown in messages */
    /* Run text[0..len) (and cross[0..cross_len) when cross is not NULL) into r
     * (zeroed before the first call, reused after) with the settings c (the
     * kind's own sizes: see config). Returns AV_OK or an AV_ERR_* code; after
     * AV_ERR_VOCAB k->bad holds the piece outside the vocabulary. On error
     * r->shape.n_q is 0. Required. */
    int (*run)(Kind *k, const ModelConfig *c, const char *text, size_t len, const char *cross,
               size_t cross_len, ModelResult *r);
    /* Continue text[0..len) by count tokens sampled with temperature and top_k
     * from seed: *out (malloc'd) the whole sequence, *cont where the new
     * tokens start. NULL: the kind cannot generate (kind_generate says
     * AV_ERR_CONFIG). */
    int (*generate)(Kind *k, const char *text, size_t len, int count, float temperature, int top_k,
                    uint64_t seed, char **out, size_t *cont);
    /* The one-line reason the kind refuses ask, or NULL when it does not.
     * NULL: it refuses nothing. */
    const char *(*refuses)(const Kind *k, KindAsk ask);
    /* The next-token logits at position pos of text[0..len) (the token
     * after its first pos + 1 tokens; pos < 0: the last position):
     * out[0..*V) (at most cap). AV_ERR_CONFIG when pos is past the text's
     * tokens. NULL: the kind has no next-token distribution. */
    int (*logits)(Kind *k, const char *text, size_t len, int pos, float *out, int cap, int *V);
    /* The logit lens (core/lens.h) of text[0..len) into ls (the caller's,
     * reused between calls: a kind with a cache keeps the rows it can): L + 1
     * rows of every position the run shows. NULL: the kind predicts no
     * tokens (kind_lens says AV_ERR_NEEDS_MODEL). */
    int (*lens)(Kind *k, const char *text, size_t len, Lens *ls);
    /* The display text of vocabulary entry id (a leading space shown by a
     * visible mark) into out (NUL-terminated, at most len bytes). NULL: the
     * kind has no vocabulary of its own (kind_token_text writes "#id"). */
    void (*token_text)(const Kind *k, int id, char *out, size_t len);
    /* The kind's part of the status line for the settings c: its sizes,
     * what stands in for attnviz's seed and PE, and first a what-if (c's
     * scaling or temperature unlike the model's); fields separated by " | "
     * when wide, else by two spaces and fewer of them; d_k written "d_k ?"
     * when dk_hidden (a lesson's question on it waits for its reveal).
     * NULL: the interface shows attnviz's own settings. */
    void (*status)(const Kind *k, const ModelConfig *c, bool wide, bool dk_hidden, char *out,
                   size_t len);
    /* What the last successful run cost, into *cost: true, or false when the
     * interface counts the attention's FLOPs itself. NULL: false. */
    bool (*cost)(const Kind *k, KindCost *cost);
    /* The settings the kind fixes (sizes, causal, labels) into *c, keeping
     * what the caller sets (keep_scores, weights_budget). NULL: none. */
    void (*config)(const Kind *k, ModelConfig *c);
    /* One line about the kind for the status line when it opens, in form
     * 0 (the whole line) to KIND_DESCRIBE_FORMS - 1, each no longer than
     * the one before, for the interface to show the longest that fits (a
     * kind with fewer forms writes its shortest for the others); the
     * model's name in it whole (name_w 0) or shortened to name_w columns
     * (kind_short_name). NULL: none. */
    void (*describe)(const Kind *k, int form, int name_w, char *msg, size_t len);
    /* Background work (a large file's check): KIND_BUSY while it goes on,
     * AV_OK when there is none left (*changed set when it ended in this call:
     * config and describe may say something new), or an AV_ERR_* code with
     * one line in msg. NULL: none. */
    int (*poll)(Kind *k, bool *changed, char *msg, size_t len);
    /* The attention as it stands, without a run (a mapped file), into *src:
     * true, or false when the kind computes it. NULL: false. */
    bool (*source)(const Kind *k, AttnSource *src);
    /* The reader is done with layer l for now (a map may drop its pages).
     * NULL: nothing to do. */
    void (*release)(const Kind *k, int l);
    /* --dump DIR of the result r of the settings c (io/dump.h's files and the
     * kind's own: *which names the file at fault). NULL: dump_write. */
    int (*dump)(const Kind *k, const char *dir, const ModelResult *r, const ModelConfig *c,
                const char **which);
    /* Run the token ids ids[0..n) (0 .. V - 1 of vocab) into r as run does:
     * the head scores' probe sequences (app/headscan.h). NULL: the kind runs
     * no ids (imported attention). */
    int (*run_ids)(Kind *k, const ModelConfig *c, const int *ids, int n, ModelResult *r);
    /* The ids run_ids takes, 0 .. *V - 1, and the longest sequence *n_max of
     * the settings c. Required with run_ids. */
    void (*vocab)(const Kind *k, const ModelConfig *c, int *V, int *n_max);
    /* The ids of the tokens the model's texts are wrapped in, [CLS] first
     * and [SEP] last (BERT's), into *cls and *sep, -1 for one it has not:
     * the head scores wrap their probes so and score the no-op heads.
     * NULL: none (both -1). */
    void (*wrap)(const Kind *k, int *cls, int *sep);
    /* Layer l's output projection W_O, (d_model, d_model) with head h's rows
     * at h d_k: what the value-weighted norms multiply V by. NULL: the kind keeps
     * none (and its refuses names KIND_ASK_NORMS). */
    const float *(*out_proj)(const Kind *k, int l);
    /* A text of the model's own to open the interface on when the command
     * line gives none (malloc'd), or NULL (AV_ERR_NOMEM aside: the interface
     * starts empty). NULL: none. */
    char *(*start_text)(const Kind *k);
    /* A line the batch says on standard error after a successful run (which
     * part of a long text the result shows) into out, or out emptied. NULL:
     * none. */
    void (*run_note)(const Kind *k, const ModelResult *r, char *out, size_t len);
    /* What logits predicts, as the predictions' title ("Fill-in for": a
     * masked-LM's fill-ins of the selected token). NULL: the next token
     * after it. */
    const char *predict_title;
    /* Free what the opener made; the model it was given stays the caller's. */
    void (*close)(Kind *k);
    bool temperature_samples; /* --temperature is generation's: the softmax keeps 1 */
    bool causal_only;         /* the model was made causal: the mask cannot be turned off */
    bool slow;                /* a run may take seconds: the interface says so before it, or
                                 sets Kind.background */
    /* What the command line (cli/model_cmd.c) does otherwise for a kind
     * opened from a file (imported attention); all false for the folders. */
    bool file_sizes;     /* the sizes are the file's: --head's message says no "a layer",
                            and AV_MAX_LAYERS and AV_MAX_HEADS bound them */
    bool no_sentence;    /* text and md exports do not open with the sentence */
    bool budget_message; /* too large to export every weight: said as the budget */
    /* The name the command line's messages give the model (a file's base
     * name). NULL: the folder as given. */
    const char *(*label)(const Kind *k);
    /* A finding the batch says on standard error as a warning before it
     * writes anything (rows not summing to 1), or NULL. NULL: none. */
    const char *(*warning)(const Kind *k);
} KindClass;

struct Kind {
    const KindClass *cls;
    void *self;        /* the kind's own state (its file's), or the model it was given */
    float temperature; /* generation's sampling (the interface's g): --temperature */
    int top_k;         /* and --top-k (0: all) */
    char bad[64];      /* after AV_ERR_VOCAB: the piece, printable (control bytes '?') */
    /* Set by a caller that polls (kind_poll) for a slow kind: a run whose
     * forward is not cached then starts it on a thread and returns
     * KIND_BUSY with the result untouched (a newer text replaces a waiting
     * one); logits return KIND_BUSY meanwhile; when poll says *changed,
     * run the newest text again: it is cached, and fills the result. */
    bool background;
    /* Set by a caller that polls (the interface), for any kind: the logit
     * lens, seconds on a long text, is computed on a thread as with
     * background (kind_lens returns KIND_BUSY meanwhile, keys are read); a
     * run on the key path stops it first, its finished positions kept. */
    bool lens_background;
};

/* The dispatch: each calls k's table (kind.c). */

/* k->cls->run, with k->bad made printable. Returns the kind's codes: the
 * pipeline's are model_run's (AV_ERR_EMPTY, AV_ERR_UTF8, AV_ERR_TOO_MANY,
 * AV_ERR_CONFIG, AV_ERR_NPY_SHAPE, AV_ERR_TOO_LARGE, AV_ERR_NOMEM), the trained
 * kind's netresult_run's (AV_ERR_VOCAB, AV_ERR_UTF8, AV_ERR_EMPTY,
 * AV_ERR_CONFIG, AV_ERR_TOO_LARGE, AV_ERR_NOMEM; AV_ERR_CONFIG for a cross
 * sentence), the imported kind's model_result_import's (AV_ERR_CONFIG,
 * AV_ERR_NOMEM); AV_OK on success. */
int kind_run(Kind *k, const ModelConfig *c, const char *text, size_t len, const char *cross,
             size_t cross_len, ModelResult *r);

/* k->cls->run_ids, or AV_ERR_CONFIG (r->shape.n_q 0) when the kind has none. */
int kind_run_ids(Kind *k, const ModelConfig *c, const int *ids, int n, ModelResult *r);

/* k->cls->vocab into *V and *n_max: false (both 0) when the kind runs no ids. */
bool kind_vocab(const Kind *k, const ModelConfig *c, int *V, int *n_max);

/* k->cls->wrap into *cls and *sep, or both -1. */
void kind_wrap(const Kind *k, int *cls, int *sep);

/* k->cls->generate, or AV_ERR_CONFIG (*out NULL) when the kind cannot. */
int kind_generate(Kind *k, const char *text, size_t len, int count, float temperature, int top_k,
                  uint64_t seed, char **out, size_t *cont);

/* Whether the kind can continue a text (KIND_ASK_GENERATE not refused). */
bool kind_generates(const Kind *k);

/* The one-line reason k refuses ask, or NULL. A causal_only kind refuses
 * KIND_ASK_MASK with a line of its own when its table gives none. */
const char *kind_refuses(const Kind *k, KindAsk ask);

/* k->cls->logits at position pos (< 0: the last), or AV_ERR_CONFIG when the
 * kind has none. */
int kind_logits(Kind *k, const char *text, size_t len, int pos, float *out, int cap, int *V);

/* Whether the kind has a next-token distribution (a logits method). */
bool kind_has_logits(const Kind *k);

/* k->cls->lens, or AV_ERR_NEEDS_MODEL when the kind predicts no tokens
 * (the toy pipeline, imported attention). Returns the kind's run codes (as
 * kind_logits; KIND_BUSY while a slow kind's forward runs). */
int kind_lens(Kind *k, const char *text, size_t len, Lens *ls);

/* Whether the kind predicts tokens (a lens method). */
bool kind_has_lens(const Kind *k);

/* The predictions' title: k->cls->predict_title, or "Next token after"
 * ("Next after" when not wide). */
const char *kind_predict_title(const Kind *k, bool wide);

/* k->cls->token_text, or "#id". */
void kind_token_text(const Kind *k, int id, char *out, size_t len);

/* k->cls->status into out (d_k as "d_k ?" when dk_hidden): true; false
 * (out emptied) when the kind has none. */
bool kind_status(const Kind *k, const ModelConfig *c, bool wide, bool dk_hidden, char *out,
                 size_t len);

/* For a kind's status: what scaling and temperature change from the
 * model's own ("scaling off", "temp 0.5", "scaling off, temp 0.5"), or ""
 * when neither does. */
void kind_scaling_whatif(const ModelConfig *c, char *out, size_t len);

/* k->cls->cost, or false. */
bool kind_cost(const Kind *k, KindCost *cost);

/* k->cls->config, when the kind fixes settings; else c unchanged. */
void kind_config(const Kind *k, ModelConfig *c);

/* The forms of a kind's line (KindClass.describe). */
#define KIND_DESCRIBE_FORMS 3

/* k->cls->describe's form (0 .. KIND_DESCRIBE_FORMS - 1) into msg, the
 * name whole, or msg emptied. */
void kind_describe(const Kind *k, int form, char *msg, size_t len);

/* The columns a model's name keeps at least when the line is shortened. */
#define KIND_NAME_MIN 12

/* k's line in the longest form that fits width columns; when none does, the
 * shortest with the model's name shortened to the columns left (at least
 * KIND_NAME_MIN), so that a long hub id keeps the line to one row. */
void kind_describe_fit(const Kind *k, int width, char *msg, size_t len);

/* name into out, whole when it has at most cols code points (or cols <= 0);
 * else shortened to cols of them around an ellipsis: an ORG/NAME id keeps
 * its NAME whole after the start of ORG ("sentence-tr…/all-MiniLM-L6-v2")
 * while NAME and two more fit, else the start and the end of the whole
 * ("some-org…model-v2"). */
void kind_short_name(const char *name, int cols, char *out, size_t len);

/* k->cls->poll, or AV_OK with *changed false. */
int kind_poll(Kind *k, bool *changed, char *msg, size_t len);

/* k->cls->source, or false. */
bool kind_source(const Kind *k, AttnSource *src);

/* k->cls->release, when there is one. */
void kind_release(const Kind *k, int l);

/* k->cls->dump, or dump_write, into a folder beside dir that then replaces
 * dir whole (io/dirswap.h). dir must pass dump_check_folder (missing, empty
 * or an earlier dump): else AV_ERR_IO with *which NULL, nothing touched.
 * Returns as dump_write (io/dump.h); *which is NULL when the folder itself
 * failed. */
int kind_dump(const Kind *k, const char *dir, const ModelResult *r, const ModelConfig *c,
              const char **which);

/* k->cls->out_proj of layer l, or NULL. */
const float *kind_out_proj(const Kind *k, int l);

/* k->cls->start_text (malloc'd), or NULL. */
char *kind_start_text(const Kind *k);

/* k->cls->run_note after a run into r, or out emptied. */
void kind_run_note(const Kind *k, const ModelResult *r, char *out, size_t len);

/* k->cls->label, or NULL (the caller names the folder). */
const char *kind_label(const Kind *k);

/* k->cls->warning, or NULL. */
const char *kind_warning(const Kind *k);

/* Close k and zero it; accepts a zeroed Kind. */
void kind_close(Kind *k);

/* The model folder dir opened as the first kind of the table of folder
 * kinds (kind.c: a Hugging Face BERT-family folder, a GPT-2 one, else
 * attnviz's own trained model) that claims it; progress (may be NULL) is called with ctx as a
 * large model's weights are read. Returns AV_OK, AV_ERR_IO, AV_ERR_NOMEM or
 * AV_ERR_MODEL with one line in why (why may also be empty: the code says
 * it); on error k is zeroed. A new folder kind is one row there. */
int kind_open_folder(Kind *k, const char *dir, HfProgress progress, void *ctx, char *why,
                     size_t whylen);

/* The openers of the kinds, one in each kind's file. */

/* attnviz's own pipeline (core/model.h) on w, which the caller keeps alive
 * and unchanged while k lives. Nothing is refused. */
void kind_pipeline_open(Kind *k, const ModelWeights *w);

/* A trained model m (netresult_open'd; the caller keeps it alive and closes
 * it after k). Generation samples with m's sample_temperature and
 * sample_top_k (k->temperature, k->top_k). Returns AV_OK or AV_ERR_NOMEM. */
int kind_trained_open(Kind *k, NetModel *m);

/* The trained model folder dir, opened and owned by k. Returns AV_OK,
 * AV_ERR_NOMEM or AV_ERR_MODEL with one line in why (netresult_open's). */
int kind_trained_load(Kind *k, const char *dir, char *why, size_t whylen);

/* k's trained model, or NULL when k is of another kind: for the command
 * line's --model notes (which tokens of a long text are shown). */
NetModel *kind_trained_model(const Kind *k);

/* Imported attention im (attnimport_open'd; the caller keeps it alive and
 * frees it after k). A file not yet validated has layer 0 checked now and the
 * others on a thread (kind_poll). Returns AV_OK, AV_ERR_NOMEM or the check's
 * error with one line in msg. */
int kind_imported_open(Kind *k, const AttnImport *im, char *msg, size_t msglen);

/* The imported attention file npy_path (with its tokens_path and
 * key_tokens_path files, either may be NULL: attnimport_open's), opened and
 * owned by k. Every value is checked now (attnfile_validate), except for
 * the interface (interactive) on a file over ATTNFILE_BACKGROUND_BYTES:
 * layer 0 now and the others on a thread (kind_imported_open). Returns
 * AV_OK or the first error with one line in msg (AV_ERR_NOMEM: "out of
 * memory"); on error k is zeroed. */
int kind_imported_load(Kind *k, const char *npy_path, const char *tokens_path,
                       const char *key_tokens_path, bool interactive, char *msg, size_t msglen);

/* k's imported file (its sizes, tokens, the check's findings), or NULL when
 * k is of another kind. */
const AttnImport *kind_imported_file(const Kind *k);

/* A Hugging Face GPT-2 folder dir (kind_gpt2.c: config.json, safetensors,
 * vocab.json + merges.txt or tokenizer.json), opened and owned by k;
 * progress (may be NULL) is called with ctx as the weights are read.
 * Returns AV_OK, AV_ERR_IO (a file that cannot be read), AV_ERR_MODEL (one
 * line in why: a refused config, file or tensor) or AV_ERR_NOMEM; on error
 * k is zeroed. */
int kind_gpt2_load(Kind *k, const char *dir, HfProgress progress, void *ctx, char *why,
                   size_t whylen);

/* Whether dir is a Hugging Face folder (config.json, no attnviz model.json). */
bool kind_gpt2_folder(const char *dir);

/* A Hugging Face BERT-family folder dir (kind_bert.c: config.json with
 * model_type bert or distilbert, or the sentence-transformers layout;
 * safetensors; vocab.txt or tokenizer.json), opened and owned by k; progress
 * as kind_gpt2_load's. Returns AV_OK, AV_ERR_IO, AV_ERR_MODEL (one line in
 * why) or AV_ERR_NOMEM; on error k is zeroed. */
int kind_bert_load(Kind *k, const char *dir, HfProgress progress, void *ctx, char *why,
                   size_t whylen);

/* Whether dir is a BERT-family folder (hfbert_is_folder). */
bool kind_bert_folder(const char *dir);

/* k's BERT sizes, or NULL when k is of another kind. */
const BertConfig *kind_bert_config(const Kind *k);

/* k's GPT-2 sizes, or NULL when k is of another kind. */
const Gpt2Config *kind_gpt2_config(const Kind *k);

#endif
