/* core/options.c: the options database (PETSc style). Every option has a
 * name, a type, a default and a help line; values are kept as strings and
 * checked against the type when set, so "-tol abc" fails at once, naming the
 * option. Unknown options are errors (a typo must not be silent); programs
 * add their own with ng_options_register. */
#include "core.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <strings.h>

typedef enum { OPT_STRING, OPT_INT, OPT_REAL, OPT_BOOL, OPT_FLAG } opt_type;
static const char *const type_name[] = {"string", "int", "real", "bool", "flag"};

/* choices: "a|b|c" when the value must be one of them (NULL: any string).
 * nonneg: numbers must be >= 0. */
typedef struct {
  const char *name;
  opt_type type;
  const char *def;
  const char *choices;
  int nonneg;
  const char *help;
} opt_def;

static const opt_def known[] = {
  {"solver", OPT_STRING, "pcg", NULL, 0,
   "Krylov method: cg (SPD), bicgstab, gmres, fgmres (flexible GMRES: for a preconditioner that changes between "
   "applications), pipecg (pipelined CG: one non-blocking allreduce an iteration behind the SpMV); pcg and "
   "pbicgstab are other names of cg and bicgstab"},
  {"precond", OPT_STRING, "jacobi", NULL, 0, "preconditioner of every solver: none, jacobi, amg"},
  {"gmres_restart", OPT_INT, "30", NULL, 1,
   "GMRES/FGMRES restart m: Krylov vectors kept per cycle (1 to 1000; memory m + 1 vectors, FGMRES 2m + 1)"},
  {"format", OPT_STRING, "csr", NULL, 0, "SpMV storage format: csr, dia, dia_half, ell, ellr, sell, codsell, auto (measures the candidates, keeps the "
   "fastest); a format that refuses the matrix leaves it in csr"},
  {"tol", OPT_REAL, "1e-8", NULL, 1, "relative tolerance: stop when ||r|| <= tol * ||b|| (or ||r0||, see -norm)"},
  {"atol", OPT_REAL, "0", NULL, 1, "absolute tolerance: stop when ||r|| <= atol"},
  {"maxit", OPT_INT, "1000", NULL, 1, "maximum number of iterations"},
  {"norm", OPT_STRING, "b", "b|r0", 0, "-tol is relative to ||b|| (b) or to the initial residual (r0)"},
  {"divtol", OPT_REAL, "1e4", NULL, 1, "diverged when ||r|| > divtol * ||r0|| (every solver; PETSc's default)"},
  {"null_space", OPT_STRING, "none", "none|constant", 0,
   "null space of a singular A (and A^T), e.g. a pure-Neumann pressure Poisson: constant. The solvers remove b's "
   "component in it (reported as the rhs inconsistency), keep the iterates orthogonal to it and return the "
   "minimum-norm solution; -tol is then relative to the projected ||b||"},
  {"monitor", OPT_FLAG, "0", NULL, 0, "print the iteration and residual norm (rank 0)"},
  {"cg_single_reduction", OPT_BOOL, "0", NULL, 0,
   "on several ranks, cg with no or a diagonal preconditioner sums its dot products in one allreduce an "
   "iteration (Chronopoulos-Gear; for networks where an allreduce costs more than two vector passes)"},
  {"jacobi_omega", OPT_REAL, "1.0", NULL, 1, "Jacobi damping: z = omega D^-1 r"},
  {"device", OPT_STRING, "auto", "auto|cpu|gpu", 0, "where to compute: auto, cpu, gpu"},
  {"comm_transport", OPT_STRING, "", NULL, 0,
   "halo transport between ranks: auto (ipc on one node, cuda_mpi across nodes when MPI is CUDA-aware, else host), "
   "host, ipc, cuda_mpi; empty: NG_COMM_TRANSPORT, else auto"},
  {"problem", OPT_STRING, "fem27:32", NULL, 0, "generated problem when no matrix file is given: NAME:N (N^3 nodes) or NAME:NXxNYxNZ with NAME fem27, "
   "lap7, lap27, aniso27 or elast27 (3D elasticity, 3 unknowns a node); mps:N; het7:N, het5:N, rotaniso:N, "
   "rotaniso3:N (hard coefficients); stretch7:N[:ratio], jump2q1:N, bubbles7:N, spheres7:N (CFD classes: "
   "stretched grid, jumps with rotated anisotropy, two-phase density, inclusions); lap7:N:neumann, "
   "lap27:N:neumann (singular)"},
  {"o", OPT_STRING, "", NULL, 0, "write the solution x to this file (Matrix Market array)"},
  {"rhs", OPT_STRING, "", NULL, 0, "right-hand side file (Matrix Market array)"},
  {"amg_theta", OPT_REAL, "0.025", NULL, 1,
   "AMG strength threshold: j is a strong neighbour of i when -a_ij >= theta sqrt(|a_ii a_jj|) (the default "
   "-amg_strength signed: positive couplings are weak), or |a_ij| >= ... with -amg_strength abs; lap27 needs "
   "theta < 1/26"},
  {"amg_smoother", OPT_STRING, "auto", NULL, 0,
   "AMG smoother: auto (jacobi under cg, mcgs under bicgstab, gmres and fgmres), jacobi (damped), mcgs (multicolor "
   "Gauss-Seidel, colors forward before and backward after the coarse "
   "correction), mmcgs (modified MCGS: colors of the strong couplings only, deterministic), chebyshev (polynomial in "
   "D^-1 A); under MPI mcgs and mmcgs color each rank's block and read the off-rank values once per sweep"},
  {"amg_mmcgs_theta", OPT_REAL, "0.1", NULL, 1, "AMG mmcgs: couplings |a_ij| > theta |a_ii| are strong (colored apart); weaker ones inside a color read the values from before the color's update"},
  {"amg_coloring", OPT_STRING, "natural", "natural|hash", 0,
   "AMG mcgs/mmcgs: order of the finest level's greedy coloring: natural (row order: 8 colors on 27-point "
   "grids) or hash (random order, JPL: about 17 colors, a stronger sweep); coarse levels largest degree first"},
  {"amg_mcgs_coarse", OPT_STRING, "mcgs", "mcgs|mmcgs", 0,
   "AMG mcgs: the levels below the finest color every coupling (mcgs) or only the strong ones "
   "(mmcgs, -amg_mmcgs_theta): far fewer colors and launches on the coarse levels"},
  {"amg_mcgs_values", OPT_STRING, "double", "double|single", 0,
   "AMG mcgs/mmcgs on a GPU: the big levels' per-color blocks (a launch per color) hold their values in FP64 "
   "(double) or FP32 (single: half the bytes of a color-DIA sweep; vectors and sums stay FP64)"},
  {"amg_smoother_setup", OPT_STRING, "device", "device|host", 0,
   "AMG mcgs/mmcgs on a GPU context: colors and per-color blocks built on the device from the level's device CSR "
   "(device) or on the host and uploaded (host, the reference)"},
  {"amg_cheby_degree", OPT_INT, "2", NULL, 1, "AMG chebyshev: polynomial degree of one sweep (SpMVs per sweep; the first sweep from zero saves one)"},
  {"amg_cheby_ratio", OPT_REAL, "10", NULL, 1, "AMG chebyshev: the polynomial is smallest over [lmax / ratio, lmax], lmax = 1.1 rho(D^-1 A)"},
  {"amg_sparsify", OPT_REAL, "0.015", NULL, 1, "AMG non-Galerkin sparsification: coarse-operator entries |a_ij| < tau min(|a_ii|, |a_jj|) are dropped and added to the diagonal, keeping row sums (0: none)"},
  {"amg_sparsify_lump", OPT_STRING, "diagonal", "diagonal|path", 0, "AMG where -amg_sparsify puts a dropped negative coupling: diagonal (row sums kept; can make a coarse operator indefinite) or path (onto kept couplings through a common neighbour: row sums kept and the coarse operator stays positive definite; one-rank host setup)"},
  {"amg_coarse_nullspace", OPT_STRING, "constant", "constant|carried", 0, "AMG near-null vector of the tentative prolongators below the finest: constant (each level's own constant vector) or carried (the fine constant's coarse representation, Vanek-Mandel-Brezina: exact across aggregates of different sizes; one-rank host setup)"},
  {"amg_strength", OPT_STRING, "signed", "signed|abs", 0, "AMG strength measure: signed (-a_ij >= theta sqrt(|a_ii a_jj|): positive couplings are weak) or abs (|a_ij|)"},
  {"amg_filter", OPT_BOOL, "1", NULL, 0, "AMG smooths the prolongator with the filtered matrix (weak couplings added to the diagonal)"},
  {"amg_cycle", OPT_STRING, "v", "v|w|k", 0, "AMG cycle: v (one coarse correction per level), w (two: stronger on 2D problems and jumps, e.g. het5, rotaniso; more work on the coarse levels) or k (K-cycle: on each level below the finest, up to two flexible-CG iterations preconditioned by the cycle; a nonlinear preconditioner, CG then uses its flexible form)"},
  {"amg_theta_coarse", OPT_REAL, "-1", NULL, 0, "AMG strength threshold of the levels after the finest (negative: -amg_theta)"},
  {"amg_coarsening", OPT_STRING, "aggregation", "aggregation|classical", 0,
   "AMG hierarchy: aggregation (smoothed aggregation) or classical (Ruge-Stueben type: PMIS C/F splitting with "
   "the classical strength -amg_classical_theta and -amg_classical_interp interpolation, R = P^T, Galerkin coarse "
   "operators without sparsification; one-rank host setup, CPU context only)"},
  {"amg_classical_theta", OPT_REAL, "0.25", NULL, 1,
   "AMG classical coarsening: j strongly influences i when -a_ij >= theta max_k(-a_ik) over i's off-diagonals "
   "(positive couplings are weak)"},
  {"amg_classical_interp", OPT_STRING, "ext+i", "ext+i|direct", 0,
   "AMG classical coarsening: interpolation ext+i (extended+i: from the C points of i and of its strong F "
   "neighbours) or direct (from i's strong C points, negative and positive couplings apart)"},
  {"amg_classical_split", OPT_STRING, "pmis", "pmis|hmis", 0,
   "AMG classical coarsening: C/F splitting pmis (independent sets of the largest measure, in parallel rounds) "
   "or hmis (on one rank the Ruge-Stueben first pass: greedy, fewer C points on structured grids)"},
  {"amg_classical_pmax", OPT_INT, "4", NULL, 1,
   "AMG classical coarsening: at most this many interpolation weights a row, the largest, scaled to keep the "
   "row sum (0: no truncation)"},
  {"amg_omega", OPT_REAL, "0", NULL, 1, "AMG smoother damping (0: from the spectrum)"},
  {"amg_presweeps", OPT_INT, "2", NULL, 1, "AMG smoothing sweeps before the coarse correction"},
  {"amg_postsweeps", OPT_INT, "2", NULL, 1, "AMG smoothing sweeps after the coarse correction"},
  {"amg_coarse_size", OPT_INT, "500", NULL, 1, "AMG stops coarsening below this many rows"},
  {"amg_max_levels", OPT_INT, "20", NULL, 1, "AMG maximum number of levels"},
  {"amg_agglomerate_rows", OPT_INT, "0", NULL, 1, "AMG under MPI: a coarse level with fewer rows per rank than this moves onto fewer ranks (groups of 2, 4, ...); the coarsest, when small enough for the dense solve, onto rank 0; 0: 30000 on GPUs (where a small level costs its exchanges' latency), 1000 on CPUs"},
  {"amg_coarse_solver", OPT_STRING, "direct", "direct|smoother", 0, "AMG coarsest-level solver: direct, smoother"},
  {"amg_coarse_sweeps", OPT_INT, "30", NULL, 1, "AMG smoother sweeps on the coarsest level (-amg_coarse_solver smoother)"},
  {"amg_sweeps", OPT_STRING, "", NULL, 0, "AMG graded sweeps per level, finest first, e.g. 4,3,2,1 (overrides pre/post)"},
  {"amg_format", OPT_STRING, "csr", NULL, 0, "AMG storage format of every level's A, P, R"},
  {"amg_precision", OPT_STRING, "double", "single|double", 0, "AMG V-cycle precision: single stores the hierarchy's matrices and smoother vectors in FP32 and runs the cycle in FP32 inside the FP64 solver (Jacobi smoother, csr levels, finest level csr/dia/dia_half)"},
  {"amg_fine_format", OPT_STRING, "auto", NULL, 0, "AMG finest level's operator in the V-cycle: auto (dia_half, else dia, on a one-rank GPU context; the matrix elsewhere), matrix, or a format (the matrix when it refuses)"},
  {"amg_setup", OPT_STRING, "gpu", "gpu|host", 0, "AMG setup of the big levels on the GPU (GPU context; one rank: the whole setup, their P and R in csr; several ranks: the aggregation, P and the local Galerkin products on each rank's GPU) or all on the host"},
  {"amg_gpu_min_rows", OPT_INT, "5000", NULL, 1, "AMG GPU setup: coarse levels with at least this many rows are also built on the GPU"},
  {"amg_host_threads", OPT_INT, "0", NULL, 1, "AMG OpenMP threads of the host-side setup and update; 0: as OpenMP decides on a CPU context, half the cores on a GPU context unless OMP_NUM_THREADS is set"},
  {"amg_cuda_graph", OPT_BOOL, "0", NULL, 0, "AMG V-cycle captured once per (r, z) pair and replayed as a CUDA graph (one-rank GPU context; byte-identical to the plain cycle)"},
  {"amg_view", OPT_FLAG, "0", NULL, 0, "print the AMG hierarchy after setup (rank 0)"},
  {"help", OPT_FLAG, "0", NULL, 0, "list the options and exit"},
};
#define NKNOWN ((int)(sizeof(known) / sizeof(known[0])))

