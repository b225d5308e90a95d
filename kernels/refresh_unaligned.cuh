/* Up to 16 bytes at any address as aligned 4-byte words: the vectorised
 * interior with predicated edges that unaligned rows and edge tiles take
 * (an FP8 row of 1000 or 4099 bytes starts 16-byte aligned every other row,
 * or never). A load reads the aligned words that cover the bytes, each
 * whole where it lies inside the matrix's extent and byte by byte (only the
 * wanted bytes) where it crosses the extent's first or last byte, and
 * funnel-shifts them into place: 5 loads instead of 16. A store writes the
 * aligned words wholly inside the span, and single bytes at its two ends.
 * Host and device code alike, so the byte juggling is tested on the CPU
 * (test_unaligned_io): memory is touched only through the Reader and
 * Writer, which the kernels give plain loads and stores. */
#ifndef SG_KERNELS_REFRESH_UNALIGNED_CUH
#define SG_KERNELS_REFRESH_UNALIGNED_CUH

#include <stdint.h>

#include <vector_types.h>

#include "refresh_table.h" /* SG_K_HOST_DEVICE */

/* The templates below run host-only Io in host code (the CPU test): no
 * host/device check on their instantiations. */
#ifdef __CUDACC__
#define SG_K_ANY_IO _Pragma("nv_exec_check_disable")
#else
#define SG_K_ANY_IO
#endif
/* Unrolled on the device (the words stay in registers); the host compiler
 * knows no such pragma. */
#ifdef __CUDA_ARCH__
#define SG_K_UNROLL _Pragma("unroll")
#else
#define SG_K_UNROLL
#endif

/* The 4 bytes at byte offset `shift` (0..3) of the 8 bytes lo, hi
 * (little-endian: lo's byte 0 first). */
SG_K_HOST_DEVICE inline uint32_t sg_k_funnel(uint32_t lo, uint32_t hi, uint32_t shift) {
  return static_cast<uint32_t>(((static_cast<uint64_t>(hi) << 32) | lo) >> (8u * shift));
}

/* Plain memory access, for the kernels. */
struct sg_k_plain_io {
  SG_K_HOST_DEVICE uint32_t word(const uint8_t *p) const {
    return *reinterpret_cast<const uint32_t *>(p);
  }
  SG_K_HOST_DEVICE uint8_t byte(const uint8_t *p) const { return *p; }
  SG_K_HOST_DEVICE void put_word(uint8_t *p, uint32_t v) const {
    *reinterpret_cast<uint32_t *>(p) = v;
  }
  SG_K_HOST_DEVICE void put_byte(uint8_t *p, uint8_t v) const { *p = v; }
};

/* Bytes [p, p + n), n <= 16, as a chunk (byte i of the result is p[i]; the
 * bytes past n are unspecified). [lo, hi) is the extent that may be read,
 * which holds [p, p + n). */
SG_K_ANY_IO
template <class Io>
SG_K_HOST_DEVICE inline uint4 sg_k_gather16(const uint8_t *p, uint32_t n, const uint8_t *lo,
                                            const uint8_t *hi, const Io &io) {
  const uint32_t m = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p) & 3u);
  const uint8_t *base = p - m;
  uint32_t w[5];
  if (base >= lo && base + 4u * ((m + n + 3u) / 4u) <= hi) { /* every word inside the extent */
SG_K_UNROLL
    for (uint32_t k = 0; k < 5; k++) {
      w[k] = 4u * k < m + n ? io.word(base + 4u * k) : 0u;
    }
    return make_uint4(sg_k_funnel(w[0], w[1], m), sg_k_funnel(w[1], w[2], m),
                      sg_k_funnel(w[2], w[3], m), sg_k_funnel(w[3], w[4], m));
  }
SG_K_UNROLL
  for (uint32_t k = 0; k < 5; k++) {
    const uint8_t *at = base + 4u * k;
    w[k] = 0;
    if (4u * k >= m + n) {
      continue; /* past the wanted bytes */
    }
    if (at >= lo && at + 4 <= hi) {
      w[k] = io.word(at);
      continue;
    }
SG_K_UNROLL
    for (uint32_t b = 0; b < 4; b++) { /* the extent's edge: wanted bytes only */
      const uint32_t i = 4u * k + b;
      if (i >= m && i < m + n) {
        w[k] |= static_cast<uint32_t>(io.byte(at + b)) << (8u * b);
      }
    }
  }
  return make_uint4(sg_k_funnel(w[0], w[1], m), sg_k_funnel(w[1], w[2], m),
                    sg_k_funnel(w[2], w[3], m), sg_k_funnel(w[3], w[4], m));
}

