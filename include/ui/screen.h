/* screen.h - frames written to the terminal by attnviz itself (screen.c):
 * a frame is w x h keys, each a cell's code point, colours and attributes
 * in one number, and only the keys that differ from the last frame's are
 * written, as terminfo's own strings formatted once at start.
 */
#ifndef ATTNVIZ_SCREEN_H
#define ATTNVIZ_SCREEN_H

#include <stdbool.h>
#include <stdint.h>

typedef struct Screen Screen;

/* Attributes of a key. */
enum { SCREEN_BOLD = 1, SCREEN_DIM = 2, SCREEN_UNDERLINE = 4, SCREEN_REVERSE = 8 };

/* A cell as a key: code point cp (0 = the right half of the wide character
 * before it), foreground and background colour (-1 = the terminal's default,
 * else 0 .. 255) and SCREEN_* attributes. Keys compare equal exactly when
 * the cells look the same. */
static inline uint64_t screen_key(uint32_t cp, int fg, int bg, unsigned attrs)
{
    return (uint64_t)(cp & 0x1fffff) | (uint64_t)(fg + 1) << 21 | (uint64_t)(bg + 1) << 30 |
           (uint64_t)(attrs & 15) << 39;
}

/* What a cleared screen holds: a space in the default colours. */
#define SCREEN_BLANK ((uint64_t)' ')

/* The terminal's strings (curses started, so terminfo is loaded), colours
 * 0 .. colors-1 (0: none used). A terminal that cannot move its cursor
 * (TERM=dumb) or no memory ends in term_die: one line, the terminal
 * restored, exit 1. */
Screen *screen_new(int colors);
void screen_free(Screen *s);

/* Write a frame of w x h keys (the screen's top left part; w and h at most
 * its size) in one write(): with prev (the last frame's keys, same size,
 * still what the terminal shows) only the keys that differ, else the screen
 * cleared and every key that is not SCREEN_BLANK. Leaves the attributes
 * off and the cursor at the top left, where curses believes it is. On a
 * terminal whose last cell would scroll the screen (auto margins without
 * xenl) that cell is left blank. Returns false when the terminal did not
 * take the whole frame (gone, or a non-blocking one stuck for a second):
 * what it shows is then unknown, and the next frame should be whole. */
bool screen_frame(Screen *s, const uint64_t *keys, const uint64_t *prev, int w, int h);

#endif
