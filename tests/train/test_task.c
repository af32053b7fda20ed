/* test_task.c - the training tasks' batches: what each sequence is, which
 * targets count, and that a batch depends on (seed, step) only.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/fileio.h"
#include "train/task.h"

static Task make(const char *name, const char *data)
{
    Task t;
    char why[256];
    assert_int_equal(task_init(&t, name, data, data ? strlen(data) : 0, why, sizeof why), AV_OK);
    return t;
}

/* Induction: each sequence repeats a segment of 4..12 distinct letters, the
 * period varies between sequences, and only targets after the first period count. */
static void test_task_induction(void **state)
{
    (void)state;
    Task t = make("induction", NULL);
    Batch b;
    assert_int_equal(t.V, 26);
    assert_int_equal(task_batch_init(&b, &t, 64, 32), AV_OK);
    task_batch(&t, 1, 0, &b);
    int seen[13] = {0};
    for (int q = 0; q < b.B; q++) {
        const int *s = b.tok + q * 32;
        int P = 1;
        while (P < 32 && s[P] != s[0])
            P++;
        assert_true(P >= 4 && P <= 12);
        seen[P] = 1;
        for (int i = 0; i < 32; i++) {
            assert_int_equal(s[i], s[i % P]);
            assert_int_equal(b.tgt[q * 32 + i], s[(i + 1) % P]);
            assert_float_equal(b.mask[q * 32 + i], i + 1 >= P ? 1.0f : 0.0f, 0);
        }
        for (int i = 0; i < P; i++)
            for (int j = 0; j < i; j++)
                assert_int_not_equal(s[i], s[j]);
    }
    int periods = 0;
    for (int P = 4; P <= 12; P++)
        periods += seen[P];
    assert_true(periods >= 6);
    task_batch_free(&b);
    task_free(&t);
}

/* The same (seed, step) gives the same batch; another step another one. */
static void test_task_deterministic(void **state)
{
    (void)state;
    Task t = make("reverse", NULL);
    Batch a, b;
    assert_int_equal(task_batch_init(&a, &t, 4, 40), AV_OK);
    assert_int_equal(task_batch_init(&b, &t, 4, 40), AV_OK);
    task_batch(&t, 9, 5, &a);
    task_batch(&t, 9, 4, &b);
    task_batch(&t, 9, 5, &b);
    assert_memory_equal(a.tok, b.tok, 160 * sizeof(int));
    assert_memory_equal(a.mask, b.mask, 160 * sizeof(float));
    task_batch(&t, 9, 6, &b);
    assert_true(memcmp(a.tok, b.tok, 160 * sizeof(int)) != 0);
    task_batch_free(&a);
    task_batch_free(&b);
    task_free(&t);
}

/* copy / reverse / sort: every whole example's answer is right, and the
 * mask covers exactly the answer and its '.'. */
static void check_seq2seq(const char *name, int kind)
{
    Task t = make(name, NULL);
    Batch b;
    const int n = 64, sep = t.V - 1;
    assert_string_equal(t.vocab[0], ".");
    assert_string_equal(t.vocab[sep], "|");
    assert_int_equal(task_batch_init(&b, &t, 8, n), AV_OK);
    task_batch(&t, 3, 1, &b);
    int examples = 0;
    for (int q = 0; q < b.B; q++) {
        const int *s = b.tok + q * n;
        for (int i = 0; i < n; i++) { /* an example starts at 0 and after each '.' */
            if (i > 0 && s[i - 1] != 0)
                continue;
            int L = 0;
            while (i + L < n && s[i + L] != sep)
                L++;
            if (i + 2 * L + 1 >= n)
                break;
            int x[16], y[16];
            for (int k = 0; k < L; k++)
                x[k] = s[i + k], y[k] = s[i + L + 1 + k];
            for (int k = 0; k < L; k++) {
                int want = kind == 1 ? x[L - 1 - k] : x[k];
                if (kind == 2) /* y sorted, and a permutation of x */
                    assert_true(k == 0 || y[k - 1] <= y[k]);
                else
                    assert_int_equal(y[k], want);
                /* the answer's tokens are targets of the previous position */
                assert_float_equal(b.mask[q * n + i + L + k], 1.0f, 0);
            }
            int sx = 0, sy = 0;
            for (int k = 0; k < L; k++)
                sx += x[k] * x[k], sy += y[k] * y[k];
            assert_int_equal(sx, sy);
            assert_float_equal(b.mask[q * n + i], 0.0f, 0);
            examples++;
        }
    }
    assert_true(examples > 10);
    task_batch_free(&b);
    task_free(&t);
}

