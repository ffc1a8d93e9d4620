/* solver/null_space.c: the null space of a singular operator (PETSc's
 * MatNullSpace; a pure-Neumann pressure Poisson's constant vector). The
 * vectors are copied into context memory and orthonormalised once, here
 * (modified Gram-Schmidt done twice, global dot products), so a solve only
 * projects: v -= Q Q^T v (ng_krylov_null_project, krylov_util.c). Set by
 * ng_solver_set_null_space or built at set_operator from -null_space
 * constant (1 / sqrt(N) on every row). Also the solver's getter of how
 * much of b the last solve removed. */
#include "solver.h"
#include <math.h>

void ng_null_space_free(ng_solver S)
{
  for (int k = 0; k < S->null_n; k++) S->ctx->vops->free(S->ctx, S->null_vec[k]);
  if (S->null_b) S->ctx->vops->free(S->ctx, S->null_b);
  memset(S->null_vec, 0, sizeof(S->null_vec));
  S->null_b = NULL;
  S->null_n = 0;
  S->null_len = 0;
}

/* Q's columns made orthonormal in place (collective). A vector whose norm
 * falls below 1e-10 of its original norm in the process is (nearly) a
 * combination of the others: NG_ERR_ARGUMENT naming it. */
static ng_status orthonormalise(ng_solver S)
{
  ng_context ctx = S->ctx;
  int32_t n = S->null_len;
  for (int k = 0; k < S->null_n; k++) {
    double *v = S->null_vec[k], n0, nk, c;
    NG_CHECK(ng_dot(ctx, n, v, v, &n0));
    if (!(n0 > 0.0) || !isfinite(n0))
      return NG_ERROR(NG_ERR_ARGUMENT, "ng_solver_set_null_space: vector %d has norm^2 %g (zero or not finite)", k, n0);
    for (int pass = 0; pass < 2; pass++)
      for (int j = 0; j < k; j++) {
        NG_CHECK(ng_dot(ctx, n, S->null_vec[j], v, &c));
        NG_CHECK(ctx->vops->axpy(ctx, n, -c, S->null_vec[j], v));
      }
    NG_CHECK(ng_dot(ctx, n, v, v, &nk));
    if (!(nk > 1e-20 * n0))
      return NG_ERROR(NG_ERR_ARGUMENT,
                      "ng_solver_set_null_space: vector %d is (nearly) a combination of the vectors before it "
                      "(%.3e of its norm is left); give independent vectors",
                      k, sqrt(nk / n0));
    NG_CHECK(ctx->vops->axpbypcz(ctx, n, 1.0 / sqrt(nk), v, 0.0, v, 0.0, v));
  }
  return NG_SUCCESS;
}

/* nvec vectors of n entries into context memory (from vecs, or the
 * constant when vecs is NULL), and null_b; orthonormalised. Collective. */
static ng_status store(ng_solver S, int nvec, int32_t n, const ng_vector *vecs)
{
  ng_context ctx = S->ctx;
  ng_null_space_free(S);
  if (nvec == 0) return NG_SUCCESS;
  S->null_len = n;
  ng_status st = ctx->vops->alloc(ctx, &S->null_b, n);
  for (int k = 0; k < nvec && !st; k++) {
    st = ctx->vops->alloc(ctx, &S->null_vec[k], n);
    if (!st) S->null_n = k + 1;
    if (!st) st = vecs ? ctx->vops->copy(ctx, n, vecs[k]->data, S->null_vec[k]) : ctx->vops->fill(ctx, n, 1.0, S->null_vec[k]);
  }
  st = ng_comm_agree(ctx, st);
  if (!st) st = orthonormalise(S);
  if (st) {
    ng_null_space_free(S);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  return NG_SUCCESS;
}

ng_status ng_solver_set_null_space(ng_solver S, int nvec, ng_vector *vecs)
{
  NG_ASSERT_ARG(S, "ng_solver_set_null_space: null solver");
  NG_ASSERT_ARG(nvec >= 0 && nvec <= NG_NULL_SPACE_MAX, "ng_solver_set_null_space: %d vectors (0 to %d allowed)",
                nvec, NG_NULL_SPACE_MAX);
  NG_ASSERT_ARG(nvec == 0 || vecs, "ng_solver_set_null_space: %d vectors but vecs is NULL", nvec);
  for (int k = 0; k < nvec; k++) {
    NG_ASSERT_ARG(vecs[k], "ng_solver_set_null_space: vector %d is NULL", k);
    NG_ASSERT_ARG(vecs[k]->ctx == S->ctx, "ng_solver_set_null_space: vector %d belongs to another context", k);
    NG_ASSERT_ARG(vecs[k]->n == vecs[0]->n, "ng_solver_set_null_space: vector %d has %d local entries, vector 0 %d", k,
                  (int)vecs[k]->n, (int)vecs[0]->n);
  }
  if (S->A && nvec > 0)
    NG_ASSERT_ARG(vecs[0]->n == S->A->n_local,
                  "ng_solver_set_null_space: the vectors have %d local entries, the operator %d rows", (int)vecs[0]->n,
                  (int)S->A->n_local);
  NG_CHECK(store(S, nvec, nvec ? vecs[0]->n : 0, vecs));
  S->null_explicit = nvec > 0; /* 0 vectors: back to what -null_space says */
  if (!S->null_explicit && S->A) NG_CHECK(ng_null_space_setup(S));
  return NG_SUCCESS;
}

ng_status ng_null_space_setup(ng_solver S)
{
  if (S->null_explicit) {
    NG_ASSERT_ARG(S->null_len == S->A->n_local,
                  "ng_solver_set_operator: the null space's vectors have %d local entries, the operator %d rows "
                  "(set the null space again for this operator)",
                  (int)S->null_len, (int)S->A->n_local);
    return NG_SUCCESS;
  }
  if (!S->null_constant) return NG_SUCCESS;
  if (S->null_n == 1 && S->null_len == S->A->n_local) return NG_SUCCESS; /* the constant of this size already */
  NG_CHECK(store(S, 1, S->A->n_local, NULL));
  return NG_SUCCESS;
}

ng_status ng_solver_get_rhs_null_component(ng_solver S, double *relative)
{
  NG_ASSERT_ARG(S && relative, "ng_solver_get_rhs_null_component: null argument");
  *relative = S->null_removed;
  return NG_SUCCESS;
}

ng_status ng_solver_get_null_space_size(ng_solver S, int *nvec)
{
  NG_ASSERT_ARG(S && nvec, "ng_solver_get_null_space_size: null argument");
  *nvec = S->null_n;
  return NG_SUCCESS;
}
