/* core/options.c: the options database (PETSc style). Every option has a
 * name, a type, a default and a help line; values are kept as strings and
 * checked against the type when set, so "-tol abc" fails at once, naming the
 * option. Unknown options are errors (a typo must not be silent); programs
 * add their own with ng_options_register. The rows live with the components
 * that read them (core/options.h); ng_option_registry lists them in order. */
#include "core.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <strings.h>

static const char *const type_name[] = {"string", "int", "real", "bool", "flag"};
typedef ng_option_type opt_type;

typedef struct {
  char *name, *def, *help, *value; /* owned copies */
  const char *choices;             /* static (registered tables only) */
  opt_type type;
  int nonneg;
} opt_entry;

struct ng_options_s {
  int n, cap;
  opt_entry *e;
};

/* A copy of s into *d; on failure the allocator's message (what, bytes). */
static ng_status dup_str(const char *s, const char *what, char **d)
{
  size_t len = strlen(s) + 1;
  NG_CHECK(ng_host_alloc((void **)d, len, 1, 0, what));
  memcpy(*d, s, len);
  return NG_SUCCESS;
}

/* "-tol" and "tol" name the same option. */
static const char *bare(const char *name) { return name[0] == '-' ? name + 1 : name; }

static opt_entry *lookup(ng_options o, const char *name)
{
  name = bare(name);
  for (int i = 0; i < o->n; i++)
    if (!strcmp(o->e[i].name, name)) return &o->e[i];
  return NULL;
}

