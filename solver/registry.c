/* solver/registry.c: the Krylov methods by name. A new method adds its ops
 * table to the list below. */
#include "internal.h"

extern const ng_solver_ops ng_solver_cg, ng_solver_pcg, ng_solver_bicgstab, ng_solver_pbicgstab;

static const ng_solver_ops *const solvers[] = {&ng_solver_cg, &ng_solver_pcg, &ng_solver_bicgstab,
                                               &ng_solver_pbicgstab, NULL};

const ng_solver_ops *ng_solver_find(const char *name)
{
  for (int i = 0; name && solvers[i]; i++)
    if (!strcmp(solvers[i]->name, name)) return solvers[i];
  return NULL;
}

/* "cg, pcg, ..." into buf, for error messages. */
void ng_solver_list(char *buf, size_t len)
{
  buf[0] = '\0';
  for (int i = 0; solvers[i]; i++)
    snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "", solvers[i]->name);
}
