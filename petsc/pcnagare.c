/* petsc/pcnagare.c: PCNAGARE, nagare's preconditioner (AMG by default) as a
 * PETSc PC type. Setup copies this rank's rows of the Pmat once (MatGetRow:
 * global columns, any AIJ type, host or device storage) into a CSR with
 * global indices and hands it to ng_matrix_create_distributed on the Mat's
 * communicator; a later setup with SAME_NONZERO_PATTERN passes only the
 * values (same rows, same order) to ng_matrix_update_values and calls
 * ng_precond_update, which keeps the AMG aggregates. The values come
 * straight from the AIJ arrays: a SeqAIJ's value array is handed over as it
 * is (nagare's copy is the only one), an MPIAIJ's diagonal and off-diagonal
 * blocks are merged row by row into one staging array; other types go
 * through MatGetRow. PCApply copies x into a
 * nagare vector, applies one preconditioner application (one V-cycle for
 * amg) and copies the result out. PCApplyTranspose is the same cycle where
 * it is its own transpose: a symmetric Pmat (MatIsSymmetric, asked once per
 * fresh setup) and as many smoothing sweeps after the coarse correction as
 * before (the V-cycle is then M = M^T: R = P^T, symmetric smoothers, mcgs's
 * backward sweeps mirroring its forward ones); anything else is refused with
 * a message rather than answered wrongly. -help lists every -nagare_ option
 * that applies to a preconditioner (nagare's option table: -nagare_precond,
 * -nagare_jacobi_omega, -nagare_device, -nagare_comm_transport,
 * -nagare_amg_*); the Krylov method's options (-nagare_tol, -nagare_solver,
 * ...) do not apply, KSP's do: they are refused, naming KSP's. */
#include "nagare_petsc.h"
#include "nagare.h"
#include <petsc/private/pcimpl.h>
#include <stdint.h>
#include <string.h>

#if defined(PETSC_USE_COMPLEX) || !defined(PETSC_USE_REAL_DOUBLE) || defined(PETSC_USE_64BIT_INDICES)
#error "the nagare PC needs PETSc configured with real double scalars and 32-bit PetscInt"
#endif

typedef struct {
  ng_context ctx;
  ng_options opts;     /* nagare's options: -precond amg, then every -nagare_* */
  ng_matrix A;
  ng_precond P;
  ng_vector r, z;
  PetscInt rstart, rend;
  int64_t *rowptr;     /* this rank's rows: pattern kept to check updates */
  double *val;         /* staging copy of the values, in rowptr order */
  PetscInt setups, updates;
  double setup_seconds, update_seconds;
  PetscBool verify;    /* -pc_nagare_verify_copy: check the fast copy against MatGetRow */
  int symmetric;       /* the Pmat's symmetry for PCApplyTranspose: -1 not asked yet, 0 no, 1 yes */
} PC_Nagare;

/* nagare's options that a preconditioner reads; the others belong to the
 * Krylov method or to the programs (KSP's own options replace them). */
static int applies_to_pc(const char *name)
{
  return !strncmp(name, "amg_", 4) || !strcmp(name, "precond") || !strcmp(name, "jacobi_omega") ||
         !strcmp(name, "device") || !strcmp(name, "comm_transport");
}

/* What to use instead of a Krylov option given to the PC. */
static const char *ksp_equivalent(const char *name)
{
  static const struct { const char *ng, *ksp; } eq[] = {
    {"solver", "-ksp_type"}, {"tol", "-ksp_rtol"}, {"atol", "-ksp_atol"}, {"maxit", "-ksp_max_it"},
    {"divtol", "-ksp_divtol"}, {"monitor", "-ksp_monitor"}, {"norm", "-ksp_norm_type"},
    {"gmres_restart", "-ksp_gmres_restart"}, {"null_space", "MatSetNullSpace"}, {NULL, NULL}};
  for (int k = 0; eq[k].ng; k++)
    if (!strcmp(eq[k].ng, name)) return eq[k].ksp;
  return "KSP's own options";
}

