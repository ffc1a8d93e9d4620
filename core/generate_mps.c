/* core/generate_mps.c: "mps", the pressure Poisson system of the MPS
 * particle method (Koshizuka & Oka) for the initial state of a 3D dam break,
 * the published case of seed 002 (which gives no geometry details).
 *
 * Geometry, lattice spacing l0 = 1, sites (ix, iy, iz), width N:
 *   tank interior ix in [0,4N), iy in [0,N), iz in [0,2N), open top;
 *   water column: the interior sites with ix < N (N x N x 2N particles);
 *   wall particles: the layer just outside the interior (floor, 4 sides);
 *   dummy particles: two more layers outside the wall; they count in the
 *   particle number density only (they keep wall particles' density up).
 * Water particles are moved by a deterministic jitter of at most
 * MPS_JITTER*l0 per coordinate (fixed-seed LCG), so rows are irregular:
 * second-shell neighbours (r = 2 l0) drift across re, and about 1% of the
 * interior particles fall under 0.97 n0 and become (spurious) free-surface
 * particles, as they do in real MPS runs (mps:43 keeps 164,641 unknowns,
 * close to the published 160,578; without jitter it would be 166,414).
 *
 * Model: weight w(r) = re/r - 1 for r < re, re = 2.1 l0; n0 and lambda =
 * sum w r^2 / sum w from a particle of the perfect lattice. Particle number
 * density n_i = sum_j w(r_ij) over all neighbours. Water or wall particles
 * with n_i < 0.97 n0 are free-surface particles: p = 0, not unknowns.
 * Unknowns: the other water and wall particles, numbered in lattice order
 * (x fastest). Row i is MINUS the MPS Laplacian model,
 *   (2d/(lambda n0)) sum_j w(r_ij) (p_i - p_j),
 * over water and wall neighbours j (surface neighbours add to the diagonal
 * only, p_j = 0). So A is symmetric, weakly diagonally dominant with a
 * positive diagonal, strictly dominant in rows next to the surface; the
 * generator checks that every unknown is linked to such a row, which makes
 * A positive definite. Right-hand side: b = 1 for every unknown (a fixed
 * positive source standing in for the density-deviation term). */
#include "generate.h"
#include <math.h>

#define MPS_RE 2.1      /* influence radius / l0 */
#define MPS_BETA 0.97   /* free surface: n_i < MPS_BETA n0 */
#define MPS_JITTER 0.05 /* max displacement of water particles / l0, per coordinate */
#define MPS_DIM 3

enum { WATER = 0, WALL = 1, DUMMY = 2 };

typedef struct {
  int32_t np;                 /* particles */
  double *x, *y, *z;
  int8_t *type;
  double *nd;                 /* number density (not for dummies) */
  int32_t *unk;               /* unknown index or -1 */
  double lo[3];               /* cell grid origin */
  int32_t nc[3];              /* cells per dimension (cell side MPS_RE) */
  int64_t *cell_start;        /* nc0*nc1*nc2 + 1 */
  int32_t *order;             /* particles sorted by cell */
  int32_t max_occ;            /* most particles in one cell */
} mps_t;

/* Lattice classification of site (ix,iy,iz) for width N: -1 = empty. */
static int site_type(int64_t ix, int64_t iy, int64_t iz, int64_t N)
{
  int64_t ox = ix < 0 ? -ix : ix > 4 * N - 1 ? ix - (4 * N - 1) : 0;
  int64_t oy = iy < 0 ? -iy : iy > N - 1 ? iy - (N - 1) : 0;
  int64_t oz = iz < 0 ? -iz : 0, d = ox;
  if (oy > d) d = oy;
  if (oz > d) d = oz;
  if (d == 0) return ix < N ? WATER : -1;
  return d == 1 ? WALL : d <= 3 ? DUMMY : -1;
}

/* Lattice sites scanned: ix in [-3,4N+2], iy in [-3,N+2], iz in [-3,2N-1]. */
static int64_t site_count(int64_t N) { return (4 * N + 6) * (N + 6) * (2 * N + 3); }

