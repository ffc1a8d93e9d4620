/* smoother/smoother_mcgs.c: multicolor Gauss-Seidel (MCGS) and modified MCGS
 * (METHODS.md section 4, seed 004).
 *
 * MCGS colors the level's graph (coloring.c: first-fit in row order on the
 * finest level, -amg_coloring natural: 8 colors on 27-point grids as the
 * seed's greedy coloring, or in hashed order, -amg_coloring hash: about 17
 * colors, a somewhat stronger sweep; largest degree first below) so that
 * rows of one color never couple; a sweep updates the colors one after
 * another, each color's rows all at once:  x_i = (1 - w) x_i + w (t_i - sum_{j != i} a_ij x_j) / a_ii,
 * w = -amg_omega when given, else 1. Pre-smoothing runs the colors forward,
 * post-smoothing backward: the backward sweep is the adjoint of the forward
 * one, so the V-cycle stays symmetric for PCG.
 *
 * Modified MCGS (mmcgs) colors only the strong couplings,
 * |a_ij| > -amg_mmcgs_theta |a_ii| (0.1 by default), so far fewer colors. Rows
 * of one color may then share weak couplings; here they read the values from
 * before their color's update (a Jacobi step on those entries: the color is
 * computed into a buffer, then written), so every run gives the same
 * iterates bit for bit and the backward sweep is still the adjoint of the
 * forward one. The seed let such rows read each other's values while they
 * changed, so its results varied from run to run.
 *
 * Storage: rows grouped by color, each color one ELL block (column-major,
 * padded to 32 rows: coalesced) holding the row's off-diagonal entries; the
 * block's row list says which row of x each block row updates. The vectors
 * keep the hierarchy's numbering: no renumbering of P and R and no
 * permutation in the cycle; the smoother reads x and t through the row list
 * (one indirection per row, the matrix entries coalesced).
 *
 * Under MPI (processor-block hybrid): each rank colors its own block of the
 * level's operator; a sweep starts with one halo exchange and the off-rank
 * couplings enter the right-hand side, t = b - A_offrank x_halo, with those
 * values for the whole sweep (block Jacobi between ranks, Gauss-Seidel inside).
 * The forward and backward sweeps stay adjoint, so AMG-PCG works on any
 * number of ranks; the smoothing is somewhat weaker at rank boundaries.
 *
 * -amg_mcgs_coarse mmcgs: mcgs on the finest level, the modified coloring
 * on the coarser ones (seed 004's configuration): the coarse levels' 15-60
 * colors become 2-5, and with them the launches of a V-cycle.
 *
 * The kernels go through ng_mcgs_kernels: the host reference here, CUDA in
 * smoother_mcgs_cuda.cu. On one GPU the colors and blocks are built on the
 * device from the level's device CSR (the kernels' build; this file's
 * build_layout is the host reference and the fallback); the host layout's
 * entries and the device one's are the same. An update gathers the new
 * values into the same blocks; colors and orderings are kept. */
#include "smoother.h"

typedef struct {
  const ng_mcgs_kernels *k;
  void *dev;
  ng_mcgs_layout lay;
  int32_t *color; /* per row (host) */
  double omega;
  ng_matrix dist; /* the level's distributed matrix when it has a halo, else NULL */
  int on_device;  /* colors and layout built on the device (the kernels' build) */
  int color_down; /* on_device: color holds the device's colors (downloaded on demand) */
  double *t;      /* b minus the off-rank couplings (context memory, dist only) */
} mcgs;

static void layout_free(ng_mcgs_layout *y)
{
  ng_free(y->start); ng_free(y->width); ng_free(y->pad); ng_free(y->intra); ng_free(y->off);
  ng_free(y->rows); ng_free(y->ell_col); ng_free(y->ell_src); ng_free(y->diag_src);
  memset(y, 0, sizeof(*y));
}