/* A failed nagare call becomes a PETSc error with nagare's message. */
#define NGCALL(call)                                                                                          \
  do {                                                                                                        \
    ng_status ng_s_ = (call);                                                                                 \
    if (ng_s_ != NG_SUCCESS)                                                                                  \
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "nagare: %s: %s: %s", #call, ng_status_name(ng_s_), ng_last_error()); \
  } while (0)

/* Builds nagare's options from the defaults and the PETSc options
 * -<prefix>nagare_NAME [VALUE], marking those as used. */
static PetscErrorCode PCNagareCollectOptions(PC pc, PC_Nagare *ng)
{
  const char *prefix = NULL;
  char *all = NULL, *tok, *save = NULL, want[256], *s;
  size_t cap, len = 0, wl;
  PetscOptions options = ((PetscObject)pc)->options;

  PetscFunctionBegin;
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  PetscCall(PetscSNPrintf(want, sizeof(want), "-%snagare_", prefix ? prefix : ""));
  wl = strlen(want);
  PetscCall(PetscOptionsGetAll(options, &all));
  cap = strlen(all) + 64;
  PetscCall(PetscMalloc1(cap, &s));
  s[0] = 0;
  /* all is "-name value -flag -name2 value2 ..."; copy our options, renamed */
  for (tok = strtok_r(all, " ", &save); tok;) {
    char *next = strtok_r(NULL, " ", &save);
    int is_value = next && !(next[0] == '-' && ((next[1] >= 'a' && next[1] <= 'z') || (next[1] >= 'A' && next[1] <= 'Z')));
    if (!strncmp(tok, want, wl) && tok[wl]) {
      PetscBool used;
      if (!applies_to_pc(tok + wl)) {
        char bad[128]; /* tok points into all: copied before all goes */
        const char *eq = ksp_equivalent(tok + wl);
        PetscCall(PetscStrncpy(bad, tok, sizeof(bad)));
        PetscCall(PetscFree(all));
        PetscCall(PetscFree(s));
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                "nagare PC: %s does not apply to a preconditioner: PETSc's KSP runs the Krylov method (use %s)", bad,
                eq);
      }
      PetscCall(PetscOptionsHasName(options, NULL, tok, &used)); /* marks it used */
      len += (size_t)snprintf(s + len, cap - len, " -%s", tok + wl);
      if (is_value) len += (size_t)snprintf(s + len, cap - len, " '%s'", next);
    }
    tok = is_value ? strtok_r(NULL, " ", &save) : next;
  }
  PetscCall(PetscFree(all));
  ng_options_destroy(ng->opts);
  ng->opts = NULL;
  NGCALL(ng_options_create(&ng->opts));
  NGCALL(ng_options_set_from_string(ng->opts, "-precond amg"));
  {
    ng_status st = ng_options_set_from_string(ng->opts, s);
    PetscCall(PetscFree(s));
    if (st != NG_SUCCESS)
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "nagare PC: bad -%snagare_* option: %s", prefix ? prefix : "",
              ng_last_error());
  }
  PetscFunctionReturn(0);
}

