/* bench/amg.c: smoothed-aggregation AMG benchmark, one JSON line per case:
 * iterations, true relative residual, setup (host, with its phases) and
 * solve seconds, the hierarchy (rows and nonzeros per level, grid and
 * operator complexity), the share of a V-cycle spent on each level (10
 * profiled cycles, synchronised per level) and the time of an update with
 * the same pattern relative to the setup (median of three; the solve is
 * repeated after them: iterations_after_update, solve_after_update_s, a
 * solve without the first one's one-time costs); setup_gpu_s / update_gpu_s: the
 * part of the setup / update spent building levels on the GPU (-amg_setup
 * gpu, the default on a GPU context), the rest is host time. fine_format: the
 * finest level's operator in the cycle (-amg_fine_format), precision
 * (-amg_precision), cuda_graph (-amg_cuda_graph); smoother and opts (the
 * -opts string) say which configuration a line measured, level_sweeps how
 * each level's Gauss-Seidel sweeps ran (mcgs/mmcgs: "one launch, 8 lanes a
 * row", "color-DIA, a launch per color", ...; "" for the other smoothers).
 * memory_bytes: what the solve holds in the context's memory space (device
 * on a GPU, host on a CPU; ng_solver_get_memory, -amg_view's memory line):
 * matrix (its storage), hierarchy (bytes the AMG setup left allocated:
 * levels' A, P, R, smoother data, vectors), setup_peak (the setup's peak
 * above what was allocated before it), krylov (the solver's work vectors);
 * bytes_per_row: (matrix + hierarchy + krylov) / rows.
 *   bench/amg [-device auto|cpu|gpu] [-opts "-amg_sweeps 4,3,2,1"] [case ...]
 * A case is problem,solver,tol (default: fem27 and lap27 at 64^3..256^3 with
 * pcg to 1e-8, and seed 004's aniso27 at 10^3..100^3 with pbicgstab to 1e-7). */
