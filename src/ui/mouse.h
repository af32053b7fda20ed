/* mouse.h - a mouse event mapped to an Action through the layout of the last
 * frame (mouse.c).
 */
#ifndef ATTNVIZ_MOUSE_H
#define ATTNVIZ_MOUSE_H

#include <stdbool.h>

#include "uistate.h"

/* Read the pending curses mouse event (after KEY_MOUSE) into *in; false when
 * it maps to nothing. A click on the sentence moves its cursor. */
bool mouse_read(UiState *u, AppInput *in);

#endif
