#include "installer/undo/undo_store.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "installer/net/download.hpp"
#include "installer/system/units.hpp"

namespace wslgpu {

const char* kept_from_name(KeptFrom from) {
  switch (from) {
    case KeptFrom::apt_cache: return "apt cache";
    case KeptFrom::fetched: return "fetched";
    case KeptFrom::rebuilt: return "rebuilt";
  }
  return "?";
}

std::optional<KeptFrom> kept_from_parse(const std::string& text) {
  for (KeptFrom f : {KeptFrom::apt_cache, KeptFrom::fetched, KeptFrom::rebuilt})
    if (text == kept_from_name(f)) return f;
  return std::nullopt;
}

nlohmann::json KeptDeb::to_json() const {
  return {{"step", step},
          {"name", name},
          {"version", version},
          {"architecture", architecture},
          {"from", kept_from_name(from)},
          {"file", file},
          {"size", size},
          {"sha256", sha256},
          {"index_sha256", index_sha256}};
}

KeptDeb KeptDeb::from_json(const nlohmann::json& record) {
  auto text = [&](const char* key) {
    if (!record.contains(key) || !record[key].is_string())
      throw Error(ExitCode::bad_input, std::string("a `kept` journal record lacks its \"") + key + "\" text: " + record.dump());
    return record[key].get<std::string>();
  };
  KeptDeb k;
  k.step = text("step");
  k.name = text("name");
  k.version = text("version");
  k.architecture = text("architecture");
  auto from = kept_from_parse(text("from"));
  if (!from) throw Error(ExitCode::bad_input, "a `kept` journal record names an unknown origin: " + record.dump());
  k.from = *from;
  k.file = text("file");
  // A file name, never a path: the record must not make undo read outside the store.
  if (k.file.empty() || k.file.find('/') != std::string::npos || k.file == "." || k.file == "..")
    throw Error(ExitCode::bad_input, "a `kept` journal record names \"" + k.file + "\", which is not a file name");
  if (!record.contains("size") || !record["size"].is_number_unsigned())
    throw Error(ExitCode::bad_input, "a `kept` journal record lacks its size: " + record.dump());
  k.size = record["size"].get<std::uint64_t>();
  k.sha256 = text("sha256");
  k.index_sha256 = record.value("index_sha256", "");
  return k;
}

std::string deb_file_name(const std::string& name, const std::string& version, const std::string& arch) {
  std::string v = version;
  if (auto colon = v.find(':'); colon != std::string::npos) v.replace(colon, 1, "%3a");
  return name + "_" + v + "_" + arch + ".deb";
}

FileDigest digest_file(const std::string& host_path) {
  std::error_code ec;
  auto size = std::filesystem::file_size(host_path, ec);
  if (ec) throw StepFailure("cannot read " + host_path + ": " + ec.message());
  return {static_cast<std::uint64_t>(size), sha256_of_host_file(host_path)};
}

UndoStore::UndoStore(std::string host_dir, std::string target_dir)
    : host_dir_(std::move(host_dir)), target_dir_(std::move(target_dir)) {}

KeptDeb UndoStore::admit(KeptDeb kept, std::uint64_t expected_size) {
  const std::string path = host_path(kept);
  FileDigest d = digest_file(path);
  std::string wrong;
  if (expected_size != 0 && d.size != expected_size)
    wrong = "it has " + std::to_string(d.size) + " bytes where the Packages index says " + std::to_string(expected_size);
  else if (!kept.index_sha256.empty() && d.sha256 != kept.index_sha256)
    wrong = "its SHA-256 is " + d.sha256 + " where the Packages index says " + kept.index_sha256;
  if (!wrong.empty()) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    throw CorruptCopy("the copy of " + kept.name + " " + kept.version + " kept for undo (" + kept_from_name(kept.from) +
                      ") does not match what apt published: " + wrong + ". Nothing was changed.");
  }
  kept.size = d.size;
  kept.sha256 = d.sha256;
  entries_.push_back(kept);
  return kept;
}

void UndoStore::add(KeptDeb kept) {
  // A resumed run may record a copy again: the newest record wins.
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                [&](const KeptDeb& k) {
                                  return k.name == kept.name && k.version == kept.version &&
                                         k.architecture == kept.architecture;
                                }),
                 entries_.end());
  entries_.push_back(std::move(kept));
}

const KeptDeb* UndoStore::find(const std::string& name, const std::string& version, const std::string& arch) const {
  for (const auto& k : entries_)
    if (k.name == name && k.version == version && (arch.empty() || k.architecture == arch)) return &k;
  return nullptr;
}

