// Doctor, Containers group, `doctor --image NAME`: whether a local image
// ships its own copy of the driver libraries the NVIDIA runtime mounts from
// the Windows driver (libnvidia-ml.so.1, libcuda.so.1), which makes the
// container fail to start with "file exists" (github.com/microsoft/WSL
// issue 7230). The image is read, never started: `docker image save NAME`
// (or podman's) writes the image as a tar of layer tars, and every layer is
// listed with libarchive. Nothing is pulled: a NAME that is not local is
// reported as such. Without --image this check says nothing.
//
// The saved archive is read from memory (the ProcessRunner captures the
// program's output), so an image of several GB needs as much memory.
#include <archive.h>
#include <archive_entry.h>

#include <string>
#include <vector>

#include "installer/doctor/checks.hpp"
#include "installer/formats/archive_api.hpp"
#include "installer/host/container_engines.hpp"

namespace wslgpu::doctor {

namespace {

constexpr const char* kImageGroup = "Containers";

// Where the runtime puts the driver's libraries: Debian/Ubuntu and RHEL layouts.
const std::vector<std::string> kDriverLibraries = {"usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
                                                   "usr/lib64/libnvidia-ml.so.1",
                                                   "usr/lib/x86_64-linux-gnu/libcuda.so.1", "usr/lib64/libcuda.so.1"};

// "usr/lib/x" from "./usr/lib/x" or "/usr/lib/x".
std::string entry_path(const char* raw) {
  std::string p = raw ? raw : "";
  while (p.rfind("./", 0) == 0) p.erase(0, 2);
  while (!p.empty() && p.front() == '/') p.erase(0, 1);
  return p;
}

// Feeds a nested archive from the current entry of OUTER.
struct NestedSource {
  const ArchiveApi* api;
  struct archive* outer;
  char buffer[64 * 1024];
};

la_ssize_t read_nested(struct archive*, void* data, const void** block) {
  auto* src = static_cast<NestedSource*>(data);
  *block = src->buffer;
  return src->api->read_data(src->outer, src->buffer, sizeof src->buffer);
}

struct Hit {
  std::string layer;  // the layer's file in the saved archive
  std::string path;   // the library's path in the layer
};

// The driver libraries in the layer that is OUTER's current entry; false
// when the entry is not an archive (a config blob, a manifest).
bool scan_layer(const ArchiveApi& api, struct archive* outer, const std::string& layer, std::vector<Hit>& hits) {
  struct archive* inner = api.read_new();
  api.read_support_format_tar(inner);
  api.read_support_filter_all(inner);
  NestedSource src{&api, outer, {}};
  bool is_archive = false;
  if (api.read_open(inner, &src, nullptr, read_nested, nullptr) == ARCHIVE_OK) {
    struct archive_entry* entry = nullptr;
    int r = ARCHIVE_OK;
    while ((r = api.read_next_header(inner, &entry)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
      is_archive = true;
      std::string path = entry_path(api.entry_pathname(entry));
      for (const auto& lib : kDriverLibraries)
        if (path == lib) hits.push_back(Hit{layer, path});
      api.read_data_skip(inner);
    }
  }
  api.read_free(inner);
  return is_archive;
}

}  // namespace

void check_container_image(DoctorScan& scan, const ContainerEngines& engines) {
  const std::string& image = scan.machine.image;
  if (image.empty()) return;
  const std::string id = "containers.image-driver-libraries";
  std::string engine;
  if (engines.docker_desktop || engines.docker_engine || scan.exists("/usr/bin/docker"))
    engine = "/usr/bin/docker";
  else if (engines.podman || scan.exists("/usr/bin/podman"))
    engine = "/usr/bin/podman";
  if (engine.empty()) {
    scan.add(id, kImageGroup, FindingStatus::warn,
             "cannot inspect image " + image + ": neither docker nor podman is installed",
             "--image reads a local image with `docker image save` or `podman image save`.",
             "Install Docker or Podman, or leave --image out.");
    return;
  }
  Command cmd;
  cmd.argv = {engine, "image", "save", image};
  // Saving an image takes longer than a probe; it still must not hang.
  cmd.timeout = scan.machine.command_timeout * 20;
  ProcessResult saved = scan.machine.runner.run(cmd);
  const std::string shown = "`" + engine.substr(engine.rfind('/') + 1) + " image save " + image + "`";
  if (!saved.ok()) {
    std::vector<std::string> said = active_lines(saved.err);
    std::string why = saved.timed_out   ? "did not finish in time"
                      : saved.not_found ? "could not be run"
                      : said.empty()    ? "failed (exit " + std::to_string(saved.exit_code) + ")"
                                        : "failed: " + said.front();
    scan.add(id, kImageGroup, FindingStatus::warn, "cannot inspect image " + image + ": " + shown + " " + why,
             "doctor reads only local images and never pulls one; the daemon must be running.",
             "Check the name with `docker images` (or `podman images`); pull it yourself first if it is not local.");
    return;
  }

  const ArchiveApi& api = archive_api();
  struct archive* outer = api.read_new();
  api.read_support_format_tar(outer);
  api.read_support_filter_all(outer);
  std::vector<Hit> hits;
  std::size_t layers = 0;
  std::string problem;
  if (api.read_open_memory(outer, saved.out.data(), saved.out.size()) != ARCHIVE_OK) {
    problem = api.error_string(outer) ? api.error_string(outer) : "not an archive";
  } else {
    struct archive_entry* entry = nullptr;
    int r = ARCHIVE_OK;
    while ((r = api.read_next_header(outer, &entry)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
      if (api.entry_filetype(entry) != AE_IFREG) continue;
      std::string name = entry_path(api.entry_pathname(entry));
      if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) continue;
      if (scan_layer(api, outer, name, hits)) ++layers;
    }
    if (r != ARCHIVE_EOF) problem = api.error_string(outer) ? api.error_string(outer) : "a damaged archive";
  }
  api.read_free(outer);
  if (!problem.empty()) {
    scan.add(
        id, kImageGroup, FindingStatus::warn,
        "cannot inspect image " + image + ": the output of " + shown + " is not a readable archive (" + problem + ")",
        "", "Check `docker image save " + image + " | tar -t` by hand.");
    return;
  }
  if (hits.empty()) {
    scan.add(id, kImageGroup, FindingStatus::ok,
             "image " + image + " has no libnvidia-ml.so.1 or libcuda.so.1 of its own (" + std::to_string(layers) +
                 (layers == 1 ? " layer" : " layers") + " read)");
    return;
  }
  std::vector<std::string> where;
  for (const auto& h : hits) where.push_back(h.path + " in layer " + h.layer);
  scan.add(id, kImageGroup, FindingStatus::fail,
           "image " + image + " ships driver libraries of its own: " + join_words(where, ", "),
           "The NVIDIA runtime mounts the Windows driver's libnvidia-ml.so.1 and libcuda.so.1 at these paths; an "
           "image that already has a file there fails to start with \"file exists\" (microsoft/WSL issue 7230).",
           "Rebuild the image without them (the driver's libraries come from the host: in the Dockerfile, remove "
           "them in the same layer that installs them), or base it on an nvidia/cuda image, which leaves them out.");
}

}  // namespace wslgpu::doctor
