/* test/test_formats.c: every SpMV format (dia, dia_half, ell, ellr, sell and
 * option variants, auto) against a CSR SpMV written here from the arrays, on
 * generated lap7/lap27/fem27/mps, the real matrices in test/data, empty rows,
 * 1x1 and 0x0 blocks and very uneven rows; refusals with their reasons;
 * bytes() against counts computed here; update_values; option parsing; and
 * "auto" at matrix level. test_formats_gpu.c includes this file with
 * NG_FORMATS_ON_GPU defined, so the GPU tables face the same cases.
 *
 * Error bound per row i: |y_i - yref_i| <= 1e-12 (|alpha| sum_j |a_ij x_j| +
 * |beta y_i|) + 1e-300: the formats only reorder the sums (half storage, FMA
 * on the GPU), which moves results by a few ulps of that scale. */
#include "testutil.h"
#include "../dist/dist.h"
#include "../spmv/autotune.h"
#if defined(NG_FORMATS_ON_GPU) && defined(NG_HAVE_CUDA)
#include "formats_cuda_host.h"
#endif
#include <math.h>

#ifdef NG_FORMATS_ON_GPU
#define RESOURCE "gpu"
#else
#define RESOURCE "cpu"
#endif

static ng_context ctx;
static void setup(void) { NG_ASSERT_OK(ng_context_create(RESOURCE, &ctx)); }
static void teardown(void) { ng_context_destroy(ctx); }

/* Applies the spmv option -name value process-wide (ng_options_apply_spmv),
 * or with name NULL every spmv option's default again. */
static ng_status spmv_option(const char *name, const char *value)
{
  ng_options o;
  NG_ASSERT_OK(ng_options_create(&o));
  ng_status st = name ? ng_options_set(o, name, value) : NG_SUCCESS;
  if (st == NG_SUCCESS) st = ng_options_apply_spmv(o);
  ng_options_destroy(o);
  return st;
}

/* ---- reference and helpers -------------------------------------------------- */
static void ref_spmv(const ng_csr *A, double alpha, const double *x, double beta, const double *y0, double *y,
                     double *scale)
{
  for (int32_t i = 0; i < A->nrows; i++) {
    double s = 0.0, a = 0.0;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      s += A->val[p] * x[A->col[p]];
      a += fabs(A->val[p] * x[A->col[p]]);
    }
    y[i] = alpha * s + beta * y0[i];
    scale[i] = fabs(alpha) * a + fabs(beta * y0[i]);
  }
}

/* Runs y = alpha A x + beta y through a created format on ctx's memory and
 * compares with the reference, for beta = 0 (y holding NaN must not leak)
 * and beta != 0. */
static void check_apply(const ng_spmv_ops *ops, void *data, const ng_csr *A, const char *what)
{
  int32_t n = A->nrows, m = A->ncols;
  double *x = malloc(((size_t)m + 1) * sizeof(double)), *y0 = malloc(((size_t)n + 1) * sizeof(double));
  double *y = malloc(((size_t)n + 1) * sizeof(double)), *yr = malloc(((size_t)n + 1) * sizeof(double));
  double *sc = malloc(((size_t)n + 1) * sizeof(double)), *dx = NULL, *dy = NULL;
  ng_test_random(x, m);
  ng_test_random(y0, n);
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &dx, m));
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &dy, n));
  NG_ASSERT_OK(ctx->vops->upload(ctx, dx, x, m));
  const double cases[2][2] = {{1.0, 0.0}, {-1.3, 0.7}};
  for (int c = 0; c < 2; c++) {
    double alpha = cases[c][0], beta = cases[c][1];
    if (beta == 0.0) {
      for (int32_t i = 0; i < n; i++) y[i] = NAN;
      NG_ASSERT_OK(ctx->vops->upload(ctx, dy, y, n));
    } else {
      NG_ASSERT_OK(ctx->vops->upload(ctx, dy, y0, n));
    }
    NG_ASSERT_OK(ops->apply(data, alpha, dx, beta, dy));
    NG_ASSERT_OK(ctx->vops->download(ctx, y, dy, n));
    ref_spmv(A, alpha, x, beta, y0, yr, sc);
    for (int32_t i = 0; i < n; i++)
      ck_assert_msg(fabs(y[i] - yr[i]) <= 1e-12 * sc[i] + 1e-300,
                    "%s (%s) row %d of %d: %.17g, reference %.17g (alpha %g beta %g)", what, ops->name, (int)i,
                    (int)n, y[i], yr[i], alpha, beta);
  }
  ctx->vops->free(ctx, dx);
  ctx->vops->free(ctx, dy);
  free(x); free(y0); free(y); free(yr); free(sc);
}

/* ---- footprints computed independently --------------------------------------- */
static int64_t row_len(const ng_csr *A, int32_t i) { return A->rowptr[i + 1] - A->rowptr[i]; }

static int cmp_desc(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x < y) - (x > y);
}

/* Distinct diagonals j - i (only j <= i when half). */
static int64_t count_diagonals(const ng_csr *A, int half)
{
  int64_t nd = 0, n = A->nrows;
  char *seen = calloc(2 * (size_t)n + 1, 1);
  for (int32_t i = 0; i < n; i++)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      int64_t o = (int64_t)A->col[p] - i;
      if (half && o > 0) continue;
      if (!seen[o + n]) { seen[o + n] = 1; nd++; }
    }
  free(seen);
  return nd;
}

/* SELL: slices of C sorted positions; sorting inside windows of sigma rows
 * only permutes lengths, so slice widths follow from sorted lengths. */
static size_t sell_expected(const ng_csr *A, int C, int sigma)
{
  int32_t n = A->nrows;
  int64_t *len = malloc(((size_t)n + 1) * sizeof(int64_t)), total = 0, ns = (n + C - 1) / C;
  for (int32_t i = 0; i < n; i++) len[i] = row_len(A, i);
  if (sigma > 1)
    for (int64_t b = 0; b < n; b += sigma) qsort(len + b, (size_t)((b + sigma < n ? b + sigma : n) - b), sizeof(int64_t), cmp_desc);
  for (int64_t s = 0; s < ns; s++) {
    int64_t w = 0;
    for (int64_t t = s * C; t < (s + 1) * C && t < n; t++) w = len[t] > w ? len[t] : w;
    total += w * C;
  }
  free(len);
  return (size_t)total * 12 + (size_t)(ns + 1) * 8 + (size_t)n * 4;
}

/* CoD-SELL: the host converter's structure for the same options (the GPU
 * converter must give the same one), counted from its arrays. */
static size_t codsell_expected(const char *spec, const ng_csr *A)
{
  ng_spmv_opts o;
  ng_codsell S;
  NG_ASSERT_OK(ng_spmv_opts_parse("codsell", spec[7] == ':' ? spec + 8 : NULL, &o));
  NG_ASSERT_OK(ng_codsell_build(A, &o, !o.codsell_seq, &S));
  size_t b = (size_t)S.n * 4 + 3 * ((size_t)S.nslices + 1) * 8;
  for (int32_t s = 0; s < S.nslices; s++)
    b += (size_t)(S.vptr[s + 1] - S.vptr[s]) * 8 + (size_t)(S.cptr[s + 1] - S.cptr[s]) * 4 +
         (size_t)(S.dptr[s + 1] - S.dptr[s]) * 4;
  ng_codsell_free(&S);
  return b;
}

