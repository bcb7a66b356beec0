// The CDI spec reader and writer (installer/formats/cdi_spec.hpp): YAML and
// JSON read to the same data, the fields CDI requires are checked with the
// LINE:COLUMN of the problem, the host paths a spec names are listed, and
// what the writer prints reads back as the same data.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "installer/formats/cdi_spec.hpp"
#include "support/build_paths.hpp"
#include "support/fakes.hpp"

using namespace wslgpu;

namespace {

std::string cdi_data_file(const std::string& name) {
  std::ifstream in(std::string(wslgpu::testing::kSourceDir) + "/tests/unit/formats/data/cdi/" + name, std::ios::binary);
  REQUIRE_MESSAGE(in, "cannot read " << name);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The error read_cdi_spec gives for TEXT ("LINE:COLUMN: message"), "" if none.
std::string cdi_error(const std::string& text) {
  try {
    read_cdi_spec(text);
  } catch (const CdiSpecError& e) {
    return e.what();
  }
  return "";
}

const char* const kAmdYaml = R"(cdiVersion: 0.3.0
kind: amd.com/gpu
devices:
  - name: all
    containerEdits:
      deviceNodes:
        - path: /dev/dxg
containerEdits:
  env:
    - HSA_ENABLE_DXG_DETECTION=1
  mounts:
    - hostPath: /usr/lib/wsl/lib/libdxcore.so
      containerPath: /usr/lib/libdxcore.so
      options: [ro, nosuid, nodev, bind]
)";

const char* const kAmdJson = R"({
  "cdiVersion": "0.3.0",
  "kind": "amd.com/gpu",
  "devices": [{"name": "all", "containerEdits": {"deviceNodes": [{"path": "/dev/dxg"}]}}],
  "containerEdits": {
    "env": ["HSA_ENABLE_DXG_DETECTION=1"],
    "mounts": [{"hostPath": "/usr/lib/wsl/lib/libdxcore.so", "containerPath": "/usr/lib/libdxcore.so",
                "options": ["ro", "nosuid", "nodev", "bind"]}]
  }
})";

}  // namespace

TEST_CASE("cdi spec: YAML and JSON forms of one spec read to the same fields and the same data") {
  CdiSpec y = read_cdi_spec(kAmdYaml);
  CdiSpec j = read_cdi_spec(kAmdJson);
  CHECK(y.data == j.data);
  for (const CdiSpec* s : {&y, &j}) {
    CHECK(s->cdi_version == "0.3.0");
    CHECK(s->kind == "amd.com/gpu");
    REQUIRE(s->devices.size() == 1);
    CHECK(s->devices[0].name == "all");
    REQUIRE(s->devices[0].edits.device_nodes.size() == 1);
    CHECK(s->devices[0].edits.device_nodes[0].path == "/dev/dxg");
    CHECK(s->devices[0].edits.device_nodes[0].host_path == "/dev/dxg");  // no hostPath: the same as path
    CHECK(s->edits.env == std::vector<std::string>{"HSA_ENABLE_DXG_DETECTION=1"});
    REQUIRE(s->edits.mounts.size() == 1);
    CHECK(s->edits.mounts[0].host_path == "/usr/lib/wsl/lib/libdxcore.so");
    CHECK(s->edits.mounts[0].container_path == "/usr/lib/libdxcore.so");
    CHECK(s->edits.mounts[0].options == std::vector<std::string>{"ro", "nosuid", "nodev", "bind"});
  }
}

TEST_CASE("cdi spec: NVIDIA's WSL spec reads with its device, mounts and hooks, and lists every host path once") {
  CdiSpec s = read_cdi_spec(cdi_data_file("nvidia-wsl.yaml"));
  const std::string store = "/usr/lib/wsl/drivers/nv_dispi.inf_amd64_7e5b2f1c9d3a4b60/";
  CHECK(s.kind == "nvidia.com/gpu");
  REQUIRE(s.devices.size() == 1);
  CHECK(s.devices[0].name == "all");
  CHECK(s.devices[0].edits.device_nodes.at(0).path == "/dev/dxg");
  CHECK(s.edits.mounts.size() == 12);
  REQUIRE(s.edits.hooks.size() == 2);
  CHECK(s.edits.hooks[0].hook_name == "createContainer");
  CHECK(s.edits.hooks[0].path == "/usr/bin/nvidia-cdi-hook");
  CHECK(s.edits.hooks[1].args == std::vector<std::string>{"nvidia-cdi-hook", "update-ldcache", "--folder",
                                                          store.substr(0, store.size() - 1), "--folder",
                                                          "/usr/lib/wsl/lib"});
  auto paths = cdi_host_paths(s);
  // The common edits first (mounts, then the hook program, named by both
  // hooks but listed once), then the device's node.
  REQUIRE(paths.size() == 14);
  CHECK(paths.front() == "/usr/lib/wsl/lib/libdxcore.so");
  CHECK(paths[1] == store + "libcuda.so.1.1");
  CHECK(paths[12] == "/usr/bin/nvidia-cdi-hook");
  CHECK(paths.back() == "/dev/dxg");
}

