/* examples/progress.h: progress lines for the long phases of nagare-solve
 * (reading or generating the matrix, the preconditioner setup, the solve):
 * on rank 0, a phase still running after -progress seconds (default 2) is
 * announced on stderr, again every 10 s, and its time given when it ends.
 * Short phases print nothing. */
#ifndef NG_EXAMPLES_PROGRESS_H
#define NG_EXAMPLES_PROGRESS_H

/* Seconds after which a phase is announced; negative (the default until
 * this is called, so programs that do not call it print nothing): never.
 * Call with a negative value on the ranks that must stay silent. */
void ng_example_progress_init(double after_seconds);
/* A phase starts ("reading A.mtx") / ends. Phases do not nest. */
void ng_example_progress_begin(const char *what);
void ng_example_progress_end(void);
#endif
