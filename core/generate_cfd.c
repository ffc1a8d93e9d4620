/* core/generate_cfd.c: the CFD pressure-system classes of issue 31 (AMG
 * robustness against BoomerAMG and GAMG, bench/peers/), all symmetric
 * positive definite, Dirichlet u = 0 on the whole boundary, b = 1:
 *   stretch7:N[:ratio]  7-point finite volumes of -lap u on N^3 cells of a
 *                   grid graded geometrically toward the wall z = 0: cells
 *                   1/N wide in x and y, heights h_k = h_0 q^k summing to 1
 *                   with 1/N : h_0 = ratio (default 1000), the largest
 *                   aspect ratio, at the wall (couplings 1e6 : 1 there).
 *   jump2q1:N[:seed]  2D Q1 finite elements of -div(k K grad u) on (N+1)^2
 *                   square elements, N^2 interior nodes (the rows), K =
 *                   R(30 deg) diag(1, 0.01) R^T (rotated 1:100 anisotropy)
 *                   and k = 1e4 on a random quarter of the elements, else 1.
 *   bubbles7:N[:seed]  variable-density pressure Poisson -div(1/rho grad p)
 *                   on N^3 cells: a pool of liquid (rho = 1000) below
 *                   z = 0.75 with 20 gas bubbles (rho = 1, radii 0.04 to
 *                   0.12), gas above the pool; density ratio 1000.
 *   spheres7:N[:seed]  -div(k grad u) on N^3 cells, k = 1 with k = 1e6
 *                   inside 40 random spheres (radii 0.04 to 0.1).
 *   jump3q1:N[:seed]  jump2q1 in 3D: Q1 hexahedra on (N+1)^3 cubes, N^3
 *                   interior nodes, K 1:100 along a direction out of the
 *                   grid's axes, k = 1e4 on a random quarter of them.
 *   bubbles5:N[:seed]  bubbles7 in 2D: 5-point finite volumes on N^2 cells,
 *                   a pool below y = 0.75 with 20 gas bubbles (circles).
 *   layers7:N[:seed]  -div(k grad u) on N^3 cells with a layered
 *                   log-normal k from 1e-3 to 1e3 (SPE10-like: each
 *                   z-layer its mean, lateral variation inside it).
 *   p1tet:N[:seed]  P1 finite elements of -lap u on a tetrahedral mesh of
 *                   jittered points: (N+1)^3 cubes with their inner
 *                   corners moved by up to 0.2 h, 6 tetrahedra each, N^3
 *                   interior nodes (the coefficients are smooth: the
 *                   hierarchy's own soundness on an unstructured mesh).
 * Finite volumes: face coefficient area / (h_P / 2k_P + h_Q / 2k_Q) (the
 * harmonic mean for equal cells), a Dirichlet face 2 k_P area / h_P; a cell
 * is inside a sphere when its centre is. Random choices come from a hash of
 * the seed (default 1) and an index, so the matrix depends only on the
 * spec. Every coupling is computed once from the lower-numbered row's side
 * and stored twice: the matrices are symmetric bitwise. */
#include "generate.h"
#include <math.h>

/* Uniform in [0, 1) from (seed, i): splitmix64. */
static double hash01(uint64_t seed, uint64_t i)
{
  uint64_t x = i * 0x9e3779b97f4a7c15ull + seed * 0xd1b54a32d192ed03ull + 0x2545f4914f6cdd1dull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return (double)(x >> 11) / 9007199254740992.0;
}

/* Face coefficient between cells P (width hp, k kp) and Q across a face of
 * area `area`; symmetric in (hp, kp) and (hq, kq) up to the order of one
 * addition, which the caller fixes by passing the lower cell first. */
static double face(double area, double hp, double kp, double hq, double kq)
{
  return area / (0.5 * hp / kp + 0.5 * hq / kq);
}

/* 7-point finite volumes of -div(k grad u) on nx*ny*nz cells of widths
 * h[0][x], h[1][y], h[2][z], cell coefficients k (NULL: 1), Dirichlet
 * walls, b = 1. Rows in natural order (x fastest), columns sorted. dims 2:
 * 5 points on nx*ny cells (nd[2] = 1, h[2][0] = 1: no z faces). */
