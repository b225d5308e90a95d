/* What the dynamic linker sees: one versioned symbol, the SONAME, only
 * system libraries needed, and a library that dlclose never unloads. */
#include <dlfcn.h>
#include <stdio.h>

#include "conformance.h"
#include "elf_dynamic.h"
#include "sg_load.h"

static elf_dynamic elf;

static void read_plugin(void) {
  ck_assert_msg(elf_dynamic_read(sg_test_plugin_path(), &elf) == 0,
                "cannot read %s", sg_test_plugin_path());
}

START_TEST(exports_only_the_versioned_entry_point) {
  /* GNU ld also lists the version node itself as an absolute symbol. */
  for (size_t i = 0; i < elf.exports.count; i++) {
    const char *e = elf.exports.names[i];
    ck_assert_msg(strcmp(e, "sg_get_api_v1@STEPGRAPH_1.0") == 0 ||
                      strcmp(e, "STEPGRAPH_1.0@STEPGRAPH_1.0") == 0,
                  "unexpected exported symbol %s", e);
  }
  ck_assert(elf_names_contains(&elf.exports, "sg_get_api_v1@STEPGRAPH_1.0"));
}
END_TEST

START_TEST(soname_is_libstepgraph_so_1) {
  ck_assert_str_eq(elf.soname, "libstepgraph.so.1");
}
END_TEST

START_TEST(defines_the_one_version_node_STEPGRAPH_1_0) {
  ck_assert_uint_eq(elf.verdefs.count, 1);
  ck_assert_str_eq(elf.verdefs.names[0], "STEPGRAPH_1.0");
}
END_TEST

static const char *const system_libraries[] = {
    "libc.so.6",     "libdl.so.2",      "libpthread.so.0",
    "libm.so.6",     "librt.so.1",      "libstdc++.so.6",
    "libgcc_s.so.1", "ld-linux-x86-64.so.2",
};

START_TEST(needs_only_system_libraries) {
  ck_assert_uint_gt(elf.needed.count, 0);
  for (size_t i = 0; i < elf.needed.count; i++) {
    int known = 0;
    for (size_t k = 0; k < sizeof system_libraries / sizeof *system_libraries;
         k++) {
      known |= strcmp(elf.needed.names[i], system_libraries[k]) == 0;
    }
    ck_assert_msg(known, "NEEDED %s is not a system library (the CUDA "
                  "runtime must be linked statically; NCCL is dlopened)",
                  elf.needed.names[i]);
  }
}
END_TEST

START_TEST(dlclose_never_unloads_it) {
  void *h = dlopen(sg_test_plugin_path(), RTLD_NOW | RTLD_LOCAL);
  ck_assert_ptr_nonnull(h);
  ck_assert_int_eq(dlclose(h), 0);
  void *again = dlopen(sg_test_plugin_path(), RTLD_NOW | RTLD_NOLOAD);
  ck_assert_msg(again != NULL, "unloaded by dlclose: link with -z nodelete");
  dlclose(again);
}
END_TEST

Suite *exports_suite(void) {
  Suite *s = suite_create("exports");
  TCase *t = tcase_create("elf");
  tcase_add_unchecked_fixture(t, read_plugin, NULL);
  tcase_add_test(t, exports_only_the_versioned_entry_point);
  tcase_add_test(t, soname_is_libstepgraph_so_1);
  tcase_add_test(t, defines_the_one_version_node_STEPGRAPH_1_0);
  tcase_add_test(t, needs_only_system_libraries);
  tcase_add_test(t, dlclose_never_unloads_it);
  suite_add_tcase(s, t);
  return s;
}
