/* test/test_generate.c: the problem generators (core/generate*.c): exact
 * nnz from closed formulas or brute-force counts, symmetry, positive
 * diagonals, row sums, b = A*ones, values against independent derivations
 * (tensor stencil, 2x2x2 Gauss quadrature), positive definiteness by dense
 * Cholesky on tiny cases, determinism, and rejected specs. */
#include "testutil.h"
#include "../core/core.h"
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static void gen(const char *spec, ng_csr *A, double **b)
{
  ng_status s = ng_generate_csr(spec, A, b);
  ck_assert_msg(s == NG_SUCCESS, "%s -> %s: %s", spec, ng_status_name(s), ng_last_error());
  NG_ASSERT_OK(ng_csr_validate(A));
  ck_assert_int_eq(A->nrows, A->ncols);
}

/* Value of A(i,j) (0 when not stored), by scanning row i. */
static double entry(const ng_csr *A, int32_t i, int32_t j)
{
  double v = 0.0;
  for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
    if (A->col[p] == j) v += A->val[p];
  return v;
}

/* Symmetric, positive diagonal, sorted unique columns, |A*ones - b| small. */
static void common_checks(const char *spec, const ng_csr *A, const double *b, int b_is_rowsum, double tol)
{
  ck_assert_msg(ng_csr_is_symmetric(A, 0.0), "%s is not exactly symmetric", spec);
  double *d = malloc(sizeof(double) * (size_t)(A->nrows + 1)), *ones = malloc(sizeof(double) * (size_t)(A->nrows + 1)),
         *y = malloc(sizeof(double) * (size_t)(A->nrows + 1));
  NG_ASSERT_OK(ng_csr_diagonal(A, d, 1));
  for (int32_t i = 0; i < A->nrows; i++) {
    ck_assert_msg(d[i] > 0.0, "%s: row %d diagonal %g", spec, (int)i, d[i]);
    for (int64_t p = A->rowptr[i] + 1; p < A->rowptr[i + 1]; p++)
      ck_assert_msg(A->col[p - 1] < A->col[p], "%s: row %d columns not sorted/unique", spec, (int)i);
    ones[i] = 1.0;
  }
  if (b_is_rowsum) {
    ng_csr_spmv(A, 1.0, ones, 0.0, y);
    for (int32_t i = 0; i < A->nrows; i++)
      ck_assert_msg(fabs(y[i] - b[i]) <= tol * (fabs(d[i]) + 1.0), "%s: (A*ones)[%d] = %.17g but b = %.17g",
                    spec, (int)i, y[i], b[i]);
  }
  free(d); free(ones); free(y);
}

/* Dense Cholesky: 1 when A is positive definite (tiny matrices only). */
static int dense_cholesky_ok(const ng_csr *A)
{
  int32_t n = A->nrows;
  double *L = calloc((size_t)n * n, sizeof(double));
  for (int32_t i = 0; i < n; i++)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) L[(size_t)i * n + A->col[p]] += A->val[p];
  int ok = 1;
  for (int32_t j = 0; j < n && ok; j++) {
    double s = L[(size_t)j * n + j];
    for (int32_t k = 0; k < j; k++) s -= L[(size_t)j * n + k] * L[(size_t)j * n + k];
    if (!(s > 1e-12 * fabs(L[(size_t)j * n + j]))) { ok = 0; break; }
    double ljj = sqrt(s);
    L[(size_t)j * n + j] = ljj;
    for (int32_t i = j + 1; i < n; i++) {
      double t = L[(size_t)i * n + j];
      for (int32_t k = 0; k < j; k++) t -= L[(size_t)i * n + k] * L[(size_t)j * n + k];
      L[(size_t)i * n + j] = t / ljj;
    }
  }
  free(L);
  return ok;
}

static const int sizes[][3] = {{1, 1, 1}, {3, 4, 5}, {2, 2, 2}, {5, 5, 5}, {7, 1, 3}, {1, 6, 2}, {4, 3, 2}};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

START_TEST(lap7_exact)
{
  for (int t = 0; t < NSIZES; t++) {
    int64_t nx = sizes[t][0], ny = sizes[t][1], nz = sizes[t][2], n = nx * ny * nz;
    char spec[64];
    ng_csr A;
    double *b;
    snprintf(spec, sizeof(spec), "lap7:%dx%dx%d", (int)nx, (int)ny, (int)nz);
    gen(spec, &A, &b);
    ck_assert_int_eq(A.nrows, n);
    ck_assert_int_eq(A.nnz, n + 2 * ((nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1)));
    common_checks(spec, &A, b, 1, 0.0);
    for (int32_t i = 0; i < A.nrows; i++) {
      ck_assert_double_eq(entry(&A, i, i), 6.0);
      for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; p++)
        if (A.col[p] != i) ck_assert_double_eq(A.val[p], -1.0);
    }
    ng_csr_free(&A);
    ng_free(b);
  }
  ng_csr A;
  double *b;
  gen("lap7:4", &A, &b); /* cubic shorthand */
  ck_assert_int_eq(A.nrows, 64);
  ck_assert_int_eq(A.nnz, 64 + 2 * 3 * 48);
  ck_assert_int_eq(dense_cholesky_ok(&A), 1);
  ng_csr_free(&A);
  ng_free(b);
}
END_TEST

