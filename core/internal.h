/* core/internal.h: what the library's own files share and users never see:
 * error macros, host memory, the host CSR/COO containers, the object structs
 * behind the public handles, and the ops tables (vectors, SpMV formats,
 * preconditioners, solvers) that keep callers free of device branches. */
#ifndef NG_INTERNAL_H
#define NG_INTERNAL_H

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

/* ---- communicator (comm/comm.c) ------------------------------------------ */
typedef struct ng_comm ng_comm; /* defined in comm/comm.h */
ng_status ng_comm_allreduce_sum(ng_context ctx, double *values, int n);
/* The same sum without waiting (pipelined CG, solver/pipecg.c): started,
 * then waited for before values is read; one in flight per context. */
ng_status ng_comm_iallreduce_sum_start(ng_context ctx, double *values, int n);
ng_status ng_comm_iallreduce_sum_wait(ng_context ctx);
ng_status ng_comm_allreduce_max_int64(ng_context ctx, int64_t *values, int n);
/* all[r] = rank r's mine (all: size entries). */
ng_status ng_comm_allgather_int64(ng_context ctx, int64_t mine, int64_t *all);
/* Collective: NG_SUCCESS on every rank when all passed NG_SUCCESS, else the
 * lowest failing rank's status and message everywhere (comm/distribute.c). */
ng_status ng_comm_agree(ng_context ctx, ng_status st);

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

/* ---- SpMV formats (spmv/) --------------------------------------------------
 * One table per format and memory space. create() converts a host CSR block
 * (refusing with NG_ERR_DOES_NOT_FIT and a reason when the format does not
 * suit it); apply() computes y = alpha A x + beta y on the table's memory. */
typedef struct ng_spmv_ops {
  const char *name;
  int on_gpu;
  ng_status (*create)(ng_context ctx, const ng_csr *A, void **data);
  ng_status (*apply)(void *data, double alpha, const double *x, double beta, double *y);
  /* same pattern, new values (A in the layout create() saw) */
  ng_status (*update_values)(void *data, const ng_csr *A);
  size_t (*bytes)(const void *data); /* exact storage footprint */
  void (*destroy)(void *data);
  /* Optional (NULL: none). create_opt: create() given the options part of a
   * format spec ("sell:32:256" -> "32:256", "" when none); describe: the name
   * to report for this instance ("auto:sell"). See spmv/formats.h. */
  ng_status (*create_opt)(ng_context ctx, const ng_csr *A, const char *opt, void **data);
  const char *(*describe)(const void *data);
  /* Optional (GPU tables): create_opt() from a copy of A already on the
   * device (dcsr from ng_dcsr_create, spmv/formats.h), so that converting to
   * several formats uploads A once. */
  ng_status (*create_dev)(ng_context ctx, const ng_csr *A, const void *dcsr, const char *opt, void **data);
  /* Optional (square tables; NULL: none), the AMG smoother's one-pass
   * kernels (amg/amg_cycle.c, smoother_jacobi.c): with dinv,
   * y = x + dinv .* (b - A x) (a damped Jacobi sweep), without (dinv NULL)
   * y = b - A x (the residual). y must not alias x; b may be y only when
   * dinv is NULL. The host tables are the reference of the GPU ones. */
  ng_status (*fused)(void *data, const double *b, const double *x, const double *dinv, double *y);
  /* Optional (GPU tables; NULL: none): update_values() from a copy of A on
   * the device (dcsr as for create_dev): nothing uploaded, nothing made. */
  ng_status (*update_dev)(void *data, const void *dcsr);
} ng_spmv_ops;
/* Host CSR visiting only its non-empty rows (spmv/csr_rows.c): a matrix's
 * off-rank block when most of its rows are empty (dist/matrix.c). */
extern const ng_spmv_ops ng_spmv_csr_rows_host;
#ifdef NG_HAVE_CUDA
extern const ng_spmv_ops ng_spmv_csr_rows_cuda; /* its GPU twin (spmv/csr_rows_cuda.cu) */
#endif
/* Registry lookup by name for a memory space (NULL when unknown). */
const ng_spmv_ops *ng_spmv_find(const char *name, int on_gpu);
/* Names registered for a memory space, NULL-terminated. */
const char *const *ng_spmv_names(int on_gpu);

