#include "installer/manifest/manifest.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "installer/manifest/bundled_manifests.hpp"
#include "installer/manifest/compose.hpp"
#include "installer/formats/toml_input.hpp"
#include "installer/manifest/host_fact_references.hpp"
#include "installer/manifest/manifest_loader.hpp"
#include "installer/manifest/matrix.hpp"
#include "installer/manifest/step_keys.hpp"
#include "installer/manifest/step_kind.hpp"
#include "installer/manifest/suggest.hpp"
#include "installer/system/text.hpp"

namespace wslgpu {

namespace {

// The bundled profiles whose own [vars] hold NAME: a provisioning script's
// --set cuda_repo=... for a profile that no longer includes cuda is told
// where the variable went, not only that it is unknown. Read only on that
// error path.
std::vector<std::string> bundled_profiles_with_variable(const std::string& name) {
  std::vector<std::string> found;
  for (const auto& m : bundled_manifests()) {
    try {
      toml::table t = parse_toml(m.content, m.path);
      if (const toml::table* vars = t["vars"].as_table(); vars && vars->contains(name)) found.emplace_back(m.name);
    } catch (const std::exception&) {
    }
  }
  return found;
}

bool is_identifier(const std::string& s, bool allow_dash) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (allow_dash && c == '-');
  });
}

std::string scalar_to_string(const toml::node& n) {
  if (n.is_string()) return n.as_string()->get();
  if (n.is_integer()) return std::to_string(n.as_integer()->get());
  if (n.is_boolean()) return n.as_boolean()->get() ? "true" : "false";
  if (n.is_floating_point()) {
    std::ostringstream o;
    o << n.as_floating_point()->get();
    return o.str();
  }
  return "";
}

// Sorted by position, so that diagnostics come out in file order.
std::vector<std::pair<std::string, const toml::node*>> in_file_order(const toml::table& t) {
  std::vector<std::tuple<toml::source_position, std::string, const toml::node*>> entries;
  for (auto&& [k, v] : t) entries.emplace_back(k.source().begin, std::string(k.str()), &v);
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    const auto& pa = std::get<0>(a);
    const auto& pb = std::get<0>(b);
    return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
  });
  std::vector<std::pair<std::string, const toml::node*>> out;
  for (auto& [p, k, v] : entries) out.emplace_back(k, v);
  return out;
}

SourcePos key_pos(const toml::table& t, const std::string& key, const std::string& file) {
  for (auto&& [k, v] : t)
    if (k.str() == key) return toml_pos(k.source(), file);
  return toml_pos(t, file);
}

}  // namespace

namespace manifest_loading {


Manifest Loader::load() {
  const std::string& file = source_.display;
  toml::table root;
  try {
    root = parse_toml(source_.text, file);
  } catch (const toml::parse_error& e) {
    SourcePos pos = toml_pos(e.source(), file);
    // The message first: it may move POS (a function's arguments are
    // evaluated in no set order; clang and GCC differ).
    std::string message = syntax_error_message(std::string(e.description()), pos);
    throw InputError(pos, message);
  }
  manifest_.source = file;
  // A layer: the profile it requires first, then the layer on it, as one.
  std::size_t base_steps = 0;
  if (!compose_with_base(root, base_steps)) throw InputError(std::move(diagnostics_));
  // Facts that cost a program run are probed only for a manifest that
  // names them somewhere (a condition, a ${} reference, a table's text),
  // and only the groups it names: host.nvidia_* never starts PowerShell.
  host_.probe_lazy_facts(lazy_facts_mentioned(root, overrides_));
  static const std::vector<std::string> top_level = {"manifest", "vars", "matrix", "step", "guards"};
  for (const auto& [key, node] : in_file_order(root)) {
    if (std::find(top_level.begin(), top_level.end(), key) == top_level.end()) {
      std::string hint = suggest(key, top_level);
      error(key_pos(root, key, file), "unknown top-level table \"" + key + "\"" +
                                          (hint.empty() ? " (known: manifest, vars, matrix, step, guards)"
                                                        : " (did you mean \"" + hint + "\"?)"));
    }
  }
  read_header(root);
  read_vars(root);
  read_guards(root);
  read_steps(root);
  // Each part of the manifest is checked in turn; report top to bottom.
  // (--set problems have no line and come first.)
  std::stable_sort(diagnostics_.begin(), diagnostics_.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.pos.line != b.pos.line ? a.pos.line < b.pos.line : a.pos.column < b.pos.column;
  });
  if (!diagnostics_.empty()) {
    // On a system the profile does not support, values built from its
    // facts are not the user's mistake: say that the system is not
    // supported (exit 3), not that a suite is "" (exit 2). Any other
    // problem is the manifest's, and is reported as such.
    bool only_empty_facts = empty_fact_errors_ == diagnostics_.size();
    if (only_empty_facts) refuse_an_unsupported_system();
    throw InputError(std::move(diagnostics_));
  }
  if (!unresolved_choice_.empty()) {
    // "auto" finds no row on a system the profile does not support (the
    // Python of Debian 12): that is the refusal to give, as for the base.
    refuse_an_unsupported_system();
    throw Refusal(unresolved_choice_);
  }
  return std::move(manifest_);
}

