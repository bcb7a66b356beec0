// apt's sources files as apt reads them (sources.list(5)), and removing
// entries from them while keeping every other byte.
#include <doctest/doctest.h>

#include "installer/formats/apt_sources.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::MemoryFileSystem;
using Words = std::vector<std::string>;

namespace {

Words problem_texts(const AptSourcesFile& f) {
  Words out;
  for (const auto& d : f.problems) out.push_back(d.str());
  return out;
}

const AptSourceEntry& only_entry(const AptSourcesFile& f) {
  REQUIRE_MESSAGE(f.problems.empty(), (f.problems.empty() ? std::string() : f.problems.front().str()));
  REQUIRE(f.entries.size() == 1);
  return f.entries.front();
}

AptSourceEntry one_line(const std::string& line) {
  return only_entry(parse_apt_sources("/etc/apt/sources.list.d/t.list", line + "\n"));
}

}  // namespace

// ------------------------------------------------------------ one-line style

TEST_CASE("a plain one-line entry: type, URI, suite, components") {
  AptSourceEntry e = one_line("deb https://repo.radeon.com/rocm/apt/6.4.2 noble main proprietary");
  CHECK(e.file == "/etc/apt/sources.list.d/t.list");
  CHECK(e.format == AptSourcesFormat::one_line);
  CHECK(e.first_line == 1);
  CHECK(e.last_line == 1);
  CHECK(e.types == Words{"deb"});
  CHECK(e.uris == Words{"https://repo.radeon.com/rocm/apt/6.4.2"});
  CHECK(e.suites == Words{"noble"});
  CHECK(e.components == Words{"main", "proprietary"});
  CHECK(e.enabled);
  CHECK(e.signed_by.empty());
  CHECK(e.architectures.empty());
  CHECK(e.options.empty());
  CHECK(e.where() == "/etc/apt/sources.list.d/t.list:1");
}

TEST_CASE("one-line options: several in one bracket, comma lists, with and without spaces inside the brackets") {
  AptSourceEntry e = one_line(
      "deb [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg trusted=yes] "
      "https://repo.radeon.com/amdgpu/30.10/ubuntu noble main");
  CHECK(e.architectures == Words{"amd64", "i386"});
  CHECK(e.signed_by == Words{"/etc/apt/keyrings/rocm.gpg"});
  CHECK(e.trusted == "yes");
  REQUIRE(e.options.size() == 3);
  CHECK(e.options[0].name == "arch");
  CHECK(e.options[0].op == "=");
  CHECK(e.options[0].values == Words{"amd64", "i386"});
  CHECK(e.uris == Words{"https://repo.radeon.com/amdgpu/30.10/ubuntu"});

  AptSourceEntry spaced = one_line("deb [ arch=amd64 ] https://repo.radeon.com/rocm/apt/6.4.2 noble main");
  CHECK(spaced.architectures == Words{"amd64"});
  CHECK(spaced.uris == Words{"https://repo.radeon.com/rocm/apt/6.4.2"});
  CHECK(spaced.suites == Words{"noble"});

  AptSourceEntry tabs = one_line("deb\t[\tsigned-by=/k.gpg,/l.gpg\t]\thttps://x.example/r\tnoble\tmain");
  CHECK(tabs.signed_by == Words{"/k.gpg", "/l.gpg"});
  CHECK(tabs.components == Words{"main"});
}

TEST_CASE("one-line arch+= and arch-= modify apt's default architectures instead of replacing them") {
  AptSourceEntry add = one_line("deb [arch+=i386] https://x.example/r noble main");
  CHECK(add.architectures.empty());
  CHECK(add.architectures_add == Words{"i386"});
  CHECK(add.options.at(0).op == "+=");
  CHECK(add.options.at(0).name == "arch");
  AptSourceEntry remove = one_line("deb [arch-=i386,armhf] https://x.example/r noble main");
  CHECK(remove.architectures_remove == Words{"i386", "armhf"});
  CHECK(remove.options.at(0).op == "-=");
}

