/* core/mmio.c: Matrix Market reader and writer.
 *
 * Reads coordinate real/integer/pattern matrices (general, symmetric,
 * skew-symmetric; symmetric parts mirrored, duplicates summed) and array
 * (dense n x 1) vectors, through zlib when built with it (gzopen reads plain
 * files too). Writes coordinate real general and array real general with
 * %.17g, so values round-trip exactly.
 *
 * Every malformed input is a status, never a crash: NG_ERR_PARSE (or
 * NG_ERR_NUMERIC for NaN/Inf values) with "path:LINE: what". Lines are read
 * through a block buffer into a growing line buffer, so any line length works
 * (up to NG_MM_MAX_LINE, past which the line is refused); numbers are read with
 * strtoll/strtod and end-pointer checks. Numbers are read and written in the
 * "C" locale whatever the caller's LC_NUMERIC.
 *
 * Choice for symmetric / skew-symmetric files: the standard stores the lower
 * triangle. A file that stores only the upper triangle is accepted too (each
 * entry is mirrored the same way), but a file that mixes entries above and
 * below the diagonal is refused at the first entry on the other side, since
 * mirroring both would silently double them. Diagonal entries are never
 * mirrored (so never doubled); in a skew-symmetric file they are an error. */
#include "core.h"
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <strings.h>
#ifdef NG_HAVE_ZLIB
#include <zlib.h>
#endif

#define NG_MM_BLOCK (64 * 1024)
#define NG_MM_MAX_LINE ((size_t)64 * 1024 * 1024)
/* First allocation for entries; more is grown as entries actually arrive, so
 * a header announcing a huge count cannot make us reserve memory up front. */
#define NG_MM_INITIAL_CAP ((int64_t)1 << 20)

/* ---- reading lines --------------------------------------------------------- */

typedef struct {
  const char *path;
  FILE *f;
#ifdef NG_HAVE_ZLIB
  gzFile gz;
#endif
  char *blk;           /* raw block buffer */
  size_t blen, bpos;   /* bytes in blk, next byte to use */
  int eof;
  char *line;          /* current line, NUL-terminated, '\n' and '\r' stripped */
  size_t lcap;
  int64_t lineno;      /* number of the current line (1-based) */
} mm_reader;

static int ends_with_gz(const char *path)
{
  size_t n = strlen(path);
  return n >= 3 && strcmp(path + n - 3, ".gz") == 0;
}

static ng_status mm_open(mm_reader *R, const char *path)
{
  memset(R, 0, sizeof(*R));
  R->path = path;
#ifdef NG_HAVE_ZLIB
  errno = 0;
  R->gz = gzopen(path, "rb");
  if (!R->gz)
    return NG_ERROR(NG_ERR_IO, "cannot open %s: %s", path, errno ? strerror(errno) : "zlib could not open it");
#else
  if (ends_with_gz(path))
    return NG_ERROR(NG_ERR_UNSUPPORTED, "cannot read %s: this nagare was built without zlib (configure --with-zlib)", path);
  R->f = fopen(path, "rb");
  if (!R->f) return NG_ERROR(NG_ERR_IO, "cannot open %s: %s", path, strerror(errno));
#endif
  ng_status st = NG_MALLOC(R->blk, NG_MM_BLOCK);
  if (st == NG_SUCCESS) st = NG_MALLOC(R->line, 256);
  if (st != NG_SUCCESS) {
#ifdef NG_HAVE_ZLIB
    gzclose(R->gz);
    R->gz = NULL;
#else
    fclose(R->f);
    R->f = NULL;
#endif
    ng_free(R->blk);
    R->blk = NULL;
    return st;
  }
  R->lcap = 256;
  return NG_SUCCESS;
}

static void mm_close(mm_reader *R)
{
#ifdef NG_HAVE_ZLIB
  if (R->gz) gzclose(R->gz);
#endif
  if (R->f) fclose(R->f);
  ng_free(R->blk);
  ng_free(R->line);
  memset(R, 0, sizeof(*R));
}

