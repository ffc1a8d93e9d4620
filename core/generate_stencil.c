/* core/generate_stencil.c: constant-coefficient grid operators on an
 * nx x ny x nz node grid, natural order (x fastest):
 *   lap7    7-point Laplacian: 6 on the diagonal, -1 to each face neighbour.
 *   lap27   27-point Laplacian (HPCG): 26 on the diagonal, -1 to each of the
 *           up to 26 neighbours.
 *   aniso27 27-point diffusion with z 100x stronger than x and y [seed 004,
 *           which gives no stencil]: the assembled Q1 FEM stiffness of
 *           -div(diag(1,1,100) grad u) on unit cubes. Note that this stencil
 *           has POSITIVE couplings to the weak (x, y) face neighbours (any
 *           27-point tensor stencil with this anisotropy does); it is SPD
 *           but not an M-matrix.
 * Boundary: homogeneous Dirichlet just outside the grid, i.e. the stencil is
 * simply truncated, so every matrix is a principal submatrix of the operator
 * on a larger grid: symmetric positive definite.
 * Right-hand side b = A * ones (row sums), so x = ones is the exact solution
 * (HPCG's b = 26 - #neighbours is the same thing for lap27).
 * Pure Neumann ("lap7:N:neumann", "lap27:N:neumann": a pressure Poisson
 * with zero-flux walls): the same off-diagonals, and each diagonal the sum
 * of its row's off-diagonal magnitudes (6 inside, 3 at a corner for lap7),
 * so the rows sum to exactly zero and A's null space is the constant
 * vector; b = A u with u_i = the x index of node i (a flow entering at
 * x = 0 and leaving at x = nx - 1), consistent up to round-off.
 * Built straight into CSR (sorted columns) in O(nnz). */
#include "generate.h"
#include <math.h>
#include <string.h>

/* Offset (dx,dy,dz) in -1..1 has index (dz+1)*9 + (dy+1)*3 + (dx+1); offsets
 * whose coefficient is 0 are not stored. */
#define STENCIL_C(c, dx, dy, dz) ((c)[((dz) + 1) * 9 + ((dy) + 1) * 3 + (dx) + 1])

/* Entries of plane z's rows whose column plane z + dz lies in [zlo, zhi)
 * (and in the grid), in closed form: offset (dx, dy) inside a plane of
 * nx x ny points has (nx - |dx|)(ny - |dy|) rows. */
static int64_t plane_entries(const double c[27], int32_t nx, int32_t ny, int32_t nz, int32_t z, int32_t zlo,
                             int32_t zhi)
{
  int64_t e = 0;
  for (int dz = -1; dz <= 1; dz++) {
    int32_t q = z + dz;
    if (q < 0 || q >= nz || q < zlo || q >= zhi) continue;
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++)
        if (STENCIL_C(c, dx, dy, dz) != 0.0 && nx > abs(dx) && ny > abs(dy))
          e += (int64_t)(nx - abs(dx)) * (ny - abs(dy));
  }
  return e;
}

/* Where the rows of planes [z0, z1) go: L over the columns of these planes
 * (numbered from plane z0), the other planes' entries to the off-rank rows
 * orp / ogc (global columns) / oval (unused when [z0, z1) is the whole
 * grid), b by row. */
typedef struct {
  int32_t z0, z1;
  ng_csr *L;
  int64_t *orp, *ogc;
  double *oval, *b;
} plane_out;

/* Plane z's rows, the whole grid's rows in their order, their local
 * entries from *pl on and the others from *po on (both advanced). Neumann:
 * each diagonal the sum of its row's off-diagonal magnitudes, b = A u with
 * u the x index. */
static void plane_rows(const double c[27], int neumann, int32_t nx, int32_t ny, int32_t nz, int32_t z,
                       const plane_out *o, int64_t *pl, int64_t *po)
{
  int64_t nxy = (int64_t)nx * ny, base = (int64_t)o->z0 * nxy, p = *pl, q = *po;
  ng_csr *L = o->L;
  for (int32_t y = 0; y < ny; y++)
    for (int32_t x = 0; x < nx; x++) {
      int64_t gi = (int64_t)z * nxy + (int64_t)y * nx + x, li = gi - base, pd = -1;
      double s = 0.0, off = 0.0, su = 0.0;
      L->rowptr[li] = p;
      if (o->orp) o->orp[li] = q;
      for (int dz = -1; dz <= 1; dz++) {
        if (z + dz < 0 || z + dz >= nz) continue;
        for (int dy = -1; dy <= 1; dy++) {
          if (y + dy < 0 || y + dy >= ny) continue;
          for (int dx = -1; dx <= 1; dx++) {
            double v = STENCIL_C(c, dx, dy, dz);
            if (x + dx < 0 || x + dx >= nx || v == 0.0) continue;
            int64_t gq = gi + dz * nxy + dy * nx + dx;
            if (dx || dy || dz) off += fabs(v), su += v * (x + dx);
            else pd = p;
            if (z + dz >= o->z0 && z + dz < o->z1) {
              L->col[p] = (int32_t)(gq - base);
              L->val[p++] = v;
            } else {
              o->ogc[q] = gq;
              o->oval[q++] = v;
            }
            s += v;
          }
        }
      }
      o->b[li] = s;
      if (neumann && pd >= 0) { /* the diagonal balances the row */
        L->val[pd] = off;
        o->b[li] = off * x + su;
      }
    }
  *pl = p;
  *po = q;
}