TEST_CASE("deb-src lines, flat repositories, comments, blank lines and CRLF") {
  AptSourcesFile f =
      parse_apt_sources("/etc/apt/sources.list",
                        "# the distribution\r\n"
                        "\r\n"
                        "deb https://x.example/debian bookworm main # trailing comment\r\n"
                        "   # indented comment\r\n"
                        "deb-src https://x.example/debian bookworm main\r\n"
                        "#deb https://x.example/debian bookworm-backports main\r\n"
                        "deb [signed-by=/usr/share/keyrings/cuda-archive-keyring.gpg] "
                        "https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/ /\r\n"
                        "\t\r\n");
  CHECK(f.problems.empty());
  REQUIRE(f.entries.size() == 3);
  CHECK(f.entries[0].first_line == 3);
  CHECK(f.entries[0].components == Words{"main"});
  CHECK(f.entries[1].types == Words{"deb-src"});
  CHECK(f.entries[1].first_line == 5);
  CHECK(f.entries[2].suites == Words{"/"});
  CHECK(f.entries[2].components.empty());
  CHECK(f.entries[2].index == 2);
  CHECK(f.entries[2].first_line == 7);
}

TEST_CASE("one-line lines apt would reject are problems with FILE:LINE:COLUMN, and the other lines are still read") {
  AptSourcesFile f = parse_apt_sources("/etc/apt/sources.list.d/bad.list",
                                       "deb\n"
                                       "rpm https://x.example/r noble main\n"
                                       "deb [arch=amd64 https://x.example/r noble main\n"
                                       "deb [arch] https://x.example/r noble main\n"
                                       "deb https://x.example/r noble\n"
                                       "deb https://x.example/r flat/ main\n"
                                       "deb https://x.example/good noble main\n");
  CHECK(problem_texts(f) ==
        Words{
            "/etc/apt/sources.list.d/bad.list:1:1: no URI after the type",
            "/etc/apt/sources.list.d/bad.list:2:1: the type \"rpm\" is not deb or deb-src",
            "/etc/apt/sources.list.d/bad.list:3:1: an option list \"[\" without its \"]\"",
            "/etc/apt/sources.list.d/bad.list:4:1: the option \"arch\" has no \"=\"",
            "/etc/apt/sources.list.d/bad.list:5:1: no component after the suite \"noble\"",
            "/etc/apt/sources.list.d/bad.list:6:1: a suite ending in \"/\" (an exact path) takes no components",
        });
  REQUIRE(f.entries.size() == 1);
  CHECK(f.entries[0].first_line == 7);
  CHECK(f.entries[0].index == 0);
}

// Found by tests/fuzz/fuzz_apt_sources.cpp: the suite was read past its
// start (its last character) when it was an empty quoted word.
TEST_CASE("a one-line problem's column is where the entry starts on its line") {
  AptSourcesFile f = parse_apt_sources("/etc/apt/sources.list.d/i.list", "\tdeb https://x.example/r noble\n");
  CHECK(problem_texts(f) == Words{"/etc/apt/sources.list.d/i.list:1:2: no component after the suite \"noble\""});
}

TEST_CASE("a one-line entry whose suite is an empty quoted word is a problem, not a flat suite") {
  AptSourcesFile f = parse_apt_sources("/etc/apt/sources.list.d/q.list",
                                       "deb https://x.example/r \"\" main\n"
                                       "deb https://x.example/r \"\"\n"
                                       "deb https://x.example/good noble main\n");
  CHECK(problem_texts(f) == Words{"/etc/apt/sources.list.d/q.list:1:1: the suite is empty",
                                  "/etc/apt/sources.list.d/q.list:2:1: the suite is empty"});
  REQUIRE(f.entries.size() == 1);
  CHECK(f.entries[0].first_line == 3);
}

