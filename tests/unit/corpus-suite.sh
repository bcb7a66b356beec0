#!/bin/sh
# The unit tests that read the corpus (the doctest suite "corpus"): real
# files that people outside the project wrote, read where they lie
# (WSLGPU_CORPUS_DIR, docs/testing.md "The corpus"). Where that folder is
# not there, exit 77, which ctest reports as Skipped, with the reason: a
# clone on a machine without the corpus is not a failure, and not a pass
# either.
#
#   corpus-suite.sh CORPUS_DIR UNIT_TESTS [DOCTEST OPTIONS...]
set -eu
corpus=$1 unit_tests=$2
shift 2
if [ ! -d "$corpus" ]; then
  echo "SKIPPED: the unit tests of the suite \"corpus\" did not run: there is no corpus folder $corpus."
  echo "  Configure with -DWSLGPU_CORPUS_DIR=FOLDER (the real files the tests read; docs/testing.md, \"The corpus\")."
  exit 77
fi
exec "$unit_tests" --test-suite=corpus "$@"
