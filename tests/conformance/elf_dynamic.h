/* What the dynamic linker sees of a shared object, read from its file: the
 * exported symbols with their version, SONAME, NEEDED entries, version
 * definitions and the versions it needs from other libraries. */
#ifndef SG_ELF_DYNAMIC_H
#define SG_ELF_DYNAMIC_H

#include <stddef.h>

#define ELF_MAX_NAMES 256

typedef struct elf_names {
  size_t count;
  char names[ELF_MAX_NAMES][128];
} elf_names;

typedef struct elf_dynamic {
  char soname[128];
  elf_names exports;  /* "name@VERSION" of each defined global symbol */
  elf_names needed;   /* DT_NEEDED */
  elf_names verdefs;  /* version nodes defined (not the file's own name) */
  elf_names verneeds; /* versions needed, e.g. "GLIBC_2.34" */
} elf_dynamic;

/* 0 on success; -1 with a message on stderr. */
int elf_dynamic_read(const char *path, elf_dynamic *out);

int elf_names_contains(const elf_names *n, const char *name);

#endif
