/* test_needs_model.c - the error codes the renderers list (issue 23's
 * contracts): export_write, trace_write and pipeline_compute each provoked
 * into every code their comments give but AV_ERR_NOMEM: AV_OK on a model's
 * run, AV_ERR_CONFIG for a token, head or layer out of range,
 * AV_ERR_TOO_LARGE for a lazy result, AV_ERR_NEEDS_MODEL for attention with
 * no vectors (imported, or a weights_only run), AV_ERR_IO on a full device.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/model.h"
#include "render/export.h"
#include "render/pipeline.h"
#include "render/trace.h"

#define TEXT "the cat sat on the mat"

typedef struct {
    ModelConfig c, ic;
    ModelWeights w;
    ModelResult run, lazy, import, wonly;
    AttnSource src;
} Results;

static int setup(void **state)
{
    Results *t = calloc(1, sizeof *t);
    assert_non_null(t);
    model_config_default(&t->c);
    assert_int_equal(model_weights_toy(&t->c, &t->w), AV_OK);
    assert_int_equal(model_run(&t->c, &t->w, TEXT, strlen(TEXT), NULL, 0, &t->run), AV_OK);
    ModelConfig c = t->c;
    c.weights_budget = 1; /* every weight computed on demand */
    assert_int_equal(model_run(&c, &t->w, TEXT, strlen(TEXT), NULL, 0, &t->lazy), AV_OK);
    assert_true(t->lazy.lazy);
    c = t->c;
    c.weights_only = true;
    assert_int_equal(model_run(&c, &t->w, TEXT, strlen(TEXT), NULL, 0, &t->wonly), AV_OK);
    model_source(&t->run, &t->src);
    model_config_import(&t->ic, 1, t->c.H, false);
    assert_int_equal(model_result_import(&t->import, &t->ic, &t->src, NULL, &t->run.tokens, NULL),
                     AV_OK);
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    Results *t = *state;
    model_result_free(&t->import);
    model_result_free(&t->run), model_result_free(&t->lazy), model_result_free(&t->wonly);
    model_weights_free(&t->w);
    free(t);
    return 0;
}

static int export_to(FILE *f, const ModelResult *r, const ModelConfig *c, ExportFormat fmt,
                     int token)
{
    ExportOptions o = {.format = fmt, .head = 0, .layer = 0, .token = token, .width = 100};
    return export_write(f, r, c, &o);
}

static void test_export_write_codes(void **state)
{
    Results *t = *state;
    FILE *null = fopen("/dev/null", "w"), *full = fopen("/dev/full", "w");
    assert_non_null(null), assert_non_null(full);
    setvbuf(full, NULL, _IONBF, 0); /* each write fails at once (ENOSPC) */
    assert_int_equal(export_to(null, &t->run, &t->c, EXPORT_TRACE, 1), AV_OK);
    assert_int_equal(export_to(null, &t->run, &t->c, EXPORT_PIPELINE, 1), AV_OK);
    assert_int_equal(export_to(null, &t->run, &t->c, EXPORT_TRACE, 99), AV_ERR_CONFIG);
    assert_int_equal(export_to(null, &t->lazy, &t->c, EXPORT_CSV, 0), AV_ERR_TOO_LARGE);
    assert_int_equal(export_to(null, &t->import, &t->ic, EXPORT_TRACE, 1), AV_ERR_NEEDS_MODEL);
    assert_int_equal(export_to(null, &t->import, &t->ic, EXPORT_PIPELINE, 1), AV_ERR_NEEDS_MODEL);
    assert_int_equal(export_to(null, &t->import, &t->ic, EXPORT_CSV, 0), AV_OK); /* weights */
    assert_int_equal(export_to(full, &t->run, &t->c, EXPORT_CSV, 0), AV_ERR_IO);
    fclose(null), fclose(full);
}

static void test_trace_write_codes(void **state)
{
    Results *t = *state;
    FILE *null = fopen("/dev/null", "w"), *full = fopen("/dev/full", "w");
    assert_non_null(null), assert_non_null(full);
    setvbuf(full, NULL, _IONBF, 0);
    assert_int_equal(trace_write(null, &t->run, &t->c, 0, 1, 2), AV_OK);
    assert_int_equal(trace_write(null, &t->run, &t->c, 0, 1, 6), AV_ERR_CONFIG); /* 6 tokens */
    assert_int_equal(trace_write(null, &t->run, &t->c, 1, 0, 0), AV_ERR_CONFIG); /* 1 layer */
    assert_int_equal(trace_write(null, &t->import, &t->ic, 0, 0, 0), AV_ERR_NEEDS_MODEL);
    assert_int_equal(trace_write(null, &t->wonly, &t->c, 0, 0, 0), AV_ERR_NEEDS_MODEL);
    assert_int_equal(trace_write(full, &t->run, &t->c, 0, 0, 0), AV_ERR_IO);
    fclose(null), fclose(full);
}

static void test_pipeline_compute_codes(void **state)
{
    Results *t = *state;
    PipelineData d;
    assert_int_equal(pipeline_compute(&t->run, 0, 0, &d), AV_OK);
    assert_int_equal(d.n_q, 6);
    pipeline_free(&d);
    assert_int_equal(pipeline_compute(&t->run, 0, t->c.H, &d), AV_ERR_CONFIG);
    pipeline_free(&d);
    assert_int_equal(pipeline_compute(&t->lazy, 0, 0, &d), AV_ERR_TOO_LARGE);
    pipeline_free(&d);
    assert_int_equal(pipeline_compute(&t->import, 0, 0, &d), AV_ERR_NEEDS_MODEL);
    pipeline_free(&d);
    assert_int_equal(pipeline_compute(&t->wonly, 0, 0, &d), AV_ERR_NEEDS_MODEL);
    pipeline_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_write_codes),
        cmocka_unit_test(test_trace_write_codes),
        cmocka_unit_test(test_pipeline_compute_codes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