static size_t expected_bytes(const char *spec, const ng_csr *A)
{
  int64_t n = A->nrows, w = 0;
  for (int32_t i = 0; i < n; i++) w = row_len(A, i) > w ? row_len(A, i) : w;
  if (!strncmp(spec, "dia_half", 8)) { int64_t nd = count_diagonals(A, 1); return (size_t)(nd * n * 8 + nd * 4); }
  if (!strncmp(spec, "dia", 3)) { int64_t nd = count_diagonals(A, 0); return (size_t)(nd * n * 8 + nd * 4); }
  if (!strcmp(spec, "ellr")) return (size_t)(w * n * 12 + n * 4);
  if (!strcmp(spec, "ell")) return (size_t)(w * n * 12);
  if (!strcmp(spec, "sell")) return sell_expected(A, 32, 256);
  if (!strcmp(spec, "sell:4:1")) return sell_expected(A, 4, 1);
  if (!strcmp(spec, "sell:7:3")) return sell_expected(A, 7, 3);
  if (!strcmp(spec, "sell:32:1024")) return sell_expected(A, 32, 1024);
  if (!strncmp(spec, "codsell", 7)) return codsell_expected(spec, A);
  return 0;
}

/* ---- the per-matrix driver ---------------------------------------------------- */
static const char *const specs[] = {"dia", "dia:nounroll", "dia:noldg", "dia:noldg:nounroll", "dia_half",
                                    "dia_half:nounroll:noldg", "ell", "ellr", "sell", "sell:4:1", "sell:7:3",
                                    "sell:32:1024", "codsell:force", "codsell:seq:force", "codsell:8:16:force",
                                    "codsell:2:1:force", "codsell:1:force", NULL};

/* Checks every spec on A. must_fit: names (prefix of a spec) that must not
 * refuse; must_refuse: names that must refuse with NG_ERR_DOES_NOT_FIT.
 * Returns how many specs were created. */
static int check_all(const ng_csr *A, const char *what, const char *must_fit, const char *must_refuse)
{
  int created = 0;
  for (const char *const *s = specs; *s; s++) {
    const ng_spmv_ops *ops = NULL;
    void *data = NULL;
    char base[16];
    snprintf(base, sizeof(base), "%.*s", (int)strcspn(*s, ":"), *s);
    char word[20];
    snprintf(word, sizeof(word), " %s ", base);
    ng_status st = ng_spmv_create(ctx, *s, A, &ops, &data);
    if (st == NG_ERR_DOES_NOT_FIT) {
      ck_assert_msg(!strstr(must_fit, word), "%s: %s refused: %s", what, *s, ng_last_error());
      ck_assert_msg(strstr(ng_last_error(), base) != NULL, "refusal names no format: %s", ng_last_error());
      continue;
    }
    ck_assert_msg(st == NG_SUCCESS, "%s: %s -> %s: %s", what, *s, ng_status_name(st), ng_last_error());
    ck_assert_msg(!strstr(must_refuse, word), "%s: %s should have refused", what, *s);
    ck_assert_int_eq(ops->on_gpu, ctx->on_gpu);
    ck_assert_msg(ops->bytes(data) == expected_bytes(*s, A), "%s: %s bytes %zu, expected %zu", what, *s,
                  ops->bytes(data), expected_bytes(*s, A));
    check_apply(ops, data, A, what);
    /* same pattern, new values (kept symmetric): 2A + I on the stored diagonal */
    ng_csr B;
    NG_ASSERT_OK(ng_csr_copy(A, &B));
    for (int32_t i = 0; i < B.nrows; i++)
      for (int64_t p = B.rowptr[i]; p < B.rowptr[i + 1]; p++) B.val[p] = 2.0 * B.val[p] + (B.col[p] == i);
    NG_ASSERT_OK(ops->update_values(data, &B));
    check_apply(ops, data, &B, what);
    ng_csr_free(&B);
    ops->destroy(data);
    created++;
  }
  return created;
}

static void generated(const char *spec, const char *must_fit, const char *must_refuse)
{
  ng_csr A;
  double *b = NULL;
  NG_ASSERT_OK(ng_generate_csr(spec, &A, &b));
  check_all(&A, spec, must_fit, must_refuse);
  ng_csr_free(&A);
  ng_free(b);
}

START_TEST(generated_problems)
{
  generated("lap7:9", " dia dia_half ell ellr sell codsell ", "");
  generated("lap27:7", " dia dia_half ell ellr sell codsell ", "");
  generated("fem27:8", " dia dia_half ell ellr sell codsell ", "");
  generated("fem27:5x6x7", " dia dia_half ell ellr sell codsell ", "");
  generated("mps:6", " sell codsell ", " dia dia_half ");
  generated("elast27:4", " ell ellr sell codsell ", "");
  generated("elast27:3x4x5", " ell ellr sell codsell ", "");
}
END_TEST

START_TEST(real_matrices)
{
  const char *names[] = {"bcsstk13.mtx", "494_bus.mtx", "jagmesh7.mtx", "west0479.mtx"};
  for (int k = 0; k < 4; k++) {
    ng_csr A;
    NG_ASSERT_OK(ng_mmio_read_csr(ng_test_data(names[k]), &A));
    check_all(&A, names[k], " sell codsell ", "");
    ng_csr_free(&A);
  }
}
END_TEST

/* A matrix built row by row from lengths and a column rule. */
static void build(ng_csr *A, int32_t n, int32_t ncols, const int *len, int32_t (*colfn)(int32_t i, int k))
{
  int64_t nnz = 0;
  for (int32_t i = 0; i < n; i++) nnz += len[i];
  NG_ASSERT_OK(ng_csr_alloc(A, n, ncols, nnz));
  int64_t p = 0;
  A->rowptr[0] = 0;
  for (int32_t i = 0; i < n; i++) {
    for (int k = 0; k < len[i]; k++) {
      A->col[p] = colfn(i, k);
      A->val[p] = 1.0 + 0.01 * (double)((i * 7 + k * 3) % 17);
      p++;
    }
    A->rowptr[i + 1] = p;
  }
}
static int32_t g_n;
static int32_t tri_col(int32_t i, int k) { return i == 0 ? k : i - 1 + k; }      /* tridiagonal */
static int32_t dense_first(int32_t i, int k) { return i == 0 ? k : (i + k) % g_n; } /* row 0 dense */
static int32_t diag_only(int32_t i, int k) { return i; }

