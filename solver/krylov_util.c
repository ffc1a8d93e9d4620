/* solver/krylov_util.c: building blocks every Krylov method shares: the
 * operator and preconditioner applications on context memory, and the
 * convergence/divergence bookkeeping (history, -monitor, status messages).
 * Nothing here allocates or branches on the device. */
#include "internal.h"
#include <math.h>

ng_status ng_op_apply(ng_solver S, const double *x, double *y)
{
  NG_CHECK(ng_matrix_apply_raw(S->A, x, y));
  return NG_SUCCESS;
}

/* z = M^-1 r; identity (a copy) when the solver has no preconditioner. */
ng_status ng_pc_apply(ng_solver S, const double *r, double *z)
{
  if (S->P)
    NG_CHECK(S->P->ops->apply(S->P, r, z));
  else
    NG_CHECK(S->ctx->vops->copy(S->ctx, S->A->n_local, r, z));
  return NG_SUCCESS;
}

static void monitor(ng_solver S, int it, double rnorm)
{
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
  if (!isfinite(r0norm))
    return NG_ERROR(NG_ERR_DIVERGED, "%s: initial residual norm is %g (NaN/Inf in A, b or x0)", S->ops->name, r0norm);
  *done = r0norm <= S->target;
  return NG_SUCCESS;
}

ng_status ng_krylov_check(ng_solver S, int it, double rnorm, int *done)
{
  S->iterations = it;
  S->history[it] = rnorm;
  S->history_len = it + 1;
  S->residual = S->norm_ref > 0 ? rnorm / S->norm_ref : 0.0;
  monitor(S, it, rnorm);
  if (!isfinite(rnorm))
    return NG_ERROR(NG_ERR_DIVERGED, "%s: residual norm became %g at iteration %d", S->ops->name, rnorm, it);
  if (rnorm > S->divtol * S->history[0])
    return NG_ERROR(NG_ERR_DIVERGED, "%s: diverged at iteration %d: ||r|| = %.3e > divtol %g * ||r0|| = %.3e",
                    S->ops->name, it, rnorm, S->divtol, S->history[0]);
  *done = rnorm <= S->target;
  return NG_SUCCESS;
}

ng_status ng_krylov_breakdown(ng_solver S, int it, const char *what, double value)
{
  return NG_ERROR(NG_ERR_BREAKDOWN, "%s: breakdown at iteration %d: %s = %g (||r|| = %.3e, relative %.3e)",
                  S->ops->name, it, what, value, S->history[S->history_len - 1], S->residual);
}

ng_status ng_krylov_not_converged(ng_solver S)
{
  return NG_ERROR(NG_ERR_NOT_CONVERGED,
                  "%s: not converged after %d iterations: ||r|| = %.3e, relative %.3e > tol %g (atol %g)",
                  S->ops->name, S->iterations, S->history[S->history_len - 1], S->residual, S->tol, S->atol);
}
