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
#include "../core/internal.h"
#include "../spmv/formats.h"
#include <math.h>

#ifdef NG_FORMATS_ON_GPU
#define RESOURCE "gpu"
#else
#define RESOURCE "cpu"
#endif

static ng_context ctx;
static void setup(void) { NG_ASSERT_OK(ng_context_create(RESOURCE, &ctx)); }
static void teardown(void) { ng_context_destroy(ctx); }

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
  /* environment defaults, overridden by the spec */
  setenv("NG_DIA_MAX_DIAGS", "2", 1);
  ck_assert_int_eq(ng_spmv_create(ctx, "dia", &A, &ops, &data), NG_ERR_DOES_NOT_FIT);
  NG_ASSERT_OK(ng_spmv_create(ctx, "dia:maxdiag=3", &A, &ops, &data));
  ops->destroy(data);
  setenv("NG_DIA_MAX_DIAGS", "lots", 1);
  ck_assert_int_eq(ng_spmv_create(ctx, "dia", &A, &ops, &data), NG_ERR_ARGUMENT);
  ck_assert_msg(strstr(ng_last_error(), "NG_DIA_MAX_DIAGS='lots'"), "%s", ng_last_error());
  unsetenv("NG_DIA_MAX_DIAGS");
  setenv("NG_SELL_C", "8", 1);
  NG_ASSERT_OK(ng_spmv_create(ctx, "sell", &A, &ops, &data));
  ck_assert_uint_eq(ops->bytes(data), sell_expected(&A, 8, 256)); /* C from the environment */
  ck_assert_uint_ne(sell_expected(&A, 8, 256), sell_expected(&A, 32, 256));
  ops->destroy(data);
  unsetenv("NG_SELL_C");
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
  tcase_add_test(tc, generated_problems);
  tcase_add_test(tc, real_matrices);
  tcase_add_test(tc, special_shapes);
  tcase_add_test(tc, refusal_reasons);
  tcase_add_test(tc, bad_specs);
  tcase_add_test(tc, auto_choice);
#if defined(NG_FORMATS_ON_GPU) && defined(NG_HAVE_CUDA)
  tcase_add_test(tc, gpu_conversions_equal_host);
#endif
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
