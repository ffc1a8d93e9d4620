/* test/test_mmio.c: Matrix Market reader and writer: exact round trips,
 * symmetric/skew/pattern/integer expansion on hand-made files, real matrices
 * with counts taken independently from the files, gzip input, one file per
 * malformed-input class (status and line number), write errors, and the
 * public read/write calls on a host context. */
#include "testutil.h"
#include "../core/core.h"
#include <errno.h>
#include <math.h>
#include <unistd.h>
#ifdef NG_HAVE_ZLIB
#include <zlib.h>
#endif

/* Dense copy of a small CSR (row-major), for exact entry checks. */
static void dense(const ng_csr *A, double *D)
{
  memset(D, 0, sizeof(double) * (size_t)A->nrows * (size_t)A->ncols);
  for (int32_t i = 0; i < A->nrows; i++)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) D[(size_t)i * A->ncols + A->col[p]] = A->val[p];
}

/* Bitwise equality of two CSR matrices (values compared as bytes). */
static void assert_same_csr(const ng_csr *A, const ng_csr *B)
{
  ck_assert_int_eq(A->nrows, B->nrows);
  ck_assert_int_eq(A->ncols, B->ncols);
  ck_assert_int_eq(A->nnz, B->nnz);
  ck_assert(memcmp(A->rowptr, B->rowptr, sizeof(int64_t) * ((size_t)A->nrows + 1)) == 0);
  ck_assert(memcmp(A->col, B->col, sizeof(int32_t) * (size_t)A->nnz) == 0);
  ck_assert(memcmp(A->val, B->val, sizeof(double) * (size_t)A->nnz) == 0);
}

/* Whole file into a malloc'ed buffer. */
static char *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  ck_assert((long)fread(b, 1, (size_t)n, f) == n);
  fclose(f);
  b[n] = '\0';
  *len = (size_t)n;
  return b;
}

static void write_text(const char *path, const char *text)
{
  FILE *f = fopen(path, "wb");
  ck_assert(f != NULL);
  ck_assert(fwrite(text, 1, strlen(text), f) == strlen(text));
  ck_assert(fclose(f) == 0);
}

/* Random CSR with values over the whole double range, explicit zeros and -0. */
static void random_csr(ng_csr *A, int32_t nrows, int32_t ncols, int per_row)
{
  ng_coo C;
  double r[3];
  NG_ASSERT_OK(ng_coo_init(&C, nrows, ncols, 0));
  for (int32_t i = 0; i < nrows; i++)
    for (int k = 0; k < per_row; k++) {
      ng_test_random(r, 3);
      int32_t j = (int32_t)((r[0] + 1.0) * 0.5 * ncols);
      if (j >= ncols) j = ncols - 1;
      double v = r[1] * pow(10.0, floor(r[2] * 300.0));
      if (k == 1) v = 0.0;
      if (k == 2) v = -0.0;
      if (k == 3) v = r[1]; /* plain O(1) value with all 53 bits */
      NG_ASSERT_OK(ng_coo_push(&C, i, j, v));
    }
  NG_ASSERT_OK(ng_coo_to_csr(&C, A));
  ng_coo_free(&C);
}

