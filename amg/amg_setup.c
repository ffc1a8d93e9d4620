/* amg/amg_setup.c: builds the smoothed-aggregation hierarchy on the host
 * and moves each level into the context's memory through the SpMV registry
 * (A, P, R of every level, the dense coarsest inverse) and ctx->vops (the
 * smoother's omega / diagonal and the work vectors). refresh() recomputes the
 * values for a matrix with the same pattern, keeping aggregates and patterns. */
#include "amg_dist.h"
#include "../smoother/smoother.h"
#include <math.h>

#define RHO_ITERS 12
/* A coarsest level bigger than this (and than -amg_coarse_size: coarsening
 * stalled or -amg_max_levels reached) is smoothed instead of inverted: the
 * dense inverse costs about 0.7 n^3 serial flops and 8 n^2 bytes. */
#define DIRECT_MAX_ROWS 1024

/* Strength threshold of level l (-amg_theta, -amg_theta_coarse). */
double ng_amg_level_theta(const ng_amg *M, int l) { return l > 0 && M->theta_coarse >= 0 ? M->theta_coarse : M->theta; }
#define level_theta ng_amg_level_theta

/* Level l > 0 made from level l - 1's device product, which then holds its
 * operator (rho, diagonal, table from the device); with -amg_sparsify the
 * device sparsifies it as the host would (amg_galerkin_cuda.cu). */
static int from_device(ng_amg *M, int l) { return l > 0 && M->L[l - 1].gpu; }


/* Host operator of level l (level 0 is the user's matrix). */
static const ng_csr *level_matrix(ng_amg *M, ng_matrix A, int l) { return l ? &M->L[l].A : &A->local; }

ng_status ng_amg_level_host(ng_amg *M, int l)
{
  /* level 0: the matrix's host block (a device-only gathered level's comes
   * down here: dist/matrix.c) */
  if (l == 0 && M->L[0].s.matrix) NG_CHECK(ng_matrix_host_current(M->L[0].s.matrix));
#ifdef NG_HAVE_CUDA
  if (l > 0 && M->L[l].host_stale) NG_CHECK(ng_amg_gpu_level_host(M, l));
#endif
  return NG_SUCCESS;
}

/* An SpMV table for one host CSR in the requested format, CSR when the format refuses it. */
ng_status ng_amg_make_spmv(ng_context ctx, ng_amg *M, const ng_csr *X, const ng_spmv_ops **ops, void **data)
{
  const ng_spmv_ops *o = ng_spmv_find(M->format, ctx->on_gpu);
  if (!o) return NG_ERROR(NG_ERR_ARGUMENT, "-amg_format '%s' is not a storage format of this memory space", M->format);
  ng_status st = o->create(ctx, X, data);
  if (st == NG_ERR_DOES_NOT_FIT && strcmp(M->format, "csr")) {
    ng_error_clear();
    o = ng_spmv_find("csr", ctx->on_gpu);
    st = o->create(ctx, X, data);
  }
  if (st != NG_SUCCESS) return ng_error_trace(st, __FILE__, __LINE__);
  *ops = o;
  return NG_SUCCESS;
}

/* rho(D^-1 A) of level l, always from the same start vector and with the
 * same number of iterations, so that an update reproduces the setup's
 * hierarchy exactly when the values did not change (a warm start would
 * refine the estimate at each update and shift the iteration counts): on the
 * device for the finest level when it is one rank's device CSR and for a
 * level made by a GPU level, else through the context's SpMV (finest) or on
 * the host. */
static ng_status level_rho(ng_amg *M, ng_matrix A, int l)
{
  ng_amg_level *L = &M->L[l];
#ifdef NG_HAVE_CUDA
  if (l == 0 ? A->ctx->on_gpu : from_device(M, l)) {
    int done = 0;
    NG_CHECK(ng_amg_gpu_rho(M, A, l, RHO_ITERS, &L->s.rho, &done));
    if (done) return NG_SUCCESS;
  }
#endif
  if (l == 0) {
    if (!M->eigvec0) NG_CHECK(A->ctx->vops->alloc(A->ctx, &M->eigvec0, L->s.n));
    return ng_amg_spectral_radius_ctx(A, RHO_ITERS, M->eigvec0, 0, &L->s.rho);
  }
  NG_CHECK(ng_amg_level_host(M, l));
  return ng_amg_spectral_radius(&L->A, RHO_ITERS, &L->s.rho);
}

