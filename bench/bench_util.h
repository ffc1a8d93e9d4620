/* bench/bench_util.h: what the GPU benchmarks share: one JSON line per case,
 * and timing of a device operation as the median over >= 20 runs with CUDA
 * events on the context's stream after warm-up runs. The operation gets the
 * run number so it can rotate over several copies of its inputs: then the
 * L2 cache (50 MB on H100) holds none of what the next run reads. */
#ifndef NG_BENCH_UTIL_H
#define NG_BENCH_UTIL_H
#include "cuda_internal.h"
#include "../dist/dist.h" /* the SpMV tables, struct ng_matrix_s */
#include <math.h>

#define BENCH_RUNS 25
#define BENCH_WARMUP 3

/* One result line; negative numbers and NULL strings are printed as null. */
typedef struct {
  const char *bench, *matrix, *format, *solver;
  long long n, nnz;
  double ms, GBs, GFLOPS;
  long long iterations;
  double setup_ms, solve_ms, spmv_ms;
} bench_line;

static inline bench_line bench_line_init(const char *bench)
{
  bench_line L = {bench, NULL, NULL, NULL, -1, -1, -1, -1, -1, -1, -1, -1, -1};
  return L;
}

static inline void bench_str(const char *key, const char *v, int *first)
{
  printf("%s\"%s\":", *first ? "" : ",", key);
  if (v) printf("\"%s\"", v); else printf("null");
  *first = 0;
}
static inline void bench_num(const char *key, double v, int *first)
{
  printf("%s\"%s\":", *first ? "" : ",", key);
  if (v >= 0 && isfinite(v)) printf("%.6g", v); else printf("null");
  *first = 0;
}
static inline void bench_int(const char *key, long long v, int *first)
{
  printf("%s\"%s\":", *first ? "" : ",", key);
  if (v >= 0) printf("%lld", v); else printf("null");
  *first = 0;
}

static inline void bench_print(const bench_line *L)
{
  int first = 1;
  printf("{");
  bench_str("bench", L->bench, &first);
  bench_str("matrix", L->matrix, &first);
  bench_int("n", L->n, &first);
  bench_int("nnz", L->nnz, &first);
  bench_str("format", L->format, &first);
  if (L->solver) bench_str("solver", L->solver, &first);
  bench_num("ms", L->ms, &first);
  bench_num("GBs", L->GBs, &first);
  bench_num("GFLOPS", L->GFLOPS, &first);
  bench_int("iterations", L->iterations, &first);
  bench_num("setup_ms", L->setup_ms, &first);
  bench_num("solve_ms", L->solve_ms, &first);
  if (L->spmv_ms >= 0) bench_num("spmv_ms", L->spmv_ms, &first);
  printf("}\n");
  fflush(stdout);
}

/* Exits with the library's message when a call fails (benchmarks only). */
#define BENCH_OK(call)                                                                         \
  do {                                                                                         \
    ng_status bench_s_ = (call);                                                               \
    if (bench_s_ != NG_SUCCESS) {                                                              \
      fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,                      \
              ng_status_name(bench_s_), ng_last_error());                                      \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)
#define BENCH_CUDA(call)                                                                       \
  do {                                                                                         \
    cudaError_t bench_e_ = (call);                                                             \
    if (bench_e_ != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(bench_e_)); \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

static int bench_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median milliseconds of op(arg, run) over BENCH_RUNS timed runs. */
typedef ng_status (*bench_op)(void *arg, int run);
static inline double bench_time(ng_context ctx, bench_op op, void *arg)
{
  cudaStream_t s = ctx->cuda->stream;
  cudaEvent_t e0, e1;
  double t[BENCH_RUNS];
  BENCH_CUDA(cudaEventCreate(&e0));
  BENCH_CUDA(cudaEventCreate(&e1));
  for (int r = 0; r < BENCH_WARMUP; r++) BENCH_OK(op(arg, r));
  BENCH_CUDA(cudaStreamSynchronize(s));
  for (int r = 0; r < BENCH_RUNS; r++) {
    float ms;
    BENCH_CUDA(cudaEventRecord(e0, s));
    BENCH_OK(op(arg, BENCH_WARMUP + r));
    BENCH_CUDA(cudaEventRecord(e1, s));
    BENCH_CUDA(cudaEventSynchronize(e1));
    BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    t[r] = ms;
  }
  BENCH_CUDA(cudaEventDestroy(e0));
  BENCH_CUDA(cudaEventDestroy(e1));
  qsort(t, BENCH_RUNS, sizeof(double), bench_cmp_double);
  return t[BENCH_RUNS / 2];
}

/* Copies needed so that the rotated inputs span 4x the L2 cache. */
static inline int bench_copies(ng_context ctx, size_t bytes_each)
{
  size_t l2 = (size_t)ctx->cuda->prop.l2CacheSize, want = 4 * l2;
  int k = bytes_each ? (int)((want + bytes_each - 1) / bytes_each) : 1;
  return k < 2 ? 2 : (k > 64 ? 64 : k);
}
#endif