/* The planes are written in parallel (OpenMP), each from its first entry
 * known in closed form, so the arrays are first touched by the threads that
 * fill them; the matrix is the same bit for bit as a single pass. */
static ng_status stencil_csr(const double c[27], int neumann, int32_t nx, int32_t ny, int32_t nz, ng_csr *A,
                             double **b)
{
  int64_t n = (int64_t)nx * ny * nz, nnz = 0, *start = NULL;
  *b = NULL;
  /* nnz in closed form: offset d along a dimension of n points has n - |d| rows. */
  for (int k = 0; k < 27; k++)
    if (c[k] != 0.0) {
      int dx = k % 3 - 1, dy = (k / 3) % 3 - 1, dz = k / 9 - 1;
      nnz += (int64_t)(nx - abs(dx)) * (ny - abs(dy)) * (nz - abs(dz)) *
             (nx > abs(dx) && ny > abs(dy) && nz > abs(dz));
    }
  NG_CHECK(NG_MALLOC(start, (size_t)nz + 1));
  start[0] = 0;
  for (int32_t z = 0; z < nz; z++) start[z + 1] = start[z] + plane_entries(c, nx, ny, nz, z, 0, nz);
  ng_status st = start[nz] == nnz ? NG_SUCCESS
                 : NG_ERROR(NG_ERR_INTERNAL, "stencil generator: %lld entries by planes, %lld in all",
                            (long long)start[nz], (long long)nnz);
  if (!st) st = ng_csr_alloc(A, (int32_t)n, (int32_t)n, nnz);
  if (!st && NG_MALLOC(*b, n) != NG_SUCCESS) {
    ng_csr_free(A);
    st = ng_error_trace(NG_ERR_MEMORY, __FILE__, __LINE__);
  }
  if (st) {
    ng_free(start);
    return st;
  }
  int bad = 0;
  plane_out o = {0, nz, A, NULL, NULL, NULL, *b};
#pragma omp parallel for schedule(static) reduction(| : bad) if (n > 20000)
  for (int32_t z = 0; z < nz; z++) {
    int64_t p = start[z], none = 0;
    plane_rows(c, neumann, nx, ny, nz, z, &o, &p, &none);
    bad |= p != start[z + 1] || none != 0;
  }
  A->rowptr[n] = nnz;
  ng_free(start);
  if (bad) { /* the closed form and the loop must agree */
    ng_csr_free(A);
    ng_free(*b);
    *b = NULL;
    return NG_ERROR(NG_ERR_INTERNAL, "stencil generator: a plane's entries differ from the closed form");
  }
  return NG_SUCCESS;
}

static void lap7_coeffs(double c[27])
{
  for (int k = 0; k < 27; k++) c[k] = 0.0;
  c[13] = 6.0;
  c[4] = c[10] = c[12] = c[14] = c[16] = c[22] = -1.0; /* the six face neighbours */
}

static void lap27_coeffs(double c[27])
{
  for (int k = 0; k < 27; k++) c[k] = -1.0;
  c[13] = 26.0;
}

static void aniso27_coeffs(double c[27])
{
  /* Assemble the 8 unit-cube elements around a node: the centre is corner a
   * of each, and neighbour corner e sits at offset (e - a) per dimension. */
  double Ke[8][8];
  for (int k = 0; k < 27; k++) c[k] = 0.0;
  ng_gen_q1_stiffness(1.0, 1.0, 100.0, 1.0, Ke);
  for (int a = 0; a < 8; a++)
    for (int e = 0; e < 8; e++) {
      int dx = (e & 1) - (a & 1), dy = ((e >> 1) & 1) - ((a >> 1) & 1), dz = (e >> 2) - (a >> 2);
      c[(dz + 1) * 9 + (dy + 1) * 3 + dx + 1] += Ke[a][e];
    }
  /* offsets d and -d summed the same terms in another order: make them
   * bitwise equal so that A is exactly symmetric */
  for (int k = 0; k < 13; k++) c[k] = c[26 - k] = 0.5 * (c[k] + c[26 - k]);
}

