/* core/vec_host.c: the host vector ops table (reference for the CUDA one);
 * loops are OpenMP-parallel when the build has OpenMP. */
#include "core.h"

#define NG_OMP_FOR _Pragma("omp parallel for schedule(static) if (n > 20000)")
#ifndef _OPENMP
#undef NG_OMP_FOR
#define NG_OMP_FOR
#endif

static ng_status h_alloc(ng_context ctx, double **p, int32_t n)
{
  return ng_host_alloc((void **)p, (size_t)n, sizeof(double), 0, "vector");
}
static void h_free(ng_context ctx, double *p) { ng_free(p); }
static ng_status h_copy_in(ng_context ctx, double *dst, const double *src, int32_t n)
{
  if (n) memcpy(dst, src, (size_t)n * sizeof(double));
  return NG_SUCCESS;
}
static ng_status h_fill(ng_context ctx, int32_t n, double v, double *x)
{
  NG_OMP_FOR
  for (int32_t i = 0; i < n; i++) x[i] = v;
  return NG_SUCCESS;
}
static ng_status h_copy(ng_context ctx, int32_t n, const double *src, double *dst)
{
  return h_copy_in(ctx, dst, src, n);
}
static ng_status h_axpy(ng_context ctx, int32_t n, double a, const double *x, double *y)
{
  NG_OMP_FOR
  for (int32_t i = 0; i < n; i++) y[i] += a * x[i];
  return NG_SUCCESS;
}
static ng_status h_xpay(ng_context ctx, int32_t n, const double *x, double b, double *y)
{
  NG_OMP_FOR
  for (int32_t i = 0; i < n; i++) y[i] = x[i] + b * y[i];
  return NG_SUCCESS;
}
static ng_status h_axpbypcz(ng_context ctx, int32_t n, double a, const double *x, double b, const double *y,
                            double c, double *z)
{
  if (c == 0.0) {
    NG_OMP_FOR
    for (int32_t i = 0; i < n; i++) z[i] = a * x[i] + b * y[i];
  } else {
    NG_OMP_FOR
    for (int32_t i = 0; i < n; i++) z[i] = a * x[i] + b * y[i] + c * z[i];
  }
  return NG_SUCCESS;
}
static ng_status h_scale(ng_context ctx, int32_t n, double a, double *x)
{
  NG_OMP_FOR
  for (int32_t i = 0; i < n; i++) x[i] *= a;
  return NG_SUCCESS;
}
static ng_status h_pmult(ng_context ctx, int32_t n, const double *d, const double *x, double *z)
{
  NG_OMP_FOR
  for (int32_t i = 0; i < n; i++) z[i] = d[i] * x[i];
  return NG_SUCCESS;
}
static ng_status h_dot(ng_context ctx, int32_t n, int count, const double *const *x, const double *const *y,
                       double *r)
{
  for (int k = 0; k < count; k++) {
    double s = 0.0;
    const double *a = x[k], *b = y[k];
#ifdef _OPENMP
#pragma omp parallel for reduction(+ : s) schedule(static) if (n > 20000)
#endif
    for (int32_t i = 0; i < n; i++) s += a[i] * b[i];
    r[k] = s;
  }
  return NG_SUCCESS;
}

static ng_status h_alloc_raw(ng_context ctx, void **p, size_t bytes, const char *what)
{
  return ng_host_alloc(p, bytes, 1, 0, what);
}
static void h_free_raw(ng_context ctx, void *p) { ng_free(p); }
static ng_status h_copy_raw(ng_context ctx, void *dst, const void *src, size_t bytes)
{
  if (bytes) memcpy(dst, src, bytes);
  return NG_SUCCESS;
}
static ng_status h_gather(ng_context ctx, int32_t n, const int32_t *idx, const double *x, double *buf)
{
  NG_OMP_FOR
  for (int32_t k = 0; k < n; k++) buf[k] = x[idx[k]];
  return NG_SUCCESS;
}
static ng_status h_scatter_add(ng_context ctx, int32_t n, const int32_t *idx, const double *buf, double *y)
{
  NG_OMP_FOR
  for (int32_t k = 0; k < n; k++) y[idx[k]] += buf[k];
  return NG_SUCCESS;
}
static ng_status h_sync(ng_context ctx) { return NG_SUCCESS; }