START_TEST(lap27_exact)
{
  for (int t = 0; t < NSIZES; t++) {
    int64_t nx = sizes[t][0], ny = sizes[t][1], nz = sizes[t][2], n = nx * ny * nz;
    char spec[64];
    ng_csr A;
    double *b;
    snprintf(spec, sizeof(spec), "lap27:%dx%dx%d", (int)nx, (int)ny, (int)nz);
    gen(spec, &A, &b);
    ck_assert_int_eq(A.nrows, n);
    ck_assert_int_eq(A.nnz, (3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2));
    common_checks(spec, &A, b, 1, 0.0);
    int32_t i = 0;
    for (int z = 0; z < nz; z++)
      for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++, i++) {
          int64_t len = A.rowptr[i + 1] - A.rowptr[i];
          int64_t want = (int64_t)(1 + (x > 0) + (x < nx - 1)) * (1 + (y > 0) + (y < ny - 1)) *
                         (1 + (z > 0) + (z < nz - 1));
          ck_assert_int_eq(len, want);
          ck_assert_double_eq(b[i], 27.0 - (double)want); /* HPCG's b = 26 - #neighbours */
          if (len == 27) ck_assert_double_eq(b[i], 0.0);  /* interior row sum 0 */
        }
    ng_csr_free(&A);
    ng_free(b);
  }
  ng_csr A;
  double *b;
  gen("lap27:3x4x5", &A, &b);
  ck_assert_int_eq(dense_cholesky_ok(&A), 1);
  ng_csr_free(&A);
  ng_free(b);
}
END_TEST

/* aniso27 against the tensor form of the assembled Q1 stencil,
 * sum_d K_d S_d (x) M (x) M with S = [-1 2 -1], M = [1 4 1]/6. */
START_TEST(aniso27_values)
{
  const double S[3] = {-1.0, 2.0, -1.0}, M[3] = {1.0 / 6, 4.0 / 6, 1.0 / 6}, K[3] = {1.0, 1.0, 100.0};
  ng_csr A;
  double *b;
  gen("aniso27:5x4x6", &A, &b);
  ck_assert_int_eq(A.nnz, 13 * 10 * 16);
  common_checks("aniso27:5x4x6", &A, b, 1, 1e-13);
  int32_t nx = 5, ny = 4, c = (3 * ny + 2) * nx + 2; /* interior node (2,2,3) */
  double sum = 0.0;
  for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        double want = K[0] * S[dx + 1] * M[dy + 1] * M[dz + 1] + K[1] * M[dx + 1] * S[dy + 1] * M[dz + 1] +
                      K[2] * M[dx + 1] * M[dy + 1] * S[dz + 1];
        double got = entry(&A, c, c + dz * nx * ny + dy * nx + dx);
        ck_assert_msg(fabs(got - want) <= 1e-13 * 100, "aniso27 offset (%d,%d,%d): %g vs %g", dx, dy, dz, got,
                      want);
        sum += got;
      }
  ck_assert_double_le(fabs(sum), 1e-12);
  ck_assert_double_le(fabs(b[c]), 1e-12);
  /* z coupling 100x stronger: the z face neighbour dominates */
  ck_assert_double_lt(entry(&A, c, c + nx * ny), -40.0);
  ck_assert_int_eq(dense_cholesky_ok(&A), 1);
  ng_csr_free(&A);
  ng_free(b);
  gen("aniso27:1", &A, &b);
  ck_assert_int_eq(A.nnz, 1);
  ng_csr_free(&A);
  ng_free(b);
}
END_TEST

/* Q1 element mass matrix of the unit cube by 2x2x2 Gauss quadrature (exact for it). */
static void gauss_q1_mass(double Me[8][8])
{
  const double g[2] = {0.5 - 0.5 / sqrt(3.0), 0.5 + 0.5 / sqrt(3.0)};
  memset(Me, 0, 64 * sizeof(double));
  for (int q = 0; q < 8; q++) {
    double p[3] = {g[q & 1], g[(q >> 1) & 1], g[q >> 2]}, phi[8];
    for (int a = 0; a < 8; a++) {
      phi[a] = 1.0;
      for (int d = 0; d < 3; d++) phi[a] *= ((a >> d) & 1) ? p[d] : 1.0 - p[d];
    }
    for (int a = 0; a < 8; a++)
      for (int e = 0; e < 8; e++) Me[a][e] += 0.125 * phi[a] * phi[e];
  }
}

