/* precond/precond.h: the preconditioners' ops table, the registry
 * (precond/precond.c) and the struct behind ng_precond. */
#ifndef NG_PRECOND_H
#define NG_PRECOND_H
#include "../dist/dist.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A Krylov solver's first its iterations with this preconditioner: rate =
 * the mean reduction per iteration, over the second half of them (h =
 * its / 2), of the norm the method makes fall: CG's ||r|| in the M^-1
 * norm, ((r_its, M^-1 r_its) / (r_h, M^-1 r_h))^(1/(2 (its - h))) (1 when
 * M is indefinite); GMRES's and FGMRES's ||r|| (its least-squares
 * estimate, monotone); kappa = the Lanczos estimate of cond(M^-1 A) from
 * CG's alpha and beta (+inf: M is not positive definite; NaN from GMRES).
 * dry_run: the solver asks what the preconditioner would do (*rebuilt)
 * and nothing changes (GMRES first updates x with the current M). */
typedef struct ng_precond_report {
  int its;
  double rate, kappa;
  int dry_run;
  const char *solver; /* the reporting method's name */
} ng_precond_report;

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
  /* Optional: how the Krylov method (CG, pipelined CG, GMRES, FGMRES,
   * BiCGSTAB) fared over the first P->adapt_after iterations of a
   * solve (ng_precond_report); the preconditioner may rebuild itself into
   * a stronger one (AMG's -amg_coarsening auto) and sets *rebuilt, the
   * solver then restarts its recurrence from the current iterate. It
   * clears P->adapt_after once decided. Collective: the report is the
   * same on every rank (global scalars). */
  ng_status (*adapt)(ng_precond P, const ng_precond_report *rep, int *rebuilt);
  /* Optional: an SpMV table that holds A with its current values in a
   * faster storage than A's own (AMG's finest-level copy: dia_half on a
   * one-rank GPU), for the solver's products; *ops = NULL when there is
   * none. Asked at every product: a rebuild or an update may replace it. */
  void (*operator_table)(ng_precond P, ng_matrix A, const ng_spmv_ops **ops, void **data);
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
  int adapt_after; /* > 0: ops->adapt wants CG's cond(M^-1 A) estimate after this many iterations */
  /* bytes per memory space (NG_MEM_HOST, NG_MEM_DEVICE: core/memtrack.c)
   * that the setup left allocated (the AMG hierarchy) and its peak above
   * what was allocated before it, measured by the setup (AMG: amg/amg.c)
   * or else around it (ng_precond_create) */
  int64_t mem_held[NG_MEM_SPACES], mem_peak[NG_MEM_SPACES];
};

/* The options of precond/ (precond_options.c). */
extern const ng_option_table ng_precond_options, ng_jacobi_options;

#ifdef __cplusplus
}
#endif
#endif /* NG_PRECOND_H */
