/* amg/amg_dist_galerkin.c: the coarse operator A_c = P^T (A P) across
 * ranks. Row i of A P needs the rows of P for A's halo columns: fetched once
 * through A's halo plan (values only at an update). With the coarse columns
 * this rank meets renumbered compactly (P's own, as P's compact columns
 * number them, then those met only in the halo rows), A P is a local
 * product of [A_local | A_offrank] and [P's own rows ; P's halo rows], each
 * block read in place, and R's two blocks (P's own rows transposed) times
 * A P give this rank's partial sums T for every coarse row it touches: its
 * own coarse rows (R_local) and P's halo columns (R_offrank). Rows of T
 * owned elsewhere go to their owners (one
 * all-to-all); each owner adds its contributions in a fixed order (its own
 * first, then by source rank) into slots found once at setup, so an update
 * repeats the setup's sums exactly. On a GPU context the two local products
 * run on the device (amg_galerkin_cuda.cu's SpGEMM). */
#include "amg_dist.h"

struct ng_amg_dsparsify { /* amg_dist_sparsify.c */
  int64_t *map, nnz_in, nnz_out;
  double *val;
};
struct ng_amg_dgalerkin {
  ng_csr B2;                     /* P's rows for A's halo columns, compact columns ([A_local A_offrank] [Pc; B2] = A P) */
  int64_t *cmap;                 /* compact coarse column -> global coarse row: Pc's columns (D->pcol), then B2's others */
  int32_t m;
  double t0;                     /* NG_AMG_TRACE: the assembly's start */
  ng_csr AP, T, T2;              /* host: T = R_local (A P), T2 = R_offrank (A P); GPU: T over the compact rows, T2 empty */
  ng_csr B, PcT;                 /* GPU context: [Pc; B2] and P's own rows transposed over the compact rows */
  int64_t *pct_src;              /* PcT row -> its R row's first value: D->Rl.val + s, or D->Ro.val + (-1 - s) */
  int32_t *send_rows;            /* T rows (T's, then T2's) sent, grouped by owner rank */
  int32_t n_send_rows;
  int64_t *scnt, *rcnt;          /* entries per rank */
  double *sbuf, *rbuf;
  int32_t *own_rows;             /* T rows owned here */
  int32_t n_own_rows;
  int64_t *slot;                 /* contribution (own T entries, then received) -> A_c input position */
  int64_t n_contrib;
  double *ac_val;
  int64_t ac_nnz;
  void *gpu;                     /* GPU context: the two local products' device state */
  int dx;                        /* ... with A the level's device rows (D->gx), not Aext uploaded */
  ng_amg_dsparsify *sp;          /* -amg_sparsify: where ac_val's entries go (amg_dist_sparsify.c) */
};

int ng_amg_dgalerkin_on_gpu(const ng_amg_dgalerkin *G) { return G && G->gpu; }

void ng_amg_dgalerkin_free(ng_amg_dgalerkin *G)
{
  if (!G) return;
  ng_csr_free(&G->B2);
  ng_free(G->cmap);
  ng_csr_free(&G->B);
  ng_csr_free(&G->AP);
  ng_csr_free(&G->PcT);
  ng_csr_free(&G->T);
  ng_csr_free(&G->T2);
  ng_free(G->pct_src);
  ng_free(G->send_rows);
  ng_free(G->scnt);
  ng_free(G->rcnt);
  ng_free(G->sbuf);
  ng_free(G->rbuf);
  ng_free(G->own_rows);
  ng_free(G->slot);
  ng_free(G->ac_val);
  ng_amg_dsparsify_free(G->sp);
#ifdef NG_HAVE_CUDA
  ng_amg_gpu_triple_free(G->gpu);
#endif
  ng_free(G);
}

/* P's global columns where the halo exchange reads them: the rows sent
 * (A's halo plan), the other entries left unwritten (their pages never
 * touched: P's global columns were a copy of all of P, ~3 ms of rank 0's
 * setup at aniso27:64 on 2 ranks). */