/* PETSc 3.23 made PetscOptionItems a pointer type (Debian 12 has 3.18). */
#if PETSC_VERSION_GE(3, 23, 0)
static PetscErrorCode PCSetFromOptions_Nagare(PC pc, PetscOptionItems PetscOptionsObject)
#else
static PetscErrorCode PCSetFromOptions_Nagare(PC pc, PetscOptionItems *PetscOptionsObject)
#endif
{
  PC_Nagare *ng = (PC_Nagare *)pc->data;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "nagare preconditioner (every -nagare_NAME is nagare's -NAME option)");
  PetscCall(PetscOptionsBool("-pc_nagare_verify_copy", "check each value update's copy against MatGetRow", NULL,
                             ng->verify, &ng->verify, NULL));
  {
    /* nagare's own table, listed for -help (the values are read below,
     * with the rest of the -nagare_ options) */
    ng_options defaults = NULL;
    NGCALL(ng_options_create(&defaults));
    for (int k = 0; k < ng_options_count(defaults); k++) {
      const char *name, *def, *help;
      char opt[96], val[256];
      PetscBool set;
      if (ng_options_info(defaults, k, &name, NULL, &def, &help) != NG_SUCCESS || !applies_to_pc(name)) continue;
      if (!strcmp(name, "precond")) def = "amg"; /* this plug-in's default */
      PetscCall(PetscSNPrintf(opt, sizeof(opt), "-nagare_%s", name));
      PetscCall(PetscOptionsString(opt, help, "PCNAGARE", def, val, sizeof(val), &set));
    }
    ng_options_destroy(defaults);
  }
  PetscOptionsHeadEnd();
  PetscCall(PCNagareCollectOptions(pc, ng));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCNagareFree(PC_Nagare *ng)
{
  PetscFunctionBegin;
  ng_vector_destroy(ng->r);
  ng_vector_destroy(ng->z);
  ng_precond_destroy(ng->P);
  ng_matrix_destroy(ng->A);
  ng->r = ng->z = NULL;
  ng->P = NULL;
  ng->A = NULL;
  PetscCall(PetscFree(ng->rowptr));
  PetscCall(PetscFree(ng->val));
  PetscFunctionReturn(0);
}

/* Values of rows rstart..rend-1 into val in rowptr order through MatGetRow
 * (any Mat type), checking the row lengths; gcol (may be NULL) gets the
 * global columns. */
static PetscErrorCode PCNagareCopyValues(Mat M, PC_Nagare *ng, double *val, int64_t *gcol)
{
  PetscFunctionBegin;
  for (PetscInt i = ng->rstart; i < ng->rend; i++) {
    PetscInt ncols;
    const PetscInt *cols;
    const PetscScalar *vals;
    int64_t p = ng->rowptr[i - ng->rstart];
    PetscCall(MatGetRow(M, i, &ncols, &cols, &vals));
    if (p + ncols != ng->rowptr[i - ng->rstart + 1]) {
      PetscCall(MatRestoreRow(M, i, &ncols, &cols, &vals));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
              "nagare PC: row %" PetscInt_FMT " changed length under SAME_NONZERO_PATTERN", i);
    }
    for (PetscInt k = 0; k < ncols; k++) {
      val[p + k] = vals[k];
      if (gcol) gcol[p + k] = cols[k];
    }
    PetscCall(MatRestoreRow(M, i, &ncols, &cols, &vals));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PCNagareRowLengthError(PetscInt row)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "nagare PC: row %" PetscInt_FMT " changed length under SAME_NONZERO_PATTERN", row);
}

/* MPIAIJ: merges the diagonal block (columns cstart + j) and the off-diagonal
 * block (columns garray[j], ascending) of each row in global column order,
 * which is MatGetRow's order, into ng->val. */
