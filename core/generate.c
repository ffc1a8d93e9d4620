/* core/generate.c: placeholder until the generators land. */
#include "internal.h"
ng_status ng_generate_csr(const char *spec, ng_csr *A, double **b) { return NG_ERROR(NG_ERR_UNSUPPORTED, "generators not built"); }