static ng_status sent_gcol(ng_matrix A, const ng_amg_dlevel *D, int64_t **gcol)
{
  const struct ng_halo_plan *h = A->halo;
  NG_CHECK(NG_MALLOC(*gcol, D->Pc.nnz > 0 ? D->Pc.nnz : 1));
  for (int32_t k = 0; h && k < h->n_send; k++) {
    int32_t i = h->send_idx_host[k];
    for (int64_t p = D->Pc.rowptr[i]; p < D->Pc.rowptr[i + 1]; p++) (*gcol)[p] = D->pcol[D->Pc.col[p]];
  }
  return NG_SUCCESS;
}

/* P's halo rows (B2) and the compact columns (setup): Pc's own columns keep
 * their numbers (Pc is the product's first block as it is), the columns
 * met only in the halo rows follow in global order. */
static ng_status local_operands(ng_matrix A, ng_amg_dlevel *D, ng_amg_dgalerkin *G)
{
  int32_t nh = A->n_halo, pm = D->pm;
  int64_t *gcol = NULL, *hgcol = NULL;
  /* B2.rowptr was allocated and agreed with G; its values are fetched into
   * place (G, ng_amg_dgalerkin_free, owns what was allocated) */
  ng_status st = sent_gcol(A, D, &gcol);
  st = ng_halo_rows_fetch(A->ctx, st, A->halo, D->Pc.rowptr, gcol, D->Pc.val, G->B2.rowptr, &hgcol, &G->B2.val);
  ng_free(gcol);
  int64_t hn = st ? 0 : G->B2.rowptr[nh];
  if (!st) st = NG_MALLOC(G->B2.col, hn ? hn : 1);
  /* the coarse columns met: Pc's (D->pcol) and the fetched rows' */
  int64_t *v = NULL;
  int32_t *num = NULL;
  ng_index_map H = {0};
  if (!st) st = NG_MALLOC(v, (size_t)pm + hn);
  if (!st) {
    memcpy(v, D->pcol, (size_t)pm * sizeof(int64_t));
    memcpy(v + pm, hgcol, (size_t)hn * sizeof(int64_t));
    st = ng_index_map_build(&H, v, pm + hn);
  }
  ng_free(v);
  if (!st) st = NG_MALLOC(num, H.n);
  if (!st) st = NG_MALLOC(G->cmap, H.n);
  if (!st) {
    /* H's sorted columns -> compact: D->pcol (sorted, all in H) first */
    for (int32_t u = 0, q = 0, e = pm; u < H.n; u++) {
      num[u] = q < pm && D->pcol[q] == H.sorted[u] ? q++ : e++;
      G->cmap[num[u]] = H.sorted[u];
    }
    for (int64_t p = 0; p < hn; p++) G->B2.col[p] = num[ng_index_map_find(&H, hgcol[p])];
    G->m = H.n;
    G->B2.nrows = nh;
    G->B2.ncols = H.n;
    G->B2.nnz = hn;
  }
  ng_index_map_free(&H);
  ng_free(num);
  ng_free(hgcol);
  return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
}

/* T's row t (T's rows, then T2's): its block, t becoming the row there. */
static const ng_csr *trow(const ng_amg_dgalerkin *G, int32_t *t)
{
  if (*t < G->T.nrows) return &G->T;
  *t -= G->T.nrows;
  return &G->T2;
}

/* The global coarse row of T's row t: R_local's rows are the own coarse
 * rows, R_offrank's P's halo columns; the GPU's T has the compact rows. */
static int64_t tgid(const ng_amg_dlevel *D, const ng_amg_dgalerkin *G, int32_t t)
{
  if (G->gpu) return G->cmap[t];
  return t < G->T.nrows ? D->P->col_begin + t : D->P->halo_gcol[t - G->T.nrows];
}

