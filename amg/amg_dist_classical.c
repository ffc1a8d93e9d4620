/* amg/amg_dist_classical.c: one level of -amg_coarsening classical across
 * MPI ranks (host setup): classical strength, PMIS and extended+i
 * interpolation giving the same P as one rank would (amg_classical.c), so
 * the distributed hierarchy is the one-rank one.
 *
 * The trick that lets the one-rank functions do the work: an extended
 * local matrix E over this rank's rows, then the rows of its halo points
 * (fetched once through A's halo plan), over the indices [own rows | halo
 * columns | the halo rows' other columns (distance two)], square with empty
 * rows for the last group, each row's entries in global column order (one
 * rank's order: every sum below then adds in one rank's order, and P comes
 * out bit for bit; with another order a rounding-level tie in the
 * truncation fell the other way on lap27:8, 4 ranks). Classical strength
 * is row-local, so E's strength rows are the global ones; its transpose holds, for each own
 * point, every point that depends on it when A's pattern is symmetric
 * (the usual; otherwise PMIS still gives a valid splitting, not
 * necessarily one rank's). PMIS runs its rounds here with the halo's
 * states exchanged after each step, keyed by global indices as on one
 * rank (ng_amg_pmis_random of the global index, ties by global index). C
 * points are numbered in global order (each rank's in turn), which is one
 * rank's numbering; the halo rows' distance-two columns learn theirs from
 * the rows' owners. ng_amg_interp_extended_rows then builds the own rows
 * of P over E, with global coarse columns and global rows for the
 * truncation's ties. The level then goes on as an aggregation level does
 * (R = P^T, the distributed Galerkin product, amg_dist_setup.c), without
 * sparsification, as on one rank. */
#include "amg_dist.h"

typedef struct {
  int32_t n, nh, nd;  /* own rows, halo columns, distance-two columns */
  ng_index_map hmap;  /* the halo columns (A->halo_gcol, sorted) -> 0..nh */
  ng_index_map d2;    /* the distance-two columns' global indices (d2.sorted) -> 0..nd */
  int64_t *grp, *ggc; /* own rows over global columns (sent to the neighbours) */
  double *gval;
  int64_t *hrp, *hgc; /* the halo rows as received */
  double *hval;
  ng_csr E;           /* own rows, halo rows; over [own | halo | distance two] */
  ng_graph S, T;      /* E's strength graph and its transpose */
} ext_level;

static void ext_free(ext_level *X)
{
  ng_index_map_free(&X->hmap);
  ng_index_map_free(&X->d2);
  ng_free(X->grp);
  ng_free(X->ggc);
  ng_free(X->gval);
  ng_free(X->hrp);
  ng_free(X->hgc);
  ng_free(X->hval);
  ng_csr_free(&X->E);
  ng_graph_free(&X->S);
  ng_graph_free(&X->T);
}

/* Global index g -> E's index (own, halo, then distance two). */
static int32_t ext_index(ng_matrix A, const ext_level *X, int64_t g)
{
  if (g >= A->row_begin && g < A->row_begin + X->n) return (int32_t)(g - A->row_begin);
  int32_t k = ng_index_map_find(&X->hmap, g);
  if (k >= 0) return X->n + k;
  return X->n + X->nh + ng_index_map_find(&X->d2, g);
}

static int64_t global_of(ng_matrix A, const ext_level *X, int32_t e)
{
  return e < X->n ? A->row_begin + e : e < X->n + X->nh ? A->halo_gcol[e - X->n] : X->d2.sorted[e - X->n - X->nh];
}

/* Own rows over global columns, the halo rows fetched, the distance-two
 * columns, E. Collective (the rows' exchange). */
