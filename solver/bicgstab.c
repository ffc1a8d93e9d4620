/* solver/bicgstab.c: BiCGSTAB (van der Vorst, SIAM J. Sci. Stat. Comput. 13,
 * 1992; pbicgstab is another name of it), right-preconditioned by the
 * -precond preconditioner (or none): it iterates
 * on A M^-1 y = b, x = M^-1 y, so the residual it monitors is the true
 * recursive residual b - A x. s overwrites r; without a preconditioner phat
 * is p and shat is s (no copies). Reductions per iteration: (r0hat, v), the
 * fused (t, s) and (t, t), and (r0hat, r) with (r, r) fused into the
 * update of x and r (one pass, vops->bicgstab_update). Each of them is
 * checked finite where it is formed: NaN/Inf end the solve at once with
 * NG_ERR_NUMERIC (krylov_util.c).
 * Work: r, r0hat, p, v, t (+ phat, shat, x0 with a preconditioner).
 * Singular A with a null space (solver.c projects b and x0): phat and shat,
 * the directions x moves along, are projected (p and s themselves without
 * a preconditioner), so x stays orthogonal to the null space.
 * The true residual at the end (issue 31 item 4, as CG): when the
 * recurrence's ||r|| meets the target, b - A x is computed once; where it
 * has drifted above the target the method restarts from it (r0hat = r, p =
 * r: a residual replacement), at most NG_KRYLOV_REPLACEMENTS times, else
 * NG_ERR_NOT_CONVERGED naming the true residual. The iterations before are
 * unchanged. A preconditioner that asks (-amg_coarsening auto) gets the
 * reduction of ||r|| after P->adapt_after iterations, as from GMRES, and
 * at once when the solve diverges before that: x0 is kept meanwhile (the
 * eighth work vector with a preconditioner), and after a rebuild the
 * method starts again from it. */
#include "solver.h"
#include <math.h>

/* The method begun anew from r (a replacement or a rebuilt M): a new
 * shadow r0hat = r, rho = (r0hat, r). */
static ng_status new_shadow(ng_solver S, const double *r, double *r0hat, double *rho)
{
  NG_CHECK(S->ctx->vops->copy(S->ctx, S->A->n_local, r, r0hat));
  NG_CHECK(ng_dot(S->ctx, S->A->n_local, r, r, rho));
  return NG_SUCCESS;
}

