// A download step inside a transaction: the file it replaces is backed up
// in the transaction like every other write, rollback puts it back byte for
// byte, its new file is recorded for the drift check, and a link where it
// would write is refused. file:// URLs: no network.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "installer/formats/sha256.hpp"
#include "installer/manifest/manifest.hpp"
#include "installer/planner/planner.hpp"
#include "installer/system/filesystem.hpp"
#include "installer/transaction/journal.hpp"
#include "installer/transaction/transaction.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;
using wslgpu::testing::FakeProcessRunner;
using wslgpu::testing::TempDir;

namespace {

const std::string kOldInstaller = "older installer\n";
const std::string kNewInstaller(200000, 'n');

struct DownloadFixture {
  TempDir root;
  TempDir mirror;  // where the file:// URL points, outside the root
  RootedFileSystem fs{root.path()};
  FakeProcessRunner runner;
  HostFacts host;

  DownloadFixture() {
    host.root = root.path();
    mirror.write("installer.deb", kNewInstaller);
  }

  Manifest manifest(const std::string& dest) {
    std::string text =
        "[manifest]\nname = \"t\"\nschema_version = 1\n[[step]]\nid = \"fetch\"\nkind = \"download\"\n"
        "url = \"file://" +
        mirror.path() + "/installer.deb\"\nsha256 = \"" + sha256_hex(kNewInstaller) + "\"\ndest = \"" + dest + "\"\n";
    return load_manifest({"t.toml", text, false}, {}, host);
  }

  // Every file under DIR in the root, relative to the root.
  std::vector<std::string> files_under(const std::string& dir) const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root.path() + dir))
      out.push_back(e.path().string().substr(root.path().size()));
    std::sort(out.begin(), out.end());
    return out;
  }
};

std::vector<nlohmann::json> records_of_type(const Journal& j, const std::string& type) {
  std::vector<nlohmann::json> out;
  for (const auto& r : j.records())
    if (r.value("type", "") == type) out.push_back(r);
  return out;
}

}  // namespace

TEST_CASE(
    "a download keeps the file it replaces in the transaction's backups, and rollback restores it byte for byte") {
  DownloadFixture f;
  f.root.write("opt/vendor/installer.deb", kOldInstaller);
  const std::string dest = f.root.path() + "/opt/vendor/installer.deb";
  ::chmod(dest.c_str(), 0640);
  bool root_user = ::geteuid() == 0;
  if (root_user) REQUIRE(::chown(dest.c_str(), 1234, 4321) == 0);
  Manifest m = f.manifest("/opt/vendor/installer.deb");
  Plan plan = resolve_plan(m, "t.toml", f.fs, f.runner, f.host);
  REQUIRE(plan.steps.at(0).plan.verdict == Verdict::change);
  Transactions tx(f.fs, f.runner, f.host, "/var/lib/wslgpu-setup");
  RunResult r = tx.run(m, plan, nlohmann::json::object(), {});
  REQUIRE_MESSAGE(!r.failed, r.error);
  CHECK(f.fs.read("/opt/vendor/installer.deb") == kNewInstaller);
  // Nothing kept beside it: the old file is in the transaction.
  CHECK(f.files_under("/opt/vendor") == std::vector<std::string>{"/opt/vendor/installer.deb"});

  Journal j = Journal::open(tx.tx_root(), r.transaction_id);
  auto backups = records_of_type(j, "backup");
  REQUIRE(backups.size() == 1);
  CHECK(backups[0]["path"] == "/opt/vendor/installer.deb");
  CHECK(backups[0]["existed"] == true);
  CHECK(backups[0]["sha256"] == sha256_hex(kOldInstaller));
  CHECK(j.read_blob(backups[0]["blob"]) == kOldInstaller);
  auto written = records_of_type(j, "written");
  REQUIRE(written.size() == 1);
  CHECK(written[0]["path"] == "/opt/vendor/installer.deb");
  CHECK(written[0]["sha256"] == sha256_hex(kNewInstaller));
  CHECK(tx.drifted_files(j).empty());

  CHECK(tx.rollback(j, m, {}) == std::vector<std::string>{"fetch"});
  CHECK(f.fs.read("/opt/vendor/installer.deb") == kOldInstaller);
  auto info = f.fs.stat("/opt/vendor/installer.deb");
  REQUIRE(info);
  CHECK(info->mode == 0640);
  if (root_user) {
    CHECK(info->uid == 1234);
    CHECK(info->gid == 4321);
  }
  CHECK(f.files_under("/opt/vendor") == std::vector<std::string>{"/opt/vendor/installer.deb"});
}

