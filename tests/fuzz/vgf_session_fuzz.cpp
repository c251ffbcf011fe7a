// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for loading a VGF for execution: decode, runner::Model::create (spirv-val and
// the binding/interface checks), then, for what the runner accepts, a Session on lavapipe with
// the Vulkan validation layer on and one run on zero inputs. Any input must end in a clean
// error or a finished run; a validation-layer error, or a pipeline the driver refuses, after
// the runner accepted the model means the checks let a bad model through: that aborts, so
// libFuzzer keeps the input.
//
// Contexts (instance + device) are created once per feature set and reused: creating one per
// input would cost more than the rest of the work. Models claiming more than kMaxFuzzBytes of
// tensors are skipped before any device memory is allocated, so libFuzzer's malloc limit
// measures openvgf, not what lavapipe reserves for a huge (valid) buffer. For the same reason
// models dispatching more than kMaxFuzzWorkgroups in all are skipped: a MAX_POOL2D of a
// 3.8 KB corpus mutation dispatched 16385x2x8 workgroups and peaked at 2.6 GB in this
// ASan-built process (libFuzzer's 2 GB limit), where the Release CLI ran it in 98 MB.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runner/context.h"
#include "runner/model.h"
#include "runner/session.h"
#include "vgf/decoder.h"

namespace {

using namespace openvgf;

constexpr std::uint64_t kMaxFuzzBytes = std::uint64_t{64} << 20;
constexpr std::uint64_t kMaxFuzzWorkgroups = std::uint64_t{1} << 16;

// A context serves this many sessions, then is replaced: lavapipe and the validation layer
// keep per-device state for every pipeline they have seen, and one process of a long campaign
// (tests/fuzz/fuzz_long.sh) grew past 2 GB through a reused device alone.
constexpr int kSessionsPerContext = 256;

runner::Context* contextFor(const runner::Model& model) {
  // Never destroyed at exit: by then the validation layer's own statics may already be gone,
  // and destroying a device crashes inside the layer. Replacing one mid-run is safe.
  static auto& contexts = *new std::map<std::uint32_t, std::pair<std::unique_ptr<runner::Context>, int>>();
  const std::uint32_t key = model.requiredFeatures().bits;
  auto it = contexts.find(key);
  if (it != contexts.end() && ++it->second.second > kSessionsPerContext) {
    contexts.erase(it);
    it = contexts.end();
  }
  if (it == contexts.end()) {
    runner::ContextOptions options;
    options.validate = true;
    options.device = "llvmpipe";
    options.pipelineCache = false;
    Result<std::unique_ptr<runner::Context>> context = runner::Context::create(options, model);
    if (!context) return nullptr;  // e.g. a feature lavapipe lacks: refused with a message
    it = contexts.emplace(key, std::make_pair(std::move(*context), 0)).first;
  }
  return it->second.first.get();
}

[[noreturn]] void finding(const char* stage, const std::string& why) {
  std::fprintf(stderr, "accepted model failed at %s: %s\n", stage, why.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The decoder requires a 4-byte aligned buffer, as every real caller provides.
  std::vector<std::uint8_t> bytes(data, data + size);
  Result<vgf::File> file = vgf::decode(bytes);
  if (!file) return 0;
  Result<runner::Model> model = runner::Model::create(*file, "fuzz.vgf");
  if (!model) return 0;
  std::uint64_t total = 0;
  for (const runner::ResourceInfo& r : model->resources()) total += r.used ? r.bytes : 0;
  if (total > kMaxFuzzBytes) return 0;
  std::uint64_t workgroups = 0;
  for (const runner::SegmentInfo& segment : model->segments()) {
    workgroups += std::uint64_t{segment.dispatch[0]} * segment.dispatch[1] * segment.dispatch[2];
  }
  if (workgroups > kMaxFuzzWorkgroups) return 0;
  runner::Context* context = contextFor(*model);
  if (context == nullptr) return 0;
  if (!model->checkDevice(context->device().snapshot())) return 0;
  const std::uint64_t errorsBefore = context->instance().validationErrors();
  Result<runner::Session> session = runner::Session::create(*context, *model, {.pipelineThreads = 1});
  if (context->instance().validationErrors() != errorsBefore) {
    finding("session creation", "the validation layer reported an error (see above)");
  }
  // Memory a device limit refuses is a clean refusal; anything else is a missed check.
  if (!session && session.error().kind() != ErrorKind::Unsupported) finding("session creation", session.error().message());
  if (!session) return 0;
  std::vector<tosa::HostTensor> inputs;
  for (const runner::TensorInfo& t : model->inputs()) inputs.emplace_back(t.dtype, t.shape);
  Result<std::vector<tosa::HostTensor>> outputs = session->run(inputs);
  if (!outputs) finding("run", outputs.error().message());
  // How much of the fuzzing gets this far, for the campaign record (tests/fuzz/README.md).
  static std::uint64_t runs = 0;
  ++runs;
  if ((runs & (runs - 1)) == 0) std::fprintf(stderr, "vgf_session: %llu accepted models ran\n", static_cast<unsigned long long>(runs));
  return 0;
}