typedef struct {
  char *name, *def, *help, *value; /* owned copies */
  const char *choices;             /* static (known options only) */
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
  for (int i = 0; i < NKNOWN; i++) {
    ng_status st = add_entry(o, known[i].name, known[i].type, known[i].def, known[i].choices, known[i].nonneg,
                             known[i].help);
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
  NG_CHECK(add_entry(o, name, OPT_STRING, default_value ? default_value : "", NULL, 0, help ? help : ""));
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
  case OPT_INT:
    if (!parse_int(v, &l))
      return NG_ERROR(NG_ERR_ARGUMENT, "option -%s: '%s' is not an integer", e->name, v);
    if (e->nonneg && l < 0) return NG_ERROR(NG_ERR_ARGUMENT, "option -%s: '%s' must be >= 0", e->name, v);
    break;
  case OPT_REAL:
    if (!parse_real(v, &d))
      return NG_ERROR(NG_ERR_ARGUMENT, "option -%s: '%s' is not a finite real number", e->name, v);
    if (e->nonneg && d < 0) return NG_ERROR(NG_ERR_ARGUMENT, "option -%s: '%s' must be >= 0", e->name, v);
    break;
  case OPT_BOOL:
  case OPT_FLAG:
    if (parse_bool(v) < 0)
      return NG_ERROR(NG_ERR_ARGUMENT, "option -%s: '%s' is not a boolean (1/0, true/false, yes/no, on/off)", e->name, v);
    break;
  case OPT_STRING:
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
    if (e->type == OPT_FLAG) {
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

/* -help layout: "  -name <type>" in a column of NG_HELP_HEAD characters, then the
 * help text (and the default) word-wrapped so that no line is longer than
 * NG_HELP_WIDTH; continuation lines are indented to the text's column. A
 * head wider than its column puts the text on the next line. */
#define NG_HELP_WIDTH 100
#define NG_HELP_HEAD 33

/* Writes the words of text, starting at column *col, wrapping at
 * NG_HELP_WIDTH onto lines indented by NG_HELP_HEAD. */
static void put_wrapped(FILE *f, const char *text, int *col)
{
  for (const char *w = text; *w;) {
    while (*w == ' ') w++;
    if (!*w) break;
    int len = (int)strcspn(w, " ");
    if (*col > NG_HELP_HEAD && *col + 1 + len > NG_HELP_WIDTH) {
      fprintf(f, "\n%*s", NG_HELP_HEAD, "");
      *col = NG_HELP_HEAD;
    }
    if (*col > NG_HELP_HEAD) { fputc(' ', f); (*col)++; }
    fwrite(w, 1, (size_t)len, f);
    *col += len;
    w += len;
  }
}

ng_status ng_options_print_help(ng_options o, void *file)
{
  FILE *f = file ? (FILE *)file : stdout;
  NG_ASSERT_ARG(o, "ng_options_print_help: null options");
  fprintf(f, "nagare options (-name <values or type>, what it does, the default and any value set):\n");
  for (int i = 0; i < o->n; i++) {
    const opt_entry *e = &o->e[i];
    char head[96], tail[160];
    int col = snprintf(head, sizeof(head), "  -%s <%s>", e->name, e->choices ? e->choices : type_name[e->type]);
    fputs(head, f);
    if (col > NG_HELP_HEAD - 1) fputc('\n', f), col = 0;
    fprintf(f, "%*s", NG_HELP_HEAD - col, "");
    col = NG_HELP_HEAD;
    put_wrapped(f, e->help, &col);
    if (strcmp(e->def, e->value))
      snprintf(tail, sizeof(tail), "(default \"%s\", set to \"%s\")", e->def, e->value);
    else
      snprintf(tail, sizeof(tail), "(default \"%s\")", e->def);
    put_wrapped(f, tail, &col);
    fputc('\n', f);
  }
  return NG_SUCCESS;
}
