/* test_dump.c - the combined views of --dump: attention.npy bit for bit the
 * weights of every layer, rollout.npy and norms.npy against computations done
 * here independently in double, and the round trip dump -> import -> dump
 * giving the same bytes. Also cross-attention (no rollout), float64 imports,
 * and failures that leave no temporary file.
 */
#include "test_common.h"

#define TEST_TMP_FILE "x"
#include "test_tmp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/model.h"
#include "io/attnimport.h"
#include "io/dump.h"
#include "io/fileio.h"
#include "io/npy.h"

#define IMP TEST_DATA_DIR "/import/"

static char msg[512];

typedef struct {
    ModelConfig c;
    ModelWeights w;
    ModelResult r;
} Run;

static void run_model(Run *m, int layers, int H, int d, bool causal, const char *text,
                      const char *cross)
{
    memset(m, 0, sizeof(*m));
    model_config_default(&m->c);
    m->c.layers = layers;
    m->c.H = H;
    m->c.d_model = d;
    m->c.causal = causal;
    m->c.keep_scores = true;
    assert_int_equal(model_weights_toy(&m->c, &m->w), AV_OK);
    assert_int_equal(
        model_run(&m->c, &m->w, text, strlen(text), cross, cross ? strlen(cross) : 0, &m->r),
        AV_OK);
}

static void free_run(Run *m)
{
    model_result_free(&m->r);
    model_weights_free(&m->w);
}

/* path = dir/name */
static const char *in(const char *dir, const char *name)
{
    static char path[2][512];
    static int k;
    k ^= 1;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    return path[k];
}

/* Remove dir/layerN/ folders a multi-layer dump made (the teardown removes files only). */
static void remove_layers(const char *dir, int L)
{
    const char *names[] = {"Q.npy",      "K.npy",       "V.npy",
                           "scores.npy", "weights.npy", "layer_output.npy"};
    for (int l = 1; l <= L; l++) {
        char sub[256], p[300];
        snprintf(sub, sizeof sub, "%s/layer%d", dir, l);
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
            snprintf(p, sizeof p, "%s/%s", sub, names[k]);
            unlink(p);
        }
        rmdir(sub);
    }
}

/* The whole bytes of a file. */
static char *slurp(const char *path, size_t *len)
{
    char *data;
    assert_int_equal(file_read_all(path, (size_t)1 << 30, &data, len), AV_OK);
    return data;
}

static void assert_same_file(const char *a, const char *b)
{
    size_t la, lb;
    char *da = slurp(a, &la), *db = slurp(b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(da, db, la);
    free(da);
    free(db);
}

/* Rollout of r in double, straight from DESIGN.md, into out (n, n). */
static void rollout_ref(const ModelResult *r, double *out)
{
    int n = r->shape.n_q, H = r->shape.H;
    double *hat = malloc(sizeof(double) * n * n), *tmp = malloc(sizeof(double) * n * n);
    for (int l = 0; l < r->L; l++) {
        for (int i = 0; i < n; i++) {
            double sum = 0;
            for (int j = 0; j < n; j++) {
                double m = 0;
                for (int h = 0; h < H; h++)
                    m += r->layer[l].ab.P[((size_t)h * n + i) * n + j];
                hat[i * n + j] = 0.5 * m / H + (i == j ? 0.5 : 0);
                sum += hat[i * n + j];
            }
            for (int j = 0; j < n; j++)
                hat[i * n + j] /= sum;
        }
        if (l == 0) {
            memcpy(out, hat, sizeof(double) * n * n);
            continue;
        }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int k = 0; k < n; k++)
                    s += hat[i * n + k] * out[k * n + j];
                tmp[i * n + j] = s;
            }
        memcpy(out, tmp, sizeof(double) * n * n);
    }
    free(hat);
    free(tmp);
}

