/* core/memory.c: host allocation that reports what failed and how big it was,
 * the allocation-failure injection the reliability tests use, and the wall
 * clock used by the per-phase timers.
 *
 * Injection: NG_FAIL_ALLOC=N makes the Nth host allocation of the process
 * (ng_host_alloc, ng_host_realloc: every NG_MALLOC/NG_CALLOC and the host
 * vector tables) fail with NG_ERR_MEMORY; NG_FAIL_ALLOC_DEVICE=N does the
 * same to the Nth device allocation (ng_cuda_malloc: every cudaMalloc of the
 * library, and the context's one cudaHostAlloc). The message names the allocation and says it was injected.
 * ng_alloc_fault_set re-arms both and restarts the counts (tests walk N over
 * every allocation of a run in one process). NG_ALLOC_REPORT=1 prints the
 * process's counts to stderr at exit (the walks use it to find how many N
 * there are to try) and names each injected failure as it happens (a run
 * that tolerates one, e.g. an optional buffer, still shows which). Counters are atomic, so the
 * order is well defined as long as no allocation runs inside an OpenMP
 * region (none does). Allocations outside these two functions (OpenMP
 * scratch in amg/amg_galerkin.c, hwloc, MPI, CUDA libraries) are not
 * counted. The bytes of the blocks live are accounted in core/memtrack.c. */
#include "core.h"
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

static atomic_int fault_armed;              /* 1 once the environment was read */
static int fault_verbose;                   /* NG_ALLOC_REPORT: also name the injected one */
static _Atomic int64_t fail_host, fail_device; /* 0: never */
static _Atomic int64_t count_host, count_device, live_host;

static int64_t env_count(const char *name)
{
  const char *s = getenv(name);
  char *end;
  if (!s || !*s) return 0;
  long long v = strtoll(s, &end, 10);
  return (*end == '\0' && v > 0) ? (int64_t)v : 0;
}

static void fault_report(void)
{
  fprintf(stderr, "nagare: %lld host allocations, %lld device allocations, %lld host blocks live at exit (NG_ALLOC_REPORT)\n",
          (long long)atomic_load(&count_host), (long long)atomic_load(&count_device),
          (long long)atomic_load(&live_host));
}

static void fault_arm(void)
{
  if (atomic_load(&fault_armed)) return;
  if (env_count("NG_ALLOC_REPORT") > 0) {
    fault_verbose = 1;
    atexit(fault_report);
  }
  atomic_store(&fail_host, env_count("NG_FAIL_ALLOC"));
  atomic_store(&fail_device, env_count("NG_FAIL_ALLOC_DEVICE"));
  atomic_store(&fault_armed, 1);
}

void ng_alloc_fault_set(int64_t host_nth, int64_t device_nth)
{
  atomic_store(&fail_host, host_nth > 0 ? host_nth : 0);
  atomic_store(&fail_device, device_nth > 0 ? device_nth : 0);
  atomic_store(&count_host, 0);
  atomic_store(&count_device, 0);
  atomic_store(&fault_armed, 1);
}

void ng_alloc_fault_counts(int64_t *host, int64_t *device, int64_t *host_live)
{
  if (host) *host = atomic_load(&count_host);
  if (device) *device = atomic_load(&count_device);
  if (host_live) *host_live = atomic_load(&live_host);
}

int64_t ng_alloc_fault_device_next(void)
{
  fault_arm();
  int64_t k = atomic_fetch_add(&count_device, 1) + 1;
  return k == atomic_load(&fail_device) ? k : 0;
}

/* The number of this host allocation when it is the one to fail, else 0. */
static int64_t host_fault_next(void)
{
  fault_arm();
  int64_t k = atomic_fetch_add(&count_host, 1) + 1;
  return k == atomic_load(&fail_host) ? k : 0;
}

ng_status ng_host_alloc(void **p, size_t count, size_t size, int zero, const char *what)
{
  size_t bytes;
  if (!p) return NG_ERROR(NG_ERR_ARGUMENT, "null output pointer allocating %s", what);
  *p = NULL;
  if (size && count > SIZE_MAX / size)
    return NG_ERROR(NG_ERR_MEMORY, "size overflow allocating %s (%zu x %zu bytes)", what, count, size);
  bytes = count * size;
  if (bytes == 0) bytes = 1;
  int64_t k = host_fault_next();
  if (k && fault_verbose) fprintf(stderr, "nagare: injecting the failure of host allocation #%lld: %s\n", (long long)k, what);
  if (k)
    return NG_ERROR(NG_ERR_MEMORY, "out of host memory allocating %s (%zu bytes) (injected failure of host allocation #%lld, NG_FAIL_ALLOC)",
                    what, bytes, (long long)k);
  *p = zero ? calloc(1, bytes) : malloc(bytes);
  if (!*p) return NG_ERROR(NG_ERR_MEMORY, "out of host memory allocating %s (%zu bytes)", what, bytes);
  atomic_fetch_add(&live_host, 1);
  ng_mem_track(NG_MEM_HOST, *p, bytes);
  return NG_SUCCESS;
}

ng_status ng_host_realloc(void **p, size_t count, size_t size, const char *what)
{
  size_t bytes;
  if (!p) return NG_ERROR(NG_ERR_ARGUMENT, "null pointer reallocating %s", what);
  if (!*p) return ng_host_alloc(p, count, size, 0, what);
  if (size && count > SIZE_MAX / size)
    return NG_ERROR(NG_ERR_MEMORY, "size overflow growing %s (%zu x %zu bytes)", what, count, size);
  bytes = count * size;
  if (bytes == 0) bytes = 1;
  int64_t k = host_fault_next();
  if (k && fault_verbose) fprintf(stderr, "nagare: injecting the failure of host allocation #%lld: %s\n", (long long)k, what);
  if (k)
    return NG_ERROR(NG_ERR_MEMORY, "out of host memory growing %s to %zu bytes (injected failure of host allocation #%lld, NG_FAIL_ALLOC)",
                    what, bytes, (long long)k);
  /* untracked before: once freed, its address may be another thread's */
  size_t old_bytes = ng_mem_untrack(NG_MEM_HOST, *p);
  void *q = realloc(*p, bytes);
  if (!q) {
    if (old_bytes) ng_mem_track(NG_MEM_HOST, *p, old_bytes);
    return NG_ERROR(NG_ERR_MEMORY, "out of host memory growing %s to %zu bytes", what, bytes);
  }
  ng_mem_track(NG_MEM_HOST, q, bytes);
  *p = q;
  return NG_SUCCESS;
}

void ng_free(void *p)
{
  if (!p) return;
  atomic_fetch_sub(&live_host, 1);
  ng_mem_untrack(NG_MEM_HOST, p);
  free(p);
}

double ng_wtime(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Write one byte per 4 KiB page of fresh host memory on every OpenMP thread:
 * a pageable device-to-host copy into untouched pages takes a page fault per
 * page inside the driver's copy, one at a time (the AMG setup's coarse-level
 * downloads ran at ~1 GB/s that way). The bytes written are zeros; callers
 * overwrite the whole range anyway. */
void ng_host_prefault(void *p, size_t bytes)
{
  unsigned char *c = (unsigned char *)p;
  int64_t pages = (int64_t)((bytes + 4095) / 4096);
  if (!c || bytes < ((size_t)1 << 22)) return; /* under 4 MiB: not worth the threads */
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
  for (int64_t k = 0; k < pages; k++) c[k * 4096] = 0;
}
