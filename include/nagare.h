/* nagare.h: the one public header of nagare (流れ), sparse linear solvers for
 * CFD and FEM on NVIDIA GPUs, one GPU or many over MPI.
 *
 * Conventions: opaque handles, `ng_` prefix, object-then-verb names, every
 * call returns an ng_status; on failure ng_last_error() gives a message that
 * names the cause (and the file:line trail inside the library). */
#ifndef NAGARE_H
#define NAGARE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status and messages ------------------------------------------------ */
typedef enum {
  NG_SUCCESS = 0,
  NG_ERR_ARGUMENT,      /* a bad argument: null pointer, wrong size, unknown name */
  NG_ERR_MEMORY,        /* host allocation failed */
  NG_ERR_DEVICE_MEMORY, /* GPU allocation failed */
  NG_ERR_IO,            /* a file could not be opened, read or written */
  NG_ERR_PARSE,         /* malformed input file (message has the line number) */
  NG_ERR_UNSUPPORTED,   /* valid but not supported (complex matrix, no CUDA build) */
  NG_ERR_NUMERIC,       /* NaN/Inf in input or during a solve, zero or missing diagonal */
  NG_ERR_BREAKDOWN,     /* Krylov breakdown (rho or a denominator vanished) */
  NG_ERR_DIVERGED,      /* residual grew past the divergence limit */
  NG_ERR_NOT_CONVERGED, /* max iterations reached before the tolerance */
  NG_ERR_DOES_NOT_FIT,  /* a storage format refuses this matrix (too much padding) */
  NG_ERR_CUDA,          /* a CUDA, cuBLAS or cuSPARSE call failed */
  NG_ERR_NO_DEVICE,     /* a GPU was asked for and there is none */
  NG_ERR_MPI,           /* an MPI call failed or ranks disagree */
  NG_ERR_INTERNAL       /* a bug in nagare: please report */
} ng_status;

/* Message of the last error in this thread ("" when none). */
const char *ng_last_error(void);
/* Short fixed name of a status code, e.g. "NG_ERR_PARSE". */
const char *ng_status_name(ng_status s);
/* Forget the last error message. */
void ng_error_clear(void);

/* ---- version ------------------------------------------------------------ */
ng_status ng_version(int *major, int *minor, int *patch);
const char *ng_version_string(void);

/* ---- opaque handles ----------------------------------------------------- */
typedef struct ng_context_s *ng_context;
typedef struct ng_options_s *ng_options;
typedef struct ng_matrix_s *ng_matrix;
typedef struct ng_vector_s *ng_vector;
typedef struct ng_solver_s *ng_solver;
typedef struct ng_precond_s *ng_precond;

/* ---- context: device, stream, library handles, communicator ------------- */
/* resource: "cpu", "gpu" (fails with NG_ERR_NO_DEVICE without one), or
 * "auto" / NULL (GPU when there is one and the build has CUDA, else CPU).
 * Under MPI the context spans MPI_COMM_WORLD (see ng_context_create_comm). */
ng_status ng_context_create(const char *resource, ng_context *ctx);
/* Same on a communicator of the caller's: mpi_comm points to an MPI_Comm
 * (duplicated; NULL = MPI_COMM_WORLD), e.g. &MPI_COMM_SELF for a one-rank
 * context inside an MPI job. NG_ERR_UNSUPPORTED (non-NULL) without MPI. */
ng_status ng_context_create_comm(const char *resource, const void *mpi_comm, ng_context *ctx);
ng_status ng_context_destroy(ng_context ctx);
/* 1 when this context computes on a GPU. */
ng_status ng_context_on_gpu(ng_context ctx, int *on_gpu);
/* Rank and size of the context's communicator (0 and 1 without MPI). */
ng_status ng_context_rank(ng_context ctx, int *rank, int *size);
/* One line describing the device ("NVIDIA H100 80GB HBM3, sm_90" or "host CPU, 2 threads"). */
const char *ng_context_describe(ng_context ctx);
/* One line on where this rank runs: host, cpuset ("cpus 0-3"), NUMA
 * node(s), "(memory bound)" (or "(only node)": see ng_context_bind_memory)
 * and the GPU number when on a GPU; says "hwloc not available" without
 * hwloc. */
