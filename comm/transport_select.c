/* comm/transport_select.c: which transport moves each neighbour's halo.
 * The context holds the choice (auto, host, ipc, cuda_mpi: from
 * NG_COMM_TRANSPORT at creation, or ng_context_set_transport). At plan
 * creation every rank learns, in one MPI_Allgather, each rank's node
 * (MPI_COMM_TYPE_SHARED), GPU (PCI bus id) and whether its MPI is
 * CUDA-aware; then for each neighbour:
 *   auto:     ipc when both ranks are on GPU contexts of one node and can
 *             map each other's GPU memory; else cuda_mpi when MPI is
 *             CUDA-aware on both; else host;
 *   forced:   that transport for every neighbour, or an error naming the
 *             pair that cannot use it.
 * Both ranks of a pair swap their verdicts (point to point) and take the
 * more modest one, so a pair never disagrees; when auto's GPU transports
 * cannot be set up on some rank, the whole plan falls back to host. The plan then runs one part
 * per kind present (comm/transport_part.h) in a fixed order on every rank;
 * callers see one ops table. */
#include "transport_part.h"

static const char *const kind_name[] = {"host", "cuda_mpi", "ipc", "auto"};
#define NG_TAG_SELECT 7316

static int kind_of_name(const char *name)
{
  for (int k = 0; k <= NG_TRANSPORT_AUTO; k++)
    if (!strcmp(name, kind_name[k])) return k;
  return -1;
}

/* Whether this context can use kind k at all (the same verdict on every
 * rank of one build and MPI library). */
static ng_status kind_allowed(ng_context ctx, int k)
{
  char why[200];
  if (k == NG_TRANSPORT_CUDA_MPI && !ng_cuda_mpi_available(why, sizeof(why)))
    return NG_ERROR(NG_ERR_UNSUPPORTED, "comm transport 'cuda_mpi' is not available: %s; use ipc (same node) or host",
                    why);
  if ((k == NG_TRANSPORT_IPC || k == NG_TRANSPORT_CUDA_MPI) && !ng_have_cuda())
    return NG_ERROR(NG_ERR_UNSUPPORTED, "comm transport '%s' needs a build with CUDA; this build has only 'host'",
                    kind_name[k]);
  if ((k == NG_TRANSPORT_IPC || k == NG_TRANSPORT_CUDA_MPI) && !ctx->on_gpu)
    return NG_ERROR(NG_ERR_UNSUPPORTED,
                    "comm transport '%s' moves GPU memory, but this context is on the host CPU: only 'host' (or "
                    "'auto') is accepted there",
                    kind_name[k]);
  return NG_SUCCESS;
}

ng_status ng_context_set_transport(ng_context ctx, const char *name)
{
  NG_ASSERT_ARG(ctx && name, "ng_context_set_transport: null argument");
  int k = kind_of_name(name);
  if (k < 0) return NG_ERROR(NG_ERR_ARGUMENT, "unknown comm transport '%s' (use auto, host, ipc or cuda_mpi)", name);
  NG_CHECK(kind_allowed(ctx, k));
  ctx->comm_transport = k;
  return NG_SUCCESS;
}

const char *ng_context_get_transport(ng_context ctx) { return ctx ? kind_name[ctx->comm_transport] : ""; }

#ifdef NG_HAVE_MPI
/* Parts in the order every rank runs them. */
static const ng_transport_part *const part_of[NG_TRANSPORT_KINDS] = {&ng_part_host, &ng_part_cuda_mpi, &ng_part_ipc};
static const int run_order[NG_TRANSPORT_KINDS] = {NG_TRANSPORT_IPC, NG_TRANSPORT_CUDA_MPI, NG_TRANSPORT_HOST};

typedef struct {
  int *send_kind, *recv_kind;          /* per neighbour of the plan */
  ng_nb_subset sub[NG_TRANSPORT_KINDS]; /* by kind */
  void *state[NG_TRANSPORT_KINDS];
  int set_up[NG_TRANSPORT_KINDS];       /* setup ran (destroy needed) */
  int active[NG_TRANSPORT_KINDS];       /* this rank has neighbours of the kind */
} select_state;

