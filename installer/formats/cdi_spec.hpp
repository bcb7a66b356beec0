// Container Device Interface (CDI) specs: the YAML or JSON files in /etc/cdi
// and /var/run/cdi that tell podman, containerd and CRI-O what
// `--device vendor.com/class=name` gives a container (device nodes, bind
// mounts, environment, hooks). The format is cncf-tags/container-device-
// interface's SPEC.md; its schema is schema/schema.json and defs.json there.
//
// The reader takes a spec as data (YAML, of which JSON is a subset, read
// with yaml-cpp's YAML 1.2 core schema rules for unquoted scalars), checks
// what SPEC.md calls required and the type of every field it knows, and
// reports the first problem at its LINE:COLUMN. Fields it does not know are
// kept in the data and not checked, as the schema allows them.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "installer/system/filesystem.hpp"

namespace wslgpu {

// A spec that cannot be read, or breaks the format: what() is
// "LINE:COLUMN: message" (1-based; 0:0 when there is no place to name).
class CdiSpecError : public std::runtime_error {
 public:
  CdiSpecError(std::uint32_t line, std::uint32_t column, const std::string& message);
  std::uint32_t line() const { return line_; }
  std::uint32_t column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  std::uint32_t line_;
  std::uint32_t column_;
  std::string message_;
};

struct CdiDeviceNode {
  std::string path;       // in the container
  std::string host_path;  // on the host: "hostPath", else the same as PATH
};

struct CdiMount {
  std::string host_path;
  std::string container_path;
  std::vector<std::string> options;
  std::string type;  // "" when not given
};

struct CdiHook {
  std::string hook_name;  // createContainer, ...
  std::string path;
  std::vector<std::string> args;
};

struct CdiContainerEdits {
  std::vector<std::string> env;  // "NAME=VALUE"
  std::vector<CdiDeviceNode> device_nodes;
  std::vector<CdiMount> mounts;
  std::vector<CdiHook> hooks;
};

struct CdiDevice {
  std::string name;  // the part after '=' in `--device vendor.com/class=name`
  CdiContainerEdits edits;
};

struct CdiSpec {
  std::string cdi_version;  // "0.3.0"
  std::string kind;         // "nvidia.com/gpu"
  std::vector<CdiDevice> devices;
  CdiContainerEdits edits;  // applied when any device of the spec is asked for
  nlohmann::json data;      // the whole document, for comparison as data
};

// The document in TEXT as JSON data; throws CdiSpecError on YAML or JSON
// that does not parse, a repeated key, or a document too large or too deep
// to be a spec (aliases are expanded, so a few lines can name millions of
// nodes). Checks nothing of the CDI format.
nlohmann::json cdi_spec_to_json(const std::string& text);

// The spec in TEXT, checked as above; throws CdiSpecError.
CdiSpec read_cdi_spec(const std::string& text);

// SPEC (CDI data) as YAML, keys in the order the schema lists them (unknown
// ones after, sorted), strings quoted where YAML would read them otherwise.
// cdi_spec_to_json(write_cdi_spec(d)) == d for any JSON data D.
std::string write_cdi_spec(const nlohmann::json& spec);

// Every host path SPEC names, each once, in the order met: device nodes'
// host paths, mounts' host paths and hooks' paths, the common edits first.
// Doctor and plan check these for a spec gone stale (a Windows driver update
// renames NVIDIA's driver store folder under /usr/lib/wsl/drivers).
std::vector<std::string> cdi_host_paths(const CdiSpec& spec);

// The spec versions SPEC.md's table lists that loaders take (0.3.0, the
// earliest CDI's loader accepts, to 1.1.0), oldest first.
const std::vector<std::string>& cdi_known_versions();

// The oldest of them whose features SPEC uses (SPEC.md's "Released
// versions" table: a mount's type 0.4.0; a device node's hostPath and a
// device name starting with a digit 0.5.0; annotations and a dot in the
// kind's name 0.6.0; intelRdt and additionalGids 0.7.0; netDevices 1.1.0).
std::string cdi_minimum_version(const nlohmann::json& spec);

// The folders CDI reads specs from, in its order: /etc/cdi, then
// /var/run/cdi (container-device-interface, pkg/cdi/spec-dirs.go,
// DefaultSpecDirs). The one list the step, `containers flags` and doctor use.
const std::vector<std::string>& cdi_spec_dirs();

// Whether CDI reads the file NAME of those folders as a spec: its name ends
// in .json or .yaml (spec-dirs.go takes filepath.Ext(path) of ".json" or
// ".yaml", and skips every other file and every sub-folder).
bool is_cdi_spec_name(std::string_view name);

// One spec file of the folders, read or not.
struct CdiSpecFile {
  std::string path;                   // target path: "/etc/cdi/amd-wsl.yaml"
  std::optional<CdiSpec> spec;        // when it reads as a CDI spec
  std::optional<CdiSpecError> error;  // else why not (0:0 when it could not be read at all)

  // "PATH:LINE:COLUMN: message" (or "PATH: message"), for an unread one.
  std::string problem() const;
};

// Every regular file of cdi_spec_dirs() that is_cdi_spec_name() takes, in
// CDI's order (folder, then name), each read with read_cdi_spec(): one that
// does not read is listed with its error, so that a broken unrelated spec
// never hides the others. A folder that does not exist has none.
std::vector<CdiSpecFile> scan_cdi_specs(const FileSystem& fs);

// Whether NAME is a valid CDI kind ("vendor.com/class") or device name, as
// SPEC.md defines them; "" when it is, else why not.
std::string cdi_kind_problem(const std::string& kind);
std::string cdi_device_name_problem(const std::string& name);

}  // namespace wslgpu