#ifdef NG_HAVE_CUDA
/* GPU context: PcT = (P's own rows)^T over the compact columns, made from
 * R's blocks (make_restriction's transposes of P's local and off-rank
 * blocks hold the same rows). Row r < D->pm is coarse column G->cmap[r]:
 * an own coarse row (D->Rl's), a used halo column of P (D->Ro's;
 * P->halo_gcol and D->pcol are sorted, so one walk finds them) or none;
 * the later rows (columns met only in B2) are empty. */
static ng_status pct_from_r(const ng_amg_dlevel *D, ng_amg_dgalerkin *G, int32_t n)
{
  const struct ng_matrix_s *P = D->P;
  int64_t c0 = P->col_begin, c1 = c0 + P->n_col_local, *rp = NULL;
  int32_t h = 0;
  NG_CHECK(NG_CALLOC(G->pct_src, (size_t)G->m + 1));
  NG_CHECK(NG_CALLOC(rp, (size_t)G->m + 1));
  for (int32_t r = 0; r < D->pm; r++) { /* each row's source and length (later rows: met only in B2) */
    int64_t g = G->cmap[r];
    G->pct_src[r] = 0;
    if (g >= c0 && g < c1) {
      G->pct_src[r] = D->Rl.rowptr[g - c0];
      rp[r + 1] = D->Rl.rowptr[g - c0 + 1] - D->Rl.rowptr[g - c0];
    } else {
      while (h < P->n_halo && P->halo_gcol[h] < g) h++;
      if (h < P->n_halo && P->halo_gcol[h] == g) {
        G->pct_src[r] = -1 - D->Ro.rowptr[h];
        rp[r + 1] = D->Ro.rowptr[h + 1] - D->Ro.rowptr[h];
      }
    }
  }
  for (int32_t r = 0; r < G->m; r++) rp[r + 1] += rp[r];
  ng_status st = ng_csr_alloc(&G->PcT, G->m, n, rp[G->m]);
  if (!st) {
    memcpy(G->PcT.rowptr, rp, ((size_t)G->m + 1) * sizeof(int64_t));
    for (int32_t r = 0; r < G->m; r++) {
      int64_t s = G->pct_src[r];
      const int32_t *c = s >= 0 ? D->Rl.col + s : D->Ro.col + (-1 - s);
      if (rp[r + 1] > rp[r]) memcpy(G->PcT.col + rp[r], c, (size_t)(rp[r + 1] - rp[r]) * sizeof(int32_t));
    }
  }
  ng_free(rp);
  return st ? ng_error_trace(st, __FILE__, __LINE__) : NG_SUCCESS;
}

/* PcT's values from R's blocks, B's from Pc and B2 (GPU context: setup,
 * and an update after restriction_values and the halo rows' values). */
static void gpu_values(const ng_amg_dlevel *D, ng_amg_dgalerkin *G)
{
#pragma omp parallel for schedule(static) if (G->m > 20000)
  for (int32_t r = 0; r < G->m; r++) {
    int64_t len = G->PcT.rowptr[r + 1] - G->PcT.rowptr[r], s = G->pct_src[r];
    const double *v = s >= 0 ? D->Rl.val + s : D->Ro.val + (-1 - s);
    if (len) memcpy(G->PcT.val + G->PcT.rowptr[r], v, (size_t)len * sizeof(double));
  }
  memcpy(G->B.val, D->Pc.val, (size_t)D->Pc.nnz * sizeof(double));
  memcpy(G->B.val + D->Pc.nnz, G->B2.val, (size_t)G->B2.nnz * sizeof(double));
}

