/* dist/vector.c: distributed vectors (this rank's entries in context memory)
 * and the public vector calls; reductions sum over ranks. */
#include "dist.h"
#include <math.h>

ng_status ng_vector_create(ng_matrix A, ng_vector *v)
{
  NG_ASSERT_ARG(A && v, "ng_vector_create: null argument");
  /* collective (every rank creates its part): a rank that fails tells the
   * others, so none goes on into a solve the failed one never reaches */
  ng_vector w = NULL;
  ng_status st = NG_CALLOC(w, 1);
  if (!st) {
    w->ctx = A->ctx;
    w->n = A->n_local;
    w->n_global = A->n_global;
    st = A->ctx->vops->alloc(A->ctx, &w->data, w->n);
  }
  if (!st) st = A->ctx->vops->fill(A->ctx, w->n, 0.0, w->data);
  st = ng_comm_agree(A->ctx, st);
  if (st != NG_SUCCESS) {
    if (w) ng_vector_destroy(w);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *v = w;
  return NG_SUCCESS;
}

ng_status ng_vector_destroy(ng_vector v)
{
  if (!v) return NG_SUCCESS;
  v->ctx->vops->free(v->ctx, v->data);
  ng_free(v);
  return NG_SUCCESS;
}

ng_status ng_vector_get_size(ng_vector v, int32_t *n)
{
  NG_ASSERT_ARG(v && n, "ng_vector_get_size: null argument");
  *n = v->n;
  return NG_SUCCESS;
}

ng_status ng_vector_set_values(ng_vector v, const double *values)
{
  NG_ASSERT_ARG(v && (values || v->n == 0), "ng_vector_set_values: null argument");
  NG_CHECK(v->ctx->vops->upload(v->ctx, v->data, values, v->n));
  return NG_SUCCESS;
}

ng_status ng_vector_get_values(ng_vector v, double *values)
{
  NG_ASSERT_ARG(v && (values || v->n == 0), "ng_vector_get_values: null argument");
  NG_CHECK(v->ctx->vops->download(v->ctx, values, v->data, v->n));
  return NG_SUCCESS;
}

ng_status ng_vector_fill(ng_vector v, double value)
{
  NG_ASSERT_ARG(v, "ng_vector_fill: null vector");
  NG_CHECK(v->ctx->vops->fill(v->ctx, v->n, value, v->data));
  return NG_SUCCESS;
}

static ng_status same_layout(ng_vector x, ng_vector y, const char *who)
{
  NG_ASSERT_ARG(x && y, "%s: null vector", who);
  if (x->n != y->n || x->ctx != y->ctx)
    return NG_ERROR(NG_ERR_ARGUMENT, "%s: vectors differ in size (%d vs %d) or context", who, (int)x->n, (int)y->n);
  return NG_SUCCESS;
}

ng_status ng_vector_copy(ng_vector src, ng_vector dst)
{
  NG_CHECK(same_layout(src, dst, "ng_vector_copy"));
  NG_CHECK(src->ctx->vops->copy(src->ctx, src->n, src->data, dst->data));
  return NG_SUCCESS;
}

ng_status ng_vector_axpy(double alpha, ng_vector x, ng_vector y)
{
  NG_CHECK(same_layout(x, y, "ng_vector_axpy"));
  NG_CHECK(x->ctx->vops->axpy(x->ctx, x->n, alpha, x->data, y->data));
  return NG_SUCCESS;
}

ng_status ng_dot(ng_context ctx, int32_t n, const double *x, const double *y, double *r)
{
  NG_CHECK(ctx->vops->dot_local(ctx, n, 1, &x, &y, r));
  NG_CHECK(ng_comm_allreduce_sum(ctx, r, 1));
  return NG_SUCCESS;
}

ng_status ng_dot2(ng_context ctx, int32_t n, const double *x1, const double *y1, const double *x2,
                  const double *y2, double r[2])
{
  const double *xs[2] = {x1, x2}, *ys[2] = {y1, y2};
  NG_CHECK(ctx->vops->dot_local(ctx, n, 2, xs, ys, r));
  NG_CHECK(ng_comm_allreduce_sum(ctx, r, 2));
  return NG_SUCCESS;
}

ng_status ng_vector_dot(ng_vector x, ng_vector y, double *result)
{
  NG_CHECK(same_layout(x, y, "ng_vector_dot"));
  NG_ASSERT_ARG(result, "ng_vector_dot: null result");
  NG_CHECK(ng_dot(x->ctx, x->n, x->data, y->data, result));
  return NG_SUCCESS;
}

ng_status ng_vector_norm2(ng_vector x, double *result)
{
  NG_ASSERT_ARG(x && result, "ng_vector_norm2: null argument");
  NG_CHECK(ng_dot(x->ctx, x->n, x->data, x->data, result));
  *result = sqrt(*result);
  return NG_SUCCESS;
}