struct ng_cuda;       /* device, stream, cuBLAS/cuSPARSE handles: core/cuda_context.cu */
struct ng_halo_plan;  /* dist/matrix_halo.c */

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

/* ---- objects behind the handles ------------------------------------------- */

/* ng_context's memory_bound (comm/hwloc_bind.c): not asked for; bound to the
 * NUMA node(s) near the rank; or nothing to bind, the machine having one
 * NUMA node (the report says "only node"). */
enum { NG_MEMORY_UNBOUND = 0, NG_MEMORY_BOUND = 1, NG_MEMORY_ONLY_NODE = 2 };

struct ng_context_s {
  int on_gpu;
  const ng_vec_ops *vops;
  struct ng_cuda *cuda; /* NULL on the host */
  ng_comm *comm;        /* never NULL: size 1 without MPI */
  int rank, size;
  char describe[256];
  int gpu_device;       /* CUDA device in use, -1 on the host (comm/hwloc_bind.c) */
  int memory_bound;     /* NG_MEMORY_UNBOUND, _BOUND or _ONLY_NODE (ng_context_bind_memory) */
  int comm_transport;   /* halo transport asked for: ng_transport_kind of comm/transport.h (auto by default;
                         * NG_COMM_TRANSPORT, ng_context_set_transport) */
  void *rank_info;      /* every rank's node, GPU and MPI facts, gathered by the first halo plan's transport
                         * choice and kept (they do not change for the context's life; comm/transport_select.c) */
};

struct ng_matrix_s {
  ng_context ctx;
  int64_t n_global, row_begin, nnz_global;
  int32_t n_local;
  /* Column ownership (the x this matrix reads): the rows' own for a square
   * matrix; its own ranges for a rectangular one (AMG's distributed P). */
  int64_t n_col_global, col_begin;
  int32_t n_col_local;
  ng_csr local;          /* host: owned rows x owned columns (local numbering) */
  ng_csr offrank;        /* host: owned rows x halo columns (0..n_halo-1) */
  int32_t n_halo;
  int64_t *halo_gcol;    /* global index of each halo column */
  struct ng_halo_plan *halo; /* NULL when there is no off-rank coupling */
  int64_t *value_map;    /* input position -> slot (local: k, offrank: nnz_loc+k); NULL = identity */
  const ng_spmv_ops *spmv;     void *spmv_data;     /* local block in the chosen format */
  const ng_spmv_ops *spmv_off; void *spmv_off_data; /* off-rank block (CSR over its non-empty rows) */
  /* the local block's device CSR kept beside a faster spmv chosen by the
   * matrix itself (multi-rank GPU: dia_half / dia); NULL otherwise, when
   * spmv is the CSR (or the user's format). ng_matrix_csr_ops/_data give
   * the setups (AMG, coloring) the CSR either way. */
  const ng_spmv_ops *csr_ops; void *csr_data;
  double *halo_values;   /* n_halo received values, context memory */
  char format[32];
  int pinned;            /* local.val page-locked (ng_cuda_host_pin): 1 yes, -1 refused, 0 not tried */
};

static inline const ng_spmv_ops *ng_matrix_csr_ops(const struct ng_matrix_s *A) { return A->csr_ops ? A->csr_ops : A->spmv; }
static inline void *ng_matrix_csr_data(const struct ng_matrix_s *A) { return A->csr_ops ? A->csr_data : A->spmv_data; }

struct ng_vector_s {
  ng_context ctx;
  int32_t n;        /* local length */
  int64_t n_global;
  double *data;     /* context memory (device pointer on the GPU) */
};

