/* test/test_options.c: the options database: defaults, argv with and
 * without removal, strings with quotes, flags, type errors, unknown options,
 * registered options, copies and the -help listing. */
#include "testutil.h"
#include "../core/core.h"
#include <math.h>

START_TEST(defaults)
{
  ng_options o;
  const char *s;
  int i;
  double d;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_get_string(o, "solver", &s));
  ck_assert_str_eq(s, "pcg");
  NG_ASSERT_OK(ng_options_get_string(o, "-precond", &s));
  ck_assert_str_eq(s, "jacobi");
  NG_ASSERT_OK(ng_options_get_string(o, "format", &s));
  ck_assert_str_eq(s, "csr");
  NG_ASSERT_OK(ng_options_get_string(o, "o", &s));
  ck_assert_str_eq(s, "");
  NG_ASSERT_OK(ng_options_get_real(o, "tol", &d));
  ck_assert_double_eq(d, 1e-8);
  NG_ASSERT_OK(ng_options_get_real(o, "divtol", &d));
  ck_assert_double_eq(d, 1e4); /* PETSc's default */
  NG_ASSERT_OK(ng_options_get_string(o, "null_space", &s));
  ck_assert_str_eq(s, "none");
  NG_ASSERT_OK(ng_options_get_real(o, "amg_theta", &d));
  ck_assert_double_eq(d, 0.025); /* AMG default: lap27 needs theta < 1/26 */
  NG_ASSERT_OK(ng_options_get_int(o, "maxit", &i));
  ck_assert_int_eq(i, 1000);
  NG_ASSERT_OK(ng_options_get_int(o, "amg_coarse_size", &i));
  ck_assert_int_eq(i, 500);
  NG_ASSERT_OK(ng_options_get_bool(o, "monitor", &i));
  ck_assert_int_eq(i, 0);
  ck_assert_int_eq(ng_options_help_requested(o), 0);
  ck_assert_int_eq(ng_options_get_int(o, "solver", &i), NG_ERR_ARGUMENT);
  ck_assert_int_eq(ng_options_get_int(o, "nosuch", &i), NG_ERR_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "nosuch"));
  NG_ASSERT_OK(ng_options_destroy(o));
}
END_TEST

START_TEST(argv_with_removal)
{
  ng_options o;
  char *argv[] = {"prog", "-tol", "1e-10", "matrix.mtx", "-monitor", "-solver", "bicgstab", "-amg_omega", "-0", "-maxit",
                  "50", "-help", "last", NULL};
  int argc = 13;
  const char *s;
  int i;
  double d;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_args(o, &argc, argv, 1));
  ck_assert_int_eq(argc, 3);
  ck_assert_str_eq(argv[0], "prog");
  ck_assert_str_eq(argv[1], "matrix.mtx");
  ck_assert_str_eq(argv[2], "last");
  ck_assert_ptr_null(argv[3]);
  NG_ASSERT_OK(ng_options_get_real(o, "tol", &d));
  ck_assert_double_eq(d, 1e-10);
  NG_ASSERT_OK(ng_options_get_bool(o, "monitor", &i));
  ck_assert_int_eq(i, 1);
  NG_ASSERT_OK(ng_options_get_string(o, "solver", &s));
  ck_assert_str_eq(s, "bicgstab");
  NG_ASSERT_OK(ng_options_get_int(o, "maxit", &i));
  ck_assert_int_eq(i, 50);
  ck_assert_int_eq(ng_options_help_requested(o), 1);
  NG_ASSERT_OK(ng_options_destroy(o));
}
END_TEST

START_TEST(argv_without_removal)
{
  ng_options o;
  char *argv[] = {"prog", "-precond", "none", "-norm", "r0", NULL};
  int argc = 5;
  const char *s;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_args(o, &argc, argv, 0));
  ck_assert_int_eq(argc, 5);
  ck_assert_str_eq(argv[1], "-precond");
  NG_ASSERT_OK(ng_options_get_string(o, "precond", &s));
  ck_assert_str_eq(s, "none");
  NG_ASSERT_OK(ng_options_get_string(o, "norm", &s));
  ck_assert_str_eq(s, "r0");
  NG_ASSERT_OK(ng_options_destroy(o));
}
END_TEST