void UndoStore::check(const KeptDeb& kept) const {
  const std::string path = host_path(kept);
  std::string wrong;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    wrong = "it is missing";
  } else {
    FileDigest d = digest_file(path);
    if (d.size != kept.size)
      wrong = "it has " + std::to_string(d.size) + " bytes where " + std::to_string(kept.size) + " were stored";
    else if (d.sha256 != kept.sha256)
      wrong = "its SHA-256 is " + d.sha256 + " where " + kept.sha256 + " was stored";
  }
  if (wrong.empty()) return;
  std::string what_to_do =
      kept.from == KeptFrom::rebuilt
          ? "The copy was rebuilt from the installed files; no source holds it. Put back a good copy of " + kept.name +
                " " + kept.version + " under that name"
          : "Put back a good copy of " + kept.name + " " + kept.version + " under that name (`apt-get download " +
                kept.name + "=" + kept.version + "` where a source still offers it; its SHA-256 must be " +
                kept.sha256 + ")";
  throw CorruptCopy("the copy of " + kept.name + " " + kept.version + " that undo would install, " + path +
                    ", is not what was stored: " + wrong + ". Undo installs nothing from a copy it cannot trust, so " +
                    "nothing was rolled back. " + what_to_do + ", then run the rollback again; or roll back without " +
                    "the store with --allow-partial-undo: undo then asks apt's sources and cache for the old versions, and leaves "
                    "what they lack as this transaction left it.");
}

void UndoStore::check_all(const std::vector<std::string>& steps) const {
  for (const auto& k : entries_)
    if (steps.empty() || std::find(steps.begin(), steps.end(), k.step) != steps.end()) check(k);
}

std::uint64_t UndoStore::bytes() const {
  std::uint64_t total = 0;
  for (const auto& k : entries_) total += k.size;
  return total;
}

StoreSize store_folder_size(const std::string& host_dir) {
  std::error_code ec;
  StoreSize size;
  for (std::filesystem::directory_iterator it(host_dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    if (it->is_regular_file(e2) && it->path().extension() == ".deb") {
      size.bytes += it->file_size(e2);
      ++size.debs;
    }
    if (it->is_directory(e2) && it->path().filename().string().rfind("venv-", 0) == 0) {
      ++size.venvs;
      for (std::filesystem::recursive_directory_iterator f(it->path(), ec), fend; !ec && f != fend; f.increment(ec)) {
        struct stat st {};
        if (::lstat(f->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
        ++size.venv_files;
        if (st.st_nlink == 1) size.bytes += static_cast<std::uint64_t>(st.st_size);
      }
      ec.clear();
    }
  }
  return size;
}

std::uint64_t store_folder_bytes(const std::string& host_dir) { return store_folder_size(host_dir).bytes; }

std::string store_size_text(const StoreSize& size) {
  std::vector<std::string> parts;
  if (size.debs > 0) parts.push_back(std::to_string(size.debs) + (size.debs == 1 ? " package" : " packages"));
  if (size.venvs > 0)
    parts.push_back(std::string(size.venvs == 1 ? "a venv" : std::to_string(size.venvs) + " venvs") + " of " +
                    std::to_string(size.venv_files) + (size.venv_files == 1 ? " file" : " files"));
  std::string what;
  for (std::size_t i = 0; i < parts.size(); ++i) what += (i ? "; " : "") + parts[i];
  return human_size(size.bytes) + (what.empty() ? "" : " (" + what + ")");
}

FolderSize folder_size(const std::string& host_dir) {
  FolderSize size;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator f(host_dir, ec), fend; !ec && f != fend; f.increment(ec)) {
    struct stat st {};
    if (::lstat(f->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    size.bytes += static_cast<std::uint64_t>(st.st_size);
    ++size.files;
    if (f->path().extension() == ".part") ++size.partial;
  }
  return size;
}

void remove_store_folder(const std::string& host_dir) {
  std::error_code ec;
  std::filesystem::remove_all(host_dir, ec);
  if (ec) throw StepFailure("cannot remove the undo store " + host_dir + ": " + ec.message());
}

void prune_store_folder(const std::string& host_dir, const std::string& why) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(host_dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    if (it->path().filename() != "pruned") std::filesystem::remove_all(it->path(), e2);
    if (e2) throw StepFailure("cannot remove " + it->path().string() + ": " + e2.message());
  }
  if (ec) return;  // no store
  std::ofstream marker(host_dir + "/pruned", std::ios::trunc);
  marker << why << "\n";
  if (!marker) throw StepFailure("cannot write " + host_dir + "/pruned");
}

bool store_was_pruned(const std::string& host_dir) {
  std::error_code ec;
  return std::filesystem::exists(host_dir + "/pruned", ec);
}

}  // namespace wslgpu
