/* av.c - the one-line messages and exit statuses of the AV_ERR_* codes.
 *
 * This is the only place that turns an error code into words: core modules
 * return codes, and main.c or the UI print av_strerror() once. It does not
 * print anything itself and knows nothing of errno (callers add strerror(errno)
 * for AV_ERR_IO when they have a file name to show).
 */
#include "core/av.h"

const char *av_strerror(int err)
{
    switch (err) {
    case AV_OK: return "success";
    case AV_ERR_NOMEM: return "out of memory";
    case AV_ERR_IO: return "a file could not be read or written";
    case AV_ERR_CONFIG: return "invalid model configuration (heads, d_model or seed)";
    case AV_ERR_UTF8: return "the text is not valid UTF-8";
    case AV_ERR_TOO_MANY: return "the text has more tokens than the limit";
    case AV_ERR_EMPTY: return "the text holds no token";
    case AV_ERR_NPY_FORMAT: return "not a .npy file, or a truncated one";
    case AV_ERR_NPY_DTYPE: return "the .npy array is not little-endian float32/float64 in C order";
    case AV_ERR_NPY_SHAPE: return "the .npy array does not have the required shape";
    case AV_ERR_NPY_NONFINITE: return "the .npy array holds NaN or Inf";
    case AV_ERR_TOO_LARGE: return "the input exceeds a size limit";
    case AV_ERR_NPY_NEGATIVE: return "the attention array holds negative weights";
    case AV_ERR_MODEL: return "the model folder is broken or incomplete";
    case AV_ERR_VOCAB: return "the text is outside the model's vocabulary";
    case AV_ERR_LESSON: return "the lesson file is malformed";
    case AV_ERR_NEEDS_MODEL: return "this needs a model's vectors, which imported attention lacks";
    case AV_ERR_STOPPED: return "stopped before the end";
    case AV_ERR_OVERFLOW:
        return "the weights are so large that the attention scores would overflow float32";
    default: return "unknown error";
    }
}

int av_exit_status(int err)
{
    /* DESIGN.md: 1 for runtime failures (files, memory), 2 for bad usage or input. */
    if (err == AV_OK)
        return 0;
    if (err == AV_ERR_IO || err == AV_ERR_NOMEM)
        return 1;
    return 2;
}
