/* spmv/spmv_options.c: the options of spmv/: the storage format of a matrix
 * (-format, applied by the programs through ng_matrix_set_format),
 * cuSPARSE's CSR algorithm (-csr_spmv_alg; empty: NG_CUSPARSE_SPMV_ALG as
 * before, else 1) and the formats' default limits and -format auto's
 * pruning (-dia_max_diags ... -format_auto_prune_mb), the latter two applied
 * by ng_options_apply_spmv to the matrices built after it (before it: the
 * rows' defaults). Rows as in core/options.h; amg/options_registry.c places
 * the table in -help's order. */
#include "spmv.h"
#include <math.h>

/* the format, the CSR algorithm, the formats' limits (a format string's
 * tokens override the limits per matrix: formats.h) */
static const ng_option_def ng_spmv_options_rows[] = {
  {"format", NG_OPT_STRING, "csr", NULL, 0, "SpMV storage format: csr, dia, dia_half, ell, ellr, sell, codsell, auto (measures the candidates, keeps the "
   "fastest); a format that refuses the matrix leaves it in csr"},
  {"csr_spmv_alg", NG_OPT_STRING, "", NULL, 0,
   "cuSPARSE algorithm of the csr SpMV on a GPU: 1 (CUSPARSE_SPMV_CSR_ALG1) or 2 (ALG2: the same bits from run "
   "to run, a few percent slower on large stencils); empty: NG_CUSPARSE_SPMV_ALG, else 1"},
  {"dia_max_diags", NG_OPT_INT, "64", NULL, 1,
   "dia, dia_half: most distinct diagonals before the format refuses the matrix (per matrix: dia:maxdiag=N)"},
  {"dia_max_fill", NG_OPT_REAL, "2", NULL, 1,
   "dia, dia_half: most stored slots per nonzero, > 0, before the format refuses the matrix (dia:maxfill=F)"},
  {"ell_max_ratio", NG_OPT_REAL, "3", NULL, 1,
   "ell, ellr: longest row over the mean row, > 0, before the format refuses the matrix (ell:maxratio=R)"},
  {"sell_c", NG_OPT_INT, "32", NULL, 1, "sell: slice height C, 1..1024 (per matrix: sell:C; codsell has its own, 32)"},
  {"sell_sigma", NG_OPT_INT, "256", NULL, 1,
   "sell: rows sorted by length within windows of sigma rows, >= 1 (1: no sorting; per matrix: sell:C:sigma)"},
  {"format_auto_slack", NG_OPT_REAL, "1.3", NULL, 1,
   "-format auto: a candidate is skipped when its least traffic at slack x the best bandwidth measured so far "
   "would still be slower than the best time; >= 1, larger: more candidates timed (per matrix: auto:slack=F)"},
  {"format_auto_prune_mb", NG_OPT_REAL, "256", NULL, 1,
   "-format auto: the skipping above only for blocks whose CSR holds at least this many MB (smaller ones may sit "
   "in the caches, where time does not follow bytes: every format that fits is timed); 0: every block"},
};
const ng_option_table ng_spmv_options = NG_OPTION_TABLE(ng_spmv_options_rows);

/* 0: not set by an option (the environment decides), else 1 or 2 */
static int csr_alg_option;
/* the limits in force; set: 0 until the first use or ng_options_apply_spmv */
static ng_spmv_defaults limits;
static int limits_set;

/* row `name`'s default as a number (the table's rows are the one place of the defaults) */
static double row_default(const char *name)
{
  for (int k = 0; k < ng_spmv_options.n; k++)
    if (!strcmp(ng_spmv_options.rows[k].name, name)) return strtod(ng_spmv_options.rows[k].def, NULL);
  return 0.0;
}

static void limits_from_rows(ng_spmv_defaults *d)
{
  d->dia_max_diags = (int)row_default("dia_max_diags");
  d->dia_max_fill = row_default("dia_max_fill");
  d->ell_max_ratio = row_default("ell_max_ratio");
  d->sell_c = (int)row_default("sell_c");
  d->sell_sigma = (int)row_default("sell_sigma");
  d->auto_slack = row_default("format_auto_slack");
  d->auto_prune_mb = row_default("format_auto_prune_mb");
}

/* The ranges the table's types do not state (NG_ERR_ARGUMENT names the option). */
static ng_status check_limits(const ng_spmv_defaults *d)
{
  if (!(d->dia_max_fill > 0))
    return NG_ERROR(NG_ERR_ARGUMENT, "option -dia_max_fill: %g must be > 0", d->dia_max_fill);
  if (!(d->ell_max_ratio > 0))
    return NG_ERROR(NG_ERR_ARGUMENT, "option -ell_max_ratio: %g must be > 0", d->ell_max_ratio);
  if (d->sell_c < 1 || d->sell_c > 1024)
    return NG_ERROR(NG_ERR_ARGUMENT, "option -sell_c: %d is outside 1..1024", d->sell_c);
  if (d->sell_sigma < 1) return NG_ERROR(NG_ERR_ARGUMENT, "option -sell_sigma: %d must be >= 1", d->sell_sigma);
  if (!(d->auto_slack >= 1.0))
    return NG_ERROR(NG_ERR_ARGUMENT, "option -format_auto_slack: %g must be >= 1", d->auto_slack);
  return NG_SUCCESS;
}

static ng_status read_limits(ng_options opts, ng_spmv_defaults *d)
{
  NG_CHECK(ng_options_get_int(opts, "dia_max_diags", &d->dia_max_diags));
  NG_CHECK(ng_options_get_real(opts, "dia_max_fill", &d->dia_max_fill));
  NG_CHECK(ng_options_get_real(opts, "ell_max_ratio", &d->ell_max_ratio));
  NG_CHECK(ng_options_get_int(opts, "sell_c", &d->sell_c));
  NG_CHECK(ng_options_get_int(opts, "sell_sigma", &d->sell_sigma));
  NG_CHECK(ng_options_get_real(opts, "format_auto_slack", &d->auto_slack));
  NG_CHECK(ng_options_get_real(opts, "format_auto_prune_mb", &d->auto_prune_mb));
  NG_CHECK(check_limits(d));
  return NG_SUCCESS;
}

static ng_status read_csr_alg(ng_options opts, int *alg_option)
{
  const char *alg = "";
  NG_CHECK(ng_options_get_string(opts, "csr_spmv_alg", &alg));
  if (!*alg) *alg_option = 0;
  else if (!strcmp(alg, "1") || !strcmp(alg, "2")) *alg_option = alg[0] - '0';
  else return NG_ERROR(NG_ERR_ARGUMENT, "option -csr_spmv_alg: '%s' is not 1 or 2 (or empty)", alg);
  return NG_SUCCESS;
}

/* All or nothing: a bad value leaves everything in force as it was. */
ng_status ng_options_apply_spmv(ng_options opts)
{
  int alg = 0;
  ng_spmv_defaults d;
  NG_ASSERT_ARG(opts, "ng_options_apply_spmv: null options");
  NG_CHECK(read_csr_alg(opts, &alg));
  NG_CHECK(read_limits(opts, &d));
  csr_alg_option = alg;
  limits = d;
  limits_set = 1;
  return NG_SUCCESS;
}

int ng_spmv_csr_alg(void)
{
  if (csr_alg_option) return csr_alg_option;
  const char *e = getenv("NG_CUSPARSE_SPMV_ALG");
  return e && !strcmp(e, "2") ? 2 : 1;
}

const ng_spmv_defaults *ng_spmv_get_defaults(void)
{
  if (!limits_set) {
    limits_from_rows(&limits);
    limits_set = 1;
  }
  return &limits;
}