ng_status ng_context_report_binding(ng_context ctx, char *buf, size_t len);
/* Binds this process's memory to the NUMA node(s) of its cores (of its GPU
 * on a GPU context) through hwloc; NG_ERR_UNSUPPORTED without hwloc or when
 * the OS refuses. On a machine with one NUMA node it succeeds without asking
 * the OS (all memory is there already; the report says "(only node)").
 * ng_context_create does it when NG_BIND_MEMORY=1. */
ng_status ng_context_bind_memory(ng_context ctx);
/* How halo values move between ranks, for matrices created afterwards:
 * "auto" (the default: per neighbour, ipc on the same node between GPU
 * contexts, cuda_mpi across nodes when MPI is CUDA-aware, else host),
 * "host" (staging through host memory), "ipc" (CUDA IPC, GPU to GPU on one
 * node) or "cuda_mpi" (device pointers to a CUDA-aware MPI). ipc and
 * cuda_mpi are NG_ERR_UNSUPPORTED on a host CPU context or in a build
 * without CUDA, cuda_mpi also when MPI is not CUDA-aware; unknown names are
 * NG_ERR_ARGUMENT. ng_context_create reads NG_COMM_TRANSPORT the same way;
 * programs take -comm_transport. Call it with the same name on every rank. */
ng_status ng_context_set_transport(ng_context ctx, const char *name);
/* The context's choice: "auto", "host", "ipc" or "cuda_mpi". */
const char *ng_context_get_transport(ng_context ctx);
/* 1 when the library was built with CUDA / MPI / hwloc / zlib. */
int ng_have_cuda(void);
int ng_have_mpi(void);
int ng_have_hwloc(void);
int ng_have_zlib(void);
/* GPUs the CUDA runtime sees now, in this process (CUDA_VISIBLE_DEVICES
 * applies): 0 in a build without CUDA, without a driver or a device. Creates
 * no device context. */
int ng_gpu_count(void);
/* Name of visible GPU device (0 .. ng_gpu_count() - 1), e.g. "NVIDIA H100
 * 80GB HBM3"; NG_ERR_NO_DEVICE when there is none. */
ng_status ng_gpu_name(int device, char *name, size_t len);
/* Compute capabilities the library's kernels were built for, as given to
 * configure --with-cuda-arch ("90", "80 90"); "" without CUDA. */
const char *ng_cuda_archs(void);

/* ---- options database ---------------------------------------------------- */
/* Known options (ng_options_print_help lists each with default and help):
 *   -solver cg|bicgstab|gmres|fgmres (pcg, pbicgstab: aliases of cg, bicgstab)
 *   -precond none|jacobi|amg (every solver)  -gmres_restart 30
 *   -format csr|dia|dia_half|ell|ellr|sell|codsell|auto  -tol 1e-8  -atol 0
 *   -maxit 1000  -norm b|r0  -divtol 1e4  -null_space none|constant
 *   -monitor  -device auto|cpu|gpu  ... */
ng_status ng_options_create(ng_options *opts);
ng_status ng_options_destroy(ng_options opts);
/* Parse argv; recognised options are removed from argc/argv when remove != 0. */
ng_status ng_options_set_from_args(ng_options opts, int *argc, char **argv, int remove);
/* Parse "-tol 1e-10 -solver bicgstab"; a value-less option is a flag. */
ng_status ng_options_set_from_string(ng_options opts, const char *s);
ng_status ng_options_set(ng_options opts, const char *name, const char *value);
ng_status ng_options_get_string(ng_options opts, const char *name, const char **value);
ng_status ng_options_get_int(ng_options opts, const char *name, int *value);
ng_status ng_options_get_real(ng_options opts, const char *name, double *value);
ng_status ng_options_get_bool(ng_options opts, const char *name, int *value);
/* Add a program's own option (a string; read it with the getters, which
 * check the type then). Unknown options are NG_ERR_ARGUMENT everywhere. */