START_TEST(special_shapes)
{
  ng_csr A;
  int len[400];
  /* 1x1 */
  len[0] = 1;
  build(&A, 1, 1, len, diag_only);
  ck_assert_int_eq(check_all(&A, "1x1", " dia dia_half ell ellr sell codsell ", ""), 17);
  ng_csr_free(&A);
  /* 0x0 */
  NG_ASSERT_OK(ng_csr_alloc(&A, 0, 0, 0));
  A.rowptr[0] = 0;
  check_all(&A, "0x0", " dia dia_half ell ellr sell codsell ", "");
  ng_csr_free(&A);
  /* empty rows: diagonal with every third row empty (dia fill 1.5 fits) */
  for (int i = 0; i < 300; i++) len[i] = i % 3 ? 1 : 0;
  build(&A, 300, 300, len, diag_only);
  check_all(&A, "empty rows", " dia dia_half ell ellr sell codsell ", "");
  ng_csr_free(&A);
  /* all rows empty */
  for (int i = 0; i < 50; i++) len[i] = 0;
  build(&A, 50, 50, len, diag_only);
  check_all(&A, "all rows empty", " dia dia_half ell ellr sell codsell ", "");
  ng_csr_free(&A);
  /* very uneven: row 0 has every column, the rest 1..3 entries */
  g_n = 400;
  len[0] = 400;
  for (int i = 1; i < 400; i++) len[i] = 1 + i % 3;
  build(&A, 400, 400, len, dense_first);
  check_all(&A, "uneven", " sell codsell ", " dia dia_half ell ellr ");
  ng_csr_free(&A);
  /* nonsymmetric tridiagonal (values differ across the diagonal): dia fits, dia_half refuses */
  for (int i = 0; i < 100; i++) len[i] = (i == 0 || i == 99) ? 2 : 3;
  build(&A, 100, 100, len, tri_col);
  check_all(&A, "nonsymmetric tridiagonal", " dia ell ellr sell codsell ", " dia_half ");
  ng_csr_free(&A);
}
END_TEST

START_TEST(refusal_reasons)
{
  ng_csr A;
  const ng_spmv_ops *ops;
  void *data;
  int len[100];
  for (int i = 0; i < 100; i++) len[i] = (i == 0 || i == 99) ? 2 : 3;
  build(&A, 100, 100, len, tri_col);
  ck_assert_int_eq(ng_spmv_create(ctx, "dia_half", &A, &ops, &data), NG_ERR_DOES_NOT_FIT);
  ck_assert_msg(strstr(ng_last_error(), "not symmetric"), "%s", ng_last_error());
  ck_assert_int_eq(ng_spmv_create(ctx, "dia:maxdiag=2", &A, &ops, &data), NG_ERR_DOES_NOT_FIT);
  ck_assert_msg(strstr(ng_last_error(), "3 distinct diagonals"), "%s", ng_last_error());
  ck_assert_int_eq(ng_spmv_create(ctx, "dia:maxfill=1.001", &A, &ops, &data), NG_ERR_DOES_NOT_FIT);
  ck_assert_msg(strstr(ng_last_error(), "padding"), "%s", ng_last_error());
  ck_assert_int_eq(ng_spmv_create(ctx, "ell:maxratio=1.001", &A, &ops, &data), NG_ERR_DOES_NOT_FIT);
  ck_assert_msg(strstr(ng_last_error(), "mean"), "%s", ng_last_error());
  NG_ASSERT_OK(ng_spmv_create(ctx, "ell:maxratio=1.1", &A, &ops, &data));
  ops->destroy(data);
  /* the defaults from the options -dia_max_diags ... -sell_c, overridden by the spec */
  NG_ASSERT_OK(spmv_option("dia_max_diags", "2"));
  ck_assert_int_eq(ng_spmv_create(ctx, "dia", &A, &ops, &data), NG_ERR_DOES_NOT_FIT);
  ck_assert_msg(strstr(ng_last_error(), "limit 2 (maxdiag=, -dia_max_diags)"), "%s", ng_last_error());
  NG_ASSERT_OK(ng_spmv_create(ctx, "dia:maxdiag=3", &A, &ops, &data));
  ops->destroy(data);
  NG_ASSERT_OK(spmv_option("dia_max_fill", "1.001"));
  ck_assert_int_eq(ng_spmv_create(ctx, "dia", &A, &ops, &data), NG_ERR_DOES_NOT_FIT);
  ck_assert_msg(strstr(ng_last_error(), "-dia_max_fill"), "%s", ng_last_error());
  NG_ASSERT_OK(spmv_option("ell_max_ratio", "1.001"));
  ck_assert_int_eq(ng_spmv_create(ctx, "ell", &A, &ops, &data), NG_ERR_DOES_NOT_FIT);
  ck_assert_msg(strstr(ng_last_error(), "-ell_max_ratio"), "%s", ng_last_error());
  NG_ASSERT_OK(spmv_option(NULL, NULL)); /* the defaults again: both fit */
  NG_ASSERT_OK(ng_spmv_create(ctx, "dia", &A, &ops, &data));
  ops->destroy(data);
  NG_ASSERT_OK(ng_spmv_create(ctx, "ell", &A, &ops, &data));
  ops->destroy(data);
  NG_ASSERT_OK(spmv_option("sell_c", "8"));
  NG_ASSERT_OK(ng_spmv_create(ctx, "sell", &A, &ops, &data));
  ck_assert_uint_eq(ops->bytes(data), sell_expected(&A, 8, 256)); /* C from -sell_c */
  ck_assert_uint_ne(sell_expected(&A, 8, 256), sell_expected(&A, 32, 256));
  ops->destroy(data);
  NG_ASSERT_OK(ng_spmv_create(ctx, "sell:16", &A, &ops, &data)); /* the spec wins */
  ck_assert_uint_eq(ops->bytes(data), sell_expected(&A, 16, 256));
  ops->destroy(data);
  /* bad values: NG_ERR_ARGUMENT naming the option, the values in force unchanged (C = 8) */
  const char *bad[][3] = {{"dia_max_diags", "lots", "option -dia_max_diags"},
                          {"dia_max_fill", "0", "option -dia_max_fill"},
                          {"ell_max_ratio", "-1", "option -ell_max_ratio"},
                          {"sell_c", "2000", "option -sell_c"},
                          {"sell_c", "0", "option -sell_c"},
                          {"sell_sigma", "0", "option -sell_sigma"},
                          {"format_auto_slack", "0.5", "option -format_auto_slack"},
                          {"format_auto_prune_mb", "-1", "option -format_auto_prune_mb"}};
  for (int k = 0; k < (int)(sizeof(bad) / sizeof(bad[0])); k++) {
    ck_assert_int_eq(spmv_option(bad[k][0], bad[k][1]), NG_ERR_ARGUMENT);
    ck_assert_msg(strstr(ng_last_error(), bad[k][2]), "-%s %s: %s", bad[k][0], bad[k][1], ng_last_error());
  }
  NG_ASSERT_OK(ng_spmv_create(ctx, "sell", &A, &ops, &data));
  ck_assert_uint_eq(ops->bytes(data), sell_expected(&A, 8, 256));
  ops->destroy(data);
  NG_ASSERT_OK(spmv_option(NULL, NULL));
  /* symmetric pattern, asymmetric value */
  ng_csr_free(&A);
  build(&A, 100, 100, len, tri_col);
  for (int32_t i = 0; i < 100; i++)
    for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; p++) A.val[p] = A.col[p] == i ? 4.0 : -1.0;
  NG_ASSERT_OK(ng_spmv_create(ctx, "dia_half", &A, &ops, &data));
  A.val[A.rowptr[50]] = -1.5; /* A(50,49) */
  ck_assert_int_eq(ops->update_values(data, &A), NG_ERR_DOES_NOT_FIT);
  ck_assert_msg(strstr(ng_last_error(), "A(50,49)") || strstr(ng_last_error(), "A(49,50)"), "%s", ng_last_error());
  ops->destroy(data);
  ng_csr_free(&A);
}
END_TEST