static PetscErrorCode PCNagareMergeMPIAIJ(Mat M, PC_Nagare *ng)
{
  Mat Ad, Ao;
  const PetscInt *garray, *id, *jd, *io, *jo;
  const PetscScalar *ad, *ao;
  PetscInt nd, no, cstart, cend;
  PetscBool dd, od;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRangeColumn(M, &cstart, &cend));
  PetscCall(MatMPIAIJGetSeqAIJ(M, &Ad, &Ao, &garray));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nd, &id, &jd, &dd));
  PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &no, &io, &jo, &od));
  PetscCheck(dd && od && nd == ng->rend - ng->rstart && no == nd, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "nagare PC: MatGetRowIJ failed on the MPIAIJ blocks");
  PetscCall(MatSeqAIJGetArrayRead(Ad, &ad));
  PetscCall(MatSeqAIJGetArrayRead(Ao, &ao));
  PetscInt bad = -1;
  for (PetscInt i = 0; i < nd && bad < 0; i++) {
    int64_t p = ng->rowptr[i];
    PetscInt k = io[i];
    for (; k < io[i + 1] && garray[jo[k]] < cstart; k++) ng->val[p++] = ao[k];
    for (PetscInt j = id[i]; j < id[i + 1]; j++) ng->val[p++] = ad[j];
    for (; k < io[i + 1]; k++) ng->val[p++] = ao[k];
    if (p != ng->rowptr[i + 1]) bad = ng->rstart + i;
  }
  PetscCall(MatSeqAIJRestoreArrayRead(Ao, &ao));
  PetscCall(MatSeqAIJRestoreArrayRead(Ad, &ad));
  PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &no, &io, &jo, &od));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &nd, &id, &jd, &dd));
  if (bad >= 0) PetscCall(PCNagareRowLengthError(bad));
  PetscFunctionReturn(0);
}

/* New values of the same pattern into nagare: a SeqAIJ's array as it is, an
 * MPIAIJ merged into ng->val, anything else through MatGetRow. */
static PetscErrorCode PCNagareUpdateValues(Mat M, PC_Nagare *ng)
{
  PetscBool seq, mpi;
  const double *vals = ng->val;
  const PetscScalar *a = NULL;
  ng_status st;

  PetscFunctionBegin;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)M, MATSEQAIJ, &seq));
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)M, MATMPIAIJ, &mpi));
  if (seq) {
    const PetscInt *ia, *ja;
    PetscInt n, bad = -1;
    PetscBool done;
    PetscCall(MatGetRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
    PetscCheck(done && n == ng->rend - ng->rstart, PETSC_COMM_SELF, PETSC_ERR_PLIB, "nagare PC: MatGetRowIJ failed");
    for (PetscInt i = 0; i < n && bad < 0; i++)
      if (ia[i + 1] - ia[0] != ng->rowptr[i + 1]) bad = i;
    PetscCall(MatRestoreRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
    if (bad >= 0) PetscCall(PCNagareRowLengthError(bad));
    PetscCall(MatSeqAIJGetArrayRead(M, &a));
    vals = a;
  } else if (mpi) {
    PetscCall(PCNagareMergeMPIAIJ(M, ng));
  } else {
    PetscCall(PCNagareCopyValues(M, ng, ng->val, NULL));
  }
  if (ng->verify && (seq || mpi)) {
    double *ref;
    int64_t nnz = ng->rowptr[ng->rend - ng->rstart], bad = -1;
    PetscCall(PetscMalloc1(nnz + 1, &ref));
    PetscCall(PCNagareCopyValues(M, ng, ref, NULL));
    for (int64_t p = 0; p < nnz && bad < 0; p++)
      if (ref[p] != vals[p]) bad = p;
    PetscCall(PetscFree(ref));
    PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "nagare PC: the %s copy differs from MatGetRow at entry %lld",
               seq ? "SeqAIJ" : "MPIAIJ", (long long)bad);
    PetscCall(PetscInfo(NULL, "nagare PC: %s value copy verified (%lld entries)\n", seq ? "SeqAIJ" : "MPIAIJ", (long long)nnz));
  }
  st = ng_matrix_update_values(ng->A, vals);
  if (a) PetscCall(MatSeqAIJRestoreArrayRead(M, &a));
  NGCALL(st);
  PetscFunctionReturn(0);
}