/* Q1 element stiffness of the unit cube by 2x2x2 Gauss quadrature. */
static void gauss_q1(double Ke[8][8])
{
  const double g[2] = {0.5 - 0.5 / sqrt(3.0), 0.5 + 0.5 / sqrt(3.0)};
  memset(Ke, 0, 64 * sizeof(double));
  for (int q = 0; q < 8; q++) {
    double p[3] = {g[q & 1], g[(q >> 1) & 1], g[q >> 2]}, grad[8][3];
    for (int a = 0; a < 8; a++) {
      int c[3] = {a & 1, (a >> 1) & 1, a >> 2};
      for (int d = 0; d < 3; d++) {
        double v = 1.0;
        for (int e = 0; e < 3; e++)
          v *= e == d ? (c[e] ? 1.0 : -1.0) : (c[e] ? p[e] : 1.0 - p[e]);
        grad[a][d] = v;
      }
    }
    for (int a = 0; a < 8; a++)
      for (int e = 0; e < 8; e++)
        Ke[a][e] += 0.125 * (grad[a][0] * grad[e][0] + grad[a][1] * grad[e][1] + grad[a][2] * grad[e][2]);
  }
}

START_TEST(fem27_pattern_and_values)
{
  static const int fs[][3] = {{2, 2, 2}, {3, 4, 5}, {4, 3, 2}, {2, 5, 3}, {5, 5, 5}};
  double Kg[8][8];
  gauss_q1(Kg);
  for (int t = 0; t < 5; t++) {
    int nx = fs[t][0], ny = fs[t][1], nz = fs[t][2], n = nx * ny * nz, nxy = nx * ny;
    char spec[64];
    ng_csr A;
    double *b;
    snprintf(spec, sizeof(spec), "fem27:%dx%dx%d", nx, ny, nz);
    gen(spec, &A, &b);
    ck_assert_int_eq(A.nrows, n);
    /* brute force: ordered node pairs that are corners of a common element */
    int64_t pairs = 0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        int xi = i % nx, yi = (i / nx) % ny, zi = i / nxy, xj = j % nx, yj = (j / nx) % ny, zj = j / nxy;
        int share = 0;
        for (int ez = 0; ez < nz - 1 && !share; ez++)
          for (int ey = 0; ey < ny - 1 && !share; ey++)
            for (int ex = 0; ex < nx - 1 && !share; ex++)
              share = xi >= ex && xi <= ex + 1 && yi >= ey && yi <= ey + 1 && zi >= ez && zi <= ez + 1 &&
                      xj >= ex && xj <= ex + 1 && yj >= ey && yj <= ey + 1 && zj >= ez && zj <= ez + 1;
        if (share) {
          pairs++;
          ck_assert_msg(A.val != NULL && A.rowptr[i + 1] > A.rowptr[i], "%s: row %d empty", spec, i);
          int found = 0;
          for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; p++) found |= A.col[p] == j;
          ck_assert_msg(found, "%s: pair (%d,%d) missing", spec, i, j);
        }
      }
    ck_assert_int_eq(A.nnz, pairs);
    common_checks(spec, &A, b, 0, 0.0);
    double *Ae = calloc((size_t)n * n, sizeof(double));
    /* independent assembly with the Gauss element matrix, then the BCs */
    for (int ez = 0; ez < nz - 1; ez++)
      for (int ey = 0; ey < ny - 1; ey++)
        for (int ex = 0; ex < nx - 1; ex++)
          for (int a = 0; a < 8; a++)
            for (int e = 0; e < 8; e++) {
              int ia = (ez + (a >> 2)) * nxy + (ey + ((a >> 1) & 1)) * nx + ex + (a & 1);
              int ie = (ez + (e >> 2)) * nxy + (ey + ((e >> 1) & 1)) * nx + ex + (e & 1);
              Ae[(size_t)ia * n + ie] += Kg[a][e];
            }
    /* independent load: Gauss mass matrix times f = 1 + 2 (x/Lx)(y/Ly)^2 at the corners */
    double Mg[8][8], *be = calloc((size_t)n, sizeof(double));
    gauss_q1_mass(Mg);
    for (int ez = 0; ez < nz - 1; ez++)
      for (int ey = 0; ey < ny - 1; ey++)
        for (int ex = 0; ex < nx - 1; ex++)
          for (int a = 0; a < 8; a++)
            for (int e = 0; e < 8; e++) {
              int ia = (ez + (a >> 2)) * nxy + (ey + ((a >> 1) & 1)) * nx + ex + (a & 1);
              double xe = ex + (e & 1), ye = ey + ((e >> 1) & 1);
              double xs = xe / (nx - 1), ys = ye / (ny - 1);
              be[ia] += Mg[a][e] * (1.0 + 2.0 * xs * ys * ys);
            }
    for (int i = 0; i < n; i++) {
      int x = i % nx, y = (i / nx) % ny, z = i / nxy;
      int nel = ((x > 0) + (x < nx - 1)) * ((y > 0) + (y < ny - 1)) * ((z > 0) + (z < nz - 1));
      double rowsum = 0.0;
      for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; p++) {
        int j = A.col[p];
        double want = z == 0 ? (j == i ? 1.0 : 0.0) : j < nxy ? 0.0 : Ae[(size_t)i * n + j];
        ck_assert_msg(fabs(A.val[p] - want) <= 1e-14, "%s: A(%d,%d) = %.17g, Gauss gives %.17g", spec, i, j,
                      A.val[p], want);
        rowsum += A.val[p];
      }
      if (z >= 2) ck_assert_msg(fabs(rowsum) <= 1e-14, "%s: row %d sums to %g", spec, i, rowsum);
      ck_assert_msg(fabs(b[i] - (z == 0 ? 0.0 : be[i])) <= 1e-14, "%s: b[%d] = %.17g, Gauss gives %.17g", spec,
                    i, b[i], z == 0 ? 0.0 : be[i]);
      (void)nel;
    }
    free(be);
    free(Ae);
    ck_assert_int_eq(dense_cholesky_ok(&A), 1);
    ng_csr_free(&A);
    ng_free(b);
  }
}
END_TEST

