// kind = "download": a file fetched over HTTPS and checked against its SHA-256.
//
//   [[step]]
//   id = "amdgpu-install-deb"
//   kind = "download"
//   url = "https://repo.radeon.com/amdgpu-install/6.4.2.1/ubuntu/noble/amdgpu-install_6.4.60402-1_all.deb"
//   sha256 = "0f3c...9a"          # required
//   dest = "/var/lib/wslgpu-setup/cache/amdgpu-install.deb"   # optional; default STATE_DIR/cache/<file name>
//   insecure_http = false         # optional: allow a plain http:// URL
//   timeout = 1800                # optional, seconds per attempt
//   connect_timeout = 30          # optional, seconds
//   retries = 3                   # optional, further attempts after a transient error
//
// State touched: DEST. Plan is a no-op when DEST already holds a file with
// that SHA-256, and refuses a symbolic link at DEST (guard
// no-writes-through-links). Otherwise DEST is a FileWrite written by apply
// (installer/plan/plan.hpp): the runner backs up the file DEST holds in the
// transaction's backups/ before apply, apply downloads (see
// installer/net/download.hpp: hash computed while streaming, resume of
// DEST.part, retries with back-off) into DEST.part and renames it over DEST
// once the hash matches, so DEST is at every moment the old file or the new
// one; then the runner records DEST as written with its SHA-256. Undo is the
// runner's: it restores the backed-up file (or removes DEST when there was
// none), also after a run killed in the middle of apply; `rollback ID`
// refuses when DEST has changed since. A DEST.part left by a failed or
// killed download stays, for the next attempt to resume.
#pragma once
#include "installer/manifest/step_keys.hpp"
#include "steps/step.hpp"

namespace wslgpu {

std::shared_ptr<Step> make_download_step(StepKeys& keys);

// The file name at the end of URL's path ("" when it ends in '/').
std::string url_file_name(const std::string& url);

// A DownloadRequest::on_progress that reports to CTX.progress as the
// download of SUBJECT; nullptr when nobody listens.
std::function<void(std::uint64_t, std::uint64_t)> download_progress(StepContext& ctx, const std::string& subject);

}  // namespace wslgpu