ng_status ng_options_register(ng_options opts, const char *name, const char *default_value, const char *help);
/* 1 when -help was given. */
int ng_options_help_requested(ng_options opts);
/* Print every option with its default, current value and help line. */
ng_status ng_options_print_help(ng_options opts, void *file /* FILE* */);
/* The same list as a Markdown table (option, values, default, meaning):
 * doc/user-guide.md's option reference (nagare-solve -help-markdown). */
ng_status ng_options_print_markdown(ng_options opts, void *file /* FILE* */);
/* Applies the options that hold for the process rather than for one object,
 * to the matrices built (or given a format) after the call: -csr_spmv_alg,
 * cuSPARSE's algorithm of the csr matrices on a GPU; the formats' default
 * limits -dia_max_diags, -dia_max_fill, -ell_max_ratio, -sell_c,
 * -sell_sigma; -format auto's -format_auto_slack, -format_auto_prune_mb
 * (the example programs call it after ng_context_create). All or nothing:
 * NG_ERR_ARGUMENT, naming the option, leaves the values in force as they
 * were. */
ng_status ng_options_apply_spmv(ng_options opts);
/* The options one by one, for programs and plug-ins that list them their
 * own way (the PETSc plug-in's -help): ng_options_count of them; option k's
 * name (without '-'), current value, default and help. The strings live as
 * long as opts is not changed or destroyed. NG_ERR_ARGUMENT for k out of
 * range. */
int ng_options_count(ng_options opts);
ng_status ng_options_info(ng_options opts, int k, const char **name, const char **value, const char **def,
                          const char **help);

/* ---- matrices ------------------------------------------------------------ */
/* Whole matrix in CSR (64-bit row offsets, 32-bit column indices), copied
 * into the library. Under MPI it is taken from rank 0 only (the other ranks'
 * arguments are ignored and may be NULL; passing the same matrix everywhere
 * is fine too) and split into contiguous row blocks balanced by rows +
 * nonzeros, which rank 0 scatters. Collective. */
ng_status ng_matrix_create_csr(ng_context ctx, int32_t nrows, int32_t ncols,
                               const int64_t *rowptr, const int32_t *col,
                               const double *val, ng_matrix *A);
/* Distributed input, hypre IJ style: this rank owns global rows
 * [row_begin, row_end) of an n_global x n_global matrix and gives them in CSR
 * (rowptr of row_end-row_begin+1 entries starting at 0) with global column
 * indices. The ranges must tile 0..n_global-1 in rank order (rank 0 first; a
 * rank may own no rows: row_begin == row_end, rowptr may then be NULL), and
 * every rank must give the same n_global; otherwise every rank fails with
 * NG_ERR_MPI and the same message. Any rank's bad input fails all ranks
 * (the others' message names the failing rank). Collective. On a GPU
 * context with several ranks a stencil's local block is stored in dia_half
 * (symmetric) or dia, as the one-rank V-cycle's finest level: the Krylov
 * SpMV and the V-cycle's level 0 then run at the stencil formats' speed;
 * ng_matrix_format names the choice, ng_matrix_set_format overrides it. */
ng_status ng_matrix_create_distributed(ng_context ctx, int64_t n_global,
                                       int64_t row_begin, int64_t row_end,
                                       const int64_t *rowptr, const int64_t *gcol,
                                       const double *val, ng_matrix *A);
/* Read a Matrix Market file (".gz" read through zlib); under MPI only rank 0
 * reads the file and scatters contiguous row blocks balanced by rows +
 * nonzeros (as ng_matrix_create_csr). Collective; a read error on rank 0 is
 * reported on every rank. */
