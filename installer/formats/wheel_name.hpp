// What a wheel's file name says (the binary distribution format, PEP 427,
// with the platform tags of PEP 425, 600 and 656): which distribution and
// version it holds, and which Pythons and machines it runs on. Read from the
// name alone, so that a plan can refuse a wheel this Python cannot install
// before anything is downloaded.
//
//   torch-2.9.1%2Brocm7.2.2.lw.git127a149a-cp312-cp312-linux_x86_64.whl
//   name  version (the "+" percent-encoded in a URL)   python abi  platform
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wslgpu {

struct WheelName {
  std::string distribution;  // as written in the file name ("pytorch_triton_rocm")
  std::string version;       // "2.9.1+rocm7.2.2.lw.git127a149a" (percent-decoded)
  std::string build;         // the optional build tag, "" when absent
  std::vector<std::string> python_tags;    // "cp312", "py3" (a compressed set "py2.py3" split)
  std::vector<std::string> abi_tags;       // "cp312", "abi3", "none"
  std::vector<std::string> platform_tags;  // "linux_x86_64", "manylinux_2_28_x86_64", "any"
};

// The interpreter a wheel must run on: CPython MAJOR.MINOR on ARCH.
struct PythonTarget {
  int major = 3;
  int minor = 0;
  std::string arch = "x86_64";
  std::string tag() const { return "cp" + std::to_string(major) + std::to_string(minor); }  // "cp312"
};

// Parses FILENAME (the last component of a path or URL, percent-encoding
// allowed): NAME-VERSION(-BUILD)?-PY-ABI-PLATFORM.whl. On failure returns
// nullopt and sets ERROR to why ("a wheel's name has five or six parts
// separated by '-', ...").
std::optional<WheelName> parse_wheel_name(std::string_view filename, std::string& error);

// Whether CPython TARGET can install WHEEL: a python tag cpXY equal to it,
// or pyX / pyXY / cp3Y with abi3 not newer than it; an abi tag that is its
// own (cpXY), abi3 or none; a platform "any", linux_ARCH or manylinux*_ARCH
// / musllinux is not glibc and does not run. When it cannot, WHY says what the
// wheel needs ("cp310: CPython 3.10, and this Python is 3.12").
bool wheel_runs_on(const WheelName& wheel, const PythonTarget& target, std::string& why);

// A project name as PEP 503 normalizes it: lowercase, every run of '-', '_'
// and '.' one '-' ("Pytorch_Triton.ROCm" -> "pytorch-triton-rocm").
std::string normalize_project_name(std::string_view name);

// %XX decoded ("2.9.1%2Brocm" -> "2.9.1+rocm"); a '%' not followed by two
// hex digits is kept as written.
std::string percent_decode(std::string_view text);

// "file://" + PATH with every byte but letters, digits, "-._~", '/' and '+'
// percent-encoded ("/home/alice/ML envs/x.whl" -> "file:///home/alice/ML%20envs/x.whl"):
// a URL pip reads back as PATH (a space in a PEP 508 "NAME @ URL" ends the URL).
std::string file_url(std::string_view path);

// A URL's file name: url_file_name() of steps/download.hpp (one definition
// for every kind that fetches).

}  // namespace wslgpu