/* Fused Krylov updates: the reference for the CUDA kernels. */
static ng_status h_cg_update_r(ng_context ctx, int32_t n, double alpha, const double *q, double *r, const double *d,
                               double *z, double *result)
{
  double rz = 0.0, rr = 0.0;
  if (d) {
#ifdef _OPENMP
#pragma omp parallel for reduction(+ : rz, rr) schedule(static) if (n > 20000)
#endif
    for (int32_t i = 0; i < n; i++) {
      double ri = r[i] - alpha * q[i];
      double zi = d[i] * ri;
      r[i] = ri;
      z[i] = zi;
      rz += ri * zi;
      rr += ri * ri;
    }
    result[0] = rz;
    result[1] = rr;
  } else {
#ifdef _OPENMP
#pragma omp parallel for reduction(+ : rr) schedule(static) if (n > 20000)
#endif
    for (int32_t i = 0; i < n; i++) {
      double ri = r[i] - alpha * q[i];
      r[i] = ri;
      rr += ri * ri;
    }
    result[0] = rr;
  }
  return NG_SUCCESS;
}
static ng_status h_cg_update_xp(ng_context ctx, int32_t n, double alpha, double beta, const double *z, double *x,
                                double *p)
{
  NG_OMP_FOR
  for (int32_t i = 0; i < n; i++) {
    double pi = p[i];
    x[i] += alpha * pi;
    p[i] = z[i] + beta * pi;
  }
  return NG_SUCCESS;
}
static ng_status h_bicgstab_update(ng_context ctx, int32_t n, double alpha, const double *phat, double omega,
                                   const double *shat, const double *t, double *x, double *r, const double *r0hat,
                                   double result[2])
{
  double a = 0.0, b = 0.0;
#ifdef _OPENMP
#pragma omp parallel for reduction(+ : a, b) schedule(static) if (n > 20000)
#endif
  for (int32_t i = 0; i < n; i++) {
    x[i] += alpha * phat[i] + omega * shat[i];
    double ri = r[i] - omega * t[i];
    r[i] = ri;
    a += r0hat[i] * ri;
    b += ri * ri;
  }
  result[0] = a;
  result[1] = b;
  return NG_SUCCESS;
}

static ng_status h_cg_step(ng_context ctx, int32_t n, double rho, const double *p, const double *q, double *r,
                           const double *d, double *z, double result[3])
{
  const double *xs[1] = {p}, *ys[1] = {q};
  double pq, t[2];
  h_dot(ctx, n, 1, xs, ys, &pq);
  h_cg_update_r(ctx, n, pq > 0.0 ? rho / pq : 0.0, q, r, d, z, t);
  result[0] = t[0];
  result[1] = d ? t[1] : t[0];
  result[2] = pq;
  return NG_SUCCESS;
}

static ng_status h_cg1_update(ng_context ctx, int32_t n, double alpha, double beta, const double *d, double *u,
                              const double *w, double *p, double *s, double *x, double *r, double stash[2])
{
  double ru = 0.0, rr = 0.0;
  (void)ctx;
#ifdef _OPENMP
#pragma omp parallel for reduction(+ : ru, rr) schedule(static) if (n > 20000)
#endif
  for (int32_t i = 0; i < n; i++) {
    double pi = beta == 0.0 ? u[i] : u[i] + beta * p[i];
    double si = beta == 0.0 ? w[i] : w[i] + beta * s[i];
    p[i] = pi;
    s[i] = si;
    x[i] += alpha * pi;
    double ri = r[i] - alpha * si;
    r[i] = ri;
    double ui = d ? d[i] * ri : ri;
    if (d) u[i] = ui;
    ru += ri * ui;
    rr += ri * ri;
  }
  stash[0] = ru;
  stash[1] = rr;
  return NG_SUCCESS;
}