/* dia_half's symmetry check on rows the fast check cannot take (the GPU
 * fill checks rows in increasing column order in one pass and falls back
 * to a mirror array for the rest): a symmetric tridiagonal whose rows are
 * stored backwards with A(i, i+1) split in two duplicates (fits, and its
 * update too); the same with one split half changed (refused, naming the
 * pair); and rows in order where A(50,49) has no A(49,50) in the pattern
 * while other rows keep diagonal +1 (refused: the values differ from 0). */
static void tri_backwards(ng_csr *A, int32_t n, int split_at, double split_error)
{
  NG_ASSERT_OK(ng_csr_alloc(A, n, n, 4 * (int64_t)n));
  int64_t p = 0;
  A->rowptr[0] = 0;
  for (int32_t i = 0; i < n; i++) {
    double up = -1.0 - 0.01 * (i % 5); /* A(i, i+1) = A(i+1, i) */
    if (i + 1 < n) {
      A->col[p] = i + 1, A->val[p++] = 0.5 * up + (i == split_at ? split_error : 0.0);
      A->col[p] = i + 1, A->val[p++] = 0.5 * up;
    }
    A->col[p] = i, A->val[p++] = 4.0 + 0.1 * (i % 3);
    if (i > 0) A->col[p] = i - 1, A->val[p++] = -1.0 - 0.01 * ((i - 1) % 5);
    A->rowptr[i + 1] = p;
  }
  A->nnz = p;
}

START_TEST(dia_half_symmetry_paths)
{
  ng_csr A;
  const ng_spmv_ops *ops;
  void *data;
  tri_backwards(&A, 100, -1, 0.0);
  check_all(&A, "tridiagonal, rows backwards, duplicates", " dia dia_half ell ellr sell ", ""); /* codsell refuses duplicates */
  ng_csr_free(&A);
  tri_backwards(&A, 100, 30, 1e-3);
  ck_assert_int_eq(ng_spmv_create(ctx, "dia_half", &A, &ops, &data), NG_ERR_DOES_NOT_FIT);
  ck_assert_msg(strstr(ng_last_error(), "A(31,30)") && strstr(ng_last_error(), "A(30,31)"), "%s", ng_last_error());
  ng_csr_free(&A);
  /* rows in order, A(49,50) left out of the pattern */
  NG_ASSERT_OK(ng_csr_alloc(&A, 100, 100, 297));
  int64_t p = 0;
  A.rowptr[0] = 0;
  for (int32_t i = 0; i < 100; i++) {
    for (int32_t j = i - 1; j <= i + 1; j++)
      if (j >= 0 && j < 100 && !(i == 49 && j == 50)) A.col[p] = j, A.val[p++] = j == i ? 4.0 : -1.0;
    A.rowptr[i + 1] = p;
  }
  ck_assert_int_eq((int)p, 297);
  ck_assert_int_eq(ng_spmv_create(ctx, "dia_half", &A, &ops, &data), NG_ERR_DOES_NOT_FIT);
  ck_assert_msg(strstr(ng_last_error(), "A(50,49) = -1 but A(49,50) = 0"), "%s", ng_last_error());
  /* the same pattern with A(50,49) = 0 is symmetric in value: it fits, and
   * an update giving A(50,49) a value is refused */
  A.val[A.rowptr[50]] = 0.0;
  NG_ASSERT_OK(ng_spmv_create(ctx, "dia_half", &A, &ops, &data));
  check_apply(ops, data, &A, "A(50,49) = 0 without A(49,50)");
  A.val[A.rowptr[50]] = -2.0;
  ck_assert_int_eq(ops->update_values(data, &A), NG_ERR_DOES_NOT_FIT);
  ck_assert_msg(strstr(ng_last_error(), "A(50,49) = -2 but A(49,50) = 0"), "%s", ng_last_error());
  ops->destroy(data);
  ng_csr_free(&A);
}
END_TEST

START_TEST(bad_specs)
{
  ng_csr A;
  const ng_spmv_ops *ops;
  void *data;
  int len[4] = {1, 1, 1, 1};
  build(&A, 4, 4, len, diag_only);
  ck_assert_int_eq(ng_spmv_create(ctx, "nosuch", &A, &ops, &data), NG_ERR_ARGUMENT);
  ck_assert_msg(strstr(ng_last_error(), "sell"), "list of known formats missing: %s", ng_last_error());
  ck_assert_int_eq(ng_spmv_create(ctx, "csr:3", &A, &ops, &data), NG_ERR_ARGUMENT);
  ck_assert_int_eq(ng_spmv_create(ctx, "dia:fast", &A, &ops, &data), NG_ERR_ARGUMENT);
  ck_assert_msg(strstr(ng_last_error(), "fast"), "%s", ng_last_error());
  ck_assert_int_eq(ng_spmv_create(ctx, "sell:0", &A, &ops, &data), NG_ERR_ARGUMENT);
  ck_assert_int_eq(ng_spmv_create(ctx, "sell:32:0", &A, &ops, &data), NG_ERR_ARGUMENT);
  ck_assert_int_eq(ng_spmv_create(ctx, "sell:32:1:5", &A, &ops, &data), NG_ERR_ARGUMENT);
  ck_assert_int_eq(ng_spmv_create(ctx, "ell:maxratio=-1", &A, &ops, &data), NG_ERR_ARGUMENT);
  ck_assert_int_eq(ng_spmv_create(ctx, "dia:3", &A, &ops, &data), NG_ERR_ARGUMENT);
  ng_csr_free(&A);
}
END_TEST

/* "auto" on a block directly (ng_spmv_select, as an AMG level would) and on
 * a matrix (format name and report). */
START_TEST(auto_choice)
{
  ng_csr A;
  double *b = NULL;
  const ng_spmv_ops *ops;
  void *data;
  char report[512];
  NG_ASSERT_OK(ng_generate_csr("lap27:10", &A, &b));
  NG_ASSERT_OK(ng_spmv_select(ctx, &A, &ops, &data, report, sizeof(report)));
  ck_assert_msg(strstr(report, "csr ") && strstr(report, "dia ") && strstr(report, "sell ") && strstr(report, "-> "),
                "report: %s", report);
  ck_assert_msg(strcmp(ops->name, "auto") != 0, "select returned the wrapper");
  check_apply(ops, data, &A, "ng_spmv_select lap27:10");
  ops->destroy(data);

  ng_matrix M;
  NG_ASSERT_OK(ng_matrix_create_csr(ctx, A.nrows, A.ncols, A.rowptr, A.col, A.val, &M));
  ck_assert_str_eq(ng_matrix_format(M), "csr");
  ck_assert_str_eq(ng_spmv_autotune_report(M), "");
  NG_ASSERT_OK(ng_matrix_set_format(M, "auto"));
  ck_assert_msg(!strncmp(ng_matrix_format(M), "auto:", 5), "format %s", ng_matrix_format(M));
  ck_assert_msg(strstr(ng_spmv_autotune_report(M), ng_matrix_format(M) + 5) != NULL, "report %s, format %s",
                ng_spmv_autotune_report(M), ng_matrix_format(M));
  check_apply(M->spmv, M->spmv_data, &A, "auto matrix");
  /* through the public API: y = A x equals the reference, also after a value update */
  for (int64_t p = 0; p < A.nnz; p++) A.val[p] *= 3.0;
  NG_ASSERT_OK(ng_matrix_update_values(M, A.val));
  check_apply(M->spmv, M->spmv_data, &A, "auto matrix after update");
  NG_ASSERT_OK(ng_matrix_set_format(M, "sell:16:64"));
  ck_assert_str_eq(ng_matrix_format(M), "sell:16:64");
  check_apply(M->spmv, M->spmv_data, &A, "sell:16:64 matrix");
  ck_assert_int_eq(ng_matrix_set_format(M, "dia:bogus"), NG_ERR_ARGUMENT);
  ck_assert_str_eq(ng_matrix_format(M), "sell:16:64"); /* a failed switch keeps the old format */
  ng_matrix_destroy(M);
  ng_csr_free(&A);
  ng_free(b);
}
END_TEST