TEST_CASE("cdi spec: a device node's hostPath is the host path when given") {
  CdiSpec s = read_cdi_spec(
      "cdiVersion: 0.5.0\nkind: amd.com/gpu\ndevices:\n- name: all\n  containerEdits:\n    deviceNodes:\n"
      "    - path: /dev/dxg\n      hostPath: /dev/dxg-host\n");
  CHECK(s.devices[0].edits.device_nodes[0].host_path == "/dev/dxg-host");
  CHECK(cdi_host_paths(s) == std::vector<std::string>{"/dev/dxg-host"});
}

TEST_CASE("cdi spec: what breaks the format is reported at its line and column") {
  const std::string head = "cdiVersion: 0.3.0\nkind: amd.com/gpu\n";
  // YAML that does not parse: yaml-cpp's own message and place.
  CHECK(cdi_error(head + "devices: [\n") == "4:1: end of sequence flow not found");
  CHECK(cdi_error(head + "kind: x.com/y\n") == "3:1: the key \"kind\" is given twice");
  CHECK(cdi_error("") == "0:0: the text is empty: no CDI spec in it");
  CHECK(cdi_error("- 1\n- 2\n") == "1:1: the spec must be a mapping, not a list");
  CHECK(cdi_error(head) == "1:1: the spec has no \"devices\", which CDI requires");
  CHECK(cdi_error(head + "devices: []\n") == "3:10: \"devices\" is empty: a CDI spec names at least one device");
  CHECK(cdi_error("kind: amd.com/gpu\ndevices: []\n") == "1:1: the spec has no \"cdiVersion\", which CDI requires");
  CHECK(cdi_error("cdiVersion: 0.3.0\nkind: gpu\ndevices: []\n") ==
        "2:7: the kind \"gpu\" is not VENDOR/CLASS with one '/' (for example \"amd.com/gpu\")");
  CHECK(cdi_error(head + "devices:\n- name: all\n") == "4:3: devices[0] has no \"containerEdits\", which CDI requires");
  CHECK(cdi_error(head + "devices:\n- name: -x\n  containerEdits: {}\n") ==
        "4:9: the device name \"-x\" does not start and end with a letter or digit");
  CHECK(cdi_error(head + "devices:\n- name: all\n  containerEdits:\n    mounts:\n    - hostPath: /a\n") ==
        "7:7: devices[0].containerEdits.mounts[0] has no \"containerPath\", which CDI requires");
  CHECK(cdi_error(head + "devices:\n- name: all\n  containerEdits:\n    deviceNodes:\n    - path: 5\n") ==
        "7:13: devices[0].containerEdits.deviceNodes[0].path must be a string, not a number");
  CHECK(cdi_error(head + "devices:\n- name: all\n  containerEdits:\n    env: [NOEQUALS]\n") ==
        "6:11: \"NOEQUALS\" is not NAME=VALUE");
  CHECK(cdi_error(head + "devices:\n- name: all\n  containerEdits:\n    hooks:\n    - path: /bin/x\n") ==
        "7:7: devices[0].containerEdits.hooks[0] has no \"hookName\", which CDI requires");
  // JSON is placed the same way.
  CHECK(cdi_error("{\"cdiVersion\": \"0.3.0\",\n \"kind\": \"amd.com/gpu\",\n \"devices\": [{\"name\": 7}]}") ==
        "3:23: devices[0].name must be a string, not a number");
}

TEST_CASE("cdi spec: aliases that would expand past any spec's size are refused, not expanded") {
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'j'; ++c, ++prev)
    text += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev +
            ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n";
  std::string err;
  try {
    cdi_spec_to_json(text);
  } catch (const CdiSpecError& e) {
    err = e.message();
  }
  CHECK(err == "too many nodes for a CDI spec (more than 100000)");
}

