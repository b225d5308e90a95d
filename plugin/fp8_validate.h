/* Validation of the host's FP8 parameter descriptors, and their kernel view.
 * Pure host code over descriptors; failures go to `diag` naming the element
 * and field ("params[3].rows is 0"). */
#ifndef SG_FP8_VALIDATE_H
#define SG_FP8_VALIDATE_H

#include <stdint.h>

#include "error.h"
#include "refresh.h" /* kernels/: sg_k_param */

/* Checks one descriptor on its own; `i` names it in messages. */
sg_status sg_fp8_desc_check(sg_diag *diag, const sg_fp8_param_desc *d,
                            uint32_t i);

/* The kernel's view of a checked descriptor. */
sg_k_param sg_fp8_desc_to_param(const sg_fp8_param_desc *d);

/* Fails naming two overlapping memory regions among params[0..total):
 * those before first_new are registered ("registered param 4"), the rest
 * are the call's ("params[2]"). */
sg_status sg_fp8_overlap_check(sg_diag *diag, const sg_k_param *params,
                               uint32_t total, uint32_t first_new);

#endif