static void test_dump_attention_rollout_norms(void **state)
{
    /* expect: with 2 layers, causal: attention.npy is (2, H, n, n) and bit for bit
       each layer's weights; rollout.npy equals a double rollout to 1e-6; norms.npy
       equals ||alpha * V_j,h W_O,h|| computed here vector by vector */
    Tmp *t = *state;
    Run m;
    run_model(&m, 2, 4, 16, true, "Anna saw the dog and she petted it .", NULL);
    const ModelResult *r = &m.r;
    int n = r->shape.n_q, H = 4, d = 16, d_k = 4;
    const char *which;
    assert_int_equal(dump_write_model(t->dir, r, &m.c, &m.w, &which), AV_OK);
    NpyArray a, ro, no;
    assert_int_equal(npy_read(in(t->dir, "attention.npy"), &a), AV_OK);
    assert_int_equal(a.ndim, 4);
    assert_int_equal(a.shape[0] * 1000 + a.shape[1] * 100 + a.shape[2], 2000 + 400 + (size_t)n);
    for (int l = 0; l < 2; l++)
        assert_memory_equal(a.data + (size_t)l * H * n * n, r->layer[l].ab.P,
                            sizeof(float) * H * n * n);
    assert_int_equal(npy_read(in(t->dir, "rollout.npy"), &ro), AV_OK);
    assert_int_equal(ro.ndim, 2);
    double *want = malloc(sizeof(double) * n * n);
    rollout_ref(r, want);
    for (int k = 0; k < n * n; k++)
        assert_float_equal(ro.data[k], want[k], 1e-6);
    assert_int_equal(npy_read(in(t->dir, "norms.npy"), &no), AV_OK);
    assert_int_equal(no.count, a.count);
    double worst = 0;
    for (int l = 0; l < 2; l++)
        for (int h = 0; h < H; h++)
            for (int j = 0; j < n; j++) {
                double f[16] = {0}, ss = 0;
                for (int c = 0; c < d; c++) {
                    for (int k = 0; k < d_k; k++)
                        f[c] += (double)r->layer[l].ab.V[j * d + h * d_k + k] *
                                m.w.layer[l].Wo[(h * d_k + k) * d + c];
                    ss += f[c] * f[c];
                }
                for (int i = 0; i < n; i++) {
                    size_t at = (((size_t)l * H + h) * n + i) * n + j;
                    double ref = a.data[at] * sqrt(ss), diff = fabs(no.data[at] - ref);
                    worst = diff > worst ? diff : worst;
                    if (j > i)
                        assert_true(no.data[at] == 0.0f); /* masked stays 0 */
                }
            }
    assert_true(worst < 1e-6);
    free(want);
    npy_free(&a);
    npy_free(&ro);
    npy_free(&no);
    remove_layers(t->dir, 2);
    free_run(&m);
}

static void test_dump_round_trip(void **state)
{
    /* expect: dump -> import (attention.npy, tokens.txt) -> dump gives byte-identical
       attention.npy, rollout.npy and tokens.txt; the imported rows are the weights'
       bits; the import is causal like the run */
    Tmp *t = *state;
    Run m;
    run_model(&m, 1, 2, 8, true, "the cat sat on the mat", NULL);
    const char *which;
    assert_int_equal(dump_write(t->dir, &m.r, &m.c, &which), AV_OK);
    char dir2[128];
    snprintf(dir2, sizeof dir2, "%s/again", t->dir);
    AttnImport im;
    assert_int_equal(attnimport_load(in(t->dir, "attention.npy"), in(t->dir, "tokens.txt"), NULL,
                                     &im, msg, sizeof msg),
                     AV_OK);
    assert_true(im.a.causal);
    assert_string_equal(im.a.warning, "");
    float buf[6];
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 6; i++)
            assert_memory_equal(attnfile_row(&im.a, 0, h, i, buf),
                                m.r.layer[0].ab.P + (h * 6 + i) * 6, sizeof buf);
    assert_int_equal(dump_write_import(dir2, &im, &which), AV_OK);
    assert_same_file(in(t->dir, "attention.npy"), in(dir2, "attention.npy"));
    assert_same_file(in(t->dir, "rollout.npy"), in(dir2, "rollout.npy"));
    assert_same_file(in(t->dir, "tokens.txt"), in(dir2, "tokens.txt"));
    attnimport_free(&im);
    unlink(in(dir2, "attention.npy"));
    unlink(in(dir2, "rollout.npy"));
    unlink(in(dir2, "tokens.txt"));
    rmdir(dir2);
    free_run(&m);
}

static void test_dump_import_f64_and_cross(void **state)
{
    /* expect: a float64 import dumps its values rounded to float32 (npy_read's
       numbers); a cross import writes key_tokens.txt and no rollout.npy */
    Tmp *t = *state;
    AttnImport im;
    const char *which;
    NpyArray want, got;
    assert_int_equal(attnimport_load(IMP "attn_causal_f64.npy", NULL, NULL, &im, msg, sizeof msg),
                     AV_OK);
    assert_int_equal(dump_write_import(t->dir, &im, &which), AV_OK);
    attnimport_free(&im);
    assert_int_equal(npy_read(IMP "attn_causal_f64.npy", &want), AV_OK);
    assert_int_equal(npy_read(in(t->dir, "attention.npy"), &got), AV_OK);
    assert_int_equal(got.count, want.count);
    assert_memory_equal(got.data, want.data, want.count * sizeof(float));
    npy_free(&want);
    npy_free(&got);
    assert_int_equal(npy_read(IMP "rollout_causal_f64.npy", &want), AV_OK);
    assert_int_equal(npy_read(in(t->dir, "rollout.npy"), &got), AV_OK);
    assert_floats_near(got.data, want.data, 36, 2e-6);
    npy_free(&want);
    npy_free(&got);
    unlink(in(t->dir, "rollout.npy"));
    assert_int_equal(attnimport_load(IMP "attn_cross.npy", IMP "tokens3.txt", IMP "keys5.json", &im,
                                     msg, sizeof msg),
                     AV_OK);
    assert_int_equal(dump_write_import(t->dir, &im, &which), AV_OK);
    attnimport_free(&im);
    assert_int_equal(access(in(t->dir, "rollout.npy"), F_OK), -1);
    size_t len;
    char *keys = slurp(in(t->dir, "key_tokens.txt"), &len);
    assert_string_equal(keys, "le\nchat\ns'est\nassis\n\xe2\x90\x89\n");
    free(keys);
    assert_int_equal(npy_read(in(t->dir, "attention.npy"), &got), AV_OK);
    assert_int_equal(got.shape[0] * 1000 + got.shape[1] * 100 + got.shape[2] * 10 + got.shape[3],
                     2235);
    npy_free(&got);
}

