#include "support/corpus.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/build_paths.hpp"

namespace wslgpu::testing {

bool corpus_present() {
  std::error_code ec;
  return std::filesystem::is_directory(kCorpusDir, ec);
}

std::string corpus_file(const std::string& relative) {
  const std::string path = std::string(kCorpusDir) + "/" + relative;
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(),
                  "cannot read the corpus file " << path << " (WSLGPU_CORPUS_DIR; docs/testing.md, \"The corpus\")");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace wslgpu::testing