/* ---- auto from the structural profile (issue 13 item 4) ----------------------- */
/* The profile of a small hand-made matrix, counted by hand: rows
 * {0: 0,1}, {1: 0,1,3}, {2: 2}, {3: 1,3}, {4: 0,4}: diagonals 0, +1, -1, +2,
 * -2, -4 (+4 absent: not symmetric). */
START_TEST(auto_profile_by_hand)
{
  static const int64_t rp[6] = {0, 2, 5, 6, 8, 10};
  static const int32_t col[10] = {0, 1, 0, 1, 3, 2, 1, 3, 0, 4};
  static const double val[10] = {4, -1, -1, 4, -1, 4, -1, 4, -1, 4};
  ng_csr A = {5, 5, 10, (int64_t *)rp, (int32_t *)col, (double *)val};
  ng_spmv_profile p;
  NG_ASSERT_OK(ng_spmv_profile_host(&A, &p));
  ck_assert_int_eq(p.n, 5);
  ck_assert_int_eq(p.nnz, 10);
  ck_assert_int_eq(p.max_row, 3);
  ck_assert_int_eq(p.nnz_lower, 8); /* (0,0) (1,0) (1,1) (2,2) (3,1) (3,3) (4,0) (4,4) */
  ck_assert_int_eq(p.ndiag, 6);
  ck_assert_int_eq(p.ndiag_lower, 4); /* 0, -1, -2, -4 */
  ck_assert_int_eq(p.diag_symmetric, 0);
  double lo;
  char why[96];
  ck_assert_int_eq(ng_spmv_predict(&p, "dia_half", &lo, why, sizeof(why)), 1);
  ck_assert_msg(strstr(why, "not symmetric"), "%s", why);
  ck_assert_int_eq(ng_spmv_predict(&p, "dia", &lo, why, sizeof(why)), 1); /* 30 slots > 2 x 10 nonzeros */
  ck_assert_int_eq(ng_spmv_predict(&p, "ell", &lo, why, sizeof(why)), 0);
  ck_assert(lo == 12.0 * 3 * 5 + 16.0 * 5);
  ck_assert_int_eq(ng_spmv_predict(&p, "csr", &lo, why, sizeof(why)), 0);
  ck_assert(lo == 12.0 * 10 + 4.0 * 6 + 16.0 * 5);
  /* rectangular: no diagonals counted */
  ng_csr R = {5, 6, 10, (int64_t *)rp, (int32_t *)col, (double *)val};
  NG_ASSERT_OK(ng_spmv_profile_host(&R, &p));
  ck_assert_int_eq(p.ndiag, -1);
  ck_assert_int_eq(ng_spmv_predict(&p, "dia", &lo, why, sizeof(why)), 1);
  ck_assert_msg(strstr(why, "not square"), "%s", why);
}
END_TEST

/* Refusals predicted from the profile are the converters' own; every lower
 * bound is below the bytes the format really stores (+ x + y). */
static void predict_vs_convert(const ng_csr *A, const char *what)
{
  ng_spmv_profile p;
  NG_ASSERT_OK(ng_spmv_profile_host(A, &p));
#if defined(NG_FORMATS_ON_GPU) && defined(NG_HAVE_CUDA)
  { /* the device computes the same profile */
    void *d = NULL;
    ng_spmv_profile g;
    NG_ASSERT_OK(ng_dcsr_create(ctx, A, &d));
    NG_ASSERT_OK(ng_spmv_profile_cuda(ctx, d, &g));
    ng_dcsr_destroy(d);
    ck_assert_msg(!memcmp(&p, &g, sizeof(p)),
                  "%s: GPU profile (max %lld lower %lld nd %d/%d sym %d) differs from the host's (%lld %lld %d/%d %d)",
                  what, (long long)g.max_row, (long long)g.nnz_lower, (int)g.ndiag, (int)g.ndiag_lower,
                  (int)g.diag_symmetric, (long long)p.max_row, (long long)p.nnz_lower, (int)p.ndiag,
                  (int)p.ndiag_lower, (int)p.diag_symmetric);
  }
#endif
  const char *names[] = {"csr", "dia", "dia_half", "ell", "ellr", "sell", "codsell", NULL};
  for (int k = 0; names[k]; k++) {
    double lo = -1.0;
    char why[96] = "";
    int refused = ng_spmv_predict(&p, names[k], &lo, why, sizeof(why));
    const ng_spmv_ops *ops;
    void *data = NULL;
    ng_status st = ng_spmv_create(ctx, names[k], A, &ops, &data);
    if (refused) {
      ck_assert_msg(st == NG_ERR_DOES_NOT_FIT, "%s: %s predicted refused (%s) but the converter says %s", what,
                    names[k], why, ng_status_name(st));
      ck_assert_msg(strstr(why, names[k]) == why, "%s: reason '%s' does not name %s", what, why, names[k]);
      continue;
    }
    /* dia_half may still refuse on values (pattern symmetric, values not), codsell when it does not pay */
    if (st == NG_ERR_DOES_NOT_FIT && (!strcmp(names[k], "dia_half") || !strcmp(names[k], "codsell"))) continue;
    ck_assert_msg(st == NG_SUCCESS, "%s: %s not predicted refused, converter: %s: %s", what, names[k],
                  ng_status_name(st), ng_last_error());
    double real = (double)ops->bytes(data) + 8.0 * A->ncols + 8.0 * A->nrows;
    ck_assert_msg(lo <= real, "%s: %s lower bound %.0f above its real traffic %.0f", what, names[k], lo, real);
    if (!strcmp(names[k], "dia") || !strcmp(names[k], "dia_half") || !strcmp(names[k], "ell"))
      ck_assert_msg(lo == real, "%s: %s bound %.0f should be exact (%.0f)", what, names[k], lo, real);
    ops->destroy(data);
  }
}

/* A choice with the pruning rule on (-format_auto_prune_mb 0): a registered
 * format, the fastest of those timed, SpMV equal to CSR, every candidate
 * accounted for. */