static ng_status fvn(int dims, const int32_t nd[3], const double *const h[3], const double *k, ng_csr *A, double **b)
{
  int64_t nx = nd[0], ny = nd[1], nz = nd[2], n = nx * ny * nz, nxy = nx * ny;
  ng_status st = NG_SUCCESS;
  NG_CHECK(ng_csr_alloc(A, (int32_t)n, (int32_t)n, n * (2 * dims + 1)));
  NG_CHECK_GOTO(st, NG_MALLOC(*b, n), fail);
  const int64_t stride[3] = {1, nx, nxy};
  int64_t p = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t c[3] = {i % nx, (i / nx) % ny, i / nxy};
    double ki = k ? k[i] : 1.0, diag = 0.0, lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    int has_lo[3] = {0, 0, 0}, has_hi[3] = {0, 0, 0};
    for (int d = 0; d < dims; d++) {
      double area = h[(d + 1) % 3][c[(d + 1) % 3]] * h[(d + 2) % 3][c[(d + 2) % 3]], hp = h[d][c[d]];
      has_lo[d] = c[d] > 0;
      has_hi[d] = c[d] < nd[d] - 1;
      if (has_lo[d]) { /* the lower cell first: the same expression as from its row */
        int64_t q = i - stride[d];
        lo[d] = face(area, h[d][c[d] - 1], k ? k[q] : 1.0, hp, ki);
        diag += lo[d];
      } else diag += 2.0 * ki * area / hp;
      if (has_hi[d]) {
        int64_t q = i + stride[d];
        hi[d] = face(area, hp, ki, h[d][c[d] + 1], k ? k[q] : 1.0);
        diag += hi[d];
      } else diag += 2.0 * ki * area / hp;
    }
    A->rowptr[i] = p;
    for (int d = dims - 1; d >= 0; d--) /* sorted: -nxy, -nx, -1 */
      if (has_lo[d]) {
        A->col[p] = (int32_t)(i - stride[d]);
        A->val[p++] = -lo[d];
      }
    A->col[p] = (int32_t)i;
    A->val[p++] = diag;
    for (int d = 0; d < dims; d++)
      if (has_hi[d]) {
        A->col[p] = (int32_t)(i + stride[d]);
        A->val[p++] = -hi[d];
      }
    (*b)[i] = 1.0;
  }
  A->rowptr[n] = p;
  A->nnz = p;
  return NG_SUCCESS;
fail:
  ng_csr_free(A);
  return st;
}

/* Cell widths 1/n in each direction; z graded for stretch7 (ratio > 1):
 * h_k = h_0 q^k, h_0 = 1 / (n ratio), q solving sum_k h_k = 1 (bisection;
 * the sum grows with q, from n h_0 <= 1 at q = 1). */
static void grade(int32_t n, double ratio, double *hz)
{
  double h0 = 1.0 / (n * ratio), a = 1.0, c = 2.0;
  for (;;) { /* an upper bracket */
    double s = 0, t = h0;
    for (int32_t k = 0; k < n; k++, t *= c) s += t;
    if (s >= 1.0) break;
    c *= 2.0;
  }
  for (int it = 0; it < 200; it++) {
    double q = 0.5 * (a + c), s = 0, t = h0;
    for (int32_t k = 0; k < n; k++, t *= q) s += t;
    if (s < 1.0) a = q;
    else c = q;
  }
  double q = 0.5 * (a + c), t = h0;
  for (int32_t k = 0; k < n; k++, t *= q) hz[k] = t;
}

static ng_status gen_stretch(int32_t n, double ratio, ng_csr *A, double **b)
{
  double *h = NULL;
  NG_CHECK(NG_MALLOC(h, 2 * (size_t)n));
  for (int32_t i = 0; i < n; i++) h[i] = 1.0 / n;
  grade(n, ratio, h + n);
  const int32_t nd[3] = {n, n, n};
  const double *const hh[3] = {h, h, h + n};
  ng_status st = fvn(3, nd, hh, NULL, A, b);
  ng_free(h);
  NG_CHECK(st);
  return NG_SUCCESS;
}

/* Spheres (dims 2: circles): centre uniform in the unit box, radius in
 * [rmin, rmax]; the cells whose centre lies inside any get k_in, the others
 * k_out, and with pool_top < 1 the cells above pool_top in the last
 * coordinate (z, in 2D y) k_in too (the gas over a pool). */
