# Sourced by the scripts/gpu-verify* scripts. sg_use_libraries NAME...: for
# each shared library (libcublasLt.so.13 for the trainer and the engine
# test, libnccl.so.2 where a script wants the toolkit's NCCL), put the
# directory of the toolkit's copy, else of the one a Python wheel
# (nvidia-*) installed, on LD_LIBRARY_PATH.
sg_find_library() {
  { find /usr/local/cuda*/ /usr/lib /opt -name "$1" 2>/dev/null
    python3 -c 'import glob, os, sys, nvidia
for p in nvidia.__path__:
    for f in glob.glob(os.path.join(p, "*", "lib", sys.argv[1])):
        print(f)' "$1" 2>/dev/null; } | head -n 1
}

sg_use_libraries() {
  local name found
  for name in "$@"; do
    found=$(sg_find_library "$name")
    [ -n "$found" ] && export LD_LIBRARY_PATH=$(dirname "$found")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  done
  return 0
}
