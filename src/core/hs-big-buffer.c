/* hs-big-buffer.c — large buffers on transparent huge pages */
#include "hs-big-buffer-private.h"

#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE ((gsize) 2 << 20)

gpointer
hs_big_buffer_try_alloc (gsize bytes)
{
  void *p = NULL;
  gsize rounded;

  if (bytes < 2 * HUGE_PAGE)
    return g_try_malloc (MAX (bytes, 1));
  if (bytes > G_MAXSIZE - HUGE_PAGE)
    return NULL;
  /* whole huge pages: the tail of the last one would otherwise be a 4 KB
   * mapping shared with the next allocation */
  rounded = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
  if (posix_memalign (&p, HUGE_PAGE, rounded) != 0)
    return NULL;
#ifdef MADV_HUGEPAGE
  /* advice only: where the kernel has no huge page free (or THP is off)
   * the buffer is ordinary 4 KB pages, which is what malloc gives */
  (void) madvise (p, rounded, MADV_HUGEPAGE);
#endif
  return p;
}
