/* core/generate_elast27.c: "elast27", 3D linear elasticity with trilinear
 * hexahedral (Q1) elements: the structural class of seed 003's cant and
 * pwtk, whose rows repeat long column patterns, at any size.
 *
 * Box of (nx-1)(ny-1)(nz-1) unit cubes, isotropic material E = 1, nu = 0.3,
 * three displacement unknowns per node, interleaved: row 3 node + c (c = x,
 * y, z component; node = x + nx (y + ny z)). Element stiffness
 * K_e[3a+i][3b+j] = int lambda dN_a/dx_i dN_b/dx_j + mu dN_a/dx_j dN_b/dx_i
 *                   + mu delta_ij grad N_a . grad N_b,
 * by 2x2x2 Gauss quadrature (exact for Q1 on cubes). Clamped face x = 0
 * (u = 0): those rows become the identity, their columns are eliminated
 * from the other rows and kept as explicit zeros, so every interior row has
 * the full 27 nodes x 3 = 81 entries. Body force: gravity (0, 0, -1) plus a
 * shear load 0.5 x/Lx in y, lumped to the nodes. A is symmetric positive
 * definite (the clamped face removes the rigid motions). */
#include "generate.h"
#include <math.h>

/* Element stiffness of a unit cube, corner a = ax + 2 ay + 4 az. */
static void elast_stiffness(double lambda, double mu, double Ke[24][24])
{
  const double g[2] = {0.5 - 0.5 / sqrt(3.0), 0.5 + 0.5 / sqrt(3.0)};
  memset(Ke, 0, 24 * 24 * sizeof(double));
  for (int q = 0; q < 8; q++) {
    double p[3] = {g[q & 1], g[(q >> 1) & 1], g[q >> 2]}, dN[8][3];
    for (int a = 0; a < 8; a++) {
      int ax[3] = {a & 1, (a >> 1) & 1, a >> 2};
      for (int k = 0; k < 3; k++) {
        double d = 1.0;
        for (int m = 0; m < 3; m++) {
          double f = ax[m] ? p[m] : 1.0 - p[m], df = ax[m] ? 1.0 : -1.0;
          d *= m == k ? df : f;
        }
        dN[a][k] = d;
      }
    }
    for (int a = 0; a < 8; a++)
      for (int b = 0; b < 8; b++) {
        double gg = dN[a][0] * dN[b][0] + dN[a][1] * dN[b][1] + dN[a][2] * dN[b][2];
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++)
            Ke[3 * a + i][3 * b + j] +=
                0.125 * (lambda * (dN[a][i] * dN[b][j]) + mu * (dN[a][j] * dN[b][i]) + (i == j ? mu * gg : 0.0));
      }
  }
}

ng_status ng_gen_elast27(int32_t nx, int32_t ny, int32_t nz, ng_csr *A, double **b)
{
  int64_t nn = (int64_t)nx * ny * nz, nrows = 3 * nn, nnz = 0;
  NG_ASSERT_ARG(nx >= 2 && ny >= 2 && nz >= 2, "elast27: needs at least 2 nodes per dimension (given %dx%dx%d)",
                (int)nx, (int)ny, (int)nz);
  NG_ASSERT_ARG(nrows <= INT32_MAX, "elast27: %lld nodes make %lld rows, more than %d", (long long)nn,
                (long long)nrows, (int)INT32_MAX);
  const double E = 1.0, nu = 0.3, lambda = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
  double Ke[24][24];
  elast_stiffness(lambda, mu, Ke);
  int32_t dim[3] = {nx, ny, nz};
#define W(d, v) (1 + ((v) > 0) + ((v) < dim[d] - 1))
  for (int32_t z = 0; z < nz; z++)
    for (int32_t y = 0; y < ny; y++)
      for (int32_t x = 0; x < nx; x++) nnz += 9 * (int64_t)W(0, x) * W(1, y) * W(2, z);
  NG_CHECK(ng_csr_alloc(A, (int32_t)nrows, (int32_t)nrows, nnz));
  ng_status st = NG_MALLOC(*b, nrows);
  if (st != NG_SUCCESS) {
    ng_csr_free(A);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  /* pattern: neighbour nodes ascending, three components each */
  int64_t p = 0;
  A->rowptr[0] = 0;
  for (int32_t z = 0; z < nz; z++)
    for (int32_t y = 0; y < ny; y++)
      for (int32_t x = 0; x < nx; x++)
        for (int c = 0; c < 3; c++) {
          int64_t node = x + (int64_t)nx * (y + (int64_t)ny * z);
          for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
              for (int dx = -1; dx <= 1; dx++) {
                if (x + dx < 0 || x + dx >= nx || y + dy < 0 || y + dy >= ny || z + dz < 0 || z + dz >= nz) continue;
                int64_t nb = node + dx + (int64_t)nx * (dy + (int64_t)ny * dz);
                for (int j = 0; j < 3; j++) {
                  A->col[p] = (int32_t)(3 * nb + j);
                  A->val[p++] = 0.0;
                }
              }
          A->rowptr[3 * node + c + 1] = p;
        }
  for (int64_t i = 0; i < nrows; i++) (*b)[i] = 0.0;
  /* assembly, element by element */
  for (int32_t ez = 0; ez < nz - 1; ez++)
    for (int32_t ey = 0; ey < ny - 1; ey++)
      for (int32_t ex = 0; ex < nx - 1; ex++)
        for (int a = 0; a < 8; a++) {
          int32_t xa = ex + (a & 1), ya = ey + ((a >> 1) & 1), za = ez + (a >> 2);
          int64_t na = xa + (int64_t)nx * (ya + (int64_t)ny * za);
          int wx = W(0, xa), wy = W(1, ya);
          (*b)[3 * na + 1] += 0.125 * 0.5 * xa / (double)(nx - 1);
          (*b)[3 * na + 2] += -0.125;
          for (int bb = 0; bb < 8; bb++) {
            int dx = (ex + (bb & 1)) - xa, dy = (ey + ((bb >> 1) & 1)) - ya, dz = (ez + (bb >> 2)) - za;
            int64_t idx = ((int64_t)(dz + (za > 0)) * wy + (dy + (ya > 0))) * wx + (dx + (xa > 0));
            for (int i = 0; i < 3; i++)
              for (int j = 0; j < 3; j++) A->val[A->rowptr[3 * na + i] + 3 * idx + j] += Ke[3 * a + i][3 * bb + j];
          }
        }
#undef W
  /* clamped face x = 0: identity rows, eliminated columns kept as zeros */
  for (int64_t r = 0; r < nrows; r++) {
    int clamped_row = (r / 3) % nx == 0;
    for (int64_t q = A->rowptr[r]; q < A->rowptr[r + 1]; q++) {
      int clamped_col = (A->col[q] / 3) % nx == 0;
      if (clamped_row) A->val[q] = A->col[q] == r ? 1.0 : 0.0;
      else if (clamped_col) A->val[q] = 0.0;
    }
    if (clamped_row) (*b)[r] = 0.0;
  }
  return NG_SUCCESS;
}