static ng_status build_ext(ng_matrix A, ext_level *X)
{
  ng_context ctx = A->ctx;
  const ng_csr *L = &A->local, *O = &A->offrank;
  int32_t n = X->n = A->n_local, nh = X->nh = A->n_halo;
  int64_t nnz = L->nnz + (nh ? O->nnz : 0), nd = 0;
  ng_status st = NG_MALLOC(X->grp, (size_t)n + 1);
  if (!st) st = NG_MALLOC(X->ggc, nnz ? nnz : 1);
  if (!st) st = NG_MALLOC(X->gval, nnz ? nnz : 1);
  if (!st) st = NG_MALLOC(X->hrp, (size_t)nh + 1);
  if (!st) { /* each row's two blocks merged by global column (dist/matrix.c) */
    int64_t p = 0, *src = X->ggc; /* the row's entries named in place, then replaced by their columns */
    X->grp[0] = 0;
    for (int32_t i = 0; i < n; i++) {
      int64_t k = ng_matrix_merged_row(A, i, src + p);
      for (int64_t q = p; q < p + k; q++) {
        X->gval[q] = ng_matrix_entry_val(A, src[q]);
        X->ggc[q] = ng_matrix_entry_gcol(A, src[q]);
      }
      p += k;
      X->grp[i + 1] = p;
    }
  }
  NG_CHECK(ng_halo_rows_fetch(ctx, st, A->halo, X->grp, X->ggc, X->gval, X->hrp, &X->hgc, &X->hval));
  int64_t hn = X->hrp[nh];
  /* the halo rows' columns neither own nor halo: sorted, distinct */
  int64_t *far = NULL;
  NG_CHECK(ng_index_map_build(&X->hmap, A->halo_gcol, nh));
  NG_CHECK(NG_MALLOC(far, hn ? hn : 1));
  for (int64_t p = 0; p < hn; p++) {
    int64_t g = X->hgc[p];
    if ((g < A->row_begin || g >= A->row_begin + n) && ng_index_map_find(&X->hmap, g) < 0) far[nd++] = g;
  }
  st = ng_index_map_build(&X->d2, far, nd);
  ng_free(far);
  NG_CHECK(st);
  if ((int64_t)n + nh + X->d2.n > INT32_MAX)
    return NG_ERROR(NG_ERR_UNSUPPORTED, "AMG: a rank's extended level exceeds int32");
  X->nd = X->d2.n;
  int32_t N = n + nh + X->nd;
  NG_CHECK(ng_csr_alloc(&X->E, N, N, nnz + hn));
  int64_t p = 0;
  X->E.rowptr[0] = 0;
  for (int32_t i = 0; i < n; i++) {
    for (int64_t q = X->grp[i]; q < X->grp[i + 1]; q++, p++) {
      X->E.col[p] = ext_index(A, X, X->ggc[q]);
      X->E.val[p] = X->gval[q];
    }
    X->E.rowptr[i + 1] = p;
  }
  for (int32_t k = 0; k < nh; k++) {
    for (int64_t q = X->hrp[k]; q < X->hrp[k + 1]; q++, p++) {
      X->E.col[p] = ext_index(A, X, X->hgc[q]);
      X->E.val[p] = X->hval[q];
    }
    X->E.rowptr[n + k + 1] = p;
  }
  for (int32_t e = n + nh; e < N; e++) X->E.rowptr[e + 1] = p;
  X->E.nnz = p;
  return NG_SUCCESS;
}

/* PMIS's test: j, undecided, beats i (a larger measure, or the same and a
 * larger global index), as amg_pmis.c's on one rank. */
static int beats(ng_matrix A, const ext_level *X, const double *w, const int8_t *cf, int32_t j, int32_t i)
{
  return cf[j] == 0 && (w[j] > w[i] || (w[j] == w[i] && global_of(A, X, j) > global_of(A, X, i)));
}

static int local_max(ng_matrix A, const ext_level *X, const double *w, const int8_t *cf, int32_t i)
{
  for (int64_t k = X->S.rowptr[i]; k < X->S.rowptr[i + 1]; k++)
    if (beats(A, X, w, cf, X->S.col[k], i)) return 0;
  for (int64_t k = X->T.rowptr[i]; k < X->T.rowptr[i + 1]; k++)
    if (beats(A, X, w, cf, X->T.col[k], i)) return 0;
  return 1;
}

/* The C/F splitting of the own points, cf[0, n + nh) with the halo's
 * states (1 C, -1 F). Collective: each round exchanges the new C points
 * and the states. */
