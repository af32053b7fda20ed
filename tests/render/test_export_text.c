/* test_export_text.c - the text export holds to --width: the sentence's
 * line broken between tokens and indented, the title's settings and the
 * pooling explanation broken between words, never cut; and grid_wrap, which
 * lays them out.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/model.h"
#include "render/export.h"
#include "render/grid.h"

typedef struct {
    ModelConfig c;
    ModelWeights w;
    ModelResult r;
} Fixture;

static void fixture_run(Fixture *f, const char *text, const char *cross)
{
    memset(f, 0, sizeof *f);
    model_config_default(&f->c);
    assert_int_equal(model_weights_toy(&f->c, &f->w), AV_OK);
    assert_int_equal(
        model_run(&f->c, &f->w, text, strlen(text), cross, cross ? strlen(cross) : 0, &f->r),
        AV_OK);
}

static void fixture_free(Fixture *f)
{
    model_result_free(&f->r);
    model_weights_free(&f->w);
}

/* The text export of head 1 at width, the sentence first, the cells'
 * percentages with numbers (the caller frees). */
static char *export_text_as(Fixture *f, int width, bool numbers)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    ExportOptions o = {
        .format = EXPORT_TEXT, .head = 0, .width = width, .sentence = true, .numbers = numbers};
    assert_int_equal(export_write(m, &f->r, &f->c, &o), AV_OK);
    assert_int_equal(fclose(m), 0);
    return buf;
}

static char *export_text(Fixture *f, int width)
{
    return export_text_as(f, width, false);
}

/* Every line of doc within width columns; returns the lines. */
static int lines_within(char *doc, int width)
{
    int n = 0;
    for (char *line = doc, *end; *line; line = end + 1, n++) {
        end = strchr(line, '\n');
        assert_non_null(end);
        *end = '\0';
        if (grid_text_width(line) > width)
            fail_msg("line %d is %d columns, over %d: \"%s\"", n + 1, grid_text_width(line), width,
                     line);
        *end = '\n';
    }
    return n;
}

/* The lines from the one starting with first to the next blank one, joined
 * by single spaces, their indents dropped (the caller frees). */
static char *joined(const char *doc, const char *first)
{
    const char *at = strstr(doc, first);
    assert_non_null(at);
    const char *end = strstr(at, "\n\n");
    char *out = calloc((size_t)(end - at) + 1, 1);
    size_t n = 0;
    for (const char *p = at; p < end; p++) {
        if (*p == '\n' || *p == ' ') {
            while (p + 1 < end && (p[1] == ' ' || p[1] == '\n'))
                p++;
            out[n++] = ' ';
        } else {
            out[n++] = *p;
        }
    }
    return out;
}

/* 19 tokens at --width 60: the sentence's line was 144 columns. */
static void test_sentence_wraps(void **state)
{
    (void)state;
    Fixture f;
    fixture_run(&f,
                "Anna saw the dog and she petted it because the dog was friendly and the sun "
                "was warm.",
                NULL);
    char *doc = export_text(&f, 60);
    lines_within(doc, 60);
    static const char want[] = "Sentence: 1:Anna 2:saw 3:the 4:dog 5:and 6:she 7:petted 8:it\n"
                               "          9:because 10:the 11:dog 12:was 13:friendly 14:and\n"
                               "          15:the 16:sun 17:was 18:warm 19:.\n\n";
    assert_true(strncmp(doc, want, sizeof want - 1) == 0);
    free(doc);
    fixture_free(&f);
    fixture_run(&f, "the cat sat on the mat", "le chat est assis sur le tapis");
    doc = export_text(&f, 30);
    lines_within(doc, 30);
    char *keys = joined(doc, "Keys and values:");
    assert_string_equal(keys, "Keys and values: 1:le 2:chat 3:est 4:assis 5:sur 6:le 7:tapis");
    assert_non_null(strstr(doc, "\n  3:est")); /* 17 columns is more than a third: 2 */
    free(keys), free(doc);
    fixture_free(&f);
}

/* 100 tokens at --width 30 (a line of 710 columns) and 20 (the pooling
 * explanation cut to "100 tokens pooled: a…"). */
