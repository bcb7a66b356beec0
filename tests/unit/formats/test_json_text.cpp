#include <doctest/doctest.h>

#include "installer/formats/json_text.hpp"
#include "installer/system/error.hpp"

using namespace wslgpu;

namespace {

// What `nvidia-ctk runtime configure --runtime=docker` adds to daemon.json.
const nlohmann::json kNvidiaRuntime = {
    {"runtimes", {{"nvidia", {{"args", nlohmann::json::array()}, {"path", "nvidia-container-runtime"}}}}}};

// What nvidia-ctk writes for a missing or empty daemon.json: Go's
// json.MarshalIndent with 4 spaces, and a final newline.
const std::string kNvidiaCtkDaemonJson =
    "{\n"
    "    \"runtimes\": {\n"
    "        \"nvidia\": {\n"
    "            \"args\": [],\n"
    "            \"path\": \"nvidia-container-runtime\"\n"
    "        }\n"
    "    }\n"
    "}\n";

std::string merged_text(const std::string& text, const nlohmann::json& patch = kNvidiaRuntime) {
  return merge_json_text(text, patch, "daemon.json").text;
}

// The message of the InputError that merging PATCH into TEXT throws.
std::string merge_error(const std::string& text, const nlohmann::json& patch = kNvidiaRuntime) {
  try {
    merge_json_text(text, patch, "daemon.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("json_text: an empty or blank file becomes the object nvidia-ctk writes, with a final newline") {
  CHECK(merged_text("") == kNvidiaCtkDaemonJson);
  CHECK(merged_text("  \n\n\t") == kNvidiaCtkDaemonJson);
  auto m = merge_json_text("", kNvidiaRuntime, "daemon.json");
  REQUIRE(m.changes.size() == 1);
  CHECK(m.changes[0].added);
  CHECK(json_key_path(m.changes[0].key_path) == "runtimes");
}

TEST_CASE("json_text: an empty object gets the members at 4 spaces, and the text after it stays as it was") {
  CHECK(merged_text("{}\n") == kNvidiaCtkDaemonJson);
  // No final newline: none is added.
  CHECK(merged_text("{}") == kNvidiaCtkDaemonJson.substr(0, kNvidiaCtkDaemonJson.size() - 1));
  CHECK(merged_text("{ }\n\n") == kNvidiaCtkDaemonJson + "\n");
}

TEST_CASE("json_text: other keys with a 2-space indent stay byte for byte; only the new member is added, at 2 spaces") {
  const std::string before =
      "{\n"
      "  \"log-driver\": \"json-file\",\n"
      "  \"log-opts\": {\n"
      "    \"max-size\": \"10m\"\n"
      "  }\n"
      "}\n";
  auto m = merge_json_text(before, kNvidiaRuntime, "daemon.json");
  CHECK(m.text ==
        "{\n"
        "  \"log-driver\": \"json-file\",\n"
        "  \"log-opts\": {\n"
        "    \"max-size\": \"10m\"\n"
        "  },\n"
        "  \"runtimes\": {\n"
        "    \"nvidia\": {\n"
        "      \"args\": [],\n"
        "      \"path\": \"nvidia-container-runtime\"\n"
        "    }\n"
        "  }\n"
        "}\n");
  // Everything up to the last member's value is the file as it was.
  std::string kept = before.substr(0, before.rfind('}'));
  kept = kept.substr(0, kept.rfind('}') + 1);
  CHECK(m.text.rfind(kept, 0) == 0);
  REQUIRE(m.changes.size() == 1);
  CHECK(json_key_path(m.changes[0].key_path) == "runtimes");
}

TEST_CASE("json_text: an existing runtimes object keeps its other runtime; nvidia is added after it") {
  const std::string before =
      "{\n"
      "    \"data-root\": \"/srv/docker\",\n"
      "    \"runtimes\": {\n"
      "        \"crun\": {\n"
      "            \"path\": \"/usr/bin/crun\"\n"
      "        }\n"
      "    }\n"
      "}\n";
  auto m = merge_json_text(before, kNvidiaRuntime, "daemon.json");
  CHECK(m.text ==
        "{\n"
        "    \"data-root\": \"/srv/docker\",\n"
        "    \"runtimes\": {\n"
        "        \"crun\": {\n"
        "            \"path\": \"/usr/bin/crun\"\n"
        "        },\n"
        "        \"nvidia\": {\n"
        "            \"args\": [],\n"
        "            \"path\": \"nvidia-container-runtime\"\n"
        "        }\n"
        "    }\n"
        "}\n");
  REQUIRE(m.changes.size() == 1);
  CHECK(json_key_path(m.changes[0].key_path) == "runtimes.nvidia");
  CHECK(m.changes[0].added);
  CHECK(m.changes[0].to == kNvidiaRuntime["runtimes"]["nvidia"]);
}

TEST_CASE("json_text: an already configured file comes back unchanged, whatever its key order and spacing") {
  CHECK(merged_text(kNvidiaCtkDaemonJson) == kNvidiaCtkDaemonJson);
  const std::string reordered =
      "{\"runtimes\":{\"nvidia\":{\"path\":\"nvidia-container-runtime\",\"args\":[ ]}},\"debug\":true}";
  auto m = merge_json_text(reordered, kNvidiaRuntime, "daemon.json");
  CHECK(m.text == reordered);
  CHECK(m.changes.empty());
  CHECK(merge_json_text("{\"a\": 1}", nlohmann::json::object(), "f").text == "{\"a\": 1}");
}

TEST_CASE("json_text: numbers compare as JSON values, so 1.0 equals 1 and is left as written") {
  auto m = merge_json_text("{\"max-concurrent-downloads\": 3.0}\n", {{"max-concurrent-downloads", 3}}, "f");
  CHECK(m.text == "{\"max-concurrent-downloads\": 3.0}\n");
  CHECK(m.changes.empty());
  auto changed = merge_json_text("{\"max-concurrent-downloads\": 3.5}\n", {{"max-concurrent-downloads", 3}}, "f");
  CHECK(changed.text == "{\"max-concurrent-downloads\": 3}\n");
}

TEST_CASE("json_text: a value that differs is replaced where it is, an array written as MarshalIndent would") {
  const std::string before =
      "{\n"
      "  \"default-runtime\": \"runc\",\n"
      "  \"dns\": [\"8.8.8.8\"],\n"
      "  \"debug\": false\n"
      "}\n";
  auto m =
      merge_json_text(before, {{"default-runtime", "nvidia"}, {"dns", {"1.1.1.1", "8.8.8.8"}}, {"debug", false}}, "f");
  CHECK(m.text ==
        "{\n"
        "  \"default-runtime\": \"nvidia\",\n"
        "  \"dns\": [\n"
        "    \"1.1.1.1\",\n"
        "    \"8.8.8.8\"\n"
        "  ],\n"
        "  \"debug\": false\n"
        "}\n");
  REQUIRE(m.changes.size() == 2);
  CHECK(json_key_path(m.changes[0].key_path) == "default-runtime");
  CHECK_FALSE(m.changes[0].added);
  CHECK(m.changes[0].from == "runc");
  CHECK(m.changes[0].to == "nvidia");
  CHECK(json_key_path(m.changes[1].key_path) == "dns");
  // A table over a value that is not one would lose that value: refused (below); a plain value replaces an object.
  CHECK(merged_text("{\"log-opts\": {\"max-size\": \"10m\"}}", {{"log-opts", "none"}}) == "{\"log-opts\": \"none\"}");
}

TEST_CASE("json_text: an object written on one line stays on one line, spaced as it is") {
  CHECK(merged_text("{\"log-driver\": \"json-file\"}\n") ==
        "{\"log-driver\": \"json-file\", \"runtimes\": {\"nvidia\": {\"args\": [], \"path\": "
        "\"nvidia-container-runtime\"}}}\n");
  CHECK(merged_text("{\"a\":1,\"b\":2}") ==
        "{\"a\":1,\"b\":2,\"runtimes\":{\"nvidia\":{\"args\":[],\"path\":\"nvidia-container-runtime\"}}}");
  // An empty object inside a one-line object stays on one line too.
  CHECK(merged_text("{\"runtimes\": {}}") ==
        "{\"runtimes\": {\"nvidia\": {\"args\": [], \"path\": \"nvidia-container-runtime\"}}}");
}

TEST_CASE("json_text: CRLF line endings are kept, and new lines get them too") {
  const std::string before = "{\r\n  \"debug\": true\r\n}\r\n";
  CHECK(merged_text(before, {{"runtimes", {{"nvidia", {{"path", "nvidia-container-runtime"}}}}}}) ==
        "{\r\n  \"debug\": true,\r\n  \"runtimes\": {\r\n    \"nvidia\": {\r\n      \"path\": "
        "\"nvidia-container-runtime\"\r\n    }\r\n  }\r\n}\r\n");
  CHECK(merged_text("\r\n") ==
        "{\r\n    \"runtimes\": {\r\n        \"nvidia\": {\r\n            \"args\": [],\r\n"
        "            \"path\": \"nvidia-container-runtime\"\r\n        }\r\n    }\r\n}\r\n");
}

TEST_CASE("json_text: a file without a final newline gets none") {
  CHECK(merged_text("{\n\t\"debug\": true\n}", {{"iptables", false}}) ==
        "{\n\t\"debug\": true,\n\t\"iptables\": false\n}");
}

TEST_CASE("json_text: the indent unit is guessed from the file, tabs included, for members deeper than any there") {
  CHECK(merged_text("{\n\t\"debug\": true\n}\n") ==
        "{\n\t\"debug\": true,\n\t\"runtimes\": {\n\t\t\"nvidia\": {\n\t\t\t\"args\": [],\n\t\t\t\"path\": "
        "\"nvidia-container-runtime\"\n\t\t}\n\t}\n}\n");
  // An empty object inside a 3-space file: its members go 3 deeper than its line.
  CHECK(merged_text("{\n   \"runtimes\": {}\n}\n", {{"runtimes", {{"x", 1}}}}) ==
        "{\n   \"runtimes\": {\n      \"x\": 1\n   }\n}\n");
}

TEST_CASE("json_text: merging through a key that holds no object is an error naming the key path and where it is") {
  CHECK(merge_error("{\n    \"runtimes\": []\n}\n") ==
        "daemon.json:2:17: runtimes is an array, not an object, so runtimes.nvidia cannot be merged into it "
        "(replacing it would lose what it holds): make it an object, or remove it, then run again");
  CHECK(merge_error("{\"runtimes\": {\"nvidia\": \"x\"}}") ==
        "daemon.json:1:25: runtimes.nvidia is a string, not an object, so runtimes.nvidia.args cannot be merged into "
        "it (replacing it would lose what it holds): make it an object, or remove it, then run again");
  CHECK(merge_error("[]\n") ==
        "daemon.json:1:1: the JSON text is an array, not an object, so no keys can be merged into it");
}

TEST_CASE("json_text: malformed JSON is an error with its line and column") {
  CHECK(merge_error("{\n  \"debug\": true,\n}\n") ==
        "daemon.json:3:1: a comma before '}' is not allowed in JSON: remove it");
  CHECK(merge_error("{\n  // mine\n  \"debug\": true\n}\n") ==
        "daemon.json:2:3: expected a key in double quotes, found comment (JSON has none)");
  CHECK(merge_error("{\n  \"debug\": true\n") ==
        "daemon.json:3:1: expected ',' or '}' after a member of the object, found end of the file");
  CHECK(merge_error("{\"debug\": True}") ==
        "daemon.json:1:11: expected a JSON value (an object, array, string, number, true, false or null), found 'T'");
  CHECK(merge_error("{\"a\": 01}") == "daemon.json:1:8: a JSON number cannot start with 0 followed by digits");
  CHECK(merge_error("{\"a\": \"x\ty\"}") ==
        "daemon.json:1:9: a control character (U+0009) must be written as an escape such as \\n in a JSON string");
  CHECK(merge_error("{\"a\": \"\\x\"}") ==
        "daemon.json:1:9: unknown escape \\x in a JSON string; write a backslash as \\\\");
  CHECK(merge_error("{\"a\": 1} x") == "daemon.json:1:10: unexpected 'x' after the end of the JSON value");
  CHECK(merge_error("{\"a\": \"open}") == "daemon.json:1:7: this string has no closing '\"'");
  CHECK(merge_error("{\"a\": 1e999}") == "daemon.json:1:7: the number 1e999 is too large for a JSON reader to hold");
}

TEST_CASE("json_text: columns count characters, not bytes, and text that is not UTF-8 is refused") {
  // "é" is two bytes, one column.
  CHECK(merge_error("{\"\xC3\xA9\": 1,}") == "daemon.json:1:9: a comma before '}' is not allowed in JSON: remove it");
  CHECK(merge_error("{\"a\": \"\xC3(\"}") ==
        "daemon.json:1:8: the file is not valid UTF-8 here (byte 0xC3); JSON text must be UTF-8");
  CHECK(merge_error("{\"a\": \"\xED\xA0\x80\"}") ==
        "daemon.json:1:8: the file is not valid UTF-8 here (byte 0xED); JSON text must be UTF-8");
  CHECK(merge_error("\xEF\xBB\xBF{}") ==
        "daemon.json:1:1: the file starts with a UTF-8 byte-order mark, which JSON does not allow (RFC 8259, section "
        "8.1) and Go's encoding/json refuses: save it without one");
  CHECK(merge_error("{\"a\": \"\\ud800\"}") ==
        "daemon.json:1:8: \\u escape of a high surrogate not followed by a \\u low surrogate");
  CHECK(parse_json_text("\"\\ud83d\\ude00 \\u00e9\"", "f") == "\xF0\x9F\x98\x80 \xC3\xA9");
}

TEST_CASE("json_text: a key written twice in one object is an error naming both places") {
  CHECK(
      merge_error("{\n  \"debug\": true,\n  \"debug\": false\n}\n") ==
      "daemon.json:3:3: key \"debug\" appears twice in this object (first at line 2, column 3); JSON readers disagree "
      "on which one counts: remove one of them");
  // The same key in two objects is no duplicate.
  CHECK(parse_json_text("{\"a\": {\"x\": 1}, \"b\": {\"x\": 2}}", "f") ==
        nlohmann::json{{"a", {{"x", 1}}}, {"b", {{"x", 2}}}});
}

TEST_CASE("json_text: nesting deeper than 256 levels is refused instead of recursed into") {
  std::string deep(300, '[');
  deep += std::string(300, ']');
  CHECK_THROWS_WITH_AS(parse_json_text(deep, "f"), "f:1:257: values are nested more than 256 deep", InputError);
  CHECK(parse_json_text(std::string(256, '[') + std::string(256, ']'), "f").is_array());
}

TEST_CASE("json_text: key paths quote what is not a plain word") {
  CHECK(json_key_path({"runtimes", "nvidia"}) == "runtimes.nvidia");
  CHECK(json_key_path({"log-opts", "a.b", ""}) == "log-opts.\"a.b\".\"\"");
}
