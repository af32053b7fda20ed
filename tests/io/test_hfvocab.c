/* test_hfvocab.c - GPT-2's vocabulary files and tokenizer on golden texts.
 *
 * tests/data/bpe/ holds a subset of GPT-2's real vocab.json and merges.txt
 * (make_subset.py: every token and merge GPT-2 uses on the golden texts
 * below, renumbered, with gpt2_ids.txt giving the real ids), so the expected
 * ids here are GPT-2's own, as its reference tokenizer gives them. Also: the
 * same vocabulary read as tokenizer.json, and malformed vocabularies refused
 * with one line that places the fault.
 */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/av.h"
#include "core/bpe.h"
#include "io/fileio.h"
#include "io/hfvocab.h"

#define BPE_DIR TEST_DATA_DIR "/bpe"

typedef struct {
    const char *text;
    int ids[32];
    int n;
} Golden;

/* make_subset.py's output: GPT-2's ids for each text. */
static const Golden golden[] = {
    {"Hello world", {15496, 995}, 2},
    {"The cat sat on the mat because it was tired.",
     {464, 3797, 3332, 319, 262, 2603, 780, 340, 373, 10032, 13},
     11},
    {"I'm sure they'll say we've done it, don't you?",
     {40, 1101, 1654, 484, 1183, 910, 356, 1053, 1760, 340, 11, 836, 470, 345, 30},
     15},
    {"naïve café, Ελληνικά и русский.",
     {2616, 38776, 40304, 11,  7377,  243,   39377, 39377, 138,   115,   26180, 29945, 43000, 138,
      105,  12466, 116,   220, 21169, 35072, 21727, 21727, 31583, 18849, 140,   117,   13},
     27},
    {"日本語のテキスト", {33768, 98, 17312, 105, 45739, 252, 5641, 24336, 25084, 43302}, 10},
    {"emoji 👨\xe2\x80\x8d👩\xe2\x80\x8d👧 and 👍🏽!",
     {368, 31370, 50169, 101, 447, 235, 41840, 102, 447, 235, 41840, 100, 290, 50169, 235, 8582,
      237, 121, 0},
     19},
    {"  two spaces\n\nand\ttabs   \n",
     {220, 734, 9029, 198, 198, 392, 197, 8658, 82, 220, 220, 220, 198},
     13},
    {"3.14159 + 1,024 = 12345678",
     {18, 13, 1415, 19707, 1343, 352, 11, 40839, 796, 17031, 2231, 30924},
     12},
    {"a<|endoftext|>b", {64, 50256, 65}, 3},
    {"x\xc2\x85y\xc2\xa0z", {87, 126, 227, 88, 1849, 89}, 6},
    {"e\xcc\x81\xcc\x82 combining", {68, 136, 223, 136, 224, 19771}, 6},
    {"'s 'S 'll 'LL", {338, 705, 50, 705, 297, 705, 3069}, 7},
};

static char why[256];

/* The subset's ids mapped to GPT-2's (gpt2_ids.txt), n of them. */
static int *real_ids(int n)
{
    char *data;
    size_t len;
    assert_int_equal(file_read_all(BPE_DIR "/gpt2_ids.txt", 1 << 20, &data, &len), AV_OK);
    int *map = malloc((size_t)n * sizeof *map), k = 0;
    assert_non_null(map);
    for (char *p = data; k < n && *p; k++)
        map[k] = (int)strtol(p, &p, 10);
    assert_int_equal(k, n);
    free(data);
    return map;
}

static void check_golden(const Bpe *b)
{
    int *map = real_ids(b->n_vocab);
    BpeEncoding e = {0};
    for (size_t g = 0; g < sizeof golden / sizeof golden[0]; g++) {
        const Golden *gd = &golden[g];
        size_t len = strlen(gd->text), at = 0;
        assert_int_equal(bpe_encode(b, gd->text, len, 1000, &e), AV_OK);
        if (e.n != gd->n)
            fail_msg("'%s': %d tokens, want %d", gd->text, e.n, gd->n);
        for (int i = 0; i < e.n; i++) {
            if (map[e.piece[i].id] != gd->ids[i])
                fail_msg("'%s': token %d is %d, want %d", gd->text, i, map[e.piece[i].id],
                         gd->ids[i]);
            assert_int_equal(e.piece[i].start, at); /* spans tile the text */
            at += e.piece[i].len;
        }
        assert_int_equal(at, len);
    }
    bpe_encoding_free(&e);
    free(map);
}

static void test_hfvocab_golden_gpt2_ids(void **state)
{
    (void)state;
    /* expect: GPT-2's own ids for every golden text (contractions, accents,
       Greek, Cyrillic, CJK, a ZWJ family, spaces and tabs, digits,
       <|endoftext|>, U+0085 and NBSP, combining marks), spans tiling it */
    Bpe b;
    assert_int_equal(hfvocab_read_dir(BPE_DIR, &b, why, sizeof why), AV_OK);
    assert_int_equal(b.n_vocab, 388);
    assert_int_equal(b.n_merges, 131);
    assert_true(b.eot >= 0);
    check_golden(&b);
    bpe_free(&b);
}