TEST_CASE("cdi spec: aliases of long keys are refused once their expansion passes 8 MiB, well under the node limit") {
  // 12,000 nodes, each placed by a path that holds the 1,000-character key.
  std::string key(1000, 'k');  // YAML allows implicit keys up to 1024 characters
  std::string text = "a: &a {" + key + ": [x, x, x, x, x, x, x, x, x, x]}\n";
  for (const char* name : {"b", "c", "d"}) {
    std::string prev = name == std::string("b") ? "a" : name == std::string("c") ? "b" : "c";
    text += std::string(name) + ": &" + name + " [";
    for (int i = 0; i < 10; ++i) text += (i ? ", *" : "*") + prev;
    text += "]\n";
  }
  std::string err;
  try {
    cdi_spec_to_json(text);
  } catch (const CdiSpecError& e) {
    err = e.message();
  }
  CHECK(err == "too large for a CDI spec (more than 8 MiB once its aliases are expanded)");
}

TEST_CASE("cdi spec: an alias reads as what its anchor names, and a problem in it is placed at the anchor") {
  // The reader builds the document from yaml-cpp's parser events, as
  // YAML::Load() would: an alias is the anchored node itself, an anchor
  // named again names the new node from there on.
  CHECK(cdi_spec_to_json("a: &x 1\nb: *x\nc: &x 2\nd: *x\n") == nlohmann::json{{"a", 1}, {"b", 1}, {"c", 2}, {"d", 2}});
  CHECK(cdi_spec_to_json("a:\n  - &x {k: v}\n  - *x\n") == nlohmann::json::parse(R"({"a": [{"k": "v"}, {"k": "v"}]})"));
  const std::string head = "cdiVersion: 0.3.0\nkind: amd.com/gpu\n";
  const std::string edits = "devices:\n- name: all\n  containerEdits: &e\n    env: [A=1]\ncontainerEdits: *e\n";
  CdiSpec spec = read_cdi_spec(head + edits);
  CHECK(spec.edits.env == std::vector<std::string>{"A=1"});
  CHECK(spec.devices.at(0).edits.env == std::vector<std::string>{"A=1"});
  CHECK(cdi_error(head + "devices:\n- name: all\n  containerEdits: &e\n    env: [NOEQUALS]\ncontainerEdits: *e\n") ==
        "6:11: \"NOEQUALS\" is not NAME=VALUE");
}

TEST_CASE("cdi spec: an alias of its own ancestor is refused as nested too deep, at the anchored node") {
  CHECK(cdi_error("&a [*a]") == "1:1: nested more than 64 levels deep, which no CDI spec is");
  CHECK(cdi_error("{a: &b [1, *b]}") == "1:9: nested more than 64 levels deep, which no CDI spec is");
  CHECK(cdi_error("&a [&b [*a, *b], *b]") == "1:5: nested more than 64 levels deep, which no CDI spec is");
}

TEST_CASE("cdi spec: a key that is a list, a map, a null or an alias of one is refused at the key") {
  CHECK(cdi_error("? [a]\n: b\n") == "1:3: a key that is not a string");
  CHECK(cdi_error("{[a]: b}") == "1:2: a key that is not a string");
  CHECK(cdi_error("? &k {a: 1}\n: v\n*k : w\n") == "1:3: a key that is not a string");
  CHECK(cdi_error("? \n: 1\n") == "2:1: a key that is not a string");
  // An alias is the anchored node, and so its place is the anchor's.
  CHECK(cdi_error("&k a: 1\n*k : 2\n") == "1:1: the key \"a\" is given twice");
}

TEST_CASE("cdi spec: a document without a node reads as null, placed where the document is") {
  CHECK(cdi_spec_to_json("---\n").is_null());
  CHECK(cdi_error("---\n") == "2:1: the spec must be a mapping, not empty");
  CHECK(cdi_error("...\n") == "1:1: the spec must be a mapping, not empty");
  CHECK(cdi_error("# only a comment\n") == "0:0: the text is empty: no CDI spec in it");
}

