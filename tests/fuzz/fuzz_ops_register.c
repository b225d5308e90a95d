/* register_fp8_params and register_static_buffers with arrays of random
 * descriptors at random strides and counts. The model decides, from the
 * header alone, whether the plugin must accept the call; accepted
 * descriptors join the model, whose ranges later calls must not overlap. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define MAX_ELEMS 8
#define FP8_SLOT(k) (0x10000000u + ((uintptr_t)(k) << 24)) /* 16 MiB each */
#define STATIC_SLOT(k) (0x80000000u + ((uintptr_t)(k) << 20))

static const uint64_t shapes[] = {1,  2,  3,  4,   5,   7,   8,   13,  16,  17,
                                  31, 32, 64, 100, 127, 128, 255, 256, 512,
                                  1024};

/* A valid descriptor in its slot: W, Wt, the FP32 master and the scalars
 * each in their own part of the slot. */
static sg_fp8_param_desc fp8_template(uintptr_t base, uint64_t rows,
                                      uint64_t cols) {
  sg_fp8_param_desc d;
  memset(&d, 0, sizeof d);
  d.format = SG_FP8_E4M3;
  d.master_dtype = SG_DTYPE_FP32;
  d.rows = rows;
  d.cols = cols;
  d.data = (void *)base;
  d.ld_data = cols;
  d.transpose = (void *)(base + 0x200000);
  d.ld_transpose = rows;
  d.master = (const void *)(base + 0x400000);
  d.ld_master = cols;
  d.scale = (const float *)(base + 0xF00000);
  d.scale_inv = (float *)(base + 0xF00010);
  d.amax = (float *)(base + 0xF00020);
  return d;
}

static void owned_range(fz_in *in, sg_fp8_param_desc *d) {
  uint64_t n;
  if (__builtin_mul_overflow(d->rows, d->cols, &n) || n == 0) {
    return;
  }
  d->range_begin = fz_number(in) % n;
  d->range_end = d->range_begin + 1 + fz_number(in) % (n - d->range_begin);
}

static void strip_master(sg_fp8_param_desc *d) {
  d->master_dtype = SG_DTYPE_NONE;
  d->master = NULL;
  d->scale = NULL;
  d->scale_inv = NULL;
  d->amax = NULL;
  d->range_begin = d->range_end = 0;
}

static void *ptr_near(fz_in *in, const void *p) {
  return (void *)fz_pointer(in, (uintptr_t)p);
}

static void mutate_fp8(fz_in *in, sg_fp8_param_desc *d) {
  switch (fz_u8(in) % 20) {
    case 0: d->format = (uint32_t)fz_number(in); break;
    case 1: d->master_dtype = (uint32_t)fz_number(in); break;
    case 2: d->rows = fz_number(in); break;
    case 3: d->cols = fz_number(in); break;
    case 4: d->data = ptr_near(in, d->data); break;
    case 5: d->ld_data = fz_number(in); break;
    case 6: d->transpose = ptr_near(in, d->transpose); break;
    case 7: d->ld_transpose = fz_number(in); break;
    case 8: d->master = ptr_near(in, d->master); break;
    case 9: d->ld_master = fz_number(in); break;
    case 10: d->scale = ptr_near(in, d->scale); break;
    case 11: d->scale_inv = ptr_near(in, d->scale_inv); break;
    case 12: d->amax = ptr_near(in, d->amax); break;
    case 13: d->range_begin = fz_number(in); break;
    case 14: d->range_end = fz_number(in); break;
    case 15: d->group = (uint32_t)fz_number(in); break;
    case 16: d->reserved0 = (uint32_t)fz_number(in); break;
    case 17: strip_master(d); break;
    case 18: d->master_dtype = SG_DTYPE_BF16; break;
    default: owned_range(in, d); break;
  }
}

static sg_fp8_param_desc decode_fp8(fz_in *in) {
  const uintptr_t base = FP8_SLOT(fz_u8(in) % 16);
  const uint64_t rows = shapes[fz_u8(in) % 20];
  sg_fp8_param_desc d = fp8_template(base, rows, shapes[fz_u8(in) % 20]);
  d.group = fz_u8(in) % 4;
  for (int k = fz_u8(in) % 8; k > 0; k--) {
    mutate_fp8(in, &d);
  }
  return d;
}