static ng_status add_entry(ng_options o, const char *name, opt_type type, const char *def, const char *choices,
                           int nonneg, const char *help)
{
  if (o->n == o->cap) {
    int cap = o->cap ? 2 * o->cap : 32;
    opt_entry *e;
    NG_CHECK(NG_CALLOC(e, cap));
    if (o->n) memcpy(e, o->e, (size_t)o->n * sizeof(*e));
    ng_free(o->e);
    o->e = e;
    o->cap = cap;
  }
  opt_entry *e = &o->e[o->n];
  ng_status st;
  memset(e, 0, sizeof(*e));
  if ((st = dup_str(bare(name), "option name", &e->name)) || (st = dup_str(def, "option default", &e->def)) ||
      (st = dup_str(help, "option help", &e->help)) || (st = dup_str(def, "option value", &e->value))) {
    ng_free(e->name); ng_free(e->def); ng_free(e->help); ng_free(e->value);
    memset(e, 0, sizeof(*e));
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  e->choices = choices;
  e->type = type;
  e->nonneg = nonneg;
  o->n++;
  return NG_SUCCESS;
}

ng_status ng_options_create(ng_options *opts)
{
  ng_options o;
  NG_ASSERT_ARG(opts, "ng_options_create: null argument");
  NG_CHECK(NG_CALLOC(o, 1));
  for (int t = 0; ng_option_registry[t]; t++)
    for (int i = 0; i < ng_option_registry[t]->n; i++) {
      const ng_option_def *d = &ng_option_registry[t]->rows[i];
      ng_status st = add_entry(o, d->name, d->type, d->def, d->choices, d->nonneg, d->help);
      if (st != NG_SUCCESS) { ng_options_destroy(o); return ng_error_trace(st, __FILE__, __LINE__); }
    }
  *opts = o;
  return NG_SUCCESS;
}

ng_status ng_options_destroy(ng_options o)
{
  if (!o) return NG_SUCCESS;
  for (int i = 0; i < o->n; i++) {
    ng_free(o->e[i].name); ng_free(o->e[i].def); ng_free(o->e[i].help); ng_free(o->e[i].value);
  }
  ng_free(o->e);
  ng_free(o);
  return NG_SUCCESS;
}

ng_status ng_options_copy(ng_options src, ng_options *dst)
{
  ng_options o;
  NG_ASSERT_ARG(dst, "ng_options_copy: null argument");
  if (!src) return ng_options_create(dst);
  NG_CHECK(NG_CALLOC(o, 1));
  for (int i = 0; i < src->n; i++) {
    const opt_entry *e = &src->e[i];
    ng_status st = add_entry(o, e->name, e->type, e->def, e->choices, e->nonneg, e->help);
    if (st == NG_SUCCESS) st = ng_options_set(o, e->name, e->value);
    if (st != NG_SUCCESS) { ng_options_destroy(o); return ng_error_trace(st, __FILE__, __LINE__); }
  }
  *dst = o;
  return NG_SUCCESS;
}

ng_status ng_options_register(ng_options o, const char *name, const char *default_value, const char *help)
{
  NG_ASSERT_ARG(o && name && bare(name)[0], "ng_options_register: null argument or empty name");
  if (lookup(o, name)) return NG_ERROR(NG_ERR_ARGUMENT, "ng_options_register: option -%s already exists", bare(name));
  NG_CHECK(add_entry(o, name, NG_OPT_STRING, default_value ? default_value : "", NULL, 0, help ? help : ""));
  return NG_SUCCESS;
}

/* ---- parsing values ------------------------------------------------------- */

static int parse_int(const char *s, long *v)
{
  char *end;
  errno = 0;
  *v = strtol(s, &end, 10);
  return end != s && *end == '\0' && errno == 0 && *v >= INT_MIN && *v <= INT_MAX;
}

static int parse_real(const char *s, double *v)
{
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  return end != s && *end == '\0' && errno != ERANGE && isfinite(*v);
}

/* 1 / 0 for a boolean word, -1 when it is none. */
static int parse_bool(const char *s)
{
  static const char *const yes[] = {"1", "true", "yes", "on"}, *const no[] = {"0", "false", "no", "off"};
  for (int i = 0; i < 4; i++) {
    if (!strcasecmp(s, yes[i])) return 1;
    if (!strcasecmp(s, no[i])) return 0;
  }
  return -1;
}

static int in_choices(const char *choices, const char *v)
{
  size_t len = strlen(v);
  for (const char *c = choices; *c;) {
    const char *bar = strchr(c, '|');
    size_t clen = bar ? (size_t)(bar - c) : strlen(c);
    if (clen == len && !strncmp(c, v, len)) return 1;
    if (!bar) break;
    c = bar + 1;
  }
  return 0;
}

static ng_status check_value(const opt_entry *e, const char *v)
{
  long l;
  double d;
  switch (e->type) {
  case NG_OPT_INT:
    if (!parse_int(v, &l))
      return NG_ERROR(NG_ERR_ARGUMENT, "option -%s: '%s' is not an integer", e->name, v);
    if (e->nonneg && l < 0) return NG_ERROR(NG_ERR_ARGUMENT, "option -%s: '%s' must be >= 0", e->name, v);
    break;
  case NG_OPT_REAL:
    if (!parse_real(v, &d))
      return NG_ERROR(NG_ERR_ARGUMENT, "option -%s: '%s' is not a finite real number", e->name, v);
    if (e->nonneg && d < 0) return NG_ERROR(NG_ERR_ARGUMENT, "option -%s: '%s' must be >= 0", e->name, v);
    break;
  case NG_OPT_BOOL:
  case NG_OPT_FLAG:
    if (parse_bool(v) < 0)
      return NG_ERROR(NG_ERR_ARGUMENT, "option -%s: '%s' is not a boolean (1/0, true/false, yes/no, on/off)", e->name, v);
    break;
  case NG_OPT_STRING:
    if (e->choices && !in_choices(e->choices, v))
      return NG_ERROR(NG_ERR_ARGUMENT, "option -%s: '%s' is not one of %s", e->name, v, e->choices);
    break;
  }
  return NG_SUCCESS;
}

ng_status ng_options_set(ng_options o, const char *name, const char *value)
{
  NG_ASSERT_ARG(o && name && value, "ng_options_set: null argument");
  opt_entry *e = lookup(o, name);
  if (!e) return NG_ERROR(NG_ERR_ARGUMENT, "unknown option -%s (-help lists the options)", bare(name));
  NG_CHECK(check_value(e, value));
  char *v = NULL;
  NG_CHECK(dup_str(value, "option value", &v));
  ng_free(e->value);
  e->value = v;
  return NG_SUCCESS;
}

/* ---- command lines and strings --------------------------------------------- */

/* A token names an option when it starts with '-' followed by a letter
 * ("-5" or "-.5" are values, "--" ends the options). */
static int is_option(const char *t) { return t[0] == '-' && isalpha((unsigned char)t[1]); }

/* Parses tok[0..n): sets each option; used[k] = 1 for consumed tokens.
 * strict: a token that is not an option is an error (strings); otherwise
 * it is left for the program (positional arguments in argv). */
static ng_status parse_tokens(ng_options o, int n, char **tok, char *used, int strict)
{
  for (int k = 0; k < n; k++) {
    const char *t = tok[k];
    if (!strcmp(t, "--")) break;
    if (!is_option(t)) {
      if (strict) return NG_ERROR(NG_ERR_ARGUMENT, "options: '%s' is not an option (options start with '-')", t);
      continue;
    }
    opt_entry *e = lookup(o, t);
    if (!e) return NG_ERROR(NG_ERR_ARGUMENT, "unknown option %s (-help lists the options)", t);
    used[k] = 1;
    if (e->type == NG_OPT_FLAG) {
      NG_CHECK(ng_options_set(o, e->name, "1"));
      continue;
    }
    if (k + 1 >= n) return NG_ERROR(NG_ERR_ARGUMENT, "option -%s needs a value", e->name);
    NG_CHECK(ng_options_set(o, e->name, tok[k + 1]));
    used[++k] = 1;
  }
  return NG_SUCCESS;
}

ng_status ng_options_set_from_args(ng_options o, int *argc, char **argv, int remove)
{
  NG_ASSERT_ARG(o && argc && *argc >= 0 && (argv || *argc == 0), "ng_options_set_from_args: null argument");
  if (*argc <= 1) return NG_SUCCESS;
  char *used;
  NG_CHECK(NG_CALLOC(used, *argc));
  /* argv[0] is the program name */
  ng_status st = parse_tokens(o, *argc - 1, argv + 1, used + 1, 0);
  if (st == NG_SUCCESS && remove) {
    int m = 0;
    for (int k = 0; k < *argc; k++)
      if (!used[k]) argv[m++] = argv[k];
    for (int k = m; k < *argc; k++) argv[k] = NULL;
    *argc = m;
  }
  ng_free(used);
  if (st != NG_SUCCESS) return ng_error_trace(st, __FILE__, __LINE__);
  return NG_SUCCESS;
}

/* Splits s on whitespace into tokens in buf; '...' or "..." group words. */
static ng_status tokenize(const char *s, char *buf, char **tok, int *n)
{
  int m = 0;
  char *w = buf;
  while (*s) {
    while (isspace((unsigned char)*s)) s++;
    if (!*s) break;
    tok[m++] = w;
    while (*s && !isspace((unsigned char)*s)) {
      if (*s == '"' || *s == '\'') {
        char q = *s++;
        while (*s && *s != q) *w++ = *s++;
        if (*s != q) return NG_ERROR(NG_ERR_ARGUMENT, "options: unterminated quote %c in the option string", q);
        s++;
      } else {
        *w++ = *s++;
      }
    }
    *w++ = '\0';
  }
  *n = m;
  return NG_SUCCESS;
}

ng_status ng_options_set_from_string(ng_options o, const char *s)
{
  NG_ASSERT_ARG(o && s, "ng_options_set_from_string: null argument");
  size_t len = strlen(s);
  char *buf = NULL, **tok = NULL, *used = NULL;
  int n = 0;
  ng_status st;
  /* at most len/2+1 tokens; the copy is never longer than s */
  NG_CHECK_GOTO(st, NG_MALLOC(buf, len + 1), done);
  NG_CHECK_GOTO(st, NG_MALLOC(tok, len / 2 + 1), done);
  NG_CHECK_GOTO(st, tokenize(s, buf, tok, &n), done);
  NG_CHECK_GOTO(st, NG_CALLOC(used, n), done);
  NG_CHECK_GOTO(st, parse_tokens(o, n, tok, used, 1), done);
done:
  ng_free(buf); ng_free(tok); ng_free(used);
  return st;
}

/* ---- getters ---------------------------------------------------------------- */

static ng_status get_entry(ng_options o, const char *name, const opt_entry **e, const char *who)
{
  NG_ASSERT_ARG(o && name, "%s: null argument", who);
  *e = lookup(o, name);
  if (!*e) return NG_ERROR(NG_ERR_ARGUMENT, "%s: unknown option -%s", who, bare(name));
  return NG_SUCCESS;
}

ng_status ng_options_get_string(ng_options o, const char *name, const char **value)
{
  const opt_entry *e;
  NG_ASSERT_ARG(value, "ng_options_get_string: null value");
  NG_CHECK(get_entry(o, name, &e, "ng_options_get_string"));
  *value = e->value;
  return NG_SUCCESS;
}

ng_status ng_options_get_int(ng_options o, const char *name, int *value)
{
  const opt_entry *e;
  long l;
  NG_ASSERT_ARG(value, "ng_options_get_int: null value");
  NG_CHECK(get_entry(o, name, &e, "ng_options_get_int"));
  if (!parse_int(e->value, &l)) return NG_ERROR(NG_ERR_ARGUMENT, "option -%s: '%s' is not an integer", e->name, e->value);
  *value = (int)l;
  return NG_SUCCESS;
}

ng_status ng_options_get_real(ng_options o, const char *name, double *value)
{
  const opt_entry *e;
  NG_ASSERT_ARG(value, "ng_options_get_real: null value");
  NG_CHECK(get_entry(o, name, &e, "ng_options_get_real"));
  if (!parse_real(e->value, value))
    return NG_ERROR(NG_ERR_ARGUMENT, "option -%s: '%s' is not a finite real number", e->name, e->value);
  return NG_SUCCESS;
}

ng_status ng_options_get_bool(ng_options o, const char *name, int *value)
{
  const opt_entry *e;
  NG_ASSERT_ARG(value, "ng_options_get_bool: null value");
  NG_CHECK(get_entry(o, name, &e, "ng_options_get_bool"));
  int b = e->value[0] ? parse_bool(e->value) : 0;
  if (b < 0) return NG_ERROR(NG_ERR_ARGUMENT, "option -%s: '%s' is not a boolean", e->name, e->value);
  *value = b;
  return NG_SUCCESS;
}

int ng_options_count(ng_options o) { return o ? o->n : 0; }

ng_status ng_options_info(ng_options o, int k, const char **name, const char **value, const char **def,
                          const char **help)
{
  NG_ASSERT_ARG(o, "ng_options_info: null options");
  NG_ASSERT_ARG(k >= 0 && k < o->n, "ng_options_info: option %d of %d", k, o->n);
  const opt_entry *e = &o->e[k];
  if (name) *name = e->name;
  if (value) *value = e->value;
  if (def) *def = e->def;
  if (help) *help = e->help;
  return NG_SUCCESS;
}

int ng_options_help_requested(ng_options o)
{
  int h = 0;
  if (!o || ng_options_get_bool(o, "help", &h) != NG_SUCCESS) return 0;
  return h;
}

const char *ng_options_values(ng_options o, int k)
{
  if (!o || k < 0 || k >= o->n) return "";
  return o->e[k].choices ? o->e[k].choices : type_name[o->e[k].type];
}