START_TEST(round_trip_exact)
{
  const int32_t shapes[][2] = {{137, 211}, {300, 300}, {1, 1}, {50, 3}};
  for (int s = 0; s < 4; s++) {
    ng_csr A, B, C;
    random_csr(&A, shapes[s][0], shapes[s][1], 8);
    char f1[4096], f2[4096];
    snprintf(f1, sizeof(f1), "%s", ng_test_tmpfile(".mtx"));
    snprintf(f2, sizeof(f2), "%s", ng_test_tmpfile(".mtx"));
    NG_ASSERT_OK(ng_mmio_write_csr(f1, &A));
    NG_ASSERT_OK(ng_mmio_read_csr(f1, &B));
    assert_same_csr(&A, &B);
    NG_ASSERT_OK(ng_mmio_write_csr(f2, &B));
    size_t l1, l2;
    char *b1 = slurp(f1, &l1), *b2 = slurp(f2, &l2);
    ck_assert_int_eq(l1, l2);
    ck_assert(memcmp(b1, b2, l1) == 0);
    ck_assert(strncmp(b1, "%%MatrixMarket matrix coordinate real general\n", 46) == 0);
    free(b1);
    free(b2);
#ifdef NG_HAVE_ZLIB
    char fz[4096];
    snprintf(fz, sizeof(fz), "%s", ng_test_tmpfile(".mtx.gz"));
    NG_ASSERT_OK(ng_mmio_write_csr(fz, &A)); /* written compressed */
    NG_ASSERT_OK(ng_mmio_read_csr(fz, &C));
    assert_same_csr(&A, &C);
    ng_csr_free(&C);
    unlink(fz);
#else
    (void)C;
#endif
    unlink(f1);
    unlink(f2);
    ng_csr_free(&A);
    ng_csr_free(&B);
  }
  /* empty matrix */
  ng_csr E;
  NG_ASSERT_OK(ng_mmio_read_csr(ng_test_data("empty_matrix.mtx"), &E));
  ck_assert_int_eq(E.nrows, 0);
  ck_assert_int_eq(E.nnz, 0);
  ng_csr_free(&E);
}
END_TEST

START_TEST(array_round_trip_exact)
{
  double x[257], *y;
  int32_t n;
  ng_test_random(x, 257);
  for (int i = 0; i < 257; i++) x[i] *= pow(10.0, (i % 61) * 10 - 300);
  x[3] = -0.0;
  x[4] = 0.0;
  char f1[4096], f2[4096];
  snprintf(f1, sizeof(f1), "%s", ng_test_tmpfile(".mtx"));
  snprintf(f2, sizeof(f2), "%s", ng_test_tmpfile(".mtx"));
  NG_ASSERT_OK(ng_mmio_write_array(f1, x, 257));
  NG_ASSERT_OK(ng_mmio_read_array(f1, &y, &n));
  ck_assert_int_eq(n, 257);
  ck_assert(memcmp(x, y, sizeof(x)) == 0);
  NG_ASSERT_OK(ng_mmio_write_array(f2, y, n));
  size_t l1, l2;
  char *b1 = slurp(f1, &l1), *b2 = slurp(f2, &l2);
  ck_assert_int_eq(l1, l2);
  ck_assert(memcmp(b1, b2, l1) == 0);
  ck_assert(strncmp(b1, "%%MatrixMarket matrix array real general\n257 1\n", 47) == 0);
  free(b1);
  free(b2);
  ng_free(y);
  unlink(f1);
  unlink(f2);

  /* hand-made vectors: real with comments/blank lines, integer, coordinate n x 1 */
  NG_ASSERT_OK(ng_mmio_read_array(ng_test_data("vector_small.mtx"), &y, &n));
  ck_assert_int_eq(n, 4);
  const double e1[] = {1.0, -2.5, 3e-300, 0.1};
  ck_assert(memcmp(y, e1, sizeof(e1)) == 0);
  ng_free(y);
  NG_ASSERT_OK(ng_mmio_read_array(ng_test_data("vector_integer.mtx"), &y, &n));
  ck_assert_int_eq(n, 3);
  const double e2[] = {1, -2, 3};
  ck_assert(memcmp(y, e2, sizeof(e2)) == 0);
  ng_free(y);
  NG_ASSERT_OK(ng_mmio_read_array(ng_test_data("vector_coordinate.mtx"), &y, &n));
  ck_assert_int_eq(n, 4);
  const double e3[] = {0, 3.5, 0, -1};
  ck_assert(memcmp(y, e3, sizeof(e3)) == 0);
  ng_free(y);
}
END_TEST

