// Where the tests find the sources and the programs they run. The values
// are in a file CMake generates (tests/CMakeLists.txt), not defines: a
// define with an absolute path would give every test file another ccache
// key in every clone, and CI clones afresh each time.
#pragma once

namespace wslgpu::testing {

extern const char* const kSourceDir;    // the top of the source tree
extern const char* const kToolBinary;   // the built wslgpu-setup
extern const char* const kFetchBinary;  // the built wslgpu-setup-fetch
extern const char* const kCorpusDir;    // WSLGPU_CORPUS_DIR: real files, read in place (may be absent)
extern const char* const kCMakeCommand;  // the cmake that configured the build (runs cmake/*.cmake scripts)

}  // namespace wslgpu::testing