typedef struct {
  int node;      /* lowest rank of the node */
  int on_gpu;
  int cuda_mpi;  /* MPI takes device pointers */
  char bus[24];  /* PCI bus id of the GPU ("" on the host) */
} rank_info;

static ng_status gather_info(ng_context ctx, rank_info *all)
{
  MPI_Comm comm = ctx->comm->comm, node;
  rank_info me;
  char why[200];
  memset(&me, 0, sizeof(me));
  me.node = ctx->rank;
  NG_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, ctx->rank, MPI_INFO_NULL, &node));
  int rc = MPI_Allreduce(&ctx->rank, &me.node, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  NG_MPI_CHECK(rc);
  me.on_gpu = ctx->on_gpu;
  me.cuda_mpi = ctx->on_gpu && ng_cuda_mpi_available(why, sizeof(why));
  ng_ipc_bus_id(ctx, me.bus, (int)sizeof(me.bus));
  NG_MPI_CHECK(MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, comm));
  return NG_SUCCESS;
}

/* This rank's verdict for neighbour r under mode (-1 and an error when a
 * forced mode cannot serve the pair). */
static int pair_kind(ng_context ctx, const rank_info *all, int r, int mode, ng_status *st)
{
  const rank_info *me = &all[ctx->rank], *nb = &all[r];
  int ipc = me->on_gpu && nb->on_gpu && me->node == nb->node && ng_ipc_can_map(ctx, nb->bus);
  int cm = me->cuda_mpi && nb->cuda_mpi;
  switch (mode) {
  case NG_TRANSPORT_HOST: return NG_TRANSPORT_HOST;
  case NG_TRANSPORT_IPC:
    if (ipc) return NG_TRANSPORT_IPC;
    if (!*st) {
      if (!nb->on_gpu || !me->on_gpu)
        *st = NG_ERROR(NG_ERR_UNSUPPORTED, "comm transport 'ipc': rank %d is on a host CPU context",
                       me->on_gpu ? r : ctx->rank);
      else if (me->node != nb->node)
        *st = NG_ERROR(NG_ERR_UNSUPPORTED,
                       "comm transport 'ipc': ranks %d and %d are on different nodes (ipc needs ranks of one node); "
                       "use auto",
                       ctx->rank, r);
      else
        *st = NG_ERROR(NG_ERR_UNSUPPORTED,
                       "comm transport 'ipc': rank %d (GPU %s) cannot map the memory of rank %d (GPU %s): no peer "
                       "access; use auto",
                       ctx->rank, me->bus, r, nb->bus);
    }
    return -1;
  case NG_TRANSPORT_CUDA_MPI:
    if (cm) return NG_TRANSPORT_CUDA_MPI;
    if (!*st)
      *st = NG_ERROR(NG_ERR_UNSUPPORTED, "comm transport 'cuda_mpi': the MPI library of rank %d is not CUDA-aware",
                     me->cuda_mpi ? r : ctx->rank);
    return -1;
  default:
    return ipc ? NG_TRANSPORT_IPC : cm ? NG_TRANSPORT_CUDA_MPI : NG_TRANSPORT_HOST;
  }
}

/* Kind of every neighbour, the same on both ranks of each pair. alloc is
 * the caller's allocations' status, agreed with these here (a failure
 * returned); *verdict is this rank's own verdict on the kinds, for the
 * caller to agree on. The ranks'
 * facts are gathered once per context (the first plan; every plan's
 * creation is collective, so all ranks hold them or none) and reused. */