static sg_static_buffer_desc decode_static(fz_in *in) {
  const uintptr_t base = STATIC_SLOT(fz_u8(in) % 16);
  sg_static_buffer_desc d = {0, (void *)base, 64u * (1 + fz_u8(in) % 16)};
  for (int k = fz_u8(in) % 3; k > 0; k--) {
    if (fz_u8(in) % 2 == 0) {
      d.data = ptr_near(in, d.data);
    } else {
      d.bytes = fz_number(in);
    }
  }
  return d;
}

/* --- The host's array ----------------------------------------------------- */

typedef struct host_array {
  uint8_t *block;   /* what the plugin is given (NULL when null_array) */
  uint32_t n;       /* elements really in the block */
  uint32_t count;   /* what the call says */
  size_t stride;    /* params[0].struct_size */
  bool sizes_bad;   /* a struct_size the plugin must refuse */
  bool null_first;  /* first_index_out NULL */
} host_array;

/* How the call presents the elements: mostly as they are, sometimes with a
 * count of 0, a count past the room left, a NULL array, one element whose
 * struct_size differs, no first_index_out. */
static host_array decode_shape(fz_in *in, uint32_t room, size_t elem_size) {
  host_array a = {NULL, 1u + fz_u8(in) % MAX_ELEMS, 0, 0, false, false};
  a.stride = fz_struct_size(in, elem_size);
  a.count = a.n;
  switch (fz_u8(in) % 16) {
    case 1: a.count = 0; break;
    case 2: a.count = UINT32_MAX; break;
    case 3: a.count = room + 1; break; /* may exceed n: must not be read */
    case 4: a.null_first = true; break;
    default: break;
  }
  return a;
}

/* Lays the elements out at the array's stride (each element's own
 * struct_size, the filler of fz_struct_in past the known fields), the heap
 * block ending exactly at the last host byte. */
static void lay_out(fz_in *in, host_array *a, const void *elems,
                    size_t elem_size, size_t min_size) {
  if (a->stride == SIZE_MAX) {
    a->stride = elem_size + 64; /* a stride places elements: it cannot lie */
  }
  const size_t bytes = a->n * a->stride > sizeof(size_t)
                           ? a->n * a->stride : sizeof(size_t);
  a->block = fz_alloc(bytes);
  memset(a->block, 0xEE, bytes);
  const int mismatch = fz_u8(in) % 8 == 0 ? (int)(fz_u8(in) % a->n) : -1;
  for (uint32_t i = 0; i < a->n && a->stride >= sizeof(size_t); i++) {
    uint8_t *e = a->block + i * a->stride;
    memcpy(e, (const uint8_t *)elems + i * elem_size,
           a->stride < elem_size ? a->stride : elem_size);
    size_t size = (int)i == mismatch && i > 0 ? a->stride + 8 : a->stride;
    memcpy(e, &size, sizeof size);
    a->sizes_bad |= (int)i == mismatch && i > 0 && i < a->count;
  }
  memcpy(a->block, &a->stride, sizeof a->stride);
  a->sizes_bad |= a->stride < min_size;
  if (fz_u8(in) % 32 == 0) {
    free(a->block);
    a->block = NULL;
  }
}

/* The statuses the call may return before the descriptors' contents are
 * looked at (order-free: any that applies). */
static fz_set shape_errors(const host_array *a, uint32_t room) {
  fz_set e = 0;
  if (a->block == NULL || a->count == 0) {
    e |= FZ_IA;
  }
  if (a->count > room) {
    e |= FZ_ONE(SG_ERR_CAPACITY);
  }
  if (a->sizes_bad) {
    e |= FZ_SS;
  }
  return e;
}

/* Whether any of the new ranges overlaps another new one or an old one. */
static bool overlaps_any(const fz_range *old, size_t n_old, const fz_range *now,
                         size_t n_now) {
  for (size_t i = 0; i < n_now; i++) {
    for (size_t j = 0; j < n_old; j++) {
      if (now[i].begin < old[j].end && old[j].begin < now[i].end) {
        return true;
      }
    }
  }
  return fz_ranges_overlap(now, n_now);
}

/* The call itself, its status checked against what the array's shape
 * and the model's verdict on its contents allow. */