ng_status ng_matrix_read_mtx(ng_context ctx, const char *path, ng_matrix *A);
/* Write the matrix (gathered to rank 0) as coordinate real general. */
ng_status ng_matrix_write_mtx(ng_matrix A, const char *path);
/* Generate a test problem: spec "fem27:64" (64^3 nodes), "fem27:64x32x32",
 * "lap7:N", "lap27:N", "aniso27:N", "elast27:N" (3D linear elasticity, Q1
 * elements, 3 unknowns per node: 3 N^3 rows, clamped at x = 0),
 * "mps:N" (dam-break block, N particles along its width);
 * "het7:N[:seed]", "het5:N[:seed]", "rotaniso:N[:eps[:angle]]",
 * "rotaniso3:N[:eps[:angle]]" (hard coefficients, doc/user-guide.md);
 * "lap7:N:neumann", "lap27:N:neumann": pure Neumann, singular (rows sum to
 * zero, the constant null space: see ng_solver_set_null_space; under MPI
 * generated on rank 0 and scattered). Hard coefficients, b = 1 (user guide,
 * "Generated problems"): "het7:N[:seed]", "het5:N[:seed]",
 * "rotaniso:N[:eps[:angle]]", "rotaniso3:N[:eps[:angle]]", and the CFD
 * pressure classes "stretch7:N[:ratio]" (graded toward a wall, aspect ratio
 * up to ratio, default 1000), "jump2q1:N[:seed]" (2D Q1, 1e4 jumps, rotated
 * 1:100 anisotropy), "bubbles7:N[:seed]" (density ratio 1000),
 * "spheres7:N[:seed]" (k = 1e6 in 40 spheres), "jump3q1:N[:seed]" (jump2q1
 * in 3D, 27 points), "bubbles5:N[:seed]" (bubbles7 in 2D), "layers7:N[:seed]"
 * (layered permeability 1e-3 to 1e3), "p1tet:N[:seed]" (P1 tetrahedra of
 * jittered points, -lap u).
 * b (may be NULL) receives the problem's right-hand side.
 * Under MPI grid problems are cut into slabs of whole z-planes (natural
 * order, so a slab is a contiguous row range with a one-plane halo each
 * side; ranks beyond nz own no rows): for lap7, lap27 and aniso27 each rank
 * generates only its own slab; fem27 and elast27 are generated on rank 0 and
 * scattered; mps is generated on rank 0 and scattered in contiguous blocks
 * balanced by nonzeros. b is distributed like the rows. Collective. */
ng_status ng_matrix_generate(ng_context ctx, const char *spec, ng_matrix *A, ng_vector *b);
/* Replace the values, same pattern, same order as given at creation. */
ng_status ng_matrix_update_values(ng_matrix A, const double *val);
ng_status ng_matrix_get_size(ng_matrix A, int64_t *n_global, int32_t *n_local, int64_t *nnz_global);
/* Nonzeros stored on this rank (local and off-rank blocks). */
ng_status ng_matrix_get_local_nnz(ng_matrix A, int64_t *nnz_local);
/* Global row range owned by this rank. */
ng_status ng_matrix_get_ownership(ng_matrix A, int64_t *row_begin, int64_t *row_end);
/* Select the SpMV storage format ("csr", "dia", "dia_half", "ell", "ellr",
 * "sell", "auto"); the library keeps CSR where a format refuses the matrix. */
ng_status ng_matrix_set_format(ng_matrix A, const char *format);
const char *ng_matrix_format(ng_matrix A);
/* y = A x (collective under MPI: halo exchange overlapped with the local block) */
ng_status ng_matrix_apply(ng_matrix A, ng_vector x, ng_vector y);
/* This rank's rows, halo size (distinct off-rank columns read), neighbour
 * ranks (sent to or received from) and wall seconds spent in halo exchanges
 * since creation (packing, posting and waiting; not the overlapped SpMV).
 * Any output may be NULL. One rank: n_halo = n_neighbors = 0, 0 seconds. */
ng_status ng_matrix_get_comm_info(ng_matrix A, int32_t *n_local_rows, int32_t *n_halo, int *n_neighbors,
                                  double *comm_seconds);
/* The transport of each of this rank's neighbours, e.g. "ipc:1,2 host:0"
 * (kind, then the neighbour ranks it serves); "-" without neighbours. */
