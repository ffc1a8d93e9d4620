/* amg/amg_cycle.c: the V-cycle (METHODS.md section 4): pre-smoothing
 * from a zero guess by the level's smoother (smoother.h), restriction of the
 * residual, recursion, prolongation and correction, the same number of
 * post-sweeps in the adjoint order; with -amg_cycle w the coarse correction
 * twice (a W-cycle, see ng_amg_coarse_visits); with -amg_cycle k the
 * correction to a level >= 1 (not the coarsest) by the K-step of
 * amg_kcycle.c, which calls this cycle from that level. Smoothers whose post-sweep
 * is the adjoint of their pre-sweep and R = P^T make it symmetric for CG. Everything runs on the context's memory
 * through the SpMV tables and ctx->vops: no allocation, host copy or sync
 * (unless per-level profiling is switched on by a benchmark). Tables with a
 * fused entry compute the residual in one pass. With -amg_cuda_graph on a one-rank GPU
 * context the cycle is replayed as a CUDA graph (amg_graph_cuda.cu). One
 * cycle for every value type: it calls its arithmetic through an
 * ng_amg_value_ops table (amg.h), double here, float in amg_single.c
 * (-amg_precision single), chosen once at the options. */
#include "amg.h"
#include "../smoother/smoother.h"

/* r = b - A x on level l: through the level's table (level 0: its own copy
 * of the matrix, amg_fine.c, else the smoother's copy when it has one, else
 * the user's matrix), in one pass when the table has the fused entry. */
ng_status ng_amg_residual(ng_precond P, ng_amg *M, int l, const double *b, const double *x, double *r)
{
  NG_CHECK(ng_smoother_residual(P->ctx, M->sopts.ops, &M->L[l].s, b, x, r));
  return NG_SUCCESS;
}

/* y = alpha A x + beta y on level l. */
ng_status ng_amg_level_apply(ng_precond P, ng_amg *M, int l, double alpha, const double *x, double beta, double *y)
{
  NG_CHECK(ng_smoother_apply(P->ctx, &M->L[l].s, alpha, x, beta, y));
  return NG_SUCCESS;
}

/* Profiling (benchmarks): wait for the queued work and charge it to level l. */
static ng_status charge(ng_precond P, ng_amg *M, int l, double *t)
{
  if (!M->profile) return NG_SUCCESS;
  NG_CHECK(P->ctx->vops->sync(P->ctx));
  double now = ng_wtime();
  if (l >= 0) M->L[l].seconds += now - *t;
  *t = now;
  return NG_SUCCESS;
}

/* The W-cycle's second coarse correction is made from level l: x += P
 * cycle(R (b - A x)), the textbook e_c += cycle_c(b_c - A_c e_c) when A_c =
 * R A P, with no vector beyond the V-cycle's (level l's residual buffer is
 * free again once restricted): one more level-l residual, R and P per
 * visit, through the same tables. With the sparsified coarse operators
 * (-amg_sparsify: A_c is not R A P) it sees the true residual; the textbook
 * form with the sparsified A_c (tried: one more coarse vector per level,
 * about 10% fewer matrix entries read per cycle on het5:512) took one
 * iteration more on het7:64 and lap7:64 (Jacobi) and on rotaniso:512 and
 * het7:64 (Chebyshev), one fewer on lap7:64 (Chebyshev) and with mcgs on
 * het5, lap7. Two corrections in a row, (I - w T)(I - T) with T =
 * P B R A, keep the cycle symmetric for CG (a polynomial in T), and
 * positive definite when (lambda - 1)(w lambda - 1) < 1 at lambda_max(B R A P):
 * the second correction's weight w of amg_wcycle.c (below 1 when the
 * sparsified coarse operators over-correct by more than 1.5; the unweighted
 * W-cycle was indefinite on stretch7 and broke CG down, issue 31). The coarsest level solved directly is visited
 * once: a second visit would correct nothing. */
int ng_amg_coarse_visits(const ng_amg *M, int l)
{
  if (M->cycle_gamma <= 1 || (l + 1 == M->nlevels - 1 && M->coarse_direct)) return 1;
  return M->cycle_gamma;
}

