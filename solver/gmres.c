/* solver/gmres.c: restarted GMRES(m) (Saad & Schultz, SIAM J. Sci. Stat.
 * Comput. 7, 1986) and flexible FGMRES(m) (Saad, SIAM J. Sci. Comput. 14,
 * 1993; Saad, Iterative Methods for Sparse Linear Systems, 2nd ed.,
 * Algorithms 9.5 and 9.6), both right-preconditioned: the residual they
 * minimise is the true b - A x. m = -gmres_restart.
 *
 * Arnoldi by classical Gram-Schmidt with one reorthogonalisation (CGS2):
 * each pass is one block product h = V^T w (vops->basis_dot, one global
 * reduction for all j + 1 coefficients) and one block update w -= V h
 * (vops->basis_update), so the basis is stored contiguously (the solver's
 * work block). The Hessenberg matrix, its Givens rotations and the
 * least-squares right-hand side g live on the host (m is small): |g[j+1]|
 * is the residual norm each iteration reports. At the end of each cycle x
 * is updated, x += M^-1 V y (GMRES: one preconditioner application) or
 * x += Z y (FGMRES keeps Z = [M^-1 v_0, ...] since M may change between
 * applications), and the true residual b - A x is recomputed: the solve
 * ends when it, not the estimate, meets the tolerance. A cycle whose
 * estimate met the tolerance while b - A x did not is a residual
 * replacement (the next cycle starts from b - A x); after
 * NG_KRYLOV_REPLACEMENTS of them the solve reports NG_ERR_NOT_CONVERGED
 * (rounding: spheres7:64 at 1e-8, where each later cycle met the estimate
 * in one step and b - A x stayed at 1.2e-8 for 1000 iterations). A
 * preconditioner that asks (AMG's -amg_coarsening auto) gets the
 * reduction of ||r|| per iteration after P->adapt_after iterations and may
 * rebuild itself (adapt_step).
 * Work: V (m + 1 vectors), + u (GMRES) or Z (m vectors, FGMRES) with a
 * preconditioner; host: H ((m + 1) x m), rotations, g, y, h.
 * Happy breakdown (w = 0 to rounding: the Krylov space is invariant) ends
 * the cycle with the exact minimiser; NaN/Inf in h or ||w|| is
 * NG_ERR_NUMERIC naming the iteration (krylov_util.c). */
#include "solver.h"
#include <float.h>
#include <math.h>

extern const ng_solver_ops ng_solver_fgmres;

/* Steps per cycle: -gmres_restart, no more than -maxit (at least 1). */
static int cycle_length(ng_solver S)
{
  int m = S->restart;
  if (S->maxit < m) m = S->maxit > 0 ? S->maxit : 1;
  return m;
}

static void gmres_work_size(ng_solver S, int *nvec, size_t *nhost)
{
  int m = cycle_length(S);
  int flexible = S->ops == &ng_solver_fgmres;
  *nvec = m + 1 + (S->has_precond ? (flexible ? m : 1) : 0);
  *nhost = (size_t)(m + 1) * m + 2 * (size_t)m + 3 * (size_t)(m + 1);
}

/* The host arrays, carved from S->hwork. */
typedef struct {
  double *H;    /* (m + 1) x m by columns (column j at H + j (m + 1)); upper triangular R after the rotations */
  double *c, *s; /* Givens rotations, m each */
  double *g;    /* m + 1: beta e_1 rotated; |g[j + 1]| = ||r|| after step j */
  double *y;    /* m + 1: the least-squares solution */
  double *h;    /* m + 1: one Gram-Schmidt pass's coefficients */
} gmres_host;

static gmres_host host_arrays(ng_solver S, int m)
{
  gmres_host a;
  a.H = S->hwork;
  a.c = a.H + (size_t)(m + 1) * m;
  a.s = a.c + m;
  a.g = a.s + m;
  a.y = a.g + m + 1;
  a.h = a.y + m + 1;
  return a;
}

/* r = b - A x, *beta = ||r|| (global). */
static ng_status true_residual(ng_solver S, const double *b, const double *x, double *r, double *beta)
{
  double rr;
  NG_CHECK(ng_op_apply(S, x, r));
  NG_CHECK(S->ctx->vops->xpay(S->ctx, S->A->n_local, b, -1.0, r));
  NG_CHECK(ng_dot(S->ctx, S->A->n_local, r, r, &rr));
  *beta = sqrt(rr);
  return NG_SUCCESS;
}

/* NaN/Inf in a product with w = A z, z = M^-1 v_j (z = v_j without M). */
static ng_status arnoldi_nonfinite(ng_solver S, int it, const char *what, double value, const double *z)
{
  if (S->P) return ng_krylov_preconditioned_nonfinite(S, it, what, value, z, "M^-1 v", "A M^-1 v overflowed");
  return ng_krylov_nonfinite(S, it, what, value, "A v overflowed: v was finite");
}