START_TEST(symmetric_skew_pattern_integer)
{
  ng_csr A, B;
  double D[9];
  /* symmetric, lower triangle, comments and blank lines between entries */
  NG_ASSERT_OK(ng_mmio_read_csr(ng_test_data("sym_small.mtx"), &A));
  ck_assert_int_eq(A.nnz, 6); /* 2 diagonal + 2 * 2 off-diagonal */
  dense(&A, D);
  const double es[9] = {4, -1.5, 0, -1.5, 0, 0.25, 0, 0.25, 2};
  for (int k = 0; k < 9; k++) ck_assert_double_eq(D[k], es[k]);
  /* the same matrix stored as its upper triangle */
  NG_ASSERT_OK(ng_mmio_read_csr(ng_test_data("sym_upper.mtx"), &B));
  assert_same_csr(&A, &B);
  ng_csr_free(&A);
  ng_csr_free(&B);

  NG_ASSERT_OK(ng_mmio_read_csr(ng_test_data("skew_small.mtx"), &A));
  ck_assert_int_eq(A.nnz, 6);
  dense(&A, D);
  const double ek[9] = {0, -2, 1.5, 2, 0, -4, -1.5, 4, 0};
  for (int k = 0; k < 9; k++) ck_assert_double_eq(D[k], ek[k]);
  ng_csr_free(&A);

  NG_ASSERT_OK(ng_mmio_read_csr(ng_test_data("pattern_small.mtx"), &A));
  ck_assert_int_eq(A.nrows, 2);
  ck_assert_int_eq(A.ncols, 3);
  ck_assert_int_eq(A.nnz, 3); /* the repeated (1,1) is summed */
  dense(&A, D);
  const double ep[6] = {2, 1, 0, 0, 0, 1};
  for (int k = 0; k < 6; k++) ck_assert_double_eq(D[k], ep[k]);
  ng_csr_free(&A);

  NG_ASSERT_OK(ng_mmio_read_csr(ng_test_data("integer_small.mtx"), &A));
  ck_assert_int_eq(A.nnz, 4);
  dense(&A, D);
  const double ei[9] = {7, 0, -2, 0, 5, 0, -2, 0, 0};
  for (int k = 0; k < 9; k++) ck_assert_double_eq(D[k], ei[k]);
  ng_csr_free(&A);

  /* CRLF line ends and an upper-case banner */
  NG_ASSERT_OK(ng_mmio_read_csr(ng_test_data("crlf_small.mtx"), &A));
  ck_assert_int_eq(A.nnz, 2);
  dense(&A, D);
  ck_assert(D[0] == 1.5 && D[1] == 0 && D[2] == -2e-3 && D[3] == 0);
  ng_csr_free(&A);
}
END_TEST

/* Counts taken from the files themselves with awk (diagonal, off-diagonal,
 * duplicates; none of these files has duplicates):
 *   494_bus  symmetric 1080 entries: 494 diag + 586 off -> 1666
 *   west0479 general 1910 -> 1910
 *   jagmesh7 pattern symmetric 4294: 1138 diag + 3156 off -> 7450
 *   bcsstk13 symmetric 42943: 2003 diag + 40940 off -> 83883
 * and the sum of |a_ij| over the expanded matrix. */
