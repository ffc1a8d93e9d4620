/* solver/registry.c: the Krylov methods by name. A new method adds its ops
 * table to the list below; an alias (an older name of a method) adds a
 * line to the aliases. */
#include "solver.h"

extern const ng_solver_ops ng_solver_cg, ng_solver_bicgstab, ng_solver_gmres, ng_solver_fgmres, ng_solver_pipecg;

static const ng_solver_ops *const solvers[] = {&ng_solver_cg, &ng_solver_bicgstab, &ng_solver_gmres,
                                               &ng_solver_fgmres, &ng_solver_pipecg, NULL};

/* pcg and pbicgstab were the preconditioned variants when cg and bicgstab
 * ignored -precond; every method now takes -precond, so they name the same
 * methods. */
static const struct {
  const char *alias, *name;
} aliases[] = {{"pcg", "cg"}, {"pbicgstab", "bicgstab"}, {NULL, NULL}};

const ng_solver_ops *ng_solver_find(const char *name)
{
  if (!name) return NULL;
  for (int a = 0; aliases[a].alias; a++)
    if (!strcmp(aliases[a].alias, name)) name = aliases[a].name;
  for (int i = 0; solvers[i]; i++)
    if (!strcmp(solvers[i]->name, name)) return solvers[i];
  return NULL;
}

/* "cg, bicgstab, ... (aliases: pcg = cg, ...)" into buf, for error messages. */
void ng_solver_list(char *buf, size_t len)
{
  buf[0] = '\0';
  for (int i = 0; solvers[i]; i++)
    snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "", solvers[i]->name);
  for (int a = 0; aliases[a].alias; a++)
    snprintf(buf + strlen(buf), len - strlen(buf), "%s%s = %s", a ? ", " : "; aliases: ", aliases[a].alias,
             aliases[a].name);
}
