/* Host structs at any struct_size: input structs in heap blocks of exactly
 * the host's bytes (ASan catches a read past them); output structs followed
 * by a canary (a write past what the plugin may write is caught even inside
 * the host's block). */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define FILLER 0xEE /* a newer host's fields the plugin does not know */
#define CANARY 0xA5
#define CANARY_BYTES 32
/* A declared size past this is a host that lies (SIZE_MAX): the block
 * holds the struct and some filler, the plugin may touch no more. */
#define OWNED_SLACK 64

void *fz_alloc(size_t bytes) { return fz_realloc(NULL, bytes); }

void *fz_realloc(void *p, size_t bytes) {
  void *q = realloc(p, bytes ? bytes : 1);
  if (q == NULL) {
    fz_fail("host: out of memory for %zu bytes", bytes);
  }
  return q;
}

static size_t owned_bytes(size_t declared, size_t known) {
  const size_t cap = known + OWNED_SLACK;
  size_t owned = declared < cap ? declared : cap;
  return owned < sizeof(size_t) ? sizeof(size_t) : owned;
}

void *fz_struct_in(const void *full, size_t full_size, size_t declared) {
  const size_t owned = owned_bytes(declared, full_size);
  uint8_t *p = fz_alloc(owned);
  memset(p, FILLER, owned);
  memcpy(p, full, owned < full_size ? owned : full_size);
  memcpy(p, &declared, sizeof declared);
  return p;
}

fz_out fz_out_alloc(size_t declared, size_t known) {
  fz_out o = {NULL, declared, owned_bytes(declared, known), known};
  o.p = fz_alloc(o.owned + CANARY_BYTES);
  memset(o.p, CANARY, o.owned + CANARY_BYTES);
  memcpy(o.p, &declared, sizeof declared);
  return o;
}

void fz_out_check_free(fz_out *o, const char *entry) {
  size_t now;
  memcpy(&now, o->p, sizeof now);
  if (now != o->declared) {
    fz_fail("%s changed out->struct_size from %zu to %zu", entry, o->declared,
            now);
  }
  size_t writable = o->declared < o->known ? o->declared : o->known;
  if (writable < sizeof(size_t)) {
    writable = sizeof(size_t);
  }
  for (size_t i = writable; i < o->owned + CANARY_BYTES; i++) {
    if (o->p[i] != CANARY) {
      fz_fail("%s wrote byte %zu of an out struct whose struct_size is %zu "
              "(the plugin's struct has %zu bytes)",
              entry, i, o->declared, o->known);
    }
  }
  free(o->p);
  o->p = NULL;
}