START_TEST(real_matrices)
{
  struct {
    const char *file;
    int32_t n;
    int64_t nnz;
    double abs_sum; /* < 0: pattern, all values 1 */
  } m[] = {{"494_bus.mtx", 494, 1666, 445300.67914300051},
           {"west0479.mtx", 479, 1910, 1902029.1397581857},
           {"jagmesh7.mtx", 1138, 7450, -1},
           {"bcsstk13.mtx", 2003, 83883, 242559567119842.66}};
  for (int k = 0; k < 4; k++) {
    ng_csr A;
    NG_ASSERT_OK(ng_mmio_read_csr(ng_test_data(m[k].file), &A));
    ck_assert_int_eq(A.nrows, m[k].n);
    ck_assert_int_eq(A.ncols, m[k].n);
    ck_assert_int_eq(A.nnz, m[k].nnz);
    NG_ASSERT_OK(ng_csr_validate(&A));
    double s = 0;
    for (int64_t p = 0; p < A.nnz; p++) s += fabs(A.val[p]);
    if (m[k].abs_sum < 0) {
      for (int64_t p = 0; p < A.nnz; p++) ck_assert(A.val[p] == 1.0);
    } else {
      ck_assert_msg(fabs(s - m[k].abs_sum) <= 1e-12 * m[k].abs_sum, "%s: sum |a| %.17g, expected %.17g", m[k].file, s,
                    m[k].abs_sum);
    }
    if (k != 1) ck_assert(ng_csr_is_symmetric(&A, 0.0));
    ng_csr_free(&A);
  }
  /* one known entry each way: 494_bus line "16 1 -9.960159" */
  ng_csr A;
  NG_ASSERT_OK(ng_mmio_read_csr(ng_test_data("494_bus.mtx"), &A));
  ck_assert_int_eq(A.col[A.rowptr[0]], 0);
  ck_assert(A.val[A.rowptr[0]] == 2220.874);
  ck_assert_int_eq(A.col[A.rowptr[0] + 1], 15);
  ck_assert(A.val[A.rowptr[0] + 1] == -9.960159);
  int found = 0;
  for (int64_t p = A.rowptr[15]; p < A.rowptr[16]; p++)
    if (A.col[p] == 0) found = (A.val[p] == -9.960159);
  ck_assert(found);
  ng_csr_free(&A);

  ng_error_clear();
  ck_assert_int_eq(ng_mmio_read_csr(ng_test_data("w156.mtx"), &A), NG_ERR_UNSUPPORTED);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "complex"));
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "w156.mtx:1:"));
  ck_assert_ptr_null(A.rowptr);
}
END_TEST

START_TEST(gzip_input)
{
#ifdef NG_HAVE_ZLIB
  size_t len;
  char *text = slurp(ng_test_data("494_bus.mtx"), &len);
  char fz[4096];
  snprintf(fz, sizeof(fz), "%s", ng_test_tmpfile(".mtx.gz"));
  gzFile g = gzopen(fz, "wb");
  ck_assert(g != NULL);
  ck_assert_int_eq(gzwrite(g, text, (unsigned)len), (int)len);
  ck_assert_int_eq(gzclose(g), Z_OK);
  free(text);
  ng_csr A, B;
  NG_ASSERT_OK(ng_mmio_read_csr(ng_test_data("494_bus.mtx"), &A));
  NG_ASSERT_OK(ng_mmio_read_csr(fz, &B));
  assert_same_csr(&A, &B);
  ng_csr_free(&B);
  /* cut the compressed file in half: an error, never a partial matrix */
  size_t zlen;
  char *z = slurp(fz, &zlen);
  FILE *f = fopen(fz, "wb");
  ck_assert(fwrite(z, 1, zlen / 2, f) == zlen / 2);
  fclose(f);
  free(z);
  ng_status st = ng_mmio_read_csr(fz, &B);
  ck_assert_msg(st == NG_ERR_PARSE, "truncated gzip gave %s: %s", ng_status_name(st), ng_last_error());
  ck_assert_ptr_null(B.rowptr);
  ng_csr_free(&A);
  unlink(fz);
#else
  ng_csr A;
  ck_assert_int_eq(ng_mmio_read_csr("whatever.mtx.gz", &A), NG_ERR_UNSUPPORTED);
  printf("gzip_input: built without zlib, only the refusal is checked\n");
#endif
}
END_TEST

/* Lines of any length: a 300 kB comment and indices padded with 100k zeros. */
START_TEST(long_lines)
{
  size_t pad = 100000, com = 300000;
  char *t = malloc(pad + com + 256), *p = t;
  p += sprintf(p, "%%%%MatrixMarket matrix coordinate real general\n%%");
  memset(p, 'x', com);
  p += com;
  p += sprintf(p, "\n2 2 1\n");
  memset(p, '0', pad);
  p += pad;
  sprintf(p, "2 1 0.5\n");
  char f[4096];
  snprintf(f, sizeof(f), "%s", ng_test_tmpfile(".mtx"));
  write_text(f, t);
  free(t);
  ng_csr A;
  NG_ASSERT_OK(ng_mmio_read_csr(f, &A));
  ck_assert_int_eq(A.nnz, 1);
  ck_assert_int_eq(A.rowptr[1], 0);
  ck_assert_int_eq(A.col[0], 0);
  ck_assert(A.val[0] == 0.5);
  ng_csr_free(&A);
  unlink(f);
}
END_TEST

