#include "installer/formats/cdi_docker_flags.hpp"

#include <algorithm>
#include <stdexcept>

namespace wslgpu {

namespace {

void add_edits(const CdiContainerEdits& edits, DockerFlags& out) {
  for (const auto& node : edits.device_nodes) {
    const std::string& host = node.host_path.empty() ? node.path : node.host_path;
    out.flags.push_back(host == node.path ? "--device=" + node.path : "--device=" + host + ":" + node.path);
  }
  for (const auto& m : edits.mounts) {
    bool ro = std::find(m.options.begin(), m.options.end(), "ro") != m.options.end();
    out.flags.push_back("-v " + m.host_path + ":" + m.container_path + (ro ? ":ro" : ""));
  }
  for (const auto& e : edits.env) out.flags.push_back("-e " + e);
  for (const auto& h : edits.hooks) out.hooks.push_back(h.path);
}

}  // namespace

DockerFlags docker_flags(const CdiSpec& spec, const std::string& name) {
  auto device = std::find_if(spec.devices.begin(), spec.devices.end(), [&](const auto& d) { return d.name == name; });
  if (device == spec.devices.end())
    throw std::invalid_argument("the spec of " + spec.kind + " has no device \"" + name + "\"");
  DockerFlags out;
  add_edits(spec.edits, out);
  add_edits(device->edits, out);
  return out;
}

}  // namespace wslgpu
