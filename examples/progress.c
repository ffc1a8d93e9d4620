/* examples/progress.c: progress lines for long phases (progress.h). A
 * watcher thread waits on a condition variable until the phase ends or its
 * deadline passes; at the deadline it prints "nagare-solve: reading A.mtx
 * ..." on stderr, then every 10 s the time so far; the phase's end prints
 * "...: done in 14.2 s" when anything was printed. The thread only sleeps
 * and writes to stderr, so the library's calls run undisturbed. With
 * -progress 0 the first line is printed at once (the tests use it). */
#include "progress.h"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define NG_PROGRESS_EVERY 10.0 /* seconds between the lines of one phase */

static struct {
  double after; /* < 0: off */
  int active, done, printed;
  char what[256];
  struct timespec t0;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
} P = {.after = -1.0, .mu = PTHREAD_MUTEX_INITIALIZER};

static double since(const struct timespec *t0)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

static struct timespec later(const struct timespec *t0, double s)
{
  struct timespec t = *t0;
  long long ns = (long long)t.tv_nsec + (long long)(1e9 * (s - (double)(long long)s));
  t.tv_sec += (time_t)s + (time_t)(ns / 1000000000LL);
  t.tv_nsec = (long)(ns % 1000000000LL);
  return t;
}

static void *watch(void *unused)
{
  (void)unused;
  pthread_mutex_lock(&P.mu);
  struct timespec deadline;
  double next = P.after > 0 ? P.after : NG_PROGRESS_EVERY; /* 0: begin printed the first line */
  deadline = later(&P.t0, next);
  while (!P.done) {
    if (pthread_cond_timedwait(&P.cv, &P.mu, &deadline) != ETIMEDOUT || P.done) continue;
    if (!P.printed)
      fprintf(stderr, "nagare-solve: %s ...\n", P.what);
    else
      fprintf(stderr, "nagare-solve: %s ... %.0f s\n", P.what, since(&P.t0));
    P.printed = 1;
    next += NG_PROGRESS_EVERY;
    deadline = later(&P.t0, next);
  }
  pthread_mutex_unlock(&P.mu);
  return NULL;
}

void ng_example_progress_init(double after_seconds) { P.after = after_seconds; }

void ng_example_progress_begin(const char *what)
{
  pthread_condattr_t attr;
  if (P.after < 0 || P.active) return;
  snprintf(P.what, sizeof(P.what), "%s", what);
  P.done = 0;
  P.printed = 0;
  clock_gettime(CLOCK_MONOTONIC, &P.t0);
  if (P.after == 0) { /* at once, not at the thread's first wake-up */
    fprintf(stderr, "nagare-solve: %s ...\n", P.what);
    P.printed = 1;
  }
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  int ok = pthread_cond_init(&P.cv, &attr) == 0;
  pthread_condattr_destroy(&attr);
  if (!ok) return;
  if (pthread_create(&P.thread, NULL, watch, NULL) != 0) { /* no thread: no lines, nothing else lost */
    pthread_cond_destroy(&P.cv);
    return;
  }
  P.active = 1;
}

void ng_example_progress_end(void)
{
  if (!P.active) {
    if (P.printed) fprintf(stderr, "nagare-solve: %s: done in %.1f s\n", P.what, since(&P.t0));
    P.printed = 0;
    return;
  }
  pthread_mutex_lock(&P.mu);
  P.done = 1;
  pthread_cond_signal(&P.cv);
  pthread_mutex_unlock(&P.mu);
  pthread_join(P.thread, NULL);
  pthread_cond_destroy(&P.cv);
  P.active = 0;
  if (P.printed) fprintf(stderr, "nagare-solve: %s: done in %.1f s\n", P.what, since(&P.t0));
  P.printed = 0;
}
