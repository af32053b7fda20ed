/* test_trainview.c - the live training view's state without a terminal:
 * slices give the same run as single steps, the history's samples and their
 * mean losses (also after the stride doubles), the 0.5 crossings against the
 * history they came from, the probe's weights, pause, finish, speed, reset
 * and save to a new folder that is never reused. */
#include "test_common.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/trainkeys.h"
#include "app/trainview.h"
#include "core/av.h"

/* A small induction model: quick enough for many steps in a test. */
static void small_config(TrainViewConfig *c)
{
    trainview_config("induction", c);
    c->layers = 1, c->heads = 2, c->d_model = 8, c->context = 8, c->cfg.batch = 4;
}

static void init_ok(TrainView *tv, const TrainViewConfig *c)
{
    char why[160] = "";
    int err = trainview_init(tv, c, NULL, 0, why, sizeof why);
    if (err)
        print_error("trainview_init: %s\n", why);
    assert_int_equal(err, AV_OK);
}

static void test_trainview_config_induction_is_the_issue_model(void **state)
{
    (void)state;
    TrainViewConfig c;
    trainview_config("induction", &c);
    /* 2 layers x 2 heads, d_model 32, context 32, batch 16, lr 1e-2 */
    assert_int_equal(c.layers, 2);
    assert_int_equal(c.heads, 2);
    assert_int_equal(c.d_model, 32);
    assert_int_equal(c.context, 32);
    assert_int_equal(c.cfg.batch, 16);
    assert_float_equal(c.cfg.lr, 1e-2f, 1e-9f);
    assert_int_equal(c.steps, 400);
    /* text: smaller than the batch trainer's, so that a step fits a frame */
    trainview_config("text", &c);
    assert_int_equal(c.layers, 2);
    assert_int_equal(c.context, 32);
    assert_true(c.layernorm && c.mlp > 0);
}

static void test_trainview_init_samples_step_zero_and_probe(void **state)
{
    (void)state;
    TrainViewConfig c;
    trainview_config("induction", &c);
    TrainView tv;
    init_ok(&tv, &c);
    /* one sample at step 0, its loss above ln(26) = 3.26 (a fresh model is no
     * better than chance) */
    assert_int_equal(tv.n, 1);
    assert_int_equal(tv.hist_step[0], 0);
    assert_true(tv.hist_loss[0] > logf(26.0f) - 0.2f);
    assert_true(tv.has_kind[SCORE_INDUCTION] && tv.has_kind[SCORE_PREV]);
    assert_false(tv.has_kind[SCORE_ANTECEDENT]);
    /* the probe: 5 distinct letters repeated, 24 tokens */
    assert_int_equal(tv.probe_n, TV_PROBE_MAX);
    for (int i = 5; i < tv.probe_n; i++)
        assert_int_equal(tv.probe[i], tv.probe[i - 5]);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < i; j++)
            assert_int_not_equal(tv.probe[i], tv.probe[j]);
    assert_int_equal(tv.probe_label[0][0], 'a' + tv.probe[0]);
    /* every head's probe weights: causal rows that sum to 1 */
    for (int l = 0; l < tv.L; l++)
        for (int h = 0; h < tv.H; h++) {
            const float *P = trainview_probe_P(&tv, l, h);
            for (int i = 0; i < tv.probe_n; i++) {
                double sum = 0;
                for (int j = 0; j < tv.probe_n; j++) {
                    if (j > i)
                        assert_true(P[i * tv.probe_n + j] == 0.0f);
                    sum += P[i * tv.probe_n + j];
                }
                assert_true(fabs(sum - 1.0) < 1e-5);
            }
        }
    trainview_free(&tv);
}

