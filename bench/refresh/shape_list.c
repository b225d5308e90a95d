/* bench_refresh --shapes lists (shape_list.h). */
#include "shape_list.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A decimal number at *at, 1 .. most, followed by `then` (for then == ',',
 * also the end); moves *at past both. */
static bool parse_number(const char **at, uint64_t most, char then, uint64_t *out) {
  const char *p = *at;
  if (*p < '0' || *p > '9') {
    return false; /* no sign, no space */
  }
  char *end = NULL;
  errno = 0;
  const unsigned long long v = strtoull(p, &end, 10);
  const bool followed = *end == then || (then == ',' && *end == '\0');
  if (errno != 0 || v < 1 || v > most || !followed) {
    return false;
  }
  *out = v;
  *at = *end == '\0' ? end : end + 1;
  return true;
}

/* One "[N*]RxC" at *at into *run, adding to the list's tensors and
 * elements. */
static bool parse_run(const char **at, bench_shape_run *run, uint64_t *tensors,
                      uint64_t *elements) {
  uint64_t n = 1, rows = 0, cols = 0;
  const char *star = strchr(*at, '*');
  const char *comma = strchr(*at, ',');
  if (star != NULL && (comma == NULL || star < comma) &&
      !parse_number(at, BENCH_MAX_TENSORS, '*', &n)) {
    return false;
  }
  if (!parse_number(at, BENCH_MAX_ELEMENTS, 'x', &rows) ||
      !parse_number(at, BENCH_MAX_ELEMENTS / rows, ',', &cols)) {
    return false;
  }
  /* Each term is at most 2^60 and the sums so far at most 2^40: no wrap. */
  *tensors += n;
  *elements += n * rows * cols;
  run->repeat = (uint32_t)n;
  run->shape.rows = rows;
  run->shape.cols = cols;
  return *tensors <= BENCH_MAX_TENSORS && *elements <= BENCH_MAX_ELEMENTS;
}

bool bench_parse_shapes(const char *spec, bench_shape_run **runs, uint32_t *count) {
  *runs = NULL;
  *count = 0;
  uint64_t n = 1;
  for (const char *c = spec; *c != '\0'; c++) {
    n += *c == ',';
  }
  bench_shape_run *out = n <= BENCH_MAX_TENSORS ? calloc(n, sizeof *out) : NULL;
  if (out == NULL) {
    return false;
  }
  const char *at = spec;
  uint64_t tensors = 0, elements = 0;
  uint64_t k = 0;
  while (k < n && parse_run(&at, &out[k], &tensors, &elements)) {
    k++;
  }
  if (k != n || *at != '\0') {
    free(out);
    return false;
  }
  *runs = out;
  *count = (uint32_t)n;
  return true;
}