START_TEST(from_string)
{
  ng_options o;
  const char *s;
  int i;
  double d;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, "  -tol 1e-6\t-monitor -o 'out file.json' -problem \"lap27:10\" -atol 1e-30 "));
  NG_ASSERT_OK(ng_options_get_real(o, "tol", &d));
  ck_assert_double_eq(d, 1e-6);
  NG_ASSERT_OK(ng_options_get_real(o, "atol", &d));
  ck_assert_double_eq(d, 1e-30);
  NG_ASSERT_OK(ng_options_get_bool(o, "monitor", &i));
  ck_assert_int_eq(i, 1);
  NG_ASSERT_OK(ng_options_get_string(o, "o", &s));
  ck_assert_str_eq(s, "out file.json");
  NG_ASSERT_OK(ng_options_get_string(o, "problem", &s));
  ck_assert_str_eq(s, "lap27:10");
  NG_ASSERT_OK(ng_options_set_from_string(o, ""));
  ck_assert_int_eq(ng_options_set_from_string(o, "-tol 1 stray"), NG_ERR_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "stray"));
  ck_assert_int_eq(ng_options_set_from_string(o, "-o 'open"), NG_ERR_ARGUMENT);
  ck_assert_int_eq(ng_options_set_from_string(o, "-tol"), NG_ERR_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "needs a value"));
  /* flags can be switched off through ng_options_set */
  NG_ASSERT_OK(ng_options_set(o, "monitor", "off"));
  NG_ASSERT_OK(ng_options_get_bool(o, "monitor", &i));
  ck_assert_int_eq(i, 0);
  NG_ASSERT_OK(ng_options_destroy(o));
}
END_TEST

/* Each bad value is refused with a message naming the option and the value. */
START_TEST(type_errors)
{
  ng_options o;
  static const char *bad[][2] = {{"-tol", "abc"},   {"-maxit", "1.5"}, {"-maxit", "-3"},   {"-tol", "-1e-8"},
                                 {"-tol", "nan"},   {"-tol", "1e999"}, {"-norm", "rr"},    {"-device", "tpu"},
                                 {"-maxit", "9999999999"}, {"-amg_coarse_solver", "lu"}, {"-divtol", ""},
                                 {"-null_space", "linear"}};
  NG_ASSERT_OK(ng_options_create(&o));
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
    char *argv[] = {"prog", (char *)bad[k][0], (char *)bad[k][1], NULL};
    int argc = 3;
    ck_assert_int_eq(ng_options_set_from_args(o, &argc, argv, 1), NG_ERR_ARGUMENT);
    ck_assert_msg(strstr(ng_last_error(), bad[k][0] + 1) && strstr(ng_last_error(), bad[k][1]), "message '%s'",
                  ng_last_error());
    ck_assert_int_eq(argc, 3); /* argv untouched on error */
  }
  int i;
  NG_ASSERT_OK(ng_options_get_int(o, "maxit", &i));
  ck_assert_int_eq(i, 1000);
  NG_ASSERT_OK(ng_options_destroy(o));
}
END_TEST

START_TEST(unknown_and_registered)
{
  ng_options o, c;
  char *argv[] = {"prog", "-tool", "1e-8", NULL};
  int argc = 3;
  const char *s;
  int i;
  NG_ASSERT_OK(ng_options_create(&o));
  ck_assert_int_eq(ng_options_set_from_args(o, &argc, argv, 1), NG_ERR_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "-tool"));
  ck_assert_int_eq(ng_options_set(o, "colour", "red"), NG_ERR_ARGUMENT);
  NG_ASSERT_OK(ng_options_register(o, "-steps", "10", "time steps"));
  ck_assert_int_eq(ng_options_register(o, "tol", "1", "again"), NG_ERR_ARGUMENT);
  NG_ASSERT_OK(ng_options_set_from_string(o, "-steps 25"));
  NG_ASSERT_OK(ng_options_get_int(o, "steps", &i));
  ck_assert_int_eq(i, 25);
  NG_ASSERT_OK(ng_options_set(o, "steps", "many"));
  ck_assert_int_eq(ng_options_get_int(o, "steps", &i), NG_ERR_ARGUMENT);
  ck_assert_ptr_nonnull(strstr(ng_last_error(), "many"));
  /* a copy is deep and keeps registered options and values */
  NG_ASSERT_OK(ng_options_set(o, "solver", "cg"));
  NG_ASSERT_OK(ng_options_copy(o, &c));
  NG_ASSERT_OK(ng_options_set(o, "solver", "bicgstab"));
  NG_ASSERT_OK(ng_options_get_string(c, "solver", &s));
  ck_assert_str_eq(s, "cg");
  NG_ASSERT_OK(ng_options_get_string(c, "steps", &s));
  ck_assert_str_eq(s, "many");
  NG_ASSERT_OK(ng_options_destroy(c));
  NG_ASSERT_OK(ng_options_destroy(o));
}
END_TEST