static void test_dump_cross_model(void **state)
{
    /* expect: attnviz's own cross-attention dumps attention.npy (1, H, n_q, n_k) and
       norms over the key tokens, but no rollout */
    Tmp *t = *state;
    Run m;
    run_model(&m, 1, 2, 8, false, "the cat sat", "le chat s'est assis");
    const char *which;
    assert_int_equal(dump_write_model(t->dir, &m.r, &m.c, &m.w, &which), AV_OK);
    NpyArray a, no;
    assert_int_equal(npy_read(in(t->dir, "attention.npy"), &a), AV_OK);
    assert_int_equal(a.shape[2], 3);
    assert_int_equal(a.shape[3], (size_t)m.r.shape.n_k);
    assert_memory_equal(a.data, m.r.layer[0].ab.P, a.count * sizeof(float));
    assert_int_equal(npy_read(in(t->dir, "norms.npy"), &no), AV_OK);
    assert_int_equal(no.count, a.count);
    assert_int_equal(access(in(t->dir, "rollout.npy"), F_OK), -1);
    npy_free(&a);
    npy_free(&no);
    free_run(&m);
}

static int only_files(const char *dir, int want)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int count = 0, hidden = 0;
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        count++;
        hidden += e->d_name[0] == '.';
    }
    if (d)
        closedir(d);
    return count == want && hidden == 0;
}

static void test_dump_failures_leave_nothing(void **state)
{
    /* expect: a streamed file into a read-only folder or onto a folder fails with
       AV_ERR_IO and leaves no temporary file; a dump under a regular file fails on
       the folder (which NULL) */
    Tmp *t = *state;
    AttnFile af;
    AttnSource src;
    assert_int_equal(attnfile_open(IMP "attn_l3h2n7.npy", &af, msg, sizeof msg), AV_OK);
    attnfile_source(&af, &src);
    if (geteuid() != 0) { /* root writes anywhere */
        chmod(t->dir, 0500);
        errno = 0;
        assert_int_equal(dump_source_npy(in(t->dir, "attention.npy"), &src), AV_ERR_IO);
        assert_int_equal(errno, EACCES);
        chmod(t->dir, 0700);
    }
    assert_true(only_files(t->dir, 0));
    assert_int_equal(dump_source_npy(in(t->dir, "a.npy"), &src), AV_OK);
    assert_true(only_files(t->dir, 1));
    assert_int_equal(dump_source_npy("/proc/version/a.npy", &src), AV_ERR_IO);
    /* the rename onto a folder fails after the data were written: the temporary goes */
    assert_int_equal(mkdir(in(t->dir, "b.npy"), 0700), 0);
    assert_int_equal(dump_source_npy(in(t->dir, "b.npy"), &src), AV_ERR_IO);
    assert_true(only_files(t->dir, 2));
    rmdir(in(t->dir, "b.npy"));
    attnfile_close(&af);
    AttnImport im;
    const char *which = "x";
    assert_int_equal(attnimport_load(IMP "attn_l3h2n7.npy", NULL, NULL, &im, msg, sizeof msg),
                     AV_OK);
    assert_int_equal(dump_write_import(in(t->dir, "a.npy"), &im, &which), AV_ERR_IO);
    assert_null(which);
    attnimport_free(&im);
}

static void test_dump_needs_a_model_output(void **state)
{
    /* expect: dump_write's codes: AV_OK; AV_ERR_NEEDS_MODEL for a run of the
     * weights alone (no output), with which NULL and nothing written; AV_ERR_IO
     * for a folder under a regular file (which NULL) */
    Tmp *t = *state;
    Run m;
    const char *which = "x";
    run_model(&m, 1, 2, 8, false, "the cat sat", NULL);
    assert_int_equal(dump_write(in(t->dir, "ok"), &m.r, &m.c, &which), AV_OK);
    assert_int_equal(dump_write("/proc/version/d", &m.r, &m.c, &which), AV_ERR_IO);
    assert_null(which);
    m.c.weights_only = true;
    assert_int_equal(model_run(&m.c, &m.w, "the cat", 7, NULL, 0, &m.r), AV_OK);
    assert_null(m.r.out);
    which = "x";
    assert_int_equal(dump_write(in(t->dir, "w"), &m.r, &m.c, &which), AV_ERR_NEEDS_MODEL);
    assert_null(which);
    struct stat st;
    assert_int_not_equal(stat(in(t->dir, "w"), &st), 0);
    free_run(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_dump_attention_rollout_norms, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_dump_round_trip, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_dump_import_f64_and_cross, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_dump_cross_model, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_dump_failures_leave_nothing, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_dump_needs_a_model_output, tmp_setup, tmp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