/* Step j of Arnoldi by CGS2: w (= V_{j+1}) orthogonalised against
 * V_0..V_j in two passes, column j of H = the sum of both passes'
 * coefficients, H(j+1, j) = ||w||, w not yet normalised. */
static ng_status arnoldi_cgs2(ng_solver S, int it, int j, int m, double *V, const double *z, gmres_host *a,
                              double *wnorm)
{
  ng_context ctx = S->ctx;
  int32_t n = S->A->n_local;
  double *w = V + (j + 1) * S->ld, *Hj = a->H + (size_t)j * (m + 1), ww;
  for (int i = 0; i <= j; i++) Hj[i] = 0.0;
  for (int pass = 0; pass < 2; pass++) {
    NG_CHECK(ctx->vops->basis_dot(ctx, n, j + 1, V, S->ld, w, a->h));
    NG_CHECK(ng_comm_allreduce_sum(ctx, a->h, j + 1));
    for (int i = 0; i <= j; i++)
      if (!isfinite(a->h[i])) return arnoldi_nonfinite(S, it, "h = (v_i, A M^-1 v_j)", a->h[i], z);
    NG_CHECK(ctx->vops->basis_update(ctx, n, j + 1, V, S->ld, -1.0, a->h, 1.0, w));
    for (int i = 0; i <= j; i++) Hj[i] += a->h[i];
  }
  NG_CHECK(ng_dot(ctx, n, w, w, &ww));
  if (!isfinite(ww)) return arnoldi_nonfinite(S, it, "||w||^2 after orthogonalisation", ww, z);
  *wnorm = sqrt(ww);
  Hj[j + 1] = *wnorm;
  return NG_SUCCESS;
}

/* Applies the previous rotations to column j of H and makes the one that
 * zeroes H(j+1, j); g follows. 0 when H(j, j) and H(j+1, j) are both 0
 * (H singular: no rotation made). */
static int givens(gmres_host *a, int j, int m)
{
  double *Hj = a->H + (size_t)j * (m + 1);
  for (int i = 0; i < j; i++) {
    double t = a->c[i] * Hj[i] + a->s[i] * Hj[i + 1];
    Hj[i + 1] = -a->s[i] * Hj[i] + a->c[i] * Hj[i + 1];
    Hj[i] = t;
  }
  double d = hypot(Hj[j], Hj[j + 1]);
  if (d == 0.0) return 0;
  a->c[j] = Hj[j] / d;
  a->s[j] = Hj[j + 1] / d;
  Hj[j] = d;
  Hj[j + 1] = 0.0;
  a->g[j + 1] = -a->s[j] * a->g[j];
  a->g[j] *= a->c[j];
  return 1;
}

/* -amg_coarsening auto and the like (P->adapt_after > 0): the
 * preconditioner's verdict at iteration P->adapt_after from the mean
 * reduction of ||r|| (the least-squares estimate, monotone) per iteration
 * over the second half of them, (||r_it|| / ||r_h||)^(1 / (it - h)), h =
 * P->adapt_after / 2. FGMRES takes a rebuilt M from its next step (Z keeps
 * the old applications); GMRES needs the current M once more, for x +=
 * M^-1 V y, so it asks first (a dry run) and, when M would be rebuilt,
 * ends the cycle: *pending, the rebuild made after x's update. */
static ng_status adapt_step(ng_solver S, int it, double rnorm, int flexible, double *r_half, ng_precond_report *rep,
                            int *pending)
{
  int rebuilt = 0;
  *pending = 0;
  if (!ng_krylov_adapt_due(S, it, rnorm, r_half, rep)) return NG_SUCCESS;
  rep->dry_run = !flexible;
  NG_CHECK(ng_krylov_adapt(S, rep, it, &rebuilt));
  if (!flexible && rebuilt) *pending = 1;
  else if (!flexible) { /* kept: the verdict recorded */
    rep->dry_run = 0;
    NG_CHECK(ng_krylov_adapt(S, rep, it, &rebuilt));
  }
  return NG_SUCCESS;
}

/* y = R^-1 g over the first k columns (back substitution). */
static void back_substitute(gmres_host *a, int k, int m)
{
  for (int i = k - 1; i >= 0; i--) {
    double t = a->g[i];
    for (int l = i + 1; l < k; l++) t -= a->H[(size_t)l * (m + 1) + i] * a->y[l];
    a->y[i] = t / a->H[(size_t)i * (m + 1) + i];
  }
}

