/* solver/cg_adapt.c: CG reports its estimate of cond(M^-1 A) to a
 * preconditioner that asked for it (P->adapt_after > 0: AMG with
 * -amg_coarsening auto), once, after that many iterations. The estimate
 * comes from CG's own alpha and beta (solver/lanczos.c): no vector work,
 * so a solve that the preconditioner serves well pays nothing. When the
 * preconditioner rebuilds itself, the caller restarts its recurrence from
 * the current iterate (x and r are still exact: only p is dropped). */
#include "solver.h"
#include <math.h>

ng_status ng_cg_adapt_step(ng_solver S, ng_cg_lanczos *L, double alpha, double beta, int it, int *rebuilt)
{
  ng_precond P = S->P;
  *rebuilt = 0;
  if (!P || !P->ops->adapt || P->adapt_after <= 0 || P->variable) return NG_SUCCESS;
  if (L->k < NG_LANCZOS_MAX) L->alpha[L->k] = alpha, L->beta[L->k] = beta, L->k++;
  if (L->k < P->adapt_after) return NG_SUCCESS;
  int k = P->adapt_after < NG_LANCZOS_MAX ? P->adapt_after : NG_LANCZOS_MAX;
  double kappa = ng_krylov_lanczos_kappa(L->alpha, L->beta, k), t0 = ng_wtime();
  NG_CHECK(P->ops->adapt(P, kappa, rebuilt));
  L->k = 0;
  if (*rebuilt) {
    S->rebuild_seconds += ng_wtime() - t0;
    if (S->monitor && S->ctx->rank == 0) {
      printf("  %4d  cond(M^-1 A) >= %.3g after %d iterations: preconditioner rebuilt (%.3f s)\n", it, kappa, k,
             ng_wtime() - t0);
      fflush(stdout);
    }
  }
  return NG_SUCCESS;
}