TEST_CASE("URIs compare equal with and without a trailing slash") {
  CHECK(normalize_apt_uri("https://repo.radeon.com/rocm/apt/6.4.2/") == "https://repo.radeon.com/rocm/apt/6.4.2");
  CHECK(normalize_apt_uri("https://repo.radeon.com/rocm/apt/6.4.2//") == "https://repo.radeon.com/rocm/apt/6.4.2");
  CHECK(normalize_apt_uri("/") == "/");
  AptSourceEntry e = one_line("deb https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/ /");
  CHECK(e.has_uri("https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64"));
  CHECK(e.has_uri("https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/"));
  CHECK_FALSE(e.has_uri("https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu"));
  CHECK(e.has_suite("/"));
  CHECK_FALSE(e.has_suite("noble"));
  CHECK(e.has_type("deb"));
  CHECK_FALSE(e.has_type("deb-src"));
}

// --------------------------------------------------------------- deb822 style

TEST_CASE("deb822: several stanzas, several types, URIs and suites, options, comments and Enabled: no") {
  AptSourcesFile f = parse_apt_sources("/etc/apt/sources.list.d/mixed.sources",
                                       "# written by hand\n"
                                       "Types: deb deb-src\n"
                                       "URIs: https://x.example/a https://x.example/b/\n"
                                       "# a comment inside the stanza\n"
                                       "Suites: noble noble-updates\n"
                                       "Components: main universe\n"
                                       "Architectures: amd64\n"
                                       "Signed-By: /etc/apt/keyrings/x.gpg\n"
                                       "\n"
                                       "\n"
                                       "types: deb\n"
                                       "uris: https://x.example/c\n"
                                       "suites: ./\n"
                                       "enabled: no\n"
                                       "architectures-add: i386\n"
                                       "Trusted: yes\n");
  CHECK(f.problems.empty());
  CHECK(f.format == AptSourcesFormat::deb822);
  REQUIRE(f.entries.size() == 2);
  const AptSourceEntry& a = f.entries[0];
  CHECK(a.format == AptSourcesFormat::deb822);
  CHECK(a.first_line == 2);
  CHECK(a.last_line == 8);
  CHECK(a.where() == "/etc/apt/sources.list.d/mixed.sources:2-8");
  CHECK(a.types == Words{"deb", "deb-src"});
  CHECK(a.uris == Words{"https://x.example/a", "https://x.example/b/"});
  CHECK(a.has_uri("https://x.example/b"));
  CHECK(a.suites == Words{"noble", "noble-updates"});
  CHECK(a.components == Words{"main", "universe"});
  CHECK(a.architectures == Words{"amd64"});
  CHECK(a.signed_by == Words{"/etc/apt/keyrings/x.gpg"});
  CHECK(a.enabled);
  const AptSourceEntry& c = f.entries[1];
  CHECK(c.first_line == 11);
  CHECK(c.last_line == 16);
  CHECK_FALSE(c.enabled);
  CHECK(c.architectures_add == Words{"i386"});
  CHECK(c.trusted == "yes");
  CHECK(c.index == 1);
}

TEST_CASE("deb822: Signed-By holding the key itself, with ' .' standing for its empty line") {
  AptSourcesFile f = parse_apt_sources("/etc/apt/sources.list.d/inline.sources",
                                       "Types: deb\n"
                                       "URIs: https://x.example/r\n"
                                       "Suites: stable\n"
                                       "Components: main\n"
                                       "Signed-By:\n"
                                       " -----BEGIN PGP PUBLIC KEY BLOCK-----\n"
                                       " .\n"
                                       " mDMEYCQjIxYJKwYBBAHaRw8BAQdAD/P5Nvvnvk66SxBBHDbhRml9ORg1WV5CvzKY\n"
                                       " =IE0r\n"
                                       " -----END PGP PUBLIC KEY BLOCK-----\n");
  const AptSourceEntry& e = only_entry(f);
  CHECK(e.signed_by.empty());
  CHECK(e.signed_by_key ==
        "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmDMEYCQjIxYJKwYBBAHaRw8BAQdAD/P5Nvvnvk66SxBBHDbhRml9ORg1WV5CvzKY\n"
        "=IE0r\n-----END PGP PUBLIC KEY BLOCK-----\n");
  CHECK(e.last_line == 10);
}

