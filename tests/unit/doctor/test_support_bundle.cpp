// The support bundle of `doctor --bundle`: what it holds, that it opens with
// libarchive and with tar, and that no planted secret survives redaction.
#include <doctest/doctest.h>

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <cstdio>
#include <map>

#include "installer/doctor/doctor.hpp"
#include "installer/doctor/support_bundle.hpp"
#include "installer/host/host.hpp"
#include "installer/system/error.hpp"
#include "installer/system/filesystem.hpp"
#include "support/fakes.hpp"
#include "support/helpers.hpp"

using namespace wslgpu;
using wslgpu::testing::contains;
using wslgpu::testing::FakeProcessRunner;
using wslgpu::testing::TempDir;

namespace {

// name -> content of every entry in a gzipped tar, read with libarchive.
std::map<std::string, std::string> read_archive(const std::string& path) {
  std::map<std::string, std::string> out;
  struct archive* a = archive_read_new();
  archive_read_support_filter_gzip(a);
  archive_read_support_format_tar(a);
  REQUIRE(archive_read_open_filename(a, path.c_str(), 10240) == ARCHIVE_OK);
  struct archive_entry* entry = nullptr;
  while (archive_read_next_header(a, &entry) == ARCHIVE_OK) {
    std::string content;
    char buf[4096];
    la_ssize_t n = 0;
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0) content.append(buf, static_cast<std::size_t>(n));
    out[archive_entry_pathname(entry)] = content;
  }
  archive_read_free(a);
  return out;
}