typedef struct ng_precond_ops {
  const char *name;
  ng_status (*setup)(ng_precond P, ng_matrix A, ng_options opts);
  ng_status (*update)(ng_precond P, ng_matrix A);
  ng_status (*apply)(ng_precond P, const double *r, double *z); /* context memory, n_local */
  void (*destroy)(ng_precond P);
  /* Optional: d when M^-1 r = d .* r (context memory), so solvers can fuse
   * the application into their vector updates; NULL otherwise. */
  const double *(*diagonal)(ng_precond P);
  /* Optional: this rank's seconds in the preconditioner's own exchanges. */
  double (*comm_seconds)(ng_precond P);
} ng_precond_ops;
const ng_precond_ops *ng_precond_find(const char *name);
/* Registered names, ", "-separated, into buf (for messages). */
void ng_precond_list(char *buf, size_t len);

struct ng_precond_s {
  ng_context ctx;
  ng_matrix A;
  const ng_precond_ops *ops;
  void *data;
  int variable; /* not a fixed linear operator (AMG's K-cycle): CG takes the flexible beta */
};

typedef struct ng_solver_ops {
  const char *name;
  /* Work vectors (context memory, allocated once at set_operator as one
   * block, each vector aligned; S->ld entries apart) without and with a
   * preconditioner (-precond other than none). */
  int nwork, nwork_precond;
  ng_status (*solve)(ng_solver S, const double *b, double *x);
  /* Optional (NULL: the counts above, no host scratch): the work when it
   * depends on the options (gmres: on -gmres_restart): vectors and doubles
   * of host scratch (S->hwork). */
  void (*work_size)(ng_solver S, int *nvec, size_t *nhost);
} ng_solver_ops;
/* Largest -gmres_restart (the GPU basis products pass m + 1 coefficients
 * through the reduction scratch; the host Hessenberg matrix is (m+1) x m). */
#define NG_GMRES_MAX_RESTART 1000
/* The method by name or alias (pcg is cg, pbicgstab is bicgstab); NULL when unknown. */
const ng_solver_ops *ng_solver_find(const char *name);
void ng_solver_list(char *buf, size_t len);

#define NG_NULL_SPACE_MAX 8 /* vectors a null space may have */

struct ng_solver_s {
  ng_context ctx;
  const ng_solver_ops *ops;
  ng_matrix A;
  ng_precond P;           /* NULL: identity (-precond none) */
  ng_options opts;        /* private copy */
  double tol, atol, divtol;
  int maxit, monitor, norm_r0;
  int classic_cg;         /* -cg_single_reduction 0 (default): the textbook two reductions on several ranks */
  int has_precond;        /* -precond is not none: set_operator builds P */
  int restart;            /* -gmres_restart */
  ng_monitor_fn monitor_fn; /* ng_solver_set_monitor (NULL: none) */
  void *monitor_ctx;
  double **work;          /* nwork vectors of n_local, context memory, ld apart in one block */
  double *work_block;     /* the block (vops->alloc_raw) */
  int nwork;              /* vectors in work */
  int64_t ld;             /* distance between consecutive work vectors (>= n_local) */
  double *hwork;          /* host scratch of the method (work_size's nhost doubles) */
  double *history;        /* maxit + 1 */
  int iterations, history_len;
  double residual;        /* final relative residual */
  double setup_seconds, solve_seconds;
  double bnorm;           /* ||b|| of the current solve (set before ops->solve) */
  double norm_ref;        /* ||b|| or ||r0||: what S->residual is relative to */
  double target;          /* stop when ||r|| <= target */
  /* Null space of a singular A (solver/null_space.c): null_n orthonormal
   * vectors (context memory, null_len entries each); null_b holds the
   * projected right-hand side of a solve. null_explicit: set by
   * ng_solver_set_null_space (else -null_space constant builds it at
   * set_operator). null_removed: ||b - P b|| / ||b|| of the last solve. */
  double *null_vec[NG_NULL_SPACE_MAX];
  int null_n, null_explicit, null_constant;
  int32_t null_len;
  double *null_b;
  double null_removed;
  /* CG's symmetry probe (krylov_util.c): -1 not yet measured for this
   * matrix (reset by a new matrix, not by its value updates: a time step's
   * new coefficients keep the discretisation's symmetry, and the probe's
   * two products are paid once), else the relative asymmetry
   * |(Ab, Ab) - (b, A A b)| / (Ab, Ab) */
  double asymmetry;
};