TEST_CASE("deb822: stanzas apt would reject are problems, the others are read") {
  AptSourcesFile f = parse_apt_sources("/etc/apt/sources.list.d/bad.sources",
                                       "Types: deb\nURIs: https://x.example/r\n\n"
                                       "Types: rpm\nURIs: https://x.example/r\nSuites: s\n\n"
                                       "Types: deb\nthis is not a field\n\n"
                                       "Types: deb\nURIs: https://x.example/good\nSuites: noble\nComponents: main\n");
  CHECK(problem_texts(f) ==
        Words{"/etc/apt/sources.list.d/bad.sources:1:1: the stanza lacks Suites",
              "/etc/apt/sources.list.d/bad.sources:4:1: a type in \"rpm\" is not deb or deb-src",
              "/etc/apt/sources.list.d/bad.sources:9:1: \"this is not a field\" is not a \"Field: value\" line"});
  REQUIRE(f.entries.size() == 1);
  CHECK(f.entries[0].first_line == 11);
}

// ----------------------------------------------------------- which files apt reads

TEST_CASE("apt reads only *.list and *.sources files with valid names") {
  CHECK(apt_reads_source_file_name("rocm.list"));
  CHECK(apt_reads_source_file_name("cuda-wsl-ubuntu-x86_64.list"));
  CHECK(apt_reads_source_file_name("debian.sources"));
  CHECK(apt_reads_source_file_name("A_b-c.d.list"));
  CHECK_FALSE(apt_reads_source_file_name("rocm.list.save"));
  CHECK_FALSE(apt_reads_source_file_name("rocm.list.dpkg-old"));
  CHECK_FALSE(apt_reads_source_file_name("rocm.list~"));
  CHECK_FALSE(apt_reads_source_file_name("rocm.list.disabled"));
  CHECK_FALSE(apt_reads_source_file_name(".hidden.list"));
  CHECK_FALSE(apt_reads_source_file_name("rocm"));
  CHECK_FALSE(apt_reads_source_file_name("my repo.list"));
  CHECK_FALSE(apt_reads_source_file_name("rocm+.list"));
  CHECK_FALSE(apt_reads_source_file_name("rocm.LIST"));
}

TEST_CASE("read_apt_sources reads sources.list first, then sources.list.d in name order, skipping what apt skips") {
  MemoryFileSystem fs;
  fs.add_file("/etc/apt/sources.list", "deb https://x.example/one noble main\n");
  fs.add_file("/etc/apt/sources.list.d/b.sources",
              "Types: deb\nURIs: https://x.example/three\nSuites: noble\nComponents: main\n");
  fs.add_file("/etc/apt/sources.list.d/a.list", "deb https://x.example/two noble main\n");
  fs.add_file("/etc/apt/sources.list.d/a.list.save", "deb https://x.example/ignored noble main\n");
  fs.add_file("/etc/apt/sources.list.d/.a.list", "deb https://x.example/ignored noble main\n");
  fs.add_dir("/etc/apt/sources.list.d/dir.list");
  auto files = read_apt_sources(fs);
  REQUIRE(files.size() == 3);
  CHECK(files[0].path == "/etc/apt/sources.list");
  CHECK(files[1].path == "/etc/apt/sources.list.d/a.list");
  CHECK(files[2].path == "/etc/apt/sources.list.d/b.sources");
  CHECK(files[2].entries.at(0).uris == Words{"https://x.example/three"});

  MemoryFileSystem empty;
  CHECK(read_apt_sources(empty).empty());
}

// ------------------------------------------------------------------ removal

