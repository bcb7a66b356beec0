// A generated CDI spec inside a transaction: its bytes are known only once
// apply has run the program, yet the file it replaces is backed up before,
// the journal records the new file's SHA-256 for the drift check, and
// rollback puts the earlier file back byte for byte (mode too), or removes
// the new one with the folder made for it.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>

#include "installer/formats/sha256.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/planner/planner.hpp"
#include "installer/system/filesystem.hpp"
#include "installer/transaction/journal.hpp"
#include "installer/transaction/transaction.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::exited;
using wslgpu::testing::FakeProcessRunner;
using wslgpu::testing::TempDir;

namespace {

const std::string kPrinted =
    "---\ncdiVersion: 0.3.0\ncontainerEdits:\n  mounts:\n  - containerPath: /usr/lib/wsl/lib/libdxcore.so\n"
    "    hostPath: /usr/lib/wsl/lib/libdxcore.so\n    options:\n    - ro\n    - nosuid\n    - nodev\n    - bind\n"
    "devices:\n- containerEdits:\n    deviceNodes:\n    - path: /dev/dxg\n  name: all\nkind: nvidia.com/gpu\n";

struct CdiFixture {
  TempDir root;
  RootedFileSystem fs{root.path()};
  FakeProcessRunner runner;
  HostFacts host;

  CdiFixture() {
    host.root = root.path();
    runner.on({"nvidia-ctk", "cdi", "generate"}, exited(0, "", kPrinted));
  }

  Manifest manifest() {
    return load_manifest({"t.toml",
                          "[manifest]\nname = \"t\"\nschema_version = 1\n[[step]]\nid = \"cdi\"\nkind = \"cdi_spec\"\n"
                          "path = \"/etc/cdi/nvidia.yaml\"\n"
                          "generate = [\"nvidia-ctk\", \"cdi\", \"generate\", \"--mode=wsl\"]\n",
                          false},
                         {}, host);
  }
};

std::vector<nlohmann::json> cdi_records(const Journal& j, const std::string& type) {
  std::vector<nlohmann::json> out;
  for (const auto& r : j.records())
    if (r.value("type", "") == type) out.push_back(r);
  return out;
}

}  // namespace

TEST_CASE("a generated CDI spec is recorded with its SHA-256, and rollback restores the earlier file byte for byte") {
  CdiFixture f;
  // A hand-written spec, with bytes no writer of ours would produce.
  const std::string before = "# kept by hand\r\ncdiVersion: \"0.3.0\"\t\nkind: nvidia.com/gpu\ndevices: []\n";
  f.root.write("etc/cdi/nvidia.yaml", before);
  const std::string host_path = f.root.path() + "/etc/cdi/nvidia.yaml";
  ::chmod(host_path.c_str(), 0600);
  Manifest m = f.manifest();
  Plan plan = resolve_plan(m, "t.toml", f.fs, f.runner, f.host);
  REQUIRE(plan.steps.at(0).plan.verdict == Verdict::change);
  Transactions tx(f.fs, f.runner, f.host, "/var/lib/wslgpu-setup");
  RunResult r = tx.run(m, plan, nlohmann::json::object(), {});
  REQUIRE_MESSAGE(!r.failed, r.error);
  CHECK(f.fs.read("/etc/cdi/nvidia.yaml") == kPrinted);
  CHECK(f.fs.stat("/etc/cdi/nvidia.yaml")->mode == 0644);

  Journal j = Journal::open(tx.tx_root(), r.transaction_id);
  auto backups = cdi_records(j, "backup");
  REQUIRE(backups.size() == 1);
  CHECK(j.read_blob(backups[0]["blob"]) == before);
  auto written = cdi_records(j, "written");
  REQUIRE(written.size() == 1);
  CHECK(written[0]["sha256"] == sha256_hex(kPrinted));  // taken after apply: the plan could not know it
  CHECK(tx.drifted_files(j).empty());
  f.root.write("etc/cdi/nvidia.yaml", kPrinted + "# edited\n");
  CHECK(tx.drifted_files(j) == std::vector<std::string>{"/etc/cdi/nvidia.yaml (changed since)"});
  f.root.write("etc/cdi/nvidia.yaml", kPrinted);

  CHECK(tx.rollback(j, m, {}) == std::vector<std::string>{"cdi"});
  CHECK(f.fs.read("/etc/cdi/nvidia.yaml") == before);
  CHECK(f.fs.stat("/etc/cdi/nvidia.yaml")->mode == 0600);
}

TEST_CASE("rollback removes a generated CDI spec that was not there before, and /etc/cdi with it") {
  CdiFixture f;
  f.root.write("etc/hostname", "wsl\n");
  Manifest m = f.manifest();
  Plan plan = resolve_plan(m, "t.toml", f.fs, f.runner, f.host);
  Transactions tx(f.fs, f.runner, f.host, "/var/lib/wslgpu-setup");
  RunResult r = tx.run(m, plan, nlohmann::json::object(), {});
  REQUIRE_MESSAGE(!r.failed, r.error);
  CHECK(f.fs.read("/etc/cdi/nvidia.yaml") == kPrinted);
  Journal j = Journal::open(tx.tx_root(), r.transaction_id);
  CHECK(tx.rollback(j, m, {}) == std::vector<std::string>{"cdi"});
  CHECK_FALSE(f.fs.stat("/etc/cdi/nvidia.yaml"));
  CHECK_FALSE(f.fs.stat("/etc/cdi"));
  CHECK(f.fs.stat("/etc/hostname"));
}
