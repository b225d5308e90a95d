/* Decoding the fuzzer's bytes into the values the ops use. tests/fuzz/seeds.py
 * writes regression inputs in this encoding: keep the two in step. */
#include <string.h>

#include "fuzz.h"

uint8_t fz_u8(fz_in *in) {
  if (in->n == 0) {
    return 0;
  }
  in->n--;
  return *in->p++;
}

uint32_t fz_u32(fz_in *in) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) {
    v |= (uint32_t)fz_u8(in) << (8 * i);
  }
  return v;
}

uint64_t fz_u64(fz_in *in) {
  uint64_t lo = fz_u32(in);
  return lo | (uint64_t)fz_u32(in) << 32;
}

/* Index i of this table is byte i; bytes past it up to 0xEF are the small
 * numbers byte - NUMBERS; 0xF0 and above read 8 raw bytes. */
static const uint64_t numbers[] = {
    0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 63, 64, 255, 256, 4095, 4096,
    65535, 65536, 1u << 20, (1u << 20) + 1, INT32_MAX, (uint64_t)INT32_MAX + 1,
    UINT32_MAX - 1, UINT32_MAX, (uint64_t)UINT32_MAX + 1, 1ull << 40,
    INT64_MAX, 1ull << 63, UINT64_MAX - 3, UINT64_MAX - 1, UINT64_MAX};
#define NUMBERS (sizeof numbers / sizeof numbers[0])

uint64_t fz_number(fz_in *in) {
  uint8_t b = fz_u8(in);
  if (b < NUMBERS) {
    return numbers[b];
  }
  return b < 0xF0 ? (uint64_t)(b - NUMBERS) : fz_u64(in);
}

size_t fz_struct_size(fz_in *in, size_t size) {
  switch (fz_u8(in) % 12) {
    case 6: return size + 8;                    /* a newer host's */
    case 7: return size + 1 + fz_u8(in) % 64;   /* an odd newer size */
    case 8: return size - 1;                    /* one byte short */
    case 9: return fz_u8(in) % size;            /* far too small */
    case 10: return sizeof(size_t);             /* the size field alone */
    case 11: return SIZE_MAX;                   /* a host that lies */
    default: return size;
  }
}

uintptr_t fz_pointer(fz_in *in, uintptr_t base) {
  switch (fz_u8(in) % 10) {
    case 0: return 0;
    case 1: return base + 4u * fz_u8(in);
    case 2: return base + fz_u32(in);
    case 3: return UINTPTR_MAX - fz_u8(in);               /* the very top */
    case 4: return UINTPTR_MAX - 3 - 4u * (fz_u8(in) % 4); /* top floats */
    case 5: return (uintptr_t)fz_u64(in);
    case 6: return 0x10000000u + ((uintptr_t)(fz_u8(in) % 16) << 24);
    case 7: return fz_u8(in);
    default: return base;
  }
}

sg_stream fz_stream(fz_in *in) {
  switch (fz_u8(in) % 6) {
    case 0: return NULL;
    case 1: return (sg_stream)(uintptr_t)0x1; /* cudaStreamLegacy */
    case 2: return (sg_stream)(uintptr_t)0x2; /* cudaStreamPerThread */
    case 3: return (sg_stream)(uintptr_t)fz_u64(in);
    default: return (sg_stream)(uintptr_t)0x5000;
  }
}