START_TEST(help_lists_every_option)
{
  static const char *names[] = {"solver", "precond", "format", "tol", "atol", "maxit", "norm", "divtol", "null_space", "monitor",
                                "jacobi_omega", "device", "problem", "o", "rhs", "amg_theta", "amg_smoother",
                                "amg_omega", "amg_presweeps", "amg_postsweeps", "amg_coarse_size", "amg_max_levels",
                                "amg_coarse_solver", "amg_coarse_sweeps", "help", "steps"};
  ng_options o;
  char *buf = NULL;
  size_t len = 0;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_register(o, "steps", "10", "time steps of the program"));
  NG_ASSERT_OK(ng_options_register(o, "long", "1", "a help text of more than one line, as many are: it goes on and on "
                                                   "until it needs a second line, and there the program's own help"));
  NG_ASSERT_OK(ng_options_set(o, "tol", "3e-7"));
  FILE *f = open_memstream(&buf, &len);
  NG_ASSERT_OK(ng_options_print_help(o, f));
  fclose(f);
  for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
    char key[64];
    snprintf(key, sizeof(key), "  -%s <", names[k]);
    ck_assert_msg(strstr(buf, key) != NULL, "help lacks %s", names[k]);
  }
  ck_assert_ptr_nonnull(strstr(buf, "time steps of the program"));
  ck_assert_ptr_nonnull(strstr(buf, "set to \"3e-7\""));
  ck_assert_ptr_nonnull(strstr(buf, "default \"1e-8\""));
  /* long help is wrapped: no line over 100 characters, the word after a
   * break on a line indented to the help column */
  for (char *line = buf, *nl; *line; line = nl + 1) {
    nl = strchr(line, '\n');
    ck_assert_msg(nl != NULL, "help does not end with a newline");
    ck_assert_msg(nl - line <= 100, "help line of %d characters: %.*s", (int)(nl - line), (int)(nl - line), line);
  }
  ck_assert_ptr_nonnull(strstr(buf, "\n                                 until it needs a second line"));
  free(buf);
  NG_ASSERT_OK(ng_options_destroy(o));
}
END_TEST

/* ng_options_count / ng_options_info walk the table: every option once,
 * its current value after a set, its default and help; out of range is an
 * argument error. */
START_TEST(info_enumerates_the_table)
{
  ng_options o;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set(o, "amg_theta", "0.05"));
  int n = ng_options_count(o), found = 0;
  ck_assert_int_gt(n, 40);
  for (int k = 0; k < n; k++) {
    const char *name, *value, *def, *help;
    NG_ASSERT_OK(ng_options_info(o, k, &name, &value, &def, &help));
    ck_assert(name && value && def && help && name[0] != '-');
    if (!strcmp(name, "amg_theta")) {
      found++;
      ck_assert_str_eq(def, "0.025");
      ck_assert_double_eq(atof(value), 0.05);
      ck_assert(strstr(help, "strength") != NULL);
    }
  }
  ck_assert_int_eq(found, 1);
  ck_assert_int_eq(ng_options_info(o, n, NULL, NULL, NULL, NULL), NG_ERR_ARGUMENT);
  ck_assert_int_eq(ng_options_info(o, -1, NULL, NULL, NULL, NULL), NG_ERR_ARGUMENT);
  ng_options_destroy(o);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("options");
  TCase *tc = tcase_create("options");
  tcase_add_test(tc, defaults);
  tcase_add_test(tc, argv_with_removal);
  tcase_add_test(tc, argv_without_removal);
  tcase_add_test(tc, from_string);
  tcase_add_test(tc, type_errors);
  tcase_add_test(tc, unknown_and_registered);
  tcase_add_test(tc, help_lists_every_option);
  tcase_add_test(tc, info_enumerates_the_table);
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
