/* solver/krylov_util.c: building blocks every Krylov method shares: the
 * operator and preconditioner applications on context memory, and the
 * convergence/divergence bookkeeping (history, -monitor and the monitor
 * callback, status messages).
 * Numeric faults: every scalar a method forms from a global reduction is
 * checked finite where it is formed, so NaN/Inf from the matrix product or
 * the preconditioner ends the solve at that iteration with NG_ERR_NUMERIC,
 * the same on every rank (the checked values are global sums).
 * Nothing here allocates or branches on the device. */
#include "solver.h"
#include "trace.h"
#include <math.h>

/* y = A x: through the preconditioner's copy of A when it lends one (AMG's
 * finest level on a one-rank GPU: dia_half, 3.7x cuSPARSE's CSR on
 * lap27:256), else the matrix's own table */
ng_status ng_op_apply(ng_solver S, const double *x, double *y)
{
  const ng_spmv_ops *ops = NULL;
  void *data = NULL;
  if (S->P && S->P->ops->operator_table) S->P->ops->operator_table(S->P, S->A, &ops, &data);
  if (ops) {
    NG_CHECK(ops->apply(data, 1.0, x, 0.0, y));
    S->lent_products++;
    return NG_SUCCESS;
  }
  NG_CHECK(ng_matrix_apply_raw(S->A, x, y));
  return NG_SUCCESS;
}

/* z = M^-1 r; identity (a copy) when the solver has no preconditioner. */
ng_status ng_pc_apply(ng_solver S, const double *r, double *z)
{
  double t0 = ng_trace_t0();
  if (S->P)
    NG_CHECK(S->P->ops->apply(S->P, r, z));
  else
    NG_CHECK(S->ctx->vops->copy(S->ctx, S->A->n_local, r, z));
  ng_trace_span(NG_TR_PRECOND, t0);
  return NG_SUCCESS;
}

/* -monitor prints on rank 0; the user's callback (ng_solver_set_monitor)
 * runs on every rank. Both see every iteration, 0 included, from here. */
static void monitor(ng_solver S, int it, double rnorm)
{
  if (S->monitor_fn) S->monitor_fn(S, it, rnorm, S->monitor_ctx);
  if (S->monitor && S->ctx->rank == 0) {
    printf("  it %4d  ||r|| %.6e  rel %.3e\n", it, rnorm, S->norm_ref > 0 ? rnorm / S->norm_ref : 0.0);
    fflush(stdout);
  }
}

ng_status ng_krylov_begin(ng_solver S, double r0norm, int *done)
{
  S->iterations = 0;
  S->history[0] = r0norm;
  S->history_len = 1;
  S->norm_ref = S->norm_r0 ? r0norm : S->bnorm;
  S->target = fmax(S->tol * S->norm_ref, S->atol);
  S->residual = S->norm_ref > 0 ? r0norm / S->norm_ref : 0.0;
  monitor(S, 0, r0norm);
  /* b and x0 were checked finite (ng_solver_solve) and A's values are
   * finite (checked at creation and update): r0 = b - A x0 overflowed */
  if (!isfinite(r0norm))
    return NG_ERROR(NG_ERR_NUMERIC,
                    "%s: the initial residual norm is %g at iteration 0: b and x0 are finite, so b - A x0 overflowed",
                    S->ops->name, r0norm);
  *done = r0norm <= S->target;
  return NG_SUCCESS;
}

ng_status ng_krylov_check(ng_solver S, int it, double rnorm, int *done)
{
  ng_trace_span(NG_TR_ITER, ng_trace_t0()); /* a mark: the iteration's end */
  S->iterations = it;
  S->history[it] = rnorm;
  S->history_len = it + 1;
  S->residual = S->norm_ref > 0 ? rnorm / S->norm_ref : 0.0;
  monitor(S, it, rnorm);
  if (!isfinite(rnorm))
    return NG_ERROR(NG_ERR_NUMERIC, "%s: NaN/Inf at iteration %d: the residual norm ||r|| became %g", S->ops->name,
                    it, rnorm);
  if (rnorm > S->divtol * S->history[0])
    return NG_ERROR(NG_ERR_DIVERGED, "%s: diverged at iteration %d: ||r|| = %.3e > divtol %g * ||r0|| = %.3e%s",
                    S->ops->name, it, rnorm, S->divtol, S->history[0],
                    S->null_n ? ""
                              : " (a singular A with an inconsistent b, e.g. a pure-Neumann problem? give its "
                                "null space: -null_space constant)");
  *done = rnorm <= S->target;
  return NG_SUCCESS;
}

