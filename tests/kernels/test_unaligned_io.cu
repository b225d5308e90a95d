/* refresh_unaligned.cuh's gathers and scatters, on the CPU (the functions
 * are host and device code alike): for every misalignment, length and tight
 * or loose extent, a gather returns the wanted bytes and reads nothing
 * outside the extent, and a scatter writes exactly its span's bytes, with
 * the right values; a row's realigned pieces (8 lanes) cover it once, the
 * shift of two vectors picks the right bytes, and a tile whose strips may
 * be read as the aligned vectors around them has all of those vectors
 * inside its master. No GPU. */
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "refresh_unaligned.cuh"
#include "sg_run_suite.h"

enum { kBuf = 96, kAt = 32 }; /* the span starts at kAt + offset */

static uint8_t g_buf[kBuf];

/* Reads from g_buf, failing on any byte outside [lo, hi); writes to g_buf,
 * counting the bytes written. */
struct checked_io {
  const uint8_t *lo, *hi;
  uint32_t *written; /* per byte of g_buf */
  void reads(const uint8_t *p, uint32_t bytes) const {
    ck_assert_msg(p >= lo && p + bytes <= hi, "read of %u bytes at %td outside [%td, %td)", bytes,
                  p - g_buf, lo - g_buf, hi - g_buf);
  }
  uint32_t word(const uint8_t *p) const {
    reads(p, 4);
    ck_assert_int_eq(reinterpret_cast<uintptr_t>(p) % 4, 0);
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  uint8_t byte(const uint8_t *p) const {
    reads(p, 1);
    return *p;
  }
  void put_word(uint8_t *p, uint32_t v) const {
    ck_assert_int_eq(reinterpret_cast<uintptr_t>(p) % 4, 0);
    memcpy(p, &v, 4);
    for (int b = 0; b < 4; b++) {
      written[p - g_buf + b]++;
    }
  }
  void put_byte(uint8_t *p, uint8_t v) const {
    *p = v;
    written[p - g_buf]++;
  }
};

static uint8_t chunk_byte(const uint4 &v, uint32_t i) {
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
  return static_cast<uint8_t>(w[i / 4] >> (8 * (i % 4)));
}

/* _i: offset (0..15) * 17 + n (0..16); loose extents reach 8 bytes out. */
START_TEST(gather_reads_only_the_extent) {
  const uint32_t offset = _i / 17, n = _i % 17;
  alignas(16) static uint8_t pattern[kBuf];
  for (uint32_t b = 0; b < kBuf; b++) {
    pattern[b] = static_cast<uint8_t>(b * 37u + 11u);
  }
  memcpy(g_buf, pattern, kBuf);
  const uint8_t *p = g_buf + kAt + offset;
  for (int loose = 0; loose < 2; loose++) {
    const checked_io io{p - (loose ? 8 : 0), p + n + (loose ? 8 : 0), nullptr};
    const uint4 v = sg_k_gather16(p, n, io.lo, io.hi, io);
    for (uint32_t i = 0; i < n; i++) {
      ck_assert_msg(chunk_byte(v, i) == p[i], "offset %u n %u loose %d: byte %u is 0x%02x, not 0x%02x",
                    offset, n, loose, i, chunk_byte(v, i), p[i]);
    }
  }
}
END_TEST

START_TEST(scatter_writes_exactly_its_span) {
  const uint32_t offset = _i / 17, n = _i % 17;
  uint32_t written[kBuf];
  memset(written, 0, sizeof written);
  memset(g_buf, 0xEE, kBuf);
  const uint4 v = make_uint4(0x03020100u, 0x07060504u, 0x0B0A0908u, 0x0F0E0D0Cu);
  uint8_t *p = g_buf + kAt + offset;
  const checked_io io{g_buf, g_buf + kBuf, written};
  sg_k_scatter16(p, v, n, io);
  for (uint32_t b = 0; b < kBuf; b++) {
    const bool in = b >= kAt + offset && b < kAt + offset + n;
    ck_assert_msg(written[b] == (in ? 1u : 0u), "offset %u n %u: byte %u written %u times",
                  offset, n, b, written[b]);
    const uint8_t want = in ? static_cast<uint8_t>(b - kAt - offset) : 0xEE;
    ck_assert_msg(g_buf[b] == want, "offset %u n %u: byte %u is 0x%02x, not 0x%02x", offset, n,
                  b, g_buf[b], want);
  }
}
END_TEST

START_TEST(funnel_picks_bytes) {
  ck_assert_uint_eq(sg_k_funnel(0x33221100u, 0x77665544u, 0), 0x33221100u);
  ck_assert_uint_eq(sg_k_funnel(0x33221100u, 0x77665544u, 1), 0x44332211u);
  ck_assert_uint_eq(sg_k_funnel(0x33221100u, 0x77665544u, 3), 0x66554433u);
}
END_TEST

/* _i: a Wt row's address mod 16 (0..15) * 400 + its length (1..400):
 * the tiles along it (one every 128 bytes, each given its own bytes and
 * those of the rows below it, sg_k_below_of, the first told so), 8 lanes
 * each, cover the row exactly once; every 16-byte piece is aligned, every
 * shorter one sits at an end of the row; no piece reaches past its tile's
 * bytes, and no lane has more than two pieces (lane 0) or one (the rest). */
START_TEST(row_pieces_cover_the_row_once) {
  const uint32_t offset = _i / 400, length = _i % 400 + 1;
  const uintptr_t d = 4096u + offset;
  uint32_t covered[400] = {0};
  for (uint32_t r0 = 0; r0 < length; r0 += SG_K_TILE) {
    const uint32_t left = length - r0;
    const uint32_t rows = left < SG_K_TILE ? left : SG_K_TILE;
    const uint32_t n = rows + sg_k_below_of(length, r0, rows);
    for (uint32_t q = 0; q < 8; q++) {
      uint32_t count = 0;
      sg_k_row_pieces(d + r0, n, r0 == 0, q, [&](uint32_t at, uint32_t len) {
        count++;
        const uint32_t b0 = r0 + at;
        ck_assert_msg(len >= 1 && len <= 16 && at + len <= n,
                      "offset %u length %u tile %u lane %u: piece [%u, +%u)", offset, length,
                      r0, q, at, len);
        if (len == 16) {
          ck_assert_msg((d + b0) % 16 == 0,
                        "offset %u length %u tile %u lane %u: unaligned vector at %u", offset,
                        length, r0, q, at);
        } else {
          ck_assert_msg(b0 == 0 || b0 + len == length,
                        "offset %u length %u tile %u lane %u: short piece [%u, +%u) inside the "
                        "row",
                        offset, length, r0, q, at, len);
        }
        for (uint32_t b = b0; b < b0 + len; b++) {
          covered[b]++;
        }
      });
      ck_assert_uint_le(count, (q == 0 ? 2u : 1u));
    }
  }
  for (uint32_t b = 0; b < length; b++) {
    ck_assert_msg(covered[b] == 1u, "offset %u length %u: byte %u covered %u times", offset,
                  length, b, covered[b]);
  }
}
END_TEST

/* _i: the shift (0..15). */
START_TEST(shift16_takes_sixteen_bytes_from_two_vectors) {
  const uint32_t shift = _i;
  const uint4 lo = make_uint4(0x03020100u, 0x07060504u, 0x0B0A0908u, 0x0F0E0D0Cu);
  const uint4 hi = make_uint4(0x13121110u, 0x17161514u, 0x1B1A1918u, 0x1F1E1D1Cu);
  const uint4 v = sg_k_shift16(lo, hi, shift);
  for (uint32_t i = 0; i < 16; i++) {
    ck_assert_msg(chunk_byte(v, i) == shift + i, "shift %u: byte %u is 0x%02x", shift, i,
                  chunk_byte(v, i));
  }
}
END_TEST

/* The aligned vectors a shifted strip load reads (those sg_k_last_vector
 * names) hold the strip's last byte and all lie in [lo, hi). */
static void check_strip_vectors(uintptr_t p, uint32_t bytes, uintptr_t lo, uintptr_t hi,
                                const char *what) {
  const uint32_t shift = (uint32_t)(p & 15u);
  const uintptr_t base = p - shift;
  const uint32_t last = sg_k_last_vector(shift, bytes);
  ck_assert_msg(base + 16u * last <= p + bytes - 1 && p + bytes - 1 < base + 16u * last + 16u,
                "%s: vector %u misses the strip's last byte", what, last);
  for (uint32_t q = 0; q <= bytes / 16u; q++) {
    const uintptr_t v = base + 16u * (q < bytes / 16u ? q : last);
    ck_assert_msg(v >= lo && v + 16 <= hi, "%s: vector at %+td outside [0, %td)", what,
                  (ptrdiff_t)(v - lo), (ptrdiff_t)(hi - lo));
  }
}

/* _i: lo's offset from 16-byte alignment (0..15). For every span [p, p +
 * bytes) around [lo, hi): accepted exactly when every aligned vector
 * holding one of its bytes lies inside. */
START_TEST(vectors_inside_exactly) {
  const uintptr_t lo = (uintptr_t{1} << 20) + (uintptr_t)_i;
  for (uintptr_t len = 1; len < 80; len += 7) {
    const uintptr_t hi = lo + len;
    for (uintptr_t p = lo - 20; p < hi + 20; p++) {
      for (uint64_t bytes = 1; bytes <= 48; bytes++) {
        bool expect = true;
        for (uintptr_t v = p & ~uintptr_t{15}; v < p + bytes; v += 16) {
          expect = expect && v >= lo && v + 16 <= hi;
        }
        ck_assert_msg(sg_k_vectors_inside(reinterpret_cast<const char *>(p), bytes,
                                          reinterpret_cast<const char *>(lo),
                                          reinterpret_cast<const char *>(hi)) == expect,
                      "[%+td, +%llu) in [0, %td)", (ptrdiff_t)(p - lo), (unsigned long long)bytes,
                      (ptrdiff_t)len);
      }
    }
  }
}
END_TEST

/* _i: the master's offset from 16-byte alignment in elements (0..7) * 2 +
 * (0: BF16, 1: FP32). A dense vector's spans: an unaligned master's first
 * span is refused (its first strip's vector starts before the master), the
 * middle ones accepted, the last one accepted exactly when the master ends
 * on a 16-byte boundary; an accepted span's whole strips all read inside. */
START_TEST(span_vectors_inside_the_master_only) {
  static const uint64_t counts[] = {100, 16384, 16385, 32768, 40000};
  const uint64_t elem = _i % 2 ? 4 : 2;
  const uintptr_t lo = (uintptr_t{1} << 20) + (_i / 2) * elem % 16;
  for (uint64_t count : counts) {
    const uintptr_t hi = lo + count * elem;
    const uint64_t spans = (count + SG_K_LINEAR_ITEM - 1) / SG_K_LINEAR_ITEM;
    for (uint64_t local = 0; local < spans; local++) {
      const bool inside = sg_k_span_vectors_inside(reinterpret_cast<const char *>(lo), count,
                                                   local, elem);
      char what[128];
      snprintf(what, sizeof what, "%llu elements of %llu bytes at +%u, span %llu",
               (unsigned long long)count, (unsigned long long)elem, (unsigned)(lo % 16),
               (unsigned long long)local);
      const bool first_bad = local == 0 && lo % 16 != 0;
      const bool last_bad = local + 1 == spans && hi % 16 != 0;
      ck_assert_msg(inside == (!first_bad && !last_bad), "%s: %s", what,
                    inside ? "accepted" : "refused");
      const uint64_t first = local * SG_K_LINEAR_ITEM;
      const uint64_t n = count - first < SG_K_LINEAR_ITEM ? count - first : SG_K_LINEAR_ITEM;
      for (uint64_t e = 0; inside && e + 16 <= n; e += 16) {
        check_strip_vectors(lo + (first + e) * elem, (uint32_t)(16 * elem), lo, hi, what);
      }
    }
  }
}
END_TEST

/* _i: the master's offset from 16-byte alignment in elements (0..7) * 2 +
 * (0: BF16, 1: FP32), over shapes with unaligned rows and padding. For
 * every 128 x 128 tile: accepted, every whole strip's vectors lie inside
 * the master; a tile 16 bytes or more from both ends of the master is
 * accepted. */
START_TEST(tile_vectors_inside_the_master_only) {
  static const uint64_t shapes[][3] = {{1, 40, 0},   {3, 17, 0},   {130, 129, 0}, {257, 383, 0},
                                       {300, 1000, 3}, {129, 4099, 0}, {5, 300, 1},
                                       {200, 16, 1}};
  const uint64_t elem = _i % 2 ? 4 : 2;
  const uintptr_t lo = (uintptr_t{1} << 20) + (_i / 2) * elem % 16;
  for (const auto &shape : shapes) {
    const uint64_t rows = shape[0], cols = shape[1], ld = cols + shape[2];
    const uintptr_t hi = lo + ((rows - 1) * ld + cols) * elem;
    for (uint64_t r0 = 0; r0 < rows; r0 += 128) {
      for (uint64_t c0 = 0; c0 < cols; c0 += 128) {
        const uint32_t tr = (uint32_t)(rows - r0 < 128 ? rows - r0 : 128);
        const uint32_t tc = (uint32_t)(cols - c0 < 128 ? cols - c0 : 128);
        const uintptr_t at = lo + (r0 * ld + c0) * elem;
        const uintptr_t end = at + ((tr - 1) * ld + tc) * elem;
        const bool inside = sg_k_tile_vectors_inside(reinterpret_cast<const char *>(lo), rows,
                                                     cols, reinterpret_cast<const char *>(at),
                                                     tr, tc, ld, elem);
        char what[160];
        snprintf(what, sizeof what, "%llux%llu ld %llu elem %llu tile (%llu, %llu)",
                 (unsigned long long)rows, (unsigned long long)cols, (unsigned long long)ld,
                 (unsigned long long)elem, (unsigned long long)r0, (unsigned long long)c0);
        if (at - lo >= 16 && hi - end >= 16) {
          ck_assert_msg(inside, "%s: refused, 16 bytes or more inside the master", what);
        }
        for (uint32_t r = 0; inside && r < tr; r++) {
          for (uint32_t c = 0; c + 16 <= tc; c += 16) {
            check_strip_vectors(at + (r * ld + c) * elem, (uint32_t)(16 * elem), lo, hi, what);
          }
        }
      }
    }
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("unaligned_io");
  TCase *tc = tcase_create("io");
  tcase_add_loop_test(tc, gather_reads_only_the_extent, 0, 16 * 17);
  tcase_add_loop_test(tc, scatter_writes_exactly_its_span, 0, 16 * 17);
  tcase_add_test(tc, funnel_picks_bytes);
  tcase_add_loop_test(tc, row_pieces_cover_the_row_once, 0, 16 * 400);
  tcase_add_loop_test(tc, shift16_takes_sixteen_bytes_from_two_vectors, 0, 16);
  tcase_add_loop_test(tc, tile_vectors_inside_the_master_only, 0, 16);
  tcase_add_loop_test(tc, vectors_inside_exactly, 0, 16);
  tcase_add_loop_test(tc, span_vectors_inside_the_master_only, 0, 16);
  suite_add_tcase(s, tc);
  return sg_run_suite(s, CK_FORK);
}