static PetscErrorCode PCSetUp_Nagare(PC pc)
{
  PC_Nagare *ng = (PC_Nagare *)pc->data;
  Mat M = pc->pmat;
  PetscInt rstart, rend, N, Ncols;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(MatGetSize(M, &N, &Ncols));
  PetscCheck(N == Ncols, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_SIZ, "nagare PC: the matrix is not square");
  PetscCall(MatGetOwnershipRange(M, &rstart, &rend));
  if (!ng->opts) PetscCall(PCNagareCollectOptions(pc, ng));
  if (!ng->ctx) {
    const char *device = "auto";
    MPI_Comm comm = PetscObjectComm((PetscObject)M);
    NGCALL(ng_options_get_string(ng->opts, "device", &device));
    NGCALL(ng_context_create_comm(device, &comm, &ng->ctx));
  }
  if (ng->A && pc->flag == SAME_NONZERO_PATTERN && rstart == ng->rstart && rend == ng->rend) {
    /* values changed, pattern kept: copy values, update the hierarchy */
    PetscCall(PCNagareUpdateValues(M, ng));
    NGCALL(ng_precond_update(ng->P, ng->A));
    PetscCall(PetscTime(&t1));
    ng->updates++;
    ng->update_seconds += t1 - t0;
    PetscFunctionReturn(0);
  }
  /* first setup or a new pattern: this rank's rows in CSR, global columns */
  PetscCall(PCNagareFree(ng));
  ng->rstart = rstart;
  ng->rend = rend;
  PetscCall(PetscMalloc1(rend - rstart + 1, &ng->rowptr));
  ng->rowptr[0] = 0;
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt ncols;
    PetscCall(MatGetRow(M, i, &ncols, NULL, NULL));
    ng->rowptr[i - rstart + 1] = ng->rowptr[i - rstart] + ncols;
    PetscCall(MatRestoreRow(M, i, &ncols, NULL, NULL));
  }
  {
    int64_t nnz = ng->rowptr[rend - rstart], *gcol;
    ng_status st;
    PetscCall(PetscMalloc1(nnz + 1, &ng->val));
    PetscCall(PetscMalloc1(nnz + 1, &gcol));
    PetscCall(PCNagareCopyValues(M, ng, ng->val, gcol));
    st = ng_matrix_create_distributed(ng->ctx, (int64_t)N, rstart, rend, ng->rowptr, gcol, ng->val, &ng->A);
    PetscCall(PetscFree(gcol));
    NGCALL(st);
  }
  NGCALL(ng_precond_create(ng->ctx, ng->opts, ng->A, &ng->P));
  NGCALL(ng_vector_create(ng->A, &ng->r));
  NGCALL(ng_vector_create(ng->A, &ng->z));
  PetscCall(PetscTime(&t1));
  ng->setups++;
  ng->setup_seconds += t1 - t0;
  ng->symmetric = -1; /* a new matrix: PCApplyTranspose asks again */
  PetscFunctionReturn(0);
}

static PetscErrorCode PCApply_Nagare(PC pc, Vec x, Vec y)
{
  PC_Nagare *ng = (PC_Nagare *)pc->data;
  const PetscScalar *xa;
  PetscScalar *ya;
  ng_status st;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(x, &xa));
  st = ng_vector_set_values(ng->r, xa);
  PetscCall(VecRestoreArrayRead(x, &xa));
  NGCALL(st);
  NGCALL(ng_precond_apply(ng->P, ng->r, ng->z));
  PetscCall(VecGetArrayWrite(y, &ya));
  st = ng_vector_get_values(ng->z, ya);
  PetscCall(VecRestoreArrayWrite(y, &ya));
  NGCALL(st);
  PetscFunctionReturn(0);
}