/* Writes bytes 0..n-1 (n <= 16) of chunk v to [p, p + n), and nothing
 * else: whole aligned words inside the span, single bytes at its ends. */
SG_K_ANY_IO
template <class Io>
SG_K_HOST_DEVICE inline void sg_k_scatter16(uint8_t *p, const uint4 &v, uint32_t n,
                                            const Io &io) {
  const uint32_t src[6] = {0u, v.x, v.y, v.z, v.w, 0u}; /* src[j + 1]: word j */
  const uint32_t m = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p) & 3u);
  uint8_t *base = p - m;
SG_K_UNROLL
  for (uint32_t k = 0; k < 5; k++) {
    /* Aligned word k holds bytes [4k - m, 4k - m + 4) of the chunk: word
     * k-1's top m bytes, then word k's first 4 - m. */
    uint8_t *at = base + 4u * k;
    const uint32_t value = m == 0 ? src[k + 1] : sg_k_funnel(src[k], src[k + 1], 4u - m);
    if (4u * k >= m && 4u * k + 4u <= m + n) {
      io.put_word(at, value);
      continue;
    }
SG_K_UNROLL
    for (uint32_t b = 0; b < 4; b++) {
      const uint32_t i = 4u * k + b;
      if (i >= m && i < m + n) {
        io.put_byte(at + b, static_cast<uint8_t>(value >> (8u * b)));
      }
    }
  }
}

/* W rows below a realigned transpose tile that its fill loads too: each
 * Wt row's last vector reaches up to 15 bytes into the next tile. */
#define SG_K_BELOW 16u

/* The W rows below a realigned tile at row r0 with `rows` rows, of a
 * matrix `height` rows tall: SG_K_BELOW, fewer at its bottom. The
 * transpose's fill and the cast-transpose's units take these alike. */
SG_K_HOST_DEVICE inline uint32_t sg_k_below_of(uint64_t height, uint64_t r0, uint32_t rows) {
  const uint64_t left = height - r0 - rows;
  return left < SG_K_BELOW ? static_cast<uint32_t>(left) : SG_K_BELOW;
}

/* How 8 lanes store one tile's share of an unaligned Wt row from an
 * aligned copy of its bytes. The row's bytes from the tile's first, [d, d +
 * n) (n <= SG_K_TILE + SG_K_BELOW: the tile's own and the first of the next
 * tile's, which the fill loads too), belong to the tile from its first
 * 16-byte aligned address on, 128 of them (head .. head + 127), and from 0
 * where the tile is the row's first (`first`); the tile before stores the
 * bytes before that address. So every piece but the row's two ends is an
 * aligned vector: lane q the one at head + 16q, cut at n, and lane 0 also
 * the head where first. (Cutting each tile's 128 bytes at their own ends
 * cost every tile two short pieces a row, words and single bytes: on [50257,
 * 768] 16 L2 sectors written for the 4 of every 128 bytes.) Calls
 * piece(at, len) for each of lane q's pieces (0 to 2; `at` is the byte
 * offset from d); a callback rather than an array, which a loop over a
 * variable count would put in local memory. */
SG_K_ANY_IO
template <class Piece>
SG_K_HOST_DEVICE inline void sg_k_row_pieces(uintptr_t d, uint32_t n, bool first, uint32_t q,
                                             const Piece &piece) {
  const uint32_t head = static_cast<uint32_t>(16u - (d & 15u)) & 15u;
  const uint32_t at = head + 16u * q;
  if (at < n) {
    piece(at, n - at < 16u ? n - at : 16u);
  }
  if (q == 0 && first && head > 0 && n > 0) {
    piece(0u, head < n ? head : n);
  }
}

/* Bytes shift .. shift + 15 (shift 0..15) of the 32 bytes lo, hi (lo's
 * byte 0 first), without indexing registers by a variable (which would put
 * them in local memory): the words are picked by compares. */
