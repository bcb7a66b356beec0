#include "installer/host/nvidia_driver.hpp"

#include "installer/formats/nvidia_smi.hpp"
#include "installer/system/text.hpp"

namespace wslgpu {

NvidiaDriverFacts nvidia_driver_from(const ProcessResult& r, std::chrono::milliseconds timeout) {
  NvidiaDriverFacts f;
  if (r.not_found) {
    f.said = std::string(kWslNvidiaSmi) + " could not run";
    return f;
  }
  if (r.timed_out) {
    f.said = "nvidia-smi did not answer within " +
             std::to_string(std::chrono::duration_cast<std::chrono::seconds>(timeout).count()) + " s";
    return f;
  }
  NvidiaSmiHeader h = parse_nvidia_smi_header(r.out);
  f.driver = h.driver_version;
  f.cuda = h.cuda_version;
  if (!r.ok() && h.empty()) {
    std::string why = text::first_line(r.out + "\n" + r.err);
    f.said = "nvidia-smi failed (exit " + std::to_string(r.exit_code) + ")" + (why.empty() ? "" : ": " + why);
    return f;
  }
  if (h.empty()) {
    f.said = "nvidia-smi printed neither a driver nor a CUDA version";
    return f;
  }
  f.said = "driver " + (f.driver.empty() ? std::string("version not printed") : f.driver) + ", " +
           (h.cuda_error     ? std::string("CUDA Version: ERR!")
            : f.cuda.empty() ? std::string("no CUDA version printed")
                             : "CUDA " + f.cuda);
  return f;
}

NvidiaDriverFacts probe_nvidia_driver(const FileSystem& fs, ProcessRunner& runner, std::chrono::milliseconds timeout) {
  auto info = fs.stat(kWslNvidiaSmi);
  if (!info || info->type == FileType::directory) {
    NvidiaDriverFacts f;
    f.said = std::string(kWslNvidiaSmi) + " is missing";
    return f;
  }
  Command cmd;
  cmd.argv = {kWslNvidiaSmi};
  cmd.timeout = timeout;
  return nvidia_driver_from(runner.run(cmd), timeout);
}

const std::vector<std::string>& nvidia_fact_names() {
  static const std::vector<std::string> names = {"host.nvidia_driver", "host.nvidia_cuda", "host.nvidia_smi"};
  return names;
}

}  // namespace wslgpu
