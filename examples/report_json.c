/* examples/report_json.c: the solve report as one JSON object (nagare-solve
 * -json FILE), for scripts: the same numbers as the text report, plus the
 * residual norm history, each rank's row of the MPI report (per_rank: rows,
 * halo, neighbours, exchange seconds), rank 0's memory (memory_space,
 * memory_bytes, bytes_per_row) and the AMG hierarchy (amg_levels).
 * Strings are escaped per RFC 8259; a number that is not finite (a NaN
 * residual after a breakdown) is written as null. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "report.h"
#include <math.h>
#include <string.h>

static void put_string(FILE *f, const char *s)
{
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p == '\n')
      fputs("\\n", f);
    else if (*p == '\t')
      fputs("\\t", f);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

static void put_number(FILE *f, double v)
{
  if (isfinite(v))
    fprintf(f, "%.10g", v);
  else
    fputs("null", f);
}

static void key(FILE *f, const char *name, int first)
{
  fprintf(f, "%s\n  \"%s\": ", first ? "{" : ",", name);
}

int ng_example_write_json(FILE *f, const ng_example_result *r)
{
  int major = 0, minor = 0, patch = 0;
  char version[64];
  ng_version(&major, &minor, &patch);
  snprintf(version, sizeof(version), "%d.%d.%d", major, minor, patch);
  key(f, "program", 1); put_string(f, "nagare-solve");
  key(f, "version", 0); put_string(f, version);
  key(f, "problem", 0); put_string(f, r->problem);
  key(f, "n", 0); fprintf(f, "%lld", (long long)r->n);
  key(f, "nnz", 0); fprintf(f, "%lld", (long long)r->nnz);
  key(f, "ranks", 0); fprintf(f, "%d", r->ranks);
  key(f, "device", 0); put_string(f, r->device);
  key(f, "solver", 0); put_string(f, r->solver);
  key(f, "precond", 0); put_string(f, r->precond);
  key(f, "format", 0); put_string(f, r->format);
  key(f, "iterations", 0); fprintf(f, "%d", r->iterations);
  key(f, "converged", 0); fputs(r->status == NG_SUCCESS ? "true" : "false", f);
  key(f, "status", 0); put_string(f, ng_status_name(r->status));
  key(f, "message", 0); put_string(f, r->status == NG_SUCCESS ? "" : r->message);
  key(f, "relative_residual", 0); put_number(f, r->relative_residual);
  key(f, "relative_residual_recomputed", 0); put_number(f, r->relative_residual_recomputed);
  key(f, "null_space_vectors", 0); fprintf(f, "%d", r->null_space_vectors);
  key(f, "setup_s", 0); put_number(f, r->setup_s);
  key(f, "solve_s", 0); put_number(f, r->solve_s);
  key(f, "residual_history", 0);
  fputc('[', f);
  for (int k = 0; k < r->history_length; k++) {
    if (k) fputs(k % 8 ? ", " : ",\n    ", f);
    put_number(f, r->history[k]);
  }
  fputc(']', f);
  if (r->rank_rows) {
    key(f, "per_rank", 0);
    fputc('[', f);
    for (int k = 0; k < r->ranks; k++) {
      const ng_example_rank_row *w = &r->rank_rows[k];
      fprintf(f, "%s\n    {\"rank\": %d, \"rows\": %d, \"nnz\": %lld, \"halo\": %d, \"neighbours\": %d, \"comm_s\": ",
              k ? "," : "", w->rank, (int)w->rows, (long long)w->nnz, (int)w->halo, w->neighbors);
      put_number(f, w->comm_seconds);
      fputs(", \"amg_comm_s\": ", f);
      put_number(f, w->amg_seconds);
      fputs(", \"transport\": ", f);
      put_string(f, w->transport);
      fputs(", \"binding\": ", f);
      put_string(f, w->binding);
      fputc('}', f);
    }
    fputs("\n  ]", f);
  }
  if (r->memory_space) {
    int64_t rows = r->memory_rows > 0 ? r->memory_rows : 1;
    key(f, "memory_space", 0); put_string(f, r->memory_space);
    key(f, "memory_bytes", 0);
    fprintf(f, "{\"matrix\": %lld, \"hierarchy\": %lld, \"setup_peak\": %lld, \"krylov\": %lld}",
            (long long)r->memory[0], (long long)r->memory[1], (long long)r->memory[2], (long long)r->memory[3]);
    key(f, "bytes_per_row", 0);
    put_number(f, (double)(r->memory[0] + r->memory[1] + r->memory[3]) / (double)rows);
  }
  if (r->amg_levels > 0) {
    key(f, "amg_levels", 0);
    fputc('[', f);
    for (int l = 0; l < r->amg_levels; l++)
      fprintf(f, "%s\n    {\"level\": %d, \"rows\": %lld, \"nnz\": %lld}", l ? "," : "", l,
              (long long)r->level_rows[l], (long long)r->level_nnz[l]);
    fputs("\n  ]", f);
  }
  fputs("\n}\n", f);
  fflush(f);
  return ferror(f) ? -1 : 0;
}