ng_status ng_matrix_get_transport(ng_matrix A, char *buf, size_t len);
ng_status ng_matrix_destroy(ng_matrix A);

/* ---- vectors ------------------------------------------------------------- */
/* A vector distributed like A's rows. */
ng_status ng_vector_create(ng_matrix A, ng_vector *v);
ng_status ng_vector_destroy(ng_vector v);
ng_status ng_vector_get_size(ng_vector v, int32_t *n_local);
/* Copy this rank's entries in / out (host arrays of n_local). */
ng_status ng_vector_set_values(ng_vector v, const double *values);
ng_status ng_vector_get_values(ng_vector v, double *values);
ng_status ng_vector_fill(ng_vector v, double value);
ng_status ng_vector_copy(ng_vector src, ng_vector dst);
/* y = alpha x + y */
ng_status ng_vector_axpy(double alpha, ng_vector x, ng_vector y);
/* Global reductions (all ranks get the result). */
ng_status ng_vector_dot(ng_vector x, ng_vector y, double *result);
ng_status ng_vector_norm2(ng_vector x, double *result);
/* Read/write a Matrix Market array vector: rank 0 reads and scatters /
 * gathers and writes the whole vector. Collective. */
ng_status ng_vector_read_mtx(ng_vector v, const char *path);
ng_status ng_vector_write_mtx(ng_vector v, const char *path);

/* ---- preconditioners ----------------------------------------------------- */
/* Built from the options' -precond (none, jacobi, amg) for matrix A. */
ng_status ng_precond_create(ng_context ctx, ng_options opts, ng_matrix A, ng_precond *P);
/* New values of A, same pattern: recompute what depends on values only. */
ng_status ng_precond_update(ng_precond P, ng_matrix A);
ng_status ng_precond_apply(ng_precond P, ng_vector r, ng_vector z);
ng_status ng_precond_destroy(ng_precond P);
/* A description into buf (NUL-terminated, truncated to len): for amg the
 * levels with rows and nonzeros, grid and operator complexity, setup time. */
ng_status ng_precond_describe(ng_precond P, char *buf, size_t len);
/* The AMG hierarchy: *nlevels levels (0 for a preconditioner without
 * levels), and for the first min(*nlevels, max) of them the global rows and
 * nonzeros of each level's operator (level 0: A). rows and nnz may be NULL
 * when max is 0. Same result on every rank; not collective. */
ng_status ng_precond_get_levels(ng_precond P, int *nlevels, int64_t *rows, int64_t *nnz, int max);

/* ---- solvers ------------------------------------------------------------- */
/* -solver cg (CG), bicgstab (BiCGSTAB, right-preconditioned), gmres
 * (GMRES(m), right-preconditioned, m = -gmres_restart) or fgmres (flexible
 * GMRES(m): the preconditioner may change between applications); pcg and
 * pbicgstab are other names of cg and bicgstab. Every solver applies the
 * -precond preconditioner (none: unpreconditioned). */
ng_status ng_solver_create(ng_context ctx, ng_options opts, ng_solver *S);
/* Set the operator; builds the preconditioner named by -precond (setup). */
ng_status ng_solver_set_operator(ng_solver S, ng_matrix A);
/* Solve A x = b from the initial guess in x. Returns NG_SUCCESS when the
 * tolerance was reached, else NG_ERR_NOT_CONVERGED / _BREAKDOWN / _DIVERGED
 * (the iterate in x and the statistics below are still valid), or
 * NG_ERR_NUMERIC at once when b or x0 holds NaN/Inf or a NaN/Inf appears
 * during the iteration (an overflow in A p, a preconditioner producing
 * NaN/Inf); the message names the iteration and the quantity, and under MPI
 * every rank returns the same status at the same iteration. */
