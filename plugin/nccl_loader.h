/* Finding NCCL when the host gives no table (sg_session_config.nccl is
 * NULL): the search order the header documents, the symbols the table
 * needs, and a message naming every place tried when none works. A leaf:
 * no session, no state beyond the handle it returns. */
#ifndef SG_NCCL_LOADER_H
#define SG_NCCL_LOADER_H

#include <stddef.h>

#include "error.h"

/* Fills *out with the functions of the first NCCL found and *handle_out
 * with its dlopen handle (for sg_nccl_unload); `where` gets the file and
 * how it was found, for the log. SG_ERR_NCCL naming every place tried when
 * none can be loaded or a file lacks a symbol. */
sg_status sg_nccl_load(sg_diag *d, sg_nccl_functions *out, void **handle_out,
                       char *where, size_t where_cap);

/* Drops the plugin's reference (NULL: nothing). */
void sg_nccl_unload(void *handle);

#endif