/* Refills the block buffer; sets eof at the end of the input. */
static ng_status mm_fill(mm_reader *R)
{
  R->bpos = 0;
  R->blen = 0;
#ifdef NG_HAVE_ZLIB
  int k = gzread(R->gz, R->blk, NG_MM_BLOCK);
  int zerr = Z_OK;
  const char *zmsg = gzerror(R->gz, &zerr);
  if (k < 0 || (zerr != Z_OK && zerr != Z_BUF_ERROR))
    return NG_ERROR(NG_ERR_IO, "%s:%lld: read error: %s", R->path, (long long)R->lineno,
                    zerr == Z_ERRNO ? strerror(errno) : zmsg);
  if (k == 0) {
    /* Z_BUF_ERROR at the end: the gzip stream stops in the middle. */
    if (zerr == Z_BUF_ERROR)
      return NG_ERROR(NG_ERR_PARSE, "%s:%lld: compressed data ends early (truncated gzip file)", R->path,
                      (long long)R->lineno);
    R->eof = 1;
  }
  R->blen = (size_t)k;
#else
  size_t k = fread(R->blk, 1, NG_MM_BLOCK, R->f);
  if (k == 0) {
    if (ferror(R->f))
      return NG_ERROR(NG_ERR_IO, "%s:%lld: read error: %s", R->path, (long long)R->lineno, strerror(errno));
    R->eof = 1;
  }
  R->blen = k;
#endif
  return NG_SUCCESS;
}

/* Next line into R->line. *got is 0 at the end of the input. */
static ng_status mm_getline(mm_reader *R, int *got)
{
  size_t len = 0;
  int any = 0;
  *got = 0;
  for (;;) {
    if (R->bpos == R->blen) {
      if (R->eof) break;
      NG_CHECK(mm_fill(R));
      if (R->eof) break;
    }
    any = 1;
    char *start = R->blk + R->bpos;
    size_t avail = R->blen - R->bpos;
    char *nl = memchr(start, '\n', avail);
    size_t take = nl ? (size_t)(nl - start) : avail;
    if (len + take + 1 > R->lcap) {
      if (len + take + 1 > NG_MM_MAX_LINE)
        return NG_ERROR(NG_ERR_PARSE, "%s:%lld: line longer than %zu bytes", R->path, (long long)R->lineno + 1,
                        NG_MM_MAX_LINE);
      size_t cap = R->lcap;
      while (cap < len + take + 1) cap *= 2;
      NG_CHECK(ng_host_realloc((void **)&R->line, cap, 1, "a text line"));
      R->lcap = cap;
    }
    memcpy(R->line + len, start, take);
    len += take;
    R->bpos += take + (nl ? 1 : 0);
    if (nl) break;
  }
  if (!any) return NG_SUCCESS;
  R->lineno++;
  R->line[len] = '\0';
  if (memchr(R->line, '\0', len))
    return NG_ERROR(NG_ERR_PARSE, "%s:%lld: NUL byte in a text line (binary file?)", R->path, (long long)R->lineno);
  if (len > 0 && R->line[len - 1] == '\r') R->line[len - 1] = '\0'; /* CRLF files */
  *got = 1;
  return NG_SUCCESS;
}

