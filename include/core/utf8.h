/* utf8.h - strict UTF-8 decoding and encoding of single code points.
 */
#ifndef ATTNVIZ_UTF8_H
#define ATTNVIZ_UTF8_H

#include <stddef.h>

/* Decode one UTF-8 code point from s[0..len). Returns its byte length (1-4)
 * and stores it in *cp, or 0 when the bytes are not valid UTF-8. */
int utf8_decode(const char *s, size_t len, unsigned *cp);

/* Encode cp into buf (at least 4 bytes); returns the byte length (1-4). */
int utf8_encode(unsigned cp, char *buf);

/* Length in bytes of the longest valid UTF-8 prefix of s[0..len). */
size_t utf8_valid_prefix(const char *s, size_t len);

#endif
