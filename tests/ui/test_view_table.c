/* test_view_table.c - each view's keys, help line, title and hint as the
 * interface takes them from its row in io/views.def (src/ui/views/
 * view_table.c), and the help overlay drawn into a grid (views/view_help.c),
 * without a terminal.
 */
#include "test_common.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/ui/input.h"
#include "../../src/ui/views/view_help.h"
#include "../../src/ui/views/view_table.h"

/* Row y of g as UTF-8 (ASCII is all these tests read). */
static void row_text(const Grid *g, int y, char *buf, size_t cap)
{
    size_t n = 0;
    for (int x = 0; x < g->w && n + 1 < cap; x++) {
        uint32_t cp = g->cells[(size_t)y * (size_t)g->w + (size_t)x].cp;
        buf[n++] = cp >= 0x20 && cp < 0x7f ? (char)cp : cp == 0 ? '\0' : '#';
        if (!buf[n - 1])
            n--;
    }
    buf[n] = '\0';
}

/* How many rows of g hold keys, then text, as a help line lays them out. */
static int rows_with(const Grid *g, const char *keys, const char *text)
{
    int found = 0;
    for (int y = 0; y < g->h; y++) {
        char line[512];
        row_text(g, y, line, sizeof line);
        for (const char *p = strstr(line, keys); p; p = strstr(p + 1, keys)) {
            const char *t = strstr(p + strlen(keys), text);
            if (t && strspn(p + strlen(keys), " ") == (size_t)(t - p - strlen(keys))) {
                found++;
                break;
            }
        }
    }
    return found;
}

static void test_view_keys_from_their_rows(void **state)
{
    /* expect: a view's keys give its action in the modes its row names and
     * none other; the names come in the row's order; other keys are no
     * view's */
    (void)state;
    Action a = ACT_NONE;
    assert_true(view_table_key(IN_BROWSE, 'u', &a));
    assert_int_equal(a, ACT_LENS);
    assert_false(view_table_key(IN_EDIT, 'u', &a)); /* editing: u types */
    assert_true(view_table_key(IN_EDIT, KEY_F(2), &a));
    assert_int_equal(a, ACT_VIEW);
    assert_true(view_table_key(IN_BROWSE, KEY_F(11), &a));
    assert_int_equal(a, ACT_TRACE);
    assert_false(view_table_key(IN_BROWSE, 'm', &a)); /* the mask: the key table's */
    assert_false(view_table_key(IN_TRAIN, 'W', &a));
    const char *names[8];
    assert_int_equal(view_table_key_names(ACT_VIEW, names, 8), 2);
    assert_string_equal(names[0], "F2");
    assert_string_equal(names[1], "v");
    assert_int_equal(input_key_names(ACT_TRACE, names, 8), 2);
    assert_string_equal(names[0], "w");
    assert_string_equal(names[1], "F11");
    assert_int_equal(view_table_key_names(ACT_MASK, names, 8), 0);
    assert_true(input_bound('S'));
    assert_true(input_bound('m'));
    assert_string_equal(view_table_help(ACT_LENS), "logit lens: layers' next token");
    assert_null(view_table_help(ACT_MASK));
    assert_string_equal(view_table_title(VIEW_ID_PIPELINE), "Pipeline");
    assert_string_equal(view_table_title(VIEW_ID_CMP_MASK), "Attention"); /* none: the heatmaps' */
    assert_ptr_equal(view_table_hint(VIEW_ID_HEADS), view_table_hint(VIEW_ID_ATTN));
    assert_true(strncmp(view_table_hint(VIEW_ID_LENS), "Up/Down: layer", 14) == 0);
}

static void test_view_help_lines_in_the_overlay(void **state)
{
    /* expect: at 160 x 60 the help shows each view's line once, its keys
     * before it (F2 v, w F11), and the key table's own lines beside them */
    (void)state;
    UiState *u = calloc(1, sizeof *u);
    Grid g;
    assert_non_null(u);
    assert_int_equal(grid_init(&g, 160, 60), AV_OK);
    view_help_draw(u, &g);
    assert_int_equal(rows_with(&g, "F2 v", "attention <-> PE view"), 1);
    assert_int_equal(rows_with(&g, "w F11", "calculation trace"), 1);
    assert_int_equal(rows_with(&g, "u", "logit lens: layers' next token"), 1);
    assert_int_equal(rows_with(&g, "W", "watch a model train"), 1);
    assert_int_equal(rows_with(&g, "F9 ^K m c", "causal mask on/off"), 1);
    Action a;
    for (int k = 0; view_table_help_at(k, &a); k++) {
        const char *names[4];
        char keys[64] = "";
        int n = view_table_key_names(a, names, 4);
        assert_true(n > 0);
        for (int m = 0; m < n; m++)
            strcat(strcat(keys, m ? " " : ""), names[m]);
        assert_int_equal(rows_with(&g, keys, view_table_help(a)), 1);
    }
    grid_free(&g);
    free(u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_view_keys_from_their_rows),
        cmocka_unit_test(test_view_help_lines_in_the_overlay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
