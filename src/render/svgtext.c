/* svgtext.c - the words of the exports' pictures and pages (render/svg.h):
 * text escaped for XML, a model's source named, the settings line, a text
 * on one line.
 */
#include "render/svg.h"

#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"

void svg_escape(FILE *f, const char *s, int max_chars)
{
    size_t len = strlen(s);
    int n = 0;
    while (len > 0) {
        if (max_chars > 0 && n == max_chars) {
            fputs("\xe2\x80\xa6", f); /* … */
            return;
        }
        unsigned cp;
        int k = utf8_decode(s, len, &cp);
        if (k == 0)
            cp = 0xFFFD, k = 1;
        if (cp < 0x20)
            cp += 0x2400; /* U+2400.. control pictures */
        else if (cp == 0x7f)
            cp = 0x2421;
        else if ((cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF)
            cp = 0xFFFD;
        switch (cp) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: {
            char buf[4];
            int nb = utf8_encode(cp, buf);
            fwrite(buf, 1, (size_t)nb, f);
        }
        }
        s += k, len -= (size_t)k, n++;
    }
}

/* The path component ending before end (no trailing '/'): its start. */
static const char *component(const char *path, const char *end)
{
    const char *s = end;
    while (s > path && s[-1] != '/')
        s--;
    return s;
}

void svg_source_name(const char *path, char *out, size_t size)
{
    const char *end = path + strlen(path);
    while (end > path + 1 && end[-1] == '/')
        end--;
    const char *last = component(path, end), *snap = NULL, *repo = NULL;
    if (last > path + 1) {
        snap = component(path, last - 1);
        if (snap > path + 1 && last - 1 - snap == 9 && strncmp(snap, "snapshots", 9) == 0)
            repo = component(path, snap - 1);
    }
    if (repo && strncmp(repo, "models--", 8) == 0) { /* ORG--NAME: "--" stands for '/' */
        size_t k = 0;
        for (const char *p = repo + 8; p < snap - 1 && k + 1 < size; p++)
            if (p[0] == '-' && p[1] == '-' && p + 1 < snap - 1)
                out[k++] = '/', p++;
            else
                out[k++] = *p;
        out[k] = '\0';
        return;
    }
    snprintf(out, size, "%.*s", (int)(end - last), last);
}

void svg_settings_mask(const ModelResult *r, const ModelConfig *c, const char *path,
                       const char *mask, char *buf, size_t size)
{
    char name[256];
    const char *source = NULL;
    if (path) {
        svg_source_name(path, name, sizeof name);
        source = name;
    }
    int n;
    switch (c->preset) {
    case PRESET_IMPORTED:
        n = snprintf(buf, size, "imported attention%s%s; mask %s", source ? " from " : "",
                     source ? source : "",
                     mask              ? mask
                     : r->shape.causal ? "causal (detected)"
                                       : "off");
        return;
    case PRESET_TRAINED:
        if (c->about) /* a kind's model says what it is */
            n = snprintf(buf, size, "%s%s%s", c->about, source ? ", from " : "",
                         source ? source : "");
        else
            n = snprintf(buf, size, "trained model %s", source ? source : "");
        break;
    case PRESET_LOADED:
        n = snprintf(buf, size, "weights from %s", source ? source : "--weights");
        break;
    case PRESET_DESIGNED: n = snprintf(buf, size, "designed heads"); break;
    default: n = snprintf(buf, size, "random toy weights, seed %llu", (unsigned long long)c->seed);
    }
    if (n < 0 || (size_t)n >= size)
        return;
    int hk = c->heads_combined > 0 ? c->heads_combined : c->H; /* the model's heads */
    n += snprintf(buf + n, size - (size_t)n, "; d_model %d, %d heads%s, d_k %d; mask %s; %s",
                  c->d_model, hk, c->heads_combined > 0 ? " combined" : "", c->d_model / hk,
                  mask              ? mask
                  : r->shape.causal ? "causal"
                                    : "off",
                  c->scale ? "scaled by 1/\xe2\x88\x9a"
                             "d_k"
                           : "not scaled");
    if (n > 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, "; temperature %g", (double)c->temperature);
}

void svg_settings(const ModelResult *r, const ModelConfig *c, const char *path, char *buf,
                  size_t size)
{
    svg_settings_mask(r, c, path, NULL, buf, size);
}

int svg_one_line(FILE *f, const char *s, int left)
{
    char *buf = malloc(strlen(s) + 1);
    if (!buf)
        return 0;
    size_t n = 0;
    int cps = 0;
    for (const char *p = s + strspn(s, " \t\n\r\v\f"); *p; p++) {
        bool space = strchr(" \t\n\r\v\f", *p) != NULL;
        if (space && (n == 0 || buf[n - 1] == ' '))
            continue;
        buf[n++] = space ? ' ' : *p;
        cps += ((unsigned char)*p & 0xC0) != 0x80;
    }
    if (n > 0 && buf[n - 1] == ' ')
        n--, cps--;
    buf[n] = '\0';
    if (cps > left) { /* cut after the last word that fits */
        size_t at = 0, space = 0;
        for (int c = 0; buf[at] && c <= left; at++)
            if (((unsigned char)buf[at] & 0xC0) != 0x80 && ++c <= left && buf[at] == ' ')
                space = at;
        buf[space ? space : at ? at - 1 : 0] = '\0';
        cps = left + 1;
    }
    svg_escape(f, buf, 0);
    if (cps > left)
        fputs(" \xe2\x80\xa6", f);
    free(buf);
    return cps;
}
