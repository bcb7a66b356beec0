// The corpus: real files that people outside the project wrote (nvidia-smi
// outputs from WSL machines, published .wslconfig files, ...), read where
// they lie (WSLGPU_CORPUS_DIR, kCorpusDir), never copied into the
// repository; its SOURCES.md says where each came from.
//
// A test case that reads it belongs to the doctest suite "corpus"
// (kCorpusSuite): ctest runs that suite as its own entry, unit-corpus,
// which is reported Skipped, naming the folder, on a machine without it
// (docs/testing.md, "The corpus").
#pragma once
#include <string>

namespace wslgpu::testing {

inline constexpr const char* kCorpusSuite = "corpus";

// Whether the corpus folder is there.
bool corpus_present();

// The bytes of the corpus file RELATIVE (e.g. "nvidia-smi/NAME.txt"); a
// file that cannot be read fails the test, naming its path.
std::string corpus_file(const std::string& relative);

}  // namespace wslgpu::testing