START_TEST(mps_irregular_spd)
{
  int widths[] = {3, 4, 6};
  for (int t = 0; t < 3; t++) {
    char spec[32];
    ng_csr A, B;
    double *b, *b2;
    snprintf(spec, sizeof(spec), "mps:%d", widths[t]);
    gen(spec, &A, &b);
    ck_assert_int_gt(A.nrows, 0);
    common_checks(spec, &A, b, 0, 0.0);
    int64_t minlen = INT64_MAX, maxlen = 0;
    int strict = 0;
    for (int32_t i = 0; i < A.nrows; i++) {
      int64_t len = A.rowptr[i + 1] - A.rowptr[i];
      if (len < minlen) minlen = len;
      if (len > maxlen) maxlen = len;
      double d = entry(&A, i, i), off = 0.0;
      for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; p++)
        if (A.col[p] != i) {
          ck_assert_double_lt(A.val[p], 0.0);
          off += -A.val[p];
        }
      ck_assert_msg(d >= off * (1.0 - 1e-14), "%s: row %d not diagonally dominant", spec, (int)i);
      strict += d > off * (1.0 + 1e-12);
      ck_assert_double_eq(b[i], 1.0);
    }
    ck_assert_int_lt(minlen, maxlen);
    ck_assert_int_gt(strict, 0);
    ck_assert_int_lt(strict, A.nrows);
    if (A.nrows <= 1500) ck_assert_msg(dense_cholesky_ok(&A), "%s not positive definite", spec);
    gen(spec, &B, &b2); /* deterministic: same bytes again */
    ck_assert_int_eq(A.nnz, B.nnz);
    ck_assert_int_eq(memcmp(A.rowptr, B.rowptr, sizeof(int64_t) * ((size_t)A.nrows + 1)), 0);
    ck_assert_int_eq(memcmp(A.col, B.col, sizeof(int32_t) * (size_t)A.nnz), 0);
    ck_assert_int_eq(memcmp(A.val, B.val, sizeof(double) * (size_t)A.nnz), 0);
    printf("%s: %d unknowns, %lld nnz, rows %lld..%lld\n", spec, (int)A.nrows, (long long)A.nnz,
           (long long)minlen, (long long)maxlen);
    ng_csr_free(&A);
    ng_csr_free(&B);
    ng_free(b);
    ng_free(b2);
  }
}
END_TEST

/* lap7 / lap27 ":neumann": the same pattern and off-diagonals as the
 * Dirichlet stencil, rows summing to exactly zero (diagonal = sum of the
 * off-diagonal magnitudes), symmetric, b = A u with u = the x index (so
 * b sums to zero), singular: the dense Cholesky fails. */