static sg_status call_register(fz_model *m, const host_array *a, bool valid,
                               bool fp8, uint32_t room, uint32_t before) {
  const char *entry = fp8 ? "register_fp8_params" : "register_static_buffers";
  const fz_set errors = shape_errors(a, room) | (valid ? 0 : FZ_IA);
  uint32_t first = UINT32_MAX;
  uint32_t *first_out = a->null_first ? NULL : &first;
  fz_call c;
  fz_begin(&c, entry, m, fz_needs(m, errors ? errors : FZ_ONE(SG_OK)));
  sg_status st =
      fp8 ? fz_api->register_fp8_params(
                fz_handle(m), (const sg_fp8_param_desc *)a->block, a->count,
                first_out)
          : fz_api->register_static_buffers(
                fz_handle(m), (const sg_static_buffer_desc *)a->block,
                a->count, first_out);
  fz_end(&c, st);
  if (st == SG_OK && first_out != NULL && first != before) {
    fz_fail("%s: *first_index_out %u, but %u were registered before", entry,
            first, before);
  }
  return st;
}

/* --- FP8 parameters ------------------------------------------------------- */

void fz_op_register_fp8(fz_in *in) {
  fz_model *m = fz_pick_session(in, NULL);
  const uint32_t before = m ? m->fp8_count : 0;
  const uint32_t room = m ? m->fp8_capacity - before : MAX_ELEMS;
  host_array a = decode_shape(in, room, sizeof(sg_fp8_param_desc));
  sg_fp8_param_desc d[MAX_ELEMS];
  fz_range ranges[MAX_ELEMS * 6];
  fz_param params[MAX_ELEMS];
  size_t n_ranges = 0;
  bool valid = true;
  for (uint32_t i = 0; i < a.n; i++) {
    d[i] = decode_fp8(in);
    d[i].struct_size = a.stride;
    size_t k = 0;
    if (i < a.count) {
      valid &= fz_fp8_valid(&d[i], ranges + n_ranges, &k, &params[i]);
    }
    n_ranges += k;
  }
  lay_out(in, &a, d, sizeof d[0], SG_V1_0_SIZE_sg_fp8_param_desc);
  valid = valid && !overlaps_any(m ? m->fp8_ranges : NULL,
                                 m ? m->fp8_ranges_n : 0, ranges, n_ranges);
  const sg_status st = call_register(m, &a, valid, true, room, before);
  if (st == SG_OK) {
    m->params =
        fz_realloc(m->params, (before + a.count) * sizeof *m->params);
    memcpy(m->params + before, params, a.count * sizeof *params);
    m->fp8_count += a.count;
    m->fp8_ranges =
        fz_realloc(m->fp8_ranges,
                   (m->fp8_ranges_n + n_ranges) * sizeof *m->fp8_ranges);
    memcpy(m->fp8_ranges + m->fp8_ranges_n, ranges, n_ranges * sizeof *ranges);
    m->fp8_ranges_n += n_ranges;
    m->ready = false;
  }
  free(a.block);
}

/* --- Static buffers ------------------------------------------------------- */

void fz_op_register_static(fz_in *in) {
  fz_model *m = fz_pick_session(in, NULL);
  const uint32_t before = m ? m->static_count : 0;
  const uint32_t room = m ? m->static_capacity - before : MAX_ELEMS;
  host_array a = decode_shape(in, room, sizeof(sg_static_buffer_desc));
  sg_static_buffer_desc d[MAX_ELEMS];
  fz_range ranges[MAX_ELEMS];
  bool valid = true;
  for (uint32_t i = 0; i < a.n; i++) {
    d[i] = decode_static(in);
    d[i].struct_size = a.stride;
    if (i < a.count) {
      valid &= fz_static_valid(&d[i], &ranges[i]);
    }
  }
  const uint32_t checked = a.count < a.n ? a.count : a.n;
  lay_out(in, &a, d, sizeof d[0], SG_V1_0_SIZE_sg_static_buffer_desc);
  valid = valid && !overlaps_any(m ? m->static_ranges : NULL, before, ranges,
                                 checked);
  const sg_status st = call_register(m, &a, valid, false, room, before);
  if (st == SG_OK) {
    m->static_ranges = fz_realloc(
        m->static_ranges, (before + a.count) * sizeof *m->static_ranges);
    memcpy(m->static_ranges + before, ranges, a.count * sizeof *ranges);
    m->static_count += a.count;
    m->ready = false;
  }
  free(a.block);
}