static ng_status bicgstab_solve(ng_solver S, const double *b, double *x)
{
  ng_context ctx = S->ctx;
  const ng_vec_ops *vo = ctx->vops;
  int32_t n = S->A->n_local;
  double *r = S->work[0], *r0hat = S->work[1], *p = S->work[2], *v = S->work[3], *t = S->work[4];
  double *s = r; /* s = r - alpha v is kept in r */
  double *phat = S->P ? S->work[5] : p, *shat = S->P ? S->work[6] : s;
  /* x0, kept while the preconditioner's verdict is pending (rescue below) */
  double *x0 = S->P && S->P->ops->adapt && S->P->adapt_after > 0 && !S->P->variable ? S->work[7] : NULL;
  double rho, rho_old = 1.0, alpha = 1.0, omega = 1.0, rr, d[2];
  int done, fresh = 1, replacements = 0, restart;
  double r_half = 0.0;
  ng_precond_report rep = {0};

  /* r0 = b - A x0,  r0hat = r0 */
  NG_CHECK(ng_op_apply(S, x, r));
  NG_CHECK(vo->xpay(ctx, n, b, -1.0, r));
  NG_CHECK(ng_dot(ctx, n, r, r, &rr));
  NG_CHECK(ng_krylov_begin(S, sqrt(rr), &done));
  if (done) return NG_SUCCESS;
  NG_CHECK(vo->copy(ctx, n, r, r0hat));
  rho = rr; /* (r0hat, r0) */
  if (x0) NG_CHECK(vo->copy(ctx, n, x, x0));

  for (int it = 1; it <= S->maxit; it++) {
    if (rho == 0.0) return ng_krylov_breakdown(S, it, "rho = (r0hat, r)", rho);
    /* p = r + beta (p - omega v); p = r at the start and after a replacement */
    if (fresh) {
      NG_CHECK(vo->copy(ctx, n, r, p));
      fresh = 0;
    } else {
      double beta = (rho / rho_old) * (alpha / omega);
      NG_CHECK(vo->axpbypcz(ctx, n, 1.0, r, -beta * omega, v, beta, p));
    }
    /* v = A M^-1 p,  alpha = rho / (r0hat, v) */
    if (S->P) NG_CHECK(ng_pc_apply(S, p, phat));
    NG_CHECK(ng_krylov_null_project(S, phat, NULL));
    NG_CHECK(ng_op_apply(S, phat, v));
    double r0v;
    NG_CHECK(ng_dot(ctx, n, r0hat, v, &r0v));
    if (!isfinite(r0v)) {
      if (S->P)
        return ng_krylov_preconditioned_nonfinite(S, it, "(r0hat, A M^-1 p)", r0v, phat, "M^-1 p",
                                                  "A M^-1 p overflowed");
      return ng_krylov_nonfinite(S, it, "(r0hat, A p)", r0v, "A p overflowed: p was finite");
    }
    if (r0v == 0.0) return ng_krylov_breakdown(S, it, "(r0hat, v)", r0v);
    alpha = rho / r0v;
    /* s = r - alpha v,  t = A M^-1 s,  omega = (t, s) / (t, t) */
    NG_CHECK(vo->axpy(ctx, n, -alpha, v, s));
    if (S->P) NG_CHECK(ng_pc_apply(S, s, shat));
    NG_CHECK(ng_krylov_null_project(S, shat, NULL));
    NG_CHECK(ng_op_apply(S, shat, t));
    NG_CHECK(ng_dot2(ctx, n, t, s, t, t, d));
    if (!isfinite(d[0]) || !isfinite(d[1])) {
      double bad = isfinite(d[1]) ? d[0] : d[1];
      if (S->P)
        return ng_krylov_preconditioned_nonfinite(S, it, "(t, s), (t, t) with t = A M^-1 s", bad, shat, "M^-1 s",
                                                  "A M^-1 s overflowed");
      return ng_krylov_nonfinite(S, it, "(t, s), (t, t) with t = A s", bad, "A s overflowed: s was finite");
    }
    omega = d[1] != 0.0 ? d[0] / d[1] : 0.0; /* t = 0 only when s = 0: then x below is exact */
    /* x += alpha phat + omega shat,  r = s - omega t, and (r0hat, r) for
     * the next step with ||r||: one fused pass, one reduction */
    NG_CHECK(vo->bicgstab_update(ctx, n, alpha, phat, omega, shat, t, x, r, r0hat, d));
    NG_CHECK(ng_comm_allreduce_sum(ctx, d, 2));
    /* diverging before the verdict (jump2q1:300 with aggregation: ||r|| past
     * 1e4 ||r0|| at iteration 5): the preconditioner is asked at once (rate
     * +inf); when it rebuilt itself the method starts again from x0 */
    if (x0 && isfinite(d[1]) && sqrt(d[1]) > S->divtol * S->history[0]) {
      int rebuilt = 0;
      rep = (ng_precond_report){.its = it, .rate = INFINITY, .kappa = NAN, .solver = S->ops->name};
      NG_CHECK(ng_krylov_adapt(S, &rep, it, &rebuilt));
      if (rebuilt) {
        NG_CHECK(vo->copy(ctx, n, x0, x));
        x0 = NULL;
        NG_CHECK(ng_krylov_restart_point(S, b, x, r, 0));
        NG_CHECK(new_shadow(S, r, r0hat, &rho));
        NG_CHECK(ng_krylov_check(S, it, sqrt(rho), &done));
        if (done) return NG_SUCCESS;
        fresh = 1;
        continue;
      }
    }
    NG_CHECK(ng_krylov_check(S, it, sqrt(d[1]), &done));
    if (done) {
      NG_CHECK(ng_krylov_verify(S, b, x, r, it, &replacements, &restart));
      if (!restart) return NG_SUCCESS;
      /* residual replacement: r = b - A x (made by the check), a new shadow */
      NG_CHECK(new_shadow(S, r, r0hat, &rho));
      fresh = 1;
      continue;
    }
    if (!isfinite(d[0])) return ng_krylov_nonfinite(S, it, "(r0hat, r)", d[0], "overflow: r was finite");
    if (omega == 0.0) return ng_krylov_breakdown(S, it, "omega = (t, s) / (t, t)", omega);
    rho_old = rho;
    rho = d[0];
    /* a preconditioner that asks (AMG's -amg_coarsening auto) gets the
     * reduction of ||r|| per iteration after P->adapt_after iterations; when
     * it rebuilt itself, the method starts again from r = b - A x */
    if (ng_krylov_adapt_due(S, it, sqrt(d[1]), &r_half, &rep)) {
      int rebuilt = 0;
      x0 = NULL; /* decided: no rescue from here on */
      NG_CHECK(ng_krylov_adapt(S, &rep, it, &rebuilt));
      if (rebuilt) {
        NG_CHECK(ng_krylov_restart_point(S, b, x, r, 1));
        NG_CHECK(new_shadow(S, r, r0hat, &rho));
        fresh = 1;
      }
    }
  }
  return ng_krylov_not_converged(S);
}

const ng_solver_ops ng_solver_bicgstab = {"bicgstab", 5, 8, bicgstab_solve, NULL, 0};