START_TEST(neumann_specs)
{
  static const char *specs[][2] = {{"lap7:5:neumann", "lap7:5"}, {"lap27:4x3x5:neumann", "lap27:4x3x5"}};
  for (int k = 0; k < 2; k++) {
    ng_csr A, D;
    double *b, *bd;
    gen(specs[k][0], &A, &b);
    gen(specs[k][1], &D, &bd);
    ck_assert_int_eq(A.nnz, D.nnz);
    ck_assert(ng_csr_is_symmetric(&A, 0.0));
    double bsum = 0;
    for (int32_t i = 0; i < A.nrows; i++) {
      double rs = 0, off = 0, bu = 0;
      for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; p++) {
        ck_assert_int_eq(A.col[p], D.col[p]);
        if (A.col[p] != i) {
          ck_assert_double_eq(A.val[p], D.val[p]);
          off -= A.val[p];
        }
        rs += A.val[p];
      }
      ck_assert_double_eq(rs, 0.0);
      ck_assert_double_eq(entry(&A, i, i), off);
      for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; p++) bu += A.val[p] * (A.col[p] % (k ? 4 : 5));
      ck_assert_double_eq_tol(b[i], bu, 1e-12);
      bsum += b[i];
    }
    ck_assert_double_eq_tol(bsum, 0.0, 1e-10);
    ck_assert(!dense_cholesky_ok(&A));
    ng_csr_free(&A);
    ng_csr_free(&D);
    ng_free(b);
    ng_free(bd);
  }
}
END_TEST

START_TEST(bad_specs_rejected)
{
  static const char *bad[] = {"",           "lap7",          "lap7:",         "lap7:0",         "lap7:-3",
                              "lap7:abc",   "lap7:3x4",      "lap7:3x4x5x6",  "lap7:3x",        "lap7: 3",
                              "lap7:3 ",    "lap7:+3",       "lap7:3.5",      "foo:3",          "LAP7:3",
                              ":3",         "lap7x:3",       "lap:3",         "lap7:2000x2000x2000",
                              "lap27:99999999999",           "aniso27:1291",  "fem27:1",        "fem27:1x5x5",
                              "mps:2x2x2",  "mps:0",         "mps:100000",    "fem27:0x3x3",    "lap7:3x0x3",
                              "het7:1291",  "het7:4:x",      "het7:4:1.5",    "het7:4:1:2",     "het5:4x4",
                              "rotaniso:4:0", "rotaniso:4:2", "rotaniso:4:0.1:x", "rotaniso:4:0.1:30:1",
                              "rotaniso3:2000", "het5:50000",  "het7:7:4.1e107", "het5:4:9007199254740994",
                              "lap7:3:", "lap7:3:dirichlet", "lap7:3:neumannx", "lap7:3x4:neumann",
                              "aniso27:3:neumann", "fem27:3:neumann", "mps:10:neumann", "lap27:3:neumann:1",
                              "stretch7:1:10", "stretch7:8:0.5", "stretch7:4:2:3", "stretch7:4:x", "jump2q1:4:x",
                              "jump2q1:4:1.5", "bubbles7:4:-1", "spheres7:2000", "jump2q1:50000", "spheres7:4x4",
                              "jump3q1:2000", "bubbles5:4:x", "layers7:4:0.5", "jump3q1:3x3"};
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
    ng_csr A;
    double *b = (double *)&A; /* must come back NULL */
    ng_error_clear();
    ng_status s = ng_generate_csr(bad[k], &A, &b);
    ck_assert_msg(s == NG_ERR_ARGUMENT, "'%s' gave %s", bad[k], ng_status_name(s));
    ck_assert_msg(strlen(ng_last_error()) > 0, "'%s': no message", bad[k]);
    const char *colon = strchr(bad[k], ':');
    if (colon && colon != bad[k]) { /* the message names the problem */
      char name[32];
      snprintf(name, sizeof(name), "%.*s", (int)(colon - bad[k]), bad[k]);
      ck_assert_msg(strstr(ng_last_error(), name), "'%s': message '%s' does not name it", bad[k],
                    ng_last_error());
    }
    ck_assert_ptr_null(b);
    ck_assert_ptr_null(A.rowptr);
  }
  ck_assert_int_eq(ng_generate_csr(NULL, NULL, NULL), NG_ERR_ARGUMENT);
}
END_TEST

/* het7 / het5: sizes, symmetric M-matrices with a positive diagonal and
 * nonnegative row sums (positive at the Dirichlet boundary), the 1e6 layer
 * contrast, harmonic face coefficients, b = 1, deterministic in the seed. */