ng_status ng_solver_solve(ng_solver S, ng_vector b, ng_vector x);
ng_status ng_solver_get_iterations(ng_solver S, int *iterations);
/* Final relative residual as the solver measured it (recursive residual). */
ng_status ng_solver_get_residual(ng_solver S, double *relative_residual);
/* Residual norm history: history[0] = ||r0||, then one per iteration. */
ng_status ng_solver_get_history(ng_solver S, const double **history, int *length);
/* Seconds spent in set_operator (setup) and in the last solve. */
ng_status ng_solver_get_times(ng_solver S, double *setup_seconds, double *solve_seconds);
/* ---- singular systems (null spaces) ----
 * A singular operator, e.g. a pure-Neumann pressure Poisson (every row sums
 * to zero: the constant vector spans the null space), as PETSc's
 * MatSetNullSpace / MatNullSpaceCreate: nvec vectors (1 to 8; created like
 * the operator's vectors) spanning the null space of A, which must also be
 * that of A^T (true for a symmetric A). They are copied and orthonormalised
 * here (collective). Every solve then removes b's component in the null
 * space (a discrete pressure Poisson's rhs is consistent only up to
 * round-off; see ng_solver_get_rhs_null_component), keeps the iterates
 * orthogonal to it and returns the minimum-norm solution; -tol is then
 * relative to the projected ||b||. nvec = 0 removes it (back to the
 * -null_space option: none, or constant, which builds the constant vector
 * at set_operator). May be called before or after ng_solver_set_operator;
 * the vectors must have the operator's local length. */
ng_status ng_solver_set_null_space(ng_solver S, int nvec, ng_vector *vecs);
/* How inconsistent the last solve's b was: ||b - P b|| / ||b||, the norm of
 * the null-space component removed relative to ||b|| (0 without one). */
ng_status ng_solver_get_rhs_null_component(ng_solver S, double *relative);
/* The number of null-space vectors in use (0: none). */
ng_status ng_solver_get_null_space_size(ng_solver S, int *nvec);
/* This rank's seconds in the preconditioner's own exchanges between ranks
 * since its setup (the distributed AMG's coarse levels, P and R; the
 * finest level's halo counts in ng_matrix_get_comm_info); 0 without one. */
ng_status ng_solver_get_precond_comm_seconds(ng_solver S, double *seconds);
/* The preconditioner that set_operator built (owned by the solver: not to
 * be destroyed; NULL before set_operator and for -precond none). */
ng_status ng_solver_get_precond(ng_solver S, ng_precond *P);
/* What runs: the method's name ("cg" for -solver pcg) and the
 * preconditioner's ("none" without one). Either output may be NULL; the
 * strings are static. The preconditioner is known after set_operator
 * ("none" before). */
ng_status ng_solver_get_method(ng_solver S, const char **method, const char **precond);
/* Bytes this rank holds for the solve in one memory space: device 1, the
 * GPU's memory of a GPU context (all 0 on a CPU context); device 0, the
 * host's. bytes[0]: the matrix's storage (its arrays: CSR blocks, SpMV
 * format copies); [1]: what the preconditioner's setup left allocated (the
 * AMG hierarchy: the levels' A, P, R, smoother data and vectors; 0 for the
 * others); [2]: the setup's peak above what was allocated before it; [3]:
 * the Krylov method's work vectors, scratch and history. Measured by the
 * library's allocation accounting (the -amg_view memory line); after
 * set_operator. Not collective. */
ng_status ng_solver_get_memory(ng_solver S, int device, int64_t bytes[4]);
/* Convergence monitor: called by every solver on every rank with the
 * iteration and the residual norm ||r|| (global, the same on every rank):
 * once with iteration 0 and ||r0||, then once per iteration, so a solve of
 * k iterations calls it k + 1 times (GMRES: the least-squares estimate of
 * ||r||, as in the history). It must not call collective nagare functions.
 * fn NULL removes it. Independent of -monitor (which prints on rank 0). */
typedef void (*ng_monitor_fn)(ng_solver S, int iteration, double rnorm, void *user_ctx);
ng_status ng_solver_set_monitor(ng_solver S, ng_monitor_fn fn, void *user_ctx);
ng_status ng_solver_destroy(ng_solver S);

#ifdef __cplusplus
}
#endif
#endif /* NAGARE_H */