static void check_choice(const ng_csr *A, const char *what, const char *opt)
{
  const ng_spmv_ops *ops = NULL;
  void *data = NULL;
  ng_auto_breakdown bd;
  NG_ASSERT_OK(ng_spmv_select_from(ctx, A, NULL, NULL, opt, &ops, &data, &bd));
  ck_assert_msg(ops && ops != ng_spmv_find("auto", ctx->on_gpu) && ops == ng_spmv_find(ops->name, ctx->on_gpu),
                "%s: chose no registered format", what);
  ck_assert_str_eq(bd.chosen, ops->name);
  ck_assert_int_eq(bd.pruning, strcmp(opt, "all") != 0);
  ck_assert_int_eq(bd.from_device, 0);
  ck_assert_msg(bd.total_ms >= bd.profile_ms && bd.profile_ms >= 0.0, "%s: times %g %g", what, bd.total_ms,
                bd.profile_ms);
  double best = INFINITY;
  int timed = 0;
  for (int k = 0; k < bd.ncand; k++) {
    const ng_auto_cand *c = &bd.cand[k];
    ck_assert_msg(c->state != NULL, "%s: %s has no state", what, c->name);
    if (!strcmp(c->name, "csr")) ck_assert_str_eq(c->state, "timed");
    if (!strcmp(opt, "all")) ck_assert_msg(strcmp(c->state, "pruned"), "%s: auto:all pruned %s", what, c->name);
    if (!strcmp(c->state, "refused")) ck_assert_msg(*c->why, "%s: %s refused without a reason", what, c->name);
    if (!strcmp(c->state, "timed")) {
      timed++;
      ck_assert_msg(c->bytes >= c->lo_bytes, "%s: %s bytes %.0f below its bound %.0f", what, c->name, c->bytes,
                    c->lo_bytes);
      if (c->spmv_ms < best) best = c->spmv_ms;
    }
  }
  ck_assert_int_ge(timed, 1);
  for (int k = 0; k < bd.ncand; k++)
    if (!strcmp(bd.cand[k].name, ops->name)) ck_assert(bd.cand[k].spmv_ms == best);
  char json[4096];
  ng_auto_breakdown_json(&bd, json, sizeof(json));
  ck_assert_msg(strstr(json, "\"chosen\":\"") && strstr(json, "\"candidates\":[{"), "%s: json %s", what, json);
  check_apply(ops, data, A, what);
  ops->destroy(data);
}

START_TEST(auto_predicted_choice)
{
  NG_ASSERT_OK(spmv_option("format_auto_prune_mb", "0")); /* the pruning rule on these small blocks too */
  const char *gens[] = {"lap7:9", "lap27:8", "fem27:5x6x7", "mps:6", "elast27:4", NULL};
  for (int k = 0; gens[k]; k++) {
    ng_csr A;
    double *b = NULL;
    NG_ASSERT_OK(ng_generate_csr(gens[k], &A, &b));
    predict_vs_convert(&A, gens[k]);
    check_choice(&A, gens[k], "");
    check_choice(&A, gens[k], "all");
    ng_csr_free(&A);
    ng_free(b);
  }
  const char *names[] = {"bcsstk13.mtx", "494_bus.mtx", "jagmesh7.mtx", "west0479.mtx", NULL};
  for (int k = 0; names[k]; k++) {
    ng_csr A;
    NG_ASSERT_OK(ng_mmio_read_csr(ng_test_data(names[k]), &A));
    predict_vs_convert(&A, names[k]);
    check_choice(&A, names[k], "");
    ng_csr_free(&A);
  }
  /* shapes: 1x1, 0x0, empty rows, uneven (ELL refused), rectangular (DIA refused) */
  ng_csr A;
  int len[400];
  len[0] = 1;
  build(&A, 1, 1, len, diag_only);
  predict_vs_convert(&A, "1x1");
  check_choice(&A, "1x1", "");
  ng_csr_free(&A);
  NG_ASSERT_OK(ng_csr_alloc(&A, 0, 0, 0));
  A.rowptr[0] = 0;
  predict_vs_convert(&A, "0x0");
  check_choice(&A, "0x0", "");
  ng_csr_free(&A);
  for (int i = 0; i < 300; i++) len[i] = i % 3 ? 1 : 0;
  build(&A, 300, 300, len, diag_only);
  predict_vs_convert(&A, "empty rows");
  check_choice(&A, "empty rows", "");
  ng_csr_free(&A);
  g_n = 400;
  len[0] = 400;
  for (int i = 1; i < 400; i++) len[i] = 1 + i % 3;
  build(&A, 400, 400, len, dense_first);
  predict_vs_convert(&A, "uneven");
  check_choice(&A, "uneven", "");
  ng_csr_free(&A);
  for (int i = 0; i < 300; i++) len[i] = 1;
  build(&A, 300, 310, len, diag_only);
  predict_vs_convert(&A, "rectangular");
  check_choice(&A, "rectangular", "");
  ng_csr_free(&A);
  NG_ASSERT_OK(spmv_option(NULL, NULL));
}
END_TEST

/* -format_auto_prune_mb, -format_auto_slack and the formats' limits change
 * what -format auto does: which blocks are pruned, the slack, which
 * candidates the profile refuses; a spec's slack= wins over the option. */
static void auto_breakdown(const ng_csr *A, const char *opt, ng_auto_breakdown *bd)
{
  const ng_spmv_ops *ops = NULL;
  void *data = NULL;
  NG_ASSERT_OK(ng_spmv_select_from(ctx, A, NULL, NULL, opt, &ops, &data, bd));
  ops->destroy(data);
}
static const char *cand_state(const ng_auto_breakdown *bd, const char *name)
{
  for (int k = 0; k < bd->ncand; k++)
    if (!strcmp(bd->cand[k].name, name)) return bd->cand[k].state;
  return "absent";
}
START_TEST(auto_options)
{
  ng_csr A;
  double *b = NULL;
  ng_auto_breakdown bd;
  NG_ASSERT_OK(ng_generate_csr("lap7:8", &A, &b)); /* 7 diagonals, rows of 4 to 7 */
  auto_breakdown(&A, "", &bd);
  ck_assert_int_eq(bd.pruning, 0); /* far under 256 MB */
  ck_assert(bd.slack == 1.3);
  NG_ASSERT_OK(spmv_option("format_auto_prune_mb", "0"));
  auto_breakdown(&A, "", &bd);
  ck_assert_int_eq(bd.pruning, 1);
  NG_ASSERT_OK(spmv_option("format_auto_slack", "2.5"));
  auto_breakdown(&A, "", &bd);
  ck_assert(bd.slack == 2.5);
  ck_assert_int_eq(bd.pruning, 0); /* one option at a time: the prune size is the default again */
  auto_breakdown(&A, "slack=1.5", &bd);
  ck_assert(bd.slack == 1.5);
  NG_ASSERT_OK(spmv_option(NULL, NULL));
  auto_breakdown(&A, "all", &bd);
  ck_assert_str_eq(cand_state(&bd, "dia"), "timed");
  ck_assert_str_eq(cand_state(&bd, "ell"), "timed");
  NG_ASSERT_OK(spmv_option("dia_max_diags", "6"));
  auto_breakdown(&A, "all", &bd);
  ck_assert_str_eq(cand_state(&bd, "dia"), "refused");
  ck_assert_str_eq(cand_state(&bd, "ell"), "timed");
  NG_ASSERT_OK(spmv_option("ell_max_ratio", "1.1"));
  auto_breakdown(&A, "all", &bd);
  ck_assert_str_eq(cand_state(&bd, "dia"), "timed");
  ck_assert_str_eq(cand_state(&bd, "ell"), "refused");
  NG_ASSERT_OK(spmv_option(NULL, NULL));
  ng_csr_free(&A);
  ng_free(b);
}
END_TEST

