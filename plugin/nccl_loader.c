#define _GNU_SOURCE /* dladdr */
#include "nccl_loader.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_check.h"

#define SONAME "libnccl.so.2"
#define ENV_NAME "STEPGRAPH_NCCL_LIBRARY"

/* What was tried so far, for the failure message. */
typedef struct tried {
  char text[768];
  size_t used;
} tried;

static void note(tried *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(tried *t, const char *fmt, ...) {
  if (t->used >= sizeof t->text) {
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->text + t->used, sizeof t->text - t->used, fmt, ap);
  va_end(ap);
  t->used += n > 0 ? (size_t)n : 0;
}

static const char *last_dlerror(void) {
  const char *e = dlerror();
  return e != NULL ? e : "unknown dlopen error";
}

/* Which file was opened and how it was found. */
typedef struct found {
  const char *name;
  const char *how;
} found;

/* The search: an NCCL already in the process, else the one the variable
 * names (and only that one: the user chose the copy), else the loader's. */
static void *search(tried *t, found *f) {
  f->name = SONAME;
  f->how = "already loaded in this process";
  void *h = dlopen(SONAME, RTLD_NOW | RTLD_NOLOAD);
  if (h != NULL) {
    return h;
  }
  note(t, "dlopen(\"" SONAME "\", RTLD_NOLOAD): not loaded in this process; ");
  const char *env = getenv(ENV_NAME);
  if (env != NULL && *env != '\0') {
    f->name = env;
    f->how = "named by " ENV_NAME;
    h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
      note(t, ENV_NAME "=\"%s\": %s (the loader's search path is not tried "
              "when " ENV_NAME " is set)",
           env, last_dlerror());
    }
    return h;
  }
  note(t, ENV_NAME ": not set; ");
  f->how = "from the loader's search path";
  h = dlopen(SONAME, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    note(t, "dlopen(\"" SONAME "\") from the loader's search path: %s",
         last_dlerror());
  }
  return h;
}

/* The file a handle came from, for the log. */
static void file_of(void *sym, char *buf, size_t cap) {
  Dl_info info;
  if (dladdr(sym, &info) != 0 && info.dli_fname != NULL) {
    snprintf(buf, cap, "%s", info.dli_fname);
  } else {
    snprintf(buf, cap, "(unknown file)");
  }
}

static sg_status resolve(sg_diag *d, void *h, sg_nccl_functions *out,
                         const found *f) {
  memset(out, 0, sizeof *out);
  out->struct_size = sizeof *out;
  for (size_t i = 0; i < SG_NCCL_FIELD_COUNT; i++) {
    const sg_nccl_field *field = &sg_nccl_fields[i];
    void *sym = dlsym(h, field->symbol);
    if (sym == NULL) {
      return sg_fail(d, SG_ERR_NCCL,
                     "\"%s\" (%s) has no symbol %s (%s): not an NCCL "
                     "library, or one too old",
                     f->name, f->how, field->symbol, last_dlerror());
    }
    memcpy((char *)out + field->offset, &sym, sizeof sym);
  }
  return SG_OK;
}

sg_status sg_nccl_load(sg_diag *d, sg_nccl_functions *out, void **handle_out,
                       char *where, size_t where_cap) {
  tried t = {{0}, 0};
  found f;
  *handle_out = NULL;
  void *h = search(&t, &f);
  if (h == NULL) {
    return sg_fail(d, SG_ERR_NCCL,
                   "config->nccl_comm is set but no NCCL was found (pass "
                   "config->nccl, the host's own NCCL functions, to skip the "
                   "search); tried: %s",
                   t.text);
  }
  sg_status st = resolve(d, h, out, &f);
  if (st != SG_OK) {
    dlclose(h);
    return st;
  }
  char file[512];
  file_of((void *)out->get_version, file, sizeof file);
  snprintf(where, where_cap, "%s (%s)", file, f.how);
  *handle_out = h;
  return SG_OK;
}

void sg_nccl_unload(void *handle) {
  if (handle != NULL) {
    dlclose(handle);
  }
}
