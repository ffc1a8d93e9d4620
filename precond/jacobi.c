/* precond/jacobi.c: (damped) Jacobi, z = omega D^-1 r. omega/D is computed
 * on the host from this rank's diagonal block (A->local, local numbering)
 * and uploaded once to context memory; apply is one pointwise multiply on
 * the context's vector ops. update() recomputes it from the new values. */
#include "precond.h"

typedef struct {
  double omega;
  double *dinv; /* omega / a_ii, context memory */
} jacobi;

/* dinv = omega / diag(A), refused (NG_ERR_NUMERIC naming the row) on a zero diagonal. */
static ng_status jacobi_compute(ng_precond P, ng_matrix A)
{
  jacobi *J = P->data;
  double *d;
  ng_status st;
  NG_CHECK(NG_MALLOC(d, A->n_local));
  NG_CHECK_GOTO(st, ng_csr_diagonal(&A->local, d, 1), out);
  for (int32_t i = 0; i < A->n_local; i++) d[i] = J->omega / d[i];
  NG_CHECK_GOTO(st, P->ctx->vops->upload(P->ctx, J->dinv, d, A->n_local), out);
out:
  ng_free(d);
  return st;
}

static void jacobi_destroy(ng_precond P)
{
  jacobi *J = P->data;
  if (!J) return;
  P->ctx->vops->free(P->ctx, J->dinv);
  ng_free(J);
  P->data = NULL;
}

static ng_status jacobi_setup(ng_precond P, ng_matrix A, ng_options opts)
{
  jacobi *J;
  ng_status st;
  NG_CHECK(NG_CALLOC(J, 1));
  P->data = J;
  NG_CHECK_GOTO(st, ng_options_get_real(opts, "jacobi_omega", &J->omega), fail);
  if (!(J->omega > 0.0)) {
    st = NG_ERROR(NG_ERR_ARGUMENT, "-jacobi_omega %g must be > 0", J->omega);
    goto fail;
  }
  NG_CHECK_GOTO(st, P->ctx->vops->alloc(P->ctx, &J->dinv, A->n_local), fail);
  NG_CHECK_GOTO(st, jacobi_compute(P, A), fail);
  return NG_SUCCESS;
fail:
  jacobi_destroy(P);
  return st;
}

static ng_status jacobi_update(ng_precond P, ng_matrix A)
{
  NG_CHECK(jacobi_compute(P, A));
  return NG_SUCCESS;
}

static ng_status jacobi_apply(ng_precond P, const double *r, double *z)
{
  jacobi *J = P->data;
  NG_CHECK(P->ctx->vops->pointwise_mult(P->ctx, P->A->n_local, J->dinv, r, z));
  return NG_SUCCESS;
}

/* z = dinv .* r: solvers fuse this into their vector updates. */
static const double *jacobi_diagonal(ng_precond P) { return ((jacobi *)P->data)->dinv; }

const ng_precond_ops ng_precond_jacobi = {.name = "jacobi", .setup = jacobi_setup, .update = jacobi_update,
                                          .apply = jacobi_apply, .destroy = jacobi_destroy,
                                          .diagonal = jacobi_diagonal};
