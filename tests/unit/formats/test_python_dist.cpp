#include <doctest/doctest.h>

#include <string>

#include "installer/formats/python_dist.hpp"
#include "installer/system/error.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::MemoryFileSystem;

TEST_CASE("pyvenv.cfg as the venv module writes it gives home and version") {
  auto cfg = parse_pyvenv_cfg(
      "home = /usr/bin\n"
      "include-system-site-packages = false\n"
      "version = 3.12.3\n"
      "executable = /usr/bin/python3.12\n"
      "command = /usr/bin/python3 -m venv /home/alice/venv\n");
  CHECK(cfg.home == "/usr/bin");
  CHECK(cfg.version == "3.12.3");
  CHECK_FALSE(cfg.include_system_site_packages);
}

TEST_CASE("pyvenv.cfg as virtualenv writes it gives the version from version_info") {
  auto cfg = parse_pyvenv_cfg(
      "home = /usr/bin\r\n"
      "implementation = CPython\r\n"
      "version_info = 3.11.2.final.0\r\n"
      "virtualenv = 20.26.6\r\n"
      "include-system-site-packages = True\r\n");
  CHECK(cfg.version == "3.11.2");
  CHECK(cfg.include_system_site_packages);
  CHECK(parse_pyvenv_cfg("home = /usr/bin\n").version == "");
  // Both written: the venv module's own key wins.
  CHECK(parse_pyvenv_cfg("version_info = 3.12.1.final.0\nversion = 3.12.3\n").version == "3.12.3");
}

TEST_CASE("METADATA's name and version come from the header, never the body") {
  auto m = parse_metadata(
      "Metadata-Version: 2.1\n"
      "Name: pytorch-triton-rocm\n"
      "Version: 3.2.0+rocm6.4.2.git7e948ebf\n"
      "Summary: A language and compiler for custom Deep Learning operations\n"
      "License: MIT\n"
      "Description: a long\n"
      "        Name: continued text that looks like a field\n"
      "Requires-Dist: filelock\n"
      "\n"
      "Name: body text\n"
      "Version: 0\n");
  CHECK(m.name == "pytorch-triton-rocm");
  CHECK(m.version == "3.2.0+rocm6.4.2.git7e948ebf");
  auto crlf = parse_metadata("metadata-version: 2.1\r\nname:torch\r\nversion:  2.9.1 \r\n\r\nbody");
  CHECK(crlf.name == "torch");
  CHECK(crlf.version == "2.9.1");
  auto none = parse_metadata("\nName: after the blank line\n");
  CHECK(none.name.empty());
}

TEST_CASE("METADATA's Requires-Dist lines are kept in order, a folded one joined, the body's never") {
  auto m = parse_metadata(
      "Metadata-Version: 2.1\n"
      "Name: torch\n"
      "Requires-Dist: filelock\n"
      "Requires-Dist: typing-extensions>=4.10.0\n"
      "requires-dist: nvidia-cuda-runtime-cu12==12.8.90; platform_system == \"Linux\" and\n"
      "\t platform_machine == \"x86_64\"\n"
      "Requires-Python: >=3.9.0\n"
      "Description: a long\n"
      "        Requires-Dist: continued text that looks like a field\n"
      "\n"
      "Requires-Dist: body text\n");
  CHECK(m.requires_dist == std::vector<std::string>{
                               "filelock", "typing-extensions>=4.10.0",
                               "nvidia-cuda-runtime-cu12==12.8.90; platform_system == \"Linux\" and "
                               "platform_machine == \"x86_64\""});
}

TEST_CASE("RECORD rows keep quoted commas, doubled quotes and paths that leave site-packages") {
  auto rows = parse_record(
      "torch/__init__.py,sha256=AbC-_12,1234\n"
      "\"torch/lib/odd,name.so\",sha256=xyz,99\r\n"
      "\"say \"\"hi\"\".txt\",,\n"
      "../../../bin/torchrun,sha256=q,250\n"
      "\n"
      "torch-2.9.1.dist-info/RECORD,,\n"
      "\"unterminated,quote,keeps,the,rest\n");
  REQUIRE(rows.size() == 6);
  CHECK(rows[0].path == "torch/__init__.py");
  CHECK(rows[0].hash == "sha256=AbC-_12");
  CHECK(rows[0].size == "1234");
  CHECK(rows[1].path == "torch/lib/odd,name.so");
  CHECK(rows[1].size == "99");
  CHECK(rows[2].path == "say \"hi\".txt");
  CHECK(rows[2].hash == "");
  CHECK(rows[3].path == "../../../bin/torchrun");
  CHECK(rows[4].path == "torch-2.9.1.dist-info/RECORD");
  CHECK(rows[4].size == "");
  CHECK(rows[5].path == "unterminated,quote,keeps,the,rest");
}

