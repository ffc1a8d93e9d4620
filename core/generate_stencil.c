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

/* Offset (dx,dy,dz) in -1..1 has index (dz+1)*9 + (dy+1)*3 + (dx+1); offsets
 * whose coefficient is 0 are not stored. */
static ng_status stencil_csr(const double c[27], int neumann, int32_t nx, int32_t ny, int32_t nz, ng_csr *A,
                             double **b)
{
  int64_t n = (int64_t)nx * ny * nz, nxy = (int64_t)nx * ny, nnz = 0;
  *b = NULL;
  /* nnz in closed form: offset d along a dimension of n points has n - |d| rows. */
  for (int k = 0; k < 27; k++)
    if (c[k] != 0.0) {
      int dx = k % 3 - 1, dy = (k / 3) % 3 - 1, dz = k / 9 - 1;
      nnz += (int64_t)(nx - abs(dx)) * (ny - abs(dy)) * (nz - abs(dz)) *
             (nx > abs(dx) && ny > abs(dy) && nz > abs(dz));
    }
  NG_CHECK(ng_csr_alloc(A, (int32_t)n, (int32_t)n, nnz));
  if (NG_MALLOC(*b, n) != NG_SUCCESS) {
    ng_csr_free(A);
    return ng_error_trace(NG_ERR_MEMORY, __FILE__, __LINE__);
  }
  int64_t p = 0, i = 0;
  for (int32_t z = 0; z < nz; z++)
    for (int32_t y = 0; y < ny; y++)
      for (int32_t x = 0; x < nx; x++, i++) {
        double s = 0.0, off = 0.0, su = 0.0;
        int64_t pd = -1;
        A->rowptr[i] = p;
        for (int dz = -1; dz <= 1; dz++) {
          if (z + dz < 0 || z + dz >= nz) continue;
          for (int dy = -1; dy <= 1; dy++) {
            if (y + dy < 0 || y + dy >= ny) continue;
            for (int dx = -1; dx <= 1; dx++) {
              double v = c[(dz + 1) * 9 + (dy + 1) * 3 + dx + 1];
              if (x + dx < 0 || x + dx >= nx || v == 0.0) continue;
              A->col[p] = (int32_t)(i + dz * nxy + dy * nx + dx);
              if (dx || dy || dz) off += fabs(v), su += v * (x + dx);
              else pd = p;
              A->val[p++] = v;
              s += v;
            }
          }
        }
        (*b)[i] = s;
        if (neumann && pd >= 0) { /* the diagonal balances the row; b = A u, u = x index */
          A->val[pd] = off;
          (*b)[i] = off * x + su;
        }
      }
  A->rowptr[n] = p;
  if (p != nnz) { /* the closed form and the loop must agree */
    ng_csr_free(A);
    ng_free(*b);
    *b = NULL;
    return NG_ERROR(NG_ERR_INTERNAL, "stencil generator wrote %lld entries, expected %lld",
                    (long long)p, (long long)nnz);
  }
  return NG_SUCCESS;
}

ng_status ng_gen_lap7(int32_t nx, int32_t ny, int32_t nz, ng_csr *A, double **b)
{
  double c[27] = {0};
  c[13] = 6.0;
  c[4] = c[10] = c[12] = c[14] = c[16] = c[22] = -1.0; /* the six face neighbours */
  NG_CHECK(stencil_csr(c, 0, nx, ny, nz, A, b));
  return NG_SUCCESS;
}

ng_status ng_gen_lap27(int32_t nx, int32_t ny, int32_t nz, ng_csr *A, double **b)
{
  double c[27];
  for (int k = 0; k < 27; k++) c[k] = -1.0;
  c[13] = 26.0;
  NG_CHECK(stencil_csr(c, 0, nx, ny, nz, A, b));
  return NG_SUCCESS;
}

ng_status ng_gen_aniso27(int32_t nx, int32_t ny, int32_t nz, ng_csr *A, double **b)
{
  /* Assemble the 8 unit-cube elements around a node: the centre is corner a
   * of each, and neighbour corner e sits at offset (e - a) per dimension. */
  double Ke[8][8], c[27] = {0};
  ng_gen_q1_stiffness(1.0, 1.0, 100.0, 1.0, Ke);
  for (int a = 0; a < 8; a++)
    for (int e = 0; e < 8; e++) {
      int dx = (e & 1) - (a & 1), dy = ((e >> 1) & 1) - ((a >> 1) & 1), dz = (e >> 2) - (a >> 2);
      c[(dz + 1) * 9 + (dy + 1) * 3 + dx + 1] += Ke[a][e];
    }
  /* offsets d and -d summed the same terms in another order: make them
   * bitwise equal so that A is exactly symmetric */
  for (int k = 0; k < 13; k++) c[k] = c[26 - k] = 0.5 * (c[k] + c[26 - k]);
  NG_CHECK(stencil_csr(c, 0, nx, ny, nz, A, b));
  return NG_SUCCESS;
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
