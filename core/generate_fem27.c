/* core/generate_fem27.c: "fem27", the 3D Poisson problem of seed 000:
 * Galerkin FEM with trilinear hexahedral (Q1) elements on a box of
 * (nx-1)(ny-1)(nz-1) cubic elements of side H (= 1, so the box is
 * [0,nx-1]x[0,ny-1]x[0,nz-1]; another H only scales A by H and b by H^3).
 *
 * Boundary conditions (the seed only says "suitable Dirichlet and Neumann
 * conditions"): u = 0 on the face z = 0, homogeneous Neumann on the other
 * five faces. Source f = 1 + 2 (x/Lx) (y/Ly)^2 (Lx = nx-1, Ly = ny-1),
 * interpolated at the nodes and integrated with the consistent
 * element mass matrix: F_e = M_e f_e. (A uniform f would make u depend on z
 * alone, a 1D problem that Krylov methods solve in about nz iterations
 * whatever the preconditioner; a single cosine mode in x and y does the
 * same with two modes. This polynomial excites every mode.)
 *
 * Pattern: every pair of nodes that share an element (the full 27-point
 * box stencil truncated at the faces, prod(3 n_d - 2) entries), assembled
 * element by element into that fixed pattern. Dirichlet rows become
 * 1 on the diagonal, b = 0; their columns are eliminated from the other
 * rows (u = 0 there, so b is unchanged). The eliminated entries, like the
 * face-neighbour couplings that the isotropic Q1 stencil makes exactly 0,
 * are KEPT as explicit zeros: the pattern stays the regular 27-point one
 * that the seed stores in its 27-diagonal CDS format. The matrix is
 * symmetric positive definite (the Neumann part is anchored by z = 0). */
#include "generate.h"

/* 1D linear element on [0,1]: stiffness and mass. 2x2x2 Gauss quadrature
 * integrates the Q1 products exactly, and the tensor form below is the same
 * integral evaluated in closed form (also exactly, no quadrature rounding). */
static const double k1[2][2] = {{1.0, -1.0}, {-1.0, 1.0}};
static const double m1[2][2] = {{1.0 / 3.0, 1.0 / 6.0}, {1.0 / 6.0, 1.0 / 3.0}};

void ng_gen_q1_stiffness(double kx, double ky, double kz, double h, double Ke[8][8])
{
  for (int a = 0; a < 8; a++)
    for (int c = 0; c < 8; c++) {
      int ax = a & 1, ay = (a >> 1) & 1, az = a >> 2;
      int cx = c & 1, cy = (c >> 1) & 1, cz = c >> 2;
      /* int grad N_a . K grad N_c over the cube: d/dx falls on the x factor */
      double sx = kx * k1[ax][cx] * m1[ay][cy] * m1[az][cz];
      double sy = ky * m1[ax][cx] * k1[ay][cy] * m1[az][cz];
      double sz = kz * m1[ax][cx] * m1[ay][cy] * k1[az][cz];
      Ke[a][c] = h * ((sx + sy) + sz); /* 3D stiffness scales as h^(3-2) */
    }
}

/* Position of neighbour offset d (-1..1) of coordinate x in a row's sorted
 * column list, per dimension: the row holds offsets lo..hi with lo = -(x>0),
 * so offset d is entry d + (x>0) of w = 1 + (x>0) + (x<n-1) in that dimension. */
typedef struct {
  int32_t n;
  int8_t *lo, *w; /* lo[x] = (x > 0), w[x] = row width in this dimension */
} dim_info;

static ng_status dim_init(dim_info *d, int32_t n)
{
  d->n = n;
  d->lo = d->w = NULL;
  /* on failure the caller's dim_free releases what was allocated */
  NG_CHECK(NG_MALLOC(d->lo, n));
  NG_CHECK(NG_MALLOC(d->w, n));
  for (int32_t x = 0; x < n; x++) {
    d->lo[x] = (int8_t)(x > 0);
    d->w[x] = (int8_t)(1 + (x > 0) + (x < n - 1));
  }
  return NG_SUCCESS;
}

static void dim_free(dim_info *d)
{
  ng_free(d->lo);
  ng_free(d->w);
}

/* rowptr and sorted columns of the 27-point pattern truncated at the box. */
static void build_pattern(const dim_info *X, const dim_info *Y, const dim_info *Z, ng_csr *A)
{
  int32_t nx = X->n, ny = Y->n, nz = Z->n;
  int64_t nxy = (int64_t)nx * ny, p = 0, i = 0;
  for (int32_t z = 0; z < nz; z++)
    for (int32_t y = 0; y < ny; y++)
      for (int32_t x = 0; x < nx; x++, i++) {
        A->rowptr[i] = p;
        for (int dz = -Z->lo[z]; dz < Z->w[z] - Z->lo[z]; dz++)
          for (int dy = -Y->lo[y]; dy < Y->w[y] - Y->lo[y]; dy++)
            for (int dx = -X->lo[x]; dx < X->w[x] - X->lo[x]; dx++)
              A->col[p++] = (int32_t)(i + dz * nxy + dy * nx + dx);
      }
  A->rowptr[i] = p;
}

