// SPDX-License-Identifier: Apache-2.0
// Lowering of a (verified, constant-folded) TOSA program to NpuOps: one lowering function
// per operator family (lower_conv.cpp, lower_pool.cpp, lower_elementwise.cpp,
// lower_data.cpp) behind one table (lowering_table.cpp), sharing this class's state:
// where every tensor lives (views), the scratch buffers, the read-only data, and the
// pattern-matching helpers that fuse RESCALE and CLAMP into the operation before them.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "converter/ethosu/npu_op.h"
#include "converter/program.h"
#include "ethosu/accelerator.h"

namespace openvgf::converter::ethosu {

using ::openvgf::ethosu::AcceleratorConfig;

class Lowering;

/// Lowers the operator at `index`; operators it fuses are marked done.
using LowerFunction = Status (Lowering::*)(std::size_t index);

/// The lowering function of an operator, or null when the backend does not support it.
LowerFunction findLowering(tosa::Op op);

class Lowering {
 public:
  Lowering(const Program& program, const AcceleratorConfig& config);

  Status run();

  std::vector<NpuOp> ops;
  std::vector<Buffer> buffers;
  std::vector<std::uint8_t> readOnly;  ///< region 0
  std::map<std::string, View> views;
  std::vector<std::string> inputNames, outputNames;
  std::vector<View> outputViews;
  std::size_t constantBytes = 0;

  // One function per family; findLowering maps operators to them.
  Status lowerConv(std::size_t index);
  Status lowerMatMul(std::size_t index);
  Status lowerPool(std::size_t index);
  Status lowerAddSub(std::size_t index);
  Status lowerMul(std::size_t index);
  Status lowerRescale(std::size_t index);
  Status lowerClampOrTable(std::size_t index);
  Status lowerReshape(std::size_t index);
  Status lowerSlice(std::size_t index);
  Status lowerConcat(std::size_t index);
  Status lowerPad(std::size_t index);

 private:
  struct Rescale {
    std::vector<std::int64_t> multiplier;
    std::vector<std::int64_t> shift;
    bool doubleRound = false;
    std::int64_t inputZp = 0, outputZp = 0;
    bool perChannel = false;
  };
  struct PendingPad {
    std::string input;
    int top = 0, bottom = 0, left = 0, right = 0;
    std::int64_t value = 0;
  };
  struct CountedPadding {
    int top = 0, bottom = 0, left = 0, right = 0;
  };

  const tosa::Operator& op(std::size_t index) const { return program_.nodes[index].op; }
  std::size_t operatorCount() const { return program_.nodes.size(); }
  const tosa::Tensor* tensor(const std::string& name) const { return program_.find(name); }
  bool isConst(const std::string& name) const { return constants_.count(name) != 0; }
  /// "CONV2D 'out' (operator 4)" for messages.
  std::string label(std::size_t index) const;

  Result<Dims3> dims3(const std::string& name, const std::string& what) const;
  Result<std::vector<std::int64_t>> intValues(const std::string& name, const std::string& what) const;
  Result<std::int64_t> scalarValue(const std::string& name, const std::string& what) const;
  Result<View> viewOf(const std::string& name, const std::string& what);
  int newBuffer(std::uint32_t size);
  View allocateOutput(const std::string& name, const Dims3& d);
  std::optional<std::size_t> singleConsumer(const std::string& name) const;
  /// The operator writing `name` before `index`, if any.
  const tosa::Operator* producerBefore(std::size_t index, const std::string& name) const;
  std::uint32_t appendReadOnly(std::span<const std::uint8_t> data);
  Result<Rescale> readRescale(const tosa::Operator& rescale, const std::string& what) const;
  Status fuseOutputStage(std::size_t producer, const std::string& accTensor, NpuOp& npu, int channels,
                         std::string& finalTensor, bool allowPerChannel);
  void fuseClamp(std::string& tensorName, NpuOp& npu);
  static void setAveragePoolScale(NpuOp& npu, int count);
  Status lowerPaddedAveragePool(NpuOp&& npu, const CountedPadding& counted, const std::string& finalName, const Dims3& od);
  Status planConcat();
  void copy(const View& from, const View& to, const std::string& what);
  /// Places the op's output (the last tensor of its fused chain) and appends the op.
  void pushOp(NpuOp&& npu, const std::string& finalName, const Dims3& od);
  Status placeOutputs();

  const Program& program_;
  const AcceleratorConfig& config_;
  std::map<std::string, tosa::HostTensor> constants_;
  std::map<std::string, std::vector<std::size_t>> consumers_;
  std::set<std::string> graphOutputs_;
  std::vector<bool> done_;
  std::map<std::string, PendingPad> pads_;
  std::map<std::string, View> concatTargets_;
  std::map<std::string, std::size_t> producerOp_;  ///< tensor -> index in ops of the op that writes it
};

/// m·2^-s == 2^target exactly, so that apply_scale_32 is an exact shift.
bool isExactPowerOfTwoScale(std::int64_t m, std::int64_t s, int target);

}  // namespace openvgf::converter::ethosu
