/* core/options.h: how a component declares its options. Each component
 * holds its rows (name, type, default, choices, range, help) in tables of
 * its own file (solver/solver_options.c, amg/amg_options.c, ...); core/
 * cannot name them (it is the lowest layer), so the one file at the top of
 * the layers, amg/options_registry.c, lists every table in -help's order in
 * ng_option_registry, which core/options.c reads at ng_options_create. */
#ifndef NG_OPTIONS_H
#define NG_OPTIONS_H

typedef enum { NG_OPT_STRING, NG_OPT_INT, NG_OPT_REAL, NG_OPT_BOOL, NG_OPT_FLAG } ng_option_type;

/* choices: "a|b|c" when the value must be one of them (NULL: any string of
 * that type). nonneg: numbers must be >= 0 (the range). */
typedef struct {
  const char *name;
  ng_option_type type;
  const char *def;
  const char *choices;
  int nonneg;
  const char *help;
} ng_option_def;

typedef struct {
  const ng_option_def *rows;
  int n;
} ng_option_table;
#define NG_OPTION_TABLE(rows) {rows, (int)(sizeof(rows) / sizeof(rows[0]))}

/* Every component's tables in -help's order, NULL-terminated
 * (amg/options_registry.c). */
extern const ng_option_table *const ng_option_registry[];

/* core's own tables (core/core_options.c) */
extern const ng_option_table ng_io_options, ng_help_options;

/* Option k's values as -help's head shows them: its choices, else its
 * type's name ("string", "int", "real", "bool", "flag"). */
const char *ng_options_values(ng_options o, int k);

#endif /* NG_OPTIONS_H */