static ng_status pmis(ng_matrix A, const ext_level *X, int8_t *cf)
{
  ng_context ctx = A->ctx;
  const struct ng_halo_plan *h = A->halo;
  int32_t n = X->n, nh = X->nh, nu = 0;
  double *w = NULL, left;
  int8_t *newc = NULL;
  int32_t *U = NULL;
  ng_status st = NG_MALLOC(w, (size_t)n + nh + 1);
  if (!st) st = NG_CALLOC(newc, (size_t)n + nh + 1);
  if (!st) st = NG_MALLOC(U, (size_t)n + 1);
  for (int32_t i = 0; !st && i < n; i++) {
    int64_t influences = X->T.rowptr[i + 1] - X->T.rowptr[i], depends = X->S.rowptr[i + 1] - X->S.rowptr[i];
    w[i] = (double)influences + ng_amg_pmis_random((int32_t)(A->row_begin + i));
    cf[i] = influences + depends == 0 ? -1 : 0;
    if (cf[i] == 0) U[nu++] = i;
  }
  st = ng_comm_agree(ctx, st);
  if (!st) st = ng_halo_exchange_host(ctx, h, w, w + n, sizeof(double));
  if (!st) st = ng_halo_exchange_host(ctx, h, cf, cf + n, 1);
  left = nu;
  if (!st) st = ng_comm_allreduce_sum(ctx, &left, 1);
  while (!st && left > 0) {
    for (int32_t q = 0; q < nu; q++) newc[U[q]] = (int8_t)local_max(A, X, w, cf, U[q]);
    for (int32_t q = 0; q < nu; q++)
      if (newc[U[q]]) cf[U[q]] = 1;
    st = ng_halo_exchange_host(ctx, h, newc, newc + n, 1);
    for (int32_t q = 0; !st && q < nu; q++) {
      int32_t i = U[q];
      if (cf[i]) continue;
      for (int64_t k = X->S.rowptr[i]; k < X->S.rowptr[i + 1]; k++)
        if (newc[X->S.col[k]]) {
          cf[i] = -1;
          break;
        }
    }
    for (int32_t q = 0; q < nu; q++) newc[U[q]] = 0;
    if (!st) st = ng_halo_exchange_host(ctx, h, cf, cf + n, 1);
    int32_t m = 0;
    for (int32_t q = 0; q < nu; q++)
      if (cf[U[q]] == 0) U[m++] = U[q];
    nu = m;
    left = nu;
    if (!st) st = ng_comm_allreduce_sum(ctx, &left, 1);
  }
  ng_free(w);
  ng_free(newc);
  ng_free(U);
  return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
}

/* The coarse index of every E index (-1: F): own C points numbered after
 * the ranks before (cstarts), the halo's through the plan, the distance-two
 * columns' from the rows' owners (each sends, with its rows, the coarse
 * index of every column). Collective. */
static ng_status coarse_numbers(ng_matrix A, ext_level *X, int8_t *cf, int64_t *cstarts, int64_t *cg)
{
  ng_context ctx = A->ctx;
  int32_t n = X->n, nh = X->nh, nown = 0;
  for (int32_t i = 0; i < n; i++) nown += cf[i] == 1;
  NG_CHECK(ng_comm_starts(ctx, nown, cstarts));
  for (int32_t i = 0, c = 0; i < n; i++) cg[i] = cf[i] == 1 ? cstarts[ctx->rank] + c++ : -1;
  NG_CHECK(ng_halo_exchange_host(ctx, A->halo, cg, cg + n, sizeof(int64_t)));
  int64_t *ent = NULL, *hent = NULL, nnz = X->grp[n], hn = X->hrp[nh];
  ng_status st = NG_MALLOC(ent, nnz ? nnz : 1);
  if (!st) st = NG_MALLOC(hent, hn ? hn : 1);
  for (int64_t p = 0; !st && p < nnz; p++) {
    int32_t e = ext_index(A, X, X->ggc[p]); /* own or halo: this rank knows it */
    ent[p] = cg[e];
  }
  st = ng_comm_agree(ctx, st);
  if (!st) st = ng_halo_rows_exchange(ctx, A->halo, X->grp, ent, sizeof(int64_t), X->hrp, hent);
  for (int32_t e = n + nh; !st && e < n + nh + X->nd; e++) cg[e] = -1;
  for (int64_t p = 0; !st && p < hn; p++) {
    int32_t e = X->E.col[X->grp[n] + p]; /* the halo rows follow the own rows in E, entry for entry */
    if (e >= n + nh) cg[e] = hent[p];
  }
  for (int32_t e = n + nh; !st && e < n + nh + X->nd; e++) cf[e] = cg[e] >= 0 ? 1 : -1;
  ng_free(ent);
  ng_free(hent);
  return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
}