static void test_trainview_slices_equal_single_steps(void **state)
{
    (void)state;
    TrainViewConfig c;
    small_config(&c);
    TrainView a, b;
    init_ok(&a, &c);
    init_ok(&b, &c);
    for (int k = 0; k < 20; k++)
        assert_int_equal(trainview_step(&a), AV_OK);
    int done = 0;
    while (done < 20)
        done += trainview_run(&b, 20 - done < 7 ? 20 - done : 7, 0);
    assert_int_equal(done, 20);
    assert_int_equal(a.tr.step, 20);
    assert_int_equal(b.tr.step, 20);
    assert_int_equal(a.n, 21);
    assert_int_equal(b.n, 21);
    assert_memory_equal(a.tr.net.params, b.tr.net.params, a.tr.net.layout.total * sizeof(float));
    assert_memory_equal(a.hist_loss, b.hist_loss, 21 * sizeof(float));
    assert_memory_equal(a.hist_score, b.hist_score,
                        21 * (size_t)a.L * a.H * SCORE_KINDS * sizeof(float));
    assert_memory_equal(a.probe_P, b.probe_P,
                        (size_t)a.L * a.H * a.probe_n * a.probe_n * sizeof(float));
    /* step 0's loss is the first step's, measured before its update */
    TrainView c1;
    init_ok(&c1, &c);
    assert_int_equal(trainview_step(&c1), AV_OK);
    assert_float_equal(c1.hist_loss[0], c1.hist_loss[1], 0.0f);
    trainview_free(&c1);
    /* each sample's loss is that step's training loss (stride 1) */
    assert_float_equal(a.hist_loss[20], (float)a.tr.loss, 1e-6f);
    trainview_free(&a);
    trainview_free(&b);
}

static void test_trainview_run_stops_paused_budget_and_finish(void **state)
{
    (void)state;
    TrainViewConfig c;
    small_config(&c);
    c.steps = 5;
    TrainView tv;
    init_ok(&tv, &c);
    trainview_toggle_pause(&tv);
    /* paused: nothing runs */
    assert_int_equal(trainview_run(&tv, 10, 0), 0);
    trainview_toggle_pause(&tv);
    /* a budget of a microsecond still makes one step */
    assert_int_equal(trainview_run(&tv, 1000, 1e-3), 1);
    /* the end: paused at 5 steps, said so */
    assert_int_equal(trainview_run(&tv, 1000, 0), 4);
    assert_int_equal(tv.tr.step, 5);
    assert_true(tv.paused && tv.finished);
    assert_non_null(strstr(tv.msg, "5 steps done"));
    /* resumed, it trains on and does not stop again */
    trainview_toggle_pause(&tv);
    assert_int_equal(trainview_run(&tv, 3, 0), 3);
    assert_int_equal(trainview_run(&tv, 3, 0), 3);
    assert_int_equal(tv.tr.step, 11);
    assert_false(tv.paused);
    trainview_free(&tv);
}

static void test_trainview_history_doubles_stride_with_mean_losses(void **state)
{
    (void)state;
    TrainViewConfig c;
    small_config(&c);
    TrainView tv, ref;
    init_ok(&tv, &c);
    init_ok(&ref, &c);
    tv.cap = 8; /* the arrays hold TV_HIST_CAP: a smaller cap is safe */
    for (int k = 0; k < 40; k++) {
        assert_int_equal(trainview_step(&tv), AV_OK);
        assert_int_equal(trainview_step(&ref), AV_OK);
    }
    /* 8 samples fill the history at step 7; the stride doubles to 2 at step
     * 8, to 4 at 16 and to 8 at 32: samples at 0, 8, ..., 40 */
    assert_int_equal(tv.stride, 8);
    assert_int_equal(tv.n, 6);
    for (int k = 0; k < tv.n; k++) {
        assert_int_equal(tv.hist_step[k], 8 * k);
        /* the scores are those measured at that step */
        assert_memory_equal(tv.hist_score + (long)k * tv.L * tv.H * SCORE_KINDS,
                            ref.hist_score + (long)8 * k * ref.L * ref.H * SCORE_KINDS,
                            (size_t)tv.L * tv.H * SCORE_KINDS * sizeof(float));
    }
    assert_float_equal(tv.hist_loss[0], ref.hist_loss[0], 0.0f);
    /* each later loss is the mean of the 8 steps' losses it covers */
    for (int k = 1; k < tv.n; k++) {
        double sum = 0;
        for (int s = 8 * (k - 1) + 1; s <= 8 * k; s++)
            sum += ref.hist_loss[s];
        assert_float_equal(tv.hist_loss[k], (float)(sum / 8), 1e-5f);
    }
    trainview_free(&tv);
    trainview_free(&ref);
}