/* Rows by color, each color's ELL block: column indices and the CSR index of each entry. */
static ng_status build_layout(const ng_csr *A, const int32_t *color, int ncolors, ng_mcgs_layout *y)
{
  int32_t n = A->nrows;
  y->n = n;
  y->ncolors = ncolors;
  NG_CHECK(NG_CALLOC(y->start, (size_t)ncolors + 1));
  NG_CHECK(NG_CALLOC(y->width, ncolors ? ncolors : 1));
  NG_CHECK(NG_CALLOC(y->pad, ncolors ? ncolors : 1));
  NG_CHECK(NG_CALLOC(y->intra, ncolors ? ncolors : 1));
  NG_CHECK(NG_CALLOC(y->off, (size_t)ncolors + 1));
  NG_CHECK(NG_MALLOC(y->rows, n));
  NG_CHECK(NG_MALLOC(y->diag_src, n));
  /* row lengths (off-diagonal) and couplings inside a color, in parallel; then per color */
  int32_t *len = NULL;
  char *inside = NULL;
  NG_CHECK(NG_MALLOC(len, n ? n : 1));
  ng_status st = NG_MALLOC(inside, n ? n : 1);
  if (st) {
    ng_free(len);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    int32_t m = 0;
    char in = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->col[k] != i) {
        m++;
        in |= color[A->col[k]] == color[i];
      }
    len[i] = m;
    inside[i] = in;
  }
  for (int32_t i = 0; i < n; i++) {
    int c = color[i];
    y->start[c + 1]++;
    if (len[i] > y->width[c]) y->width[c] = len[i];
    if (inside[i]) y->intra[c] = 1;
  }
  ng_free(len);
  ng_free(inside);
  for (int c = 0; c < ncolors; c++) {
    int32_t m = y->start[c + 1];
    y->start[c + 1] += y->start[c];
    y->pad[c] = (m + 31) / 32 * 32;
    y->off[c + 1] = y->off[c] + (int64_t)y->width[c] * y->pad[c];
    if (m > y->max_rows) y->max_rows = m;
  }
  int32_t *fill = NULL;
  NG_CHECK(NG_MALLOC(fill, ncolors ? ncolors : 1));
  for (int c = 0; c < ncolors; c++) fill[c] = y->start[c];
  for (int32_t i = 0; i < n; i++) y->rows[fill[color[i]]++] = i;
  ng_free(fill);
  int64_t total = y->off[ncolors];
  NG_CHECK(NG_MALLOC(y->ell_col, total ? total : 1));
  NG_CHECK(NG_MALLOC(y->ell_src, total ? total : 1));
  for (int c = 0; c < ncolors; c++) {
#pragma omp parallel for schedule(static) if (y->start[c + 1] - y->start[c] > 20000)
    for (int32_t k = 0; k < y->pad[c]; k++) {
      int32_t s = y->start[c] + k, i = s < y->start[c + 1] ? y->rows[s] : -1, j = 0;
      int64_t base = y->off[c] + k;
      if (i >= 0) {
        y->diag_src[s] = -1;
        for (int64_t q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
          if (A->col[q] == i) {
            if (y->diag_src[s] < 0) y->diag_src[s] = q;
            continue;
          }
          y->ell_col[base + (int64_t)j * y->pad[c]] = A->col[q];
          y->ell_src[base + (int64_t)j * y->pad[c]] = q;
          j++;
        }
      }
      for (; j < y->width[c]; j++) { /* padding: the row itself (or row 0 past the color's rows), value 0 */
        y->ell_col[base + (int64_t)j * y->pad[c]] = i >= 0 ? i : 0;
        y->ell_src[base + (int64_t)j * y->pad[c]] = -1;
      }
    }
  }
  for (int32_t s = 0; s < n; s++)
    if (y->diag_src[s] < 0) return NG_ERROR(NG_ERR_NUMERIC, "AMG Gauss-Seidel: row %d has no diagonal entry", (int)y->rows[s]);
  return NG_SUCCESS;
}

/* Block values and 1 / a_ii from the host CSR (shared by the host and CUDA kernels). */
void ng_mcgs_gather_values(const ng_mcgs_layout *y, const ng_csr *A, double *ell_val, double *dinv)
{
  int64_t total = y->off[y->ncolors];
#pragma omp parallel for schedule(static) if (total > 100000)
  for (int64_t s = 0; s < total; s++) ell_val[s] = y->ell_src[s] >= 0 ? A->val[y->ell_src[s]] : 0.0;
#pragma omp parallel for schedule(static) if (y->n > 20000)
  for (int32_t s = 0; s < y->n; s++) dinv[s] = 1.0 / A->val[y->diag_src[s]];
}

static void backends(ng_context ctx, const ng_coloring_ops **c, const ng_mcgs_kernels **k)
{
#ifdef NG_HAVE_CUDA
  if (ctx->on_gpu) {
    *c = &ng_coloring_cuda;
    *k = &ng_mcgs_cuda;
    return;
  }
#endif
  *c = &ng_coloring_host;
  *k = &ng_mcgs_host;
}

/* The coupling threshold of level l's coloring graph (0: every coupling). */
static double level_theta(const ng_smoother_opts *o, int l, int modified)
{
  if (modified || (l > 0 && o->mcgs_coarse_strong)) return o->mmcgs_theta;
  return 0.0;
}

