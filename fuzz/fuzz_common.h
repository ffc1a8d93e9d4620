/* fuzz/fuzz_common.h: what the libFuzzer harnesses share. The Matrix Market
 * readers take a path, so each input is written to one scratch file per
 * process (created once, rewritten per input). */
#ifndef NG_FUZZ_COMMON_H
#define NG_FUZZ_COMMON_H
#include "../solver/solver.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Path of a file holding exactly data[0..size). */
static const char *ng_fuzz_file(const uint8_t *data, size_t size)
{
  static char path[256];
  static int fd = -1;
  if (fd < 0) {
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof(path), "%s/ng-fuzz-XXXXXX", dir && *dir ? dir : "/tmp");
    fd = mkstemp(path);
    if (fd < 0) { perror("mkstemp"); abort(); }
  }
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size) { perror("write"); abort(); }
  return path;
}

/* A failed call must leave a message (and a parse error must name the file). */
static void ng_fuzz_check_failure(ng_status st, const char *path)
{
  const char *msg = ng_last_error();
  if (!msg[0]) { fprintf(stderr, "%s without a message\n", ng_status_name(st)); abort(); }
  if (st == NG_ERR_PARSE && path && !strstr(msg, path)) {
    fprintf(stderr, "parse error that does not name the file: %s\n", msg);
    abort();
  }
  if (st == NG_ERR_INTERNAL) { fprintf(stderr, "internal error: %s\n", msg); abort(); }
}
#endif
