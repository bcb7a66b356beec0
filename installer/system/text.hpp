// The small text operations every parser needs, once. ASCII only, never the
// locale: a file written by apt, dpkg or Windows must read the same whatever
// LANG the tool runs under.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wslgpu::text {

// Character sets for trim(): what each kind of input calls blank.
inline constexpr std::string_view kBlanks = " \t";          // inside one line
inline constexpr std::string_view kLineSpace = " \t\r\n";   // a line with its ending (CRLF too)
inline constexpr std::string_view kCSpace = " \t\n\v\f\r";  // C's isspace() in the "C" locale

// S without the leading and trailing characters that are in CHARS.
std::string_view trim(std::string_view s, std::string_view chars = kLineSpace);
std::string_view trim_start(std::string_view s, std::string_view chars);
std::string_view trim_end(std::string_view s, std::string_view chars);

// deb822 and dpkg's control lines: blanks before, blanks and a CR after
// (a CRLF file's lines read like LF ones; a leading CR is content).
inline std::string_view trim_field(std::string_view s) { return trim_end(trim_start(s, kBlanks), " \t\r"); }

// S with A-Z turned into a-z, every other byte kept.
std::string lower(std::string_view s);

// Appends code point CP (not a surrogate, at most U+10FFFF) to OUT as UTF-8.
void append_utf8(std::string& out, std::uint32_t cp);

// VALUE as one word for a POSIX shell: in single quotes, each quote
// closed, escaped and reopened ('a'\''b').
std::string shell_quote(std::string_view value);
// The same, but VALUE unchanged when no shell would read it differently
// (letters, digits and -_./=:,+@%), so commands shown to people stay readable.
std::string shell_word(std::string_view value);

// The one line splitter. TEXT's lines in order, each a view into TEXT: with
// its "\n" (LineEnd::kept, so that the lines put back together are TEXT
// byte for byte, CRLF and a missing final newline included), or without it
// and without one carriage return before it (LineEnd::dropped, so that a
// CRLF file reads as an LF one), or without the "\n" only
// (LineEnd::newline_dropped: a diff must see "a\r" and "a" as different
// lines). A last line without "\n" counts; an empty TEXT has no lines, and
// "a\n" has one.
enum class LineEnd { kept, dropped, newline_dropped };
std::vector<std::string_view> split_lines(std::string_view text, LineEnd end = LineEnd::dropped);

// TEXT's first line that is not blank (spaces, tabs, carriage returns),
// without the blanks around it; "" when every line is blank. What a
// message quotes of a program that failed.
std::string first_line(std::string_view text);

// A program's output as its non-empty lines, each without trailing spaces
// and carriage returns: what a failure message quotes the last few of.
std::vector<std::string> output_lines(std::string_view output);

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_space(char c) { return kCSpace.find(c) != std::string_view::npos; }

}  // namespace wslgpu::text