TEST_CASE("a RECORD path resolves against site-packages, a script's ../../../bin/ into the venv") {
  const std::string site = "/home/alice/venv/lib/python3.12/site-packages";
  CHECK(record_target(site, "../../../bin/torchrun") == "/home/alice/venv/bin/torchrun");
  CHECK(record_target(site, "torch/./lib//x.so") == site + "/torch/lib/x.so");
  CHECK(record_target(site, "/usr/share/x") == "/usr/share/x");
  CHECK(record_target("/a", "../../../../x") == "/x");  // never above the root
}

TEST_CASE("a venv's site-packages and distributions are found from its files alone") {
  MemoryFileSystem fs;
  const std::string site = "/home/alice/venv/lib/python3.12/site-packages";
  fs.add_file("/home/alice/venv/pyvenv.cfg", "version = 3.12.3\n");
  fs.add_file(site + "/torch-2.8.0.dist-info/METADATA", "Name: torch\nVersion: 2.8.0\n");
  fs.add_file(site + "/Pytorch_Triton_ROCm-3.2.0.dist-info/METADATA", "Name: pytorch_triton_rocm\nVersion: 3.2.0\n");
  fs.add_file(site + "/half_removed-1.0.dist-info/RECORD", "");
  fs.add_file(site + "/fallback-0.1.dist-info/METADATA", "Metadata-Version: 2.1\n");
  fs.add_dir(site + "/torch");
  fs.add_file("/home/alice/venv/lib/python3.12/not-site/x", "");
  fs.add_file("/home/alice/venv/lib/README", "");

  CHECK(venv_site_packages(fs, "/home/alice/venv") == std::vector<std::string>{site});
  CHECK(venv_site_packages(fs, "/home/alice/none").empty());

  auto dists = installed_dists(fs, site);
  REQUIRE(dists.size() == 3);
  CHECK(dists[0].key == "fallback");
  CHECK(dists[0].version == "0.1");
  CHECK(dists[1].name == "pytorch_triton_rocm");
  CHECK(dists[1].key == "pytorch-triton-rocm");
  CHECK(dists[1].dist_info == site + "/Pytorch_Triton_ROCm-3.2.0.dist-info");
  CHECK(dists[2].key == "torch");
  CHECK(dists[2].version == "2.8.0");
}

TEST_CASE("the fake file system renames and removes folders as rename(2) and rmdir(2) do") {
  MemoryFileSystem fs;
  fs.add_file("/v/a/b/c", "x");
  fs.add_dir("/v/u");
  CHECK_THROWS_AS(fs.remove("/v/a"), StepFailure);                  // not empty
  CHECK_THROWS_AS(fs.rename("/v/a", "/v/missing/a"), StepFailure);  // no such folder
  fs.rename("/v/a", "/v/u/a");
  CHECK(fs.read("/v/u/a/b/c") == "x");
  CHECK_FALSE(fs.lstat("/v/a"));
  remove_tree(fs, "/v/u");
  CHECK_FALSE(fs.lstat("/v/u/a/b"));
  CHECK(fs.list("/v").empty());
}

TEST_CASE("METADATA's Provides-Extra lines are kept as written, the body's never") {
  auto m = parse_metadata("Metadata-Version: 2.1\nName: jax\nVersion: 0.11.0\nProvides-Extra: cuda12\n"
                          "provides-extra: CUDA13\nRequires-Dist: jaxlib\n\nProvides-Extra: not-header\n");
  CHECK(m.provides_extra == std::vector<std::string>{"cuda12", "CUDA13"});
  CHECK(m.requires_dist == std::vector<std::string>{"jaxlib"});
}