/* GPU context: the device products' operands, B = [Pc; B2] and PcT. */
static ng_status gpu_operands(const ng_amg_dlevel *D, ng_amg_dgalerkin *G)
{
  int32_t n = D->Pc.nrows, nh = G->B2.nrows;
  int64_t own = D->Pc.nnz;
  NG_CHECK(ng_csr_alloc(&G->B, n + nh, G->m, own + G->B2.nnz));
  memcpy(G->B.rowptr, D->Pc.rowptr, ((size_t)n + 1) * sizeof(int64_t));
  for (int32_t k = 1; k <= nh; k++) G->B.rowptr[n + k] = own + G->B2.rowptr[k];
  memcpy(G->B.col, D->Pc.col, (size_t)own * sizeof(int32_t));
  memcpy(G->B.col + own, G->B2.col, (size_t)G->B2.nnz * sizeof(int32_t));
  NG_CHECK(pct_from_r(D, G, n));
  gpu_values(D, G);
  return NG_SUCCESS;
}
#endif

/* The host's products: A P from A's and P's blocks in place, then R's
 * blocks times A P (setup, or values only). */
static ng_status host_products(ng_matrix A, const ng_amg_dlevel *D, ng_amg_dgalerkin *G, int numeric)
{
  const ng_csr *A2 = ng_amg_dist_offrank(A), *Ro = D->Ro.rowptr ? &D->Ro : NULL;
  if (numeric) {
    NG_CHECK(ng_spgemm2_numeric(&A->local, A2, &D->Pc, &G->B2, &G->AP));
    NG_CHECK(ng_spgemm_numeric(&D->Rl, &G->AP, &G->T));
    if (Ro) NG_CHECK(ng_spgemm_numeric(Ro, &G->AP, &G->T2));
  } else {
    NG_CHECK(ng_spgemm2(&A->local, A2, &D->Pc, &G->B2, &G->AP, 0));
    NG_CHECK(ng_spgemm(&D->Rl, &G->AP, &G->T, 1));
    if (Ro) NG_CHECK(ng_spgemm(Ro, &G->AP, &G->T2, 1));
  }
  return NG_SUCCESS;
}

typedef struct {
  int32_t row;  /* local coarse row */
  int64_t col;  /* global coarse column */
  int64_t k;    /* contribution number */
} contrib;
/* Orders one coarse row's contributions S[lo, hi) by (column, order). They
 * arrive in order k as a few runs ascending in column (one T row each: this
 * rank's, then one per source rank), so a natural bottom-up merge sorts
 * them in O(n log runs), where an insertion sort moves entries across whole
 * runs. Adjacent ranges hold ascending k, so taking the left entry on equal
 * columns keeps k ascending. tmp is scratch over the same range. */
static void merge_runs(contrib *S, contrib *tmp, int64_t lo, int64_t hi)
{
  if (hi - lo < 2) return;
  for (;;) {
    int64_t a = lo;
    while (a < hi) {
      int64_t m = a + 1, e;
      while (m < hi && S[m].col >= S[m - 1].col) m++;
      if (m == hi) {
        if (a == lo) return; /* one run: sorted */
        break;               /* a lone last run waits for the next pass */
      }
      for (e = m + 1; e < hi && S[e].col >= S[e - 1].col; e++) {}
      int64_t x = a, y = m, o = a;
      while (x < m && y < e) tmp[o++] = S[y].col < S[x].col ? S[y++] : S[x++];
      while (x < m) tmp[o++] = S[x++];
      while (y < e) tmp[o++] = S[y++];
      memcpy(S + a, tmp + a, (size_t)(e - a) * sizeof(contrib));
      a = e;
    }
  }
}

/* The contributions' values in their fixed order: own T rows, then received. */
static void contrib_values(const ng_amg_dgalerkin *G, int64_t nrecv, double *ac)
{
  int64_t k = 0;
  memset(ac, 0, (size_t)G->ac_nnz * sizeof(double));
  for (int32_t q = 0; q < G->n_own_rows; q++) {
    int32_t r = G->own_rows[q];
    const ng_csr *X = trow(G, &r);
    for (int64_t p = X->rowptr[r]; p < X->rowptr[r + 1]; p++) ac[G->slot[k++]] += X->val[p];
  }
  for (int64_t p = 0; p < nrecv; p++) ac[G->slot[k++]] += G->rbuf[p];
}