int32_t ng_gen_mps_max_width(void)
{
  int64_t N = 1;
  while (site_count(N + 1) <= INT32_MAX) N++;
  return (int32_t)N;
}

static double weight(double r2)
{
  return r2 < MPS_RE * MPS_RE && r2 > 0.0 ? MPS_RE / sqrt(r2) - 1.0 : 0.0;
}

/* 64-bit LCG (Knuth's MMIX constants), top 53 bits as a double in [0,1). */
static double lcg_uniform(uint64_t *s)
{
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static void mps_free(mps_t *M)
{
  ng_free(M->x); ng_free(M->y); ng_free(M->z);
  ng_free(M->type); ng_free(M->nd); ng_free(M->unk);
  ng_free(M->cell_start); ng_free(M->order);
  memset(M, 0, sizeof(*M));
}

static ng_status place_particles(mps_t *M, int64_t N)
{
  int64_t np = 0;
  for (int64_t iz = -3; iz <= 2 * N - 1; iz++)
    for (int64_t iy = -3; iy <= N + 2; iy++)
      for (int64_t ix = -3; ix <= 4 * N + 2; ix++) np += site_type(ix, iy, iz, N) >= 0;
  M->np = (int32_t)np; /* np <= site_count(N) <= INT32_MAX, checked by the caller */
  NG_CHECK(NG_MALLOC(M->x, np));
  NG_CHECK(NG_MALLOC(M->y, np));
  NG_CHECK(NG_MALLOC(M->z, np));
  NG_CHECK(NG_MALLOC(M->type, np));
  NG_CHECK(NG_MALLOC(M->nd, np));
  NG_CHECK(NG_MALLOC(M->unk, np));
  uint64_t seed = 0x4d50535f6e616761ULL; /* fixed: the problem is deterministic */
  int64_t k = 0;
  for (int64_t iz = -3; iz <= 2 * N - 1; iz++)
    for (int64_t iy = -3; iy <= N + 2; iy++)
      for (int64_t ix = -3; ix <= 4 * N + 2; ix++) {
        int t = site_type(ix, iy, iz, N);
        if (t < 0) continue;
        M->x[k] = (double)ix;
        M->y[k] = (double)iy;
        M->z[k] = (double)iz;
        if (t == WATER) {
          M->x[k] += MPS_JITTER * (2.0 * lcg_uniform(&seed) - 1.0);
          M->y[k] += MPS_JITTER * (2.0 * lcg_uniform(&seed) - 1.0);
          M->z[k] += MPS_JITTER * (2.0 * lcg_uniform(&seed) - 1.0);
        }
        M->type[k++] = (int8_t)t;
      }
  return NG_SUCCESS;
}

static int64_t cell_of(const mps_t *M, double x, double y, double z, int32_t c[3])
{
  double p[3] = {x, y, z};
  for (int d = 0; d < 3; d++) {
    c[d] = (int32_t)((p[d] - M->lo[d]) / MPS_RE);
    if (c[d] >= M->nc[d]) c[d] = M->nc[d] - 1;
  }
  return ((int64_t)c[2] * M->nc[1] + c[1]) * M->nc[0] + c[0];
}

/* Bucket grid of cell side re, filled by a counting sort: O(np). */
static ng_status build_cells(mps_t *M, int64_t N)
{
  double hi[3] = {4.0 * N + 2.5, N + 2.5, 2.0 * N - 0.5};
  int32_t c[3];
  for (int d = 0; d < 3; d++) {
    M->lo[d] = -3.5;
    M->nc[d] = (int32_t)((hi[d] - M->lo[d]) / MPS_RE) + 1;
  }
  int64_t ncell = (int64_t)M->nc[0] * M->nc[1] * M->nc[2];
  NG_CHECK(NG_CALLOC(M->cell_start, ncell + 1));
  NG_CHECK(NG_MALLOC(M->order, M->np));
  for (int32_t i = 0; i < M->np; i++) M->cell_start[cell_of(M, M->x[i], M->y[i], M->z[i], c) + 1]++;
  M->max_occ = 0;
  for (int64_t q = 0; q < ncell; q++) {
    if (M->cell_start[q + 1] > M->max_occ) M->max_occ = (int32_t)M->cell_start[q + 1];
    M->cell_start[q + 1] += M->cell_start[q];
  }
  int64_t *fill = NULL;
  NG_CHECK(NG_MALLOC(fill, ncell));
  memcpy(fill, M->cell_start, (size_t)ncell * sizeof(int64_t));
  for (int32_t i = 0; i < M->np; i++) M->order[fill[cell_of(M, M->x[i], M->y[i], M->z[i], c)]++] = i;
  ng_free(fill);
  return NG_SUCCESS;
}

/* Neighbours j != i with r_ij < re: indices into nb, weights into w. */
static int neighbours(const mps_t *M, int32_t i, int32_t *nb, double *w)
{
  int32_t c[3], cnt = 0;
  cell_of(M, M->x[i], M->y[i], M->z[i], c);
  for (int32_t cz = c[2] - 1; cz <= c[2] + 1; cz++) {
    if (cz < 0 || cz >= M->nc[2]) continue;
    for (int32_t cy = c[1] - 1; cy <= c[1] + 1; cy++) {
      if (cy < 0 || cy >= M->nc[1]) continue;
      for (int32_t cx = c[0] - 1; cx <= c[0] + 1; cx++) {
        if (cx < 0 || cx >= M->nc[0]) continue;
        int64_t q = ((int64_t)cz * M->nc[1] + cy) * M->nc[0] + cx;
        for (int64_t s = M->cell_start[q]; s < M->cell_start[q + 1]; s++) {
          int32_t j = M->order[s];
          double dx = M->x[j] - M->x[i], dy = M->y[j] - M->y[i], dz = M->z[j] - M->z[i];
          double wij = j == i ? 0.0 : weight(dx * dx + dy * dy + dz * dz);
          if (wij > 0.0) { nb[cnt] = j; w[cnt++] = wij; }
        }
      }
    }
  }
  return cnt;
}

/* Sort a row's (col, val) pairs by column (rows are short). */
static void sort_row(int32_t *col, double *val, int64_t len)
{
  for (int64_t a = 1; a < len; a++) {
    int32_t c = col[a];
    double v = val[a];
    int64_t b = a;
    for (; b > 0 && col[b - 1] > c; b--) { col[b] = col[b - 1]; val[b] = val[b - 1]; }
    col[b] = c;
    val[b] = v;
  }
}

/* Every unknown must reach a strictly dominant row (one next to the free
 * surface) through the matrix graph; otherwise A would be singular. */
static ng_status check_anchored(const ng_csr *A, const int8_t *strict)
{
  int32_t n = A->nrows, *queue = NULL, head = 0, tail = 0;
  int8_t *seen = NULL;
  ng_status st = NG_SUCCESS;
  if (NG_MALLOC(queue, n) != NG_SUCCESS || NG_CALLOC(seen, n) != NG_SUCCESS) {
    st = ng_error_trace(NG_ERR_MEMORY, __FILE__, __LINE__);
    goto done;
  }
  for (int32_t i = 0; i < n; i++)
    if (strict[i]) { seen[i] = 1; queue[tail++] = i; }
  while (head < tail) {
    int32_t i = queue[head++];
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      if (!seen[A->col[p]]) { seen[A->col[p]] = 1; queue[tail++] = A->col[p]; }
  }
  for (int32_t i = 0; i < n && st == NG_SUCCESS; i++)
    if (!seen[i])
      st = NG_ERROR(NG_ERR_INTERNAL, "mps: unknown %d is not linked to the free surface (singular matrix)",
                    (int)i);
done:
  ng_free(queue);
  ng_free(seen);
  return st;
}

ng_status ng_gen_mps(int32_t width, ng_csr *A, double **b)
{
  mps_t M;
  int32_t *nb = NULL;
  double *w = NULL;
  int8_t *strict = NULL;
  ng_status st = NG_SUCCESS;
  int64_t N = width;
  memset(&M, 0, sizeof(M));
  memset(A, 0, sizeof(*A));
  *b = NULL;
  NG_ASSERT_ARG(width >= 1 && width <= ng_gen_mps_max_width(),
                "mps:%d: the width must be 1..%d (particle count must fit int32)", (int)width,
                (int)ng_gen_mps_max_width());
  NG_CHECK_GOTO(st, place_particles(&M, N), done);
  NG_CHECK_GOTO(st, build_cells(&M, N), done);
  int64_t nbmax = 27 * (int64_t)M.max_occ;
  NG_CHECK_GOTO(st, NG_MALLOC(nb, nbmax), done);
  NG_CHECK_GOTO(st, NG_MALLOC(w, nbmax), done);

  /* n0 and lambda from an interior particle of the perfect lattice. */
  double n0 = 0.0, wr2 = 0.0;
  for (int dz = -3; dz <= 3; dz++)
    for (int dy = -3; dy <= 3; dy++)
      for (int dx = -3; dx <= 3; dx++) {
        double r2 = dx * dx + dy * dy + dz * dz, wt = weight(r2);
        n0 += wt;
        wr2 += wt * r2;
      }
  double lambda = wr2 / n0, coef = 2.0 * MPS_DIM / (lambda * n0);

  /* number density, then the unknowns */
  int32_t nu = 0;
  for (int32_t i = 0; i < M.np; i++) {
    M.nd[i] = 0.0;
    M.unk[i] = -1;
    if (M.type[i] == DUMMY) continue;
    int cnt = neighbours(&M, i, nb, w);
    for (int k = 0; k < cnt; k++) M.nd[i] += w[k];
    if (M.nd[i] >= MPS_BETA * n0) M.unk[i] = nu++;
  }
  if (nu == 0) {
    st = NG_ERROR(NG_ERR_ARGUMENT, "mps:%d: every particle is on the free surface; use a width >= 2",
                  (int)width);
    goto done;
  }

  /* row lengths, then entries */
  int64_t nnz = 0;
  for (int32_t i = 0; i < M.np; i++) {
    if (M.unk[i] < 0) continue;
    int cnt = neighbours(&M, i, nb, w);
    nnz++;
    for (int k = 0; k < cnt; k++) nnz += M.unk[nb[k]] >= 0;
  }
  NG_CHECK_GOTO(st, ng_csr_alloc(A, nu, nu, nnz), done);
  NG_CHECK_GOTO(st, NG_MALLOC(*b, nu), done);
  NG_CHECK_GOTO(st, NG_CALLOC(strict, nu), done);
  int64_t p = 0;
  for (int32_t i = 0; i < M.np; i++) {
    int32_t r = M.unk[i];
    if (r < 0) continue;
    int cnt = neighbours(&M, i, nb, w);
    int64_t start = p;
    double diag = 0.0;
    A->rowptr[r] = p++; /* slot start holds the diagonal */
    for (int k = 0; k < cnt; k++) {
      int32_t j = nb[k];
      if (M.type[j] == DUMMY) continue;
      diag += coef * w[k];
      if (M.unk[j] < 0) { strict[r] = 1; continue; } /* surface: p_j = 0 */
      A->col[p] = M.unk[j];
      A->val[p++] = -coef * w[k];
    }
    A->col[start] = r;
    A->val[start] = diag;
    sort_row(A->col + start, A->val + start, p - start);
    (*b)[r] = 1.0;
  }
  A->rowptr[nu] = p;
  NG_CHECK_GOTO(st, check_anchored(A, strict), done);
done:
  if (st != NG_SUCCESS) {
    ng_csr_free(A);
    ng_free(*b);
    *b = NULL;
  }
  ng_free(nb);
  ng_free(w);
  ng_free(strict);
  mps_free(&M);
  return st;
}
