/* Runs a check over a range of 32-bit patterns on all CPU cores: the
 * exhaustive conversion tests split 2^32 inputs this way. */
#ifndef SG_EXHAUSTIVE_H
#define SG_EXHAUSTIVE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Checks patterns [begin, end); returns how many failed and, when any did,
 * the first in *first_bad. */
typedef uint64_t (*sg_span_fn)(void *ctx, uint64_t begin, uint64_t end, uint64_t *first_bad);

typedef struct sg_span_result {
  uint64_t failures;
  uint64_t first_bad; /* UINT64_MAX when none failed */
} sg_span_result;

sg_span_result sg_parallel_spans(uint64_t begin, uint64_t end, sg_span_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* SG_EXHAUSTIVE_H */