/* The subset written as a tokenizer.json with merges as "a b" or [a, b]. */
static char *as_tokenizer_json(int pairs, size_t *len)
{
    char *v, *m;
    size_t vl, ml;
    assert_int_equal(file_read_all(BPE_DIR "/vocab.json", 1 << 20, &v, &vl), AV_OK);
    assert_int_equal(file_read_all(BPE_DIR "/merges.txt", 1 << 20, &m, &ml), AV_OK);
    char *out = malloc(vl + 3 * ml + 256), *o = out;
    o += sprintf(o, "{\"version\": \"1.0\", \"added_tokens\": [], \"model\": {\"type\": \"BPE\", "
                    "\"merges\": [");
    char *line = strchr(m, '\n') + 1; /* after #version */
    for (int k = 0; *line; k++) {
        char *nl = strchr(line, '\n'), *sp = strchr(line, ' ');
        *nl = 0, *sp = 0;
        o += sprintf(o, pairs ? "%s[\"%s\", \"%s\"]" : "%s\"%s %s\"", k ? ", " : "", line, sp + 1);
        line = nl + 1;
    }
    o += sprintf(o, "], \"vocab\": %s}, \"decoder\": null}", v);
    *len = (size_t)(o - out);
    free(v);
    free(m);
    return out;
}

static void test_hfvocab_tokenizer_json(void **state)
{
    (void)state;
    /* expect: tokenizer.json (merges before vocab, in both forms) gives the
       same ids as vocab.json + merges.txt */
    for (int pairs = 0; pairs < 2; pairs++) {
        size_t len;
        char *json = as_tokenizer_json(pairs, &len);
        Bpe b;
        int rc = hfvocab_parse_tokenizer(json, len, &b, why, sizeof why);
        if (rc)
            fail_msg("%s", why);
        assert_int_equal(b.n_merges, 131);
        check_golden(&b);
        bpe_free(&b);
        free(json);
    }
}

/* parse vocab and merges; expect AV_ERR_MODEL and a reason holding want */
static void refused(const char *vocab, const char *merges, const char *want)
{
    Bpe b;
    why[0] = 0;
    int rc = hfvocab_parse(vocab, strlen(vocab), merges, strlen(merges), &b, why, sizeof why);
    if (rc != AV_ERR_MODEL || !strstr(why, want) || strchr(why, '\n'))
        fail_msg("%s | %s: rc %d, why '%s', want '%s'", vocab, merges, rc, why, want);
    assert_null(b.pool);
}

/* A vocabulary of the 256 bytes in GPT-2's alphabet, then extra entries. */
static char *bytes_vocab(const char *extra)
{
    char *out = malloc(8192), *o = out;
    o += sprintf(o, "{");
    for (int c = 0; c < 256; c++) {
        unsigned cp = bpe_byte_unicode((unsigned char)c);
        char u[8] = {0};
        if (cp == '"' || cp == '\\')
            sprintf(u, "\\%c", (char)cp);
        else if (cp < 0x80)
            u[0] = (char)cp;
        else
            u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F));
        o += sprintf(o, "%s\"%s\": %d", c ? ", " : "", u, c);
    }
    sprintf(o, "%s}", extra);
    return out;
}