ng_status ng_krylov_nonfinite(ng_solver S, int it, const char *what, double value, const char *cause)
{
  return NG_ERROR(NG_ERR_NUMERIC, "%s: NaN/Inf at iteration %d: %s = %g (%s; last finite ||r|| = %.3e)",
                  S->ops->name, it, what, value, cause, S->history[S->history_len - 1]);
}

ng_status ng_krylov_preconditioned_nonfinite(ng_solver S, int it, const char *what, double value,
                                             const double *z, const char *zname, const char *if_z_finite)
{
  double zz;
  char cause[160];
  NG_CHECK(ng_dot(S->ctx, S->A->n_local, z, z, &zz));
  if (!isfinite(zz))
    snprintf(cause, sizeof(cause), "the preconditioner %s produced NaN/Inf: ||%s||^2 = %g",
             S->P ? S->P->ops->name : "(none)", zname, zz);
  else
    snprintf(cause, sizeof(cause), "%s is finite: %s", zname, if_z_finite);
  return ng_krylov_nonfinite(S, it, what, value, cause);
}

ng_status ng_krylov_breakdown(ng_solver S, int it, const char *what, double value)
{
  return NG_ERROR(NG_ERR_BREAKDOWN, "%s: breakdown at iteration %d: %s = %g (||r|| = %.3e, relative %.3e)",
                  S->ops->name, it, what, value, S->history[S->history_len - 1], S->residual);
}

/* The likely causes of CG's failures, for the messages below: a measured
 * asymmetry first, else a singular A without its null space, else an
 * indefinite A (or a null space that does not fit A). */
static void cg_causes(ng_solver S, char *buf, size_t len)
{
  if (S->asymmetry > NG_CG_ASYMMETRY_TOL)
    snprintf(buf, len,
             "CG needs a symmetric positive definite A, and A is nonsymmetric (measured: |(Ab, Ab) - (b, AAb)| / "
             "(Ab, Ab) = %.1e): use -solver gmres or bicgstab",
             S->asymmetry);
  else if (S->null_n == 0)
    snprintf(buf, len,
             "CG needs a symmetric positive definite A; likely causes: A is singular and b is inconsistent "
             "(a pure-Neumann pressure Poisson: give its null space, -null_space constant or "
             "ng_solver_set_null_space), or A is indefinite or nonsymmetric (use -solver gmres or bicgstab)");
  else
    snprintf(buf, len,
             "CG needs a symmetric positive definite A on the complement of the null space; likely causes: A is "
             "indefinite or nonsymmetric (use -solver gmres or bicgstab), or the %d null-space vector(s) given do not "
             "span A's null space",
             S->null_n);
}

ng_status ng_krylov_cg_curvature(ng_solver S, int it, const char *what, double value)
{
  char causes[512];
  cg_causes(S, causes, sizeof(causes));
  return NG_ERROR(NG_ERR_BREAKDOWN, "%s: breakdown at iteration %d: %s = %g (||r|| = %.3e, relative %.3e): %s",
                  S->ops->name, it, what, value, S->history[S->history_len - 1], S->residual, causes);
}

ng_status ng_krylov_cg_growth(ng_solver S, int it, double rnorm, double rmin, int itmin)
{
  char causes[512];
  cg_causes(S, causes, sizeof(causes));
  return NG_ERROR(NG_ERR_DIVERGED,
                  "%s: diverged at iteration %d: ||r|| = %.3e grew past %g times its smallest value %.3e (iteration "
                  "%d) on a nonsymmetric matrix: %s",
                  S->ops->name, it, rnorm, NG_CG_GROWTH, rmin, itmin, causes);
}

ng_status ng_krylov_not_converged(ng_solver S)
{
  return NG_ERROR(NG_ERR_NOT_CONVERGED,
                  "%s: not converged after %d iterations: ||r|| = %.3e, relative %.3e > tol %g (atol %g)",
                  S->ops->name, S->iterations, S->history[S->history_len - 1], S->residual, S->tol, S->atol);
}

ng_status ng_krylov_true_residual(ng_solver S, double rnorm, int *done)
{
  int last = S->history_len - 1;
  if (!isfinite(rnorm))
    return NG_ERROR(NG_ERR_NUMERIC, "%s: NaN/Inf at iteration %d: the recomputed residual norm ||b - A x|| is %g",
                    S->ops->name, S->iterations, rnorm);
  S->history[last] = rnorm;
  S->residual = S->norm_ref > 0 ? rnorm / S->norm_ref : 0.0;
  *done = rnorm <= S->target;
  return NG_SUCCESS;
}