/* y = M^T x: M itself where the cycle is symmetric (see the file's comment). */
static PetscErrorCode PCApplyTranspose_Nagare(PC pc, Vec x, Vec y)
{
  PC_Nagare *ng = (PC_Nagare *)pc->data;
  int pre = 0, post = 0;

  PetscFunctionBegin;
  if (ng->symmetric < 0) {
    PetscBool set = PETSC_FALSE, flg = PETSC_FALSE;
    PetscCall(MatIsSymmetricKnown(pc->pmat, &set, &flg));
    if (!set) PetscCall(MatIsSymmetric(pc->pmat, 0.0, &flg));
    ng->symmetric = flg ? 1 : 0;
  }
  if (!ng->symmetric)
    SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
            "nagare PC: no transpose of the V-cycle of a nonsymmetric matrix (it is its own transpose only for a "
            "symmetric one): use a method without A^T (-ksp_type gmres, bcgs)");
  NGCALL(ng_options_get_int(ng->opts, "amg_presweeps", &pre));
  NGCALL(ng_options_get_int(ng->opts, "amg_postsweeps", &post));
  {
    /* -amg_sweeps (graded per level) gives each level as many after as before */
    const char *graded = "";
    NGCALL(ng_options_get_string(ng->opts, "amg_sweeps", &graded));
    if (pre != post && !(graded && *graded))
      SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
              "nagare PC: no transpose of a V-cycle with %d sweeps before and %d after the coarse correction (it is "
              "its own transpose with as many after as before)", pre, post);
  }
  PetscCall(PCApply_Nagare(pc, x, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCReset_Nagare(PC pc)
{
  PC_Nagare *ng = (PC_Nagare *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCNagareFree(ng));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCDestroy_Nagare(PC pc)
{
  PC_Nagare *ng = (PC_Nagare *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCNagareFree(ng));
  ng_options_destroy(ng->opts);
  ng_context_destroy(ng->ctx);
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNagareGetSetupCounts_C", NULL));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCView_Nagare(PC pc, PetscViewer viewer)
{
  PC_Nagare *ng = (PC_Nagare *)pc->data;
  PetscBool ascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  nagare %s on %s\n", ng_version_string(),
                                   ng->ctx ? ng_context_describe(ng->ctx) : "(not set up)"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  fresh setups %" PetscInt_FMT " (%g s), value updates %" PetscInt_FMT " (%g s)\n",
                                   ng->setups, ng->setup_seconds, ng->updates, ng->update_seconds));
  if (ng->P) {
    char buf[4096];
    if (ng_precond_describe(ng->P, buf, sizeof(buf)) == NG_SUCCESS) PetscCall(PetscViewerASCIIPrintf(viewer, "%s\n", buf));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PCNagareGetSetupCounts_Nagare(PC pc, PetscInt *setups, PetscInt *updates)
{
  PC_Nagare *ng = (PC_Nagare *)pc->data;

  PetscFunctionBegin;
  if (setups) *setups = ng->setups;
  if (updates) *updates = ng->updates;
  PetscFunctionReturn(0);
}

PetscErrorCode PCNagareGetSetupCounts(PC pc, PetscInt *setups, PetscInt *updates)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCNagareGetSetupCounts_C", (PC, PetscInt *, PetscInt *), (pc, setups, updates));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCCreate_Nagare(PC pc)
{
  PC_Nagare *ng;

  PetscFunctionBegin;
  PetscCall(PetscNew(&ng));
  ng->symmetric = -1;
  pc->data = ng;
  pc->ops->setup = PCSetUp_Nagare;
  pc->ops->apply = PCApply_Nagare;
  pc->ops->applytranspose = PCApplyTranspose_Nagare;
  pc->ops->setfromoptions = PCSetFromOptions_Nagare;
  pc->ops->reset = PCReset_Nagare;
  pc->ops->destroy = PCDestroy_Nagare;
  pc->ops->view = PCView_Nagare;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCNagareGetSetupCounts_C", PCNagareGetSetupCounts_Nagare));
  PetscFunctionReturn(0);
}

PetscErrorCode PCNagareRegister(void)
{
  PetscFunctionBegin;
  PetscCall(PCRegister(PCNAGARE, PCCreate_Nagare));
  PetscFunctionReturn(0);
}

PetscErrorCode PetscDLLibraryRegister_nagare_petsc(void)
{
  return PCNagareRegister();
}