/* dinv = omega / a_ii in context memory (allocated on the first call). */
ng_status ng_amg_smoother_diagonal(ng_context ctx, ng_amg *M, int l, const ng_csr *A)
{
  ng_amg_level *L = &M->L[l];
  double *d;
  ng_status st;
#ifdef NG_HAVE_CUDA
  if (L->gpu) { /* the level's operator is on the device */
    if (!L->s.dinv) NG_CHECK(ctx->vops->alloc(ctx, &L->s.dinv, L->s.n));
    NG_CHECK(ng_amg_gpu_dinv(M, l, L->s.omega, L->s.dinv));
    return NG_SUCCESS;
  }
#else
  (void)M;
  (void)l;
#endif
  NG_CHECK(NG_MALLOC(d, L->s.n));
  NG_CHECK_GOTO(st, ng_csr_diagonal(A, d, 1), out);
#pragma omp parallel for schedule(static) if (L->s.n > 20000)
  for (int32_t i = 0; i < L->s.n; i++) d[i] = L->s.omega / d[i];
  if (!L->s.dinv) NG_CHECK_GOTO(st, ctx->vops->alloc(ctx, &L->s.dinv, L->s.n), out);
  NG_CHECK_GOTO(st, ctx->vops->upload(ctx, L->s.dinv, d, L->s.n), out);
out:
  ng_free(d);
  return st;
}

/* The coarsest operator's dense inverse as a full CSR (pattern made once). */
ng_status ng_amg_coarse_dense(ng_amg *M, const ng_csr *A)
{
  int32_t n = A->nrows;
  ng_csr *C = &M->coarse_inv;
  if (!C->rowptr) {
    NG_CHECK(ng_csr_alloc(C, n, n, (int64_t)n * n));
    for (int32_t i = 0; i <= n; i++) C->rowptr[i] = (int64_t)i * n;
    for (int64_t k = 0; k < (int64_t)n * n; k++) C->col[k] = (int32_t)(k % n);
  }
  memset(C->val, 0, (size_t)n * n * sizeof(double));
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) C->val[(size_t)i * n + A->col[k]] += A->val[k];
  return NG_SUCCESS;
}

ng_status ng_amg_coarse_inverse(ng_amg *M, const ng_csr *A)
{
  NG_CHECK(ng_amg_coarse_dense(M, A));
  NG_CHECK(ng_dense_inverse(A->nrows, M->coarse_inv.val));
  return NG_SUCCESS;
}

/* Rho, the smoothed P, R = P^T and the Galerkin operator of level l + 1
 * (values only when refresh: the patterns exist). Also an uncoupled
 * distributed level's local part (amg_dist_local.c, A its local block). */
ng_status ng_amg_host_transfer(ng_amg *M, const ng_csr *A, int l, int refresh)
{
  ng_amg_level *L = &M->L[l], *C = &M->L[l + 1];
  double omega_p = 4.0 / (3.0 * L->s.rho), t = ng_wtime();
  if (!refresh) NG_CHECK(ng_amg_smooth_pattern(A, NULL, L->agg, L->nagg, &L->P));
  NG_CHECK(ng_amg_smooth_values(A, L->agg, L->ptent, omega_p, M->filter ? level_theta(M, l) : 0.0, M->strength_signed, L->lump,
                                 &L->P));
  if (!refresh) {
    NG_CHECK(NG_MALLOC(L->rperm, L->P.nnz));
    NG_CHECK(ng_csr_transpose(&L->P, &L->R, L->rperm));
  } else ng_csr_transpose_values(&L->P, L->rperm, &L->R);
  M->t_prolong += ng_wtime() - t;
  t = ng_wtime();
  if (!refresh) NG_CHECK(ng_spgemm(A, &L->P, &L->AP, 0));
  else NG_CHECK(ng_spgemm_numeric(A, &L->P, &L->AP));
  if (M->sparsify > 0) { /* the product into C->G, then its sparse copy C->A */
    if (!refresh) NG_CHECK(ng_spgemm(&L->R, &L->AP, &C->G, 1));
    else NG_CHECK(ng_spgemm_numeric(&L->R, &L->AP, &C->G));
    if (M->sparsify_path) { /* -amg_sparsify_lump path */
      if (!refresh) NG_CHECK(ng_amg_sparsify_path(&C->G, M->sparsify, &C->A, &C->smap, &C->spaths));
      else ng_amg_sparsify_path_values(&C->G, C->smap, &C->spaths, &C->A);
    } else if (!refresh) NG_CHECK(ng_amg_sparsify(&C->G, M->sparsify, ng_amg_hybrid(M), &C->A, &C->smap));
    else ng_amg_sparsify_values(&C->G, C->smap, &C->A);
  } else if (!refresh) NG_CHECK(ng_spgemm(&L->R, &L->AP, &C->A, 1));
  else NG_CHECK(ng_spgemm_numeric(&L->R, &L->AP, &C->A));
  M->t_galerkin += ng_wtime() - t;

  return NG_SUCCESS;
}