static ng_status setup_common(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, const ng_csr *A,
                              ng_matrix dist, int modified, void **data)
{
  int l = S->level;
  const ng_coloring_ops *cops;
  mcgs *g;
  ng_graph G;
  int ncolors = 0;
  double theta = level_theta(o, l, modified);
  /* the finest level in the -amg_coloring order, the irregular coarse ones largest degree first */
  int order = l == 0 ? o->coloring : NG_COLOR_LDF;
  NG_CHECK(NG_CALLOC(g, 1));
  *data = g;
  backends(ctx, &cops, &g->k);
  g->omega = o->omega > 0 ? o->omega : 1.0;
  NG_CHECK(NG_MALLOC(g->color, A->nrows ? A->nrows : 1));
  if (dist && dist->halo) {
    g->dist = dist;
    NG_CHECK(ctx->vops->alloc(ctx, &g->t, A->nrows));
  }
  if (g->k->build && !o->host_setup) { /* on the device from the level's device CSR table */
    /* the level's matrix table (level 0 on one rank: the user's matrix;
     * a distributed level: its local block's CSR, beside the dia_half the
     * matrix may have chosen), else the level's A table. A distributed
     * level's colors are its local block's: the sweeps take the off-rank
     * couplings into t above, so the device build is the one-rank one. */
    const ng_spmv_ops *const *ops = dist ? (dist->csr_ops ? &dist->csr_ops : &dist->spmv) : l > 0 ? &S->Aops : NULL;
    void *const *tab = dist ? (dist->csr_ops ? &dist->csr_data : &dist->spmv_data) : l > 0 ? &S->Adata : NULL;
    void *early = l == 0 ? S->early : NULL; /* prepare's colors (build owns them) */
    if (early) S->early = NULL;
    ng_status st =
        ops && *ops ? g->k->build(ctx, o, ops, tab, A->nrows, theta, order, early, &g->lay, &g->dev) : NG_ERR_UNSUPPORTED;
    if (early && !(ops && *ops)) g->k->early_free(early);
    if (st == NG_SUCCESS) {
      g->on_device = 1;
      return NG_SUCCESS;
    }
    if (st != NG_ERR_UNSUPPORTED) return ng_error_trace(st, __FILE__, __LINE__);
    ng_error_clear();
    if (g->dev) g->k->destroy(g->dev); /* no device CSR, or a pattern the device path does not take */
    g->dev = NULL;
    layout_free(&g->lay);
  }
  NG_CHECK(ng_smoother_level_host(S, A)); /* the GPU setup may have left the level's own A on the device */
  NG_CHECK(ng_coloring_graph(A, theta, &G));
  ng_status st = cops->color(ctx, &G, order, g->color, &ncolors);
  ng_graph_free(&G);
  NG_CHECK(st);
  NG_CHECK(build_layout(A, g->color, ncolors, &g->lay));
  NG_CHECK(g->k->create(ctx, o, &g->lay, &g->dev));
  NG_CHECK(g->k->values(g->dev, &g->lay, S, A));
  return NG_SUCCESS;
}

/* mcgs on one GPU: the finest level's pattern checks and natural-order
 * colors (the longest step of its build: the greedy's rows wait on each
 * other in row order, 9 ms at 100^3 on the H100) start on a stream of their
 * own before the hierarchy and overlap its setup (setup 47 -> 43 ms at
 * aniso27:100; the multiprocessors are shared, so not all of it hides). */
static void mcgs_prepare(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S0, ng_matrix A)
{
  const ng_coloring_ops *cops;
  const ng_mcgs_kernels *k;
  backends(ctx, &cops, &k);
  if (!k->precolor || S0->early || o->host_setup || ctx->size > 1 || A->halo || level_theta(o, 0, 0) > 0 ||
      o->coloring != NG_COLOR_NATURAL || !A->spmv)
    return;
  if (k->precolor(ctx, ng_matrix_csr_ops(A), ng_matrix_csr_data(A), A->n_local, &S0->early) != NG_SUCCESS) {
    ng_error_clear(); /* setup colors the level itself (and reports a real failure then) */
    S0->early = NULL;
    return;
  }
  S0->early_free = k->early_free;
}

static ng_status mcgs_setup(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, const ng_csr *A,
                            ng_matrix dist, void **data)
{
  NG_CHECK(setup_common(ctx, o, S, A, dist, 0, data));
  return NG_SUCCESS;
}

static ng_status mmcgs_setup(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, const ng_csr *A,
                             ng_matrix dist, void **data)
{
  NG_CHECK(setup_common(ctx, o, S, A, dist, 1, data));
  return NG_SUCCESS;
}