static int is_blank(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

static const char *skip_blank(const char *s)
{
  while (is_blank((unsigned char)*s)) s++;
  return s;
}

/* Next line that is neither blank nor a % comment; *got 0 at the end. */
static ng_status mm_next_data_line(mm_reader *R, int *got)
{
  for (;;) {
    NG_CHECK(mm_getline(R, got));
    if (!*got) return NG_SUCCESS;
    const char *s = skip_blank(R->line);
    if (*s != '\0' && *s != '%') return NG_SUCCESS;
  }
}

/* ---- numbers --------------------------------------------------------------- */

/* Copies the token at s (for messages), shortened when long. */
static const char *token_text(const char *s, char *buf, size_t n)
{
  size_t k = 0;
  while (s[k] && !is_blank((unsigned char)s[k]) && k + 1 < n) k++;
  memcpy(buf, s, k);
  buf[k] = '\0';
  if (k + 1 == n && s[k] && !is_blank((unsigned char)s[k]) && n > 4) strcpy(buf + n - 4, "...");
  return buf;
}

/* Integer token at *s (after blanks); advances *s. what names it in messages. */
static ng_status parse_int(const mm_reader *R, const char **s, const char *what, long long *value)
{
  char tok[48];
  const char *p = skip_blank(*s);
  if (*p == '\0') return NG_ERROR(NG_ERR_PARSE, "%s:%lld: missing %s", R->path, (long long)R->lineno, what);
  char *end;
  errno = 0;
  long long v = strtoll(p, &end, 10);
  if (end == p || (*end != '\0' && !is_blank((unsigned char)*end)))
    return NG_ERROR(NG_ERR_PARSE, "%s:%lld: %s '%s' is not an integer", R->path, (long long)R->lineno, what,
                    token_text(p, tok, sizeof(tok)));
  if (errno == ERANGE)
    return NG_ERROR(NG_ERR_PARSE, "%s:%lld: %s '%s' overflows (size overflow)", R->path, (long long)R->lineno, what,
                    token_text(p, tok, sizeof(tok)));
  *value = v;
  *s = end;
  return NG_SUCCESS;
}

/* Real token at *s; NaN/Inf and overflow are NG_ERR_NUMERIC. */
static ng_status parse_real(const mm_reader *R, const char **s, const char *what, double *value)
{
  char tok[48];
  const char *p = skip_blank(*s);
  if (*p == '\0') return NG_ERROR(NG_ERR_PARSE, "%s:%lld: missing %s", R->path, (long long)R->lineno, what);
  char *end;
  errno = 0;
  double v = strtod(p, &end);
  if (end == p || (*end != '\0' && !is_blank((unsigned char)*end)))
    return NG_ERROR(NG_ERR_PARSE, "%s:%lld: %s '%s' is not a number", R->path, (long long)R->lineno, what,
                    token_text(p, tok, sizeof(tok)));
  if (!isfinite(v)) /* "nan", "inf", or a finite literal too large (ERANGE) */
    return NG_ERROR(NG_ERR_NUMERIC, "%s:%lld: %s '%s' is not finite (NaN/Inf or out of double range)", R->path,
                    (long long)R->lineno, what, token_text(p, tok, sizeof(tok)));
  *value = v; /* ERANGE on underflow gives a denormal or zero: accepted */
  *s = end;
  return NG_SUCCESS;
}

static ng_status expect_end(const mm_reader *R, const char *s, const char *after)
{
  char tok[48];
  s = skip_blank(s);
  if (*s != '\0')
    return NG_ERROR(NG_ERR_PARSE, "%s:%lld: unexpected '%s' after %s", R->path, (long long)R->lineno,
                    token_text(s, tok, sizeof(tok)), after);
  return NG_SUCCESS;
}

/* ---- header ---------------------------------------------------------------- */

enum { MM_REAL, MM_INTEGER, MM_PATTERN };
enum { MM_GENERAL, MM_SYMMETRIC, MM_SKEW };

typedef struct {
  int array;     /* 1: array format, 0: coordinate */
  int field;     /* MM_REAL / MM_INTEGER / MM_PATTERN */
  int symmetry;  /* MM_GENERAL / MM_SYMMETRIC / MM_SKEW */
  int32_t nrows, ncols;
  int64_t nnz;   /* entries (coordinate) or values (array) announced */
} mm_header;

/* Next blank-separated word of the banner into w (truncated to n). */
static const char *banner_word(const char *s, char *w, size_t n)
{
  s = skip_blank(s);
  size_t k = 0;
  while (*s && !is_blank((unsigned char)*s)) {
    if (k + 1 < n) w[k++] = *s;
    s++;
  }
  w[k] = '\0';
  return s;
}

static ng_status size_value(const mm_reader *R, const char **s, const char *what, int32_t *v)
{
  long long x;
  NG_CHECK(parse_int(R, s, what, &x));
  if (x < 0) return NG_ERROR(NG_ERR_PARSE, "%s:%lld: negative %s %lld", R->path, (long long)R->lineno, what, x);
  if (x > INT32_MAX)
    return NG_ERROR(NG_ERR_PARSE, "%s:%lld: %s %lld exceeds %d (size overflow: 32-bit indices)", R->path,
                    (long long)R->lineno, what, x, INT32_MAX);
  *v = (int32_t)x;
  return NG_SUCCESS;
}

/* Banner, comments and size line. Complex/hermitian are NG_ERR_UNSUPPORTED. */
static ng_status mm_read_header(mm_reader *R, mm_header *H)
{
  int got;
  char w[5][32];
  memset(H, 0, sizeof(*H));
  NG_CHECK(mm_getline(R, &got));
  if (!got)
    return NG_ERROR(NG_ERR_PARSE, "%s:1: empty file, expected the %%%%MatrixMarket banner", R->path);
  const char *s = R->line;
  if (strncmp(s, "%%MatrixMarket", 14) != 0 || (s[14] != '\0' && !is_blank((unsigned char)s[14])))
    return NG_ERROR(NG_ERR_PARSE, "%s:1: missing %%%%MatrixMarket banner (not a Matrix Market file)", R->path);
  s += 14;
  for (int k = 0; k < 4; k++) s = banner_word(s, w[k], sizeof(w[k]));
  banner_word(s, w[4], sizeof(w[4]));
  if (!w[3][0])
    return NG_ERROR(NG_ERR_PARSE, "%s:1: bad banner: expected '%%%%MatrixMarket matrix <format> <field> <symmetry>'",
                    R->path);
  if (w[4][0]) return NG_ERROR(NG_ERR_PARSE, "%s:1: bad banner: unexpected '%s' after the symmetry", R->path, w[4]);
  if (strcasecmp(w[0], "matrix") != 0)
    return NG_ERROR(NG_ERR_PARSE, "%s:1: bad banner: unknown object '%s' (expected matrix)", R->path, w[0]);
  if (strcasecmp(w[1], "coordinate") == 0) H->array = 0;
  else if (strcasecmp(w[1], "array") == 0) H->array = 1;
  else return NG_ERROR(NG_ERR_PARSE, "%s:1: bad banner: unknown format '%s' (coordinate or array)", R->path, w[1]);
  if (strcasecmp(w[2], "real") == 0) H->field = MM_REAL;
  else if (strcasecmp(w[2], "integer") == 0) H->field = MM_INTEGER;
  else if (strcasecmp(w[2], "pattern") == 0) H->field = MM_PATTERN;
  else if (strcasecmp(w[2], "complex") == 0)
    return NG_ERROR(NG_ERR_UNSUPPORTED, "%s:1: complex matrices are not supported (real, integer, pattern only)", R->path);
  else return NG_ERROR(NG_ERR_PARSE, "%s:1: bad banner: unknown field '%s'", R->path, w[2]);
  if (strcasecmp(w[3], "general") == 0) H->symmetry = MM_GENERAL;
  else if (strcasecmp(w[3], "symmetric") == 0) H->symmetry = MM_SYMMETRIC;
  else if (strcasecmp(w[3], "skew-symmetric") == 0) H->symmetry = MM_SKEW;
  else if (strcasecmp(w[3], "hermitian") == 0)
    return NG_ERROR(NG_ERR_UNSUPPORTED, "%s:1: hermitian matrices are complex; complex is not supported", R->path);
  else return NG_ERROR(NG_ERR_PARSE, "%s:1: bad banner: unknown symmetry '%s'", R->path, w[3]);
  if (H->field == MM_PATTERN && H->symmetry == MM_SKEW)
    return NG_ERROR(NG_ERR_PARSE, "%s:1: bad banner: a pattern matrix cannot be skew-symmetric", R->path);
  if (H->field == MM_PATTERN && H->array)
    return NG_ERROR(NG_ERR_PARSE, "%s:1: bad banner: the array format has no pattern field", R->path);

  NG_CHECK(mm_next_data_line(R, &got));
  if (!got)
    return NG_ERROR(NG_ERR_PARSE, "%s:%lld: file ends before the size line", R->path, (long long)R->lineno);
  s = R->line;
  NG_CHECK(size_value(R, &s, "row count in the size line", &H->nrows));
  NG_CHECK(size_value(R, &s, "column count in the size line", &H->ncols));
  if (H->array) {
    NG_CHECK(expect_end(R, s, "the size line 'rows cols'"));
    H->nnz = (int64_t)H->nrows * H->ncols;
  } else {
    long long nnz;
    NG_CHECK(parse_int(R, &s, "entry count in the size line", &nnz));
    NG_CHECK(expect_end(R, s, "the size line 'rows cols entries'"));
    if (nnz < 0) return NG_ERROR(NG_ERR_PARSE, "%s:%lld: negative entry count %lld", R->path, (long long)R->lineno, nnz);
    H->nnz = nnz;
  }
  if (H->symmetry != MM_GENERAL && H->nrows != H->ncols)
    return NG_ERROR(NG_ERR_PARSE, "%s:%lld: %s matrix must be square, size is %d x %d", R->path, (long long)R->lineno,
                    H->symmetry == MM_SKEW ? "a skew-symmetric" : "a symmetric", (int)H->nrows, (int)H->ncols);
  if (!H->array) {
    int64_t n = H->nrows, most = n * (int64_t)H->ncols; /* < 2^62: no overflow */
    const char *bound = "rows*cols";
    if (H->symmetry == MM_SYMMETRIC) { most = n * (n + 1) / 2; bound = "n(n+1)/2 (lower triangle)"; }
    if (H->symmetry == MM_SKEW) { most = n * (n - 1) / 2; bound = "n(n-1)/2 (strict lower triangle)"; }
    if (H->nnz > most)
      return NG_ERROR(NG_ERR_PARSE, "%s:%lld: entry count %lld exceeds %s = %lld", R->path, (long long)R->lineno,
                      (long long)H->nnz, bound, (long long)most);
  }
  return NG_SUCCESS;
}

/* Runs f with LC_NUMERIC = "C" for this thread (strtod/printf decimal point). */
typedef struct { locale_t c, old; } mm_locale;
static void locale_c_begin(mm_locale *L)
{
  L->c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
  L->old = L->c ? uselocale(L->c) : (locale_t)0;
}
static void locale_c_end(mm_locale *L)
{
  if (L->c) {
    uselocale(L->old);
    freelocale(L->c);
  }
}

/* ---- coordinate entries -------------------------------------------------- */

static ng_status mm_read_coordinate(mm_reader *R, const mm_header *H, ng_csr *A)
{
  ng_coo C;
  ng_status st;
  int64_t cap = H->nnz * (H->symmetry == MM_GENERAL ? 1 : 2);
  if (cap > NG_MM_INITIAL_CAP) cap = NG_MM_INITIAL_CAP;
  NG_CHECK(ng_coo_init(&C, H->nrows, H->ncols, cap));
  int side = 0;            /* symmetric files: +1 lower triangle, -1 upper, 0 not yet known */
  int64_t side_line = 0;   /* line that fixed it */
  for (int64_t k = 0; k < H->nnz; k++) {
    int got;
    NG_CHECK_GOTO(st, mm_next_data_line(R, &got), fail);
    if (!got) {
      st = NG_ERROR(NG_ERR_PARSE, "%s:%lld: truncated: expected %lld entries, file ends after %lld", R->path,
                    (long long)R->lineno, (long long)H->nnz, (long long)k);
      goto fail;
    }
    const char *s = R->line;
    long long i, j;
    double v = 1.0;
    NG_CHECK_GOTO(st, parse_int(R, &s, "row index", &i), fail);
    NG_CHECK_GOTO(st, parse_int(R, &s, "column index", &j), fail);
    if (i < 1 || i > H->nrows || j < 1 || j > H->ncols) {
      st = NG_ERROR(NG_ERR_PARSE, "%s:%lld: index (%lld, %lld) out of range: rows 1..%d, columns 1..%d", R->path,
                    (long long)R->lineno, i, j, (int)H->nrows, (int)H->ncols);
      goto fail;
    }
    if (H->field == MM_REAL) {
      NG_CHECK_GOTO(st, parse_real(R, &s, "value", &v), fail);
    } else if (H->field == MM_INTEGER) {
      long long iv;
      NG_CHECK_GOTO(st, parse_int(R, &s, "integer value", &iv), fail);
      v = (double)iv;
    }
    NG_CHECK_GOTO(st, expect_end(R, s, H->field == MM_PATTERN ? "a pattern entry 'i j'" : "the entry 'i j value'"), fail);
    int32_t r = (int32_t)(i - 1), c = (int32_t)(j - 1);
    if (H->symmetry == MM_SKEW && r == c) {
      st = NG_ERROR(NG_ERR_PARSE, "%s:%lld: diagonal entry (%lld, %lld) in a skew-symmetric file (its diagonal is zero)",
                    R->path, (long long)R->lineno, i, j);
      goto fail;
    }
    if (H->symmetry != MM_GENERAL && r != c) {
      int here = r > c ? 1 : -1;
      if (side == 0) {
        side = here;
        side_line = R->lineno;
      } else if (here != side) {
        st = NG_ERROR(NG_ERR_PARSE,
                      "%s:%lld: entry (%lld, %lld) is %s the diagonal but line %lld stored the %s triangle; a symmetric "
                      "file stores one triangle only",
                      R->path, (long long)R->lineno, i, j, here > 0 ? "below" : "above", (long long)side_line,
                      side > 0 ? "lower" : "upper");
        goto fail;
      }
    }
    NG_CHECK_GOTO(st, ng_coo_push(&C, r, c, v), fail);
    if (H->symmetry != MM_GENERAL && r != c)
      NG_CHECK_GOTO(st, ng_coo_push(&C, c, r, H->symmetry == MM_SKEW ? -v : v), fail);
  }
  {
    int got;
    NG_CHECK_GOTO(st, mm_next_data_line(R, &got), fail);
    if (got) {
      st = NG_ERROR(NG_ERR_PARSE, "%s:%lld: more entries than the %lld announced", R->path, (long long)R->lineno,
                    (long long)H->nnz);
      goto fail;
    }
  }
  NG_CHECK_GOTO(st, ng_coo_to_csr(&C, A), fail);
  ng_coo_free(&C);
  /* every value was finite, but duplicates are summed: 1e308 + 1e308 */
  for (int32_t r = 0; r < A->nrows; r++)
    for (int64_t p = A->rowptr[r]; p < A->rowptr[r + 1]; p++)
      if (!isfinite(A->val[p])) {
        st = NG_ERROR(NG_ERR_NUMERIC, "%s: the duplicate entries at (%d, %d) sum to %g (each is finite)", R->path,
                      (int)r + 1, (int)A->col[p] + 1, A->val[p]);
        ng_csr_free(A);
        return st;
      }
  return NG_SUCCESS;
fail:
  ng_coo_free(&C);
  return st;
}

ng_status ng_mmio_read_csr(const char *path, ng_csr *A)
{
  mm_reader R;
  mm_header H;
  mm_locale L;
  ng_status st;
  NG_ASSERT_ARG(path && A, "ng_mmio_read_csr: null argument");
  memset(A, 0, sizeof(*A));
  NG_CHECK(mm_open(&R, path));
  locale_c_begin(&L);
  NG_CHECK_GOTO(st, mm_read_header(&R, &H), done);
  if (H.array) {
    st = NG_ERROR(NG_ERR_UNSUPPORTED, "%s:1: array (dense) format matrices are not supported; use coordinate", path);
    goto done;
  }
  NG_CHECK_GOTO(st, mm_read_coordinate(&R, &H, A), done);
done:
  locale_c_end(&L);
  mm_close(&R);
  return st;
}

/* Array vector: "rows 1" then one value per line. A coordinate file with one
 * column is accepted too (missing entries are zero). */
ng_status ng_mmio_read_array(const char *path, double **x, int32_t *n)
{
  mm_reader R;
  mm_header H;
  mm_locale L;
  ng_status st;
  double *v = NULL;
  NG_ASSERT_ARG(path && x && n, "ng_mmio_read_array: null argument");
  *x = NULL;
  *n = 0;
  NG_CHECK(mm_open(&R, path));
  locale_c_begin(&L);
  NG_CHECK_GOTO(st, mm_read_header(&R, &H), done);
  if (H.ncols != 1) {
    st = NG_ERROR(NG_ERR_PARSE, "%s:%lld: a vector has 1 column, this file has %d", path, (long long)R.lineno,
                  (int)H.ncols);
    goto done;
  }
  if (!H.array) {
    ng_csr A;
    NG_CHECK_GOTO(st, mm_read_coordinate(&R, &H, &A), done);
    st = NG_CALLOC(v, H.nrows);
    if (st == NG_SUCCESS)
      for (int32_t i = 0; i < A.nrows; i++)
        if (A.rowptr[i + 1] > A.rowptr[i]) v[i] = A.val[A.rowptr[i]];
    ng_csr_free(&A);
    if (st != NG_SUCCESS) goto done;
  } else {
    int64_t cap = H.nnz < NG_MM_INITIAL_CAP ? H.nnz : NG_MM_INITIAL_CAP;
    NG_CHECK_GOTO(st, NG_MALLOC(v, cap), done);
    for (int64_t k = 0; k < H.nnz; k++) {
      int got;
      NG_CHECK_GOTO(st, mm_next_data_line(&R, &got), done);
      if (!got) {
        st = NG_ERROR(NG_ERR_PARSE, "%s:%lld: truncated: expected %lld values, file ends after %lld", path,
                      (long long)R.lineno, (long long)H.nnz, (long long)k);
        goto done;
      }
      if (k == cap) {
        cap = 2 * cap < H.nnz ? 2 * cap : H.nnz;
        NG_CHECK_GOTO(st, ng_host_realloc((void **)&v, (size_t)cap, sizeof(double), "vector values"), done);
      }
      const char *s = R.line;
      if (H.field == MM_INTEGER) {
        long long iv;
        NG_CHECK_GOTO(st, parse_int(&R, &s, "integer value", &iv), done);
        v[k] = (double)iv;
      } else {
        NG_CHECK_GOTO(st, parse_real(&R, &s, "value", &v[k]), done);
      }
      NG_CHECK_GOTO(st, expect_end(&R, s, "the value (one per line)"), done);
    }
    int got;
    NG_CHECK_GOTO(st, mm_next_data_line(&R, &got), done);
    if (got) {
      st = NG_ERROR(NG_ERR_PARSE, "%s:%lld: more values than the %lld announced", path, (long long)R.lineno,
                    (long long)H.nnz);
      goto done;
    }
  }
  *x = v;
  *n = H.nrows;
  v = NULL;
  st = NG_SUCCESS;
done:
  ng_free(v);
  locale_c_end(&L);
  mm_close(&R);
  return st;
}

/* ---- writing --------------------------------------------------------------- */

typedef struct {
  const char *path;
  FILE *f;
#ifdef NG_HAVE_ZLIB
  gzFile gz;
#endif
  int failed;   /* a write already failed (errno saved) */
  int err;
} mm_writer;

/* ".gz" paths are written compressed (NG_ERR_UNSUPPORTED without zlib). */
static ng_status mw_open(mm_writer *W, const char *path)
{
  memset(W, 0, sizeof(*W));
  W->path = path;
  if (ends_with_gz(path)) {
#ifdef NG_HAVE_ZLIB
    errno = 0;
    W->gz = gzopen(path, "wb");
    if (!W->gz)
      return NG_ERROR(NG_ERR_IO, "cannot create %s: %s", path, errno ? strerror(errno) : "zlib could not open it");
    return NG_SUCCESS;
#else
    return NG_ERROR(NG_ERR_UNSUPPORTED, "cannot write %s: this nagare was built without zlib", path);
#endif
  }
  W->f = fopen(path, "w");
  if (!W->f) return NG_ERROR(NG_ERR_IO, "cannot create %s: %s", path, strerror(errno));
  return NG_SUCCESS;
}

/* Formats one line and writes it; the first failure is remembered. */
#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
static void mw_printf(mm_writer *W, const char *fmt, ...)
{
  char buf[256];
  va_list ap;
  if (W->failed) return;
  va_start(ap, fmt);
  int k = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (k < 0 || (size_t)k >= sizeof(buf)) {
    W->failed = 1;
    W->err = EOVERFLOW;
    return;
  }
  errno = 0;
#ifdef NG_HAVE_ZLIB
  if (W->gz) {
    if (gzwrite(W->gz, buf, (unsigned)k) != k) {
      W->failed = 1;
      W->err = errno ? errno : EIO;
    }
    return;
  }
#endif
  if (fwrite(buf, 1, (size_t)k, W->f) != (size_t)k) {
    W->failed = 1;
    W->err = errno ? errno : EIO;
  }
}

/* Closes the file; any failed write, flush or close is NG_ERR_IO. */
static ng_status mw_close(mm_writer *W)
{
  int bad = W->failed, err = W->err;
#ifdef NG_HAVE_ZLIB
  if (W->gz) {
    errno = 0;
    if (gzclose(W->gz) != Z_OK && !bad) {
      bad = 1;
      err = errno ? errno : EIO;
    }
    W->gz = NULL;
  }
#endif
  if (W->f) {
    errno = 0;
    if (fflush(W->f) != 0 && !bad) {
      bad = 1;
      err = errno ? errno : EIO;
    }
    if (ferror(W->f) && !bad) {
      bad = 1;
      err = EIO;
    }
    errno = 0;
    if (fclose(W->f) != 0 && !bad) {
      bad = 1;
      err = errno ? errno : EIO;
    }
    W->f = NULL;
  }
  if (bad) return NG_ERROR(NG_ERR_IO, "writing %s failed: %s", W->path, strerror(err));
  return NG_SUCCESS;
}

ng_status ng_mmio_write_csr(const char *path, const ng_csr *A)
{
  mm_writer W;
  mm_locale L;
  NG_ASSERT_ARG(path && A, "ng_mmio_write_csr: null argument");
  NG_ASSERT_ARG(A->nrows >= 0 && A->ncols >= 0 && A->rowptr, "ng_mmio_write_csr: bad matrix %d x %d", (int)A->nrows,
                (int)A->ncols);
  /* Refuse what could not be read back: non-finite values, bad structure. */
  for (int32_t i = 0; i < A->nrows; i++)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
      if (A->col[p] < 0 || A->col[p] >= A->ncols)
        return NG_ERROR(NG_ERR_ARGUMENT, "ng_mmio_write_csr: row %d has column %d outside 0..%d", (int)i, (int)A->col[p],
                        (int)A->ncols - 1);
      if (!isfinite(A->val[p]))
        return NG_ERROR(NG_ERR_NUMERIC, "ng_mmio_write_csr: entry (%d, %d) is not finite", (int)i, (int)A->col[p]);
    }
  NG_CHECK(mw_open(&W, path));
  locale_c_begin(&L);
  mw_printf(&W, "%%%%MatrixMarket matrix coordinate real general\n");
  mw_printf(&W, "%d %d %lld\n", (int)A->nrows, (int)A->ncols, (long long)(A->rowptr[A->nrows] - A->rowptr[0]));
  for (int32_t i = 0; i < A->nrows && !W.failed; i++)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
      mw_printf(&W, "%d %d %.17g\n", (int)i + 1, (int)A->col[p] + 1, A->val[p]);
  locale_c_end(&L);
  NG_CHECK(mw_close(&W));
  return NG_SUCCESS;
}

ng_status ng_mmio_write_array(const char *path, const double *x, int32_t n)
{
  mm_writer W;
  mm_locale L;
  NG_ASSERT_ARG(path && (x || n == 0) && n >= 0, "ng_mmio_write_array: bad argument");
  for (int32_t i = 0; i < n; i++)
    if (!isfinite(x[i])) return NG_ERROR(NG_ERR_NUMERIC, "ng_mmio_write_array: value %d is not finite", (int)i);
  NG_CHECK(mw_open(&W, path));
  locale_c_begin(&L);
  mw_printf(&W, "%%%%MatrixMarket matrix array real general\n");
  mw_printf(&W, "%d 1\n", (int)n);
  for (int32_t i = 0; i < n && !W.failed; i++) mw_printf(&W, "%.17g\n", x[i]);
  locale_c_end(&L);
  NG_CHECK(mw_close(&W));
  return NG_SUCCESS;
}