/* P's rows over global coarse columns -> D->Pc over the compact columns
 * D->pcol (sorted, D->pm of them), as ng_amg_dist_prolong leaves them. */
static ng_status compact(ng_csr *Pg, ng_amg_dlevel *D)
{
  int64_t nnz = Pg->nnz, *g = NULL;
  ng_index_map cm = {0};
  NG_CHECK(NG_MALLOC(g, nnz ? nnz : 1));
  for (int64_t p = 0; p < nnz; p++) g[p] = Pg->col[p];
  ng_status st = ng_index_map_build(&cm, g, nnz);
  ng_free(g);
  NG_CHECK(st);
  for (int64_t p = 0; p < nnz; p++) Pg->col[p] = ng_index_map_find(&cm, Pg->col[p]);
  D->pcol = cm.sorted; /* taken */
  D->pm = cm.n;
  cm.sorted = NULL;
  ng_index_map_free(&cm);
  Pg->ncols = D->pm;
  D->Pc = *Pg;
  memset(Pg, 0, sizeof(*Pg));
  return NG_SUCCESS;
}

ng_status ng_amg_dist_classical(ng_matrix A, const ng_amg *M, ng_amg_dlevel *D, int64_t *n_coarse)
{
  ng_context ctx = A->ctx;
  ext_level X;
  int8_t *cf = NULL;
  int64_t *cg = NULL;
  int32_t *cidx = NULL;
  ng_csr Pg = {0};
  memset(&X, 0, sizeof(X));
  *n_coarse = 0;
  ng_status st = build_ext(A, &X); /* agreed there */
  if (!st) st = ng_amg_classical_strength(&X.E, M->classical_theta, &X.S);
  if (!st) st = ng_graph_transpose(&X.S, &X.T);
  if (!st) st = NG_MALLOC(cf, (size_t)X.E.nrows + 1);
  if (!st) st = NG_MALLOC(cg, (size_t)X.E.nrows + 1);
  if (!st) st = NG_MALLOC(cidx, (size_t)X.E.nrows + 1);
  if (!st) st = NG_MALLOC(D->cstarts, ctx->size + 1);
  st = ng_comm_agree(ctx, st);
  if (!st) st = pmis(A, &X, cf); /* collective from here on: every rank has come this far */
  if (!st) st = coarse_numbers(A, &X, cf, D->cstarts, cg);
  if (!st) {
    *n_coarse = D->cstarts[ctx->size];
    if (*n_coarse > INT32_MAX) st = NG_ERROR(NG_ERR_UNSUPPORTED, "AMG: %lld coarse points exceed int32", (long long)*n_coarse);
  }
  st = ng_comm_agree(ctx, st);
  if (!st && *n_coarse > 0 && *n_coarse <= 0.9 * (double)A->n_global) { /* else the caller stops here */
    for (int32_t e = 0; e < X.E.nrows; e++) cidx[e] = (int32_t)cg[e];
    st = ng_amg_interp_extended_rows(&X.E, &X.S, cf, cidx, X.n, A->row_begin, (int32_t)*n_coarse,
                                     M->classical_pmax, &Pg);
    if (!st) st = compact(&Pg, D);
    st = ng_comm_agree(ctx, st);
  }
  ng_csr_free(&Pg);
  ng_free(cf);
  ng_free(cg);
  ng_free(cidx);
  ext_free(&X);
  return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
}