#if defined(NG_FORMATS_ON_GPU) && defined(NG_HAVE_CUDA)
/* ng_csr_cuda_arrays(64) (spmv/spmv.h): the device arrays behind a GPU csr instance */
#define NG_AUTO_LAYOUTS 2 /* the base in the 32-bit and in the 64-bit row offset layout (NG_CSR_OFFSETS64) */
#else
#define NG_AUTO_LAYOUTS 1
#endif

/* Conversions from a CSR instance already on ctx's memory (the matrix's own):
 * each format equals CSR, the base is untouched (its SpMV and, on the GPU,
 * its device values and columns), "csr" and an auto choice of csr take the
 * base over; and at matrix level, -format auto starts from the matrix's CSR
 * and leaves the matrix's values as they were. */
START_TEST(auto_from_matrix_csr)
{
  ng_csr A;
  double *b = NULL;
  NG_ASSERT_OK(ng_generate_csr("fem27:9", &A, &b));
  const ng_spmv_ops *csr = ng_spmv_find("csr", ctx->on_gpu);
  void *base = NULL;
  const char *specs_from[] = {"dia", "dia_half", "ell", "ellr", "sell", "sell:4:1", "codsell:force", "auto",
                              "auto:all", "csr", NULL};
  for (int layout = 0; layout < NG_AUTO_LAYOUTS; layout++) {
    if (layout) setenv("NG_CSR_OFFSETS64", "1", 1);
    NG_ASSERT_OK(csr->create(ctx, &A, &base));
    for (int k = 0; specs_from[k]; k++) {
      const ng_spmv_ops *ops = NULL;
      void *data = NULL, *was = base;
      NG_ASSERT_OK(ng_spmv_create_from(ctx, specs_from[k], &A, csr, &base, &ops, &data));
      check_apply(ops, data, &A, specs_from[k]);
      if (!strncmp(specs_from[k], "auto", 4)) {
        const ng_auto_breakdown *bd = ng_spmv_auto_breakdown(ops, data);
        ck_assert_msg(bd && bd->from_device == 1 && bd->csr_ms == 0.0, "%s: did not start from the base", specs_from[k]);
        ck_assert_msg((base == NULL) == !strcmp(bd->chosen, "csr"), "%s: chose %s, base %s", specs_from[k], bd->chosen,
                      base ? "kept" : "taken");
      }
      if (!strcmp(specs_from[k], "csr")) ck_assert_msg(base == NULL && data == was, "csr: the base was not taken over");
      if (base) { /* untouched */
        check_apply(csr, base, &A, "the base after a conversion");
#if defined(NG_FORMATS_ON_GPU) && defined(NG_HAVE_CUDA)
        int32_t *drp, *dcol;
        int64_t *drp64;
        double *dval, *hv = malloc((size_t)A.nnz * sizeof(double) + 8);
        int32_t *hc = malloc((size_t)A.nnz * sizeof(int32_t) + 4);
        if (layout) NG_ASSERT_OK(ng_csr_cuda_arrays64(csr, base, &drp64, &dcol, &dval));
        else NG_ASSERT_OK(ng_csr_cuda_arrays(csr, base, &drp, &dcol, &dval));
        NG_ASSERT_OK(ctx->vops->download_raw(ctx, hv, dval, (size_t)A.nnz * sizeof(double)));
        NG_ASSERT_OK(ctx->vops->download_raw(ctx, hc, dcol, (size_t)A.nnz * sizeof(int32_t)));
        ck_assert_msg(!memcmp(hv, A.val, (size_t)A.nnz * sizeof(double)), "%s changed the device values", specs_from[k]);
        ck_assert_msg(!memcmp(hc, A.col, (size_t)A.nnz * sizeof(int32_t)), "%s changed the device columns",
                      specs_from[k]);
        free(hv);
        free(hc);
#endif
        ops->destroy(data);
      } else {
        base = data; /* the instance is the base again: it is a csr one */
        ck_assert(ops == csr || ng_spmv_auto_breakdown(ops, data));
        if (ops != csr) { /* auto holding the base: make a fresh one */
          ops->destroy(data);
          NG_ASSERT_OK(csr->create(ctx, &A, &base));
        }
      }
    }
    csr->destroy(base);
    base = NULL;
    unsetenv("NG_CSR_OFFSETS64");
  }
  ck_assert_int_eq(ng_spmv_create_from(ctx, "auto:bogus", &A, NULL, NULL, &csr, &base), NG_ERR_ARGUMENT);
  ck_assert_int_eq(ng_spmv_create(ctx, "auto:slack=0.5", &A, &csr, &base), NG_ERR_ARGUMENT);

  /* at matrix level */
  double *val0 = malloc((size_t)A.nnz * sizeof(double));
  memcpy(val0, A.val, (size_t)A.nnz * sizeof(double));
  ng_matrix M;
  NG_ASSERT_OK(ng_matrix_create_csr(ctx, A.nrows, A.ncols, A.rowptr, A.col, A.val, &M));
  NG_ASSERT_OK(spmv_option("format_auto_prune_mb", "0"));
  NG_ASSERT_OK(ng_matrix_set_format(M, "auto"));
  NG_ASSERT_OK(spmv_option(NULL, NULL));
  const ng_auto_breakdown *bd = ng_spmv_auto_breakdown(M->spmv, M->spmv_data);
  ck_assert_msg(bd && bd->from_device == 1, "matrix auto did not start from the matrix's CSR");
  ck_assert_msg(!memcmp(M->local.val, val0, (size_t)A.nnz * sizeof(double)), "auto changed the matrix's values");
  check_apply(M->spmv, M->spmv_data, &A, "matrix auto");
  NG_ASSERT_OK(ng_matrix_set_format(M, "csr"));
  check_apply(M->spmv, M->spmv_data, &A, "matrix back to csr");
  void *inst = M->spmv_data;
  NG_ASSERT_OK(ng_matrix_set_format(M, "csr"));
  ck_assert_msg(M->spmv_data == inst, "csr -> csr should keep the instance");
  NG_ASSERT_OK(ng_matrix_set_format(M, "sell"));
  check_apply(M->spmv, M->spmv_data, &A, "matrix sell from csr");
  ng_matrix_destroy(M);
  free(val0);
  ng_csr_free(&A);
  ng_free(b);
}
END_TEST

#if defined(NG_FORMATS_ON_GPU) && defined(NG_HAVE_CUDA)
/* ---- GPU converters against the host converters, byte for byte ---------------- */
#define SAME(a, b, count, what)                                                                            \
  ck_assert_msg((count) == 0 || !memcmp((a), (b), (size_t)(count) * sizeof(*(a))), "%s: %s differs from the host's", \
                name, what)