TEST_CASE("cdi spec: nesting deeper than any spec is refused with a message that says so") {
  // 100 levels: our converter's limit; 3000: yaml-cpp's own, whose message would be "bad file".
  for (int depth : {100, 3000})
    for (const std::string open : {"[", "{a: "}) {
      std::string text;
      for (int i = 0; i < depth; ++i) text += open;
      for (int i = 0; i < depth; ++i) text += open == "[" ? "]" : "}";
      std::string err;
      try {
        cdi_spec_to_json(text);
      } catch (const CdiSpecError& e) {
        err = e.message();
      }
      CHECK_MESSAGE(err == "nested more than 64 levels deep, which no CDI spec is", depth, " x ", open);
    }
}

TEST_CASE("cdi spec: unquoted scalars follow YAML 1.2's core schema, quoted ones stay strings") {
  auto d = cdi_spec_to_json("a: 0x1f\nb: '0x1f'\nc: 1.5e3\nd: ~\ne: true\nf: -5\ng: 0.3.0\nh: \"5\"\ni: yes\n");
  CHECK(d["a"] == 31);
  CHECK(d["b"] == "0x1f");
  CHECK(d["c"] == 1500.0);
  CHECK(d["d"].is_null());
  CHECK(d["e"] == true);
  CHECK(d["f"] == -5);
  CHECK(d["g"] == "0.3.0");
  CHECK(d["h"] == "5");
  CHECK(d["i"] == "yes");  // YAML 1.2: a string
  CHECK_THROWS_AS(cdi_spec_to_json("a: .nan\n"), CdiSpecError);
}

TEST_CASE("cdi spec: the writer orders keys as the schema lists them and reads back as the same data") {
  nlohmann::json spec = read_cdi_spec(kAmdJson).data;
  std::string text = write_cdi_spec(spec);
  CHECK(text ==
        "cdiVersion: 0.3.0\n"
        "kind: amd.com/gpu\n"
        "devices:\n"
        "  - name: all\n"
        "    containerEdits:\n"
        "      deviceNodes:\n"
        "        - path: /dev/dxg\n"
        "containerEdits:\n"
        "  env:\n"
        "    - HSA_ENABLE_DXG_DETECTION=1\n"
        "  mounts:\n"
        "    - hostPath: /usr/lib/wsl/lib/libdxcore.so\n"
        "      containerPath: /usr/lib/libdxcore.so\n"
        "      options:\n"
        "        - ro\n"
        "        - nosuid\n"
        "        - nodev\n"
        "        - bind\n");
  CHECK(cdi_spec_to_json(text) == spec);
}

TEST_CASE("cdi spec: strings a YAML 1.1 or 1.2 reader would take for something else are quoted") {
  nlohmann::json odd = {{"on", "yes"},       {"n", {"0755", "1_000", "0b11", "~", "null", "TRUE", ""}},
                        {"x", "a: b"},       {"e", nlohmann::json::object()},
                        {"multi", "a\nb\t"}, {"f", {1.5, -3, 18446744073709551615ull}}};
  std::string text = write_cdi_spec(odd);
  CHECK(text.find("on: \"yes\"") == std::string::npos);  // the key too: "on" is a YAML 1.1 boolean
  CHECK(text.find("\"on\": \"yes\"") != std::string::npos);
  CHECK(text.find("- \"0755\"") != std::string::npos);
  CHECK(text.find("- \"1_000\"") != std::string::npos);
  CHECK(cdi_spec_to_json(text) == odd);
}

TEST_CASE("cdi spec: the minimum version follows SPEC.md's table of features") {
  nlohmann::json spec = read_cdi_spec(kAmdJson).data;
  CHECK(cdi_minimum_version(spec) == "0.3.0");
  nlohmann::json typed = spec;
  typed["containerEdits"]["mounts"][0]["type"] = "bind";
  CHECK(cdi_minimum_version(typed) == "0.4.0");
  nlohmann::json host = spec;
  host["devices"][0]["containerEdits"]["deviceNodes"][0]["hostPath"] = "/dev/dxg";
  CHECK(cdi_minimum_version(host) == "0.5.0");
  nlohmann::json digit = spec;
  digit["devices"][0]["name"] = "0";
  CHECK(cdi_minimum_version(digit) == "0.5.0");
  nlohmann::json dotted = spec;
  dotted["kind"] = "amd.com/gpu.wsl";
  CHECK(cdi_minimum_version(dotted) == "0.6.0");
  nlohmann::json gids = spec;
  gids["containerEdits"]["additionalGids"] = {44};
  CHECK(cdi_minimum_version(gids) == "0.7.0");
  nlohmann::json net = spec;
  net["devices"][0]["containerEdits"]["netDevices"] = {{{"hostInterfaceName", "eth1"}, {"name", "eth1"}}};
  CHECK(cdi_minimum_version(net) == "1.1.0");
}

