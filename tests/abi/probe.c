/* A stand-in for the plugin, built from a (possibly altered) copy of
 * abi/stepgraph.h: its one exported function reaches every type of the ABI,
 * so abidiff against the committed baseline judges that copy's ABI. */
#include "stepgraph.h"

static sg_api table;

SG_EXPORT sg_status sg_get_api_v1(sg_get_api_args *args) {
  args->api = &table;
  return SG_OK;
}
