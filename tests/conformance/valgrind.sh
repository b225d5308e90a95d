#!/bin/sh
# Runs a test program under valgrind's leak checker; exit 77 (skipped) when
# valgrind is not installed or a GPU is present (valgrind cannot follow the
# CUDA driver's memory mappings, so its reports there are noise).
command -v valgrind >/dev/null 2>&1 || { echo "SKIP: valgrind not installed"; exit 77; }
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: a GPU is present; the leak check runs on machines without one"
  exit 77
fi
exec valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect \
  --errors-for-leak-kinds=definite,indirect --error-exitcode=3 "$@"