/* One file per malformed-input class; line = where the message must point. */
static const struct {
  const char *file;
  int array; /* read with ng_mmio_read_array */
  ng_status status;
  int line;
} bad[] = {
    {"no_banner.mtx", 0, NG_ERR_PARSE, 1},
    {"empty.mtx", 0, NG_ERR_PARSE, 1},
    {"bad_banner.mtx", 0, NG_ERR_PARSE, 1},
    {"bad_banner_field.mtx", 0, NG_ERR_PARSE, 1},
    {"bad_banner_object.mtx", 0, NG_ERR_PARSE, 1},
    {"bad_banner_symmetry.mtx", 0, NG_ERR_PARSE, 1},
    {"bad_banner_word.mtx", 0, NG_ERR_PARSE, 1},
    {"bad_size_line.mtx", 0, NG_ERR_PARSE, 3},
    {"size_nonnumeric.mtx", 0, NG_ERR_PARSE, 2},
    {"size_trailing.mtx", 0, NG_ERR_PARSE, 2},
    {"size_negative.mtx", 0, NG_ERR_PARSE, 2},
    {"size_overflow.mtx", 0, NG_ERR_PARSE, 2},
    {"size_overflow_range.mtx", 0, NG_ERR_PARSE, 2},
    {"nnz_too_large.mtx", 0, NG_ERR_PARSE, 2},
    {"nnz_negative.mtx", 0, NG_ERR_PARSE, 2},
    {"no_size_line.mtx", 0, NG_ERR_PARSE, 3},
    {"index_out_of_range.mtx", 0, NG_ERR_PARSE, 4},
    {"index_zero.mtx", 0, NG_ERR_PARSE, 5},
    {"index_nonnumeric.mtx", 0, NG_ERR_PARSE, 4},
    {"index_fractional.mtx", 0, NG_ERR_PARSE, 3},
    {"index_negative.mtx", 0, NG_ERR_PARSE, 3},
    {"value_nonnumeric.mtx", 0, NG_ERR_PARSE, 4},
    {"value_missing.mtx", 0, NG_ERR_PARSE, 4},
    {"value_nan.mtx", 0, NG_ERR_NUMERIC, 4},
    {"value_inf.mtx", 0, NG_ERR_NUMERIC, 3},
    {"value_overflow.mtx", 0, NG_ERR_NUMERIC, 5},
    {"truncated.mtx", 0, NG_ERR_PARSE, 4},
    {"truncated_midline.mtx", 0, NG_ERR_PARSE, 4},
    {"too_many.mtx", 0, NG_ERR_PARSE, 5},
    {"trailing_garbage.mtx", 0, NG_ERR_PARSE, 4},
    {"integer_fractional.mtx", 0, NG_ERR_PARSE, 3},
    {"pattern_with_value.mtx", 0, NG_ERR_PARSE, 3},
    {"skew_diagonal.mtx", 0, NG_ERR_PARSE, 4},
    {"skew_pattern.mtx", 0, NG_ERR_PARSE, 1},
    {"symmetric_nonsquare.mtx", 0, NG_ERR_PARSE, 2},
    {"symmetric_nnz_too_large.mtx", 0, NG_ERR_PARSE, 2},
    {"symmetric_both_triangles.mtx", 0, NG_ERR_PARSE, 5},
    {"nul_byte.mtx", 0, NG_ERR_PARSE, 3},
    {"hermitian.mtx", 0, NG_ERR_UNSUPPORTED, 1},
    {"real_hermitian.mtx", 0, NG_ERR_UNSUPPORTED, 1},
    {"array_wrong_count.mtx", 1, NG_ERR_PARSE, 4},
    {"array_too_many.mtx", 1, NG_ERR_PARSE, 5},
    {"array_two_columns.mtx", 1, NG_ERR_PARSE, 2},
    {"array_nan.mtx", 1, NG_ERR_NUMERIC, 4},
    {"array_two_per_line.mtx", 1, NG_ERR_PARSE, 3},
    {"array_pattern.mtx", 1, NG_ERR_PARSE, 1},
};

