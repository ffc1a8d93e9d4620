/* smoother/smoother_level.c: a smoother's level (level.h): r = b - A x,
 * y = alpha A x + beta y and the fused Jacobi pass through the level's
 * operator (its table; level 0 without one: the smoother's own copy when it
 * has one, else the user's matrix), the host operator made current, the
 * early work dropped, the trace switch, and ng_graph_free. */
#include "smoother.h"
#include <stdlib.h>

/* r = b - A x on the level, in one pass when the table has the fused entry. */
ng_status ng_smoother_residual(ng_context ctx, const ng_smoother_ops *ops, ng_smoother_level *S, const double *b,
                               const double *x, double *r)
{
  if (!S->Aops && ops && ops->residual) {
    int done = 0;
    NG_CHECK(ops->residual(ctx, S, b, x, r, &done));
    if (done) return NG_SUCCESS;
  }
  if (!S->Aops) { /* level 0 on the matrix */
    NG_CHECK(ng_matrix_apply_raw(S->matrix, x, r));
    NG_CHECK(ctx->vops->xpay(ctx, S->n, b, -1.0, r));
  } else if (S->Aops->fused) {
    NG_CHECK(S->Aops->fused(S->Adata, b, x, NULL, r));
  } else {
    NG_CHECK(ctx->vops->copy(ctx, S->n, b, r));
    NG_CHECK(S->Aops->apply(S->Adata, -1.0, x, 1.0, r));
  }
  return NG_SUCCESS;
}

/* y = alpha A x + beta y on the level. */
ng_status ng_smoother_apply(ng_context ctx, ng_smoother_level *S, double alpha, const double *x, double beta, double *y)
{
  (void)ctx;
  if (!S->Aops) NG_CHECK(ng_matrix_apply_ab(S->matrix, alpha, x, beta, y));
  else NG_CHECK(S->Aops->apply(S->Adata, alpha, x, beta, y));
  return NG_SUCCESS;
}

ng_status ng_smoother_jacobi_fused(ng_smoother_level *S, const double *b, const double *x, double *y, int *done)
{
  *done = S->Aops && S->Aops->fused;
  if (*done) NG_CHECK(S->Aops->fused(S->Adata, b, x, S->dinv, y));
  return NG_SUCCESS;
}

ng_status ng_smoother_level_host(ng_smoother_level *S, const ng_csr *A)
{
  /* the level's own host operator, or level 0's matrix block (a gathered
   * level's device-only matrix): the owner makes it current */
  int own = S->level > 0 ? A == S->host_A : S->matrix && A == &S->matrix->local;
  if (own && S->host_current) NG_CHECK(S->host_current(S->owner, S->level));
  return NG_SUCCESS;
}

void ng_smoother_early_free(ng_smoother_level *S)
{
  if (S->early) S->early_free(S->early);
  S->early = NULL;
}

int ng_smoother_trace_on(void)
{
  static int on = -1;
  if (on < 0) {
    const char *e = getenv("NG_AMG_TRACE");
    on = e && !strcmp(e, "1");
  }
  return on;
}

void ng_graph_free(ng_graph *G)
{
  ng_free(G->rowptr);
  ng_free(G->col);
  memset(G, 0, sizeof(*G));
}
