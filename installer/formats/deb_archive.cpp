#include "installer/formats/deb_archive.hpp"

#include <algorithm>
#include <memory>
#include <set>

#include "installer/formats/archive_api.hpp"
#include "installer/formats/deb822.hpp"
#include "installer/system/error.hpp"

namespace wslgpu {

namespace {

using ArchivePtr = std::unique_ptr<archive, int (*)(archive*)>;

std::string archive_problem(archive* a) {
  const ArchiveApi& la = archive_api();
  const char* e = la.error_string(a);
  return e ? e : "unknown libarchive error";
}

// Lets an inner tar reader pull its bytes from the current member of the
// outer ar reader, so nothing is buffered beyond libarchive's own blocks.
struct Nested {
  archive* outer;
  char buf[65536];
};

la_ssize_t nested_read(archive* /*a*/, void* data, const void** block) {
  const ArchiveApi& la = archive_api();
  auto* n = static_cast<Nested*>(data);
  la_ssize_t got = la.read_data(n->outer, n->buf, sizeof n->buf);
  *block = n->buf;
  return got;
}

std::string clean_member_path(std::string p) {
  while (p.rfind("./", 0) == 0) p.erase(0, 2);
  while (!p.empty() && p.back() == '/') p.pop_back();
  if (p.empty() || p == ".") return "";
  if (p.front() != '/') p.insert(0, "/");
  return p;
}

// Reads every entry of the tar member the outer reader is positioned on.
// ON_ENTRY gets each entry and may read its data through the inner reader.
template <typename F>
void read_member(archive* outer, const std::string& deb, const std::string& member, F on_entry) {
  const ArchiveApi& la = archive_api();
  ArchivePtr inner(la.read_new(), la.read_free);
  la.read_support_filter_all(inner.get());
  la.read_support_format_tar(inner.get());
  auto nested = std::make_unique<Nested>();
  nested->outer = outer;
  if (la.read_open(inner.get(), nested.get(), nullptr, nested_read, nullptr) != ARCHIVE_OK)
    throw StepFailure(deb + ": cannot read " + member + ": " + archive_problem(inner.get()));
  archive_entry* entry = nullptr;
  int r;
  while ((r = la.read_next_header(inner.get(), &entry)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
    on_entry(inner.get(), entry);
  }
  if (r != ARCHIVE_EOF) throw StepFailure(deb + ": " + member + " is damaged: " + archive_problem(inner.get()));
}

}  // namespace

DebInfo read_deb(const std::string& host_path) {
  const ArchiveApi& la = archive_api();
  ArchivePtr outer(la.read_new(), la.read_free);
  la.read_support_format_ar(outer.get());
  if (la.read_open_filename(outer.get(), host_path.c_str(), 65536) != ARCHIVE_OK)
    throw StepFailure("cannot open " + host_path + " as a .deb package: " + archive_problem(outer.get()));
  DebInfo info;
  bool saw_binary = false, saw_control = false, saw_data = false;
  std::string control_text;
  archive_entry* entry = nullptr;
  int r;
  while ((r = la.read_next_header(outer.get(), &entry)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
    std::string member = la.entry_pathname(entry) ? la.entry_pathname(entry) : "";
    while (!member.empty() && member.back() == '/') member.pop_back();  // GNU ar style names
    if (member == "debian-binary") {
      saw_binary = true;
    } else if (member.rfind("control.tar", 0) == 0) {
      saw_control = true;
      read_member(outer.get(), host_path, member, [&](archive* inner, archive_entry* e) {
        if (clean_member_path(la.entry_pathname(e)) != "/control") return;
        char buf[8192];
        la_ssize_t got;
        while ((got = la.read_data(inner, buf, sizeof buf)) > 0) control_text.append(buf, static_cast<std::size_t>(got));
        if (got < 0) throw StepFailure(host_path + ": cannot read the control file: " + archive_problem(inner));
      });
    } else if (member.rfind("data.tar", 0) == 0) {
      saw_data = true;
      read_member(outer.get(), host_path, member, [&](archive*, archive_entry* e) {
        std::string p = clean_member_path(la.entry_pathname(e));
        if (p.empty()) return;
        if (la.entry_filetype(e) == AE_IFDIR) info.directories.push_back(p);
        else info.files.push_back(p);
      });
    }
  }
  if (r != ARCHIVE_EOF)
    throw StepFailure("cannot open " + host_path + " as a .deb package: " + archive_problem(outer.get()));
  if (!saw_binary || !saw_control || !saw_data)
    throw StepFailure(host_path + " is not a .deb package: it lacks " +
                      std::string(!saw_binary ? "debian-binary" : !saw_control ? "control.tar" : "data.tar"));
  std::vector<Deb822Stanza> stanzas;
  try {
    stanzas = parse_deb822(control_text, host_path + ":control");
  } catch (const InputError& e) {  // the package is broken, not the user's input
    throw StepFailure(host_path + " is not a .deb package: its control file is damaged: " + e.what());
  }
  if (stanzas.empty() || !stanzas.front().get("Package"))
    throw StepFailure(host_path + " is not a .deb package: its control file names no Package");
  const auto& c = stanzas.front();
  info.name = c.get_or("Package", "");
  info.version = c.get_or("Version", "");
  info.architecture = c.get_or("Architecture", "");
  info.depends = c.get_or("Depends", "");
  info.pre_depends = c.get_or("Pre-Depends", "");
  return info;
}

// One pass that keeps only each alternative's first word, without copying
// the rest of it: the field may be any bytes (a .deb from anywhere), and an
// alternative of kilobytes was copied whole only to be split into words.
// A "(...)", "[...]" or "<...>" ends a word as a blank does; ',' and '|'
// inside one separate nothing.
std::vector<std::string> parse_dependency_names(const std::string& field) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::string word;        // the alternative's first word so far
  bool word_ended = false;  // a blank or a bracket came after it
  char skipping_to = 0;     // inside "(...)", "[...]" or "<...>": the closing character
  auto flush = [&] {
    std::string name = word.substr(0, word.find(':'));
    if (!name.empty() && seen.insert(name).second) out.push_back(name);
    word.clear();
    word_ended = false;
  };
  for (char c : field) {
    if (skipping_to) {
      if (c == skipping_to) skipping_to = 0;
    } else if (c == '(' || c == '[' || c == '<') {
      skipping_to = c == '(' ? ')' : c == '[' ? ']' : '>';
      word_ended = !word.empty();
    } else if (c == ',' || c == '|') {
      flush();
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      word_ended = !word.empty();
    } else if (!word_ended) {
      word += c;
    }
  }
  flush();
  return out;
}

std::vector<std::string> DebInfo::dependency_names() const {
  auto out = parse_dependency_names(pre_depends);
  for (const auto& n : parse_dependency_names(depends))
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  return out;
}

bool is_kernel_module_package(const std::string& name) {
  auto ends_with = [&](const std::string& s) { return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0; };
  return name == "dkms" || ends_with("-dkms") || name.rfind("linux-headers-", 0) == 0 ||
         name.rfind("linux-modules-extra-", 0) == 0;
}

std::string kernel_module_problem(const DebInfo& deb) {
  for (const auto& f : deb.files) {
    if (f.rfind("/lib/modules/", 0) == 0 || f.rfind("/usr/lib/modules/", 0) == 0)
      return deb.name + " ships a kernel module (" + f + ")";
    if (f.rfind("/usr/src/", 0) == 0 && f.size() > 10) {
      std::string rest = f.substr(9);
      auto slash = rest.find('/');
      if (slash != std::string::npos && rest.substr(slash) == "/dkms.conf")
        return deb.name + " ships a DKMS module source (" + f + ")";
    }
  }
  for (const auto& d : deb.dependency_names())
    if (is_kernel_module_package(d)) return deb.name + " depends on " + d;
  return "";
}

}  // namespace wslgpu