START_TEST(het_problems)
{
  const char *specs[] = {"het7:16", "het5:24", "het7:8:7"};
  int32_t rows[] = {16 * 16 * 16, 24 * 24, 512};
  for (int c = 0; c < 3; c++) {
    ng_csr A;
    double *b;
    gen(specs[c], &A, &b);
    ck_assert_int_eq(A.nrows, rows[c]);
    common_checks(specs[c], &A, b, 0, 0.0);
    double kmin = INFINITY, kmax = 0;
    for (int32_t i = 0; i < A.nrows; i++) {
      double rs = 0, d = entry(&A, i, i);
      ck_assert_double_eq(b[i], 1.0);
      for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; p++) {
        rs += A.val[p];
        if (A.col[p] != i) {
          ck_assert_msg(A.val[p] < 0, "%s: positive coupling in row %d", specs[c], (int)i);
          if (-A.val[p] < kmin) kmin = -A.val[p];
          if (-A.val[p] > kmax) kmax = -A.val[p];
        }
      }
      ck_assert_msg(rs >= -1e-9 * d, "%s: row %d sum %g", specs[c], (int)i, rs);
    }
    /* faces inside the k = 1 layers: harmonic means of factors in [0.5, 2];
     * inside the 1e6 layers 1e6 times that */
    ck_assert_msg(kmin >= 0.5 && kmin < 2.0, "%s: smallest coupling %g", specs[c], kmin);
    ck_assert_msg(kmax > 0.5e6 && kmax <= 2e6, "%s: largest coupling %g", specs[c], kmax);
    if (c < 2) ck_assert_msg(A.nrows > 1000 || dense_cholesky_ok(&A), "%s not SPD", specs[c]);
    ng_csr_free(&A);
    ng_free(b);
  }
  /* the seed changes the values, not the pattern; the same seed repeats them */
  ng_csr A1, A2, A3;
  double *b1, *b2, *b3;
  gen("het7:6", &A1, &b1);
  gen("het7:6:1", &A2, &b2);
  gen("het7:6:2", &A3, &b3);
  ck_assert_int_eq(A1.nnz, A3.nnz);
  ck_assert_int_eq(A1.nnz, 6 * 6 * 6 * 7 - 6 * 6 * 6);
  ck_assert(memcmp(A1.val, A2.val, sizeof(double) * (size_t)A1.nnz) == 0);
  ck_assert(memcmp(A1.val, A3.val, sizeof(double) * (size_t)A1.nnz) != 0);
  /* a face between cells 0 and 1 (same layer) is their harmonic mean: check
   * it against the diagonal of a corner cell (3 Dirichlet faces at 2 k) */
  ng_csr_free(&A1); ng_csr_free(&A2); ng_csr_free(&A3);
  ng_free(b1); ng_free(b2); ng_free(b3);
}
END_TEST

/* rotaniso: 9-point (2D) / 11-point (3D) stencil values from K = R diag(1, eps) R^T,
 * zero interior row sums, positive couplings on one diagonal, SPD. */
START_TEST(rotaniso_problems)
{
  ng_csr A;
  double *b;
  gen("rotaniso:10", &A, &b);
  ck_assert_int_eq(A.nrows, 100);
  ck_assert_int_eq(A.nnz, 100 + 2 * (2 * 9 * 10) + 2 * (2 * 9 * 9));
  common_checks("rotaniso:10", &A, b, 0, 0.0);
  ck_assert(dense_cholesky_ok(&A));
  int32_t i = 5 * 10 + 5; /* interior */
  double k11 = 0.5 * (1 + 1e-2), k12 = 0.5 * (1 - 1e-2);
  ck_assert(fabs(entry(&A, i, i) - 4 * k11) < 1e-14);
  ck_assert(fabs(entry(&A, i, i + 1) + k11) < 1e-14);
  ck_assert(fabs(entry(&A, i, i + 10) + k11) < 1e-14);
  ck_assert(fabs(entry(&A, i, i + 11) + 0.5 * k12) < 1e-14); /* (1, 1): along the strong direction */
  ck_assert(fabs(entry(&A, i, i + 9) - 0.5 * k12) < 1e-14);  /* (-1, 1): positive */
  double rs = 0;
  for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; p++) rs += A.val[p];
  ck_assert(fabs(rs) < 1e-14);
  ng_csr_free(&A);
  ng_free(b);
  /* angle 0, eps 1: the 5-point Laplacian */
  gen("rotaniso:5:1:0", &A, &b);
  ck_assert_int_eq(A.nnz, 25 + 4 * 20);
  ck_assert(fabs(entry(&A, 12, 12) - 4) < 1e-15 && fabs(entry(&A, 12, 13) + 1) < 1e-15);
  ng_csr_free(&A);
  ng_free(b);
  gen("rotaniso3:6:0.1:30", &A, &b);
  ck_assert_int_eq(A.nrows, 216);
  common_checks("rotaniso3:6:0.1:30", &A, b, 0, 0.0);
  ck_assert(dense_cholesky_ok(&A));
  ck_assert(fabs(entry(&A, 0, 36) + 0.1) < 1e-15);
  ng_csr_free(&A);
  ng_free(b);
}
END_TEST

/* The CFD classes of issue 31 (generate_cfd.c): sizes, bitwise symmetric,
 * positive definite (dense Cholesky on small cases), b = 1, the contrasts
 * they are made for, deterministic in the seed. */
static void coupling_range(const ng_csr *A, double *lo, double *hi)
{
  *lo = INFINITY, *hi = 0;
  for (int32_t i = 0; i < A->nrows; i++)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      if (A->col[p] != i && A->val[p] != 0.0) {
        *lo = fmin(*lo, fabs(A->val[p]));
        *hi = fmax(*hi, fabs(A->val[p]));
      }
}

