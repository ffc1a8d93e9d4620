/* core/generate_hard.c: the hard-coefficient problems of issue 14 (AMG
 * robustness, compared with BoomerAMG and GAMG in bench/peers/):
 *   het7:N[:seed]   7-point finite volumes on N^3 cells, -div(k grad u):
 *                   layers in z of thickness max(1, N/8) alternating k = 1
 *                   and k = 1e6, each cell's k times a random factor in
 *                   [0.5, 2] (a hash of seed and the cell, so the matrix
 *                   depends only on the spec); face coefficients are the
 *                   harmonic mean 2 k_P k_Q / (k_P + k_Q); Dirichlet u = 0
 *                   on the box's faces at half a cell (coefficient 2 k_P).
 *   het5:N[:seed]   the same in 2D on N^2 cells (layers in y).
 *   rotaniso:N[:eps[:angle]]  2D 9-point central differences of
 *                   -div(K grad u), K = R(angle) diag(1, eps) R(angle)^T
 *                   (defaults eps = 1e-2, angle = 45 degrees), truncated at
 *                   the box (Dirichlet): k11 u_xx + k22 u_yy + 2 k12 u_xy
 *                   with the cross term over the four diagonal neighbours,
 *                   so it has positive couplings (SPD, not an M-matrix).
 *   rotaniso3:N[:eps[:angle]] the same rotation in x-y on N^3 nodes, plus
 *                   -eps u_zz: an 11-point stencil on N^3 nodes.
 * All are symmetric bitwise (each coupling computed once, stored twice)
 * and b = 1, the right-hand side of the comparison. */
#include "generate.h"
#include <math.h>

/* Factor in [0.5, 2] for cell i (log-uniform), from a splitmix64 hash. */
static double cell_factor(uint64_t seed, int64_t i)
{
  uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull + seed * 0xd1b54a32d192ed03ull + 0x632be59bd9b4e019ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  double u = (double)(x >> 11) / 9007199254740992.0; /* [0, 1) */
  return exp2(2.0 * u - 1.0);
}

static double harmonic(double a, double b) { return 2.0 * a * b / (a + b); }

/* Row-wise assembly helper: up to 27 entries per row, sorted by column. */
typedef struct {
  int32_t col[27];
  double val[27];
  int n;
} row_buf;
static void put(row_buf *r, int32_t c, double v)
{
  int k = r->n++;
  while (k > 0 && r->col[k - 1] > c) {
    r->col[k] = r->col[k - 1];
    r->val[k] = r->val[k - 1];
    k--;
  }
  r->col[k] = c;
  r->val[k] = v;
}

/* het: nz = 1 gives the 2D 5-point problem (layers along y then). */
static ng_status gen_het(int32_t nx, int32_t ny, int32_t nz, uint64_t seed, ng_csr *A, double **b)
{
  int64_t n = (int64_t)nx * ny * nz, nxy = (int64_t)nx * ny;
  int dim3 = nz > 1;
  int32_t nl = dim3 ? nz : ny, thick = nl / 8 > 0 ? nl / 8 : 1;
  double *k = NULL;
  ng_status st = NG_SUCCESS;
  NG_CHECK(NG_MALLOC(k, n));
  for (int64_t i = 0; i < n; i++) {
    int32_t layer = (int32_t)(dim3 ? i / nxy : (i / nx) % ny) / thick;
    k[i] = (layer % 2 ? 1e6 : 1.0) * cell_factor(seed, i);
  }
  NG_CHECK_GOTO(st, ng_csr_alloc(A, (int32_t)n, (int32_t)n, n * (dim3 ? 7 : 5)), out);
  NG_CHECK_GOTO(st, NG_MALLOC(*b, n), out);
  int64_t p = 0;
  for (int64_t i = 0; i < n; i++) {
    int32_t x = (int32_t)(i % nx), y = (int32_t)((i / nx) % ny), z = (int32_t)(i / nxy);
    int64_t nb[6] = {x > 0 ? i - 1 : -1,        x < nx - 1 ? i + 1 : -1, y > 0 ? i - nx : -1,
                     y < ny - 1 ? i + nx : -1, z > 0 ? i - nxy : -1,    z < nz - 1 ? i + nxy : -1};
    row_buf r = {.n = 0};
    double diag = 0.0;
    for (int f = 0; f < (dim3 ? 6 : 4); f++) {
      if (nb[f] < 0) {
        diag += 2.0 * k[i]; /* Dirichlet face at half a cell */
        continue;
      }
      /* the same expression from both sides: harmonic() is symmetric in its arguments */
      double c = nb[f] < i ? harmonic(k[nb[f]], k[i]) : harmonic(k[i], k[nb[f]]);
      put(&r, (int32_t)nb[f], -c);
      diag += c;
    }
    put(&r, (int32_t)i, diag);
    A->rowptr[i] = p;
    for (int q = 0; q < r.n; q++) {
      A->col[p] = r.col[q];
      A->val[p++] = r.val[q];
    }
    (*b)[i] = 1.0;
  }
  A->rowptr[n] = p;
  A->nnz = p;
out:
  ng_free(k);
  if (st != NG_SUCCESS) {
    ng_csr_free(A);
    ng_free(*b);
    *b = NULL;
  }
  return st;
}