static void test_hfvocab_refuses_malformed(void **state)
{
    (void)state;
    /* expect: each fault refused with one line that names it */
    char *v = bytes_vocab(", \"hi\": 256"), *v2;
    Bpe b;
    assert_int_equal(hfvocab_parse(v, strlen(v), "#version: 0.2\nh i\n", 18, &b, why, sizeof why),
                     AV_OK);
    bpe_free(&b);
    /* CRLF line ends (a Windows checkout) read as LF: "hi" is one token */
    assert_int_equal(
        hfvocab_parse(v, strlen(v), "#version: 0.2\r\nh i\r\n", 20, &b, why, sizeof why), AV_OK);
    BpeEncoding e = {0};
    assert_int_equal(bpe_encode(&b, "hi", 2, 8, &e), AV_OK);
    assert_int_equal(e.n, 1);
    assert_int_equal(e.piece[0].id, 256);
    bpe_encoding_free(&e);
    bpe_free(&b);
    refused(v, "h i\nh q\n", "merges.txt: byte 4: merge 2 makes a token that is not in");
    refused(v, "h i\nh i\n", "merge 2 repeats merge 1");
    refused(v, "h i j\n", "merges.txt: line 1 is not two tokens");
    refused(v, "hi\n", "merges.txt: line 1 is not two tokens");
    refused(v, "h zz\n", "'zz', which is not in the vocabulary");
    refused(v, "h \xff\n", "merges.txt: byte 2 is not UTF-8");
    refused(v, "h \xc3\xa9\n", "not in the vocabulary"); /* é is byte 0xe9, a token */
    /* a token of 100,000 bytes is said as too long, not outside the alphabet */
    char *big = malloc(100004);
    big[0] = 'h', big[1] = ' ';
    memset(big + 2, 'a', 100000);
    big[100002] = '\n', big[100003] = 0;
    refused(v, big, "merges.txt: byte 0: a merge names a token longer than 1024 bytes");
    free(big);
    refused(v, "h a\xc4\xa0\x7f\n", "a merge names a token holding U+007F, outside GPT-2's");
    /* a token of two bytes and no merge to make it: an empty merges.txt */
    refused(v, "", "merges.txt: no merge, yet the vocabulary has tokens of several bytes");
    refused(v, "#version: 0.2\n", "merges.txt: no merge");
    free(v);
    refused("[]", "", "vocab.json: byte 0: the vocabulary is not a JSON object");
    refused("{}", "", "the vocabulary is empty");
    refused("{\"a\": 0", "", "not closed");
    refused("{\"a\": -1}", "", "not a whole number");
    refused("{\"a\": 0} x", "", "text follows");
    refused("{\"a\": 0, \"b\": 5}", "", "token id 5 is out of range (2 tokens: ids 0..1)");
    refused("{\"a\": 0, \"b\": 0}", "", "token id 0 is given twice");
    refused("{\"a\": 0, \"a\": 1}", "", "token id 1 is the same text as token id 0");
    refused("{\"a b\": 0}", "", "U+0020, outside GPT-2's byte alphabet");
    refused("{\"\\u0000\": 0}", "", "U+0000");
    refused("{\"\xe9\": 0}", "", "not valid UTF-8");
    refused("{\"\": 0}", "", "a token is empty");
    refused("{\"a\": 0}", "", "no token stands for the byte 0x00 alone");
    v2 = bytes_vocab(", \"<|endoftext|>\": 256");
    assert_int_equal(hfvocab_parse(v2, strlen(v2), "", 0, &b, why, sizeof why), AV_OK);
    assert_int_equal(b.eot, 256);
    bpe_free(&b);
    free(v2);
}

static void test_hfvocab_tokenizer_json_refused(void **state)
{
    (void)state;
    /* expect: a tokenizer.json without model, vocab or merges, of another
       type, or with a malformed merge, refused in one line */
    static const struct {
        const char *json, *want;
    } cases[] = {
        {"{}", "tokenizer.json: no \"model\""},
        {"{\"model\": {\"vocab\": {\"a\": 0}}}", "no model.merges"},
        {"{\"model\": {\"merges\": []}}", "no model.vocab"},
        {"{\"model\": {\"type\": \"WordPiece\", \"vocab\": {}, \"merges\": []}}",
         "model.type is not \"BPE\""},
        {"{\"model\": {\"vocab\": {\"a\": 0}, \"merges\": [\"a\"]}}", "one space between"},
        {"{\"model\": {\"vocab\": {\"a\": 0}, \"merges\": [[\"a\"]]}}", "merge"},
        {"{\"model\": {\"vocab\": {\"a\": 0}, \"merges\": [3]}}", "merge"},
        {"{\"model\": [", "tokenizer.json"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        Bpe b;
        why[0] = 0;
        int rc = hfvocab_parse_tokenizer(cases[k].json, strlen(cases[k].json), &b, why, sizeof why);
        if (rc != AV_ERR_MODEL || !strstr(why, cases[k].want))
            fail_msg("%s: rc %d, why '%s', want '%s'", cases[k].json, rc, why, cases[k].want);
    }
}

static void test_hfvocab_missing_folder(void **state)
{
    (void)state;
    /* expect: a folder without vocabulary files is a broken model naming
       both, as a vocab.json without merges.txt is */
    Bpe b;
    assert_int_equal(hfvocab_read_dir("/nonexistent-attnviz", &b, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "no vocab.json (with merges.txt) nor tokenizer.json"));
    char dir[] = "/tmp/attnviz-hfvocab.XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/vocab.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"a\": 0}", f);
    fclose(f);
    assert_int_equal(hfvocab_read_dir(dir, &b, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "vocab.json without merges.txt"));
    /* a vocab.json alone beside tokenizer.json: tokenizer.json is read */
    char tpath[64];
    size_t len;
    char *json = as_tokenizer_json(1, &len);
    snprintf(tpath, sizeof tpath, "%s/tokenizer.json", dir);
    f = fopen(tpath, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(json, 1, len, f), len);
    fclose(f);
    free(json);
    int rc = hfvocab_read_dir(dir, &b, why, sizeof why);
    if (rc)
        fail_msg("%s", why);
    assert_int_equal(b.n_merges, 131);
    check_golden(&b);
    bpe_free(&b);
    unlink(tpath);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hfvocab_golden_gpt2_ids),
        cmocka_unit_test(test_hfvocab_tokenizer_json),
        cmocka_unit_test(test_hfvocab_refuses_malformed),
        cmocka_unit_test(test_hfvocab_tokenizer_json_refused),
        cmocka_unit_test(test_hfvocab_missing_folder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
