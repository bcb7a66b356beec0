// `when` conditions on steps: a small expression language over manifest
// variables and host facts, parsed when the manifest is loaded (so a typo is
// a load error with its position) and evaluated when the plan is resolved.
//
//   when = "host.gpu_vendor == 'amd' && rocm_version >= '7.1'"
//
// Operands: a variable name, host.NAME, a quoted string or a bare number.
// Operators: == != (text), < <= > >= (dotted versions, by numeric part),
// && || ! and parentheses. A lone operand is true when it is "true", "yes"
// or "1".
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace wslgpu {

class Condition {
 public:
  // Parses TEXT. On a syntax error returns nullptr and sets ERROR to a
  // message and ERROR_COLUMN to the 0-based offset where it was found.
  static std::shared_ptr<const Condition> parse(const std::string& text, std::string& error, std::size_t& error_column);

  virtual ~Condition() = default;

  // Evaluates with LOOKUP giving the value of a name (nullopt: undefined,
  // which evaluate reports by throwing Error(bad_input)).
  virtual bool evaluate(const std::function<std::optional<std::string>(const std::string&)>& lookup) const = 0;

  // The names the expression refers to, for checking at load time.
  virtual void names(std::set<std::string>& out) const = 0;

  const std::string& text() const { return text_; }

 protected:
  std::string text_;
};

}  // namespace wslgpu