/* ---- the double value type: the level tables and the smoother ---------- */
static ng_status d_enter(ng_precond P, ng_amg *M, const double *r, double *z, const void **b, void **x)
{
  *b = r;
  *x = z;
  return NG_SUCCESS;
}
static ng_status d_leave(ng_precond P, ng_amg *M, const void *x, double *z) { return NG_SUCCESS; }
static ng_status d_smooth(ng_precond P, ng_amg *M, int l, int post, int sweeps, const void *b, void *x)
{
  const ng_smoother_ops *o = M->sopts.ops;
  NG_CHECK((post ? o->post : o->pre)(P->ctx, &M->sopts, &M->L[l].s, sweeps, b, x));
  return NG_SUCCESS;
}
static ng_status d_coarsest(ng_precond P, ng_amg *M, const void *b, void *x)
{
  NG_CHECK(M->Cops->apply(M->Cdata, 1.0, b, 0.0, x));
  return NG_SUCCESS;
}
static ng_status d_residual(ng_precond P, ng_amg *M, int l, const void *b, const void *x, void *r)
{
  NG_CHECK(ng_amg_residual(P, M, l, b, x, r));
  return NG_SUCCESS;
}
static ng_status d_restrict(ng_precond P, ng_amg *M, int l, const void *r, void *bc)
{
  NG_CHECK(M->L[l].Rops->apply(M->L[l].Rdata, 1.0, r, 0.0, bc));
  return NG_SUCCESS;
}
static ng_status d_prolong(ng_precond P, ng_amg *M, int l, double w, const void *xc, void *x)
{
  NG_CHECK(M->L[l].Pops->apply(M->L[l].Pdata, w, xc, 1.0, x));
  return NG_SUCCESS;
}
static void *d_vec(ng_amg *M, int l, int which)
{
  ng_amg_level *L = &M->L[l];
  return which == NG_AMG_VEC_B ? (void *)L->b : which == NG_AMG_VEC_X ? (void *)L->x : (void *)L->s.r;
}
const ng_amg_value_ops ng_amg_values_double = {.name = "double", .enter = d_enter, .leave = d_leave,
                                               .smooth = d_smooth, .coarsest = d_coarsest, .residual = d_residual,
                                               .restrict_to = d_restrict, .prolong_add = d_prolong, .vec = d_vec,
                                               .kcycle = 1};

/* ---- the cycle, in the value type v ------------------------------------ */
static ng_status cycle(ng_precond P, ng_amg *M, const ng_amg_value_ops *v, int l, const void *b, void *x)
{
  ng_amg_level *L = &M->L[l];
  double t = 0;
  NG_CHECK(charge(P, M, -1, &t));
  if (l == M->nlevels - 1) {
    if (M->coarse_direct) NG_CHECK(v->coarsest(P, M, b, x));
    else {
      /* a Gauss-Seidel sweep is not symmetric by itself: half forward, half backward */
      int fw = M->sopts.ops->split_coarse ? (L->pre + 1) / 2 : L->pre;
      NG_CHECK(v->smooth(P, M, l, 0, fw, b, x));
      if (L->pre - fw > 0) NG_CHECK(v->smooth(P, M, l, 1, L->pre - fw, b, x));
    }
    NG_CHECK(charge(P, M, l, &t));
    return NG_SUCCESS;
  }
  void *r = v->vec(M, l, NG_AMG_VEC_R), *cb = v->vec(M, l + 1, NG_AMG_VEC_B), *cx = v->vec(M, l + 1, NG_AMG_VEC_X);
  NG_CHECK(v->smooth(P, M, l, 0, L->pre, b, x));
  for (int k = 0; k < ng_amg_coarse_visits(M, l); k++) { /* twice for the W-cycle, from the new residual */
    NG_CHECK(v->residual(P, M, l, b, x, r));
    NG_CHECK(v->restrict_to(P, M, l, r, cb));
    NG_CHECK(charge(P, M, l, &t));
    /* -amg_cycle k: by at most two FCG iterations on level l + 1 (amg_kcycle.c) */
    if (v->kcycle && ng_amg_k_level(M, l + 1)) NG_CHECK(ng_amg_k_step(P, M, l + 1, cb, cx));
    else NG_CHECK(cycle(P, M, v, l + 1, cb, cx));
    NG_CHECK(charge(P, M, -1, &t));
    /* the W-cycle's second correction weighted: (I - w T)(I - T) stays below
     * I (amg_wcycle.c); the first, and the V-cycle's, unweighted */
    NG_CHECK(v->prolong_add(P, M, l, k > 0 ? L->wscale : 1.0, cx, x));
  }
  if (L->post > 0) NG_CHECK(v->smooth(P, M, l, 1, L->post, b, x));
  NG_CHECK(charge(P, M, l, &t));
  return NG_SUCCESS;
}

ng_status ng_amg_cycle_level(ng_precond P, ng_amg *M, int l, const double *b, double *x)
{
  NG_CHECK(cycle(P, M, &ng_amg_values_double, l, b, x));
  return NG_SUCCESS;
}

/* z = cycle(r) in the hierarchy's value type (M->values, chosen once) */
static ng_status plain_cycle(ng_precond P, ng_amg *M, const double *r, double *z)
{
  const ng_amg_value_ops *v = M->values ? M->values : &ng_amg_values_double;
  const void *b;
  void *x;
  NG_CHECK(v->enter(P, M, r, z, &b, &x));
  NG_CHECK(cycle(P, M, v, 0, b, x));
  NG_CHECK(v->leave(P, M, x, z));
  return NG_SUCCESS;
}

ng_status ng_amg_vcycle(ng_precond P, ng_amg *M, const double *r, double *z)
{
#ifdef NG_HAVE_CUDA
  /* one graph launch per cycle (not while profiling: it syncs per level) */
  if (M->use_graph && !M->profile) {
    int done = 0;
    NG_CHECK(ng_amg_graph_cycle(P, M, r, z, plain_cycle, &done));
    if (done) return NG_SUCCESS;
  }
#endif
  return plain_cycle(P, M, r, z);
}