TEST_CASE("removing one-line entries keeps every other line byte for byte, CRLF and comments included") {
  const std::string text =
      "# rocm and something else\r\n"
      "deb [arch=amd64] https://repo.radeon.com/rocm/apt/6.4.2 noble main\r\n"
      "\r\n"
      "deb https://x.example/other noble main   # keep me\r\n"
      "deb-src https://repo.radeon.com/rocm/apt/6.4.2 noble main\r\n"
      "\tdeb https://x.example/last noble main";
  AptSourcesFile f = parse_apt_sources("/etc/apt/sources.list.d/mixed.list", text);
  REQUIRE(f.entries.size() == 4);
  auto kept = remove_apt_source_entries(f, {0, 2});
  REQUIRE(kept);
  CHECK(*kept ==
        "# rocm and something else\r\n"
        "\r\n"
        "deb https://x.example/other noble main   # keep me\r\n"
        "\tdeb https://x.example/last noble main");
  CHECK(remove_apt_source_entries(f, {}) == text);
  CHECK_FALSE(remove_apt_source_entries(f, {0, 1, 2, 3}));
}

TEST_CASE("a .list left with only comments and blank lines is to be removed") {
  AptSourcesFile f =
      parse_apt_sources("/etc/apt/sources.list.d/rocm.list",
                        "# written by a script\n\ndeb https://repo.radeon.com/rocm/apt/6.4.2 noble main\n"
                        "#deb-src https://repo.radeon.com/rocm/apt/6.4.2 noble main\n");
  CHECK_FALSE(remove_apt_source_entries(f, {0}));
}

TEST_CASE("removing deb822 stanzas takes their block and its separating blank lines, and nothing else") {
  const std::string text =
      "# header\n"
      "\n"
      "Types: deb\n"
      "URIs: https://x.example/keep\n"
      "Suites: noble\n"
      "Components: main\n"
      "\n"
      "# ROCm, added by hand\n"
      "Types: deb\n"
      "URIs: https://repo.radeon.com/rocm/apt/6.4.2\n"
      "Suites: noble\n"
      "Components: main\n"
      "\n"
      "\n"
      "Types: deb\n"
      "URIs: https://x.example/also-keep\n"
      "Suites: noble\n"
      "Components:   main   \n"
      "\n"
      "Types: deb\n"
      "URIs: https://repo.radeon.com/amdgpu/6.4.2/ubuntu\n"
      "Suites: noble\n"
      "Components: main\n";
  AptSourcesFile f = parse_apt_sources("/etc/apt/sources.list.d/all.sources", text);
  REQUIRE(f.entries.size() == 4);
  CHECK(f.entries[1].first_line == 9);
  auto kept = remove_apt_source_entries(f, {1, 3});
  REQUIRE(kept);
  CHECK(*kept ==
        "# header\n"
        "\n"
        "Types: deb\n"
        "URIs: https://x.example/keep\n"
        "Suites: noble\n"
        "Components: main\n"
        "\n"
        "Types: deb\n"
        "URIs: https://x.example/also-keep\n"
        "Suites: noble\n"
        "Components:   main   \n");
  auto first_only = remove_apt_source_entries(f, {0});
  REQUIRE(first_only);
  CHECK(first_only->substr(0, 30) == "# header\n\n# ROCm, added by han");
  CHECK_FALSE(remove_apt_source_entries(f, {0, 1, 2, 3}));
}

TEST_CASE("a .sources holding only a disabled stanza besides the removed one keeps it") {
  AptSourcesFile f =
      parse_apt_sources("/etc/apt/sources.list.d/x.sources",
                        "Types: deb\nURIs: https://x.example/a\nSuites: noble\nComponents: main\n\n"
                        "Enabled: no\nTypes: deb\nURIs: https://x.example/b\nSuites: noble\nComponents: main\n");
  REQUIRE(f.entries.size() == 2);
  CHECK(remove_apt_source_entries(f, {0}) ==
        std::optional<std::string>(
            "Enabled: no\nTypes: deb\nURIs: https://x.example/b\nSuites: noble\nComponents: main\n"));
}