static ng_status gen_inclusions(int dims, int32_t n, uint64_t seed, int count, double rmin, double rmax, double k_out,
                                double k_in, double pool_top, ng_csr *A, double **b)
{
  int64_t cells = (int64_t)n * n * (dims == 3 ? n : 1);
  double *k = NULL, *h = NULL, sph[64][4];
  ng_status st = NG_SUCCESS;
  for (int s = 0; s < count; s++) {
    for (int c = 0; c < 3; c++) sph[s][c] = hash01(seed, 4 * (uint64_t)s + c);
    sph[s][3] = rmin + (rmax - rmin) * hash01(seed, 4 * (uint64_t)s + 3);
  }
  NG_CHECK(NG_MALLOC(k, cells));
  NG_CHECK_GOTO(st, NG_MALLOC(h, n), out);
  for (int32_t i = 0; i < n; i++) h[i] = 1.0 / n;
  for (int64_t i = 0; i < cells; i++) {
    double x = (i % n + 0.5) / n, y = ((i / n) % n + 0.5) / n, z = (i / ((int64_t)n * n) + 0.5) / n;
    int in = (dims == 3 ? z : y) > pool_top;
    for (int s = 0; s < count && !in; s++) {
      double dx = x - sph[s][0], dy = y - sph[s][1], dz = dims == 3 ? z - sph[s][2] : 0.0;
      in = dx * dx + dy * dy + dz * dz < sph[s][3] * sph[s][3];
    }
    k[i] = in ? k_in : k_out;
  }
  const int32_t nd[3] = {n, n, dims == 3 ? n : 1};
  const double one = 1.0, *const hh[3] = {h, h, dims == 3 ? h : &one};
  st = fvn(dims, nd, hh, k, A, b);
out:
  ng_free(k);
  ng_free(h);
  NG_CHECK(st);
  return NG_SUCCESS;
}

/* A (rows x rows, room for width entries a row) and b = 1: the Q1 and P1
 * generators below. */
static ng_status rows_alloc(int64_t rows, int width, ng_csr *A, double **b)
{
  NG_CHECK(ng_csr_alloc(A, (int32_t)rows, (int32_t)rows, rows * width));
  ng_status st = NG_MALLOC(*b, rows);
  if (st != NG_SUCCESS) {
    ng_csr_free(A);
    NG_CHECK(st);
  }
  for (int64_t r = 0; r < rows; r++) (*b)[r] = 1.0;
  return NG_SUCCESS;
}

/* Row r of an n^3 node grid from the sums v over its 3x3x3 neighbourhood
 * ([dz + 1][dy + 1][dx + 1]), columns ascending: the neighbours with on
 * set, or (on NULL) those inside the grid, the node at 0-based at[]. */
static void emit27(ng_csr *A, int64_t *p, int64_t r, int32_t n, const int32_t at[3], const double v[3][3][3],
                   const char on[3][3][3])
{
  int64_t nn = (int64_t)n * n;
  for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        if (on ? !on[dz + 1][dy + 1][dx + 1]
               : at[0] + dx < 0 || at[0] + dx >= n || at[1] + dy < 0 || at[1] + dy >= n || at[2] + dz < 0 ||
                     at[2] + dz >= n)
          continue;
        A->col[*p] = (int32_t)(r + (int64_t)dz * nn + (int64_t)dy * n + dx);
        A->val[(*p)++] = v[dz + 1][dy + 1][dx + 1];
      }
}

/* Q1 stiffness of -div(K grad u) on a square (its size drops out in 2D),
 * corners a = ax + 2 ay, by 2x2 Gauss quadrature (exact for these
 * quadratic integrands); each pair computed once and mirrored. */
static void q1_aniso_2d(double k11, double k12, double k22, double Ke[4][4])
{
  const double g[2] = {0.5 - 0.5 / sqrt(3.0), 0.5 + 0.5 / sqrt(3.0)};
  for (int a = 0; a < 4; a++)
    for (int c = a; c < 4; c++) {
      double s = 0;
      for (int qx = 0; qx < 2; qx++)
        for (int qy = 0; qy < 2; qy++) {
          double x = g[qx], y = g[qy], grad[2][2];
          const int cor[2] = {a, c};
          for (int m = 0; m < 2; m++) {
            int ax = cor[m] & 1, ay = cor[m] >> 1;
            grad[m][0] = (ax ? 1.0 : -1.0) * (ay ? y : 1.0 - y);
            grad[m][1] = (ax ? x : 1.0 - x) * (ay ? 1.0 : -1.0);
          }
          s += 0.25 * (grad[0][0] * (k11 * grad[1][0] + k12 * grad[1][1]) +
                       grad[0][1] * (k12 * grad[1][0] + k22 * grad[1][1]));
        }
      Ke[a][c] = Ke[c][a] = s;
    }
}

