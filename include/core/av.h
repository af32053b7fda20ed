/* av.h - error codes and limits shared by every attnviz module.
 *
 * Core functions return an int: AV_OK (0) on success, a negative AV_ERR_* on
 * failure, and pass results through pointers. They never print and never exit;
 * main.c and the UI turn a code into one line with av_strerror().
 */
#ifndef ATTNVIZ_AV_H
#define ATTNVIZ_AV_H

#define AV_VERSION "0.1.0"

enum {
    AV_OK = 0,
    AV_ERR_NOMEM = -1,          /* an allocation failed */
    AV_ERR_IO = -2,             /* a file could not be read or written (see errno) */
    AV_ERR_CONFIG = -3,         /* heads / d_model / seed combination not allowed */
    AV_ERR_UTF8 = -4,           /* the text is not valid UTF-8 */
    AV_ERR_TOO_MANY = -5,       /* more tokens than the limit */
    AV_ERR_EMPTY = -6,          /* the text holds no token */
    AV_ERR_NPY_FORMAT = -7,     /* not a .npy file, or a truncated one */
    AV_ERR_NPY_DTYPE = -8,      /* not little-endian float32/float64 in C order */
    AV_ERR_NPY_SHAPE = -9,      /* the array's shape is not the one required */
    AV_ERR_NPY_NONFINITE = -10, /* the array holds NaN or Inf */
    AV_ERR_TOO_LARGE = -11,     /* the text or a file exceeds a stated limit */
    AV_ERR_NPY_NEGATIVE = -12,  /* attention weights below zero */
    AV_ERR_MODEL = -13,         /* a model folder is broken or incomplete */
    AV_ERR_VOCAB = -14,         /* the text has a character or word outside the vocabulary */
    AV_ERR_LESSON = -15,        /* a lesson file is malformed */
    AV_ERR_NEEDS_MODEL = -16,   /* the view needs vectors that imported attention lacks */
    AV_ERR_STOPPED = -17,       /* asked to stop before the end (a job being closed) */
    AV_ERR_OVERFLOW = -18,      /* the numbers would leave float32's range (weights too large) */
};

/* Limits (README.md "Limits"): enforced with a clear message, tested at the edges. */
#define AV_MAX_TOKENS_DEFAULT 4096  /* default token limit of the tokeniser */
#define AV_MAX_TOKENS 16384         /* largest --max-tokens accepted */
#define AV_MAX_TEXT_BYTES (1 << 20) /* largest text read from a file or stdin */
#define AV_MAX_TOKEN_BYTES 256      /* longer words are split into pieces of this size */
#define AV_MAX_HEADS 64
#define AV_MAX_D_MODEL 1600 /* widest model the core computes: GPT-2 XL (25 heads of 64) */
/* widest model attnviz builds, trains or reads in its own formats (--d-model, train,
 * model.json, lessons) */
#define AV_MAX_D_MODEL_OWN 1024
#define AV_MAX_LAYERS 48 /* GPT-2 XL and the deepest models one imports; 12 capped BERT-large */

/* One line, no trailing newline, for an AV_ERR_* code. */
const char *av_strerror(int err);

/* The exit status DESIGN.md gives for an error: 1 for I/O and memory, else 2. */
int av_exit_status(int err);

#endif