ng_status ng_amg_transfer_tables(ng_context ctx, ng_amg *M, int l, int refresh)
{
  ng_amg_level *L = &M->L[l];
  if (!refresh) {
    NG_CHECK(ng_amg_make_spmv(ctx, M, &L->P, &L->Pops, &L->Pdata));
    NG_CHECK(ng_amg_make_spmv(ctx, M, &L->R, &L->Rops, &L->Rdata));
  } else {
    NG_CHECK(L->Pops->update_values(L->Pdata, &L->P));
    NG_CHECK(L->Rops->update_values(L->Rdata, &L->R));
  }
  return NG_SUCCESS;
}

int ng_amg_trace_on(void) { return ng_smoother_trace_on(); }

void ng_amg_trace(ng_context ctx, const char *what, int l, double *t)
{
  if (!ng_amg_trace_on()) return;
  ctx->vops->sync(ctx);
  double now = ng_wtime();
  static int who = -1; /* NG_AMG_TRACE_RANK: the rank that prints (0 unless set) */
  if (who < 0) {
    const char *e = getenv("NG_AMG_TRACE_RANK");
    who = e ? atoi(e) : 0;
    if (who < 0) who = 0;
  }
  if (ctx->rank == who) {
    char rank[32] = "";
    if (ctx->size > 1) snprintf(rank, sizeof(rank), "rank %d ", who);
    fprintf(stderr, "[amg trace] %slevel %d %s %.2f ms\n", rank, l, what, 1e3 * (now - *t));
  }
  *t = now;
}

/* Smoother weight, diagonal and the context-memory copies of level l (Amat:
 * the user's matrix, also for the smoother's level 0 setup). */