/* rotaniso: nz = 1 gives the 2D 9-point problem. */
static ng_status gen_rotaniso(int32_t nx, int32_t ny, int32_t nz, double eps, double angle_deg, ng_csr *A,
                              double **b)
{
  int64_t n = (int64_t)nx * ny * nz, nxy = (int64_t)nx * ny;
  double t = angle_deg * 3.14159265358979323846 / 180.0, C = cos(t), S = sin(t);
  double k11 = C * C + eps * S * S, k22 = S * S + eps * C * C, k12 = (1.0 - eps) * C * S, k33 = eps;
  /* offsets (dx, dy, dz) and coefficients; the cross term u_xy over (1,1),(-1,-1) and (1,-1),(-1,1) */
  const int off[10][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {-1, -1, 0},
                          {1, 1, 0},  {1, -1, 0}, {-1, 1, 0}, {0, 0, -1}, {0, 0, 1}};
  const double cf[10] = {-k11, -k11, -k22, -k22, -0.5 * k12, -0.5 * k12, 0.5 * k12, 0.5 * k12, -k33, -k33};
  int noff = nz > 1 ? 10 : 8;
  double diag = 2.0 * k11 + 2.0 * k22 + (nz > 1 ? 2.0 * k33 : 0.0);
  ng_status st = NG_SUCCESS;
  NG_CHECK(ng_csr_alloc(A, (int32_t)n, (int32_t)n, n * (noff + 1)));
  NG_CHECK_GOTO(st, NG_MALLOC(*b, n), out);
  int64_t p = 0;
  for (int64_t i = 0; i < n; i++) {
    int32_t x = (int32_t)(i % nx), y = (int32_t)((i / nx) % ny), z = (int32_t)(i / nxy);
    row_buf r = {.n = 0};
    for (int o = 0; o < noff; o++) {
      int32_t X = x + off[o][0], Y = y + off[o][1], Z = z + off[o][2];
      if (X < 0 || X >= nx || Y < 0 || Y >= ny || Z < 0 || Z >= nz || cf[o] == 0.0) continue;
      put(&r, (int32_t)(i + off[o][2] * nxy + off[o][1] * nx + off[o][0]), cf[o]);
    }
    put(&r, (int32_t)i, diag);
    A->rowptr[i] = p;
    for (int q = 0; q < r.n; q++) {
      A->col[p] = r.col[q];
      A->val[p++] = r.val[q];
    }
    (*b)[i] = 1.0;
  }
  A->rowptr[n] = p;
  A->nnz = p;
out:
  if (st != NG_SUCCESS) {
    ng_csr_free(A);
    ng_free(*b);
    *b = NULL;
  }
  return st;
}

/* One optional ":number" field at *s (strtod), advancing *s. */
static ng_status parse_real(const char *spec, const char **s, double *v, const char *what)
{
  if (**s != ':') return NG_SUCCESS;
  char *end;
  (*s)++;
  *v = strtod(*s, &end);
  if (end == *s || !isfinite(*v))
    return NG_ERROR(NG_ERR_ARGUMENT, "generator spec '%s': expected a number (%s) at '%s'", spec, what, *s);
  *s = end;
  return NG_SUCCESS;
}

int ng_gen_is_hard(const char *name, size_t len)
{
  static const char *names[] = {"het7", "het5", "rotaniso", "rotaniso3"};
  for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
    if (strlen(names[k]) == len && strncmp(name, names[k], len) == 0) return 1;
  return 0;
}

ng_status ng_gen_hard(const char *spec, size_t len, int64_t N, const char *rest, ng_csr *A, double **b)
{
  const char *s = rest;
  int three = (len == 4 && spec[3] == '7') || len == 9;
  int64_t rows = N > 2000000 ? INT64_MAX : three ? N * N * N : N * N; /* no int64 overflow */
  NG_ASSERT_ARG(rows <= INT32_MAX, "generator spec '%s': %lld^%d is more than %d rows",
                spec, (long long)N, three ? 3 : 2, (int)INT32_MAX);
  if (strncmp(spec, "het", 3) == 0) {
    double seed = 1;
    NG_CHECK(parse_real(spec, &s, &seed, "the seed"));
    /* at most 2^53: every whole number up to there is exact in a double, and
     * the conversion to the 64-bit seed is defined (4e107 was not) */
    NG_ASSERT_ARG(*s == '\0' && seed >= 0 && seed <= 9007199254740992.0 && seed == floor(seed),
                  "generator spec '%s': expected het%c:N[:seed] with a whole seed from 0 to 2^53", spec,
                  three ? '7' : '5');
    return gen_het((int32_t)N, (int32_t)N, three ? (int32_t)N : 1, (uint64_t)seed, A, b);
  }
  double eps = 1e-2, angle = 45.0;
  NG_CHECK(parse_real(spec, &s, &eps, "epsilon"));
  NG_CHECK(parse_real(spec, &s, &angle, "the angle in degrees"));
  NG_ASSERT_ARG(*s == '\0', "generator spec '%s': expected %.*s:N[:eps[:angle]], unexpected '%s'", spec, (int)len,
                spec, s);
  NG_ASSERT_ARG(eps > 0 && eps <= 1, "generator spec '%s': epsilon %g must be in (0, 1]", spec, eps);
  return gen_rotaniso((int32_t)N, (int32_t)N, three ? (int32_t)N : 1, eps, angle, A, b);
}