void Loader::refuse_an_unsupported_system() const {
  if (!manifest_.guards.supported || options_.unsupported_distro) return;
  std::string why = unsupported_system(host_, *manifest_.guards.supported, manifest_.vars);
  if (!why.empty()) throw Refusal(why);
}


// [manifest] requires = "NAME": parses the required profile (the recorded
// text, else the bundled one) and puts ROOT on it. BASE_STEPS: how many
// of the composed steps are the base's. False when the base cannot be had.
bool Loader::compose_with_base(toml::table& root, std::size_t& base_steps) {
  const toml::table* header = root.get_as<toml::table>("manifest");
  const toml::node* req = header ? header->get("requires") : nullptr;
  if (!req) return true;
  const std::string& file = source_.display;
  if (!req->is_string()) {
    error(toml_pos(*req, file), "\"requires\" must be the name of a bundled profile, such as requires = \"rocm\", not " +
                                    toml_type_name(*req));
    return false;
  }
  const std::string name = req->as_string()->get();
  ManifestSource base{source_.base_display, source_.base_text, true};
  if (base.text.empty()) {
    std::vector<std::string> names;
    for (const auto& m : bundled_manifests()) {
      if (m.name == name) base = {std::string(m.path), std::string(m.content), true};
      names.emplace_back(m.name);
    }
    if (base.text.empty()) {
      std::string hint = suggest(name, names);
      error(toml_pos(*req, file), "requires \"" + name + "\", which is not a bundled profile" +
                                      (hint.empty() ? " (bundled: " + join(names) + ")"
                                                    : " (did you mean \"" + hint + "\"?)"));
      return false;
    }
  }
  toml::table base_root;
  try {
    base_root = parse_toml(base.text, base.display);
  } catch (const toml::parse_error& e) {
    error(toml_pos(e.source(), base.display), std::string("the required profile: ") + std::string(e.description()));
    return false;
  }
  const toml::table* base_header = base_root.get_as<toml::table>("manifest");
  if (base_header && base_header->get("requires")) {
    error(toml_pos(*req, file), "requires \"" + name + "\", which itself requires another profile; a layer may "
                                "stand on one profile that requires none");
    return false;
  }
  const toml::node* base_name = base_header ? base_header->get("name") : nullptr;
  manifest_.base_name = base_name && base_name->is_string() ? base_name->as_string()->get() : name;
  manifest_.base_source = base.display;
  manifest_.base_text = base.text;
  if (const toml::array* steps = base_root.get_as<toml::array>("step")) base_steps = steps->size();
  base_steps_ = base_steps;
  std::size_t before = diagnostics_.size();
  compose_layer(base_root, root, manifest_.base_name, diagnostics_);
  // compose_layer does not know the layer's display name for positions
  // without a path; every node has one, parsed with it.
  for (std::size_t i = before; i < diagnostics_.size(); ++i)
    if (diagnostics_[i].pos.file.empty()) diagnostics_[i].pos.file = file;
  root = std::move(base_root);
  return true;
}