static ng_status finish_level(ng_context ctx, ng_amg *M, ng_matrix Amat, const ng_csr *A, int l, int refresh)
{
  ng_amg_level *L = &M->L[l];
  int last = l == M->nlevels - 1;
  L->s.coarsest = last;
  L->s.omega = M->omega_opt > 0 ? M->omega_opt : 4.0 / (3.0 * L->s.rho);
  double tt = ng_wtime();
  /* a level built on the host (the coarsest among them) reads its host
   * operator below; a GPU level only when its table is not a device CSR */
  if (!L->gpu) NG_CHECK(ng_amg_level_host(M, l));
  NG_CHECK(ng_amg_smoother_diagonal(ctx, M, l, A));
  ng_amg_trace(ctx, "finish: diagonal", l, &tt);
  if (l > 0) {
    if (!refresh) {
      int done = 0;
#ifdef NG_HAVE_CUDA
      if (from_device(M, l)) NG_CHECK(ng_amg_gpu_coarse_table(M, l, &L->s.Aops, &L->s.Adata, &done));
#endif
      if (!done) NG_CHECK(ng_amg_level_host(M, l));
      if (!done) NG_CHECK(ng_amg_make_spmv(ctx, M, &L->A, &L->s.Aops, &L->s.Adata));
    } else {
      int done = 0;
#ifdef NG_HAVE_CUDA
      if (from_device(M, l)) NG_CHECK(ng_amg_gpu_coarse_values(M, l, L->s.Aops, L->s.Adata, &done));
#endif
      if (!done) NG_CHECK(ng_amg_level_host(M, l));
      if (!done) NG_CHECK(L->s.Aops->update_values(L->s.Adata, &L->A));
    }
  }
  if (!last && L->gpu) {
    /* P and R were made on the device (amg_setup_cuda.cu) */
  } else if (!last) {
    NG_CHECK(ng_amg_transfer_tables(ctx, M, l, refresh));
  } else if (M->coarse_direct) {
    int done = 0;
#ifdef NG_HAVE_CUDA
    NG_CHECK(ng_amg_gpu_coarse_inverse(ctx, M, A, &done)); /* into the table's device values */
#endif
    if (!done) {
      ng_amg_trace(ctx, "finish: the coarsest level before its inverse", l, &tt);
      NG_CHECK(ng_amg_coarse_inverse(M, A));
      ng_amg_trace(ctx, "finish: the coarsest inverse (host)", l, &tt);
      if (!M->Cops) NG_CHECK(ng_amg_make_spmv(ctx, M, &M->coarse_inv, &M->Cops, &M->Cdata));
      else NG_CHECK(M->Cops->update_values(M->Cdata, &M->coarse_inv));
    }
  }
  if (!refresh) {
    /* zeroed once: every cycle writes them before it reads them, but a
     * CUDA-graph cycle's copy nodes are checked by compute-sanitizer's
     * initcheck at launch, before the graph's kernels have written them */
    NG_CHECK(ctx->vops->alloc(ctx, &L->s.r, L->s.n));
    NG_CHECK(ctx->vops->fill(ctx, L->s.n, 0.0, L->s.r));
    if (l > 0) {
      NG_CHECK(ctx->vops->alloc(ctx, &L->x, L->s.n));
      NG_CHECK(ctx->vops->alloc(ctx, &L->b, L->s.n));
      NG_CHECK(ctx->vops->fill(ctx, L->s.n, 0.0, L->x));
      NG_CHECK(ctx->vops->fill(ctx, L->s.n, 0.0, L->b));
    }
  }
  ng_amg_trace(ctx, "finish: tables, vectors", l, &tt);
  /* the smoother's own state: made once, its values refreshed by an update */
  if (!(last && M->coarse_direct)) {
    if (!refresh) NG_CHECK(M->sopts.ops->setup(ctx, &M->sopts, &L->s, A, l == 0 ? Amat : NULL, &L->s.sdata));
    else NG_CHECK(M->sopts.ops->update(ctx, &M->sopts, &L->s, A, L->s.sdata));
    ng_amg_trace(ctx, "finish: smoother", l, &tt);
  }
  return NG_SUCCESS;
}