// --------------------------------------------- what vendor installers leave behind
// ../shared/VENDOR-FACTS.md, "What earlier installs leave behind".

TEST_CASE("amdgpu-install's amdgpu.list, rocm.list and rocm-graphics.list") {
  MemoryFileSystem fs;
  fs.add_file("/etc/apt/sources.list.d/amdgpu.list",
              "deb [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/amdgpu/30.10/ubuntu "
              "noble main\n"
              "#deb-src [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] "
              "https://repo.radeon.com/amdgpu/30.10/ubuntu noble main\n");
  fs.add_file(
      "/etc/apt/sources.list.d/rocm.list",
      "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/7.0 noble main\n");
  fs.add_file("/etc/apt/sources.list.d/rocm-graphics.list",
              "deb [arch=amd64,i386 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/graphics/7.0/ubuntu "
              "noble main\n");
  auto files = read_apt_sources(fs);
  REQUIRE(files.size() == 3);
  CHECK(files[0].path == "/etc/apt/sources.list.d/amdgpu.list");
  const AptSourceEntry& amdgpu = only_entry(files[0]);
  CHECK(amdgpu.uris == Words{"https://repo.radeon.com/amdgpu/30.10/ubuntu"});
  CHECK(amdgpu.architectures == Words{"amd64", "i386"});
  CHECK(amdgpu.signed_by == Words{"/etc/apt/keyrings/rocm.gpg"});
  CHECK(files[1].path == "/etc/apt/sources.list.d/rocm-graphics.list");
  CHECK(only_entry(files[1]).uris == Words{"https://repo.radeon.com/graphics/7.0/ubuntu"});
  const AptSourceEntry& rocm = only_entry(files[2]);
  CHECK(rocm.uris == Words{"https://repo.radeon.com/rocm/apt/7.0"});
  CHECK(rocm.suites == Words{"noble"});
  CHECK(rocm.components == Words{"main"});
  CHECK(rocm.architectures == Words{"amd64"});
  CHECK_FALSE(remove_apt_source_entries(files[0], {0}));  // the commented deb-src line is no reason to keep it
}

TEST_CASE("amdgpu-install's older lists, keyed through trusted.gpg.d, and AMD's manual instructions") {
  AptSourceEntry legacy = one_line("deb [arch=amd64] https://repo.radeon.com/rocm/apt/6.4.2 noble main");
  CHECK(legacy.signed_by.empty());  // the key is /etc/apt/trusted.gpg.d/rocm-keyring.gpg, trusted for every source
  CHECK(legacy.architectures == Words{"amd64"});
  AptSourceEntry manual = one_line(
      "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/amdgpu/6.4.2/ubuntu jammy main");
  CHECK(manual.uris == Words{"https://repo.radeon.com/amdgpu/6.4.2/ubuntu"});
  CHECK(manual.suites == Words{"jammy"});
  CHECK(manual.signed_by == Words{"/etc/apt/keyrings/rocm.gpg"});
}

TEST_CASE("NVIDIA cuda-keyring's list") {
  AptSourcesFile f =
      parse_apt_sources("/etc/apt/sources.list.d/cuda-wsl-ubuntu-x86_64.list",
                        "deb [signed-by=/usr/share/keyrings/cuda-archive-keyring.gpg] "
                        "https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/ /\n");
  const AptSourceEntry& e = only_entry(f);
  CHECK(e.types == Words{"deb"});
  CHECK(e.uris == Words{"https://developer.download.nvidia.com/compute/cuda/repos/wsl-ubuntu/x86_64/"});
  CHECK(e.suites == Words{"/"});
  CHECK(e.components.empty());
  CHECK(e.signed_by == Words{"/usr/share/keyrings/cuda-archive-keyring.gpg"});
  CHECK(e.architectures.empty());
}
