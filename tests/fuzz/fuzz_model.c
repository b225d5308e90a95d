/* The target's own reading of what registration and session_create accept,
 * written from abi/stepgraph.h (plus the refusals the plugin documents in
 * its messages: element alignment, empty cast ranges, ends past the address
 * space). Sizes and ends are computed in 128 bits, independently of the
 * plugin's overflow checks. */
#include "fuzz.h"

typedef unsigned __int128 u128;

#define ADDRESS_SPACE ((u128)UINTPTR_MAX + 1)

/* ABI 1.1's communicator: the NCCL test double's (fz_nccl_table, whose
 * answers are `fake`'s). Checked as session_create documents: every field
 * of a table of 1.1's size, NCCL 2.9.0 or newer, its queries succeeding,
 * a rank of the communicator, the session's device. */
static bool nccl_valid(const sg_session_config *c) {
  if (c->nccl_comm == NULL) {
    return true;
  }
  const sg_nccl_functions *t = c->nccl;
  if (t->struct_size < SG_V1_1_SIZE_sg_nccl_functions) {
    return false;
  }
  const void *const fns[] = {
      (const void *)t->all_reduce,     (const void *)t->comm_get_async_error,
      (const void *)t->comm_abort,     (const void *)t->get_version,
      (const void *)t->comm_count,     (const void *)t->comm_user_rank,
      (const void *)t->comm_cu_device, (const void *)t->get_error_string};
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    if (fns[i] == NULL) {
      return false;
    }
  }
  return fake.version >= 20900 && fake.query_result == FAKE_SUCCESS &&
         fake.nranks >= 1 && fake.rank >= 0 && fake.rank < fake.nranks &&
         fake.device == c->device;
}

/* nccl_on_timeout as the plugin reads it: 0 unless struct_size covers it. */
static uint32_t timeout_action(const sg_session_config *c) {
  return c->struct_size >= SG_V1_1_SIZE_sg_session_config ? c->nccl_on_timeout
                                                          : 0;
}

bool fz_config_valid(const sg_session_config *c) {
  return c->struct_size >= SG_V1_0_SIZE_sg_session_config && c->device >= 0 &&
         (c->flags & ~(uint32_t)(SG_SESSION_VALIDATION_ONLY |
                                 SG_SESSION_CHECK_TRANSPOSES)) == 0 &&
         c->capture_mode <= SG_CAPTURE_RELAXED && c->log_level >= SG_LOG_OFF &&
         c->reserved0 == 0 && timeout_action(c) <= SG_NCCL_TIMEOUT_ABORT &&
         nccl_valid(c) &&
         c->param_capacity <= FZ_MAX_PARAM_CAPACITY &&
         c->static_capacity <= FZ_MAX_STATIC_CAPACITY;
}

/* The bytes of a strided matrix, or 0 when they do not fit 64 bits. */
static u128 matrix_bytes(uint64_t rows, uint64_t cols, uint64_t ld,
                         uint64_t elem) {
  const u128 elems = (u128)(rows - 1) * ld + cols;
  return elems > UINT64_MAX ? 0 : elems * elem;
}

/* A range the host may register: present, aligned, ending inside the
 * address space (an end of exactly 2^64 does not fit a uintptr_t). */
static bool claim(const void *ptr, u128 bytes, uint64_t align, fz_range *r,
                  size_t *n) {
  const uintptr_t p = (uintptr_t)ptr;
  if (p == 0 || bytes == 0 || p % align != 0 ||
      (u128)p + bytes >= ADDRESS_SPACE) {
    return false;
  }
  r[(*n)++] = (fz_range){p, (u128)p + bytes};
  return true;
}

static bool enums_valid(const sg_fp8_param_desc *d) {
  return d->format <= SG_FP8_E5M2 && d->master_dtype <= SG_DTYPE_BF16 &&
         d->group != SG_ALL_GROUPS && d->reserved0 == 0;
}

/* The cast half: all of master, scale, scale_inv, amax and a range inside
 * the parameter with a master dtype; none of them without one. */
static bool cast_valid(const sg_fp8_param_desc *d, fz_range *r, size_t *n) {
  if (d->master_dtype == SG_DTYPE_NONE) {
    return d->master == NULL && d->scale == NULL && d->scale_inv == NULL &&
           d->amax == NULL && d->range_begin == 0 && d->range_end == 0;
  }
  const uint64_t elem = d->master_dtype == SG_DTYPE_FP32 ? 4 : 2;
  const u128 elems = (u128)d->rows * d->cols;
  const bool range_ok = d->range_end == 0
                            ? d->range_begin == 0
                            : d->range_begin < d->range_end &&
                                  d->range_end <= elems;
  return range_ok && d->ld_master >= d->cols &&
         claim(d->master, matrix_bytes(d->rows, d->cols, d->ld_master, elem),
               elem, r, n) &&
         claim(d->scale, sizeof(float), sizeof(float), r, n) &&
         claim(d->scale_inv, sizeof(float), sizeof(float), r, n) &&
         claim(d->amax, sizeof(float), sizeof(float), r, n);
}

bool fz_fp8_valid(const sg_fp8_param_desc *d, fz_range *r, size_t *n,
                  fz_param *param) {
  *n = 0;
  if (!enums_valid(d) || d->rows == 0 || d->cols == 0 ||
      (u128)d->rows * d->cols > UINT64_MAX || d->ld_data < d->cols ||
      d->ld_transpose < d->rows) {
    return false;
  }
  const bool valid =
      claim(d->data, matrix_bytes(d->rows, d->cols, d->ld_data, 1), 1, r, n) &&
      claim(d->transpose, matrix_bytes(d->cols, d->rows, d->ld_transpose, 1),
            1, r, n) &&
      cast_valid(d, r, n) && !fz_ranges_overlap(r, *n);
  *param = (fz_param){d->group, d->master_dtype != SG_DTYPE_NONE};
  return valid;
}

bool fz_static_valid(const sg_static_buffer_desc *d, fz_range *range) {
  size_t n = 0;
  return claim(d->data, d->bytes, 1, range, &n);
}

bool fz_ranges_overlap(const fz_range *r, size_t n) {
  for (size_t i = 0; i < n; i++) {
    for (size_t j = i + 1; j < n; j++) {
      if (r[i].begin < r[j].end && r[j].begin < r[i].end) {
        return true;
      }
    }
  }
  return false;
}