/* jump2q1: interior nodes (i, j), 0 <= i, j < n, at (i + 1) h; element
 * (ex, ey), 0 <= ex, ey <= n, has corners (ex - 1 + ax, ey - 1 + ay). Each
 * row sums its elements' contributions in one fixed order (elements by ey,
 * then ex), so A(i, j) and A(j, i) add the same numbers. */
static ng_status gen_jump2q1(int32_t n, uint64_t seed, ng_csr *A, double **b)
{
  const double t = 30.0 * 3.14159265358979323846 / 180.0, C = cos(t), S = sin(t), eps = 0.01, jump = 1e4;
  double K1[4][4], Kj[4][4];
  q1_aniso_2d(C * C + eps * S * S, (1.0 - eps) * C * S, S * S + eps * C * C, K1);
  for (int a = 0; a < 4; a++)
    for (int c = 0; c < 4; c++) Kj[a][c] = jump * K1[a][c];
  int64_t rows = (int64_t)n * n, ne = (int64_t)(n + 1);
  NG_CHECK(rows_alloc(rows, 9, A, b));
  int64_t p = 0;
  for (int64_t r = 0; r < rows; r++) {
    int32_t i = (int32_t)(r % n), j = (int32_t)(r / n);
    double v[3][3] = {{0}}; /* v[dy + 1][dx + 1] */
    for (int32_t ey = j; ey <= j + 1; ey++)
      for (int32_t ex = i; ex <= i + 1; ex++) {
        const double(*K)[4] = hash01(seed, (uint64_t)(ey * ne + ex)) < 0.25 ? Kj : K1;
        int me = (i - ex + 1) + 2 * (j - ey + 1); /* this node's corner in the element */
        for (int c = 0; c < 4; c++) {
          int32_t X = ex - 1 + (c & 1), Y = ey - 1 + (c >> 1);
          if (X < 0 || X >= n || Y < 0 || Y >= n) continue; /* Dirichlet node: eliminated */
          v[Y - j + 1][X - i + 1] += K[me][c];
        }
      }
    A->rowptr[r] = p;
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        int32_t X = i + dx, Y = j + dy;
        if (X < 0 || X >= n || Y < 0 || Y >= n) continue;
        A->col[p] = (int32_t)(r + (int64_t)dy * n + dx);
        A->val[p++] = v[dy + 1][dx + 1];
      }
  }
  A->rowptr[rows] = p;
  A->nnz = p;
  return NG_SUCCESS;
}

/* layers7: log10 k = clamp(m_z + 0.5 g, -3, 3) per cell, m_z uniform in
 * [-3, 3] for each layer of cells in z (the layers of a reservoir), g a
 * standard normal-like lateral variation (four uniforms, centred and
 * scaled); k from 1e-3 to 1e3, as SPE10's permeability spans. */
static ng_status gen_layers(int32_t n, uint64_t seed, ng_csr *A, double **b)
{
  int64_t cells = (int64_t)n * n * n, nxy = (int64_t)n * n;
  double *k = NULL, *h = NULL;
  ng_status st = NG_SUCCESS;
  NG_CHECK(NG_MALLOC(k, cells));
  NG_CHECK_GOTO(st, NG_MALLOC(h, n), out);
  for (int32_t i = 0; i < n; i++) h[i] = 1.0 / n;
  for (int64_t i = 0; i < cells; i++) {
    double m = -3.0 + 6.0 * hash01(seed, (uint64_t)(i / nxy)), g = 0;
    for (int u = 0; u < 4; u++) g += hash01(seed + 1, 4 * (uint64_t)i + u);
    double e = m + 0.5 * (g - 2.0) * sqrt(3.0);
    k[i] = pow(10.0, e < -3.0 ? -3.0 : e > 3.0 ? 3.0 : e);
  }
  const int32_t nd[3] = {n, n, n};
  const double *const hh[3] = {h, h, h};
  st = fvn(3, nd, hh, k, A, b);
out:
  ng_free(k);
  ng_free(h);
  NG_CHECK(st);
  return NG_SUCCESS;
}

/* Q1 stiffness of -div(K grad u) on a cube of side h (h times the unit
 * cube's), corners a = ax + 2 ay + 4 az, by 2x2x2 Gauss quadrature (exact:
 * the integrands are at most quadratic in each coordinate). */