static ng_status decide_kinds(struct ng_halo_plan *h, int mode, select_state *s, ng_status alloc, ng_status *verdict)
{
  ng_context ctx = h->ctx;
  int size = ctx->size, n = 0;
  rank_info *all = ctx->rank_info;
  int fresh = !all; /* gathered here, kept in ctx once gathered */
  int *nb = NULL, *mine = NULL, *theirs = NULL, *kind_of = NULL;
  MPI_Request *req = NULL;
  ng_status st = mode == NG_TRANSPORT_AUTO ? NG_SUCCESS : kind_allowed(ctx, mode);
  if (!alloc && fresh) alloc = NG_MALLOC(all, size);
  if (!alloc) alloc = NG_MALLOC(nb, h->n_send_nb + h->n_recv_nb + 1);
  if (!alloc) alloc = NG_MALLOC(mine, h->n_send_nb + h->n_recv_nb + 1);
  if (!alloc) alloc = NG_MALLOC(theirs, h->n_send_nb + h->n_recv_nb + 1);
  if (!alloc) alloc = NG_MALLOC(kind_of, size);
  if (!alloc) alloc = NG_MALLOC(req, 2 * (h->n_send_nb + h->n_recv_nb) + 1);
  NG_CHECK_GOTO(alloc, ng_comm_agree(ctx, alloc), done);
  if (fresh) {
    NG_CHECK_GOTO(alloc, gather_info(ctx, all), done);
    ctx->rank_info = all;
    fresh = 0;
  }
  /* distinct neighbours (both lists ascending) */
  for (int a = 0, b = 0; a < h->n_send_nb || b < h->n_recv_nb;) {
    if (b == h->n_recv_nb || (a < h->n_send_nb && h->send_rank[a] < h->recv_rank[b])) nb[n++] = h->send_rank[a++];
    else if (a == h->n_send_nb || h->recv_rank[b] < h->send_rank[a]) nb[n++] = h->recv_rank[b++];
    else { nb[n++] = h->send_rank[a++]; b++; }
  }
  for (int k = 0; k < n; k++) mine[k] = st ? -1 : pair_kind(ctx, all, nb[k], mode, &st);
  /* swap verdicts with every neighbour, failed or not, so nobody waits */
  int rc = MPI_SUCCESS, m = 0;
  for (int k = 0; k < n && rc == MPI_SUCCESS; k++)
    rc = MPI_Irecv(&theirs[k], 1, MPI_INT, nb[k], NG_TAG_SELECT, ctx->comm->comm, &req[m++]);
  for (int k = 0; k < n && rc == MPI_SUCCESS; k++)
    rc = MPI_Isend(&mine[k], 1, MPI_INT, nb[k], NG_TAG_SELECT, ctx->comm->comm, &req[m++]);
  if (rc == MPI_SUCCESS) rc = MPI_Waitall(m, req, MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS && !st) st = NG_ERROR(NG_ERR_MPI, "comm transport: exchange of verdicts with neighbours failed");
  for (int k = 0; k < n && !st; k++) {
    if (mine[k] < 0 || theirs[k] < 0)
      st = NG_ERROR(NG_ERR_UNSUPPORTED, "comm transport '%s': rank %d cannot use it with rank %d", kind_name[mode],
                    nb[k], ctx->rank);
    else if (mode != NG_TRANSPORT_AUTO && mine[k] != theirs[k])
      st = NG_ERROR(NG_ERR_UNSUPPORTED, "comm transport: ranks %d and %d were asked for different transports (%s, %s)",
                    ctx->rank, nb[k], kind_name[mine[k]], kind_name[theirs[k]]);
    else
      kind_of[nb[k]] = mine[k] < theirs[k] ? mine[k] : theirs[k];
  }
  if (!st) {
    for (int q = 0; q < h->n_send_nb; q++) s->send_kind[q] = kind_of[h->send_rank[q]];
    for (int q = 0; q < h->n_recv_nb; q++) s->recv_kind[q] = kind_of[h->recv_rank[q]];
  }
  *verdict = st; /* not agreed here: the caller folds it into its next agreement */
done:
  if (fresh) ng_free(all);
  ng_free(nb);
  ng_free(mine);
  ng_free(theirs);
  ng_free(kind_of);
  ng_free(req);
  return alloc;
}