TEST_CASE("cdi spec: kinds and device names follow CDI's rules") {
  CHECK(cdi_kind_problem("amd.com/gpu") == "");
  CHECK(cdi_kind_problem("foo.bar.baz/foo-bar123.B_az") == "");
  CHECK(cdi_kind_problem("vendor.com/foo/bar") != "");
  CHECK(cdi_kind_problem("vendor.com/foo/") != "");
  CHECK(cdi_kind_problem("1vendor.com/gpu") ==
        "the kind \"1vendor.com/gpu\" is not valid: its vendor \"1vendor.com\" does not start with a letter");
  CHECK(cdi_kind_problem("amd.com/g pu") ==
        "the kind \"amd.com/g pu\" is not valid: its class \"g pu\" has ' ' (only letters, digits, '-', '_' and '.')");
  CHECK(cdi_device_name_problem("all") == "");
  CHECK(cdi_device_name_problem("0") == "");
  CHECK(cdi_device_name_problem("gpu:0") == "");
  CHECK(cdi_device_name_problem("all-") != "");
  CHECK(cdi_device_name_problem("") == "the device name is empty");
}

TEST_CASE("is_cdi_spec_name takes what CDI's cache reads: a .json or .yaml suffix, nothing else") {
  CHECK(is_cdi_spec_name("amd-wsl.yaml"));
  CHECK(is_cdi_spec_name("nvidia.json"));
  CHECK(is_cdi_spec_name(".yaml"));  // filepath.Ext(".yaml") is ".yaml"
  CHECK_FALSE(is_cdi_spec_name("nvidia.yml"));
  CHECK_FALSE(is_cdi_spec_name("nvidia.yaml.bak"));
  CHECK(cdi_spec_dirs() == std::vector<std::string>{"/etc/cdi", "/var/run/cdi"});
}

TEST_CASE("scan_cdi_specs reads every spec of both folders in order, and lists a broken one with its place") {
  wslgpu::testing::MemoryFileSystem fs;
  fs.add_file("/var/run/cdi/nvidia.yaml", "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n  - name: all\n"
                                          "    containerEdits:\n      deviceNodes:\n        - path: /dev/dxg\n");
  fs.add_file("/etc/cdi/acme.yaml", "kind: [\n");
  fs.add_file("/etc/cdi/notes.txt", "not a spec");
  fs.add_dir("/etc/cdi/old.yaml");
  auto found = scan_cdi_specs(fs);
  REQUIRE(found.size() == 2);
  CHECK(found[0].path == "/etc/cdi/acme.yaml");
  CHECK_FALSE(found[0].spec);
  REQUIRE(found[0].error);
  CHECK(found[0].problem().rfind("/etc/cdi/acme.yaml:", 0) == 0);
  CHECK(found[1].path == "/var/run/cdi/nvidia.yaml");
  REQUIRE(found[1].spec);
  CHECK(found[1].spec->kind == "nvidia.com/gpu");
}

TEST_CASE("cdi spec: a stray ',' where yaml-cpp's LoadAll would loop for ever is refused at its place") {
  // yaml-cpp 0.7's LoadAll() returned empty documents for these until the
  // memory ran out (found by fuzz_cdi_spec; jbeder/yaml-cpp pull request 1319).
  CHECK(cdi_error("\n,\n") == "2:1: the YAML cannot be read from here on (a ',', ']' or '}' outside any [ ] or { }?)");
  CHECK(cdi_error("{\"cdiVersion\":\"0.5.0\",\"kind\":\"amd.com/gpu\",\"annotations\":e\"a\":\"b\"},\"devices\":[]}") ==
        "1:67: the YAML cannot be read from here on (a ',', ']' or '}' outside any [ ] or { }?)");
}

TEST_CASE("cdi spec: a second document is refused at its first node, and a fourth is not read") {
  CHECK(cdi_error("cdiVersion: 0.3.0\n---\nsecond: doc\n") == "3:1: a second YAML document: a CDI spec file holds one");
  CHECK(cdi_error("a: 1\n---\n") == "3:1: a second YAML document: a CDI spec file holds one");
  CHECK(cdi_error("a: 1\n---\nb: 2\n---\nc: 3\n---\n[\n") == "3:1: a second YAML document: a CDI spec file holds one");
}