std::string run_tar_list(const std::string& path) {
  std::string out;
  FILE* p = ::popen(("tar -tzf '" + path + "' 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  CHECK(::pclose(p) == 0);
  return out;
}

}  // namespace

TEST_CASE("redact_secrets: URL credentials, Authorization headers and secret-looking keys lose their values") {
  CHECK(redact_secrets("deb https://user:s3cret@repo.example.org/rocm/apt/6.4.2 noble main\n") ==
        "deb https://REDACTED@repo.example.org/rocm/apt/6.4.2 noble main\n");
  CHECK(redact_secrets("URIs: https://ghp_abcdef@mirror.example.org/ubuntu") ==
        "URIs: https://REDACTED@mirror.example.org/ubuntu");
  CHECK(redact_secrets("Authorization: Bearer eyJhbGciOi.x.y\n") == "Authorization: REDACTED\n");
  CHECK(redact_secrets("curl -H 'Authorization: Basic dXNlcjpwYXNz'") == "curl -H 'Authorization: REDACTED'");
  CHECK(redact_secrets("# token=abc123\r\n[wsl2]\r\nmemory=16GB\r\n") ==
        "# token=REDACTED\r\n[wsl2]\r\nmemory=16GB\r\n");
  CHECK(redact_secrets("password: hunter2") == "password: REDACTED");
  CHECK(redact_secrets("API_KEY=\"abc def\" other=1") == "API_KEY=\"REDACTED\" other=1");
  CHECK(redact_secrets("{\"sets\": {\"hf_token\": \"hf_123\", \"memory\": \"16GB\"}}") ==
        "{\"sets\": {\"hf_token\": \"REDACTED\", \"memory\": \"16GB\"}}");
  CHECK(redact_secrets("https://host/download?token=abc&file=x") == "https://host/download?token=REDACTED&file=x");
  CHECK(redact_secrets("Client_Secret = 'xyz'") == "Client_Secret = 'REDACTED'");
  CHECK(redact_secrets("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE "
                       "KEY-----\nafter\n") == "[private key REDACTED]\nafter\n");
  // what is not a secret stays as it is
  const std::string sources =
      "Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.4.2.1\nSuites: noble\nComponents: main\n"
      "Signed-By: /etc/apt/keyrings/rocm.asc\n";
  CHECK(redact_secrets(sources) == sources);
  CHECK(
      redact_secrets("deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] "
                     "https://repo.radeon.com/amdgpu/6.4.2.1/ubuntu noble main") ==
      "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/amdgpu/6.4.2.1/ubuntu noble main");
}

TEST_CASE("support bundle: holds findings, configuration, packages and the newest journal, with secrets redacted") {
  TempDir root;
  root.write("proc/sys/kernel/osrelease", "5.15.153.1-microsoft-standard-WSL2\n");
  root.write("etc/os-release", "ID=ubuntu\nVERSION_ID=\"24.04\"\n");
  root.write("etc/passwd", "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/bash\n");
  root.write("etc/wsl.conf", "[boot]\nsystemd=true\n[user]\ndefault=alice\n");
  root.write("mnt/c/Users/alice/.wslconfig", "# token=abc123\r\n[wsl2]\r\nmemory=16GB\r\n");
  root.write("etc/apt/sources.list", "deb https://user:s3cret@host.example.org/ubuntu noble main\n");
  root.write("etc/apt/sources.list.d/rocm.sources",
             "Types: deb\nURIs: https://repo.radeon.com/rocm/apt/6.4.2.1\nSuites: noble\nComponents: main\n");
  root.write("etc/apt/auth.conf.d/private.conf", "machine host.example.org login user password s3cret\n");
  root.write("var/lib/dpkg/status",
             "Package: rocm-core\nStatus: install ok installed\nArchitecture: amd64\nVersion: 6.4.2.60402-120~24.04\n\n"
             "Package: bash\nStatus: install ok installed\nArchitecture: amd64\nVersion: 5.2.21-2ubuntu4\n\n"
             "Package: amdgpu-dkms\nStatus: install ok half-configured\nArchitecture: all\nVersion: 1:6.12.12\n");
  root.write("var/lib/dpkg/updates/0001", "Package: amdgpu-dkms\n");
  root.write("var/lib/wslgpu-setup/tx/20261129-080000-aaaa/journal.jsonl", "{\"type\":\"begin\",\"id\":\"old\"}\n");
  root.write("var/lib/wslgpu-setup/tx/20261130-101502-7f3a/journal.jsonl",
             "{\"type\":\"begin\",\"id\":\"20261130-101502-7f3a\"}\n{\"type\":\"end\",\"status\":\"committed\"}\n");
  root.write("var/lib/wslgpu-setup/tx/20261130-101502-7f3a/plan.json",
             "{\"sets\":{\"hf_token\":\"hf_secretvalue\"},\"source\":\"rocm\"}\n");
  root.write("var/lib/wslgpu-setup/tx/20261130-101502-7f3a/backups/1", "password=backup-secret\n");

  RootedFileSystem fs(root.path());
  HostFacts host = probe_host(fs, root.path(), HostOptions{});
  REQUIRE(host.windows_home == "/mnt/c/Users/alice");
  CHECK(host.windows_home_guessed);  // found by the /mnt/*/Users scan, not given
  FakeProcessRunner runner;
  DoctorMachine machine{fs, runner, host, {}, std::chrono::seconds(5)};
  auto findings = findings_to_json(diagnose(machine));

  TempDir out;
  const std::string bundle = out.path() + "/doctor.tar.gz";
  auto files = collect_bundle_files(fs, host, findings);
  write_support_bundle(bundle, files);

  struct stat st {};
  REQUIRE(::stat(bundle.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  auto entries = read_archive(bundle);
  std::vector<std::string> names;
  for (const auto& [name, content] : entries) names.push_back(name);
  CHECK(names == std::vector<std::string>{
                     "wslgpu-doctor/README.txt",
                     "wslgpu-doctor/dpkg-pending.txt",
                     "wslgpu-doctor/etc/apt/sources.list",
                     "wslgpu-doctor/etc/apt/sources.list.d/rocm.sources",
                     "wslgpu-doctor/etc/wsl.conf",
                     "wslgpu-doctor/findings.json",
                     "wslgpu-doctor/os-release",
                     "wslgpu-doctor/osrelease",
                     "wslgpu-doctor/packages.txt",
                     "wslgpu-doctor/transaction/20261130-101502-7f3a/journal.jsonl",
                     "wslgpu-doctor/transaction/20261130-101502-7f3a/plan.json",
                     "wslgpu-doctor/wslconfig",
                 });

  // the findings are the doctor's JSON document, still valid JSON
  auto parsed = nlohmann::json::parse(entries["wslgpu-doctor/findings.json"]);
  CHECK(parsed["format_version"] == 1);
  CHECK(parsed["findings"].size() == findings["findings"].size());

  CHECK(entries["wslgpu-doctor/wslconfig"] == "# token=REDACTED\r\n[wsl2]\r\nmemory=16GB\r\n");
  CHECK(entries["wslgpu-doctor/etc/apt/sources.list"] == "deb https://REDACTED@host.example.org/ubuntu noble main\n");
  CHECK(contains(entries["wslgpu-doctor/packages.txt"], "rocm-core 6.4.2.60402-120~24.04 amd64 install ok installed"));
  CHECK(contains(entries["wslgpu-doctor/packages.txt"], "amdgpu-dkms 1:6.12.12 all install ok half-configured"));
  CHECK_FALSE(contains(entries["wslgpu-doctor/packages.txt"], "bash"));
  CHECK(entries["wslgpu-doctor/dpkg-pending.txt"] == "0001\n");
  CHECK(contains(entries["wslgpu-doctor/transaction/20261130-101502-7f3a/journal.jsonl"], "committed"));
  CHECK(contains(entries["wslgpu-doctor/transaction/20261130-101502-7f3a/plan.json"], "\"hf_token\":\"REDACTED\""));

  // no planted secret survives anywhere in the archive
  for (const auto& entry : entries) {
    const std::string& name = entry.first;  // clang 14: INFO's lambda cannot capture a structured binding
    const std::string& content = entry.second;
    INFO(name);
    CHECK_FALSE(contains(content, "s3cret"));
    CHECK_FALSE(contains(content, "abc123"));
    CHECK_FALSE(contains(content, "hf_secretvalue"));
    CHECK_FALSE(contains(content, "backup-secret"));
  }

  // and tar itself opens it
  std::string listing = run_tar_list(bundle);
  CHECK(contains(listing, "wslgpu-doctor/findings.json\n"));
  CHECK(contains(listing, "wslgpu-doctor/wslconfig\n"));
}

TEST_CASE("support bundle: a UTF-16 .wslconfig is decoded before redaction, so its secrets go too") {
  TempDir root;
  std::string utf16 = "\xFF\xFE";
  for (char c : std::string("# password=hunter2\r\n[wsl2]\r\nmemory=4GB\r\n")) {
    utf16 += c;
    utf16 += '\0';
  }
  root.write("mnt/c/Users/alice/.wslconfig", utf16);
  RootedFileSystem fs(root.path());
  HostFacts host;
  host.windows_home = "/mnt/c/Users/alice";
  auto files = collect_bundle_files(fs, host, nlohmann::ordered_json::object());
  bool found = false;
  for (const auto& f : files) {
    if (f.name != "wslgpu-doctor/wslconfig") continue;
    found = true;
    CHECK(f.content == "# password=REDACTED\r\n[wsl2]\r\nmemory=4GB\r\n");
  }
  CHECK(found);
  std::string readme = files.front().content;
  CHECK(contains(readme, "saved as UTF-16, which WSL ignores; decoded to UTF-8 here"));
}

TEST_CASE("support bundle: an unwritable destination is an error naming it, and leaves no file") {
  TempDir out;
  const std::string path = out.path() + "/no/such/folder/doctor.tar.gz";
  CHECK_THROWS_WITH_AS(write_support_bundle(path, {{"wslgpu-doctor/README.txt", "x"}}),
                       doctest::Contains(("cannot write the support bundle " + path).c_str()), StepFailure);
  struct stat st {};
  CHECK(::stat(path.c_str(), &st) != 0);
}
