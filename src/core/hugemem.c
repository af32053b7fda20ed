/* hugemem.c - memory for the arrays the kernels stream (core/hugemem.h). */
#include "core/hugemem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_PAGE ((size_t)2 << 20) /* bytes of an x86-64 huge page */
#define LINE 64                     /* bytes of a cache line */

void *huge_alloc(size_t bytes)
{
    const size_t align = bytes >= HUGE_PAGE ? HUGE_PAGE : LINE;
    if (bytes > SIZE_MAX - align)
        return NULL;
    void *a = aligned_alloc(align, (bytes + align - 1) / align * align);
#ifdef MADV_HUGEPAGE
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const uintptr_t lo = ((uintptr_t)a + page - 1) / page * page,
                    hi = ((uintptr_t)a + bytes) / page * page;
    if (a && align == HUGE_PAGE && hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
    return a;
}