TEST_CASE("cdi spec: a key whose quoted form passes YAML's 1024 characters is written explicit and reads back") {
  // 600 quotes, written as 1,202 characters: an implicit key that long did
  // not read back ("illegal map value"; found by fuzz_cdi_spec).
  for (const std::string& key : {std::string(600, '"'), std::string(129, 'k'), std::string(1025, 'k')}) {
    nlohmann::json data = {{"mounts", {{{key, "v"}, {"hostPath", "/a"}}}}};
    std::string written = write_cdi_spec(data);
    CHECK_MESSAGE(cdi_spec_to_json(written) == data, written.substr(0, 80));
  }
  CHECK(write_cdi_spec(nlohmann::json{{"short", 1}}) == "short: 1\n");  // short keys stay implicit
}

TEST_CASE("cdi spec: a string with a control character is written quoted and reads back the same") {
  // "\r" was written plain and read back as no document (found by fuzz_cdi_spec).
  for (const char* text : {"\r", "a\rb", "x\x01", "\x7f"}) {
    CAPTURE(text);
    nlohmann::json doc = {{"k", text}};
    CHECK(cdi_spec_to_json(write_cdi_spec(doc)) == doc);
    CHECK(cdi_spec_to_json(write_cdi_spec(nlohmann::json(text))) == nlohmann::json(text));
  }
}

TEST_CASE("cdi spec: a string that starts like a document marker is written quoted and reads back the same") {
  // "--- a" written plain at the start of a line began a new document, and
  // the text read back as "a" (found by fuzz_cdi_spec); "..." ends one.
  for (const char* text : {"---", "--- a", "---\tb", "...", "... c", "---x", "....", "-- -"}) {
    CAPTURE(std::string(text));
    nlohmann::json root(text);
    CHECK(cdi_spec_to_json(write_cdi_spec(root)) == root);
    nlohmann::json key = {{text, 1}, {"z", 2}};
    CHECK(cdi_spec_to_json(write_cdi_spec(key)) == key);
    nlohmann::json item = nlohmann::json::array({text});
    CHECK(cdi_spec_to_json(write_cdi_spec(item)) == item);
  }
  CHECK(write_cdi_spec(nlohmann::json("---x")) == "---x\n");  // not a marker: stays plain
}

TEST_CASE("cdi spec: an annotation whose key holds a slash or a tilde is refused at its own value") {
  // Keys such as "cdi.k8s.io/vfio17" are common; the problem's place and
  // name once split such a key at its '/' and pointed at "annotations".
  std::string head = "cdiVersion: 0.5.0\nkind: amd.com/gpu\nannotations:\n  ok: yes-string\n";
  CHECK(cdi_error(head + "  cdi.k8s.io/vfio: 5\n") == "5:20: annotations.cdi.k8s.io/vfio must be a string, not a number");
  CHECK(cdi_error(head + "  a~b: [1]\n") == "5:8: annotations.a~b must be a string, not a list");
}

TEST_CASE("cdi spec: a Unicode noncharacter, which YAML does not allow, is refused at its place") {
  // yaml-cpp's emitter writes U+FFFF as U+FFFD: such a spec would not read back as written.
  CHECK(cdi_error("a: \"x\xEF\xBF\xBF\"\n") ==
        "1:4: a string holding a Unicode noncharacter (such as U+FFFF), which YAML does not allow");
  CHECK(cdi_error("a: \"\\uFDD0\"\n") ==
        "1:4: a string holding a Unicode noncharacter (such as U+FFFF), which YAML does not allow");
  CHECK(cdi_error("\"\xF4\x8F\xBF\xBE\": 1\n") ==
        "1:1: a key holding a Unicode noncharacter (such as U+FFFF), which YAML does not allow");
}

TEST_CASE("cdi spec: an intelRdt enableMonitoring that is not a boolean does not stop the minimum version") {
  // It threw nlohmann's type_error (value("enableMonitoring", false) on a string; found by fuzz_cdi_spec).
  nlohmann::json spec = read_cdi_spec(kAmdJson).data;
  spec["containerEdits"]["intelRdt"] = {{"closID", "x"}, {"enableMonitoring", "true"}};
  CHECK(cdi_minimum_version(spec) == "0.7.0");
  spec["containerEdits"]["intelRdt"]["enableMonitoring"] = true;
  CHECK(cdi_minimum_version(spec) == "1.1.0");
}