static void q1_aniso_3d(const double K[3][3], double h, double Ke[8][8])
{
  const double g[2] = {0.5 - 0.5 / sqrt(3.0), 0.5 + 0.5 / sqrt(3.0)};
  for (int a = 0; a < 8; a++)
    for (int c = a; c < 8; c++) {
      double s = 0;
      for (int q = 0; q < 8; q++) {
        double x[3] = {g[q & 1], g[(q >> 1) & 1], g[q >> 2]}, grad[2][3];
        const int cor[2] = {a, c};
        for (int m = 0; m < 2; m++)
          for (int d = 0; d < 3; d++) { /* d/dx_d of prod_e phi_e(x_e) */
            double v = 1.0;
            for (int e = 0; e < 3; e++) {
              int on = (cor[m] >> e) & 1;
              v *= e == d ? (on ? 1.0 : -1.0) : (on ? x[e] : 1.0 - x[e]);
            }
            grad[m][d] = v;
          }
        for (int d = 0; d < 3; d++)
          for (int e = 0; e < 3; e++) s += 0.125 * grad[0][d] * K[d][e] * grad[1][e];
      }
      Ke[a][c] = Ke[c][a] = h * s;
    }
}

/* jump3q1: interior nodes (i, j, l) of an (n + 1)^3 grid of cubes, K =
 * eps I + (1 - eps) d d^T (1:100 along d, d 30 degrees from x in the xy
 * plane and 20 degrees out of it), times 1e4 on a random quarter of the
 * elements. Each row sums its eight elements in one fixed order, so A(i,
 * j) and A(j, i) add the same numbers, as in jump2q1. */
static ng_status gen_jump3q1(int32_t n, uint64_t seed, ng_csr *A, double **b)
{
  const double pi = 3.14159265358979323846, t = 30.0 * pi / 180.0, f = 20.0 * pi / 180.0, eps = 0.01, jump = 1e4;
  const double d[3] = {cos(t) * cos(f), sin(t) * cos(f), sin(f)};
  double K[3][3], K1[8][8], Kj[8][8];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) K[r][c] = (r == c ? eps : 0.0) + (1.0 - eps) * d[r] * d[c];
  q1_aniso_3d(K, 1.0 / (n + 1), K1);
  for (int a = 0; a < 8; a++)
    for (int c = 0; c < 8; c++) Kj[a][c] = jump * K1[a][c];
  int64_t rows = (int64_t)n * n * n, ne = (int64_t)(n + 1), nn = (int64_t)n * n;
  NG_CHECK(rows_alloc(rows, 27, A, b));
  int64_t p = 0;
  for (int64_t r = 0; r < rows; r++) {
    int32_t i = (int32_t)(r % n), j = (int32_t)((r / n) % n), l = (int32_t)(r / nn);
    double v[3][3][3] = {{{0}}}; /* v[dz + 1][dy + 1][dx + 1] */
    for (int32_t ez = l; ez <= l + 1; ez++)
      for (int32_t ey = j; ey <= j + 1; ey++)
        for (int32_t ex = i; ex <= i + 1; ex++) {
          const double(*Ke)[8] = hash01(seed, (uint64_t)((ez * ne + ey) * ne + ex)) < 0.25 ? Kj : K1;
          int me = (i - ex + 1) + 2 * (j - ey + 1) + 4 * (l - ez + 1); /* this node's corner */
          for (int c = 0; c < 8; c++) {
            int32_t X = ex - 1 + (c & 1), Y = ey - 1 + ((c >> 1) & 1), Z = ez - 1 + (c >> 2);
            if (X < 0 || X >= n || Y < 0 || Y >= n || Z < 0 || Z >= n) continue; /* Dirichlet: eliminated */
            v[Z - l + 1][Y - j + 1][X - i + 1] += Ke[me][c];
          }
        }
    A->rowptr[r] = p;
    const int32_t at[3] = {i, j, l};
    emit27(A, &p, r, n, at, v, NULL);
  }
  A->rowptr[rows] = p;
  A->nnz = p;
  return NG_SUCCESS;
}

/* p1tet: node (x, y, z), 0 <= x, y, z <= n + 1, at h (x, y, z) moved by up
 * to 0.2 h in each coordinate (a hash of the seed and the node; the
 * boundary nodes stay on the cube's faces). */
