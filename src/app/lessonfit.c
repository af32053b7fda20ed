/* lessonfit.c - whether a model can give the views of a lesson's pages
 * (app/lessonfit.h). */
#include "app/lessonfit.h"

#include <stdio.h>

const char *lessonfit_view(const Kind *k, ViewId v)
{
    const char *why;
    switch (v) {
    case VIEW_ID_PE:
        why = kind_refuses(k, KIND_ASK_VIEWS);
        return why ? why : kind_refuses(k, KIND_ASK_PE_VIEW);
    case VIEW_ID_PIPELINE:
    case VIEW_ID_TRACE:
        why = kind_refuses(k, KIND_ASK_VIEWS);
        return why ? why : kind_refuses(k, KIND_ASK_TRACE);
    case VIEW_ID_CMP_MASK: return kind_refuses(k, KIND_ASK_MASK);
    case VIEW_ID_LENS:
        if (kind_has_lens(k))
            return NULL;
        why = kind_refuses(k, KIND_ASK_LENS);
        return why ? why : "this model predicts no next token: it has no logit lens";
    default: return NULL;
    }
}

bool lessonfit_lesson(const Lesson *l, const Kind *k, const char *model, char *why, size_t len)
{
    for (int p = 0; p < l->n_pages; p++) {
        ViewId v = l->pages[p].set.view;
        const char *no = lessonfit_view(k, v);
        if (!no)
            continue;
        snprintf(why, len,
                 "the lesson %s shows the view \"%s\" on page %d, which %s cannot give: %s",
                 l->name, view_info(v)->name, p + 1, model ? model : "this model", no);
        return false;
    }
    if (len)
        why[0] = '\0';
    return true;
}