/* r = b - A x and ||r|| (global). */
static ng_status true_residual(ng_solver S, const double *b, const double *x, double *r, double *norm)
{
  ng_context ctx = S->ctx;
  double rr;
  NG_CHECK(ng_op_apply(S, x, r));
  NG_CHECK(ctx->vops->xpay(ctx, S->A->n_local, b, -1.0, r));
  NG_CHECK(ng_dot(ctx, S->A->n_local, r, r, &rr));
  *norm = sqrt(rr);
  return NG_SUCCESS;
}

ng_status ng_krylov_verify(ng_solver S, const double *b, const double *x, double *r, int it, int *replacements,
                           int *restart)
{
  double tn = 0.0, rec = S->history[S->history_len - 1];
  int done;
  *restart = 0;
  NG_CHECK(true_residual(S, b, x, r, &tn));
  if (tn <= S->target) return NG_SUCCESS; /* the recorded (recurrence) residual stays */
  NG_CHECK(ng_krylov_true_residual(S, tn, &done)); /* records ||b - A x|| */
  if (*replacements < NG_KRYLOV_REPLACEMENTS && it < S->maxit) {
    (*replacements)++;
    *restart = 1;
    return NG_SUCCESS;
  }
  return ng_krylov_drift(S, rec, it, tn, *replacements);
}

ng_status ng_krylov_drift(ng_solver S, double rec, int it, double tn, int replacements)
{
  return NG_ERROR(NG_ERR_NOT_CONVERGED,
                  "%s: the recurrence's ||r|| = %.3e met the target %.3e at iteration %d, but the true residual "
                  "||b - A x|| = %.3e (relative %.3e > tol %g) after %d residual replacements: rounding drift "
                  "beyond what this tolerance allows (a loose or inexact preconditioner, or an ill-conditioned A); "
                  "try a larger -tol",
                  S->ops->name, rec, S->target, it, tn, S->residual, S->tol, replacements);
}

ng_status ng_krylov_null_project(ng_solver S, double *v, double *removed)
{
  ng_context ctx = S->ctx;
  int k = S->null_n;
  double c[NG_NULL_SPACE_MAX], s = 0.0;
  const double *vs[NG_NULL_SPACE_MAX];
  if (removed) *removed = 0.0;
  if (k == 0) return NG_SUCCESS;
  for (int j = 0; j < k; j++) vs[j] = v;
  /* c = Q^T v (one fused pass where the table fuses, one reduction) */
  NG_CHECK(ctx->vops->dot_local(ctx, S->null_len, k, (const double *const *)S->null_vec, vs, c));
  NG_CHECK(ng_comm_allreduce_sum(ctx, c, k));
  for (int j = 0; j < k; j++) {
    NG_CHECK(ctx->vops->axpy(ctx, S->null_len, -c[j], S->null_vec[j], v));
    s += c[j] * c[j];
  }
  if (removed) *removed = sqrt(s);
  return NG_SUCCESS;
}

ng_status ng_krylov_asymmetry(ng_solver S, const double *b, double *w1, double *w2, double *asym)
{
  double d[2];
  NG_CHECK(ng_op_apply(S, b, w1));  /* w1 = A b */
  NG_CHECK(ng_op_apply(S, w1, w2)); /* w2 = A A b */
  NG_CHECK(ng_dot2(S->ctx, S->A->n_local, w1, w1, b, w2, d));
  /* (A b, A b) = b^T A^T A b and (b, A A b) = b^T A A b agree for A = A^T;
   * their difference is b^T (A^T - A) A b. NaN/Inf: left to the solve's
   * own checks (reported as 0 here) */
  *asym = d[0] > 0.0 && isfinite(d[0]) && isfinite(d[1]) ? fabs(d[0] - d[1]) / d[0] : 0.0;
  return NG_SUCCESS;
}

ng_status ng_krylov_restart_point(ng_solver S, const double *b, double *x, double *r, int may_zero)
{
  ng_context ctx = S->ctx;
  int32_t n = S->A->n_local;
  double d[2];
  NG_CHECK(ng_op_apply(S, x, r));
  NG_CHECK(ctx->vops->xpay(ctx, n, b, -1.0, r));
  if (!may_zero) return NG_SUCCESS;
  NG_CHECK(ng_dot2(ctx, n, r, r, b, b, d));
  if (d[0] > d[1]) { /* x worse than zero */
    NG_CHECK(ctx->vops->fill(ctx, n, 0.0, x));
    NG_CHECK(ctx->vops->copy(ctx, n, b, r));
  }
  return NG_SUCCESS;
}
