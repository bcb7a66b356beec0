// What a Python distribution asks of others, as its METADATA says it
// (`Requires-Dist: numpy>=1.22; python_version >= "3.10"`), and the pieces
// that reading needs:
//   - versions and version specifiers, PEP 440 as the PyPA keeps it:
//     https://packaging.python.org/en/latest/specifications/version-specifiers/
//     (parsing, ordering, `== != >= <= > < ~= ===` and `==X.*`);
//   - requirements and environment markers, PEP 508:
//     https://packaging.python.org/en/latest/specifications/dependency-specifiers/
//     (name, extras, specifiers or `@ URL`, `; marker`), evaluated for the
//     CPython on Linux a venv of this tool holds.
// Enough to pick the newest version of a project that fits, as pip would,
// for an estimate of what pip will download (installer/net/wheel_sizes.hpp);
// pip itself still resolves what it installs.
//
// Also the two checks the python_packages step makes of a manifest's names
// and versions before any of them reaches pip's command line.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "installer/formats/wheel_name.hpp"

namespace wslgpu {

// PEP 508's name: ^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$, case-insensitive.
bool valid_pep508_name(const std::string& name);

// A PEP 440 version or its prefix pattern as pip reads it after "==":
// letters, digits and . + ! _ *, starting with a letter or digit. (Text
// only: that nothing can be read as a pip option; parse_python_version()
// says whether it is a version.)
bool valid_pip_version(const std::string& version);

// A PEP 440 version, normalized: "1.0.0RC1" is release {1,0,0}, pre rc 1;
// "2.9.1+rocm7.2.2.lw.git127a149a" has the local label
// {"rocm7","2","2","lw","git127a149a"}.
struct PythonVersion {
  std::uint64_t epoch = 0;
  std::vector<std::uint64_t> release;  // at least one number
  std::string pre_kind;                // "a", "b", "rc", or "" for none
  std::uint64_t pre_number = 0;
  std::optional<std::uint64_t> post;
  std::optional<std::uint64_t> dev;
  std::vector<std::string> local;  // lowercase, split at '.', '-' and '_'
  std::string text;                // as written, without blanks around (what === compares)

  // A pre-release or a development release ("2.0rc1", "2.0.dev3").
  bool is_prerelease() const { return !pre_kind.empty() || dev.has_value(); }
  // The normalized form ("1!2.0rc1.post2.dev3+local.7").
  std::string str() const;
};

// TEXT as a PEP 440 version (the spec's permissive reading: a leading 'v',
// "alpha"/"beta"/"c"/"pre"/"preview" spellings, '-', '_' or '.' between the
// parts, implicit numbers, blanks around), or nullopt when it is none. A
// number too large for 64 bits is refused rather than wrapped.
std::optional<PythonVersion> parse_python_version(std::string_view text);

// PEP 440's order: negative, zero or positive as A is older, the same or
// newer than B. The local label counts (1.0 < 1.0+cu130); zeros at the end
// of the release do not (1.0 == 1.0.0).
int compare_python_versions(const PythonVersion& a, const PythonVersion& b);

// One clause of a version specifier: ">=2.0", "==2.14.*", "===weird".
struct VersionClause {
  std::string op;          // "==", "!=", ">=", "<=", ">", "<", "~=", "==="
  PythonVersion version;   // unset for "==="
  bool wildcard = false;   // "==X.*" / "!=X.*"
  std::string arbitrary;   // "===": the text compared as a string
};

// A version specifier: clauses separated by commas, all of which must hold.
// Empty: any version.
struct VersionSpecifier {
  std::vector<VersionClause> clauses;

  // Whether a clause names a pre-release (">=2.0rc1", "==2.0b2"): then
  // pre-releases satisfy it like any other version.
  bool names_prerelease() const;
  // ">=1.0, <2" as it was read, normalized.
  std::string str() const;
};

// TEXT (">= 1.0, < 2", "==2.14.*", "" for any) as a specifier, or nullopt
// with ERROR saying which clause is wrong and why ("\"~=1\": ~= needs a
// version of two or more numbers, such as ~=1.4").
std::optional<VersionSpecifier> parse_version_specifier(std::string_view text, std::string& error);

// Whether VERSION satisfies SPEC. PEP 440 leaves pre-releases out unless
// the specifier names one (PreReleases::when_named) or the caller takes
// them anyway: one already installed, or when no final release fits
// (PreReleases::allowed).
enum class PreReleases { when_named, allowed };
bool version_satisfies(const PythonVersion& version, const VersionSpecifier& spec,
                       PreReleases pre = PreReleases::when_named);

// The values a marker may name (PEP 508, "Environment Markers"), for one
// interpreter. platform_release and platform_version (the kernel's) are
// not known for a venv planned from its files and stay "".
struct MarkerEnvironment {
  std::string python_version;       // "3.12"
  std::string python_full_version;  // "3.12.3"
  std::string implementation_version;
  std::string os_name = "posix";
  std::string sys_platform = "linux";
  std::string platform_system = "Linux";
  std::string platform_machine = "x86_64";
  std::string platform_python_implementation = "CPython";
  std::string implementation_name = "cpython";
  std::string platform_release;
  std::string platform_version;
};

// The environment of CPython TARGET on Linux. FULL_VERSION is the venv's
// "3.12.3" (pyvenv.cfg); "" stands for "MAJOR.MINOR", which compares as
// MAJOR.MINOR.0.
MarkerEnvironment marker_environment(const PythonTarget& target, const std::string& full_version = "");

// A parsed marker ("python_version >= '3.10' and sys_platform != 'win32'").
struct MarkerNode;
struct Marker {
  std::shared_ptr<const MarkerNode> root;
};

// TEXT as a marker, or nullopt with ERROR naming the column (1-based) and
// what was expected there. Unknown variable names are errors, as they are
// for pip. Parentheses nest at most 32 deep.
std::optional<Marker> parse_marker(std::string_view text, std::string& error);

// Whether MARKER holds in ENV with the extras EXTRAS requested: `extra ==
// "x"` holds when x is one of them (names compared normalized, PEP 685);
// with none requested, `extra` is "". A comparison of two versions uses
// PEP 440 (pre-releases included); any other, Python's string order.
bool marker_holds(const Marker& marker, const MarkerEnvironment& env, const std::vector<std::string>& extras = {});

// One PEP 508 requirement: `torch[opt] >=2.0, <3 ; python_version > "3.9"`,
// `name (>=1.0)` (the older METADATA spelling) or `name @ URL ; marker`.
struct PythonRequirement {
  std::string name;                 // as written
  std::vector<std::string> extras;  // as written
  VersionSpecifier specifier;       // empty for any version, or with a URL
  std::string url;                  // "" unless `@ URL`
  std::optional<Marker> marker;     // none: always applies
};

// LINE as a requirement, or nullopt with ERROR saying what is wrong and at
// which column (1-based).
std::optional<PythonRequirement> parse_python_requirement(std::string_view line, std::string& error);

// Whether REQUIREMENT applies in ENV when EXTRAS of the distribution that
// asks for it are requested: no marker, or its marker holds.
bool requirement_applies(const PythonRequirement& requirement, const MarkerEnvironment& env,
                         const std::vector<std::string>& extras = {});

}  // namespace wslgpu
