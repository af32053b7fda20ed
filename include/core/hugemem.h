/* hugemem.h - memory for the large arrays the kernels stream (hugemem.c):
 * a model's copied weights, a GPT-2 state's cached keys and values.
 */
#ifndef ATTNVIZ_HUGEMEM_H
#define ATTNVIZ_HUGEMEM_H

#include <stddef.h>

/* bytes of memory, released with free(): from 2 MB on, beginning on a 2 MB
 * boundary and asked to be backed by huge pages where the kernel does so
 * on request (Linux's transparent huge pages in "madvise" mode), which
 * spares a page fault every 4 KB while the array fills and a walk of the
 * page tables every 4 KB as a kernel reads it; below, on a 64-byte line.
 * The contents are undefined. NULL when out of memory. */
void *huge_alloc(size_t bytes);

#endif