static void test_trainview_induction_head_forms_and_is_marked(void **state)
{
    (void)state;
    TrainViewConfig c;
    trainview_config("induction", &c);
    TrainView tv;
    init_ok(&tv, &c);
    while (!tv.finished)
        assert_true(trainview_run(&tv, 50, 0) >= 0);
    assert_int_equal(tv.tr.step, 400);
    /* an induction head in layer 2 by step 400 (the issue: 200-250 steps) */
    const TrainEvent *ind = NULL;
    for (int k = 0; k < tv.n_events && !ind; k++)
        if (tv.events[k].kind == SCORE_INDUCTION)
            ind = &tv.events[k];
    assert_non_null(ind);
    assert_int_equal(ind->layer, 1);
    /* the event is the first sample of the history above 0.5 */
    int first = -1;
    for (int k = 0; k < tv.n && first < 0; k++)
        if (trainview_score(&tv, k, ind->layer, ind->head, SCORE_INDUCTION) > TV_THRESHOLD)
            first = k;
    assert_true(first > 0);
    assert_int_equal(tv.hist_step[first], ind->step);
    assert_float_equal(ind->value,
                       trainview_score(&tv, first, ind->layer, ind->head, SCORE_INDUCTION), 0);
    /* every head's crossing of each kind is recorded once */
    for (int a = 0; a < tv.n_events; a++)
        for (int b = a + 1; b < tv.n_events; b++)
            assert_false(tv.events[a].layer == tv.events[b].layer &&
                         tv.events[a].head == tv.events[b].head &&
                         tv.events[a].kind == tv.events[b].kind);
    /* the loss fell from about 3.3 */
    assert_true(tv.hist_loss[tv.n - 1] < 1.0f);
    print_message("induction head: layer %d head %d at step %ld (%.2f)\n", ind->layer + 1,
                  ind->head + 1, ind->step, (double)ind->value);
    trainview_free(&tv);
}

static void test_trainview_event_text(void **state)
{
    (void)state;
    char buf[160];
    TrainEvent e = {.step = 212, .layer = 1, .head = 0, .kind = SCORE_INDUCTION, .value = 0.53f};
    trainview_event_text(&e, buf, sizeof buf);
    assert_string_equal(buf, "step 212: layer 2 head 1 became an induction head (0.53)");
    e.kind = SCORE_PREV, e.layer = 0, e.head = 1, e.step = 90, e.value = 0.5012f;
    trainview_event_text(&e, buf, sizeof buf);
    assert_string_equal(buf, "step 90: layer 1 head 2 became a previous-token head (0.50)");
}

static void test_trainview_speed_clamps(void **state)
{
    (void)state;
    TrainViewConfig c;
    small_config(&c);
    TrainView tv;
    init_ok(&tv, &c);
    int prev = trainview_steps_per_frame(&tv);
    for (int k = 0; k < TV_SPEEDS + 2; k++) {
        trainview_speed(&tv, 1);
        assert_true(trainview_steps_per_frame(&tv) >= prev);
        prev = trainview_steps_per_frame(&tv);
    }
    assert_int_equal(tv.speed, TV_SPEEDS - 1);
    for (int k = 0; k < TV_SPEEDS + 2; k++)
        trainview_speed(&tv, -1);
    assert_int_equal(tv.speed, 0);
    assert_int_equal(trainview_steps_per_frame(&tv), 1);
    trainview_free(&tv);
}

static void test_trainview_reset_is_a_fresh_start(void **state)
{
    (void)state;
    TrainViewConfig c;
    small_config(&c);
    TrainView tv, fresh;
    init_ok(&tv, &c);
    for (int k = 0; k < 10; k++)
        assert_int_equal(trainview_step(&tv), AV_OK);
    trainview_speed(&tv, 1);
    assert_int_equal(trainview_reset(&tv, 7), AV_OK);
    c.cfg.seed = 7;
    init_ok(&fresh, &c);
    /* the same as a fresh start with seed 7; the speed is kept */
    assert_int_equal(tv.tr.step, 0);
    assert_int_equal(tv.n, 1);
    assert_int_equal(tv.n_events, 0);
    assert_int_equal(tv.speed, fresh.speed + 1);
    assert_memory_equal(tv.tr.net.params, fresh.tr.net.params,
                        tv.tr.net.layout.total * sizeof(float));
    assert_memory_equal(tv.probe, fresh.probe, sizeof tv.probe);
    assert_non_null(strstr(tv.msg, "seed 7"));
    trainview_free(&tv);
    trainview_free(&fresh);
}