static void gpu_vs_host(const ng_csr *A, const char *name)
{
  ng_spmv_opts o;
  for (int half = 0; half < 2; half++) {
    ng_dia h, g;
    NG_ASSERT_OK(ng_spmv_opts_parse("dia", NULL, &o));
    ng_status sh = ng_dia_build(A, half, &o, &h), sg = ng_dia_build_cuda_host(ctx, A, half, &o, &g);
    ck_assert_msg(sh == sg, "%s: dia(half %d) host %s, GPU %s: %s", name, half, ng_status_name(sh), ng_status_name(sg),
                  ng_last_error());
    if (sh != NG_SUCCESS) continue;
    ck_assert(h.nd == g.nd && h.n == g.n);
    SAME(h.off, g.off, h.nd, "dia offsets");
    SAME(h.val, g.val, (int64_t)h.nd * h.n, "dia values");
    ng_dia_free(&h);
    ng_dia_free(&g);
  }
  for (int ellr = 0; ellr < 2; ellr++) {
    ng_ell h, g;
    NG_ASSERT_OK(ng_spmv_opts_parse("ell", NULL, &o));
    ng_status sh = ng_ell_build(A, ellr, &o, &h), sg = ng_ell_build_cuda_host(ctx, A, ellr, &o, &g);
    ck_assert_msg(sh == sg, "%s: ell(r %d) host %s, GPU %s", name, ellr, ng_status_name(sh), ng_status_name(sg));
    if (sh != NG_SUCCESS) continue;
    ck_assert(h.width == g.width && h.n == g.n);
    SAME(h.col, g.col, (int64_t)h.width * h.n, "ell columns");
    SAME(h.val, g.val, (int64_t)h.width * h.n, "ell values");
    if (ellr) SAME(h.rl, g.rl, h.n, "ellr lengths");
    ng_ell_free(&h);
    ng_ell_free(&g);
  }
  const char *sells[] = {NULL, "4:1", "7:3", "32:1024"};
  for (int k = 0; k < 4; k++) {
    ng_sell h, g;
    NG_ASSERT_OK(ng_spmv_opts_parse("sell", sells[k], &o));
    NG_ASSERT_OK(ng_sell_build(A, &o, &h));
    NG_ASSERT_OK(ng_sell_build_cuda_host(ctx, A, &o, &g));
    ck_assert(h.nslices == g.nslices);
    SAME(h.sptr, g.sptr, h.nslices + 1, "sell slice offsets");
    SAME(h.perm, g.perm, h.n, "sell permutation");
    SAME(h.col, g.col, h.sptr[h.nslices], "sell columns");
    SAME(h.val, g.val, h.sptr[h.nslices], "sell values");
    ng_sell_free(&h);
    ng_sell_free(&g);
  }
  const char *cods[] = {"force", "8:64:force", "2:1:force", "1:force", "16:force"};
  for (int k = 0; k < 5; k++) {
    ng_codsell h, g;
    NG_ASSERT_OK(ng_spmv_opts_parse("codsell", cods[k], &o));
    NG_ASSERT_OK(ng_codsell_build(A, &o, 1, &h));
    NG_ASSERT_OK(ng_codsell_build_cuda_host(ctx, A, &o, &g));
    ck_assert(h.nslices == g.nslices);
    SAME(h.perm, g.perm, h.n, "codsell permutation");
    SAME(h.vptr, g.vptr, h.nslices + 1, "codsell value pointers");
    SAME(h.cptr, g.cptr, h.nslices + 1, "codsell column pointers");
    SAME(h.dptr, g.dptr, h.nslices + 1, "codsell dictionary pointers");
    SAME(h.dict, g.dict, h.dptr[h.nslices], "codsell dictionaries");
    SAME(h.col, g.col, h.cptr[h.nslices], "codsell columns");
    SAME(h.val, g.val, h.vptr[h.nslices], "codsell values");
    ng_codsell_free(&h);
    ng_codsell_free(&g);
  }
}

START_TEST(gpu_conversions_equal_host)
{
  const char *gens[] = {"lap7:9", "lap27:7", "fem27:5x6x7", "mps:6", "elast27:4", "fem27:40"};
  for (int k = 0; k < 6; k++) {
    ng_csr A;
    double *b = NULL;
    NG_ASSERT_OK(ng_generate_csr(gens[k], &A, &b));
    gpu_vs_host(&A, gens[k]);
    ng_csr_free(&A);
    ng_free(b);
  }
  const char *names[] = {"bcsstk13.mtx", "494_bus.mtx", "jagmesh7.mtx", "west0479.mtx"};
  for (int k = 0; k < 4; k++) {
    ng_csr A;
    NG_ASSERT_OK(ng_mmio_read_csr(ng_test_data(names[k]), &A));
    gpu_vs_host(&A, names[k]);
    ng_csr_free(&A);
  }
  /* shapes: 1x1, 0x0, empty rows, uneven */
  ng_csr A;
  int len[400];
  len[0] = 1;
  build(&A, 1, 1, len, diag_only);
  gpu_vs_host(&A, "1x1");
  ng_csr_free(&A);
  NG_ASSERT_OK(ng_csr_alloc(&A, 0, 0, 0));
  A.rowptr[0] = 0;
  gpu_vs_host(&A, "0x0");
  ng_csr_free(&A);
  for (int i = 0; i < 300; i++) len[i] = i % 3 ? 1 : 0;
  build(&A, 300, 300, len, diag_only);
  gpu_vs_host(&A, "empty rows");
  ng_csr_free(&A);
  g_n = 400;
  len[0] = 400;
  for (int i = 1; i < 400; i++) len[i] = 1 + i % 3;
  build(&A, 400, 400, len, dense_first);
  gpu_vs_host(&A, "uneven");
  ng_csr_free(&A);
}
END_TEST
#endif

int main(void)
{
#ifdef NG_FORMATS_ON_GPU
  if (ng_test_no_gpu()) return 77;
  setenv("CK_FORK", "no", 1); /* CUDA does not survive fork() after the device check */
#endif
  Suite *s = suite_create("formats");
  TCase *tc = tcase_create("formats");
  tcase_add_unchecked_fixture(tc, setup, teardown); /* one context: MPI cannot restart */
  tcase_set_timeout(tc, 300); /* make -j check on a loaded machine */
  NG_TEST_ADD(tc, generated_problems);
  NG_TEST_ADD(tc, real_matrices);
  NG_TEST_ADD(tc, special_shapes);
  NG_TEST_ADD(tc, refusal_reasons);
  NG_TEST_ADD(tc, dia_half_symmetry_paths);
  NG_TEST_ADD(tc, bad_specs);
  NG_TEST_ADD(tc, auto_choice);
  NG_TEST_ADD(tc, auto_profile_by_hand);
  NG_TEST_ADD(tc, auto_predicted_choice);
  NG_TEST_ADD(tc, auto_options);
  NG_TEST_ADD(tc, auto_from_matrix_csr);
#if defined(NG_FORMATS_ON_GPU) && defined(NG_HAVE_CUDA)
  NG_TEST_ADD(tc, gpu_conversions_equal_host);
#endif
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
