/* spmv/spmv_options.c: the options of spmv/: the storage format of a matrix
 * (-format, applied by the programs through ng_matrix_set_format) and
 * cuSPARSE's CSR algorithm (-csr_spmv_alg, applied by ng_options_apply_spmv
 * to the CSR matrices built on a GPU after it; empty: NG_CUSPARSE_SPMV_ALG as
 * before, else 1). Rows as in core/options.h; amg/options_registry.c places
 * the table in -help's order. */
#include "spmv.h"

/* the format and the CSR algorithm */
static const ng_option_def ng_spmv_options_rows[] = {
  {"format", NG_OPT_STRING, "csr", NULL, 0, "SpMV storage format: csr, dia, dia_half, ell, ellr, sell, codsell, auto (measures the candidates, keeps the "
   "fastest); a format that refuses the matrix leaves it in csr"},
  {"csr_spmv_alg", NG_OPT_STRING, "", NULL, 0,
   "cuSPARSE algorithm of the csr SpMV on a GPU: 1 (CUSPARSE_SPMV_CSR_ALG1) or 2 (ALG2: the same bits from run "
   "to run, a few percent slower on large stencils); empty: NG_CUSPARSE_SPMV_ALG, else 1"},
};
const ng_option_table ng_spmv_options = NG_OPTION_TABLE(ng_spmv_options_rows);

/* 0: not set by an option (the environment decides), else 1 or 2 */
static int csr_alg_option;

ng_status ng_options_apply_spmv(ng_options opts)
{
  const char *alg = "";
  NG_ASSERT_ARG(opts, "ng_options_apply_spmv: null options");
  NG_CHECK(ng_options_get_string(opts, "csr_spmv_alg", &alg));
  if (!*alg) csr_alg_option = 0;
  else if (!strcmp(alg, "1") || !strcmp(alg, "2")) csr_alg_option = alg[0] - '0';
  else return NG_ERROR(NG_ERR_ARGUMENT, "option -csr_spmv_alg: '%s' is not 1 or 2 (or empty)", alg);
  return NG_SUCCESS;
}

int ng_spmv_csr_alg(void)
{
  if (csr_alg_option) return csr_alg_option;
  const char *e = getenv("NG_CUSPARSE_SPMV_ALG");
  return e && !strcmp(e, "2") ? 2 : 1;
}