START_TEST(cfd_problems)
{
  const char *specs[] = {"stretch7:6", "stretch7:6:10", "jump2q1:14", "bubbles7:8", "spheres7:8", "stretch7:24",
                         "jump2q1:40", "bubbles7:16", "spheres7:16"};
  const int32_t rows[] = {216, 216, 196, 512, 512, 13824, 1600, 4096, 4096};
  for (int c = 0; c < 9; c++) {
    ng_csr A;
    double *b, lo, hi;
    gen(specs[c], &A, &b);
    ck_assert_int_eq(A.nrows, rows[c]);
    common_checks(specs[c], &A, b, 0, 0.0);
    for (int32_t i = 0; i < A.nrows; i++) ck_assert_double_eq(b[i], 1.0);
    if (c < 5) ck_assert_msg(dense_cholesky_ok(&A), "%s is not positive definite", specs[c]);
    coupling_range(&A, &lo, &hi);
    printf("%s: couplings %.3g .. %.3g\n", specs[c], lo, hi);
    if (c == 5) /* at the wall: z couplings (1/N)^2 / h_0 against x couplings h_0: ratio^2 = 1e6 */
      ck_assert_msg(hi / lo > 0.5e6 && hi / lo < 2e6, "%s: coupling ratio %g", specs[c], hi / lo);
    if (c == 1) ck_assert_msg(hi / lo > 50 && hi / lo < 200, "%s: coupling ratio %g", specs[c], hi / lo);
    if (c == 6) ck_assert_msg(hi / lo > 5e4, "%s: coupling ratio %g (1e4 jumps, 1:100)", specs[c], hi / lo);
    if (c == 7) ck_assert_msg(hi / lo > 900 && hi / lo < 1100, "%s: coupling ratio %g (density 1000)", specs[c], hi / lo);
    if (c == 8) ck_assert_msg(hi / lo > 0.9e6 && hi / lo < 1.1e6, "%s: coupling ratio %g (k 1e6)", specs[c], hi / lo);
    ng_csr_free(&A);
    ng_free(b);
  }
  /* the classes added for issue 31's table: 3D Q1 with jumps and rotated
   * anisotropy (27 points), 2D bubbles (5 points), SPE10-like layers;
   * small ones checked positive definite, larger ones for their contrast */
  const char *more[] = {"jump3q1:5", "bubbles5:14", "layers7:6", "p1tet:5", "jump3q1:12", "bubbles5:64", "layers7:16"};
  const int32_t mrows[] = {125, 196, 216, 125, 1728, 4096, 4096};
  /* (3n - 2)^3, 5n^2 - 4n, 7n^3 - 6n^2, and p1tet's n^3 + 6n^2(n - 1) + 6n(n - 1)^2 + 2(n - 1)^3 (the
   * neighbours along the axes, the three face diagonals e_p + e_q and the cube's diagonal (1,1,1)) */
  const int64_t mnnz[] = {13 * 13 * 13, 5 * 196 - 4 * 14, 7 * 216 - 6 * 36, 125 + 6 * 25 * 4 + 6 * 5 * 16 + 2 * 64, 0, 0, 0};
  for (int c = 0; c < 7; c++) {
    ng_csr A;
    double *b, lo, hi;
    gen(more[c], &A, &b);
    ck_assert_int_eq(A.nrows, mrows[c]);
    if (mnnz[c]) ck_assert_int_eq(A.nnz, mnnz[c]);
    common_checks(more[c], &A, b, 0, 0.0);
    for (int32_t i = 0; i < A.nrows; i++) ck_assert_double_eq(b[i], 1.0);
    if (c < 4) ck_assert_msg(dense_cholesky_ok(&A), "%s is not positive definite", more[c]);
    coupling_range(&A, &lo, &hi);
    printf("%s: couplings %.3g .. %.3g\n", more[c], lo, hi);
    if (c == 4) ck_assert_msg(hi / lo > 1e4, "%s: coupling ratio %g (1e4 jumps, 1:100)", more[c], hi / lo);
    if (c == 5) ck_assert_msg(hi / lo > 900 && hi / lo < 1100, "%s: coupling ratio %g (density 1000)", more[c], hi / lo);
    if (c == 6) ck_assert_msg(hi / lo > 1e4 && hi / lo <= 1.0001e6, "%s: coupling ratio %g (k 1e-3..1e3)", more[c], hi / lo);
    ng_csr_free(&A);
    ng_free(b);
  }
  /* the seed changes the values, not the pattern */
  const char *seeded[][3] = {{"jump2q1:20", "jump2q1:20:1", "jump2q1:20:5"}, {"spheres7:10", "spheres7:10:1", "spheres7:10:2"}};
  for (int c = 0; c < 2; c++) {
    ng_csr A1, A2, A3;
    double *b1, *b2, *b3;
    gen(seeded[c][0], &A1, &b1);
    gen(seeded[c][1], &A2, &b2);
    gen(seeded[c][2], &A3, &b3);
    ck_assert_int_eq(A1.nnz, A3.nnz);
    ck_assert(memcmp(A1.val, A2.val, sizeof(double) * (size_t)A1.nnz) == 0);
    ck_assert(memcmp(A1.val, A3.val, sizeof(double) * (size_t)A1.nnz) != 0);
    ng_csr_free(&A1); ng_csr_free(&A2); ng_csr_free(&A3);
    ng_free(b1); ng_free(b2); ng_free(b3);
  }
}
END_TEST