static void p1tet_node(int32_t n, uint64_t seed, int32_t x, int32_t y, int32_t z, double X[3])
{
  const int32_t c[3] = {x, y, z};
  double h = 1.0 / (n + 1);
  uint64_t id = ((uint64_t)z * (uint64_t)(n + 2) + (uint64_t)y) * (uint64_t)(n + 2) + (uint64_t)x;
  for (int d = 0; d < 3; d++) {
    int inner = c[d] > 0 && c[d] < n + 1;
    X[d] = h * (c[d] + (inner ? 0.4 * (hash01(seed, 3 * id + (uint64_t)d) - 0.5) : 0.0));
  }
}

/* P1 stiffness of -lap u on the tetrahedron V[0..3]: vol grad l_a . grad l_c. */
static void p1_stiffness(const double V[4][3], double Ke[4][4])
{
  double J[3][3], I[3][3], g[4][3];
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++) J[r][c] = V[c + 1][r] - V[0][r]; /* columns: the edges from V[0] */
  double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
               J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
  I[0][0] = (J[1][1] * J[2][2] - J[1][2] * J[2][1]) / det;
  I[0][1] = (J[0][2] * J[2][1] - J[0][1] * J[2][2]) / det;
  I[0][2] = (J[0][1] * J[1][2] - J[0][2] * J[1][1]) / det;
  I[1][0] = (J[1][2] * J[2][0] - J[1][0] * J[2][2]) / det;
  I[1][1] = (J[0][0] * J[2][2] - J[0][2] * J[2][0]) / det;
  I[1][2] = (J[0][2] * J[1][0] - J[0][0] * J[1][2]) / det;
  I[2][0] = (J[1][0] * J[2][1] - J[1][1] * J[2][0]) / det;
  I[2][1] = (J[0][1] * J[2][0] - J[0][0] * J[2][1]) / det;
  I[2][2] = (J[0][0] * J[1][1] - J[0][1] * J[1][0]) / det;
  for (int d = 0; d < 3; d++) { /* grad l_a: row a - 1 of J^-1; grad l_0 = minus their sum */
    for (int a = 1; a < 4; a++) g[a][d] = I[a - 1][d];
    g[0][d] = -(g[1][d] + g[2][d] + g[3][d]);
  }
  double vol = fabs(det) / 6.0;
  for (int a = 0; a < 4; a++)
    for (int c = a; c < 4; c++) Ke[a][c] = Ke[c][a] = vol * (g[a][0] * g[c][0] + g[a][1] * g[c][1] + g[a][2] * g[c][2]);
}

/* p1tet: P1 finite elements of -lap u on (n + 1)^3 jittered cubes, each
 * cut into the 6 tetrahedra of the path 0 -> e_p -> e_p + e_q -> (1,1,1)
 * (p, q, r a permutation of the axes), n^3 interior nodes (the rows, 15
 * points). Each row sums its cubes' tetrahedra in one fixed global order,
 * so A(i, j) and A(j, i) add the same numbers. */
static ng_status gen_p1tet(int32_t n, uint64_t seed, ng_csr *A, double **b)
{
  static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  int64_t rows = (int64_t)n * n * n, nn = (int64_t)n * n;
  NG_CHECK(rows_alloc(rows, 15, A, b));
  int64_t p = 0;
  for (int64_t r = 0; r < rows; r++) {
    int32_t i = (int32_t)(r % n) + 1, j = (int32_t)((r / n) % n) + 1, l = (int32_t)(r / nn) + 1; /* node coordinates */
    double v[3][3][3] = {{{0}}};
    char on[3][3][3] = {{{0}}};
    for (int32_t cz = l - 1; cz <= l; cz++) /* the cubes with corner (cx, cy, cz) at their low end */
      for (int32_t cy = j - 1; cy <= j; cy++)
        for (int32_t cx = i - 1; cx <= i; cx++)
          for (int t = 0; t < 6; t++) {
            int cor[4] = {0, 1 << perm[t][0], (1 << perm[t][0]) | (1 << perm[t][1]), 7}, me = -1;
            double V[4][3], Ke[4][4];
            for (int a = 0; a < 4; a++) {
              int32_t x = cx + (cor[a] & 1), y = cy + ((cor[a] >> 1) & 1), z = cz + (cor[a] >> 2);
              if (x == i && y == j && z == l) me = a;
              p1tet_node(n, seed, x, y, z, V[a]);
            }
            if (me < 0) continue; /* this tetrahedron does not touch the row's node */
            p1_stiffness(V, Ke);
            for (int a = 0; a < 4; a++) {
              int32_t x = cx + (cor[a] & 1), y = cy + ((cor[a] >> 1) & 1), z = cz + (cor[a] >> 2);
              if (x < 1 || x > n || y < 1 || y > n || z < 1 || z > n) continue; /* Dirichlet: eliminated */
              v[z - l + 1][y - j + 1][x - i + 1] += Ke[me][a];
              on[z - l + 1][y - j + 1][x - i + 1] = 1;
            }
          }
    A->rowptr[r] = p;
    emit27(A, &p, r, n, NULL, v, on);
  }
  A->rowptr[rows] = p;
  A->nnz = p;
  return NG_SUCCESS;
}

