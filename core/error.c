/* core/error.c: status names and the per-thread error message with its
 * file:line trail (PETSc-style: the first error names the cause, each caller
 * that propagates it appends where it passed). */
#include "core.h"
#include <stdarg.h>

#define NG_MSG_MAX 2048

static _Thread_local char ng_msg[NG_MSG_MAX];
static _Thread_local int ng_trace_depth;

const char *ng_status_name(ng_status s)
{
  switch (s) {
  case NG_SUCCESS: return "NG_SUCCESS";
  case NG_ERR_ARGUMENT: return "NG_ERR_ARGUMENT";
  case NG_ERR_MEMORY: return "NG_ERR_MEMORY";
  case NG_ERR_DEVICE_MEMORY: return "NG_ERR_DEVICE_MEMORY";
  case NG_ERR_IO: return "NG_ERR_IO";
  case NG_ERR_PARSE: return "NG_ERR_PARSE";
  case NG_ERR_UNSUPPORTED: return "NG_ERR_UNSUPPORTED";
  case NG_ERR_NUMERIC: return "NG_ERR_NUMERIC";
  case NG_ERR_BREAKDOWN: return "NG_ERR_BREAKDOWN";
  case NG_ERR_DIVERGED: return "NG_ERR_DIVERGED";
  case NG_ERR_NOT_CONVERGED: return "NG_ERR_NOT_CONVERGED";
  case NG_ERR_DOES_NOT_FIT: return "NG_ERR_DOES_NOT_FIT";
  case NG_ERR_CUDA: return "NG_ERR_CUDA";
  case NG_ERR_NO_DEVICE: return "NG_ERR_NO_DEVICE";
  case NG_ERR_MPI: return "NG_ERR_MPI";
  case NG_ERR_INTERNAL: return "NG_ERR_INTERNAL";
  }
  return "NG_ERR_UNKNOWN";
}

const char *ng_last_error(void) { return ng_msg; }

void ng_error_clear(void)
{
  ng_msg[0] = '\0';
  ng_trace_depth = 0;
}

ng_status ng_error_set(ng_status code, const char *file, int line, const char *fmt, ...)
{
  va_list ap;
  int k;
  va_start(ap, fmt);
  k = vsnprintf(ng_msg, NG_MSG_MAX, fmt, ap);
  va_end(ap);
  if (k < 0) k = 0;
  if (k < NG_MSG_MAX)
    snprintf(ng_msg + k, NG_MSG_MAX - (size_t)k, " [%s at %s:%d]", ng_status_name(code), file, line);
  ng_trace_depth = 0;
  return code;
}

/* Appends "<- file:line" for the first few levels; a message that was never
 * set (a status from a path that forgot NG_ERROR) still gets a cause line. */
ng_status ng_error_trace(ng_status code, const char *file, int line)
{
  size_t k = strlen(ng_msg);
  if (k == 0) {
    snprintf(ng_msg, NG_MSG_MAX, "%s", ng_status_name(code));
    k = strlen(ng_msg);
  }
  if (ng_trace_depth < 6 && k + 64 < NG_MSG_MAX)
    snprintf(ng_msg + k, NG_MSG_MAX - k, " <- %s:%d", file, line);
  ng_trace_depth++;
  return code;
}