ng_status ng_amg_build(ng_precond P, ng_amg *M, ng_matrix A)
{
  ng_context ctx = P->ctx;
  M->L[0].s.matrix = A; /* level 0's operator while it has no table of its own */
  if (ctx->size > 1) return ng_amg_dist_build(P, M, A); /* one hierarchy across the ranks */
  double t0 = ng_wtime(), t;
  M->nlevels = 0;
  if (M->sopts.ops->prepare) M->sopts.ops->prepare(ctx, &M->sopts, &M->L[0].s, A); /* level 0's smoother work beside the hierarchy */
  /* the cycle's own copy of the finest A first (amg_fine.c): on the GPU the
   * finest rho estimate runs its products on it (dia_half: a third of CSR's
   * time, amg_rho_cuda.cu) */
  t = ng_wtime();
  NG_CHECK(ng_amg_fine_table(ctx, M, A, 0));
  double t_fine = ng_wtime() - t;
  ng_amg_trace(ctx, "fine table", 0, &t);
  for (int l = 0;; l++) {
    ng_amg_level *L = &M->L[l];
    const ng_csr *Ah = level_matrix(M, A, l);
    ng_graph S = {0};
    L->s.n = Ah->nrows;
    M->nlevels = l + 1;
    t = ng_wtime();
    NG_CHECK(level_rho(M, A, l));
    M->t_rho += ng_wtime() - t;
    ng_amg_trace(ctx, "rho", l, &t);
    if (L->s.n <= M->coarse_size || l == M->max_levels - 1) break;
    if (M->classical) { /* -amg_coarsening classical: C/F splitting and interpolation (amg_classical.c) */
      int32_t nc;
      NG_CHECK(ng_amg_classical_level(M, Ah, l, &nc));
      if (nc == 0 || nc > L->s.n * 0.9) break;
      continue;
    }
    /* the finest level on the GPU, then the next ones while big enough */
    int gpu = M->gpu_setup && (l == 0 || (from_device(M, l) && L->s.n >= M->gpu_min_rows));
    t = ng_wtime();
#ifdef NG_HAVE_CUDA
    if (gpu) {
      ng_status gs = ng_amg_gpu_aggregate(M, A, l);
      if (gs == NG_ERR_UNSUPPORTED) { /* e.g. 64-bit indices: this level on the host */
        ng_error_clear();
        ng_amg_gpu_drop(M, l);
        ng_free(L->agg);
        L->agg = NULL;
        gpu = 0;
      } else NG_CHECK(gs);
    }
#endif
    if (!gpu) {
      NG_CHECK(ng_amg_level_host(M, l));
      NG_CHECK(NG_MALLOC(L->agg, L->s.n));
      NG_CHECK(ng_amg_strength(Ah, level_theta(M, l), M->strength_signed, &S));
      ng_status st = ng_amg_aggregate(&S, L->agg, &L->nagg);
      ng_graph_free(&S);
      NG_CHECK(st);
      M->t_aggregate += ng_wtime() - t;
    }
    /* no coarsening left (every row isolated, or too little reduction) */
    if (L->nagg == 0 || L->nagg > L->s.n * 0.9) {
      ng_free(L->agg);
      L->agg = NULL;
      break;
    }
#ifdef NG_HAVE_CUDA
    if (gpu) {
      ng_status gs = ng_amg_gpu_transfer(M, A, l, 0);
      if (gs == NG_SUCCESS) {
        L->gpu = 1;
        continue;
      }
      if (gs != NG_ERR_UNSUPPORTED) NG_CHECK(gs);
      /* a product row longer than the device's hash table: the host builds
       * this level's transfer from the same aggregates */
      ng_error_clear();
      NG_CHECK(ng_amg_gpu_aggregates(M, l));
      ng_amg_gpu_drop(M, l);
    }
#endif
    NG_CHECK(ng_amg_level_host(M, l)); /* a GPU-aggregated level whose transfer fell back */
    NG_CHECK(NG_MALLOC(L->ptent, L->s.n));
    if (M->carry_nullspace) { /* -amg_coarse_nullspace carried: the next level's b too */
      NG_CHECK(NG_MALLOC(M->L[l + 1].nullvec, L->nagg > 0 ? L->nagg : 1));
      NG_CHECK(ng_amg_tentative_carried(L->s.n, L->agg, L->nagg, L->nullvec, L->ptent, M->L[l + 1].nullvec));
    } else NG_CHECK(ng_amg_tentative(L->s.n, L->agg, L->nagg, L->ptent));
    NG_CHECK(ng_amg_host_transfer(M, Ah, l, 0));
  }
  if (M->coarse_direct && M->L[M->nlevels - 1].s.n > (M->coarse_size > DIRECT_MAX_ROWS ? M->coarse_size : DIRECT_MAX_ROWS))
    M->coarse_direct = 0;
  t = ng_wtime();
  for (int l = 0; l < M->nlevels; l++) {
    double tl = ng_wtime();
    NG_CHECK(finish_level(ctx, M, A, level_matrix(M, A, l), l, 0));
    ng_amg_trace(ctx, "finish", l, &tl);
  }
  ng_amg_early_free(M); /* not taken: level 0 has no smoother (the coarsest, inverted) */
  ng_amg_k_free(ctx, M); /* a rebuild's K-step vectors: ng_amg_k_setup makes them for the new levels */
  if (M->single) NG_CHECK(ng_amg_single_build(ctx, M, A));
  NG_CHECK(ctx->vops->sync(ctx));
  M->t_finish = ng_wtime() - t + t_fine;
  M->setup_seconds = ng_wtime() - t0;
  return NG_SUCCESS;
}

/* Seconds since *t, after a device sync when profiling (M->profile: each
 * level's update parts are then timed, bench/amg prints them). */
static double lap(ng_context ctx, ng_amg *M, double *t)
{
  double now;
  if (M->profile && ctx->vops->sync(ctx) != NG_SUCCESS) ng_error_clear();
  now = ng_wtime();
  double d = now - *t;
  *t = now;
  return d;
}

