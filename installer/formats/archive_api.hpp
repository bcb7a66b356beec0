// The libarchive functions wslgpu-setup calls, loaded on first use (see
// installer/system/dynamic_library.hpp for why it is not linked): reading `.deb`
// files (installer/formats/deb_archive.cpp), the layers of a saved container
// image (installer/doctor/checks_container_image.cpp), a wheel's METADATA
// (installer/formats/wheel_metadata.cpp) and writing doctor's
// support bundle (installer/doctor/support_bundle.cpp).
#pragma once
#include <archive.h>
#include <archive_entry.h>

namespace wslgpu {

struct ArchiveApi {
  decltype(&::archive_error_string) error_string = nullptr;
  // Reading
  decltype(&::archive_read_new) read_new = nullptr;
  decltype(&::archive_read_free) read_free = nullptr;
  decltype(&::archive_read_support_format_ar) read_support_format_ar = nullptr;
  decltype(&::archive_read_support_format_tar) read_support_format_tar = nullptr;
  decltype(&::archive_read_support_format_zip_seekable) read_support_format_zip_seekable = nullptr;
  decltype(&::archive_read_support_filter_all) read_support_filter_all = nullptr;
  decltype(&::archive_read_open_filename) read_open_filename = nullptr;
  decltype(&::archive_read_open) read_open = nullptr;
  decltype(&::archive_read_open_memory) read_open_memory = nullptr;
  decltype(&::archive_read_next_header) read_next_header = nullptr;
  decltype(&::archive_read_data) read_data = nullptr;
  decltype(&::archive_read_data_skip) read_data_skip = nullptr;
  decltype(&::archive_entry_pathname) entry_pathname = nullptr;
  decltype(&::archive_entry_filetype) entry_filetype = nullptr;
  // Writing
  decltype(&::archive_write_new) write_new = nullptr;
  decltype(&::archive_write_free) write_free = nullptr;
  decltype(&::archive_write_add_filter_gzip) write_add_filter_gzip = nullptr;
  decltype(&::archive_write_set_format_pax_restricted) write_set_format_pax_restricted = nullptr;
  decltype(&::archive_write_open_filename) write_open_filename = nullptr;
  decltype(&::archive_write_header) write_header = nullptr;
  decltype(&::archive_write_data) write_data = nullptr;
  decltype(&::archive_write_close) write_close = nullptr;
  decltype(&::archive_entry_new) entry_new = nullptr;
  decltype(&::archive_entry_free) entry_free = nullptr;
  decltype(&::archive_entry_set_pathname) entry_set_pathname = nullptr;
  decltype(&::archive_entry_set_size) entry_set_size = nullptr;
  decltype(&::archive_entry_set_filetype) entry_set_filetype = nullptr;
  decltype(&::archive_entry_set_perm) entry_set_perm = nullptr;
  decltype(&::archive_entry_set_mtime) entry_set_mtime = nullptr;
};

// Loads libarchive the first time; thread-safe. Throws StepFailure (with the
// package to install) when it is missing.
const ArchiveApi& archive_api();

}  // namespace wslgpu