// toml++ says "Error while parsing string: unknown escape sequence '\q'";
// say it as one sentence, add what usually causes it, and for a key
// defined twice move POS from the value to the key.
std::string Loader::syntax_error_message(const std::string& description, SourcePos& pos) const {
  std::string what = description, detail;
  const std::string prefix = "Error while parsing ";
  if (what.rfind(prefix, 0) == 0) {
    auto colon = what.find(": ", prefix.size());
    if (colon != std::string::npos) {
      detail = what.substr(colon + 2);
      what = what.substr(prefix.size(), colon - prefix.size());
    }
  }
  std::string message = detail.empty() ? "TOML syntax error: " + description
                                       : "TOML syntax error in " + what + ": " + detail;
  auto has = [&](const char* text) { return description.find(text) != std::string::npos; };
  if (has("could not determine value type")) {
    message += " (text needs quotes: name = \"value\")";
  } else if (what == "string" && has("control characters")) {
    message += " (is the closing quote missing?)";
  } else if (has("escape sequence") || has("unicode scalar")) {
    message += " (in \"...\" a backslash starts an escape: write \\\\ for one backslash, or use '...' for text "
               "taken as written)";
  } else if (has("end-of-file")) {
    message += " (a quote, bracket or brace opened earlier is never closed)";
  } else if (has("cannot redefine existing")) {
    message += " (each key and table may be defined only once)";
    // toml++ points at the value; the key, named in quotes, is before it.
    auto q1 = description.rfind('\'', description.size() - 2);
    if (what == "key-value pair" && q1 != std::string::npos && description.back() == '\'') {
      std::string key = description.substr(q1 + 1, description.size() - q1 - 2);
      // The line POS is on (none past the text's end, where toml++ never points).
      auto lines = text::split_lines(source_.text, text::LineEnd::newline_dropped);
      std::string_view line;
      if (pos.line >= 1 && pos.line <= lines.size()) line = lines[pos.line - 1];
      auto at = line.rfind(key, pos.column > 0 ? pos.column - 1 : 0);
      if (!key.empty() && at != std::string::npos) pos.column = static_cast<std::uint32_t>(at + 1);
    }
  }
  return message;
}


// Reports keys of T outside KNOWN, naming WHERE.
void Loader::check_keys(const toml::table& t, const std::vector<std::string>& known, const std::string& where) {
  for (const auto& [key, node] : in_file_order(t)) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string hint = suggest(key, known);
    error(key_pos(t, key, source_.display),
          "unknown key \"" + key + "\" in " + where +
              (hint.empty() ? " (known: " + join(known) + ")" : " (did you mean \"" + hint + "\"?)"));
  }
}


const toml::table* Loader::table_at(const toml::table& root, const std::string& key, bool required) {
  const toml::node* n = root.get(key);
  if (!n) {
    if (required)
      error(SourcePos{source_.display, 1, 1},
            "the manifest has no [" + key + "] table; start the file with [" + key +
                "], then name = \"...\" and schema_version = 1");
    return nullptr;
  }
  if (!n->is_table()) {
    error(toml_pos(*n, source_.display), "\"" + key + "\" must be a table ([" + key + "]), not " + toml_type_name(*n));
    return nullptr;
  }
  return n->as_table();
}


void Loader::read_header(const toml::table& root) {
  const toml::table* t = table_at(root, "manifest", true);
  if (!t) return;
  check_keys(*t, {"name", "description", "schema_version", "requires"}, "[manifest]");
  const std::string& file = source_.display;
  if (const toml::node* n = t->get("name"); !n) {
    error(toml_pos(*t, file), "[manifest] needs the key \"name\", such as name = \"my-rocm\"");
  } else if (!n->is_string()) {
    error(toml_pos(*n, file), "\"name\" must be a string, not " + toml_type_name(*n));
  } else {
    manifest_.name = n->as_string()->get();
    if (!is_identifier(manifest_.name, true))
      error(toml_pos(*n, file), "manifest name \"" + manifest_.name +
                                    "\" must start with a letter and hold only letters, digits, '-' and '_'");
  }
  if (const toml::node* n = t->get("description")) {
    if (n->is_string()) manifest_.description = n->as_string()->get();
    else error(toml_pos(*n, file), "\"description\" must be a string, not " + toml_type_name(*n));
  }
  if (const toml::node* n = t->get("schema_version"); !n) {
    error(toml_pos(*t, file), "[manifest] needs the key \"schema_version\" (this version reads schema_version = 1)");
  } else if (!n->is_integer()) {
    error(toml_pos(*n, file),
          "\"schema_version\" must be an integer (schema_version = 1), not " + toml_type_name(*n));
  } else if (n->as_integer()->get() != 1) {
    error(toml_pos(*n, file), "schema_version " + std::to_string(n->as_integer()->get()) +
                                  " is not supported (this version of wslgpu-setup reads schema_version = 1)");
  }
}