SG_K_HOST_DEVICE inline uint4 sg_k_shift16(const uint4 &lo, const uint4 &hi, uint32_t shift) {
  const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  const uint32_t q = shift >> 2;
  uint32_t s[5];
SG_K_UNROLL
  for (uint32_t i = 0; i < 5; i++) { /* word q + i, q <= 3 */
    s[i] = q == 0 ? w[i] : q == 1 ? w[i + 1] : q == 2 ? w[i + 2] : w[i + 3];
  }
  const uint32_t b = shift & 3u;
  return make_uint4(sg_k_funnel(s[0], s[1], b), sg_k_funnel(s[1], s[2], b),
                    sg_k_funnel(s[2], s[3], b), sg_k_funnel(s[3], s[4], b));
}

/* Which aligned vectors a shifted load of a strip (sg_k_load_master16_shifted,
 * refresh_io.cuh) reads, counted from the one holding its first byte, for
 * a strip of `bytes` (a multiple of 16) at `shift` (0..15) bytes past
 * alignment: vectors 0 .. bytes / 16 - 1, and this one, the vector holding
 * its last byte (the one before it, read twice, when shift is 0). */
SG_K_HOST_DEVICE inline uint32_t sg_k_last_vector(uint32_t shift, uint32_t bytes) {
  return (shift + bytes - 1u) >> 4;
}

/* Whether every 16-byte aligned vector holding a byte of [p, p + bytes)
 * (bytes > 0) lies inside [lo, hi): then those bytes may be read as the
 * vectors around them. A dense vector's spans ask it once a span
 * (sg_k_span_vectors_inside): only a span at the master's two ends may
 * have to go element by element. */
SG_K_HOST_DEVICE inline bool sg_k_vectors_inside(const char *p, uint64_t bytes, const char *lo,
                                                 const char *hi) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  return (at & ~uintptr_t{15}) >= reinterpret_cast<uintptr_t>(lo) &&
         ((at + bytes + 15u) & ~uintptr_t{15}) <= reinterpret_cast<uintptr_t>(hi);
}

/* Whether every 16-byte aligned vector holding a byte of a tile lies inside
 * its master: the tile (rows x cols elements of `elem` bytes at `origin`,
 * rows ld elements apart) of a master of m_rows x m_cols at `master`. Then
 * a strip of an unaligned row may be read as the aligned vectors around it
 * (sg_k_load_strip, refresh_io.cuh). */
SG_K_HOST_DEVICE inline bool sg_k_tile_vectors_inside(const char *master, uint64_t m_rows,
                                                uint64_t m_cols, const char *origin,
                                                uint32_t rows, uint32_t cols, uint64_t ld,
                                                uint64_t elem) {
  return sg_k_vectors_inside(origin, ((rows - 1u) * ld + cols) * elem, master,
                             master + ((m_rows - 1u) * ld + m_cols) * elem);
}

/* Whether every aligned vector holding a byte of span `local` (of
 * SG_K_LINEAR_ITEM elements of `elem` bytes) of a contiguous master of
 * `count` elements lies inside it: then the span's strips may load shifted
 * (the cast-transpose's and block scaling's spans). */
SG_K_HOST_DEVICE inline bool sg_k_span_vectors_inside(const char *master, uint64_t count,
                                                      uint64_t local, uint64_t elem) {
  const uint64_t first = local * SG_K_LINEAR_ITEM;
  const uint64_t n = count - first < SG_K_LINEAR_ITEM ? count - first : SG_K_LINEAR_ITEM;
  return sg_k_vectors_inside(master + first * elem, n * elem, master, master + count * elem);
}

/* How the strips of that span load (the cast-transpose's and block
 * scaling's alike): as the aligned vectors they are where the span starts
 * 16-byte aligned, shifted out of the aligned vectors around them where all
 * of those lie inside the master, else element by element. */
enum : uint32_t { SG_K_SPAN_ELEMENTS, SG_K_SPAN_VECTORS, SG_K_SPAN_SHIFTED };
SG_K_HOST_DEVICE inline uint32_t sg_k_span_load(const char *master, uint64_t count, uint64_t local,
                                                uint64_t elem) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(master + local * SG_K_LINEAR_ITEM * elem);
  return (at & 15u) == 0                                          ? SG_K_SPAN_VECTORS
         : sg_k_span_vectors_inside(master, count, local, elem) ? SG_K_SPAN_SHIFTED
                                                                  : SG_K_SPAN_ELEMENTS;
}

#endif /* SG_KERNELS_REFRESH_UNALIGNED_CUH */