/* Solver building blocks (solver/krylov_util.c): every call runs on the
 * context's memory through ctx->vops and reduces over ranks. */
ng_status ng_op_apply(ng_solver S, const double *x, double *y);   /* y = A x */
ng_status ng_pc_apply(ng_solver S, const double *r, double *z);   /* z = M^-1 r */
ng_status ng_dot(ng_context ctx, int32_t n, const double *x, const double *y, double *r);
ng_status ng_dot2(ng_context ctx, int32_t n, const double *x1, const double *y1,
                  const double *x2, const double *y2, double r[2]);

/* CG with one reduction an iteration (solver/cg_single.c): cg / pcg on
 * several ranks with no (S->P NULL) or a diagonal preconditioner (dinv). */
ng_status ng_cg_single_solve(ng_solver S, const double *b, double *x, const double *dinv);

/* Convergence bookkeeping (solver/krylov_util.c). ng_krylov_begin records
 * ||r0|| as history[0], sets the target and *done when r0 already meets it;
 * ng_krylov_check records iteration it's ||r||, prints with -monitor, sets
 * *done on convergence and fails with NG_ERR_NUMERIC on NaN/Inf and
 * NG_ERR_DIVERGED on growth past divtol*||r0||; the others build the
 * failure messages. */
ng_status ng_krylov_begin(ng_solver S, double r0norm, int *done);
ng_status ng_krylov_check(ng_solver S, int it, double rnorm, int *done);
ng_status ng_krylov_breakdown(ng_solver S, int it, const char *what, double value);
/* CG's safeguards (krylov_util.c), their messages naming the likely causes
 * (a singular A with an inconsistent b and no null space given, a
 * nonsymmetric or indefinite A): NG_ERR_BREAKDOWN for (p, A p) <= 0 or
 * (r, M^-1 r) < 0 (what: the quantity, value: its value), and
 * NG_ERR_DIVERGED when, on an operator measured nonsymmetric (asymmetry
 * above NG_CG_ASYMMETRY_TOL), ||r|| grows past NG_CG_GROWTH times the
 * smallest ||r|| so far (CG's recurrences have lost their meaning there:
 * it would otherwise run to -maxit with a growing residual). */
#define NG_CG_ASYMMETRY_TOL 1e-6
#define NG_CG_GROWTH 100.0
ng_status ng_krylov_cg_curvature(ng_solver S, int it, const char *what, double value);
ng_status ng_krylov_cg_growth(ng_solver S, int it, double rnorm, double rmin, int itmin);
/* NG_ERR_NUMERIC: the global scalar `what` became non-finite at iteration it
 * (value), with the cause. The _preconditioned_ form finds the cause itself:
 * it reduces ||z||^2 of the preconditioner output z (named zname) over the
 * ranks (collective: call it on every rank, as the value is global) and
 * blames the preconditioner when z is not finite, else says if_z_finite. */
ng_status ng_krylov_nonfinite(ng_solver S, int it, const char *what, double value, const char *cause);
ng_status ng_krylov_preconditioned_nonfinite(ng_solver S, int it, const char *what, double value,
                                             const double *z, const char *zname, const char *if_z_finite);
ng_status ng_krylov_not_converged(ng_solver S);
/* Replaces the last recorded ||r|| (history, relative residual) by rnorm,
 * a recomputed true residual norm, without calling the monitors again;
 * *done when it meets the target. NG_ERR_NUMERIC when not finite. */
ng_status ng_krylov_true_residual(ng_solver S, double rnorm, int *done);
/* v -= Q Q^T v over the solver's null space Q (orthonormal; nothing
 * without one); *removed (may be NULL) = ||Q^T v||, the norm of what was
 * removed. One reduction of null_n values, no allocation. Collective. */
ng_status ng_krylov_null_project(ng_solver S, double *v, double *removed);
/* The relative asymmetry of S->A, measured once per operator with two
 * products of A (w1, w2: work vectors, overwritten) from b (krylov_util.c):
 * |(A b, A b) - (b, A (A b))| / (A b, A b), 0 for a symmetric A up to
 * round-off. Collective. */