int ng_gen_is_cfd(const char *name, size_t len)
{
  static const char *names[] = {"stretch7", "jump2q1", "bubbles7", "spheres7", "jump3q1", "bubbles5", "layers7", "p1tet"};
  for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
    if (strlen(names[k]) == len && strncmp(name, names[k], len) == 0) return 1;
  return 0;
}

/* One optional ":number" after the size into *v (left as is when absent). */
static ng_status parse_param(const char *spec, const char *s, double *v)
{
  if (*s == '\0') return NG_SUCCESS;
  char *end;
  if (*s == ':') {
    *v = strtod(s + 1, &end);
    if (end != s + 1 && *end == '\0' && isfinite(*v)) return NG_SUCCESS;
  }
  return NG_ERROR(NG_ERR_ARGUMENT, "generator spec '%s': expected one number after N, unexpected '%s'", spec, s);
}

ng_status ng_gen_cfd(const char *spec, size_t len, int64_t N, const char *rest, ng_csr *A, double **b)
{
  int two = !strncmp(spec, "jump2q1", 7) || !strncmp(spec, "bubbles5", 8);
  int64_t rows = N > 2000000 ? INT64_MAX : two ? N * N : N * N * N; /* no int64 overflow */
  NG_ASSERT_ARG(rows <= INT32_MAX, "generator spec '%s': %lld^%d is more than %d rows", spec, (long long)N,
                two ? 2 : 3, (int)INT32_MAX);
  if (spec[0] == 's' && spec[1] == 't') { /* stretch7:N[:ratio] */
    double ratio = 1000.0;
    NG_CHECK(parse_param(spec, rest, &ratio));
    NG_ASSERT_ARG(ratio >= 1.0 && ratio <= 1e8, "generator spec '%s': the aspect ratio %g must be in [1, 1e8]", spec,
                  ratio);
    NG_ASSERT_ARG(N >= 2 || ratio == 1.0, "generator spec '%s': stretch7 needs N >= 2 cells to grade", spec);
    NG_CHECK(gen_stretch((int32_t)N, ratio, A, b));
    return NG_SUCCESS;
  }
  double seed = 1;
  NG_CHECK(parse_param(spec, rest, &seed));
  NG_ASSERT_ARG(seed >= 0 && seed <= 9007199254740992.0 && seed == floor(seed),
                "generator spec '%s': expected %.*s:N[:seed] with a whole seed from 0 to 2^53", spec, (int)len,
                spec);
  uint64_t sd = (uint64_t)seed;
  int32_t n = (int32_t)N;
  if (!strncmp(spec, "jump2q1", 7)) NG_CHECK(gen_jump2q1(n, sd, A, b));
  else if (!strncmp(spec, "jump3q1", 7)) NG_CHECK(gen_jump3q1(n, sd, A, b));
  else if (!strncmp(spec, "bubbles7", 8)) NG_CHECK(gen_inclusions(3, n, sd, 20, 0.04, 0.12, 1e-3, 1.0, 0.75, A, b));
  else if (!strncmp(spec, "bubbles5", 8)) NG_CHECK(gen_inclusions(2, n, sd, 20, 0.04, 0.12, 1e-3, 1.0, 0.75, A, b));
  else if (!strncmp(spec, "layers7", 7)) NG_CHECK(gen_layers(n, sd, A, b));
  else if (!strncmp(spec, "p1tet", 5)) NG_CHECK(gen_p1tet(n, sd, A, b));
  else NG_CHECK(gen_inclusions(3, n, sd, 40, 0.04, 0.10, 1.0, 1e6, 2.0, A, b));
  return NG_SUCCESS;
}