static ng_status mcgs_update(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, const ng_csr *A,
                             void *data)
{
  mcgs *g = data;
  /* a host-built layout reads the level's host values: current after this */
  if (!g->on_device) NG_CHECK(ng_smoother_level_host(S, A));
  NG_CHECK(g->k->values(g->dev, &g->lay, S, A));
  return NG_SUCCESS;
}

/* sweeps over the colors (forward or backward); zero: x = 0 on entry. */
static ng_status sweeps_run(ng_context ctx, ng_smoother_level *S, int sweeps, int zero, int backward, const double *b,
                            double *x)
{
  mcgs *g = S->sdata;
  int32_t n = S->n;
  if (zero) NG_CHECK(ctx->vops->fill(ctx, n, 0.0, x));
  if (!g->dist) { /* one rank: t = b for every sweep, all of them at once */
    if (sweeps > 0) NG_CHECK(g->k->sweeps(g->dev, &g->lay, sweeps, backward, g->omega, b, x));
    return NG_SUCCESS;
  }
  for (int s = 0; s < sweeps; s++) {
    const double *t = b;
    if (g->dist && !(zero && s == 0)) { /* off-rank couplings from the values exchanged now */
      ng_matrix A = g->dist;
      NG_CHECK(ng_halo_begin(A, x));
      NG_CHECK(ctx->vops->copy(ctx, n, b, g->t));
      NG_CHECK(ng_halo_end(A));
      if (A->spmv_off) NG_CHECK(A->spmv_off->apply(A->spmv_off_data, -1.0, A->halo_values, 1.0, g->t));
      t = g->t;
    }
    NG_CHECK(g->k->sweeps(g->dev, &g->lay, 1, backward, g->omega, t, x));
  }
  return NG_SUCCESS;
}

static ng_status mcgs_pre(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, int sweeps,
                          const double *b, double *x)
{
  NG_CHECK(sweeps_run(ctx, S, sweeps, 1, 0, b, x));
  return NG_SUCCESS;
}

static ng_status mcgs_post(ng_context ctx, const ng_smoother_opts *o, ng_smoother_level *S, int sweeps,
                           const double *b, double *x)
{
  NG_CHECK(sweeps_run(ctx, S, sweeps, 0, 1, b, x));
  return NG_SUCCESS;
}

static int mcgs_colors(const void *data) { return data ? ((const mcgs *)data)->lay.ncolors : 0; }

static void mcgs_destroy(ng_context ctx, void *data)
{
  mcgs *g = data;
  if (!g) return;
  if (g->dev) g->k->destroy(g->dev);
  if (g->t) ctx->vops->free(ctx, g->t);
  layout_free(&g->lay);
  ng_free(g->color);
  ng_free(g);
}

/* r = b - A x from the level's blocks (one rank: under MPI the blocks lack
 * the off-rank couplings), where the kernels can: the cycle's level-0
 * residual without a copy of the matrix of its own (amg_fine.c). */
static ng_status mcgs_residual(ng_context ctx, ng_smoother_level *S, const double *b, const double *x, double *r,
                               int *done)
{
  mcgs *g = S->sdata;
  *done = 0;
  if (!g || ctx->size > 1 || !g->k->residual) return NG_SUCCESS;
  NG_CHECK(g->k->residual(g->dev, &g->lay, b, x, r, done));
  return NG_SUCCESS;
}

const ng_smoother_ops ng_smoother_mcgs = {
  .name = "mcgs",
  .split_coarse = 1,
  .prepare = mcgs_prepare,
  .setup = mcgs_setup,
  .update = mcgs_update,
  .pre = mcgs_pre,
  .post = mcgs_post,
  .colors = mcgs_colors,
  .destroy = mcgs_destroy,
  .residual = mcgs_residual,
};

const ng_smoother_ops ng_smoother_mmcgs = {
  .name = "mmcgs",
  .split_coarse = 1,
  .setup = mmcgs_setup,
  .update = mcgs_update,
  .pre = mcgs_pre,
  .post = mcgs_post,
  .colors = mcgs_colors,
  .destroy = mcgs_destroy,
  .residual = mcgs_residual,
};

/* Level l's Gauss-Seidel state, NULL for another smoother or a level
 * without sweeps (the coarsest, inverted). */
static mcgs *level_mcgs(const ng_smoother_ops *ops, ng_smoother_level *S)
{
  if (ops != &ng_smoother_mcgs && ops != &ng_smoother_mmcgs) return NULL;
  return S->sdata;
}

int ng_smoother_built_on_device(const ng_smoother_ops *ops, ng_smoother_level *S)
{
  mcgs *g = level_mcgs(ops, S);
  return g ? g->on_device : 0;
}

