// check with a command: what its failure says. A framework's smoke test is a
// Python program on one line; its warning names the check by its step name
// and says the exception Python ended with, and the library's first message,
// which is usually the cause.
#include <doctest/doctest.h>

#include "support/helpers.hpp"
#include "unit/steps/system_step_testing.hpp"

using namespace wslgpu;
using namespace wslgpu::testing;

namespace {

// A smoke test as the onnxruntime-cuda profile writes it, its program cut
// short but still over the length that is quoted whole.
const char* kPythonSmoke = R"(
kind = "check"
name = "ONNX Runtime runs a session on CUDAExecutionProvider"
command = ["runuser", "-l", "alice", "-c", "exec /home/alice/.venvs/onnxruntime/bin/python -c \"import numpy as np, onnx, onnxruntime as ort; s = ort.InferenceSession(m, providers=['CUDAExecutionProvider', 'CPUExecutionProvider']); assert s.get_providers()[0] == 'CUDAExecutionProvider', 'the session runs on ' + s.get_providers()[0]\""]
output_matches = "smoke ok"
on_fail = "warn"
advice = "Run `wslgpu-setup doctor --python /home/alice/.venvs/onnxruntime/bin/python`."
)";

const char* kOrtFallback =
    "2026-01-01 00:00:00.000000000 [E:onnxruntime:Default, provider_bridge_ort.cc:2036 TryGetProviderInfo_CUDA] "
    "Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.9: cannot open shared object "
    "file: No such file or directory\n"
    "Traceback (most recent call last):\n"
    "  File \"<string>\", line 1, in <module>\n"
    "AssertionError: the session runs on CPUExecutionProvider\n";

std::string smoke_warning(const std::string& err, int status = 1) {
  MemoryFileSystem fs;
  HostFacts host;
  FakeProcessRunner runner;
  runner.on({"runuser"}, exited(status, "", err));
  StepContext ctx{fs, runner, host, "onnxruntime-cuda"};
  auto step = build_ok(kPythonSmoke);
  nlohmann::json r = step->apply(ctx, step->plan(ctx));
  REQUIRE(r.contains("warning"));
  return r["warning"].get<std::string>();
}

}  // namespace

TEST_CASE("a long command check that fails is named by its step name and the command's start, not quoted whole") {
  std::string w = smoke_warning(kOrtFallback);
  CHECK(w.rfind("check failed: ONNX Runtime runs a session on CUDAExecutionProvider (`runuser -l alice -c ", 0) == 0);
  CHECK(contains(w, " …`) exited 1: "));
  CHECK_FALSE(contains(w, "get_providers()[0] =="));  // the program itself is in the plan, not the warning
  CHECK(contains(w, "\nRun `wslgpu-setup doctor --python /home/alice/.venvs/onnxruntime/bin/python`."));
}

TEST_CASE("a Python check's failure says the exception it ended with and the library's first message") {
  std::string w = smoke_warning(kOrtFallback);
  CHECK(contains(w, "exited 1: AssertionError: the session runs on CPUExecutionProvider (it said first: "
                    "2026-01-01 00:00:00.000000000 [E:onnxruntime:Default, provider_bridge_ort.cc:2036 "
                    "TryGetProviderInfo_CUDA] Failed to load library libonnxruntime_providers_cuda.so with error: "
                    "libcudnn.so.9: cannot open shared object file: No such file or directory)\n"));
  // A traceback alone: only the exception.
  w = smoke_warning("Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
                    "ModuleNotFoundError: No module named 'onnxruntime'\n");
  CHECK(contains(w, "exited 1: ModuleNotFoundError: No module named 'onnxruntime'\n"));
  CHECK_FALSE(contains(w, "it said first"));
}

TEST_CASE("a command check's failure without a traceback says the command's first line") {
  std::string w = smoke_warning("\nruntime error: the GPU is lost\nsecond line\n", 3);
  CHECK(contains(w, "exited 3: runtime error: the GPU is lost\n"));
  CHECK_FALSE(contains(w, "second line"));
}