void Loader::read_vars(const toml::table& root) {
  const std::string& file = source_.display;
  Variables raw;
  std::map<std::string, SourcePos> where;
  if (const toml::table* t = table_at(root, "vars", false)) {
    for (const auto& [key, node] : in_file_order(*t)) {
      if (!is_identifier(key, false)) {
        error(key_pos(*t, key, file), "variable name \"" + key + "\" must hold only letters, digits and '_'");
        continue;
      }
      if (!node->is_string() && !node->is_integer() && !node->is_floating_point() && !node->is_boolean()) {
        error(toml_pos(*node, file), "variable \"" + key + "\" must be a string, number or boolean, not " +
                                         toml_type_name(*node));
        raw[key] = "";  // still defined, so that its uses are not reported as undefined too
        where[key] = toml_pos(*node, file);
        continue;
      }
      raw[key] = scalar_to_string(*node);
      where[key] = toml_pos(*node, file);
    }
  }
  for (const auto& [key, value] : overrides_) {
    if (!raw.count(key)) {
      std::vector<std::string> known;
      for (const auto& [k, v] : raw) known.push_back(k);
      std::string hint = suggest(key, known);
      std::string why = hint.empty() ? (known.empty() ? "" : " (it has: " + join(known) + ")")
                                     : " (did you mean \"" + hint + "\"?)";
      const std::vector<std::string> elsewhere = bundled_profiles_with_variable(key);
      if (elsewhere.size() == 1)
        why = " (it is a variable of the bundled profile " + elsewhere[0] +
              ", which this one does not include: leave the --set out, or give it to `install " + elsewhere[0] + "`)";
      else if (!elsewhere.empty())
        why = " (it is a variable of the bundled profiles " + join(elsewhere) +
              ", which this one does not include: leave the --set out)";
      error(SourcePos{"--set " + key, 0, 0}, "the manifest has no variable \"" + key + "\"" + why);
      continue;
    }
    raw[key] = value;
    where[key] = SourcePos{"--set " + key, 0, 0};
  }
  // A [matrix] row replaces the defaults of its columns (not --set values);
  // "auto" chooses the row from the machine's facts.
  MatrixMachine machine{host_.as_variables(), options_.chosen};
  MatrixChoices matrix_choices;
  apply_matrix(root, file, overrides_, raw, where, diagnostics_, machine, &matrix_choices);
  manifest_.var_where = where;
  manifest_.var_rows = matrix_choices.rows;
  // Variables may use each other ("${rocm_version}" in a URL) and host
  // facts; resolve depth-first, refusing cycles.
  Variables scope = host_.as_variables();
  std::vector<std::string> visiting;  // the chain of references being followed
  std::function<void(const std::string&)> resolve = [&](const std::string& name) {
    if (manifest_.vars.count(name)) return;
    if (auto loop = std::find(visiting.begin(), visiting.end(), name); loop != visiting.end()) {
      std::string chain;
      for (auto it = loop; it != visiting.end(); ++it) chain += *it + " -> ";
      error(where[name], loop + 1 == visiting.end()
                             ? "variable \"" + name + "\" refers to itself; a variable cannot use its own value"
                             : "variables refer to each other in a loop: " + chain + name);
      manifest_.vars[name] = raw[name];
      return;
    }
    visiting.push_back(name);
    const std::string& text = raw[name];
    for (std::size_t i = text.find("${"); i != std::string::npos; i = text.find("${", i + 2)) {
      if (i > 0 && text[i - 1] == '$') continue;
      auto close = text.find('}', i);
      if (close == std::string::npos) break;
      std::string ref = text.substr(i + 2, close - i - 2);
      if (raw.count(ref)) resolve(ref);
    }
    Variables local = scope;
    for (const auto& [k, v] : manifest_.vars) local[k] = v;
    manifest_.vars[name] = substitute(text, local, where[name], diagnostics_);
    visiting.pop_back();
  };
  for (const auto& [name, text] : raw) resolve(name);
  // What "auto" chose, and why, now that the variables its text uses are known.
  Variables why_scope = scope;
  for (const auto& [k, v] : manifest_.vars) why_scope[k] = v;
  for (std::size_t i = 0; i < matrix_choices.choices.size(); ++i) {
    VariableChoice c = matrix_choices.choices[i];
    if (!c.why.empty()) c.why = substitute(c.why, why_scope, matrix_choices.why_pos[i], diagnostics_);
    manifest_.choices.push_back(c);
  }
  unresolved_choice_ = matrix_choices.refusal;
  // The variables "auto" left without a value (its selector and its rows'
  // columns), and every one built from them.
  waiting_on_choice_ = with_users(raw, matrix_choices.unresolved);
  // Which values the user chose: the --set names, and every variable whose
  // text uses one of them.
  std::set<std::string> set_names;
  for (const auto& [key, value] : overrides_)
    if (raw.count(key)) set_names.insert(key);
  manifest_.from_command_line = with_users(raw, std::move(set_names));
}