static ng_status gmres_solve(ng_solver S, const double *b, double *x)
{
  ng_context ctx = S->ctx;
  const ng_vec_ops *v = ctx->vops;
  int32_t n = S->A->n_local;
  int64_t ld = S->ld;
  int m = cycle_length(S), it = 0, done, replacements = 0;
  int flexible = S->ops == &ng_solver_fgmres && S->P;
  double *V = S->work[0];
  double *Z = flexible ? S->work[m + 1] : NULL; /* FGMRES: z_j = M_j^-1 v_j, kept */
  double *u = S->P && !flexible ? S->work[m + 1] : NULL; /* GMRES: M^-1 v_j, then M^-1 V y */
  gmres_host a = host_arrays(S, m);
  double beta, r_half = 0.0;
  ng_precond_report rep = {0};
  int pending = 0; /* GMRES: M is rebuilt once x is updated (adapt_step) */

  /* r0 = b - A x0 in v_0 */
  NG_CHECK(true_residual(S, b, x, V, &beta));
  NG_CHECK(ng_krylov_begin(S, beta, &done));
  if (done) return NG_SUCCESS;
  for (;;) {
    if (it >= S->maxit) return ng_krylov_not_converged(S);
    /* v_0 = r / beta, g = beta e_1 */
    NG_CHECK(v->scale(ctx, n, 1.0 / beta, V));
    a.g[0] = beta;
    for (int i = 1; i <= m; i++) a.g[i] = 0.0;
    int k = 0, singular = 0;
    for (int j = 0; j < m && it < S->maxit; j++) {
      /* w = A z_j, z_j = M^-1 v_j (v_j itself without M) */
      double *vj = V + j * ld, *z = flexible ? Z + j * ld : S->P ? u : vj, wnorm = 0.0;
      if (S->P) NG_CHECK(ng_pc_apply(S, vj, z));
      NG_CHECK(ng_op_apply(S, z, V + (j + 1) * ld));
      it++;
      NG_CHECK(arnoldi_cgs2(S, it, j, m, V, z, &a, &wnorm));
      double *Hj = a.H + (size_t)j * (m + 1), hcol = 0.0;
      for (int i = 0; i <= j + 1; i++) hcol = hypot(hcol, Hj[i]); /* ||A z_j|| */
      if (!givens(&a, j, m)) {
        /* H(j, j) = H(j+1, j) = 0: A M^-1 is singular on the Krylov space;
         * the cycle's first j columns still give the best x there */
        singular = 1;
        NG_CHECK(ng_krylov_check(S, it, fabs(a.g[j]), &done));
        break;
      }
      k = j + 1;
      NG_CHECK(ng_krylov_check(S, it, fabs(a.g[j + 1]), &done));
      if (!done) {
        NG_CHECK(adapt_step(S, it, fabs(a.g[j + 1]), flexible, &r_half, &rep, &pending));
        if (pending) break;
      }
      /* happy breakdown: w vanished to rounding, the space is invariant
       * and y below is the exact solution in it */
      if (done || wnorm <= DBL_EPSILON * hcol) break;
      NG_CHECK(v->scale(ctx, n, 1.0 / wnorm, V + (j + 1) * ld)); /* v_{j+1} = w / ||w|| */
    }
    /* x += M^-1 V y (GMRES) or Z y (FGMRES); then the true residual */
    back_substitute(&a, k, m);
    if (k > 0) {
      if (flexible) {
        NG_CHECK(v->basis_update(ctx, n, k, Z, ld, 1.0, a.y, 1.0, x));
      } else if (S->P) {
        double *t = V + k * ld; /* v_k is not needed any more */
        NG_CHECK(v->basis_update(ctx, n, k, V, ld, 1.0, a.y, 0.0, t));
        NG_CHECK(ng_pc_apply(S, t, u));
        NG_CHECK(v->axpy(ctx, n, 1.0, u, x));
      } else {
        NG_CHECK(v->basis_update(ctx, n, k, V, ld, 1.0, a.y, 1.0, x));
      }
    }
    double estimate = S->history[S->history_len - 1];
    if (pending) { /* GMRES: x made with the old M, now the new one, from x or 0 */
      int rebuilt = 0;
      rep.dry_run = 0;
      NG_CHECK(ng_krylov_adapt(S, &rep, it, &rebuilt));
      if (rebuilt) NG_CHECK(ng_krylov_restart_point(S, b, x, V, 1));
      pending = 0;
    }
    NG_CHECK(true_residual(S, b, x, V, &beta));
    NG_CHECK(ng_krylov_true_residual(S, beta, &done));
    if (done) return NG_SUCCESS;
    /* the estimate met the target, b - A x did not: a replacement */
    if (estimate <= S->target && ++replacements > NG_KRYLOV_REPLACEMENTS)
      return ng_krylov_drift(S, estimate, it, beta, replacements - 1);
    if (singular) return ng_krylov_breakdown(S, it, "H(j, j) and H(j+1, j) (A M^-1 singular on the Krylov space)", 0.0);
  }
}

const ng_solver_ops ng_solver_gmres = {"gmres", 0, 0, gmres_solve, gmres_work_size, 0};
const ng_solver_ops ng_solver_fgmres = {"fgmres", 0, 0, gmres_solve, gmres_work_size, 0};
