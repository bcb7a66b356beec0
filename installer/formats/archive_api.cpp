#include "installer/formats/archive_api.hpp"

#include "installer/system/dynamic_library.hpp"

namespace wslgpu {

namespace {

ArchiveApi load_archive() {
  static const DynamicLibrary library(WSLGPU_LIBARCHIVE_SONAME, "libarchive13",
                                      "Reading .deb files and writing archives");
  ArchiveApi api;
  library.bind(api.error_string, "archive_error_string");
  library.bind(api.read_new, "archive_read_new");
  library.bind(api.read_free, "archive_read_free");
  library.bind(api.read_support_format_ar, "archive_read_support_format_ar");
  library.bind(api.read_support_format_tar, "archive_read_support_format_tar");
  library.bind(api.read_support_format_zip_seekable, "archive_read_support_format_zip_seekable");
  library.bind(api.read_support_filter_all, "archive_read_support_filter_all");
  library.bind(api.read_open_filename, "archive_read_open_filename");
  library.bind(api.read_open, "archive_read_open");
  library.bind(api.read_open_memory, "archive_read_open_memory");
  library.bind(api.read_next_header, "archive_read_next_header");
  library.bind(api.read_data, "archive_read_data");
  library.bind(api.read_data_skip, "archive_read_data_skip");
  library.bind(api.entry_pathname, "archive_entry_pathname");
  library.bind(api.entry_filetype, "archive_entry_filetype");
  library.bind(api.write_new, "archive_write_new");
  library.bind(api.write_free, "archive_write_free");
  library.bind(api.write_add_filter_gzip, "archive_write_add_filter_gzip");
  library.bind(api.write_set_format_pax_restricted, "archive_write_set_format_pax_restricted");
  library.bind(api.write_open_filename, "archive_write_open_filename");
  library.bind(api.write_header, "archive_write_header");
  library.bind(api.write_data, "archive_write_data");
  library.bind(api.write_close, "archive_write_close");
  library.bind(api.entry_new, "archive_entry_new");
  library.bind(api.entry_free, "archive_entry_free");
  library.bind(api.entry_set_pathname, "archive_entry_set_pathname");
  library.bind(api.entry_set_size, "archive_entry_set_size");
  library.bind(api.entry_set_filetype, "archive_entry_set_filetype");
  library.bind(api.entry_set_perm, "archive_entry_set_perm");
  library.bind(api.entry_set_mtime, "archive_entry_set_mtime");
  return api;
}

}  // namespace

const ArchiveApi& archive_api() {
  static const ArchiveApi api = load_archive();
  return api;
}

}  // namespace wslgpu
