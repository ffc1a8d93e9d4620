/* solver/krylov_adapt.c: a Krylov method reports how it fared to a
 * preconditioner that asked (P->adapt_after > 0: AMG with
 * -amg_coarsening auto), once, after that many iterations.
 * ng_cg_adapt_step, CG's: the mean reduction per iteration of ||r|| in
 * the M^-1 norm, sqrt((r, M^-1 r)), which CG has anyway, over the second
 * half of them (the first half is a transient that depends on b:
 * fem27:256's generated b grows ||r|| 28x before it falls; the 2-norm,
 * which CG does not minimise, is noisier still), and the Lanczos estimate
 * of cond(M^-1 A) from its own alpha and beta (solver/lanczos.c).
 * ng_krylov_adapt_due / ng_krylov_adapt, the others' (GMRES, FGMRES,
 * BiCGSTAB, pipelined CG): the mean reduction of their residual's 2-norm
 * over the same window. Scalars only, no vector work, so a solve that the
 * preconditioner serves well pays nothing. When the preconditioner
 * rebuilds itself, the caller restarts its recurrence (ng_krylov_restart_point). */
#include "solver.h"
#include <math.h>
#include <string.h>

ng_status ng_cg_adapt_step(ng_solver S, ng_cg_lanczos *L, double alpha, double beta, double rho, int it,
                           int *rebuilt)
{
  ng_precond P = S->P;
  *rebuilt = 0;
  if (!P || !P->ops->adapt || P->adapt_after <= 0 || P->variable) return NG_SUCCESS;
  /* the first NG_LANCZOS_MAX coefficients are kept for the estimate */
  if (L->n < NG_LANCZOS_MAX) L->alpha[L->n] = alpha, L->beta[L->n] = beta;
  L->n++;
  int half = P->adapt_after / 2;
  if (L->n == half) L->rho_half = rho;
  if (L->n < P->adapt_after) return NG_SUCCESS;
  ng_precond_report rep = {.its = L->n, .solver = "cg"};
  rep.kappa = ng_krylov_lanczos_kappa(L->alpha, L->beta, L->n < NG_LANCZOS_MAX ? L->n : NG_LANCZOS_MAX);
  /* (r, M^-1 r) < 0: M is indefinite, nothing measurable: no reduction */
  rep.rate = L->rho_half > 0 && rho >= 0 ? pow(rho / L->rho_half, 0.5 / (L->n - half)) : 1.0;
  L->n = 0;
  NG_CHECK(ng_krylov_adapt(S, &rep, it, rebuilt));
  return NG_SUCCESS;
}

ng_status ng_krylov_adapt(ng_solver S, const ng_precond_report *rep, int it, int *rebuilt)
{
  ng_precond P = S->P;
  double t0 = ng_wtime();
  S->adapt_rate = rep->rate;
  NG_CHECK(P->ops->adapt(P, rep, rebuilt));
  if (!*rebuilt || rep->dry_run) return NG_SUCCESS;
  S->rebuild_seconds += ng_wtime() - t0;
  if (S->monitor && S->ctx->rank == 0) {
    /* CG and pipelined CG measure the M^-1 norm; CG also estimates cond(M^-1 A) */
    int mnorm = !strcmp(rep->solver, "cg") || !strcmp(rep->solver, "pipecg");
    char kap[64] = "";
    if (!isnan(rep->kappa)) snprintf(kap, sizeof(kap), ", cond(M^-1 A) >= %.3g", rep->kappa);
    if (isinf(rep->rate))
      printf("  %4d  ||r|| above -divtol times ||r0||: preconditioner rebuilt (%.3f s)\n", it, ng_wtime() - t0);
    else
      printf("  %4d  %s reduced %.3g per iteration%s: preconditioner rebuilt (%.3f s)\n", it,
             mnorm ? "||r||_M^-1" : "||r||", rep->rate, kap, ng_wtime() - t0);
    fflush(stdout);
  }
  return NG_SUCCESS;
}

int ng_krylov_adapt_due(ng_solver S, int it, double rnorm, double *r_half, ng_precond_report *rep)
{
  ng_precond P = S->P;
  if (!P || !P->ops->adapt || P->adapt_after <= 0 || P->variable) return 0;
  int at = P->adapt_after, h = at / 2;
  if (it == h) *r_half = rnorm;
  if (it != at) return 0;
  rep->its = it;
  rep->kappa = NAN;
  rep->solver = S->ops->name;
  rep->dry_run = 0;
  rep->rate = *r_half > 0 ? pow(rnorm / *r_half, 1.0 / (it - h)) : 1.0;
  return 1;
}
