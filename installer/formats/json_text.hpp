// JSON text as a person wrote it (Docker's /etc/docker/daemon.json), read
// with the position of every value and edited in place, so that a merge
// keeps everything it does not have to change byte for byte: key order,
// indentation, spacing, line endings, the text after the last brace.
//
// Reading is strict RFC 8259, as Go's encoding/json (dockerd's reader) is:
// no comments, no trailing commas, UTF-8 only. Two rules are stricter than
// dockerd: no byte-order mark (dockerd drops one before Go reads the text:
// moby, daemon/config/config.go, getConflictFreeConfiguration) and no key
// twice in one object (Go keeps the last; other readers the first, so an
// edit would have to guess). Such a file is a StrictJsonError: dockerd
// starts with it, and the tool neither edits it nor calls it well. Every
// error names FILE:LINE:COLUMN, 1-based, the column counted in characters.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "installer/system/error.hpp"

namespace wslgpu {

// JSON that dockerd reads but these rules refuse (a byte-order mark, a
// duplicate key): bad input all the same, told apart for doctor, which
// says dockerd still starts.
class StrictJsonError : public InputError {
 public:
  using InputError::InputError;
};

// TEXT as one JSON value. Throws InputError naming FILE:LINE:COLUMN; an
// empty or blank TEXT is an error too (merge_json_text() accepts it).
nlohmann::json parse_json_text(const std::string& text, const std::string& file);

// The one reading rule for a JSON file the tool both edits and diagnoses
// (/etc/docker/daemon.json: the json_file step and doctor): the object TEXT
// holds, read exactly as merge_json_text() reads it before an edit; a blank
// TEXT is {} (dockerd too takes an empty file). Throws what
// merge_json_text() throws for the same TEXT: StrictJsonError, InputError
// (FILE:LINE:COLUMN), and InputError for JSON that is not an object.
nlohmann::json read_json_object(const std::string& text, const std::string& file);

// One key a merge set.
struct JsonChange {
  std::vector<std::string> key_path;  // {"runtimes", "nvidia"}
  bool added = false;                 // the key was not there; else its value was replaced
  nlohmann::json from;                // the value replaced (null when added)
  nlohmann::json to;
};

struct JsonMerge {
  std::string text;                 // TEXT itself when nothing changes
  std::vector<JsonChange> changes;  // in the patch's key order; empty when nothing changes
};

// Merges PATCH, a JSON object, into TEXT, which must hold an object (or be
// empty or blank: then it is taken as {}, and written as a new file).
//   - An object in PATCH merges into the object of that key, recursively;
//     any other value (string, number, boolean, null, array) replaces the
//     key's value. Null is a value here, not a deletion.
//   - Values compare as JSON values (nlohmann's ==: 1 equals 1.0), so a
//     key already as wanted is not touched, and a file already configured
//     comes back unchanged.
//   - A missing key is appended as the last member of its object, indented
//     as its siblings (else as its parent plus the document's indent unit,
//     guessed from the file, else 4 spaces), with the file's line ending. A
//     new value is written multi-line, as Go's json.MarshalIndent writes it
//     ("args": [] stays one line), except inside an object written on one
//     line, where it stays one line, spaced as that object is.
//   - A blank TEXT becomes "{", the members at 4 spaces, "}" and a final
//     newline; with an empty PATCH it is returned as it is.
// Throws InputError (FILE:LINE:COLUMN) for a TEXT that does not parse, that
// is not an object, or where PATCH must merge an object into a key whose
// value is not one (say "runtimes": []): replacing it would lose what it
// holds, so that is for the user to decide.
JsonMerge merge_json_text(const std::string& text, const nlohmann::json& patch, const std::string& file);

// A key path for messages: runtimes.nvidia; a key that is not a plain word
// (letters, digits, '_', '-') is written as a JSON string: log-opts."a.b".
std::string json_key_path(const std::vector<std::string>& path);

}  // namespace wslgpu