/* Through the public API: ng_matrix_generate gives the same operator and b. */
START_TEST(public_generate)
{
  ng_context ctx;
  ng_matrix M;
  ng_vector bv, x, y;
  int64_t n, nnz;
  int32_t nl;
  NG_ASSERT_OK(ng_context_create("cpu", &ctx));
  NG_ASSERT_OK(ng_matrix_generate(ctx, "lap27:3x4x5", &M, &bv));
  NG_ASSERT_OK(ng_matrix_get_size(M, &n, &nl, &nnz));
  ck_assert_int_eq(n, 60);
  ck_assert_int_eq(nnz, 7 * 10 * 13);
  NG_ASSERT_OK(ng_vector_create(M, &x));
  NG_ASSERT_OK(ng_vector_create(M, &y));
  NG_ASSERT_OK(ng_vector_fill(x, 1.0));
  NG_ASSERT_OK(ng_matrix_apply(M, x, y));
  double yv[60], bh[60];
  NG_ASSERT_OK(ng_vector_get_values(y, yv));
  NG_ASSERT_OK(ng_vector_get_values(bv, bh));
  for (int i = 0; i < 60; i++) ck_assert_double_eq(yv[i], bh[i]);
  ng_matrix M2 = M; /* a failed call sets its output to NULL: keep M to destroy it */
  ck_assert_int_eq(ng_matrix_generate(ctx, "nope:3", &M2, NULL), NG_ERR_ARGUMENT);
  ck_assert_ptr_null(M2);
  ng_vector_destroy(x);
  ng_vector_destroy(y);
  ng_vector_destroy(bv);
  ng_matrix_destroy(M);
  ng_context_destroy(ctx);
}
END_TEST

/* The stencil generators write their planes in parallel, each from its
 * first entry in closed form: the same arrays, byte for byte, on 1 thread
 * and on 3 (one plane a thread and more, uneven), Dirichlet and Neumann. */
START_TEST(stencils_same_on_any_threads)
{
#ifdef _OPENMP
  const char *specs[] = {"lap27:37x23x29", "lap7:41x17x33", "aniso27:31", "lap27:30:neumann", "lap7:64x2x3"};
  int keep = omp_get_max_threads();
  for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
    ng_csr A1, A3;
    double *b1, *b3;
    omp_set_num_threads(1);
    gen(specs[k], &A1, &b1);
    omp_set_num_threads(3);
    gen(specs[k], &A3, &b3);
    ck_assert_int_eq(A1.nnz, A3.nnz);
    ck_assert_msg(!memcmp(A1.rowptr, A3.rowptr, ((size_t)A1.nrows + 1) * sizeof(*A1.rowptr)) &&
                      !memcmp(A1.col, A3.col, (size_t)A1.nnz * sizeof(*A1.col)) &&
                      !memcmp(A1.val, A3.val, (size_t)A1.nnz * sizeof(*A1.val)) &&
                      !memcmp(b1, b3, (size_t)A1.nrows * sizeof(double)),
                  "%s: 1 and 3 threads differ", specs[k]);
    ng_csr_free(&A1);
    ng_csr_free(&A3);
    free(b1);
    free(b3);
  }
  omp_set_num_threads(keep);
#else
  printf("stencils_same_on_any_threads: built without OpenMP, one thread only\n");
#endif
}
END_TEST

int main(void)
{
  Suite *s = suite_create("generate");
  TCase *tc = tcase_create("generate");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, lap7_exact);
  tcase_add_test(tc, lap27_exact);
  tcase_add_test(tc, aniso27_values);
  tcase_add_test(tc, fem27_pattern_and_values);
  tcase_add_test(tc, mps_irregular_spd);
  tcase_add_test(tc, bad_specs_rejected);
  tcase_add_test(tc, neumann_specs);
  tcase_add_test(tc, public_generate);
  tcase_add_test(tc, het_problems);
  tcase_add_test(tc, rotaniso_problems);
  tcase_add_test(tc, cfd_problems);
  tcase_add_test(tc, stencils_same_on_any_threads);
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
