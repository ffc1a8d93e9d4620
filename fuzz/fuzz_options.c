/* fuzz/fuzz_options.c: libFuzzer harness for the options database
 * (core/options.c). The input, as a string, goes to
 * ng_options_set_from_string; if it contains '=', the part before the first
 * one is also tried as a name and the rest as its value (ng_options_set).
 * After a successful parse every option is read back with the getters and
 * the help is printed (to /dev/null). */
#include "fuzz_common.h"

static const char *names[] = {"solver", "precond", "format", "tol", "atol", "divtol", "maxit", "norm",
                              "monitor", "device", "help", "smoother", "nonexistent"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static FILE *devnull;
  if (!devnull) devnull = fopen("/dev/null", "w");
  char *s = malloc(size + 1);
  memcpy(s, data, size);
  s[size] = '\0';
  ng_options o = NULL, c = NULL;
  if (ng_options_create(&o) != NG_SUCCESS) abort();
  ng_error_clear();
  ng_status st = ng_options_set_from_string(o, s);
  if (st != NG_SUCCESS) ng_fuzz_check_failure(st, NULL);
  char *eq = strchr(s, '=');
  if (eq) {
    *eq = '\0';
    st = ng_options_set(o, s, eq + 1);
    if (st != NG_SUCCESS) ng_fuzz_check_failure(st, NULL);
  }
  for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
    const char *v;
    int i;
    double r;
    (void)ng_options_get_string(o, names[k], &v);
    (void)ng_options_get_int(o, names[k], &i);
    (void)ng_options_get_real(o, names[k], &r);
    (void)ng_options_get_bool(o, names[k], &i);
  }
  if (ng_options_copy(o, &c) != NG_SUCCESS) abort();
  if (devnull) ng_options_print_help(c, devnull);
  ng_options_destroy(c);
  ng_options_destroy(o);
  free(s);
  return 0;
}