/* The view's keys as actions: each does what its function does, the reset
 * moves the seed on but remembers the one the run was opened with, and an
 * action of the interface's changes nothing. */
static void test_trainview_apply_actions(void **state)
{
    (void)state;
    TrainViewConfig c;
    small_config(&c);
    TrainView tv;
    init_ok(&tv, &c);
    bool paused = tv.paused;
    assert_int_equal(trainview_apply(&tv, ACT_TRAIN_PAUSE), AV_OK);
    assert_true(tv.paused == !paused);
    assert_int_equal(trainview_apply(&tv, ACT_TRAIN_PAUSE), AV_OK);
    assert_true(tv.paused == paused);
    int speed = tv.speed;
    assert_int_equal(trainview_apply(&tv, ACT_TRAIN_FASTER), AV_OK);
    assert_int_equal(tv.speed, speed + 1);
    assert_int_equal(trainview_apply(&tv, ACT_TRAIN_SLOWER), AV_OK);
    assert_int_equal(tv.speed, speed);
    tv.paused = false;
    assert_int_equal(trainview_apply(&tv, ACT_TRAIN_STEP), AV_OK);
    assert_int_equal(tv.tr.step, 1);
    assert_true(tv.paused);
    assert_int_equal(trainview_apply(&tv, ACT_TRAIN_STEP), AV_OK);
    assert_int_equal(tv.tr.step, 2);
    /* the interface's actions and save (the caller's) leave the run alone */
    const Action others[] = {ACT_NONE, ACT_TRAIN_SAVE, ACT_MASK, ACT_QUIT, ACT_ESCAPE, ACT_TRAIN};
    for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
        assert_int_equal(trainview_apply(&tv, others[k]), AV_OK);
        assert_int_equal(tv.tr.step, 2);
        assert_true(tv.paused);
        assert_int_equal(tv.speed, speed);
    }
    assert_int_equal(trainview_apply(&tv, ACT_TRAIN_RESET), AV_OK);
    assert_int_equal(tv.tr.step, 0);
    assert_true(tv.conf.cfg.seed == c.cfg.seed + 1);
    assert_true(tv.seed0 == c.cfg.seed);
    trainview_free(&tv);
}

/* The probe's induction keys: the induction probe repeats PROBE_PERIOD (5)
 * letters, so from the second copy on each query's key is 4 to its left;
 * on any probe the key follows the latest earlier copy of the token. */
static void test_trainview_probe_induction_keys(void **state)
{
    (void)state;
    TrainViewConfig c;
    trainview_config("induction", &c);
    TrainView tv;
    init_ok(&tv, &c);
    assert_int_equal(tv.probe_n, TV_PROBE_MAX);
    for (int i = 0; i < tv.probe_n; i++)
        assert_int_equal(tv.probe_ind[i], i < 5 ? -1 : i - 4);
    trainview_free(&tv);
    trainview_config("copy", &c);
    init_ok(&tv, &c);
    for (int i = 0; i < tv.probe_n; i++) {
        int j = tv.probe_ind[i];
        assert_true(j >= -1 && j <= i);
        for (int k = (j < 0 ? 0 : j); k < i; k++) /* no copy after the one it follows */
            assert_int_not_equal(tv.probe[k], tv.probe[i]);
        if (j >= 1)
            assert_int_equal(tv.probe[j - 1], tv.probe[i]);
    }
    trainview_free(&tv);
}

