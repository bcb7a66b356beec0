// The unit tests' main: doctest's, except that on a machine without the
// corpus (support/corpus.hpp) the suite that reads it is left out and the
// run says so first, so that `unit_tests` run by hand (or under the
// sanitizers, .ci/sanitizer-and-fuzz) neither fails for where the clone
// lies nor passes quietly without those cases. ctest runs that suite as
// its own entry, unit-corpus (tests/CMakeLists.txt).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>

#include "support/build_paths.hpp"
#include "support/corpus.hpp"

int main(int argc, char** argv) {
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  if (!wslgpu::testing::corpus_present()) {
    context.addFilter("test-suite-exclude", wslgpu::testing::kCorpusSuite);
    std::cout << "SKIPPED: the test cases of the suite \"" << wslgpu::testing::kCorpusSuite
              << "\" do not run: there is no corpus folder " << wslgpu::testing::kCorpusDir
              << " (configure with -DWSLGPU_CORPUS_DIR=FOLDER; docs/testing.md, \"The corpus\").\n";
  }
  return context.run();
}