#include "nagare.h"
#include "../solver/solver.h"
#include "../amg/amg.h"
#include "../smoother/smoother.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALL(c)                                                                                  \
  do {                                                                                           \
    ng_status s_ = (c);                                                                          \
    if (s_ != NG_SUCCESS) {                                                                      \
      fprintf(stderr, "%s: %s: %s\n", #c, ng_status_name(s_), ng_last_error());                 \
      return 1;                                                                                  \
    }                                                                                            \
  } while (0)

static const char *default_cases[] = {
  "fem27:64,pcg,1e-8", "lap27:64,pcg,1e-8", "fem27:128,pcg,1e-8", "lap27:128,pcg,1e-8",
  "fem27:256,pcg,1e-8", "lap27:256,pcg,1e-8",
  "aniso27:10,pbicgstab,1e-7", "aniso27:20,pbicgstab,1e-7", "aniso27:30,pbicgstab,1e-7",
  "aniso27:40,pbicgstab,1e-7", "aniso27:50,pbicgstab,1e-7", "aniso27:60,pbicgstab,1e-7",
  "aniso27:70,pbicgstab,1e-7", "aniso27:80,pbicgstab,1e-7", "aniso27:90,pbicgstab,1e-7",
  "aniso27:100,pbicgstab,1e-7", NULL};

/* s as a JSON string (quotes and backslashes escaped, control characters dropped) */
static void json_string(const char *s)
{
  putchar('"');
  for (; s && *s; s++) {
    if (*s == '"' || *s == '\\') putchar('\\');
    if ((unsigned char)*s >= 0x20) putchar(*s);
  }
  putchar('"');
}

/* ||b - A x|| / ||b|| through the library's SpMV and vector ops. */
static int true_residual(ng_matrix A, ng_vector b, ng_vector x, ng_vector r, double *rel)
{
  double rn, bn;
  CALL(ng_matrix_apply(A, x, r));
  CALL(ng_vector_axpy(-1.0, b, r));
  CALL(ng_vector_norm2(r, &rn));
  CALL(ng_vector_norm2(b, &bn));
  *rel = rn / bn;
  return 0;
}

static int run_case(ng_context ctx, const char *device, const char *spec, const char *extra)
{
  char problem[64], solver[32], opt[512];
  double tol;
  if (sscanf(spec, "%63[^,],%31[^,],%lf", problem, solver, &tol) != 3) {
    fprintf(stderr, "bad case '%s' (want problem,solver,tol)\n", spec);
    return 1;
  }
  ng_matrix A;
  ng_vector b, x, r;
  ng_options o;
  ng_solver S;
  double tg = ng_wtime();
  CALL(ng_matrix_generate(ctx, problem, &A, &b));
  tg = ng_wtime() - tg;
  CALL(ng_vector_create(A, &x));
  CALL(ng_vector_create(A, &r));
  snprintf(opt, sizeof(opt), "-solver %s -precond amg -tol %g -maxit 500 %s", solver, tol, extra);
  CALL(ng_options_create(&o));
  CALL(ng_options_set_from_string(o, opt));
  CALL(ng_solver_create(ctx, o, &S));
  CALL(ng_solver_set_operator(S, A));
  CALL(ng_vector_fill(x, 0.0));
  ng_status st = ng_solver_solve(S, b, x);
  int its;
  double setup, solve, rel;
  CALL(ng_solver_get_iterations(S, &its));
  CALL(ng_solver_get_times(S, &setup, &solve));
  if (true_residual(A, b, x, r, &rel)) return 1;
  int64_t mem[4]; /* matrix, hierarchy, setup peak, Krylov: the context's memory space */
  CALL(ng_solver_get_memory(S, ctx->on_gpu, mem));
  ng_amg *M = ng_amg_of(S->P);
  /* per-level share of a V-cycle: 10 profiled cycles */
  for (int l = 0; l < M->nlevels; l++) M->L[l].seconds = 0;
  M->profile = 1;
  double tc = ng_wtime();
  for (int k = 0; k < 10; k++) CALL(ng_precond_apply(S->P, b, r));
  tc = (ng_wtime() - tc) / 10;
  M->profile = 0;
  double tsum = 0, rows = 0, nnz = 0, nnz0 = (double)A->local.nnz;
  for (int l = 0; l < M->nlevels; l++) {
    tsum += M->L[l].seconds;
    rows += M->L[l].s.n;
    nnz += l ? (double)M->L[l].A.nnz : nnz0;
  }
  /* unprofiled cycle time */
  CALL(ctx->vops->sync(ctx));
  double tv = ng_wtime();
  for (int k = 0; k < 10; k++) CALL(ng_precond_apply(S->P, b, r));
  CALL(ctx->vops->sync(ctx));
  tv = (ng_wtime() - tv) / 10;
  double ph[5] = {M->t_aggregate, M->t_rho, M->t_prolong, M->t_galerkin, M->t_finish};
  double tgpu = M->gpu ? M->t_gpu : 0.0; /* the update below overwrites t_gpu with its own */
  /* update with the same pattern (values times 1) */
  double *val = malloc((size_t)A->local.nnz * sizeof(double));
  memcpy(val, A->local.val, (size_t)A->local.nnz * sizeof(double));
  double upd[3];
  for (int k = 0; k < 3; k++) { /* three updates: the median is update_s */
    CALL(ng_matrix_update_values(A, val));
    CALL(ng_solver_set_operator(S, A));
    M = ng_amg_of(S->P); /* a classical hierarchy (auto's too) is set up anew by the update */
    upd[k] = M->update_seconds;
  }
  double umed = upd[0] + upd[1] + upd[2] - fmax(upd[0], fmax(upd[1], upd[2])) - fmin(upd[0], fmin(upd[1], upd[2]));
  /* a fourth, profiled update: each level's rho / transfer / finish */
  M->profile = 1;
  CALL(ng_matrix_update_values(A, val));
  CALL(ng_solver_set_operator(S, A));
  M = ng_amg_of(S->P);
  M->profile = 0;
  free(val);
  /* the solve again after the updates (same values: the same iterations) */
  int its_upd;
  double solve_again;
  CALL(ng_vector_fill(x, 0.0));
  CALL(ng_solver_solve(S, b, x));
  CALL(ng_solver_get_iterations(S, &its_upd));
  CALL(ng_solver_get_times(S, NULL, &solve_again));
  printf("{\"bench\":\"amg\",\"device\":\"%s\",\"problem\":\"%s\",\"rows\":%d,\"nnz\":%lld,\"solver\":\"%s\","
         "\"tol\":%g,\"status\":\"%s\",\"iterations\":%d,\"true_rel_residual\":%.3e,\"generate_s\":%.3f,"
         "\"setup_s\":%.4f,\"solve_s\":%.4f,\"total_s\":%.4f,"
         "\"setup_phases_s\":{\"aggregate\":%.4f,\"rho\":%.4f,\"prolong\":%.4f,\"galerkin\":%.4f,\"finish\":%.4f},"
         "\"setup_gpu_s\":%.4f,\"update_s\":%.4f,\"update_gpu_s\":%.4f,\"update_ratio\":%.3f,\"updates_s\":[%.4f,%.4f,%.4f],\"iterations_after_update\":%d,\"solve_after_update_s\":%.4f,\"vcycle_s\":%.5f,\"levels\":%d,\"grid_complexity\":%.3f,"
         "\"operator_complexity\":%.3f,\"level_rows\":[",
         device, problem, (int)A->n_local, (long long)A->local.nnz, solver, tol, ng_status_name(st), its, rel, tg,
         setup, solve, setup + solve, ph[0], ph[1], ph[2], ph[3], ph[4], tgpu, umed, M->gpu ? M->t_gpu : 0.0,
         umed / M->setup_seconds, upd[0], upd[1], upd[2], its_upd, solve_again, tv, M->nlevels, rows / M->L[0].s.n, nnz / nnz0);
  for (int l = 0; l < M->nlevels; l++) printf("%s%d", l ? "," : "", (int)M->L[l].s.n);
  printf("],\"level_nnz\":[");
  for (int l = 0; l < M->nlevels; l++) printf("%s%lld", l ? "," : "", l ? (long long)M->L[l].A.nnz : (long long)nnz0);
  printf("],\"cycle_share\":[");
  for (int l = 0; l < M->nlevels; l++) printf("%s%.3f", l ? "," : "", tsum > 0 ? M->L[l].seconds / tsum : 0.0);
  printf("],\"profiled_vcycle_s\":%.5f,\"fine_format\":\"%s\",\"precision\":\"%s\",\"cuda_graph\":%d,", tc,
         M->fine_used[0] ? M->fine_used : "matrix", M->single ? "single" : "double", M->use_graph);
  /* the update's phases (ng_amg_refresh overwrites these fields) */
  printf("\"update_phases_s\":{\"rho\":%.4f,\"prolong\":%.4f,\"galerkin\":%.4f,\"finish\":%.4f},", M->t_rho,
         M->t_prolong, M->t_galerkin, M->t_finish);
  printf("\"update_levels_rho_transfer_finish_s\":[");
  for (int l = 0; l < M->nlevels; l++)
    printf("%s[%.4f,%.4f,%.4f]", l ? "," : "", M->L[l].t_update[0], M->L[l].t_update[1], M->L[l].t_update[2]);
  printf("],\"smoother\":");
  json_string(M->sopts.ops->name);
  printf(",\"opts\":");
  json_string(extra);
  printf(",\"level_sweeps\":[");
  for (int l = 0; l < M->nlevels; l++) {
    const char *how = ng_smoother_sweep_kind(M->sopts.ops, &M->L[l].s);
    printf("%s", l ? "," : "");
    json_string(how ? how : "");
  }
  printf("],\"memory_bytes\":{\"matrix\":%lld,\"hierarchy\":%lld,\"setup_peak\":%lld,\"krylov\":%lld},"
         "\"bytes_per_row\":%.1f}\n",
         (long long)mem[0], (long long)mem[1], (long long)mem[2], (long long)mem[3],
         (double)(mem[0] + mem[1] + mem[3]) / (A->n_local > 0 ? (double)A->n_local : 1.0));
  fflush(stdout);
  ng_solver_destroy(S);
  ng_options_destroy(o);
  ng_vector_destroy(r);
  ng_vector_destroy(x);
  ng_vector_destroy(b);
  ng_matrix_destroy(A);
  return 0;
}

int main(int argc, char **argv)
{
  const char *device = "auto", *extra = "";
  const char **cases = default_cases;
  int a = 1;
  for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
    if (!strcmp(argv[a], "-device")) device = argv[a + 1];
    else if (!strcmp(argv[a], "-opts")) extra = argv[a + 1];
    else break;
  }
  if (a < argc) cases = (const char **)(argv + a);
  ng_context ctx;
  CALL(ng_context_create(device, &ctx));
  fprintf(stderr, "bench/amg on %s\n", ng_context_describe(ctx));
  int rc = 0;
  for (int k = 0; cases[k] && !rc; k++) rc = run_case(ctx, ctx->on_gpu ? "gpu" : "cpu", cases[k], extra);
  ng_context_destroy(ctx);
  return rc;
}
