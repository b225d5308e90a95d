#include "elf_dynamic.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct image {
  unsigned char *bytes;
  size_t size;
  const Elf64_Shdr *sections;
  size_t section_count;
} image;

static void add_name(elf_names *n, const char *a, const char *b) {
  if (n->count < ELF_MAX_NAMES) {
    snprintf(n->names[n->count++], sizeof n->names[0], "%s%s%s", a,
             b ? "@" : "", b ? b : "");
  }
}

int elf_names_contains(const elf_names *n, const char *name) {
  for (size_t i = 0; i < n->count; i++) {
    if (strcmp(n->names[i], name) == 0) {
      return 1;
    }
  }
  return 0;
}

static const Elf64_Shdr *find_section(const image *im, Elf64_Word type) {
  for (size_t i = 0; i < im->section_count; i++) {
    if (im->sections[i].sh_type == type) {
      return &im->sections[i];
    }
  }
  return NULL;
}

static const char *strtab_of(const image *im, const Elf64_Shdr *s) {
  return (const char *)im->bytes + im->sections[s->sh_link].sh_offset;
}

/* Version index -> name, from the version definitions. */
static const char *verdef_name(const image *im, Elf64_Half index) {
  const Elf64_Shdr *s = find_section(im, SHT_GNU_verdef);
  if (s == NULL) {
    return NULL;
  }
  const char *str = strtab_of(im, s);
  const unsigned char *p = im->bytes + s->sh_offset;
  for (Elf64_Word i = 0; i < s->sh_info; i++) {
    const Elf64_Verdef *d = (const Elf64_Verdef *)p;
    const Elf64_Verdaux *aux = (const Elf64_Verdaux *)(p + d->vd_aux);
    if (d->vd_ndx == (index & 0x7fff)) {
      return str + aux->vda_name;
    }
    p += d->vd_next;
  }
  return NULL;
}

static void read_verdefs(const image *im, elf_dynamic *out) {
  const Elf64_Shdr *s = find_section(im, SHT_GNU_verdef);
  if (s == NULL) {
    return;
  }
  const char *str = strtab_of(im, s);
  const unsigned char *p = im->bytes + s->sh_offset;
  for (Elf64_Word i = 0; i < s->sh_info; i++) {
    const Elf64_Verdef *d = (const Elf64_Verdef *)p;
    const Elf64_Verdaux *aux = (const Elf64_Verdaux *)(p + d->vd_aux);
    if (!(d->vd_flags & VER_FLG_BASE)) {
      add_name(&out->verdefs, str + aux->vda_name, NULL);
    }
    p += d->vd_next;
  }
}

static void read_verneeds(const image *im, elf_dynamic *out) {
  const Elf64_Shdr *s = find_section(im, SHT_GNU_verneed);
  if (s == NULL) {
    return;
  }
  const char *str = strtab_of(im, s);
  const unsigned char *p = im->bytes + s->sh_offset;
  for (Elf64_Word i = 0; i < s->sh_info; i++) {
    const Elf64_Verneed *n = (const Elf64_Verneed *)p;
    const unsigned char *a = p + n->vn_aux;
    for (Elf64_Half k = 0; k < n->vn_cnt; k++) {
      const Elf64_Vernaux *aux = (const Elf64_Vernaux *)a;
      add_name(&out->verneeds, str + aux->vna_name, NULL);
      a += aux->vna_next;
    }
    p += n->vn_next;
  }
}

static void read_exports(const image *im, elf_dynamic *out) {
  const Elf64_Shdr *s = find_section(im, SHT_DYNSYM);
  const Elf64_Shdr *vs = find_section(im, SHT_GNU_versym);
  if (s == NULL) {
    return;
  }
  const char *str = strtab_of(im, s);
  const Elf64_Sym *syms = (const Elf64_Sym *)(im->bytes + s->sh_offset);
  const Elf64_Half *versym =
      vs ? (const Elf64_Half *)(im->bytes + vs->sh_offset) : NULL;
  size_t n = s->sh_size / sizeof *syms;
  for (size_t i = 1; i < n; i++) {
    int bind = ELF64_ST_BIND(syms[i].st_info);
    if (syms[i].st_shndx == SHN_UNDEF ||
        (bind != STB_GLOBAL && bind != STB_WEAK)) {
      continue;
    }
    const char *version = versym ? verdef_name(im, versym[i]) : NULL;
    add_name(&out->exports, str + syms[i].st_name, version);
  }
}

static void read_dynamic(const image *im, elf_dynamic *out) {
  const Elf64_Shdr *s = find_section(im, SHT_DYNAMIC);
  if (s == NULL) {
    return;
  }
  const char *str = strtab_of(im, s);
  const Elf64_Dyn *d = (const Elf64_Dyn *)(im->bytes + s->sh_offset);
  for (; d->d_tag != DT_NULL; d++) {
    if (d->d_tag == DT_NEEDED) {
      add_name(&out->needed, str + d->d_un.d_val, NULL);
    } else if (d->d_tag == DT_SONAME) {
      snprintf(out->soname, sizeof out->soname, "%s", str + d->d_un.d_val);
    }
  }
}

static int load(const char *path, image *im) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "cannot open %s\n", path);
    return -1;
  }
  fseek(f, 0, SEEK_END);
  im->size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  im->bytes = malloc(im->size);
  size_t got = im->bytes ? fread(im->bytes, 1, im->size, f) : 0;
  fclose(f);
  const Elf64_Ehdr *h = (const Elf64_Ehdr *)im->bytes;
  if (got != im->size || im->size < sizeof *h ||
      memcmp(h->e_ident, ELFMAG, SELFMAG) != 0 ||
      h->e_ident[EI_CLASS] != ELFCLASS64) {
    fprintf(stderr, "%s is not a 64-bit ELF file\n", path);
    free(im->bytes);
    return -1;
  }
  im->sections = (const Elf64_Shdr *)(im->bytes + h->e_shoff);
  im->section_count = h->e_shnum;
  return 0;
}

int elf_dynamic_read(const char *path, elf_dynamic *out) {
  image im;
  memset(out, 0, sizeof *out);
  if (load(path, &im) != 0) {
    return -1;
  }
  read_dynamic(&im, out);
  read_exports(&im, out);
  read_verdefs(&im, out);
  read_verneeds(&im, out);
  free(im.bytes);
  return 0;
}