ng_status ng_gen_fem27(int32_t nx, int32_t ny, int32_t nz, ng_csr *A, double **b)
{
  const double H = 1.0;
  ng_status st = NG_SUCCESS;
  dim_info X = {0}, Y = {0}, Z = {0};
  *b = NULL;
  memset(A, 0, sizeof(*A));
  NG_ASSERT_ARG(nx >= 2 && ny >= 2 && nz >= 2,
                "fem27 needs at least 2 nodes per dimension (one element), got %dx%dx%d", (int)nx,
                (int)ny, (int)nz);
  int64_t n = (int64_t)nx * ny * nz, nxy = (int64_t)nx * ny;
  int64_t nnz = (int64_t)(3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2);
  NG_CHECK_GOTO(st, dim_init(&X, nx), fail);
  NG_CHECK_GOTO(st, dim_init(&Y, ny), fail);
  NG_CHECK_GOTO(st, dim_init(&Z, nz), fail);
  NG_CHECK_GOTO(st, ng_csr_alloc(A, (int32_t)n, (int32_t)n, nnz), fail);
  NG_CHECK_GOTO(st, NG_CALLOC(*b, n), fail);
  build_pattern(&X, &Y, &Z, A);
  memset(A->val, 0, (size_t)nnz * sizeof(double));

  double Ke[8][8], Me[8][8], Fe[8], fe[8];
  ng_gen_q1_stiffness(1.0, 1.0, 1.0, H, Ke);
  for (int a = 0; a < 8; a++) /* element mass matrix (tensor product, exact) */
    for (int c = 0; c < 8; c++)
      Me[a][c] = H * H * H * m1[a & 1][c & 1] * m1[(a >> 1) & 1][(c >> 1) & 1] * m1[a >> 2][c >> 2];
  const double sx = 1.0 / (double)(nx - 1), sy = 1.0 / (double)(ny - 1);

  /* Element by element: corner a of element (ex,ey,ez) is node (ex+ax, ...);
   * entry (a, c) goes to the row of corner a at its offset c - a. */
  for (int32_t ez = 0; ez < nz - 1; ez++)
    for (int32_t ey = 0; ey < ny - 1; ey++)
      for (int32_t ex = 0; ex < nx - 1; ex++) {
        for (int c = 0; c < 8; c++) { /* source at the corners, then F_e = M_e f_e */
          double xs = sx * (ex + (c & 1)), ys = sy * (ey + ((c >> 1) & 1));
          fe[c] = 1.0 + 2.0 * xs * ys * ys;
        }
        for (int a = 0; a < 8; a++) {
          Fe[a] = 0.0;
          for (int c = 0; c < 8; c++) Fe[a] += Me[a][c] * fe[c];
        }
        for (int a = 0; a < 8; a++) {
          int ax = a & 1, ay = (a >> 1) & 1, az = a >> 2;
          int32_t x = ex + ax, y = ey + ay, z = ez + az;
          int64_t row = z * nxy + (int64_t)y * nx + x;
          double *v = A->val + A->rowptr[row];
          int wx = X.w[x], wy = Y.w[y];
          for (int c = 0; c < 8; c++) {
            int dx = (c & 1) - ax, dy = ((c >> 1) & 1) - ay, dz = (c >> 2) - az;
            v[((dz + Z.lo[z]) * wy + (dy + Y.lo[y])) * wx + (dx + X.lo[x])] += Ke[a][c];
          }
          (*b)[row] += Fe[a];
        }
      }

  /* Dirichlet u = 0 on z = 0: the first nx*ny rows/columns. */
  for (int64_t i = 0; i < n; i++) {
    int dir_row = i < nxy;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      if (dir_row) A->val[p] = A->col[p] == i ? 1.0 : 0.0;
      else if (A->col[p] < nxy) A->val[p] = 0.0;
    }
    if (dir_row) (*b)[i] = 0.0;
  }
  dim_free(&X);
  dim_free(&Y);
  dim_free(&Z);
  return NG_SUCCESS;
fail:
  dim_free(&X);
  dim_free(&Y);
  dim_free(&Z);
  ng_csr_free(A);
  ng_free(*b);
  *b = NULL;
  return st;
}