/* Setup: send T's foreign rows to their owners, find every contribution's
 * slot, and create A_c. st: the products' status, agreed with the first
 * buffers. */
static ng_status assemble(ng_matrix A, ng_amg_dlevel *D, ng_amg_dgalerkin *G, ng_status st, ng_matrix *Ac)
{
  ng_context ctx = A->ctx;
  int size = ctx->size, rank = ctx->rank;
  int64_t c0 = D->cstarts[rank], nrows_c = D->cstarts[rank + 1] - c0, nc = D->cstarts[size];
  int64_t *rows_s = NULL, *rows_r = NULL, *meta_s = NULL, *meta_r = NULL, *col_s = NULL, *col_r = NULL;
  int64_t *rp = NULL, *gc = NULL, nrecv = 0, nrrows = 0, *mcnt_s = NULL, *mcnt_r = NULL;
  contrib *C = NULL, *S = NULL;
  int64_t *start = NULL;
  int32_t nt = G->T.nrows + G->T2.nrows;
  G->t0 = ng_wtime();
  if (!st) st = NG_CALLOC(G->scnt, size);
  if (!st) st = NG_CALLOC(G->rcnt, size);
  if (!st) st = NG_CALLOC(rows_s, 2 * (size_t)size); /* per rank: entries, rows (one count exchange) */
  if (!st) st = NG_CALLOC(rows_r, 2 * (size_t)size);
  if (!st) st = NG_MALLOC(G->send_rows, nt);
  if (!st) st = NG_MALLOC(G->own_rows, nt);
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), out);
  /* T rows by owner: own ones kept, the rest grouped by rank */
  for (int r = 0; r < size; r++)
    for (int32_t t = 0; t < nt; t++) {
      int32_t i = t;
      const ng_csr *X = trow(G, &i);
      if (X->rowptr[i + 1] == X->rowptr[i] || ng_partition_owner(D->cstarts, size, tgid(D, G, t)) != r) continue;
      if (r == rank) G->own_rows[G->n_own_rows++] = t;
      else {
        G->send_rows[G->n_send_rows++] = t;
        rows_s[2 * r + 1]++;
        rows_s[2 * r] += X->rowptr[i + 1] - X->rowptr[i];
      }
    }
  NG_CHECK_GOTO(st, ng_comm_alltoall_counts_n(ctx, rows_s, rows_r, 2), out);
  int64_t nsend = 0, nw_s = 0, nw_r = 0;
  for (int r = 0; r < size; r++) {
    G->scnt[r] = rows_s[2 * r];
    G->rcnt[r] = rows_r[2 * r];
    nsend += G->scnt[r];
    nrecv += G->rcnt[r];
    nrrows += rows_r[2 * r + 1];
  }
  st = NG_MALLOC(G->sbuf, nsend);
  if (!st) st = NG_MALLOC(G->rbuf, nrecv);
  if (!st) st = NG_MALLOC(meta_r, 2 * (size_t)nrrows);
  if (!st) st = NG_MALLOC(col_r, nrecv);
  if (!st) st = NG_MALLOC(mcnt_s, size);
  if (!st) st = NG_MALLOC(mcnt_r, size);
  if (!st) {
    /* one exchange of 8-byte words: to each rank its rows' (coarse row,
     * length) pairs, then their columns, then their values */
    for (int r = 0; r < size; r++) {
      mcnt_s[r] = 2 * rows_s[2 * r + 1] + 2 * rows_s[2 * r];
      mcnt_r[r] = 2 * rows_r[2 * r + 1] + 2 * rows_r[2 * r];
      nw_s += mcnt_s[r];
      nw_r += mcnt_r[r];
    }
    st = NG_MALLOC(meta_s, nw_s); /* the packed words sent */
  }
  if (!st) st = NG_MALLOC(col_s, nw_r); /* and received */
  if (!st) {
    int64_t *w = meta_s;
    for (int32_t q = 0; q < G->n_send_rows;) { /* one rank's block at a time (send_rows are grouped by rank) */
      int r = ng_partition_owner(D->cstarts, size, tgid(D, G, G->send_rows[q]));
      int32_t q1 = q + (int32_t)rows_s[2 * r + 1];
      int64_t *wc = w + 2 * rows_s[2 * r + 1], *wv = wc + rows_s[2 * r];
      for (; q < q1; q++) {
        int32_t t = G->send_rows[q];
        *w++ = tgid(D, G, t);
        const ng_csr *X = trow(G, &t);
        *w++ = X->rowptr[t + 1] - X->rowptr[t];
        for (int64_t k = X->rowptr[t]; k < X->rowptr[t + 1]; k++) {
          *wc++ = G->cmap[X->col[k]];
          memcpy(wv++, &X->val[k], sizeof(double));
        }
      }
      w = wv;
    }
  }
  double tt = G->t0;
  ng_amg_dist_trace(ctx, "Galerkin assembly: rows by owner, packed", &tt);
  NG_CHECK_GOTO(st, ng_comm_alltoallv(ctx, st, meta_s, mcnt_s, col_s, mcnt_r, sizeof(int64_t)), out); /* agrees st */
  ng_amg_dist_trace(ctx, "Galerkin assembly: the foreign rows sent", &tt);
  { /* unpacked in rank order: meta_r, col_r, G->rbuf as three exchanges left them */
    const int64_t *w = col_s;
    int64_t pm = 0, pc = 0;
    for (int r = 0; r < size; r++) {
      int64_t nr2 = 2 * rows_r[2 * r + 1], ne = rows_r[2 * r];
      memcpy(meta_r + pm, w, (size_t)nr2 * sizeof(int64_t));
      memcpy(col_r + pc, w + nr2, (size_t)ne * sizeof(int64_t));
      memcpy(G->rbuf + pc, w + nr2 + ne, (size_t)ne * sizeof(double));
      w += nr2 + 2 * ne;
      pm += nr2;
      pc += ne;
    }
  }
  /* every contribution (local coarse row, global column, order k: own T
   * rows, then received) straight into S by row (a counting sort: the rows'
   * counts come from the T rows' and received rows' lengths), then each row
   * by column (merge_runs, C its scratch) */
  int64_t nown = 0;
  for (int32_t q = 0; q < G->n_own_rows; q++) {
    int32_t t = G->own_rows[q];
    const ng_csr *X = trow(G, &t);
    nown += X->rowptr[t + 1] - X->rowptr[t];
  }
  G->n_contrib = nown + nrecv;
  st = NG_MALLOC(C, G->n_contrib);
  if (!st) st = NG_MALLOC(S, G->n_contrib);
  if (!st) st = NG_CALLOC(start, (size_t)nrows_c + 2);
  if (!st) st = NG_MALLOC(G->slot, G->n_contrib);
  if (!st) st = NG_CALLOC(rp, (size_t)nrows_c + 1);
  if (!st) st = NG_MALLOC(gc, G->n_contrib > 0 ? G->n_contrib : 1); /* room for every contribution: one pass */
  for (int32_t q = 0; q < G->n_own_rows && !st; q++) {
    int32_t t = G->own_rows[q];
    int64_t g = tgid(D, G, t);
    const ng_csr *X = trow(G, &t);
    start[g - c0 + 2] += X->rowptr[t + 1] - X->rowptr[t];
  }
  for (int64_t q = 0; q < nrrows && !st; q++) {
    int64_t row = meta_r[2 * q] - c0;
    if (row < 0 || row >= nrows_c)
      st = NG_ERROR(NG_ERR_INTERNAL, "AMG: received coarse row %lld, not owned here", (long long)meta_r[2 * q]);
    else start[row + 2] += meta_r[2 * q + 1];
  }
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), out);
  for (int64_t i = 0; i < nrows_c; i++) start[i + 2] += start[i + 1];
  int64_t k = 0;
  for (int32_t q = 0; q < G->n_own_rows; q++) {
    int32_t t = G->own_rows[q], row = (int32_t)(tgid(D, G, t) - c0);
    const ng_csr *X = trow(G, &t);
    for (int64_t p = X->rowptr[t]; p < X->rowptr[t + 1]; p++, k++) S[start[row + 1]++] = (contrib){row, G->cmap[X->col[p]], k};
  }
  for (int64_t q = 0, p = 0; q < nrrows; q++) {
    int32_t row = (int32_t)(meta_r[2 * q] - c0);
    for (int64_t e = 0; e < meta_r[2 * q + 1]; e++, p++, k++) S[start[row + 1]++] = (contrib){row, col_r[p], k};
  }
