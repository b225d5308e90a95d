/* Reading the host's argument structs under the struct_size rules: a struct
 * smaller than its ABI 1.0 size is refused; a larger one (a newer host) is
 * accepted and its trailing fields ignored; only what struct_size covers is
 * read or written. */
#ifndef SG_ARGS_H
#define SG_ARGS_H

#include <stddef.h>

#include "abi_layout.h"
#include "error.h"

/* Copies the host struct at src (NULL refused, naming `name`) into dst:
 * min(src's struct_size, dst_size) bytes, the rest zeroed. */
sg_status sg_read_struct(sg_diag *d, const void *src, void *dst,
                         size_t dst_size, size_t min_size, const char *name);
#define SG_READ(d, type, src, dst, name) \
  SG_READ_SINCE(d, type, 1_0, src, dst, name)
/* The same for a struct first declared in a later minor `ver` (1_1: its
 * smallest struct_size is SG_V1_1_SIZE_<type>). */
#define SG_READ_SINCE(d, type, ver, src, dst, name)                         \
  sg_read_struct((d), (src), (dst), sizeof(type), SG_V##ver##_SIZE_##type, \
                 (name))

/* Checks an output struct without writing it: NULL or too small refused. */
sg_status sg_check_out(sg_diag *d, const void *dst, size_t min_size,
                       const char *name);
#define SG_CHECK_OUT(d, type, dst, name) \
  sg_check_out((d), (dst), SG_V1_0_SIZE_##type, (name))

/* Checks an output struct (NULL or too small refused) and fills it from ours:
 * min(its struct_size, src_size) bytes; its struct_size is kept. */
sg_status sg_write_struct(sg_diag *d, void *dst, const void *src,
                          size_t src_size, size_t min_size, const char *name);
#define SG_WRITE(d, type, dst, src, name) \
  SG_WRITE_SINCE(d, type, 1_0, dst, src, name)
#define SG_WRITE_SINCE(d, type, ver, dst, src, name)                        \
  sg_write_struct((d), (dst), (src), sizeof(type), SG_V##ver##_SIZE_##type, \
                  (name))

/* Element i of a host array whose stride is its first element's
 * struct_size; NULL array, zero count, sizes too small or differing between
 * elements are refused. Reads each element into dst[i] (dst has count
 * elements of dst_size bytes). */
sg_status sg_read_array(sg_diag *d, const void *array, uint32_t count,
                        void *dst, size_t dst_size, size_t min_size,
                        const char *name);
#define SG_READ_ARRAY(d, type, array, count, dst, name)                    \
  sg_read_array((d), (array), (count), (dst), sizeof(type),                \
                SG_V1_0_SIZE_##type, (name))

/* A stream argument the plugin will capture on or check: the legacy default
 * stream (NULL, cudaStreamLegacy) is refused; cudaStreamPerThread is not. */
sg_status sg_check_stream_arg(sg_diag *d, sg_stream stream,
                              const char *name);

#endif
