/* core/core.h: the ground every folder stands on, users never see it:
 * error macros, host memory, the host CSR/COO containers, the index map,
 * Matrix Market, the whole-problem generators, options, the CUDA device
 * helpers (core/cuda_context.cu), and the execution context: the struct
 * behind ng_context with the vector ops table of its memory space
 * (core/vec_host.c, core/vec_cuda.cu). The context is here, not in dist/,
 * because comm/ and spmv/ read its memory space, device and communicator;
 * its constructor (dist/context.c) is above them. Includes nothing of the
 * folders above (comm/, spmv/, dist/, ...): what the context points to
 * there (struct ng_comm) is only declared. */
#ifndef NG_CORE_H
#define NG_CORE_H

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "nagare.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors (core/error.c) ----------------------------------------------
 * NG_ERROR sets the message and returns the code; NG_CHECK propagates a
 * failed call's status upward, appending "at file:line" to the trail. */
ng_status ng_error_set(ng_status code, const char *file, int line, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;
ng_status ng_error_trace(ng_status code, const char *file, int line);
#define NG_ERROR(code, ...) ng_error_set((code), __FILE__, __LINE__, __VA_ARGS__)
#define NG_CHECK(call)                                                  \
  do {                                                                  \
    ng_status ng_check_s_ = (call);                                     \
    if (ng_check_s_ != NG_SUCCESS)                                      \
      return ng_error_trace(ng_check_s_, __FILE__, __LINE__);           \
  } while (0)
/* Same, but jumps to a cleanup label with the status stored in `st`. */
#define NG_CHECK_GOTO(st, call, label)                                  \
  do {                                                                  \
    (st) = (call);                                                      \
    if ((st) != NG_SUCCESS) {                                           \
      ng_error_trace((st), __FILE__, __LINE__);                         \
      goto label;                                                       \
    }                                                                   \
  } while (0)
#define NG_ASSERT_ARG(cond, ...)                                        \
  do {                                                                  \
    if (!(cond)) return NG_ERROR(NG_ERR_ARGUMENT, __VA_ARGS__);         \
  } while (0)

/* ---- host memory (core/memory.c) ------------------------------------------
 * Failure is NG_ERR_MEMORY naming what and how many bytes. Zero bytes gives
 * a valid pointer. ng_free(NULL) is fine. */
ng_status ng_host_alloc(void **p, size_t count, size_t size, int zero, const char *what);
void ng_free(void *p);
/* *p grown (or shrunk) to count x size bytes; on failure *p is unchanged
 * (still owned by the caller). *p NULL allocates. */
ng_status ng_host_realloc(void **p, size_t count, size_t size, const char *what);
#define NG_MALLOC(p, count) ng_host_alloc((void **)&(p), (size_t)(count), sizeof(*(p)), 0, #p)
#define NG_CALLOC(p, count) ng_host_alloc((void **)&(p), (size_t)(count), sizeof(*(p)), 1, #p)

/* Allocation-failure injection (core/memory.c; NG_FAIL_ALLOC=N and
 * NG_FAIL_ALLOC_DEVICE=N in the environment): the Nth host / device
 * allocation fails. _set re-arms (0 = never) and restarts both counts;
 * _counts reads the allocations since then and the host blocks still live
 * (ng_host_alloc'd, not yet ng_free'd; any out parameter may be NULL);
 * _device_next counts one device allocation and returns its number when it
 * is the one to fail, else 0 (ng_cuda_malloc calls it first). */
void ng_alloc_fault_set(int64_t host_nth, int64_t device_nth);
void ng_alloc_fault_counts(int64_t *host, int64_t *device, int64_t *host_live);
int64_t ng_alloc_fault_device_next(void);

/* Memory accounting (core/memtrack.c): the bytes live in each memory space
 * (NG_MEM_HOST: ng_host_alloc'd, not yet ng_free'd; NG_MEM_DEVICE:
 * ng_cuda_malloc / ng_cuda_tmp_malloc'd, not yet freed through ng_cuda_free /
 * ng_cuda_tmp_free) and their peak since the last reset. _track / _untrack
 * are for the allocators (a pointer tracked again replaces its entry; an
 * unknown one is ignored). _reset_peak sets the
 * peak to the live bytes and returns them. Not for hot paths: a lock. */
enum { NG_MEM_HOST = 0, NG_MEM_DEVICE = 1, NG_MEM_SPACES = 2 };
void ng_mem_track(int space, const void *p, size_t bytes);
size_t ng_mem_untrack(int space, const void *p); /* the bytes it had (0: unknown) */
int64_t ng_mem_current(int space);
int64_t ng_mem_peak(int space);
int64_t ng_mem_reset_peak(int space);

/* Wall clock in seconds (monotonic). */
double ng_wtime(void);

/* ---- host CSR and COO (core/csr.c, core/coo.c) ---------------------------
 * CSR: 64-bit row offsets, 32-bit column indices, double values. Columns
 * within a row are kept in the order they were given (sorted by the COO
 * builder). */
typedef struct {
  int32_t nrows, ncols;
  int64_t nnz;
  int64_t *rowptr; /* nrows + 1 */
  int32_t *col;    /* nnz */
  double *val;     /* nnz */
} ng_csr;

ng_status ng_csr_alloc(ng_csr *A, int32_t nrows, int32_t ncols, int64_t nnz);
/* The bytes of A's arrays (those allocated: a NULL array counts 0). */
size_t ng_csr_bytes(const ng_csr *A);
void ng_csr_free(ng_csr *A);
ng_status ng_csr_copy(const ng_csr *src, ng_csr *dst);
/* Structural checks: monotone rowptr, columns in range, finite values. */
ng_status ng_csr_validate(const ng_csr *A);
/* y = alpha A x + beta y on the host (OpenMP when available). beta == 0
 * overwrites y (NaN in y does not leak). */
void ng_csr_spmv(const ng_csr *A, double alpha, const double *x, double beta, double *y);
/* Diagonal into d (n = nrows; OpenMP-parallel); NG_ERR_NUMERIC naming the first row with a
 * zero or missing diagonal when require_nonzero. */
ng_status ng_csr_diagonal(const ng_csr *A, double *d, int require_nonzero);
/* 1 when A equals its transpose in pattern and (to rel. tol) values. */
int ng_csr_is_symmetric(const ng_csr *A, double rtol);

/* Sorted distinct values of a list of indices >= 0 and value -> position in
 * them (core/index_map.c): a hash table sized by the distinct count, so a
 * list of many repeats costs one pass and a sort of the distinct values.
 * The caller may take `sorted` (set it NULL before _free). */
typedef struct {
  int64_t *key, mask; /* the table: -1 marks an empty slot */
  int32_t *pos;       /* position of the slot's key in sorted */
  int64_t *sorted;
  int32_t n;
} ng_index_map;
/* qsort comparator of int64_t values, ascending (core/index_map.c) */
int ng_cmp_int64(const void *a, const void *b);
ng_status ng_index_map_build(ng_index_map *M, const int64_t *v, int64_t count);
int32_t ng_index_map_find(const ng_index_map *M, int64_t g); /* -1 when absent */
void ng_index_map_free(ng_index_map *M);

/* COO builder used by the Matrix Market reader and the generators. */
typedef struct {
  int32_t nrows, ncols;
  int64_t nnz, cap;
  int32_t *row, *col;
  double *val;
} ng_coo;
ng_status ng_coo_init(ng_coo *C, int32_t nrows, int32_t ncols, int64_t capacity);
ng_status ng_coo_push(ng_coo *C, int32_t i, int32_t j, double v);
/* Sorted by row then column; duplicates summed. C is left untouched. */
ng_status ng_coo_to_csr(const ng_coo *C, ng_csr *A);
void ng_coo_free(ng_coo *C);

/* ---- Matrix Market (core/mmio.c) ------------------------------------------
 * Reads coordinate real/integer/pattern, general/symmetric/skew-symmetric
 * (symmetric parts expanded), gzip when built with zlib. Every malformed
 * input is NG_ERR_PARSE with "path:line: what". Complex is NG_ERR_UNSUPPORTED. */
ng_status ng_mmio_read_csr(const char *path, ng_csr *A);
ng_status ng_mmio_write_csr(const char *path, const ng_csr *A);
/* Array (dense column) vector of length *n, allocated into *x. */
ng_status ng_mmio_read_array(const char *path, double **x, int32_t *n);
ng_status ng_mmio_write_array(const char *path, const double *x, int32_t n);

/* ---- problem generators (core/generate_*.c) -------------------------------
 * Whole problem on the host: matrix and right-hand side (b allocated, nrows). */
ng_status ng_generate_csr(const char *spec, ng_csr *A, double **b);


/* ---- vector operations on the context's memory space ---------------------
 * Host table in core/vec_host.c, CUDA table in core/vec_cuda.cu. Pointers
 * are device pointers for the CUDA table. dot_local is this rank's share. */
typedef struct ng_vec_ops {
  const char *name;
  ng_status (*alloc)(ng_context ctx, double **p, int32_t n);
  void (*free)(ng_context ctx, double *p);
  ng_status (*upload)(ng_context ctx, double *dst, const double *host, int32_t n);
  ng_status (*download)(ng_context ctx, double *host, const double *src, int32_t n);
  ng_status (*fill)(ng_context ctx, int32_t n, double value, double *x);
  ng_status (*copy)(ng_context ctx, int32_t n, const double *src, double *dst);
  /* y = alpha x + y */
  ng_status (*axpy)(ng_context ctx, int32_t n, double alpha, const double *x, double *y);
  /* y = x + beta y */
  ng_status (*xpay)(ng_context ctx, int32_t n, const double *x, double beta, double *y);
  /* z = alpha x + beta y + gamma z (gamma may be 0: z overwritten) */
  ng_status (*axpbypcz)(ng_context ctx, int32_t n, double alpha, const double *x, double beta,
                        const double *y, double gamma, double *z);
  /* x = alpha x */
  ng_status (*scale)(ng_context ctx, int32_t n, double alpha, double *x);
  /* z = d .* x */
  ng_status (*pointwise_mult)(ng_context ctx, int32_t n, const double *d, const double *x, double *z);
  /* result[k] = sum x_k . y_k for k < count (fused when count is 2) */
  ng_status (*dot_local)(ng_context ctx, int32_t n, int count, const double *const *x,
                         const double *const *y, double *result);
  /* Raw bytes in the context's memory (index tables, packed buffers):
   * alloc_raw reports the bytes on failure; upload/download copy host <->
   * context memory (plain memcpy on the host). */
  ng_status (*alloc_raw)(ng_context ctx, void **p, size_t bytes, const char *what);
  void (*free_raw)(ng_context ctx, void *p);
  ng_status (*upload_raw)(ng_context ctx, void *dst, const void *host, size_t bytes);
  ng_status (*download_raw)(ng_context ctx, void *host, const void *src, size_t bytes);
  /* buf[k] = x[idx[k]] for k < n (halo packing); idx in context memory */
  ng_status (*gather)(ng_context ctx, int32_t n, const int32_t *idx, const double *x, double *buf);
  /* y[idx[k]] += buf[k] for k < n (restriction's reverse halo); idx must not
   * repeat within one call, idx and buf in context memory */
  ng_status (*scatter_add)(ng_context ctx, int32_t n, const int32_t *idx, const double *buf, double *y);
  /* Waits for all queued work on the context (no-op on the host). */
  ng_status (*sync)(ng_context ctx);
  /* Fused Krylov updates (one pass each; results are this rank's share).
   * cg_update_r: r -= alpha q; with d (a diagonal preconditioner) also
   * z = d .* r and result = {(r, z), (r, r)}, else result[0] = (r, r). */
  ng_status (*cg_update_r)(ng_context ctx, int32_t n, double alpha, const double *q, double *r,
                           const double *d, double *z, double *result);
  /* cg_update_xp: x += alpha p, then p = z + beta p (p read once). */
  ng_status (*cg_update_xp)(ng_context ctx, int32_t n, double alpha, double beta, const double *z, double *x,
                            double *p);
  /* bicgstab_update: x += alpha phat + omega shat; r -= omega t;
   * result = {(r0hat, r), (r, r)} with the new r. */
  ng_status (*bicgstab_update)(ng_context ctx, int32_t n, double alpha, const double *phat, double omega,
                               const double *shat, const double *t, double *x, double *r,
                               const double *r0hat, double result[2]);
  /* cg_step, for one rank only ((p, q) must already be global): pq = (p, q),
   * alpha = rho / pq (0 when pq is not > 0: the caller reports breakdown),
   * then cg_update_r; result = {(r, z), (r, r), pq}, (r, z) = (r, r) when
   * d is NULL. alpha stays on the device: one wait per CG iteration. */
  ng_status (*cg_step)(ng_context ctx, int32_t n, double rho, const double *p, const double *q, double *r,
                       const double *d, double *z, double result[3]);
  /* Chronopoulos-Gear CG's one pass (solver/cg_single.c): p = u + beta p,
   * s = w + beta s (beta 0: p = u, s = w, whatever they held), x += alpha p,
   * r -= alpha s, u = d .* r (without d, u must be r itself); this rank's
   * (r, u), (r, r) go into stash on the host tables; on the GPU they stay
   * on the device (no wait here) until cg1_dot, the next reduction, which
   * must follow before any other. */
  ng_status (*cg1_update)(ng_context ctx, int32_t n, double alpha, double beta, const double *d, double *u,
                          const double *w, double *p, double *s, double *x, double *r, double stash[2]);
  /* result = {(w, u), (r, u), (r, r)}: the last two are cg1_update's (from
   * stash on the host), all three fetched with one wait. */
  ng_status (*cg1_dot)(ng_context ctx, int32_t n, const double *w, const double *u, const double stash[2],
                       double result[3]);
  /* A Krylov basis of k vectors stored one after the other, vector j at
   * V + j * ldv (ldv >= n; GMRES, solver/gmres.c); the k coefficients are
   * host arrays. basis_dot: h[j] = (V_j, w) for j < k, this rank's share
   * (the caller reduces all k at once). basis_update: w = alpha V y + beta w
   * (beta 0: w overwritten). Blocked on the host, cuBLAS dgemv on a GPU. */
  ng_status (*basis_dot)(ng_context ctx, int32_t n, int k, const double *V, int64_t ldv, const double *w,
                         double *h);
  ng_status (*basis_update)(ng_context ctx, int32_t n, int k, const double *V, int64_t ldv, double alpha,
                            const double *y, double beta, double *w);
  /* New entries go above this line, and every table (vec_host.c,
   * vec_cuda.cu) fills them by designated initializer. */
} ng_vec_ops;
extern const ng_vec_ops ng_vec_ops_host;
#ifdef NG_HAVE_CUDA
extern const ng_vec_ops ng_vec_ops_cuda;
#endif

struct ng_cuda; /* device, stream, cuBLAS/cuSPARSE handles: core/cuda_context.cu, core/cuda_internal.h */
struct ng_comm; /* comm/comm.h */

/* ---- CUDA device (core/cuda_context.cu; only with NG_HAVE_CUDA) ----------- */
int ng_cuda_device_count(void); /* 0 when there is no usable device */
/* The device's name (cudaGetDeviceProperties; creates no context). */
ng_status ng_cuda_device_name(int device, char *name, size_t len);
/* device < 0: pick (NG_DEVICE env, else local rank modulo device count). */
ng_status ng_cuda_create(struct ng_cuda **cu, int device, int local_rank, char *describe, size_t len);
void ng_cuda_destroy(struct ng_cuda *cu);
/* Page-locks host memory for fast uploads (cudaHostRegister): 1 when done,
 * 0 when refused (the memory stays pageable; copies from it still work).
 * ng_cuda_host_unpin undoes it before the memory is freed. */
/* Touch fresh host memory page by page on all threads before a pageable
 * device-to-host copy into it (core/memory.c). */
void ng_host_prefault(void *p, size_t bytes);
int ng_cuda_host_pin(void *p, size_t bytes);
void ng_cuda_host_unpin(void *p);

/* ---- the execution context behind ng_context (constructed by dist/context.c) */
/* ng_context's memory_bound (comm/hwloc_bind.c): not asked for; bound to the
 * NUMA node(s) near the rank; or nothing to bind, the machine having one
 * NUMA node (the report says "only node"). */
enum { NG_MEMORY_UNBOUND = 0, NG_MEMORY_BOUND = 1, NG_MEMORY_ONLY_NODE = 2 };

struct ng_context_s {
  int on_gpu;
  const ng_vec_ops *vops;
  struct ng_cuda *cuda; /* NULL on the host */
  int cuda_borrowed;    /* cuda is another context's (ng_context_create_self): not destroyed with this one */
  struct ng_comm *comm; /* never NULL: size 1 without MPI (comm/comm.h) */
  int rank, size;
  char describe[256];
  int gpu_device;       /* CUDA device in use, -1 on the host (comm/hwloc_bind.c) */
  int memory_bound;     /* NG_MEMORY_UNBOUND, _BOUND or _ONLY_NODE (ng_context_bind_memory) */
  int comm_transport;   /* halo transport asked for: ng_transport_kind of comm/transport.h (auto by default;
                         * NG_COMM_TRANSPORT, ng_context_set_transport) */
  void *rank_info;      /* every rank's node, GPU and MPI facts, gathered by the first halo plan's transport
                         * choice and kept (they do not change for the context's life; comm/transport_select.c) */
  void *identity;       /* the identity SEND tables the gather, rows and reverse plans share (comm/halo_identity.c) */
  void *ipc_cache;      /* NG_IPC_CACHE=1: the ipc transport's kept landing buffers and opened handles
                         * (comm/transport_ipc_cache.c) */
};

/* ---- options (core/options.c; the tables: core/options.h) ------------------ */
#include "options.h"
ng_status ng_options_copy(ng_options src, ng_options *dst);

#ifdef __cplusplus
}
#endif
#endif /* NG_CORE_H */
