/* solver/solver.h: the Krylov methods' ops table, the registry
 * (solver/registry.c), the struct behind ng_solver and the building blocks
 * the methods share (solver/krylov_util.c, cg_single.c, null_space.c).
 * The methods read the preconditioner's table (S->P->ops), hence
 * precond/precond.h. */
#ifndef NG_SOLVER_H
#define NG_SOLVER_H
#include "../dist/dist.h"
#include "../precond/precond.h"

#ifdef __cplusplus
extern "C" {
#endif

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
  /* 1: the method asks for a symmetric (positive definite) operator and
   * preconditioner (cg, pipecg); 0: any (bicgstab, gmres, fgmres). An AMG
   * with -amg_smoother auto picks its smoother by it. */
  int symmetric;
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
  size_t nhwork;          /* its doubles */
  double *history;        /* maxit + 1 */
  int iterations, history_len;
  double residual;        /* final relative residual */
  double setup_seconds, solve_seconds;
  int64_t lent_products;  /* products by the preconditioner's copy of A (ng_op_apply), since creation */
  double rebuild_seconds; /* of this solve: a preconditioner rebuilt by ops->adapt (counted as setup) */
  double adapt_rate;      /* the last report's rate given to ops->adapt (ng_krylov_adapt) */
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
/* The recurrence met the target at iteration it: does b - A x (computed
 * into r) meet it too? *restart = 1: no, and one of the
 * NG_KRYLOV_REPLACEMENTS residual replacements is left (the caller restarts
 * its recurrence from r); NG_ERR_NOT_CONVERGED naming the true residual
 * when none is left. CG, pipelined CG and BiCGSTAB (issue 31 item 4). */
#define NG_KRYLOV_REPLACEMENTS 3
ng_status ng_krylov_verify(ng_solver S, const double *b, const double *x, double *r, int it, int *replacements,
                           int *restart);
/* The error of a solve whose recurrence (or GMRES's estimate) met the
 * target at iteration it, rec, while b - A x stays at tn after that many
 * restarts from it: NG_ERR_NOT_CONVERGED naming both (S->residual holds
 * the true relative residual). */
ng_status ng_krylov_drift(ng_solver S, double rec, int it, double tn, int replacements);
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

/* cond(M^-1 A) >= the ratio of the extreme Ritz values of k CG iterations,
 * from their alpha_0..k-1 and beta_0..k-2 (beta_j = rho_j+1 / rho_j;
 * solver/lanczos.c); +inf when an alpha or beta is not positive (an
 * indefinite preconditioner), NaN when k is outside 1..NG_LANCZOS_MAX. */
#define NG_LANCZOS_MAX 32
double ng_krylov_lanczos_kappa(const double *alpha, const double *beta, int k);

/* After a preconditioner rebuilt itself mid-solve (krylov_util.c): r = b -
 * A x, or, with may_zero, x = 0 and r = b when that residual is the
 * smaller. The weak preconditioner's iterations can leave x worse than
 * zero (spheres7:64 with aggregation: ||b - A x|| = 122 ||b|| after 8 CG
 * iterations), and the new recurrences' rounding floor scales with where
 * they start. CG passes may_zero only when its report's rate was 1 or
 * more: with a positive definite M its iterate is better than 0 in the
 * A-norm whatever ||r|| says (het5:512 and rotaniso:512 took 1 and 2 more
 * iterations from 0). Collective. */
ng_status ng_krylov_restart_point(ng_solver S, const double *b, double *x, double *r, int may_zero);
/* P->ops->adapt with the report (krylov_adapt.c): its time counted as setup
 * (S->rebuild_seconds) and a monitor line when it rebuilt (not for a
 * dry run). */
ng_status ng_krylov_adapt(ng_solver S, const ng_precond_report *rep, int it, int *rebuilt);
/* For a method that reports ||r|| (GMRES, FGMRES, BiCGSTAB; krylov_adapt.c):
 * records ||r|| of iteration it at half of P->adapt_after and returns 1 at
 * P->adapt_after with *rep filled (rate = (||r_it|| / ||r_h||)^(1 / (it -
 * h)), kappa NaN, not a dry run); 0 otherwise and when P does not ask. */
int ng_krylov_adapt_due(ng_solver S, int it, double rnorm, double *r_half, ng_precond_report *rep);
/* CG's coefficients since its recurrence (re)started, for the
 * preconditioner's adapt hook (solver/krylov_adapt.c). */
typedef struct ng_cg_lanczos {
  double alpha[NG_LANCZOS_MAX], beta[NG_LANCZOS_MAX];
  double rho_half; /* (r, M^-1 r) after half of P->adapt_after iterations */
  int n;           /* iterations since the recurrence (re)started (the first NG_LANCZOS_MAX kept) */
} ng_cg_lanczos;
/* Records iteration it's alpha, beta and rho = (r, M^-1 r); when
 * P->adapt_after of them are in, gives P->ops->adapt the report
 * (ng_precond_report: rate and condition estimate); *rebuilt: the
 * preconditioner changed, restart the recurrence (x kept, r recomputed).
 * Nothing when P has no adapt hook or has decided (adapt_after 0).
 * Collective. */
ng_status ng_cg_adapt_step(ng_solver S, ng_cg_lanczos *L, double alpha, double beta, double rho, int it,
                           int *rebuilt);

/* The options of solver/ (solver_options.c). */
extern const ng_option_table ng_solver_options, ng_gmres_options, ng_krylov_options;

#ifdef __cplusplus
}
#endif
#endif /* NG_SOLVER_H */
