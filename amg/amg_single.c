/* amg/amg_single.c: -amg_precision single, the V-cycle in FP32 inside
 * the FP64 Krylov solver (AmgX's dDFI mode): after the double hierarchy is
 * set up (or updated) every level's A, P, R, the coarsest inverse and the
 * smoother's diagonal get a float copy (values converted; CSR row offsets
 * and columns borrowed from the double tables), with float work vectors;
 * the cycle of amg_cycle.c runs on them through ng_amg_values_float (r
 * converted to float at entry, z back at exit), its smoother the damped
 * Jacobi of smoother_jacobi.c in float (fused sweeps and residual). Half the matrix bytes of the double cycle. Restricted to
 * the Jacobi smoother, csr levels (-amg_format csr) and a finest level in
 * csr, dia or dia_half; other choices are refused at setup (amg.c). The
 * host kernels here are the reference of amg_single_cuda.cu. */
#include "amg_single.h"
#include "amg.h"
#include "../smoother/smoother.h"

#ifdef NG_HAVE_CUDA
ng_status ng_csr_cuda_arrays(const ng_spmv_ops *ops, void *data, int32_t **rowptr, int32_t **col, double **val);
#endif

/* ---- host kernels ----------------------------------------------------------- */
#define OMP_ROWS _Pragma("omp parallel for schedule(static) if (n > 20000)")

static ng_status h_d2f(ng_context ctx, int64_t n, const double *x, float *y)
{
  OMP_ROWS
  for (int64_t i = 0; i < n; i++) y[i] = (float)x[i];
  return NG_SUCCESS;
}
static ng_status h_f2d(ng_context ctx, int64_t n, const float *x, double *y)
{
  OMP_ROWS
  for (int64_t i = 0; i < n; i++) y[i] = x[i];
  return NG_SUCCESS;
}
static ng_status h_pmult(ng_context ctx, int32_t n, const float *d, const float *x, float *y)
{
  OMP_ROWS
  for (int32_t i = 0; i < n; i++) y[i] = d[i] * x[i];
  return NG_SUCCESS;
}
static ng_status h_copy(ng_context ctx, int32_t n, const float *x, float *y)
{
  if (n) memcpy(y, x, (size_t)n * sizeof(float));
  return NG_SUCCESS;
}
static ng_status h_zero(ng_context ctx, int32_t n, float *x)
{
  if (n) memset(x, 0, (size_t)n * sizeof(float));
  return NG_SUCCESS;
}

/* (A x)_i in float */
static inline float row_sum(const ng_fmat *A, int32_t i, const float *x)
{
  float s = 0.0f;
  int32_t n = A->n;
  if (!A->dia) {
    for (int64_t k = A->rp64[i]; k < A->rp64[i + 1]; k++) s += A->val[k] * x[A->col[k]];
    return s;
  }
  for (int32_t d = 0; d < A->nd; d++) {
    int64_t j = (int64_t)i + A->off[d];
    if (j >= 0 && j < n) s += A->val[(size_t)d * n + i] * x[j];
    if (A->half && A->off[d] < 0) {
      int64_t r = (int64_t)i - A->off[d];
      if (r < n) s += A->val[(size_t)d * n + r] * x[r];
    }
  }
  return s;
}
static ng_status h_spmv(ng_context ctx, const ng_fmat *A, float alpha, const float *x, float beta, float *y)
{
  int32_t n = A->n;
  OMP_ROWS
  for (int32_t i = 0; i < n; i++) {
    float s = row_sum(A, i, x);
    y[i] = beta == 0.0f ? alpha * s : alpha * s + beta * y[i];
  }
  return NG_SUCCESS;
}
static ng_status h_fused(ng_context ctx, const ng_fmat *A, const float *b, const float *x, const float *dinv, float *y)
{
  int32_t n = A->n;
  OMP_ROWS
  for (int32_t i = 0; i < n; i++) {
    float r = b[i] - row_sum(A, i, x);
    y[i] = dinv ? x[i] + dinv[i] * r : r;
  }
  return NG_SUCCESS;
}
const ng_amg_fops ng_amg_fops_host = {.d2f = h_d2f, .f2d = h_f2d, .pmult = h_pmult, .copy = h_copy, .zero = h_zero,
                                      .spmv = h_spmv, .fused = h_fused};

/* ---- the float hierarchy ------------------------------------------------------ */
typedef struct {
  ng_fmat A, P, R;
  float *dinv, *x, *b, *r;
} slevel;

typedef struct {
  const ng_amg_fops *f;
  int nlevels;
  slevel *L;
  ng_fmat C; /* coarsest dense inverse (coarse_direct) */
} single_state;

static ng_status falloc(ng_context ctx, float **p, int64_t n, const char *what)
{
  NG_CHECK(ctx->vops->alloc_raw(ctx, (void **)p, (size_t)(n > 0 ? n : 1) * sizeof(float), what));
  return NG_SUCCESS;
}