TEST_CASE("rollback removes a file a download created, with the folders made for it") {
  DownloadFixture f;
  Manifest m = f.manifest("/var/lib/wslgpu-setup/cache/installer.deb");
  Plan plan = resolve_plan(m, "t.toml", f.fs, f.runner, f.host);
  Transactions tx(f.fs, f.runner, f.host, "/var/lib/wslgpu-setup");
  RunResult r = tx.run(m, plan, nlohmann::json::object(), {});
  REQUIRE_MESSAGE(!r.failed, r.error);
  CHECK(f.fs.read("/var/lib/wslgpu-setup/cache/installer.deb") == kNewInstaller);
  Journal j = Journal::open(tx.tx_root(), r.transaction_id);
  CHECK(tx.rollback(j, m, {}) == std::vector<std::string>{"fetch"});
  CHECK_FALSE(f.fs.stat("/var/lib/wslgpu-setup/cache/installer.deb"));
  CHECK_FALSE(f.fs.stat("/var/lib/wslgpu-setup/cache"));
}

TEST_CASE("a downloaded file changed since its transaction is drift, seen before rollback") {
  DownloadFixture f;
  f.root.write("opt/vendor/installer.deb", kOldInstaller);
  Manifest m = f.manifest("/opt/vendor/installer.deb");
  Plan plan = resolve_plan(m, "t.toml", f.fs, f.runner, f.host);
  Transactions tx(f.fs, f.runner, f.host, "/var/lib/wslgpu-setup");
  RunResult r = tx.run(m, plan, nlohmann::json::object(), {});
  REQUIRE_MESSAGE(!r.failed, r.error);
  Journal j = Journal::open(tx.tx_root(), r.transaction_id);
  CHECK(tx.drifted_files(j).empty());
  f.root.write("opt/vendor/installer.deb", "replaced by hand\n");
  CHECK(tx.drifted_files(j) == std::vector<std::string>{"/opt/vendor/installer.deb (changed since)"});
  f.fs.remove("/opt/vendor/installer.deb");
  CHECK(tx.drifted_files(j) == std::vector<std::string>{"/opt/vendor/installer.deb (now missing)"});
}

TEST_CASE(
    "a download to a symbolic link is refused at plan time, and one made after the plan before anything is written") {
  DownloadFixture f;
  f.root.write("etc/shadow", "root:secret:::\n");
  std::filesystem::create_directories(f.root.path() + "/opt/vendor");
  std::filesystem::create_symlink("/etc/shadow", f.root.path() + "/opt/vendor/installer.deb");
  Manifest m = f.manifest("/opt/vendor/installer.deb");
  Plan plan = resolve_plan(m, "t.toml", f.fs, f.runner, f.host);
  const StepPlan& p = plan.steps.at(0).plan;
  CHECK(p.verdict == Verdict::refused);
  CHECK(p.summary ==
        "refused by guard no-writes-through-links: /opt/vendor/installer.deb is a symbolic link to /etc/shadow");
  CHECK(p.writes.empty());

  // Planned on a plain path, then a link appears there before install runs.
  std::filesystem::remove(f.root.path() + "/opt/vendor/installer.deb");
  Plan clean = resolve_plan(m, "t.toml", f.fs, f.runner, f.host);
  REQUIRE(clean.steps.at(0).plan.verdict == Verdict::change);
  std::filesystem::create_symlink("/etc/shadow", f.root.path() + "/opt/vendor/installer.deb");
  Transactions tx(f.fs, f.runner, f.host, "/var/lib/wslgpu-setup");
  RunResult r = tx.run(m, clean, nlohmann::json::object(), {});
  CHECK(r.failed);
  CHECK(r.error.find("refusing to write /opt/vendor/installer.deb: it is a symbolic link") != std::string::npos);
  CHECK(f.fs.read("/etc/shadow") == "root:secret:::\n");
  CHECK(std::filesystem::is_symlink(f.root.path() + "/opt/vendor/installer.deb"));
}
