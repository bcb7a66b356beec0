#include <doctest/doctest.h>

#include <string>

#include "installer/formats/wheel_name.hpp"

using namespace wslgpu;

namespace {

WheelName wheel_named(const std::string& file) {
  std::string error;
  auto w = parse_wheel_name(file, error);
  INFO(error);
  REQUIRE(w.has_value());
  return *w;
}

std::string wheel_name_error(const std::string& file) {
  std::string error;
  CHECK_FALSE(parse_wheel_name(file, error).has_value());
  return error;
}

// "" when WHEEL runs on CPython 3.MINOR x86_64, else why not.
std::string why_wheel_refused(const std::string& file, int minor, const std::string& arch = "x86_64") {
  std::string why;
  PythonTarget py;
  py.minor = minor;
  py.arch = arch;
  bool runs = wheel_runs_on(wheel_named(file), py, why);
  CHECK(runs == why.empty());
  return why;
}

}  // namespace

TEST_CASE("a ROCm torch wheel's name is read percent-decoded, with its local version") {
  auto w = wheel_named("torch-2.9.1%2Brocm7.2.2.lw.git127a149a-cp312-cp312-linux_x86_64.whl");
  CHECK(w.distribution == "torch");
  CHECK(w.version == "2.9.1+rocm7.2.2.lw.git127a149a");
  CHECK(w.build.empty());
  CHECK(w.python_tags == std::vector<std::string>{"cp312"});
  CHECK(w.abi_tags == std::vector<std::string>{"cp312"});
  CHECK(w.platform_tags == std::vector<std::string>{"linux_x86_64"});
}

TEST_CASE("an underscored distribution with a literal '+' in its version reads as written") {
  auto w = wheel_named("pytorch_triton_rocm-3.2.0+rocm6.4.2.git7e948ebf-cp310-cp310-linux_x86_64.whl");
  CHECK(w.distribution == "pytorch_triton_rocm");
  CHECK(w.version == "3.2.0+rocm6.4.2.git7e948ebf");
  CHECK(normalize_project_name(w.distribution) == "pytorch-triton-rocm");
}

