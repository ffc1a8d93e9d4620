/* solver/cg.c: conjugate gradients, plain (cg) and preconditioned (pcg).
 * Hestenes & Stiefel (1952); the preconditioned form as in Saad, Iterative
 * Methods for Sparse Linear Systems, 2nd ed., Algorithm 9.1. Without a
 * preconditioner z is r itself (no copy). (r,z) and (r,r) share one fused
 * reduction. Work: r, p, q (+ z for pcg). */
#include "internal.h"
#include <math.h>

static ng_status cg_solve(ng_solver S, const double *b, double *x)
{
  ng_context ctx = S->ctx;
  const ng_vec_ops *v = ctx->vops;
  int32_t n = S->A->n_local;
  double *r = S->work[0], *p = S->work[1], *q = S->work[2];
  double *z = S->P ? S->work[3] : r;
  double rho, rr, d[2];
  int done;

  /* r0 = b - A x0,  z0 = M^-1 r0,  p0 = z0 */
  NG_CHECK(ng_op_apply(S, x, r));
  NG_CHECK(v->xpay(ctx, n, b, -1.0, r));
  if (S->P) {
    NG_CHECK(ng_pc_apply(S, r, z));
    NG_CHECK(ng_dot2(ctx, n, r, z, r, r, d));
    rho = d[0], rr = d[1];
  } else {
    NG_CHECK(ng_dot(ctx, n, r, r, &rr));
    rho = rr;
  }
  NG_CHECK(ng_krylov_begin(S, sqrt(rr), &done));
  if (done) return NG_SUCCESS;
  NG_CHECK(v->copy(ctx, n, z, p));

  for (int it = 1; it <= S->maxit; it++) {
    if (rho == 0.0) return ng_krylov_breakdown(S, it, "rho = (r, M^-1 r)", rho);
    /* alpha = (r, z) / (p, A p) */
    NG_CHECK(ng_op_apply(S, p, q));
    double pq;
    NG_CHECK(ng_dot(ctx, n, p, q, &pq));
    if (!(pq > 0.0)) return ng_krylov_breakdown(S, it, "(p, A p) (matrix not SPD?)", pq);
    double alpha = rho / pq;
    /* x += alpha p,  r -= alpha A p,  z = M^-1 r */
    NG_CHECK(v->axpy(ctx, n, alpha, p, x));
    NG_CHECK(v->axpy(ctx, n, -alpha, q, r));
    double rho_new;
    if (S->P) {
      NG_CHECK(ng_pc_apply(S, r, z));
      NG_CHECK(ng_dot2(ctx, n, r, z, r, r, d));
      rho_new = d[0], rr = d[1];
    } else {
      NG_CHECK(ng_dot(ctx, n, r, r, &rr));
      rho_new = rr;
    }
    NG_CHECK(ng_krylov_check(S, it, sqrt(rr), &done));
    if (done) return NG_SUCCESS;
    /* p = z + beta p,  beta = (r_new, z_new) / (r, z) */
    NG_CHECK(v->xpay(ctx, n, z, rho_new / rho, p));
    rho = rho_new;
  }
  return ng_krylov_not_converged(S);
}

const ng_solver_ops ng_solver_cg = {"cg", 0, 3, cg_solve};
const ng_solver_ops ng_solver_pcg = {"pcg", 1, 4, cg_solve};
