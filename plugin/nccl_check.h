/* The one helper through which every NCCL return code passes (as SG_CUDA
 * for CUDA's), and NCCL's version code as text. A leaf: it knows the
 * table's get_error_string, not the session. */
#ifndef SG_NCCL_CHECK_H
#define SG_NCCL_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* SG_OK for ncclSuccess, else fails with SG_ERR_NCCL and
 * "<call> failed: <ncclResultName> (<NCCL's text>)"; the text comes from
 * f->get_error_string when f and it are set. */
sg_status sg_nccl_check(sg_diag *d, const sg_nccl_functions *f,
                        int32_t result, const char *call);

/* "ncclRemoteError (remote process exited or there was a network error)"
 * into buf: the code's name and NCCL's text, for messages. */
void sg_nccl_describe(const sg_nccl_functions *f, int32_t result, char *buf,
                      size_t cap);

/* The fields of sg_nccl_functions: each one's name, the NCCL function it
 * must be, and its offset. Shared by the host table's check and the
 * loader's dlsym. */
typedef struct sg_nccl_field {
  const char *field;
  const char *symbol;
  size_t offset;
} sg_nccl_field;
#define SG_NCCL_FIELD_COUNT 8
extern const sg_nccl_field sg_nccl_fields[SG_NCCL_FIELD_COUNT];

/* "2.28.9" for a ncclGetVersion code (either encoding). */
void sg_nccl_version_text(int32_t code, char *buf, size_t cap);

#endif