/* The neighbours of kind k, as index lists. */
static ng_status build_subset(struct ng_halo_plan *h, const select_state *s, int k, ng_nb_subset *sub)
{
  NG_CHECK(NG_MALLOC(sub->snb, h->n_send_nb + 1));
  NG_CHECK(NG_MALLOC(sub->rnb, h->n_recv_nb + 1));
  for (int q = 0; q < h->n_send_nb; q++)
    if (s->send_kind[q] == k) sub->snb[sub->ns++] = q;
  for (int q = 0; q < h->n_recv_nb; q++)
    if (s->recv_kind[q] == k) sub->rnb[sub->nr++] = q;
  sub->all_send = sub->ns == h->n_send_nb;
  sub->all_recv = sub->nr == h->n_recv_nb;
  return NG_SUCCESS;
}

static void sel_destroy(struct ng_halo_plan *h)
{
  select_state *s = h->tdata;
  if (!s) return;
  for (int k = 0; k < NG_TRANSPORT_KINDS; k++) {
    if (s->set_up[k]) part_of[k]->destroy(h, s->state[k]);
    ng_free(s->sub[k].snb);
    ng_free(s->sub[k].rnb);
  }
  ng_free(s->send_kind);
  ng_free(s->recv_kind);
  ng_free(s);
  h->tdata = NULL;
}

static ng_status select_once(struct ng_halo_plan *h, double *recv_buf, int mode)
{
  ng_context ctx = h->ctx;
  select_state *s = NULL;
  ng_status st = NG_CALLOC(s, 1);
  if (!st) {
    h->tdata = s;
    st = NG_MALLOC(s->send_kind, h->n_send_nb + 1);
  }
  if (!st) st = NG_MALLOC(s->recv_kind, h->n_recv_nb + 1);
  ng_status verdict = NG_SUCCESS;
  NG_CHECK_GOTO(st, decide_kinds(h, mode, s, st, &verdict), fail); /* its first agreement covers these allocations */
  st = verdict; /* agreed below, with the subsets */
  int used = 0, unused[NG_TRANSPORT_KINDS];
  for (int k = 0; k < NG_TRANSPORT_KINDS && !st; k++) {
    st = build_subset(h, s, k, &s->sub[k]);
    s->active[k] = s->sub[k].ns + s->sub[k].nr > 0;
  }
  /* the kinds any rank uses: a MIN of "unused" flags, riding in the subsets' agreement */
  for (int k = 0; k < NG_TRANSPORT_KINDS; k++) unused[k] = !s->active[k];
  NG_CHECK_GOTO(st, ng_comm_agree_min(ctx, st, unused, NG_TRANSPORT_KINDS), fail);
  for (int k = 0; k < NG_TRANSPORT_KINDS; k++) used |= !unused[k] << k;
  /* parts whose kind any rank uses run setup on every rank (collective) */
  for (int i = 0; i < NG_TRANSPORT_KINDS; i++) {
    int k = run_order[i];
    if (!(used >> k & 1)) continue;
    ng_status pst = part_of[k]->setup(h, recv_buf, &s->sub[k], &s->state[k]);
    s->set_up[k] = 1;
    if (!st) st = pst;
  }
  NG_CHECK_GOTO(st, ng_comm_agree(ctx, st), fail);
  return NG_SUCCESS;
fail:
  sel_destroy(h);
  return st;
}

/* auto never fails where host would work: when a GPU part cannot be set up
 * (every rank knows, the failure is agreed), the plan goes through host and
 * the per-rank report says so. */
static ng_status select_with_mode(struct ng_halo_plan *h, double *recv_buf, int mode)
{
  ng_status st = select_once(h, recv_buf, mode);
  if (st != NG_SUCCESS && mode == NG_TRANSPORT_AUTO) {
    st = select_once(h, recv_buf, NG_TRANSPORT_HOST);
    if (st == NG_SUCCESS) ng_error_clear();
  }
  NG_CHECK(st);
  return NG_SUCCESS;
}

static ng_status sel_pack(struct ng_halo_plan *h, const double *x)
{
  select_state *s = h->tdata;
  for (int i = 0; i < NG_TRANSPORT_KINDS; i++)
    if (s->active[run_order[i]]) NG_CHECK(part_of[run_order[i]]->pack(h, s->state[run_order[i]], x));
  return NG_SUCCESS;
}