static ng_status h_cg1_dot(ng_context ctx, int32_t n, const double *w, const double *u, const double stash[2],
                           double result[3])
{
  const double *xs[1] = {w}, *ys[1] = {u};
  h_dot(ctx, n, 1, xs, ys, &result[0]);
  result[1] = stash[0];
  result[2] = stash[1];
  return NG_SUCCESS;
}

/* Krylov basis products, blocked by rows: a block of w (and of the result)
 * stays in cache while the k basis vectors stream past it once. */
#define NG_BASIS_BLOCK 1024
static ng_status h_basis_dot(ng_context ctx, int32_t n, int k, const double *V, int64_t ldv, const double *w,
                             double *h)
{
  NG_ASSERT_ARG(k >= 0 && ldv >= n, "basis_dot: k = %d, ldv = %lld for n = %d", k, (long long)ldv, (int)n);
  for (int j = 0; j < k; j++) h[j] = 0.0;
  int64_t nblocks = ((int64_t)n + NG_BASIS_BLOCK - 1) / NG_BASIS_BLOCK;
#ifdef _OPENMP
#pragma omp parallel for reduction(+ : h[:k]) schedule(static) if (n > 20000)
#endif
  for (int64_t c = 0; c < nblocks; c++) {
    int64_t i0 = c * NG_BASIS_BLOCK, i1 = i0 + NG_BASIS_BLOCK < n ? i0 + NG_BASIS_BLOCK : n;
    for (int j = 0; j < k; j++) {
      const double *v = V + j * ldv;
      double s = 0.0;
      for (int64_t i = i0; i < i1; i++) s += v[i] * w[i];
      h[j] += s;
    }
  }
  return NG_SUCCESS;
}
static ng_status h_basis_update(ng_context ctx, int32_t n, int k, const double *V, int64_t ldv, double alpha,
                                const double *y, double beta, double *w)
{
  NG_ASSERT_ARG(k >= 0 && ldv >= n, "basis_update: k = %d, ldv = %lld for n = %d", k, (long long)ldv, (int)n);
  int64_t nblocks = ((int64_t)n + NG_BASIS_BLOCK - 1) / NG_BASIS_BLOCK;
  NG_OMP_FOR
  for (int64_t c = 0; c < nblocks; c++) {
    int64_t i0 = c * NG_BASIS_BLOCK, i1 = i0 + NG_BASIS_BLOCK < n ? i0 + NG_BASIS_BLOCK : n;
    if (beta == 0.0)
      for (int64_t i = i0; i < i1; i++) w[i] = 0.0;
    else if (beta != 1.0)
      for (int64_t i = i0; i < i1; i++) w[i] *= beta;
    for (int j = 0; j < k; j++) {
      const double *v = V + j * ldv;
      double a = alpha * y[j];
      for (int64_t i = i0; i < i1; i++) w[i] += a * v[i];
    }
  }
  return NG_SUCCESS;
}

const ng_vec_ops ng_vec_ops_host = {
  .name = "host",
  .alloc = h_alloc,
  .free = h_free,
  .upload = h_copy_in,
  .download = h_copy_in,
  .fill = h_fill,
  .copy = h_copy,
  .axpy = h_axpy,
  .xpay = h_xpay,
  .axpbypcz = h_axpbypcz,
  .scale = h_scale,
  .pointwise_mult = h_pmult,
  .dot_local = h_dot,
  .alloc_raw = h_alloc_raw,
  .free_raw = h_free_raw,
  .upload_raw = h_copy_raw,
  .download_raw = h_copy_raw,
  .gather = h_gather,
  .scatter_add = h_scatter_add,
  .sync = h_sync,
  .cg_update_r = h_cg_update_r,
  .cg_update_xp = h_cg_update_xp,
  .bicgstab_update = h_bicgstab_update,
  .cg_step = h_cg_step,
  .cg1_update = h_cg1_update,
  .cg1_dot = h_cg1_dot,
  .basis_dot = h_basis_dot,
  .basis_update = h_basis_update,
};