static void test_long_text_narrow(void **state)
{
    (void)state;
    char text[800] = "";
    for (int k = 0; k < 100; k++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "w%d ", k + 1);
    Fixture f;
    fixture_run(&f, text, NULL);
    for (int width = 20; width <= 30; width += 10) {
        char *doc = export_text(&f, width);
        assert_true(lines_within(doc, width) > 100);
        assert_null(strstr(doc, "\xe2\x80\xa6")); /* nothing cut */
        char *s = joined(doc, "Sentence:"), *why = joined(doc, "100 tokens pooled"),
             *title = joined(doc, "Head 1 of 4");
        assert_non_null(strstr(s, " 99:w99 100:w100"));
        assert_string_equal(why, width == 20 ? "100 tokens pooled: a cell is the largest weight of "
                                               "about 1 x 17 tokens (query rows x key columns)"
                                             : "100 tokens pooled: a cell is the largest weight of "
                                               "about 1 x 7 tokens (query rows x key columns)");
        /* the explanation follows the title's last line */
        assert_ptr_equal(strstr(title, "Head 1 of 4: random (d_model 32, d_k 8, seed 42, mask off, "
                                       "PE on, scaled by 1/sqrt(d_k)) 100 tokens pooled"),
                         title);
        free(s), free(why), free(title), free(doc);
    }
    fixture_free(&f);
}

/* The line of doc that starts with start, up to its end (the caller frees). */
static char *line_of(const char *doc, const char *start)
{
    const char *at = strstr(doc, start);
    assert_non_null(at);
    const char *end = strchr(at, '\n');
    assert_non_null(end);
    return strndup(at, (size_t)(end - at));
}

/* --numbers (and the interface's x, X) where a cell is too narrow for a
 * percentage: 30 tokens at --width 100 give 2-column cells, and every row
 * was its label alone, "cells: weights in per cent" under a blank matrix.
 * The cells keep their glyphs and the glyphs' legend; 11 tokens still get
 * the percentages. */
static void test_numbers_narrow_cells(void **state)
{
    (void)state;
    char text[400] = "";
    for (int k = 0; k < 30; k++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "w%d ", k + 1);
    Fixture f;
    fixture_run(&f, text, NULL);
    char *doc = export_text_as(&f, 100, true);
    lines_within(doc, 100);
    for (int k = 1; k <= 30; k++) {
        char start[32];
        snprintf(start, sizeof start, "\n%2d w%d ", k, k);
        char *row = line_of(doc, start + 1);
        /* the cells after the label (" 1 w1  ", 7 columns): 30 of 2 columns,
         * none blank */
        assert_int_equal(grid_text_width(row), 7 + 2 * 30);
        for (const char *p = row + 7; *p; p++)
            if (*p == ' ' && p[1] == ' ' && p[2] == ' ')
                fail_msg("row %d has blank cells: \"%s\"", k, row);
        free(row);
    }
    assert_null(strstr(doc, "cells: weights in per cent"));
    assert_non_null(strstr(doc, "weight: "));
    free(doc);
    fixture_free(&f);

    fixture_run(&f, "The cat sat on the mat because it was tired .", NULL);
    doc = export_text_as(&f, 100, true);
    char *row = line_of(doc, " 1 The ");
    assert_non_null(strpbrk(row + 12, "0123456789"));
    assert_null(strstr(row, "\xe2\x96")); /* no block or shade glyph */
    assert_non_null(strstr(doc, "cells: weights in per cent"));
    free(row), free(doc);
    fixture_free(&f);
}

/* grid_wrap: pieces a space apart, the next line indented, a piece wider
 * than a line broken between code points; g NULL counts the same rows. */
static void test_grid_wrap(void **state)
{
    (void)state;
    const char *p[] = {"ab", "cd", "efghijklmn", "caf\xc3\xa9"};
    Grid g = {0};
    assert_int_equal(grid_init(&g, 8, 6), AV_OK);
    assert_int_equal(grid_wrap(NULL, 0, 0, 8, 2, p, 4, STYLE_TEXT), 4);
    assert_int_equal(grid_wrap(&g, 0, 0, 8, 2, p, 4, STYLE_TEXT), 4);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_int_equal(grid_write(&g, m, false), 0);
    fclose(m);
    assert_string_equal(buf, "ab cd\n  efghij\n  klmn\n  caf\xc3\xa9\n");
    free(buf);
    grid_free(&g);
    assert_int_equal(grid_wrap(NULL, 0, 0, 8, 0, p, 0, STYLE_TEXT), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sentence_wraps),
        cmocka_unit_test(test_long_text_narrow),
        cmocka_unit_test(test_numbers_narrow_cells),
        cmocka_unit_test(test_grid_wrap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