START_TEST(malformed_inputs)
{
  int nbad = (int)(sizeof(bad) / sizeof(bad[0]));
  for (int k = 0; k < nbad; k++) {
    char name[256], where[300];
    snprintf(name, sizeof(name), "bad/%s", bad[k].file);
    const char *path = ng_test_data(name);
    char pathcopy[4096];
    snprintf(pathcopy, sizeof(pathcopy), "%s", path);
    ng_error_clear();
    ng_status st;
    if (bad[k].array) {
      double *x = (double *)&st; /* must be reset to NULL */
      int32_t n = 7;
      st = ng_mmio_read_array(pathcopy, &x, &n);
      ck_assert_ptr_null(x);
      ck_assert_int_eq(n, 0);
    } else {
      ng_csr A;
      st = ng_mmio_read_csr(pathcopy, &A);
      ck_assert_ptr_null(A.rowptr);
    }
    ck_assert_msg(st == bad[k].status, "%s: got %s, expected %s: %s", bad[k].file, ng_status_name(st),
                  ng_status_name(bad[k].status), ng_last_error());
    snprintf(where, sizeof(where), "%s:%d: ", bad[k].file, bad[k].line);
    ck_assert_msg(strstr(ng_last_error(), where) != NULL, "%s: message lacks '%s': %s", bad[k].file, where,
                  ng_last_error());
  }
  /* an array-format matrix, read as a sparse matrix */
  ng_csr A;
  ck_assert_int_eq(ng_mmio_read_csr(ng_test_data("vector_small.mtx"), &A), NG_ERR_UNSUPPORTED);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "array"));
  /* the vector reader refuses a matrix */
  double *x;
  int32_t n;
  ck_assert_int_eq(ng_mmio_read_array(ng_test_data("494_bus.mtx"), &x, &n), NG_ERR_PARSE);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "494_bus.mtx:"));
  printf("malformed_inputs: %d bad files checked\n", nbad);
}
END_TEST

/* Found by fuzz/fuzz_mmio_matrix: finite duplicates summing to Inf gave a
 * matrix with an Inf value; now NG_ERR_NUMERIC naming the entry. */
START_TEST(duplicates_summing_to_inf)
{
  const char *f = ng_test_tmpfile(".mtx");
  FILE *fp = fopen(f, "w");
  ck_assert_ptr_nonnull(fp);
  fprintf(fp, "%%%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1e308\n2 3 1e308\n2 3 1e308\n3 3 1\n");
  fclose(fp);
  ng_csr A;
  ck_assert_int_eq(ng_mmio_read_csr(f, &A), NG_ERR_NUMERIC);
  ck_assert_msg(strstr(ng_last_error(), "entries at (2, 3) sum to inf") != NULL, "%s", ng_last_error());
  ck_assert_ptr_null(A.rowptr);
  double *x = NULL;
  int32_t n;
  fp = fopen(f, "w");
  fprintf(fp, "%%%%MatrixMarket matrix coordinate real general\n2 1 2\n2 1 -1e308\n2 1 -1e308\n");
  fclose(fp);
  ck_assert_int_eq(ng_mmio_read_array(f, &x, &n), NG_ERR_NUMERIC);
  ck_assert_ptr_null(x);
  remove(f);
}
END_TEST