/* F = float copy of the double table (ops, data) of n x ncols; what names it in messages. */
static ng_status fmat_from(ng_context ctx, const ng_amg_fops *f, const ng_spmv_ops *ops, void *data, int32_t n,
                           int32_t ncols, ng_fmat *F, const char *what)
{
  memset(F, 0, sizeof(*F));
  F->n = n;
  F->ncols = ncols;
  if (!ctx->on_gpu && ops == ng_spmv_find("csr", 0)) {
    const ng_csr *X = data;
    F->rp64 = X->rowptr;
    F->col = X->col;
    F->nnz = X->nnz;
    NG_CHECK(falloc(ctx, &F->val, F->nnz, what));
    NG_CHECK(f->d2f(ctx, F->nnz, X->val, F->val));
    return NG_SUCCESS;
  }
  if (!ctx->on_gpu && (ops == ng_spmv_find("dia", 0) || ops == ng_spmv_find("dia_half", 0))) {
    const ng_dia *D = data;
    F->dia = 1;
    F->nd = D->nd;
    F->half = D->half;
    memcpy(F->off, D->off, (size_t)D->nd * sizeof(int32_t));
    NG_CHECK(falloc(ctx, &F->val, (int64_t)D->nd * n, what));
    NG_CHECK(f->d2f(ctx, (int64_t)D->nd * n, D->val, F->val));
    return NG_SUCCESS;
  }
#ifdef NG_HAVE_CUDA
  if (ctx->on_gpu) {
    int32_t *rp, *col;
    double *val;
    const ng_dia *D;
    const double *dval;
    if (ng_csr_cuda_arrays(ops, data, &rp, &col, &val) == NG_SUCCESS) {
      int32_t last = 0;
      NG_CHECK(ctx->vops->download_raw(ctx, &last, rp + n, sizeof(int32_t)));
      F->rp32 = rp;
      F->col = col;
      F->nnz = last;
      F->lanes = F->nnz > 12 * (int64_t)n ? 32 : 4;
      NG_CHECK(falloc(ctx, &F->val, F->nnz, what));
      NG_CHECK(f->d2f(ctx, F->nnz, val, F->val));
      return NG_SUCCESS;
    }
    if (ng_dia_cuda_arrays(ops, data, &D, &dval) == NG_SUCCESS) {
      F->dia = 1;
      F->nd = D->nd;
      F->half = D->half;
      memcpy(F->off, D->off, (size_t)D->nd * sizeof(int32_t));
      NG_CHECK(falloc(ctx, &F->val, (int64_t)D->nd * n, what));
      NG_CHECK(f->d2f(ctx, (int64_t)D->nd * n, dval, F->val));
      return NG_SUCCESS;
    }
  }
#endif
  return NG_ERROR(NG_ERR_UNSUPPORTED, "-amg_precision single: %s is stored as %s, which has no float version (csr, dia, "
                  "dia_half have)", what, ops->name);
}

void ng_amg_single_free(ng_context ctx, ng_amg *M)
{
  single_state *S = M->fp32;
  if (!S) return;
  for (int l = 0; l < S->nlevels; l++) {
    slevel *L = &S->L[l];
    ctx->vops->free_raw(ctx, L->A.val);
    ctx->vops->free_raw(ctx, L->P.val);
    ctx->vops->free_raw(ctx, L->R.val);
    ctx->vops->free_raw(ctx, L->dinv);
    ctx->vops->free_raw(ctx, L->x);
    ctx->vops->free_raw(ctx, L->b);
    ctx->vops->free_raw(ctx, L->r);
  }
  ctx->vops->free_raw(ctx, S->C.val);
  ng_free(S->L);
  ng_free(S);
  M->fp32 = NULL;
}

ng_status ng_amg_single_build(ng_context ctx, ng_amg *M, ng_matrix A)
{
  single_state *S;
  ng_amg_single_free(ctx, M); /* an update makes the copies again (the finest table was converted again) */
  NG_CHECK(NG_CALLOC(S, 1));
  M->fp32 = S;
#ifdef NG_HAVE_CUDA
  S->f = ctx->on_gpu ? &ng_amg_fops_cuda : &ng_amg_fops_host;
#else
  S->f = &ng_amg_fops_host;
#endif
  NG_CHECK(NG_CALLOC(S->L, M->nlevels));
  S->nlevels = M->nlevels;
  for (int l = 0; l < M->nlevels; l++) {
    ng_amg_level *L = &M->L[l];
    slevel *F = &S->L[l];
    int last = l == M->nlevels - 1;
    char what[64];
    snprintf(what, sizeof(what), "level %d's A", l);
    if (!(last && M->coarse_direct)) {
      if (L->s.Aops) NG_CHECK(fmat_from(ctx, S->f, L->s.Aops, L->s.Adata, L->s.n, L->s.n, &F->A, what));
      else NG_CHECK(fmat_from(ctx, S->f, ng_matrix_csr_ops(A), ng_matrix_csr_data(A), L->s.n, L->s.n, &F->A, "the matrix (finest level)"));
      NG_CHECK(falloc(ctx, &F->dinv, L->s.n, "float dinv"));
      NG_CHECK(S->f->d2f(ctx, L->s.n, L->s.dinv, F->dinv));
    }
    if (!last) {
      snprintf(what, sizeof(what), "level %d's P", l);
      NG_CHECK(fmat_from(ctx, S->f, L->Pops, L->Pdata, L->s.n, M->L[l + 1].s.n, &F->P, what));
      snprintf(what, sizeof(what), "level %d's R", l);
      NG_CHECK(fmat_from(ctx, S->f, L->Rops, L->Rdata, M->L[l + 1].s.n, L->s.n, &F->R, what));
    } else if (M->coarse_direct)
      NG_CHECK(fmat_from(ctx, S->f, M->Cops, M->Cdata, L->s.n, L->s.n, &S->C, "the coarsest inverse"));
    NG_CHECK(falloc(ctx, &F->x, L->s.n, "float x"));
    NG_CHECK(falloc(ctx, &F->b, L->s.n, "float b"));
    NG_CHECK(falloc(ctx, &F->r, L->s.n, "float r"));
  }
  NG_CHECK(ctx->vops->sync(ctx));
  return NG_SUCCESS;
}