ng_status ng_amg_refresh(ng_precond P, ng_amg *M, ng_matrix A)
{
  ng_context ctx = P->ctx;
  M->L[0].s.matrix = A; /* the update's matrix (P->A) */
  if (M->classical) /* one rank or several */
    return NG_ERROR(NG_ERR_UNSUPPORTED, "-amg_coarsening classical has no update of the values yet: "
                                        "destroy the preconditioner and set it up again");
  if (M->dist) return ng_amg_dist_refresh(P, M, A);
  double t0 = ng_wtime(), t, d;
  M->t_rho = M->t_prolong = M->t_galerkin = 0; /* now the update's phases */
#ifdef NG_HAVE_CUDA
  ng_amg_graph_free(M); /* captured again at the next cycle */
#endif
  t = ng_wtime();
  NG_CHECK(ng_amg_fine_table(ctx, M, A, 1)); /* first: the finest rho runs on it, as at the setup */
  double t_fine = lap(ctx, M, &t);
  for (int l = 0; l < M->nlevels; l++) {
    ng_amg_level *L = &M->L[l];
    const ng_csr *Ah = level_matrix(M, A, l);
    t = ng_wtime();
    NG_CHECK(level_rho(M, A, l));
    L->t_update[0] = d = lap(ctx, M, &t);
    M->t_rho += d;
    L->t_update[1] = 0;
    if (l < M->nlevels - 1) {
#ifdef NG_HAVE_CUDA
      if (L->gpu) NG_CHECK(ng_amg_gpu_transfer(M, A, l, 1));
      else
#endif
      {
        NG_CHECK(ng_amg_level_host(M, l));
        NG_CHECK(ng_amg_host_transfer(M, Ah, l, 1));
      }
      L->t_update[1] = lap(ctx, M, &t);
    }
  }
  t = ng_wtime();
  double tf = t;
  for (int l = 0; l < M->nlevels; l++) {
    NG_CHECK(finish_level(ctx, M, A, level_matrix(M, A, l), l, 1));
    M->L[l].t_update[2] = lap(ctx, M, &tf);
  }
  if (M->single) NG_CHECK(ng_amg_single_build(ctx, M, A));
  NG_CHECK(ctx->vops->sync(ctx));
  M->t_finish = ng_wtime() - t + t_fine;
  M->L[0].t_update[2] += t_fine;
  M->update_seconds = ng_wtime() - t0;
  return NG_SUCCESS;
}

void ng_amg_early_free(ng_amg *M)
{
  if (M->L) ng_smoother_early_free(&M->L[0].s);
}

ng_status ng_amg_level_host_cb(void *M, int l)
{
  NG_CHECK(ng_amg_level_host(M, l));
  return NG_SUCCESS;
}

void ng_amg_free(ng_context ctx, ng_amg *M)
{
  ng_amg_early_free(M);
  if (!M->L) return;
  ng_amg_k_free(ctx, M); /* -amg_cycle k's work vectors */
  ng_amg_dist_free(ctx, M);
  for (int l = 0; l < M->max_levels; l++) {
    ng_amg_level *L = &M->L[l];
    if (L->s.sdata) M->sopts.ops->destroy(ctx, L->s.sdata);
    L->s.sdata = NULL;
    if (L->s.Aops) L->s.Aops->destroy(L->s.Adata);
    if (L->Pops) L->Pops->destroy(L->Pdata);
    if (L->Rops) L->Rops->destroy(L->Rdata);
    ctx->vops->free(ctx, L->s.dinv);
    ctx->vops->free(ctx, L->x);
    ctx->vops->free(ctx, L->b);
    ctx->vops->free(ctx, L->s.r);
    ng_csr_free(&L->A);
    ng_csr_free(&L->G);
    ng_free(L->smap);
    ng_amg_lump_paths_free(&L->spaths);
    ng_csr_free(&L->P);
    ng_csr_free(&L->R);
    ng_csr_free(&L->AP);
    ng_free(L->agg);
    ng_free(L->ptent);
    ng_free(L->nullvec);
    ng_free(L->rperm);
    ng_free(L->lump);
  }
  ng_amg_single_free(ctx, M); /* the float copies (their own values only) */
  if (M->Cops) M->Cops->destroy(M->Cdata);
#ifdef NG_HAVE_CUDA
  ng_amg_graph_free(M);
  ng_amg_gpu_free(M);
#endif
  ctx->vops->free(ctx, M->eigvec0);
  ng_csr_free(&M->coarse_inv);
  ng_free(M->L);
  M->L = NULL;
}