START_TEST(io_errors)
{
  ng_csr A;
  ng_error_clear();
  ck_assert_int_eq(ng_mmio_read_csr("/nonexistent-dir/none.mtx", &A), NG_ERR_IO);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "/nonexistent-dir/none.mtx"));
  ck_assert_ptr_nonnull(strstr(ng_last_error(), strerror(ENOENT)));
  ck_assert_int_eq(ng_mmio_read_csr("/", &A), NG_ERR_IO); /* a directory */
  double *x;
  int32_t n;
  ck_assert_int_eq(ng_mmio_read_array("/nonexistent-dir/none.mtx", &x, &n), NG_ERR_IO);

  NG_ASSERT_OK(ng_mmio_read_csr(ng_test_data("sym_small.mtx"), &A));
  ck_assert_int_eq(ng_mmio_write_csr("/nonexistent-dir/out.mtx", &A), NG_ERR_IO);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "/nonexistent-dir/out.mtx"));
  if (access("/dev/full", W_OK) == 0) { /* disk full: the failure shows at write, flush or close */
    ck_assert_int_eq(ng_mmio_write_csr("/dev/full", &A), NG_ERR_IO);
    ck_assert_ptr_nonnull(strstr(ng_last_error(), strerror(ENOSPC)));
    double v[3] = {1, 2, 3};
    ck_assert_int_eq(ng_mmio_write_array("/dev/full", v, 3), NG_ERR_IO);
  }
  /* values that could not be read back are refused before writing */
  A.val[1] = NAN;
  const char *f = ng_test_tmpfile(".mtx");
  ck_assert_int_eq(ng_mmio_write_csr(f, &A), NG_ERR_NUMERIC);
  ck_assert_int_ne(access(f, F_OK), 0);
  double w[2] = {1, INFINITY};
  ck_assert_int_eq(ng_mmio_write_array(f, w, 2), NG_ERR_NUMERIC);
  ng_csr_free(&A);
}
END_TEST

/* Random byte edits (replace, insert, delete, cut) of small valid files: each
 * result is either a valid CSR or a refusal naming "path:LINE:", never a crash
 * (run under valgrind / sanitizers to see memory errors). */
START_TEST(mutated_inputs)
{
  const char *seeds[] = {"sym_small.mtx", "skew_small.mtx", "integer_small.mtx", "pattern_small.mtx",
                         "vector_small.mtx", "crlf_small.mtx"};
  const char alpha[] = "0123456789 .-+eE\n%nNaIi\tx";
  char f[4096];
  snprintf(f, sizeof(f), "%s", ng_test_tmpfile(".mtx"));
  size_t flen = strlen(f);
  int accepted = 0, refused = 0;
  for (int s = 0; s < 6; s++) {
    size_t n;
    char *seed = slurp(ng_test_data(seeds[s]), &n);
    for (int it = 0; it < 300; it++) {
      char buf[1024];
      size_t m = n < sizeof(buf) ? n : sizeof(buf) - 1;
      memcpy(buf, seed, m);
      double r[12];
      ng_test_random(r, 12);
      for (int k = 0; k < 4; k++) {
        int op = (int)((r[3 * k] + 1) * 2) & 3;
        size_t p = m ? (size_t)((r[3 * k + 1] + 1) * 0.5 * m) % m : 0;
        char c = alpha[(size_t)((r[3 * k + 2] + 1) * 0.5 * (sizeof(alpha) - 1)) % (sizeof(alpha) - 1)];
        if (op == 0 && m) buf[p] = c;
        else if (op == 1 && m + 1 < sizeof(buf)) { memmove(buf + p + 1, buf + p, m - p); buf[p] = c; m++; }
        else if (op == 2 && m) { memmove(buf + p, buf + p + 1, m - p - 1); m--; }
        else if (k == 3) m = p;
      }
      FILE *fp = fopen(f, "wb");
      ck_assert(fwrite(buf, 1, m, fp) == m);
      fclose(fp);
      ng_csr A;
      double *x;
      int32_t nx;
      if (ng_mmio_read_csr(f, &A) == NG_SUCCESS) {
        NG_ASSERT_OK(ng_csr_validate(&A));
        ng_csr_free(&A);
        accepted++;
      } else {
        const char *q = strstr(ng_last_error(), f);
        ck_assert_msg(q && q[flen] == ':' && q[flen + 1] >= '0' && q[flen + 1] <= '9', "no path:line in '%s'",
                      ng_last_error());
        refused++;
      }
      if (ng_mmio_read_array(f, &x, &nx) == NG_SUCCESS) ng_free(x);
    }
    free(seed);
  }
  unlink(f);
  printf("mutated_inputs: %d accepted, %d refused with path:line\n", accepted, refused);
}
END_TEST