/* Jacobi sweeps in float, alternating between x and the level's r as
 * smoother_jacobi.c's fused sweeps do (zero: from x = 0). */
static ng_status jacobi(ng_context ctx, single_state *S, int l, int sweeps, int zero, const float *b, float *x)
{
  slevel *L = &S->L[l];
  const ng_amg_fops *f = S->f;
  int32_t n = L->A.n;
  if (zero && sweeps == 0) {
    NG_CHECK(f->zero(ctx, n, x));
    return NG_SUCCESS;
  }
  float *cur = x, *t = L->r;
  int m = zero ? sweeps - 1 : sweeps;
  if (zero) {
    cur = m % 2 ? t : x;
    NG_CHECK(f->pmult(ctx, n, L->dinv, b, cur));
  }
  for (int s = 0; s < m; s++) {
    float *next = cur == x ? t : x;
    NG_CHECK(f->fused(ctx, &L->A, b, cur, L->dinv, next));
    cur = next;
  }
  if (cur != x) NG_CHECK(f->copy(ctx, n, cur, x));
  return NG_SUCCESS;
}

/* ---- the float value type of amg_cycle.c's cycle ------------------------- */
static single_state *state(ng_amg *M) { return M->fp32; }

static ng_status f_enter(ng_precond P, ng_amg *M, const double *r, double *z, const void **b, void **x)
{
  single_state *S = state(M);
  if (!S) return NG_ERROR(NG_ERR_INTERNAL, "-amg_precision single: the float hierarchy is missing");
  NG_CHECK(S->f->d2f(P->ctx, M->L[0].s.n, r, S->L[0].b));
  *b = S->L[0].b;
  *x = S->L[0].x;
  return NG_SUCCESS;
}
static ng_status f_leave(ng_precond P, ng_amg *M, const void *x, double *z)
{
  NG_CHECK(state(M)->f->f2d(P->ctx, M->L[0].s.n, x, z));
  return NG_SUCCESS;
}
static ng_status f_smooth(ng_precond P, ng_amg *M, int l, int post, int sweeps, const void *b, void *x)
{
  NG_CHECK(jacobi(P->ctx, state(M), l, sweeps, !post, b, x));
  return NG_SUCCESS;
}
static ng_status f_coarsest(ng_precond P, ng_amg *M, const void *b, void *x)
{
  single_state *S = state(M);
  NG_CHECK(S->f->spmv(P->ctx, &S->C, 1.0f, b, 0.0f, x));
  return NG_SUCCESS;
}
static ng_status f_residual(ng_precond P, ng_amg *M, int l, const void *b, const void *x, void *r)
{
  single_state *S = state(M);
  NG_CHECK(S->f->fused(P->ctx, &S->L[l].A, b, x, NULL, r));
  return NG_SUCCESS;
}
static ng_status f_restrict(ng_precond P, ng_amg *M, int l, const void *r, void *bc)
{
  single_state *S = state(M);
  NG_CHECK(S->f->spmv(P->ctx, &S->L[l].R, 1.0f, r, 0.0f, bc));
  return NG_SUCCESS;
}
static ng_status f_prolong(ng_precond P, ng_amg *M, int l, double w, const void *xc, void *x)
{
  single_state *S = state(M);
  NG_CHECK(S->f->spmv(P->ctx, &S->L[l].P, (float)w, xc, 1.0f, x));
  return NG_SUCCESS;
}
static void *f_vec(ng_amg *M, int l, int which)
{
  slevel *L = &state(M)->L[l];
  return which == NG_AMG_VEC_B ? (void *)L->b : which == NG_AMG_VEC_X ? (void *)L->x : (void *)L->r;
}
const ng_amg_value_ops ng_amg_values_float = {.name = "single", .enter = f_enter, .leave = f_leave,
                                              .smooth = f_smooth, .coarsest = f_coarsest, .residual = f_residual,
                                              .restrict_to = f_restrict, .prolong_add = f_prolong, .vec = f_vec,
                                              .kcycle = 0};