static void test_task_copy(void **state)
{
    (void)state;
    check_seq2seq("copy", 0);
    check_seq2seq("reverse", 1);
    check_seq2seq("sort", 2);
    check_seq2seq("sort-digits", 2);
}

/* text: the vocabulary is the sorted distinct code points; ids map back. */
static void test_task_text(void **state)
{
    (void)state;
    const char *text = "héllo wörld, héllo 日本!";
    Task t = make("text", text);
    for (int i = 1; i < t.V; i++)
        assert_true(strcmp(t.vocab[i - 1], t.vocab[i]) < 0);
    assert_int_equal(t.text_len, 22);
    char back[64] = "";
    for (long k = 0; k < t.text_len; k++)
        strcat(back, t.vocab[t.text[k]]);
    assert_string_equal(back, text);
    Batch b;
    assert_int_equal(task_batch_init(&b, &t, 3, 40), AV_OK); /* longer than the text */
    task_batch(&t, 1, 0, &b);
    for (int r = 0; r < 3 * 40; r++)
        assert_true(b.tok[r] >= 0 && b.tok[r] < t.V);
    task_batch_free(&b);
    task_free(&t);
    Task bad;
    char why[256];
    assert_int_equal(task_init(&bad, "text", "a\xff", 2, why, sizeof why), AV_ERR_UTF8);
    assert_int_equal(task_init(&bad, "text", "", 0, why, sizeof why), AV_ERR_EMPTY);
    assert_int_equal(task_init(&bad, "nonsense", NULL, 0, why, sizeof why), AV_ERR_CONFIG);
    assert_non_null(strstr(why, "nonsense"));
    assert_int_equal(task_init(&bad, "induction-digits", NULL, 0, why, sizeof why), AV_ERR_CONFIG);
}

/* grammar: each pronoun's antecedent is the one noun of its class, and the
 * word after the pronoun is that noun's action in its number. */
static void test_task_grammar(void **state)
{
    (void)state;
    char *rules;
    size_t len;
    assert_int_equal(file_read_all("assets/grammar/grammar.txt", 1 << 20, &rules, &len), 0);
    assert_string_equal(task_grammar_rules(), rules); /* the built-in copy is the file */
    Task t = make("grammar", rules);
    free(rules);
    assert_int_equal(t.tokenizer, MODEL_TOK_WORDS);
    const int he = task_token_id(&t, "he"), she = task_token_id(&t, "she"),
              they = task_token_id(&t, "they");
    const int kings = task_token_id(&t, "kings"), queen = task_token_id(&t, "queen");
    assert_true(he >= 0 && she >= 0 && they >= 0 && kings >= 0 && queen >= 0);
    Batch b;
    const int n = 36;
    assert_int_equal(task_batch_init(&b, &t, 16, n), AV_OK);
    task_batch(&t, 2, 0, &b);
    int pairs = 0;
    for (int q = 0; q < b.B; q++) {
        const int *s = b.tok + q * n, *pr = b.pairs + 2 * q * n;
        for (int k = 0; k < n && pr[2 * k] >= 0; k++, pairs++) {
            int p = pr[2 * k], a = pr[2 * k + 1], pron = s[p], noun = s[a];
            assert_true(a < p && p - a <= 8);
            assert_true(pron == he || pron == she || pron == they);
            assert_float_equal(b.metric[q * n + p], 1.0f, 0);
            const char *act = t.vocab[b.tgt[q * n + p]];
            if (noun == kings) /* a plural king rules as "they rule" */
                assert_true(pron == they && strcmp(act, "rule") == 0);
            if (noun == queen)
                assert_true(pron == she && strcmp(act, "reigns") == 0);
            /* the other noun of the sentence takes another pronoun */
            int other = a == p - 5 ? s[p - 2] : s[p - 5];
            assert_int_not_equal(other, noun);
        }
    }
    assert_true(pairs >= 40);
    task_batch_free(&b);
    task_free(&t);
    Task bad;
    char why[256];
    assert_int_equal(task_init(&bad, "grammar", "noun a b x c d\n", 15, why, sizeof why),
                     AV_ERR_MODEL);
    assert_non_null(strstr(why, "line 1"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_task_induction), cmocka_unit_test(test_task_deterministic),
        cmocka_unit_test(test_task_copy),      cmocka_unit_test(test_task_text),
        cmocka_unit_test(test_task_grammar),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
