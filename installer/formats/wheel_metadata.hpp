// The METADATA file of a wheel on this machine: what a wheel named by URL
// requires (its Requires-Dist), read from the downloaded file, so that the
// tool can resolve and download those requirements itself before pip runs
// (steps/python/wheel_fetch.hpp). AMD's repo.radeon.com serves no PEP 658
// metadata file beside its wheels; the wheel is the only place to read it.
//
// A wheel is a zip archive (PEP 427) with one top-level NAME-VERSION.dist-info/
// folder; its METADATA is read through the zip's central directory (the
// seekable reader of libarchive), so a 4 GB torch wheel is not read through
// to find the few kilobytes at its end.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace wslgpu {

// The text of HOST_PATH's top-level *.dist-info/METADATA, at most MAX_BYTES;
// nullopt with ERROR when the file is no zip archive, has no such member
// (or more than one dist-info folder), or the member is larger.
std::optional<std::string> read_wheel_metadata(const std::string& host_path, std::string& error,
                                               std::uint64_t max_bytes = 1024 * 1024);

}  // namespace wslgpu