// NAMES, then, until nothing more is found, every variable of RAW whose text
// uses one of them.
std::set<std::string> Loader::with_users(const Variables& raw, std::set<std::string> names) {
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [name, text] : raw) {
      if (names.count(name)) continue;
      for (const auto& ref : referenced_variables(text)) {
        if (!names.count(ref)) continue;
        names.insert(name);
        grew = true;
        break;
      }
    }
  }
  return names;
}


std::string Loader::join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}


bool Loader::step_applies(const ManifestStep& step, const Variables& scope) const {
  if (!step.when) return true;
  try {
    return step.when->evaluate([&](const std::string& name) -> std::optional<std::string> {
      auto it = scope.find(name);
      return it == scope.end() ? std::nullopt : std::optional<std::string>(it->second);
    });
  } catch (const Error&) {
    return true;  // its own diagnostic says why
  }
}


void Loader::read_steps(const toml::table& root) {
  const std::string& file = source_.display;
  const toml::node* n = root.get("step");
  if (!n) {
    error(SourcePos{file, 1, 1}, "the manifest has no steps (add [[step]] tables)");
    return;
  }
  if (!n->is_array_of_tables()) {
    error(toml_pos(*n, file), "\"step\" must be written as [[step]] tables, not " + toml_type_name(*n));
    return;
  }
  const Variables host_vars = host_.as_variables();
  Variables scope = host_vars;
  for (const auto& [k, v] : manifest_.vars) scope[k] = v;
  std::vector<std::string> kind_names;
  for (const auto& k : step_kinds()) kind_names.push_back(k.name);
  std::map<std::string, SourcePos> ids;

  std::size_t index = 0;
  for (const toml::node& node : *n->as_array()) {
    const toml::table& t = *node.as_table();
    ManifestStep step;
    step.pos = toml_pos(t, file);
    step.origin = index++ < base_steps_ ? manifest_.base_name : manifest_.name;
    if (const toml::node* id = t.get("id"); !id) {
      error(step.pos, "a step needs the key \"id\"");
    } else if (!id->is_string()) {
      error(toml_pos(*id, file), "\"id\" must be a string, not " + toml_type_name(*id));
    } else {
      step.id = id->as_string()->get();
      if (!is_identifier(step.id, true)) {
        error(toml_pos(*id, file), "step id \"" + step.id + "\" must start with a letter and hold only letters, "
                                                           "digits, '-' and '_'");
      } else if (auto seen = ids.find(step.id); seen != ids.end()) {
        error(toml_pos(*id, file), "duplicate step id \"" + step.id + "\" (first used on line " +
                                       std::to_string(seen->second.line) + "); each step needs its own id");
      } else {
        ids[step.id] = toml_pos(*id, file);
      }
    }
    if (const toml::node* name = t.get("name")) {
      if (name->is_string()) step.name = substitute(name->as_string()->get(), scope, toml_pos(*name, file), diagnostics_);
      else error(toml_pos(*name, file), "\"name\" must be a string, not " + toml_type_name(*name));
    }
    if (step.name.empty()) step.name = step.id;
    if (const toml::node* when = t.get("when")) read_when(*when, step);

    const toml::node* kind = t.get("kind");
    if (!kind) {
      error(step.pos, (step.id.empty() ? std::string("a step") : "step \"" + step.id + "\"") +
                          " needs the key \"kind\" (`wslgpu-setup kinds` lists the kinds)");
      continue;
    }
    if (!kind->is_string()) {
      error(toml_pos(*kind, file), "\"kind\" must be a string, not " + toml_type_name(*kind));
      continue;
    }
    step.kind = kind->as_string()->get();
    const StepKind* k = find_step_kind(step.kind);
    if (!k) {
      std::string hint = suggest(step.kind, kind_names);
      error(toml_pos(*kind, file), "unknown step kind \"" + step.kind + "\"" +
                                       (hint.empty() ? " (known: " + join(kind_names) + ")"
                                                     : " (did you mean \"" + hint + "\"?)"));
      continue;
    }
    // A step built from a variable that [matrix]'s "auto" left without a
    // value here is not built, whether its `when` holds or not: its keys
    // would be errors of the profile (`"auto" is not a Python version`)
    // where the machine is the cause, and the load ends in that refusal
    // instead (unresolved_choice_).
    if (!waiting_on_choice_.empty() && references_any(t, waiting_on_choice_)) continue;
    // A value built from a fact this machine does not have: name the
    // fact and where it comes from, never the "" it would become. A
    // skipped step still loads, with a placeholder that says so.
    std::vector<std::pair<std::string, SourcePos>> empty_facts;
    empty_host_facts(t, host_vars, file, empty_facts);
    Variables step_scope = scope;
    if (!empty_facts.empty()) {
      if (step_applies(step, scope)) {
        empty_fact_errors_ += empty_facts.size();
        for (const auto& [fact, pos] : empty_facts)
          error(pos, "${" + fact + "} is empty on this machine (it comes from " + host_fact_origin(fact) +
                         "), so step \"" + step.id + "\" cannot be written");
        continue;
      }
      for (const auto& [fact, pos] : empty_facts) step_scope[fact] = "unknown-" + fact.substr(5);
    }
    StepKeys kind_keys(t, file, step.kind, step_scope, diagnostics_, manifest_.from_command_line);
    for (const char* common : {"id", "kind", "name", "when"}) kind_keys.mark_common(common);
    step.step = k->make(kind_keys);
    kind_keys.finish();
    manifest_.steps.push_back(std::move(step));
  }
}


