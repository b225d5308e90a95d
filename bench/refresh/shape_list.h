/* bench_refresh --shapes: a list of tensor shapes, "[N*]RxC[,[N*]RxC...]"
 * (N tensors of R x C each; N is 1 when left out), checked and parsed on the
 * host (shape_list.c, tested by tests/bench/test_shape_list.c). */
#ifndef SG_BENCH_SHAPE_LIST_H
#define SG_BENCH_SHAPE_LIST_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_shape {
  uint64_t rows, cols;
} bench_shape;

/* `repeat` tensors of one shape. */
typedef struct bench_shape_run {
  uint32_t repeat;
  bench_shape shape;
} bench_shape_run;

/* Limits of a list, far past any model's layer and below what the counts
 * and byte sizes of a set could overflow. */
#define BENCH_MAX_TENSORS (UINT64_C(1) << 20)
#define BENCH_MAX_ELEMENTS (UINT64_C(1) << 40)

/* Parses `spec` into *runs (malloc'd, one per comma-separated entry; the
 * caller frees it) and *count. Every number must be a plain decimal of at
 * least 1 (no sign, no space); the tensors must number at most
 * BENCH_MAX_TENSORS and hold at most BENCH_MAX_ELEMENTS elements. Returns
 * false, with *runs NULL and *count 0, for anything else. */
bool bench_parse_shapes(const char *spec, bench_shape_run **runs, uint32_t *count);

#ifdef __cplusplus
}
#endif

#endif /* SG_BENCH_SHAPE_LIST_H */