ng_status ng_krylov_asymmetry(ng_solver S, const double *b, double *w1, double *w2, double *asym);
/* Null-space bookkeeping of solver.c (solver/null_space.c): the constant
 * vector of -null_space constant for A's rows (unless set explicitly), the
 * vectors freed. */
ng_status ng_null_space_setup(ng_solver S);
void ng_null_space_free(ng_solver S);

/* Halo plan (dist/matrix_halo.c): built once at setup from the global columns this
 * rank reads but does not own; begin/end move owned entries of x into
 * A->halo_values through the context's transport. */
/* Collective; starts: the column ranges' starts (size + 1); st: the
 * caller's status so far, agreed with the plan's own allocations (A may be
 * NULL where st failed). */
ng_status ng_halo_plan_create(ng_context ctx, ng_matrix A, const int64_t *starts, ng_status st);
ng_status ng_halo_begin(ng_matrix A, const double *x);
ng_status ng_halo_end(ng_matrix A);
void ng_halo_plan_destroy(struct ng_halo_plan *h);
/* Global row ranges of every rank ("starts" has size+1 entries) for
 * ownership lookups and distribution of whole inputs (comm/partition.c). */
ng_status ng_partition_rows_by_nnz(ng_context ctx, const ng_csr *A, int64_t *starts);

/* The rank's GPU among ndev (comm/hwloc_bind.c): NG_DEVICE when set, else
 * the GPU nearest the rank's cores (hwloc), else local rank modulo ndev. */
ng_status ng_binding_pick_gpu(ng_context ctx, int ndev, int *device);

/* Internal matrix apply on raw context-memory arrays (halo exchange inside). */
ng_status ng_matrix_apply_raw(ng_matrix A, const double *x, double *y);
/* y = alpha A x + beta y, the same way (x: n_col_local entries, y: n_local). */
ng_status ng_matrix_apply_ab(ng_matrix A, double alpha, const double *x, double beta, double *y);
/* Collective: a rectangular distributed matrix (rows [row_begin, row_end) of
 * n_global, given with global columns of n_col_global, this rank owning the
 * columns [col_begin, col_end)), in CSR, with its halo plan over the columns'
 * ranges. ng_matrix_create_distributed is the square case. */
ng_status ng_matrix_create_rect(ng_context ctx, int64_t n_global, int64_t row_begin, int64_t row_end,
                                int64_t n_col_global, int64_t col_begin, int64_t col_end, const int64_t *rowptr,
                                const int64_t *gcol, const double *val, ng_matrix *A);
/* The same matrix from compact columns: entry p's global column is
 * cmap[ccol[p]] (cmap: m columns, strictly ascending), as AMG's distributed
 * P holds them; the split into the blocks then needs no hash map. */
ng_status ng_matrix_create_rect_compact(ng_context ctx, int64_t n_global, int64_t row_begin, int64_t row_end,
                                        int64_t n_col_global, int64_t col_begin, int64_t col_end,
                                        const int64_t *rowptr, const int32_t *ccol, const int64_t *cmap, int32_t m,
                                        const double *val, ng_matrix *A);

/* ng_matrix_create_distributed keeping CSR for the local block (AMG's
 * coarse levels); the public one may pick a faster format on the GPU. */
ng_status ng_matrix_create_distributed_csr(ng_context ctx, int64_t n_global, int64_t row_begin, int64_t row_end,
                                           const int64_t *rowptr, const int64_t *gcol, const double *val,
                                           ng_matrix *A);

/* One rank: a matrix over the host CSR W itself (square; validated), W
 * emptied even on failure (dist/matrix.c): no copy of a big input. */
ng_status ng_matrix_adopt_local(ng_context ctx, ng_csr *W, ng_matrix *A);

/* ---- options (core/options.c) ---------------------------------------------- */
ng_status ng_options_copy(ng_options src, ng_options *dst);

#ifdef __cplusplus
}
#endif
#endif /* NG_INTERNAL_H */
