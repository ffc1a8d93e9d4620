/* core/memory.c: host allocation that reports what failed and how big it was,
 * and the wall clock used by the per-phase timers. */
#include "internal.h"
#include <stdint.h>
#include <time.h>

ng_status ng_host_alloc(void **p, size_t count, size_t size, int zero, const char *what)
{
  size_t bytes;
  if (!p) return NG_ERROR(NG_ERR_ARGUMENT, "null output pointer allocating %s", what);
  *p = NULL;
  if (size && count > SIZE_MAX / size)
    return NG_ERROR(NG_ERR_MEMORY, "size overflow allocating %s (%zu x %zu bytes)", what, count, size);
  bytes = count * size;
  if (bytes == 0) bytes = 1;
  *p = zero ? calloc(1, bytes) : malloc(bytes);
  if (!*p) return NG_ERROR(NG_ERR_MEMORY, "out of host memory allocating %s (%zu bytes)", what, bytes);
  return NG_SUCCESS;
}

void ng_free(void *p) { free(p); }

double ng_wtime(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