#pragma omp parallel for schedule(dynamic, 64)
  for (int64_t i = 0; i < nrows_c; i++) merge_runs(S, C, start[i], start[i + 1]);
  ng_amg_dist_trace(ctx, "Galerkin assembly: contributions sorted", &tt);
  /* the distinct columns of each row (S holds row i at [start[i],
   * start[i + 1]), by column), then, at the row's offset, the columns and
   * every contribution's slot; both passes on all threads */
#pragma omp parallel for schedule(static) if (nrows_c > 20000)
  for (int64_t i = 0; i < nrows_c; i++) {
    int64_t c = 0;
    for (int64_t q = start[i]; q < start[i + 1]; q++) c += q == start[i] || S[q].col != S[q - 1].col;
    rp[i + 1] = c;
  }
  for (int64_t i = 0; i < nrows_c; i++) rp[i + 1] += rp[i];
  G->ac_nnz = rp[nrows_c];
#pragma omp parallel for schedule(static) if (nrows_c > 20000)
  for (int64_t i = 0; i < nrows_c; i++) {
    int64_t o = rp[i] - 1;
    for (int64_t q = start[i]; q < start[i + 1]; q++) {
      if (q == start[i] || S[q].col != S[q - 1].col) gc[++o] = S[q].col;
      G->slot[S[q].k] = o;
    }
  }
  st = NG_MALLOC(G->ac_val, G->ac_nnz);
  if (!st) contrib_values(G, nrecv, G->ac_val);
  /* the sparsify agrees st in its first collective; the plain copy here */
  ng_amg_dist_trace(ctx, "Galerkin assembly: slots and sums", &tt);
  if (D->sparsify > 0) st = ng_amg_dist_sparsify(ctx, st, D->sparsify, D->hybrid, D->cstarts, rp, gc, G->ac_val, Ac, &G->sp);
  else {
    NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), out);
    st = ng_matrix_create_distributed_csr(ctx, nc, c0, c0 + nrows_c, rp, gc, G->ac_val, Ac);
  }
  ng_amg_dist_trace(ctx, "Galerkin assembly: sparsified, the matrix made", &tt);