const char *ng_smoother_sweep_kind(const ng_smoother_ops *ops, ng_smoother_level *S)
{
  mcgs *g = level_mcgs(ops, S);
  return g && g->k->kind ? g->k->kind(g->dev) : NULL;
}

const int32_t *ng_smoother_row_colors(const ng_smoother_ops *ops, ng_smoother_level *S, int *ncolors)
{
  mcgs *g = level_mcgs(ops, S);
  if (!g) return NULL;
  if (ncolors) *ncolors = g->lay.ncolors;
  if (g->on_device && !g->color_down) {
    if (g->k->colors(g->dev, g->lay.n, g->color) != NG_SUCCESS) return NULL;
    g->color_down = 1;
  }
  return g->color;
}

/* ---- host kernels ------------------------------------------------------- */
typedef struct {
  double *val, *dinv, *tmp;
} mcgs_host;

static void host_destroy(void *dev)
{
  mcgs_host *h = dev;
  ng_free(h->val);
  ng_free(h->dinv);
  ng_free(h->tmp);
  ng_free(h);
}

static ng_status host_create(ng_context ctx, const ng_smoother_opts *o, const ng_mcgs_layout *y, void **dev)
{
  mcgs_host *h;
  (void)o; /* the host sweeps color by color in FP64 */
  NG_CHECK(NG_CALLOC(h, 1));
  *dev = h;
  int64_t total = y->off[y->ncolors];
  NG_CHECK(NG_MALLOC(h->val, total ? total : 1));
  NG_CHECK(NG_MALLOC(h->dinv, y->n ? y->n : 1));
  NG_CHECK(NG_MALLOC(h->tmp, y->max_rows ? y->max_rows : 1));
  return NG_SUCCESS;
}

static ng_status host_values(void *dev, const ng_mcgs_layout *y, ng_smoother_level *S, const ng_csr *A)
{
  mcgs_host *h = dev;
  ng_mcgs_gather_values(y, A, h->val, h->dinv);
  return NG_SUCCESS;
}

static ng_status host_color(void *dev, const ng_mcgs_layout *y, int c, double omega, const double *t, double *x)
{
  mcgs_host *h = dev;
  int32_t s0 = y->start[c], m = y->start[c + 1] - s0, pad = y->pad[c], w = y->width[c];
  const int32_t *col = y->ell_col + y->off[c], *rows = y->rows + s0;
  const double *val = h->val + y->off[c], *dinv = h->dinv + s0;
  double *out = y->intra[c] ? h->tmp : NULL;
#pragma omp parallel for schedule(static) if (m > 20000)
  for (int32_t k = 0; k < m; k++) {
    int32_t i = rows[k];
    double s = t[i];
    for (int32_t j = 0; j < w; j++) s -= val[(int64_t)j * pad + k] * x[col[(int64_t)j * pad + k]];
    double xn = omega == 1.0 ? s * dinv[k] : x[i] + omega * (s * dinv[k] - x[i]);
    if (out) out[k] = xn;
    else x[i] = xn;
  }
  if (out) {
#pragma omp parallel for schedule(static) if (m > 20000)
    for (int32_t k = 0; k < m; k++) x[rows[k]] = out[k];
  }
  return NG_SUCCESS;
}

/* Whole sweeps: the colors one after another (the reference order of every backend). */
ng_status ng_mcgs_sweeps_by_color(void *dev, const ng_mcgs_layout *y, int sweeps, int backward, double omega,
                                  const double *t, double *x,
                                  ng_status (*color)(void *, const ng_mcgs_layout *, int, double, const double *, double *))
{
  int nc = y->ncolors;
  for (int s = 0; s < sweeps; s++)
    for (int q = 0; q < nc; q++) NG_CHECK(color(dev, y, backward ? nc - 1 - q : q, omega, t, x));
  return NG_SUCCESS;
}

static ng_status host_sweeps(void *dev, const ng_mcgs_layout *y, int sweeps, int backward, double omega,
                             const double *t, double *x)
{
  NG_CHECK(ng_mcgs_sweeps_by_color(dev, y, sweeps, backward, omega, t, x, host_color));
  return NG_SUCCESS;
}

const ng_mcgs_kernels ng_mcgs_host = {.name = "host",
                                      .create = host_create,
                                      .values = host_values,
                                      .color = host_color,
                                      .sweeps = host_sweeps,
                                      .destroy = host_destroy,
                                      .build = NULL,
                                      .colors = NULL,
                                      .kind = NULL,
                                      .precolor = NULL,
                                      .early_free = NULL};