TEST_CASE("compressed tag sets and a build tag are split into their parts") {
  auto w = wheel_named("six-1.16.0-py2.py3-none-any.whl");
  CHECK(w.python_tags == std::vector<std::string>{"py2", "py3"});
  CHECK(w.platform_tags == std::vector<std::string>{"any"});

  auto b = wheel_named("numpy-2.1.0-1build2-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
  CHECK(b.build == "1build2");
  CHECK(b.version == "2.1.0");
  CHECK(b.platform_tags == std::vector<std::string>{"manylinux_2_17_x86_64", "manylinux2014_x86_64"});
}

TEST_CASE("names that are not wheels' are refused with what a wheel's name looks like") {
  CHECK(wheel_name_error("torch-2.9.1-cp312-linux_x86_64.whl").find("five or six parts") != std::string::npos);
  CHECK(wheel_name_error("torch-2.9.1-cp312-linux_x86_64.whl").find("this one has 4") != std::string::npos);
  CHECK(wheel_name_error("torch-2.9.1-cp312-cp312-linux_x86_64.tar.gz").find("does not end in .whl") !=
        std::string::npos);
  CHECK(wheel_name_error(".whl").find("does not end in .whl") != std::string::npos);
  CHECK(wheel_name_error("a-b-c-d-e-f-g.whl").find("has 7") != std::string::npos);
  // An encoded '-' does not make a sixth part, but it is no name character either.
  CHECK(wheel_name_error("tor%2Dch-2.9.1-cp312-cp312-linux_x86_64.whl").find("distribution \"tor-ch\"") !=
        std::string::npos);
  CHECK(wheel_name_error("torch-two-cp312-cp312-linux_x86_64.whl").find("version \"two\"") != std::string::npos);
  CHECK(wheel_name_error("torch-2.9-x1-cp312-cp312-linux_x86_64.whl").find("build tag \"x1\"") != std::string::npos);
  CHECK(wheel_name_error("torch-2.9--cp312-linux_x86_64.whl").find("tag \"\"") != std::string::npos);
}

TEST_CASE("a wheel runs on the CPython its tags name, and not on another") {
  CHECK(why_wheel_refused("torch-2.9.1%2Brocm7.2.2-cp312-cp312-linux_x86_64.whl", 12) == "");
  CHECK(why_wheel_refused("pytorch_triton_rocm-3.2.0+rocm6.4.2.git7e948ebf-cp310-cp310-linux_x86_64.whl", 12) ==
        "cp310: CPython 3.10, and this Python is 3.12");
  CHECK(why_wheel_refused("torch-2.9.1-cp313-cp313-manylinux_2_28_x86_64.whl", 12) ==
        "cp313: CPython 3.13, and this Python is 3.12");
}

TEST_CASE("pure-Python and abi3 wheels run on every CPython they allow") {
  CHECK(why_wheel_refused("filelock-3.16.1-py3-none-any.whl", 12) == "");
  CHECK(why_wheel_refused("six-1.16.0-py2.py3-none-any.whl", 10) == "");
  CHECK(why_wheel_refused("old-1.0-py2-none-any.whl", 12) == "py2: Python 2, and this Python is 3.12");
  CHECK(why_wheel_refused("new-1.0-py313-none-any.whl", 12) == "py313: Python 3.13 or newer, and this Python is 3.12");
  // abi3 built for 3.8 runs on every later CPython, not on an earlier one.
  CHECK(why_wheel_refused("cryptography-43.0.0-cp38-abi3-manylinux_2_28_x86_64.whl", 12) == "");
  CHECK(why_wheel_refused("cryptography-43.0.0-cp313-abi3-manylinux_2_28_x86_64.whl", 12) ==
        "cp313-abi3: CPython 3.13 or newer, and this Python is 3.12");
  CHECK(why_wheel_refused("x-1.0-cp312-none-any.whl", 12) == "");
  CHECK(why_wheel_refused("x-1.0-pp310-pypy310_pp73-manylinux_2_17_x86_64.whl", 10).find("another Python") !=
        std::string::npos);
}

TEST_CASE("a wheel for another machine or libc does not run, whatever its Python") {
  CHECK(why_wheel_refused("torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64.whl", 12) == "");
  CHECK(why_wheel_refused("torch-2.9.1-cp312-cp312-manylinux2014_x86_64.whl", 12) == "");
  CHECK(why_wheel_refused("torch-2.9.1-cp312-cp312-manylinux_2_28_aarch64.whl", 12) ==
        "manylinux_2_28_aarch64: built for aarch64, and this machine is x86_64");
  CHECK(why_wheel_refused("torch-2.9.1-cp312-cp312-linux_aarch64.whl", 12, "aarch64") == "");
  CHECK(why_wheel_refused("x-1.0-cp312-cp312-musllinux_1_2_x86_64.whl", 12).find("musl") != std::string::npos);
  CHECK(why_wheel_refused("torch-2.9.1-cp312-cp312-win_amd64.whl", 12).find("another operating system") !=
        std::string::npos);
  // One runnable platform of a compressed set is enough.
  CHECK(why_wheel_refused("x-1.0-cp312-cp312-musllinux_1_2_x86_64.manylinux_2_17_x86_64.whl", 12) == "");
}

TEST_CASE("project names normalize as PEP 503 says") {
  CHECK(normalize_project_name("Pytorch_Triton.ROCm") == "pytorch-triton-rocm");
  CHECK(normalize_project_name("a--_.b") == "a-b");
  CHECK(normalize_project_name("torch") == "torch");
}

TEST_CASE("percent-decoding keeps a '%' that starts no escape") {
  CHECK(percent_decode("2.9.1%2Brocm") == "2.9.1+rocm");
  CHECK(percent_decode("100%") == "100%");
  CHECK(percent_decode("%2") == "%2");
  CHECK(percent_decode("%zz%41") == "%zzA");
}

TEST_CASE("a staged wheel's path becomes a file URL pip reads back, a space and a quote encoded") {
  CHECK(file_url("/home/alice/.venvs/pytorch/.wslgpu-setup-wheels/torch-2.9.1+rocm7.2.2-cp312-cp312-linux_x86_64.whl") ==
        "file:///home/alice/.venvs/pytorch/.wslgpu-setup-wheels/torch-2.9.1+rocm7.2.2-cp312-cp312-linux_x86_64.whl");
  const std::string odd = "/home/alice/ML envs/it's #1 %/x.whl";
  CHECK(file_url(odd) == "file:///home/alice/ML%20envs/it%27s%20%231%20%25/x.whl");
  CHECK(percent_decode(file_url(odd).substr(7)) == odd);
  CHECK(file_url("/home/ä").find_first_of("\xc3\xa4 ") == std::string::npos);
}
