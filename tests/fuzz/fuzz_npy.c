/* fuzz_npy.c - libFuzzer harness for the .npy reader.
 *
 * The input is a whole .npy file image. Besides the sanitizers, the harness
 * checks npy.h's contract and aborts when it is broken: an error leaves the
 * array zeroed; a success has 0..NPY_MAX_DIMS dimensions, a count equal to the
 * product of the shape, at most as many elements as the bytes could hold, and
 * only finite numbers. Small successful arrays are written back with
 * npy_write and read again, which must give the same array.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/av.h"
#include "io/npy.h"

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_npy: invariant broken: %s\n", what);
        abort();
    }
}

static int is_zeroed(const NpyArray *a)
{
    static const NpyArray zero;
    return memcmp(a, &zero, sizeof zero) == 0;
}

/* A private scratch path for the write-back, made once per process. */
static const char *scratch_path(void)
{
    static char path[256];
    if (!path[0]) {
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(path, sizeof path, "%s/fuzz_npy.%ld.npy", dir, (long)getpid());
    }
    return path;
}

static void check_round_trip(const NpyArray *a)
{
    NpyArray b;
    const char *path = scratch_path();
    check(npy_write(path, a->ndim, a->shape, a->data) == AV_OK, "npy_write failed");
    check(npy_read(path, &b) == AV_OK, "npy_read of npy_write's file failed");
    check(b.ndim == a->ndim && b.count == a->count, "round trip changed ndim or count");
    check(memcmp(b.shape, a->shape, sizeof b.shape) == 0, "round trip changed the shape");
    check(memcmp(b.data, a->data, a->count * sizeof(float)) == 0, "round trip changed data");
    npy_free(&b);
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    NpyArray a;
    memset(&a, 0xA5, sizeof a); /* npy_parse must zero it whatever it held */
    int rc = npy_parse(data, size, &a);
    if (rc != AV_OK) {
        check(rc == AV_ERR_NPY_FORMAT || rc == AV_ERR_NPY_DTYPE || rc == AV_ERR_NPY_SHAPE ||
                  rc == AV_ERR_NPY_NONFINITE || rc == AV_ERR_NOMEM,
              "npy_parse returned an undocumented code");
        check(is_zeroed(&a), "npy_parse left the array non-zero on error");
        return 0;
    }
    check(a.ndim >= 0 && a.ndim <= NPY_MAX_DIMS, "ndim out of range");
    check(a.data != NULL, "success without data");
    size_t count = 1;
    for (int k = 0; k < a.ndim; k++)
        count *= a.shape[k];
    for (int k = a.ndim; k < NPY_MAX_DIMS; k++)
        check(a.shape[k] == 0, "unused shape entries not zero");
    check(count == a.count, "count is not the product of the shape");
    check(a.count <= size / 4, "more elements than the file can hold");
    for (size_t k = 0; k < a.count; k++) {
        float f = a.data[k];
        check(f - f == 0.0f, "a non-finite value was accepted");
    }
    if (a.count <= 4096)
        check_round_trip(&a);
    npy_free(&a);
    check(is_zeroed(&a), "npy_free left the array non-zero");
    return 0;
}