static void test_trainview_text_labels_are_printable(void **state)
{
    (void)state;
    TrainViewConfig c;
    trainview_config("text", &c);
    c.layers = 1, c.heads = 1, c.d_model = 8, c.context = 16, c.mlp = 0, c.layernorm = false;
    const char *text = "ab cd\nab cd\nab cd\nab cd\nab cd\nab cd\n";
    TrainView tv;
    char why[160] = "";
    assert_int_equal(trainview_init(&tv, &c, text, strlen(text), why, sizeof why), AV_OK);
    assert_int_equal(tv.probe_n, 16);
    /* a newline is drawn as its Control Picture, a space as the open box */
    int nl = 0, sp = 0;
    for (int i = 0; i < tv.probe_n; i++) {
        nl += strcmp(tv.probe_label[i], "\xe2\x90\x8a") == 0;
        sp += strcmp(tv.probe_label[i], "\xe2\x90\xa3") == 0;
        assert_true((unsigned char)tv.probe_label[i][0] >= 0x20);
    }
    assert_true(nl >= 2 && sp >= 2);
    trainview_free(&tv);
}

static void remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        char p[512];
        while (d && (e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(p, sizeof p, "%s/%s", path, e->d_name);
                remove_tree(p);
            }
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void test_trainview_save_never_reuses_a_folder(void **state)
{
    (void)state;
    char dir[] = "/tmp/attnviz_tv.XXXXXX", p1[256], p2[256], f[300], bad[300];
    assert_non_null(mkdtemp(dir));
    TrainViewConfig c;
    small_config(&c);
    TrainView tv;
    init_ok(&tv, &c);
    assert_int_equal(trainview_step(&tv), AV_OK);
    struct tm tm = {.tm_year = 126,
                    .tm_mon = 10,
                    .tm_mday = 23,
                    .tm_hour = 21,
                    .tm_min = 5,
                    .tm_sec = 9,
                    .tm_isdst = -1};
    time_t t = mktime(&tm);
    assert_int_equal(trainview_save(&tv, dir, t, p1, sizeof p1), AV_OK);
    assert_non_null(strstr(p1, "/attnviz-model-20261123-210509"));
    assert_non_null(strstr(tv.msg, "saved "));
    snprintf(f, sizeof f, "%s/model.json", p1);
    assert_int_equal(access(f, R_OK), 0);
    snprintf(f, sizeof f, "%s/heads.txt", p1);
    assert_int_equal(access(f, R_OK), 0);
    /* the same second again: a new folder beside it */
    assert_int_equal(trainview_save(&tv, dir, t, p2, sizeof p2), AV_OK);
    assert_non_null(strstr(p2, "/attnviz-model-20261123-210509-2"));
    /* a parent that does not exist: an error, said in the message */
    snprintf(bad, sizeof bad, "%s/missing", dir);
    assert_int_equal(trainview_save(&tv, bad, t, p2, sizeof p2), AV_ERR_IO);
    assert_non_null(strstr(tv.msg, "save failed"));
    trainview_free(&tv);
    remove_tree(dir);
}

static void test_trainview_unknown_task_says_why(void **state)
{
    (void)state;
    TrainViewConfig c;
    trainview_config("juggling", &c);
    TrainView tv;
    char why[160] = "";
    assert_int_equal(trainview_init(&tv, &c, NULL, 0, why, sizeof why), AV_ERR_CONFIG);
    assert_non_null(strstr(why, "unknown task 'juggling'"));
    trainview_free(&tv); /* a failed init leaves a zeroed state */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trainview_config_induction_is_the_issue_model),
        cmocka_unit_test(test_trainview_init_samples_step_zero_and_probe),
        cmocka_unit_test(test_trainview_slices_equal_single_steps),
        cmocka_unit_test(test_trainview_run_stops_paused_budget_and_finish),
        cmocka_unit_test(test_trainview_history_doubles_stride_with_mean_losses),
        cmocka_unit_test(test_trainview_induction_head_forms_and_is_marked),
        cmocka_unit_test(test_trainview_event_text),
        cmocka_unit_test(test_trainview_speed_clamps),
        cmocka_unit_test(test_trainview_reset_is_a_fresh_start),
        cmocka_unit_test(test_trainview_apply_actions),
        cmocka_unit_test(test_trainview_probe_induction_keys),
        cmocka_unit_test(test_trainview_text_labels_are_printable),
        cmocka_unit_test(test_trainview_save_never_reuses_a_folder),
        cmocka_unit_test(test_trainview_unknown_task_says_why),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