int ng_gen_stencil_coeffs(const char *spec, double c[27])
{
  static const struct { const char *name; void (*fill)(double *); } t[] = {
    {"lap7:", lap7_coeffs}, {"lap27:", lap27_coeffs}, {"aniso27:", aniso27_coeffs}};
  for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++)
    if (!strncmp(spec, t[k].name, strlen(t[k].name))) {
      t[k].fill(c);
      return 1;
    }
  return 0;
}

ng_status ng_gen_lap7(int32_t nx, int32_t ny, int32_t nz, ng_csr *A, double **b)
{
  double c[27];
  lap7_coeffs(c);
  return stencil_csr(c, 0, nx, ny, nz, A, b);
}

ng_status ng_gen_lap27(int32_t nx, int32_t ny, int32_t nz, ng_csr *A, double **b)
{
  double c[27];
  lap27_coeffs(c);
  return stencil_csr(c, 0, nx, ny, nz, A, b);
}

ng_status ng_gen_aniso27(int32_t nx, int32_t ny, int32_t nz, ng_csr *A, double **b)
{
  double c[27];
  aniso27_coeffs(c);
  return stencil_csr(c, 0, nx, ny, nz, A, b);
}

ng_status ng_gen_stencil_slab(const double c[27], int32_t nx, int32_t ny, int32_t nz, int32_t z0, int32_t z1,
                              ng_csr *L, int64_t **orp, int64_t **ogc, double **oval, double **b)
{
  int64_t nxy = (int64_t)nx * ny, n = nxy * (z1 - z0), *ls = NULL, *os = NULL;
  int32_t np = z1 - z0;
  memset(L, 0, sizeof(*L));
  *orp = *ogc = NULL;
  *oval = *b = NULL;
  if (z0 < 0 || z1 > nz || z1 < z0 || n > INT32_MAX)
    return NG_ERROR(NG_ERR_ARGUMENT, "stencil slab: planes [%d, %d) of %d, %lld rows", (int)z0, (int)z1, (int)nz,
                    (long long)n);
  NG_CHECK(NG_MALLOC(ls, (size_t)np + 1));
  ng_status st = NG_MALLOC(os, (size_t)np + 1);
  if (!st) {
    ls[0] = os[0] = 0;
    for (int32_t k = 0; k < np; k++) {
      int64_t all = plane_entries(c, nx, ny, nz, z0 + k, 0, nz), mine = plane_entries(c, nx, ny, nz, z0 + k, z0, z1);
      ls[k + 1] = ls[k] + mine;
      os[k + 1] = os[k] + (all - mine);
    }
    st = ng_csr_alloc(L, (int32_t)n, (int32_t)n, ls[np]);
  }
  if (!st) st = NG_MALLOC(*orp, (size_t)n + 1);
  if (!st) st = NG_MALLOC(*ogc, os[np] ? os[np] : 1);
  if (!st) st = NG_MALLOC(*oval, os[np] ? os[np] : 1);
  if (!st) st = NG_MALLOC(*b, n ? n : 1);
  int bad = 0;
  plane_out o = {z0, z1, L, *orp, *ogc, *oval, *b};
#pragma omp parallel for schedule(static) reduction(| : bad) if (!st && n > 20000)
  for (int32_t k = 0; k < (st ? 0 : np); k++) {
    int64_t pl = ls[k], po = os[k];
    plane_rows(c, 0, nx, ny, nz, z0 + k, &o, &pl, &po);
    bad |= pl != ls[k + 1] || po != os[k + 1];
  }
  if (!st) {
    L->rowptr[n] = ls[np];
    (*orp)[n] = os[np];
    if (bad) st = NG_ERROR(NG_ERR_INTERNAL, "stencil slab: a plane's entries differ from the closed form");
  }
  ng_free(ls);
  ng_free(os);
  if (st) {
    ng_csr_free(L);
    ng_free(*orp);
    ng_free(*ogc);
    ng_free(*oval);
    ng_free(*b);
    *orp = *ogc = NULL;
    *oval = *b = NULL;
  }
  return st;
}

ng_status ng_gen_lap_neumann(int points, int32_t nx, int32_t ny, int32_t nz, ng_csr *A, double **b)
{
  double c[27];
  for (int k = 0; k < 27; k++) c[k] = points == 27 ? -1.0 : 0.0;
  if (points != 27) c[4] = c[10] = c[12] = c[14] = c[16] = c[22] = -1.0;
  c[13] = 1.0; /* replaced by each row's off-diagonal sum (kept: nonzero so it is stored) */
  NG_CHECK(stencil_csr(c, 1, nx, ny, nz, A, b));
  return NG_SUCCESS;
}
