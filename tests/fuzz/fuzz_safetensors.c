/* fuzz_safetensors.c - libFuzzer harness for the safetensors reader.
 *
 * The input is a whole file image, parsed with st_parse. Besides the
 * sanitizers (and LeakSanitizer: a refused file must leave nothing
 * allocated), the harness checks safetensors.h's contract and aborts when it
 * is broken: a refusal is AV_ERR_MODEL or AV_ERR_NOMEM with one line naming
 * the file and a zeroed StFile; an accepted file has its header inside the
 * input, every tensor's bytes inside the data and equal in length to its
 * shape's product times its dtype's size, names unique and found by
 * st_find, and the byte ranges covering the data exactly with no overlap.
 * Float tensors are then read whole with st_load_f32.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/safetensors.h"

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_safetensors: invariant broken: %s\n", what);
        abort();
    }
}

static int is_zeroed(const StFile *f)
{
    static const StFile zero;
    return memcmp(f, &zero, sizeof zero) == 0;
}

static int by_begin(const void *a, const void *b)
{
    const StTensor *x = *(const StTensor *const *)a, *y = *(const StTensor *const *)b;
    return x->begin < y->begin   ? -1
           : x->begin > y->begin ? 1
                                 : (x->end > y->end) - (x->end < y->end);
}

static void check_tensor(const StFile *f, const StTensor *t, uint64_t data_len)
{
    uint64_t count = 1;
    check(t->ndim >= 0 && t->ndim <= ST_MAX_DIMS, "ndim out of range");
    for (int k = 0; k < t->ndim; k++)
        check(!__builtin_mul_overflow(count, t->shape[k], &count), "shape product overflows");
    check(count == t->count, "count is not the product of the shape");
    check(st_dtype_size(t->dtype) > 0, "an unknown dtype was accepted");
    check(t->begin <= t->end && t->end <= data_len, "a tensor lies outside the data");
    check(t->end - t->begin == count * (uint64_t)st_dtype_size(t->dtype),
          "a tensor's bytes do not match its shape");
    check(st_find(f, t->name) == t, "st_find does not find a tensor");
    if ((t->dtype == ST_F32 || t->dtype == ST_F16 || t->dtype == ST_BF16) && count <= 65536) {
        float *x = malloc((size_t)count * sizeof(float) + 1);
        check(x != NULL, "out of memory");
        check(st_load_f32(f, t, x) == AV_OK, "st_load_f32 refused a float tensor");
        free(x);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    StFile f;
    char why[512] = "";
    memset(&f, 0xA5, sizeof f); /* st_parse must set it whatever it held */
    int rc = st_parse(data, size, "fuzz.safetensors", &f, why, sizeof why);
    if (rc != AV_OK) {
        check(rc == AV_ERR_MODEL || rc == AV_ERR_NOMEM, "an undocumented error code");
        check(is_zeroed(&f), "a refused file left the StFile non-zero");
        check(strncmp(why, "fuzz.safetensors: ", 18) == 0 && !strchr(why, '\n'),
              "the reason is not one line naming the file");
        return 0;
    }
    check(f.data_start >= 8 && f.data_start <= size, "the header runs past the input");
    uint64_t data_len = size - f.data_start;
    const StTensor **r = malloc(((size_t)f.n + 1) * sizeof(*r));
    check(r != NULL, "out of memory");
    for (int k = 0; k < f.n; k++) {
        check_tensor(&f, &f.t[k], data_len);
        if (k)
            check(strcmp(f.t[k - 1].name, f.t[k].name) < 0, "names not sorted and unique");
        r[k] = &f.t[k];
    }
    qsort(r, (size_t)f.n, sizeof(*r), by_begin);
    uint64_t at = 0;
    for (int k = 0; k < f.n; k++) {
        check(r[k]->begin == at, "a hole or an overlap was accepted");
        at = r[k]->end;
    }
    check(at == data_len, "bytes at the end of the data belong to no tensor");
    free(r);
    st_close(&f);
    check(is_zeroed(&f), "st_close left the StFile non-zero");
    return 0;
}
