/* dist/dist_options.c: the options of the distributed objects: where a
 * context computes. Rows as in core/options.h; amg/options_registry.c places
 * the table in -help's order. */
#include "dist.h"

/* the device of a context (ng_context_create) */
static const ng_option_def ng_device_options_rows[] = {
  {"device", NG_OPT_STRING, "auto", "auto|cpu|gpu", 0, "where to compute: auto, cpu, gpu"},
};
const ng_option_table ng_device_options = NG_OPTION_TABLE(ng_device_options_rows);
