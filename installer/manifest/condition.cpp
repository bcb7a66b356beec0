#include "installer/manifest/condition.hpp"

#include <cctype>
#include <vector>

#include "installer/system/error.hpp"
#include "installer/host/host.hpp"

namespace wslgpu {

namespace {

using Lookup = std::function<std::optional<std::string>(const std::string&)>;

struct Token {
  enum Kind { name, literal, op, lparen, rparen, end } kind;
  std::string text;
  std::size_t column;
};

struct Node {
  virtual ~Node() = default;
  virtual std::string value(const Lookup&) const = 0;
  virtual bool truth(const Lookup& l) const {
    std::string v = value(l);
    return v == "true" || v == "yes" || v == "1";
  }
  virtual void names(std::set<std::string>&) const {}
};
using NodePtr = std::unique_ptr<Node>;

struct Literal : Node {
  std::string text;
  explicit Literal(std::string t) : text(std::move(t)) {}
  std::string value(const Lookup&) const override { return text; }
};

struct Name : Node {
  std::string name;
  explicit Name(std::string n) : name(std::move(n)) {}
  std::string value(const Lookup& l) const override {
    auto v = l(name);
    if (!v) throw Error(ExitCode::bad_input, "condition refers to \"" + name + "\", which is not defined");
    return *v;
  }
  void names(std::set<std::string>& out) const override { out.insert(name); }
};

struct Not : Node {
  NodePtr inner;
  explicit Not(NodePtr n) : inner(std::move(n)) {}
  std::string value(const Lookup& l) const override { return truth(l) ? "true" : "false"; }
  bool truth(const Lookup& l) const override { return !inner->truth(l); }
  void names(std::set<std::string>& out) const override { inner->names(out); }
};

struct Binary : Node {
  std::string op;
  NodePtr lhs, rhs;
  Binary(std::string o, NodePtr a, NodePtr b) : op(std::move(o)), lhs(std::move(a)), rhs(std::move(b)) {}
  std::string value(const Lookup& l) const override { return truth(l) ? "true" : "false"; }
  bool truth(const Lookup& l) const override {
    if (op == "&&") return lhs->truth(l) && rhs->truth(l);
    if (op == "||") return lhs->truth(l) || rhs->truth(l);
    std::string a = lhs->value(l), b = rhs->value(l);
    if (op == "==") return a == b;
    if (op == "!=") return a != b;
    int c = compare_versions(a, b);
    if (op == "<") return c < 0;
    if (op == "<=") return c <= 0;
    if (op == ">") return c > 0;
    return c >= 0;
  }
  void names(std::set<std::string>& out) const override {
    lhs->names(out);
    rhs->names(out);
  }
};

struct SyntaxError {
  std::string message;
  std::size_t column;
};

std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '(' || c == ')') {
      out.push_back({c == '(' ? Token::lparen : Token::rparen, std::string(1, c), i});
      ++i;
    } else if (c == '\'' || c == '"') {
      auto close = s.find(c, i + 1);
      if (close == std::string::npos) throw SyntaxError{"unterminated string", i};
      out.push_back({Token::literal, s.substr(i + 1, close - i - 1), i});
      i = close + 1;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t start = i;
      bool numeric = std::isdigit(static_cast<unsigned char>(c));
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '.' || s[i] == '-'))
        ++i;
      std::string word = s.substr(start, i - start);
      out.push_back({numeric ? Token::literal : Token::name, word, start});
    } else {
      static const char* ops[] = {"==", "!=", "<=", ">=", "&&", "||", "<", ">", "!"};
      bool matched = false;
      for (const char* op : ops) {
        std::string o = op;
        if (s.compare(i, o.size(), o) == 0) {
          out.push_back({Token::op, o, i});
          i += o.size();
          matched = true;
          break;
        }
      }
      if (!matched) {
        if (c == '=') throw SyntaxError{"unexpected \"=\" (compare with \"==\")", i};
        if (c == '&' || c == '|') throw SyntaxError{std::string("unexpected \"") + c + "\" (write \"" + c + c + "\")", i};
        throw SyntaxError{std::string("unexpected character '") + c + "'", i};
      }
    }
  }
  out.push_back({Token::end, "", s.size()});
  return out;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> t) : tokens_(std::move(t)) {}
  NodePtr parse() {
    auto n = parse_or();
    if (peek().kind != Token::end) throw unexpected(peek());
    return n;
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  static SyntaxError unexpected(const Token& t) {
    std::string hint;
    if (t.text == "and" || t.text == "or" || t.text == "not") hint = " (write && || and ! to combine conditions)";
    else if (t.kind == Token::name || t.kind == Token::literal) hint = " (an operator such as == or && is missing before it)";
    return SyntaxError{"unexpected \"" + t.text + "\"" + hint, t.column};
  }
  bool accept_op(const std::string& op) {
    if (peek().kind == Token::op && peek().text == op) {
      ++pos_;
      return true;
    }
    return false;
  }
  NodePtr parse_or() {
    auto n = parse_and();
    while (accept_op("||")) n = std::make_unique<Binary>("||", std::move(n), parse_and());
    return n;
  }
  NodePtr parse_and() {
    auto n = parse_cmp();
    while (accept_op("&&")) n = std::make_unique<Binary>("&&", std::move(n), parse_cmp());
    return n;
  }
  NodePtr parse_cmp() {
    auto n = parse_unary();
    for (const char* op : {"==", "!=", "<=", ">=", "<", ">"}) {
      if (accept_op(op)) return std::make_unique<Binary>(op, std::move(n), parse_unary());
    }
    return n;
  }
  NodePtr parse_unary() {
    if (accept_op("!")) return std::make_unique<Not>(parse_unary());
    const Token& t = peek();
    if (t.kind == Token::lparen) {
      const std::size_t open_column = t.column;
      ++pos_;
      auto n = parse_or();
      if (peek().kind == Token::end) throw SyntaxError{"this \"(\" is never closed", open_column};
      if (peek().kind != Token::rparen) throw SyntaxError{"expected \")\", not \"" + peek().text + "\"", peek().column};
      ++pos_;
      return n;
    }
    if (t.kind == Token::name) {
      ++pos_;
      return std::make_unique<Name>(t.text);
    }
    if (t.kind == Token::literal) {
      ++pos_;
      return std::make_unique<Literal>(t.text);
    }
    std::string after = pos_ > 0 ? " after \"" + tokens_[pos_ - 1].text + "\"" : "";
    if (t.kind == Token::end)
      throw SyntaxError{pos_ == 0 ? "the condition is empty"
                                  : "the condition ends too early: expected a name, a quoted string or a number" + after,
                        t.column};
    throw SyntaxError{"expected a name, a quoted string or a number" + after + ", not \"" + t.text + "\"", t.column};
  }
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
};

class ParsedCondition : public Condition {
 public:
  ParsedCondition(std::string text, NodePtr root) : root_(std::move(root)) { text_ = std::move(text); }
  bool evaluate(const Lookup& lookup) const override { return root_->truth(lookup); }
  void names(std::set<std::string>& out) const override { root_->names(out); }

 private:
  NodePtr root_;
};

}  // namespace

std::shared_ptr<const Condition> Condition::parse(const std::string& text, std::string& error, std::size_t& error_column) {
  try {
    Parser p(tokenize(text));
    return std::make_shared<ParsedCondition>(text, p.parse());
  } catch (const SyntaxError& e) {
    error = e.message;
    error_column = e.column;
    return nullptr;
  }
}

}  // namespace wslgpu