out:
  ng_free(rows_s);
  ng_free(rows_r);
  ng_free(meta_s);
  ng_free(meta_r);
  ng_free(col_s);
  ng_free(col_r);
  ng_free(mcnt_s);
  ng_free(mcnt_r);
  ng_free(rp);
  ng_free(gc);
  ng_free(C);
  ng_free(S);
  ng_free(start);
  return st;
}

/* Update: the same products on new values, the same exchange, the same sums. */
static ng_status refresh(ng_matrix A, ng_amg_dlevel *D, ng_amg_dgalerkin *G, ng_matrix Ac)
{
  ng_context ctx = A->ctx;
  int64_t nrecv = 0;
  NG_CHECK(ng_halo_rows_exchange(A->ctx, A->halo, D->Pc.rowptr, D->Pc.val, sizeof(double), G->B2.rowptr, G->B2.val));
  ng_status st = NG_SUCCESS;
#ifdef NG_HAVE_CUDA
  if (G->gpu) gpu_values(D, G);
  if (G->gpu && G->dx) st = ng_amg_gpu_triple_dx(ctx, D->gx, &G->B, &G->PcT, &G->T, &G->gpu);
  else if (G->gpu) {
    st = ng_amg_dist_aext(A, D, 1); /* Aext's values from the updated blocks */
    if (!st) st = ng_amg_gpu_triple(ctx, &D->Aext, &G->B, &G->PcT, &G->T, &G->gpu);
  } else
#endif
    st = host_products(A, D, G, 1);
  NG_CHECK(ng_comm_agree(ctx, st));
  for (int32_t q = 0, p = 0; q < G->n_send_rows; q++) {
    int32_t t = G->send_rows[q];
    const ng_csr *X = trow(G, &t);
    for (int64_t k = X->rowptr[t]; k < X->rowptr[t + 1]; k++) G->sbuf[p++] = X->val[k];
  }
  NG_CHECK(ng_comm_alltoallv(ctx, NG_SUCCESS, G->sbuf, G->scnt, G->rbuf, G->rcnt, sizeof(double)));
  for (int r = 0; r < ctx->size; r++) nrecv += G->rcnt[r];
  contrib_values(G, nrecv, G->ac_val);
  if (G->sp) ng_amg_dsparsify_values(G->sp, G->ac_val);
  st = ng_matrix_update_values(Ac, G->sp ? G->sp->val : G->ac_val);
  NG_CHECK(ng_comm_agree(ctx, st));
  return NG_SUCCESS;
}