void Loader::read_when(const toml::node& node, ManifestStep& step) {
  const std::string& file = source_.display;
  if (!node.is_string()) {
    error(toml_pos(node, file), "\"when\" must be a condition written as a string, not " + toml_type_name(node));
    return;
  }
  std::string text = node.as_string()->get();
  std::string message;
  std::size_t column = 0;
  step.when = Condition::parse(text, message, column);
  SourcePos p = toml_pos(node, file);
  if (!step.when) {
    if (columns_match_source(text, column)) p.column += static_cast<std::uint32_t>(column + 1);
    error(p, "bad condition: " + message);
    return;
  }
  std::set<std::string> names;
  step.when->names(names);
  auto host_vars = host_.as_variables();
  for (const auto& name : names) {
    if (manifest_.vars.count(name) || host_vars.count(name)) continue;
    std::vector<std::string> known;
    for (const auto& [k, v] : manifest_.vars) known.push_back(k);
    for (const auto& [k, v] : host_vars) known.push_back(k);
    std::string hint = suggest(name, known);
    SourcePos at = p;
    if (auto offset = text.find(name); offset != std::string::npos && columns_match_source(text, offset))
      at.column += static_cast<std::uint32_t>(offset + 1);
    error(at, "condition refers to \"" + name + "\", which is neither a variable nor a host fact" +
                  (hint.empty() ? " (define it in [vars], or use host.NAME for a fact of the machine)"
                                : " (did you mean \"" + hint + "\"?)"));
  }
}

}  // namespace manifest_loading

ManifestSource find_manifest(const std::string& profile_or_file) {
  const std::string& arg = profile_or_file;
  bool is_path = arg.find('/') != std::string::npos ||
                 (arg.size() > 5 && arg.compare(arg.size() - 5, 5, ".toml") == 0);
  if (is_path) {
    std::ifstream in(arg, std::ios::binary);
    if (!in) throw InputError(SourcePos{arg, 0, 0}, "cannot read the manifest: no such file, or not readable");
    std::ostringstream text;
    text << in.rdbuf();
    return {arg, text.str(), false};
  }
  std::vector<std::string> names;
  for (const auto& m : bundled_manifests()) {
    if (m.name == arg) return {std::string(m.path), std::string(m.content), true};
    names.emplace_back(m.name);
  }
  std::string hint = suggest(arg, names);
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw InputError(SourcePos{arg, 0, 0}, "no bundled profile is called \"" + arg + "\"" +
                                             (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)") +
                                             "; bundled: " + list + ". A manifest file needs a path such as ./" +
                                             arg + ".toml");
}

Manifest load_manifest(const ManifestSource& source, const Variables& overrides, const HostFacts& host,
                       const LoadOptions& options) {
  return manifest_loading::Loader(source, overrides, host, options).load();
}

}  // namespace wslgpu
