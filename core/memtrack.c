/* core/memtrack.c: the bytes the library holds, per memory space (host:
 * ng_host_alloc / ng_host_realloc / ng_free in core/memory.c; device:
 * ng_cuda_malloc / ng_cuda_free and the pool's ng_cuda_tmp_* in
 * core/cuda_context.cu): live bytes and the peak of live bytes since the
 * last reset (the AMG's -amg_view memory line, amg/amg.c). A free does not
 * say its size, so each space keeps a map pointer -> bytes (open
 * addressing, linear probing, backward-shift deletion) behind a spin lock;
 * only allocations and frees touch it, never a solver iteration. A pointer
 * tracked again replaces its entry (a defence: every library free goes
 * through ng_free / ng_cuda_free / ng_cuda_tmp_free, which untrack); a
 * pointer never tracked is ignored at untrack. The maps themselves (plain
 * calloc) are not counted. */
#include "core.h"
#include <stdatomic.h>
#include <stdint.h>

typedef struct {
  uintptr_t key; /* 0: empty slot */
  size_t bytes;
} mem_slot;

typedef struct {
  atomic_flag lock;
  mem_slot *slot;
  size_t cap, count; /* cap: 0 or a power of two */
  int64_t live, peak;
} mem_space;

static mem_space spaces[NG_MEM_SPACES] = {{ATOMIC_FLAG_INIT, NULL, 0, 0, 0, 0},
                                          {ATOMIC_FLAG_INIT, NULL, 0, 0, 0, 0}};

static void lock(mem_space *s)
{
  while (atomic_flag_test_and_set_explicit(&s->lock, memory_order_acquire)) {
  }
}
static void unlock(mem_space *s) { atomic_flag_clear_explicit(&s->lock, memory_order_release); }

static size_t home(uintptr_t key, size_t cap)
{
  uint64_t h = (uint64_t)(key >> 4) * UINT64_C(0x9E3779B97F4A7C15);
  return (size_t)(h >> 32) & (cap - 1);
}

/* The slot of key, or of the empty slot where it would go. */
static size_t find(const mem_space *s, uintptr_t key)
{
  size_t i = home(key, s->cap);
  while (s->slot[i].key && s->slot[i].key != key) i = (i + 1) & (s->cap - 1);
  return i;
}

/* Twice the slots (or 1024 at first); 0 when out of memory (then the
 * allocation goes untracked). */
static int grow(mem_space *s)
{
  size_t cap = s->cap ? 2 * s->cap : 1024;
  mem_slot *old = s->slot, *slot = calloc(cap, sizeof(*slot));
  if (!slot) return 0;
  size_t oldcap = s->cap;
  s->slot = slot;
  s->cap = cap;
  for (size_t k = 0; k < oldcap; k++)
    if (old[k].key) s->slot[find(s, old[k].key)] = old[k];
  free(old);
  return 1;
}

/* Remove slot i, moving later entries of its run back (no tombstones). */
static void erase(mem_space *s, size_t i)
{
  size_t mask = s->cap - 1, j = i;
  s->live -= (int64_t)s->slot[i].bytes;
  s->count--;
  for (;;) {
    s->slot[i].key = 0;
    for (;;) {
      j = (j + 1) & mask;
      if (!s->slot[j].key) return;
      size_t h = home(s->slot[j].key, s->cap);
      /* j's entry may fill the hole at i when its home is not in (i, j] */
      if (i <= j ? (i < h && h <= j) : (i < h || h <= j)) continue;
      break;
    }
    s->slot[i] = s->slot[j];
    i = j;
  }
}

void ng_mem_track(int space, const void *p, size_t bytes)
{
  if (!p || space < 0 || space >= NG_MEM_SPACES) return;
  mem_space *s = &spaces[space];
  uintptr_t key = (uintptr_t)p;
  lock(s);
  if (s->cap && s->slot[find(s, key)].key) erase(s, find(s, key)); /* its address came back */
  if ((s->count + 1) * 2 > s->cap && !grow(s)) {
    unlock(s);
    return;
  }
  size_t i = find(s, key);
  s->slot[i].key = key;
  s->slot[i].bytes = bytes;
  s->count++;
  s->live += (int64_t)bytes;
  if (s->live > s->peak) s->peak = s->live;
  unlock(s);
}

size_t ng_mem_untrack(int space, const void *p)
{
  size_t bytes = 0;
  if (!p || space < 0 || space >= NG_MEM_SPACES) return 0;
  mem_space *s = &spaces[space];
  lock(s);
  if (s->cap) {
    size_t i = find(s, (uintptr_t)p);
    if (s->slot[i].key) {
      bytes = s->slot[i].bytes;
      erase(s, i);
    }
  }
  unlock(s);
  return bytes;
}

int64_t ng_mem_current(int space)
{
  if (space < 0 || space >= NG_MEM_SPACES) return 0;
  mem_space *s = &spaces[space];
  lock(s);
  int64_t v = s->live;
  unlock(s);
  return v;
}

int64_t ng_mem_peak(int space)
{
  if (space < 0 || space >= NG_MEM_SPACES) return 0;
  lock(&spaces[space]);
  int64_t v = spaces[space].peak;
  unlock(&spaces[space]);
  return v;
}

int64_t ng_mem_reset_peak(int space)
{
  if (space < 0 || space >= NG_MEM_SPACES) return 0;
  int64_t v = ng_mem_current(space);
  lock(&spaces[space]);
  spaces[space].peak = spaces[space].live;
  unlock(&spaces[space]);
  return v;
}
