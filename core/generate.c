/* core/generate.c: ng_generate_csr, the entry of the problem generators.
 * Parses "NAME:N" (N^3 grid nodes) or "NAME:NXxNYxNZ" (nodes per dimension)
 * and dispatches to generate_stencil.c (lap7, lap27, aniso27; lap7 and
 * lap27 also "NAME:N:neumann", the pure-Neumann singular operator),
 * generate_fem27.c (fem27), generate_elast27.c (elast27: 3 rows per node) or generate_mps.c ("mps:N", N = particles along
 * the width of the dam-break column; one number only) or generate_hard.c
 * (het7, het5, rotaniso, rotaniso3: NAME:N[:parameters]) or generate_cfd.c
 * (stretch7, jump2q1, bubbles7, spheres7, jump3q1, bubbles5, layers7, p1tet:
 * NAME:N[:parameter]). Sizes are plain
 * decimal digits; zero, signs, blanks, trailing text or a row count above
 * INT32_MAX are NG_ERR_ARGUMENT naming the spec and the cause. */
#include "generate.h"

typedef ng_status (*grid_generator)(int32_t nx, int32_t ny, int32_t nz, ng_csr *A, double **b);

static const struct {
  const char *name;
  grid_generator fn;
} grid_problems[] = {
    {"lap7", ng_gen_lap7},
    {"lap27", ng_gen_lap27},
    {"aniso27", ng_gen_aniso27},
    {"fem27", ng_gen_fem27},
    {"elast27", ng_gen_elast27},
};
#define NG_KNOWN_PROBLEMS "lap7, lap27, aniso27, fem27, elast27, mps, het7, het5, rotaniso, rotaniso3, stretch7, jump2q1, bubbles7, spheres7, jump3q1, bubbles5, layers7, p1tet"

/* One positive decimal size at *s, advancing *s past it. */
static ng_status parse_size(const char *spec, const char **s, int64_t *v)
{
  const char *p = *s;
  *v = 0;
  if (*p < '0' || *p > '9')
    return NG_ERROR(NG_ERR_ARGUMENT, "generator spec '%s': expected a positive size at '%s'", spec, p);
  for (; *p >= '0' && *p <= '9'; p++) {
    *v = *v * 10 + (*p - '0');
    if (*v > INT32_MAX)
      return NG_ERROR(NG_ERR_ARGUMENT, "generator spec '%s': size too large (more than %d)", spec,
                      (int)INT32_MAX);
  }
  if (*v == 0) return NG_ERROR(NG_ERR_ARGUMENT, "generator spec '%s': size 0 (sizes must be >= 1)", spec);
  *s = p;
  return NG_SUCCESS;
}

ng_status ng_generate_csr(const char *spec, ng_csr *A, double **b)
{
  NG_ASSERT_ARG(spec && A && b, "ng_generate_csr: null argument");
  memset(A, 0, sizeof(*A));
  *b = NULL;
  const char *colon = strchr(spec, ':');
  NG_ASSERT_ARG(colon, "generator spec '%s': expected NAME:N or NAME:NXxNYxNZ (problems: %s)", spec,
                NG_KNOWN_PROBLEMS);
  size_t len = (size_t)(colon - spec);
  int64_t dims[3];
  int nd = 0;
  const char *s = colon + 1;
  if (ng_gen_is_hard(spec, len)) { /* NAME:N[:more], generate_hard.c */
    NG_CHECK(parse_size(spec, &s, &dims[0]));
    NG_CHECK(ng_gen_hard(spec, len, dims[0], s, A, b));
    return NG_SUCCESS;
  }
  if (ng_gen_is_cfd(spec, len)) { /* NAME:N[:param], generate_cfd.c */
    NG_CHECK(parse_size(spec, &s, &dims[0]));
    NG_CHECK(ng_gen_cfd(spec, len, dims[0], s, A, b));
    return NG_SUCCESS;
  }
  const char *bc = NULL; /* ":neumann" after the sizes */
  for (;;) {
    NG_CHECK(parse_size(spec, &s, &dims[nd++]));
    if (*s == '\0') break;
    if (*s == ':') {
      bc = s + 1;
      break;
    }
    NG_ASSERT_ARG(*s == 'x' && nd < 3, "generator spec '%s': unexpected '%s' after the size%s", spec, s,
                  nd == 1 ? "" : "s");
    s++;
  }
  NG_ASSERT_ARG(nd == 1 || nd == 3, "generator spec '%s': give one size (N) or three (NXxNYxNZ), not %d",
                spec, nd);

  if (bc) {
    NG_ASSERT_ARG(!strcmp(bc, "neumann"), "generator spec '%s': unknown boundary condition '%s' (known: neumann)",
                  spec, bc);
    NG_ASSERT_ARG((len == 4 && !strncmp(spec, "lap7", 4)) || (len == 5 && !strncmp(spec, "lap27", 5)),
                  "generator spec '%s': ':neumann' is for lap7 and lap27 only", spec);
  }
  if (len == 3 && strncmp(spec, "mps", 3) == 0) {
    NG_ASSERT_ARG(nd == 1, "generator spec '%s': mps takes one size, the particles along the column width",
                  spec);
    NG_CHECK(ng_gen_mps((int32_t)dims[0], A, b));
    return NG_SUCCESS;
  }
  if (nd == 1) dims[1] = dims[2] = dims[0];
  for (size_t k = 0; k < sizeof(grid_problems) / sizeof(grid_problems[0]); k++) {
    if (strlen(grid_problems[k].name) != len || strncmp(spec, grid_problems[k].name, len) != 0) continue;
    int64_t n = dims[0] * dims[1]; /* each <= INT32_MAX: no int64 overflow */
    if (n <= INT32_MAX) n *= dims[2];
    NG_ASSERT_ARG(n <= INT32_MAX, "generator spec '%s': %lldx%lldx%lld nodes is more than %d rows", spec,
                  (long long)dims[0], (long long)dims[1], (long long)dims[2], (int)INT32_MAX);
    if (bc)
      NG_CHECK(ng_gen_lap_neumann(len == 5 ? 27 : 7, (int32_t)dims[0], (int32_t)dims[1], (int32_t)dims[2], A, b));
    else
      NG_CHECK(grid_problems[k].fn((int32_t)dims[0], (int32_t)dims[1], (int32_t)dims[2], A, b));
    return NG_SUCCESS;
  }
  return NG_ERROR(NG_ERR_ARGUMENT, "generator spec '%s': unknown problem '%.*s' (problems: %s)", spec,
                  (int)len, spec, NG_KNOWN_PROBLEMS);
}