/* ng_matrix_read_mtx / ng_matrix_write_mtx / ng_vector_read_mtx /
 * ng_vector_write_mtx on a host context. */
START_TEST(public_api)
{
  ng_context ctx;
  ng_matrix M;
  ng_vector x, y, z;
  int64_t n, nnz;
  int32_t nloc;
  NG_ASSERT_OK(ng_context_create("cpu", &ctx));
  NG_ASSERT_OK(ng_matrix_read_mtx(ctx, ng_test_data("494_bus.mtx"), &M));
  NG_ASSERT_OK(ng_matrix_get_size(M, &n, &nloc, &nnz));
  ck_assert_int_eq(n, 494);
  ck_assert_int_eq(nloc, 494);
  ck_assert_int_eq(nnz, 1666);
  NG_ASSERT_OK(ng_vector_create(M, &x));
  NG_ASSERT_OK(ng_vector_create(M, &y));
  NG_ASSERT_OK(ng_vector_create(M, &z));
  NG_ASSERT_OK(ng_vector_fill(x, 1.0));
  NG_ASSERT_OK(ng_matrix_apply(M, x, y));
  double yv[494], zv[494], s = 0;
  NG_ASSERT_OK(ng_vector_get_values(y, yv));
  for (int i = 0; i < 494; i++) s += yv[i];
  /* sum of all expanded entries, computed from the file with awk */
  ck_assert_msg(fabs(s - 2198.6557469999898) < 1e-9, "sum %.17g", s);

  char fv[4096], fm[4096];
  snprintf(fv, sizeof(fv), "%s", ng_test_tmpfile(".mtx"));
  snprintf(fm, sizeof(fm), "%s", ng_test_tmpfile(".mtx"));
  NG_ASSERT_OK(ng_vector_write_mtx(y, fv));
  NG_ASSERT_OK(ng_vector_read_mtx(z, fv));
  NG_ASSERT_OK(ng_vector_get_values(z, zv));
  ck_assert(memcmp(yv, zv, sizeof(yv)) == 0);
  ck_assert_int_eq(ng_vector_read_mtx(z, ng_test_data("vector_small.mtx")), NG_ERR_ARGUMENT); /* 4 != 494 */
  ck_assert_int_eq(ng_vector_read_mtx(z, ng_test_data("bad/array_nan.mtx")), NG_ERR_NUMERIC);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "array_nan.mtx:4:"));

  ng_csr A, B;
  NG_ASSERT_OK(ng_matrix_write_mtx(M, fm));
  NG_ASSERT_OK(ng_mmio_read_csr(fm, &A));
  NG_ASSERT_OK(ng_mmio_read_csr(ng_test_data("494_bus.mtx"), &B));
  assert_same_csr(&A, &B);
  ng_csr_free(&A);
  ng_csr_free(&B);

  ng_matrix M2 = NULL;
  ck_assert_int_eq(ng_matrix_read_mtx(ctx, ng_test_data("bad/index_zero.mtx"), &M2), NG_ERR_PARSE);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "index_zero.mtx:5:"));
  ck_assert_int_eq(ng_matrix_read_mtx(ctx, ng_test_data("w156.mtx"), &M2), NG_ERR_UNSUPPORTED);

  unlink(fv);
  unlink(fm);
  ng_vector_destroy(x);
  ng_vector_destroy(y);
  ng_vector_destroy(z);
  ng_matrix_destroy(M);
  ng_context_destroy(ctx);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("mmio");
  TCase *tc = tcase_create("mmio");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, round_trip_exact);
  tcase_add_test(tc, array_round_trip_exact);
  tcase_add_test(tc, symmetric_skew_pattern_integer);
  tcase_add_test(tc, real_matrices);
  tcase_add_test(tc, gzip_input);
  tcase_add_test(tc, long_lines);
  tcase_add_test(tc, malformed_inputs);
  tcase_add_test(tc, io_errors);
  tcase_add_test(tc, duplicates_summing_to_inf);
  tcase_add_test(tc, mutated_inputs);
  tcase_add_test(tc, public_api);
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