static ng_status sel_start(struct ng_halo_plan *h)
{
  select_state *s = h->tdata;
  for (int i = 0; i < NG_TRANSPORT_KINDS; i++)
    if (s->active[run_order[i]]) NG_CHECK(part_of[run_order[i]]->start(h, s->state[run_order[i]]));
  return NG_SUCCESS;
}

static ng_status sel_finish(struct ng_halo_plan *h, double *recv_buf)
{
  select_state *s = h->tdata;
  for (int i = 0; i < NG_TRANSPORT_KINDS; i++)
    if (s->active[run_order[i]]) NG_CHECK(part_of[run_order[i]]->finish(h, s->state[run_order[i]], recv_buf));
  return NG_SUCCESS;
}

static ng_status setup_host(struct ng_halo_plan *h, double *b) { return select_with_mode(h, b, NG_TRANSPORT_HOST); }
static ng_status setup_ipc(struct ng_halo_plan *h, double *b) { return select_with_mode(h, b, NG_TRANSPORT_IPC); }
static ng_status setup_cuda_mpi(struct ng_halo_plan *h, double *b)
{
  return select_with_mode(h, b, NG_TRANSPORT_CUDA_MPI);
}
static ng_status setup_auto(struct ng_halo_plan *h, double *b) { return select_with_mode(h, b, NG_TRANSPORT_AUTO); }

#define SELECT_TABLE(tname, setup_fn) \
  {.name = tname, .setup = setup_fn, .pack = sel_pack, .start = sel_start, .finish = sel_finish, .destroy = sel_destroy}
const ng_transport_ops ng_transport_host = SELECT_TABLE("host", setup_host);
const ng_transport_ops ng_transport_ipc = SELECT_TABLE("ipc", setup_ipc);
const ng_transport_ops ng_transport_cuda_mpi = SELECT_TABLE("cuda_mpi", setup_cuda_mpi);
static const ng_transport_ops transport_auto = SELECT_TABLE("auto", setup_auto);
static const ng_transport_ops *const table_of[] = {&ng_transport_host, &ng_transport_cuda_mpi, &ng_transport_ipc,
                                                   &transport_auto};

ng_status ng_transport_select_and_setup(struct ng_halo_plan *h, double *recv_buf)
{
  h->transport = table_of[h->ctx->comm_transport];
  NG_CHECK(h->transport->setup(h, recv_buf));
  return NG_SUCCESS;
}

void ng_transport_describe(const struct ng_halo_plan *h, char *buf, size_t len)
{
  const select_state *s = h ? h->tdata : NULL;
  size_t used = 0;
  if (len) buf[0] = '\0';
  if (!s) {
    snprintf(buf, len, "-");
    return;
  }
  /* per kind, the distinct neighbour ranks ascending: "ipc:1,2 host:0" */
  for (int i = 0; i < NG_TRANSPORT_KINDS; i++) {
    int k = run_order[i], a = 0, b = 0, first = 1;
    while (a < h->n_send_nb || b < h->n_recv_nb) {
      int r, kind;
      if (b == h->n_recv_nb || (a < h->n_send_nb && h->send_rank[a] < h->recv_rank[b])) { r = h->send_rank[a]; kind = s->send_kind[a++]; }
      else if (a == h->n_send_nb || h->recv_rank[b] < h->send_rank[a]) { r = h->recv_rank[b]; kind = s->recv_kind[b++]; }
      else { r = h->send_rank[a]; kind = s->send_kind[a++]; b++; }
      if (kind != k || used >= len) continue;
      if (first) used += (size_t)snprintf(buf + used, len - used, "%s%s:%d", used ? " " : "", kind_name[k], r);
      else used += (size_t)snprintf(buf + used, len - used, ",%d", r);
      first = 0;
    }
  }
  if (used >= len && len > 4) strcpy(buf + len - 4, "...");
}
#else
ng_status ng_transport_select_and_setup(struct ng_halo_plan *h, double *recv_buf)
{
  return NG_ERROR(NG_ERR_UNSUPPORTED, "halo exchange needs a build with MPI");
}
void ng_transport_describe(const struct ng_halo_plan *h, char *buf, size_t len) { snprintf(buf, len, "-"); }
#endif