ng_status ng_amg_dist_galerkin(ng_matrix A, ng_amg_dlevel *D, int refresh_only, ng_matrix *Ac)
{
  ng_context ctx = A->ctx;
  if (refresh_only) {
    NG_CHECK(refresh(A, D, D->G, *Ac));
    return NG_SUCCESS;
  }
  ng_amg_dgalerkin *G = NULL;
  ng_status st = NG_CALLOC(G, 1);
  if (!st) st = NG_MALLOC(G->B2.rowptr, (size_t)A->n_halo + 1); /* local_operands' first buffer, agreed here */
  st = ng_comm_agree(ctx, st);
  if (st) { ng_amg_dgalerkin_free(G); return ng_error_trace(st, __FILE__, __LINE__); } /* allocated here, failed elsewhere */
  D->G = G;
  double t = ng_wtime();
  st = local_operands(A, D, G);
  ng_amg_dist_trace(ctx, "Galerkin: P's halo rows", &t);
  int host = 1;
#ifdef NG_HAVE_CUDA
  /* on a GPU context the two local products run on the device over B and
   * PcT (copies); a product row too long for its hash table sends this
   * level back to the host */
  if (!st && ctx->on_gpu) {
    st = gpu_operands(D, G);
    ng_amg_dist_trace(ctx, "Galerkin: B, P_own^T", &t);
    G->dx = D->gx != NULL; /* the level's rows are on the device already */
    if (!st && G->dx) st = ng_amg_gpu_triple_dx(ctx, D->gx, &G->B, &G->PcT, &G->T, &G->gpu);
    else if (!st) {
      st = ng_amg_dist_aext(A, D, 0);
      if (!st) st = ng_amg_gpu_triple(ctx, &D->Aext, &G->B, &G->PcT, &G->T, &G->gpu);
    }
    host = st == NG_ERR_UNSUPPORTED;
    if (host) {
      ng_error_clear();
      ng_amg_gpu_triple_free(G->gpu);
      G->gpu = NULL;
      ng_csr_free(&G->B);
      ng_csr_free(&G->PcT);
      st = NG_SUCCESS;
    }
  }
#endif
  if (!st && host) st = host_products(A, D, G, 0);
  ng_amg_dist_trace(ctx, host ? "Galerkin: products (host)" : "Galerkin: products (GPU)", &t);
  NG_CHECK(assemble(A, D, G, st, Ac)); /* agrees st with its first buffers */
  ng_amg_dist_trace(ctx, "Galerkin: assembly", &t);
  return NG_SUCCESS;
}
