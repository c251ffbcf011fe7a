// SPDX-License-Identifier: Apache-2.0
// runner::Model validation and its device check against fake DeviceSnapshots (no GPU).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runner/model.h"
#include "shaders/binary_f32.h"
#include "shaders/binary_i32.h"
#include "shaders/binary_i64.h"
#include "shaders/binary_i8.h"
#include "shaders/binary_u64.h"
#include "shaders/chain_add.h"
#include "shaders/chain_minus1.h"
#include "shaders/chain_scale2.h"
#include "shaders/shared_sum.h"
#include "test_models.h"
#include "tests/tosa/spirv_test_util.h"
#include "vgf/spirv_info.h"

namespace openvgf::runner {
namespace {

using ::testing::HasSubstr;
using V = vgf::VkFormatValue;

vulkan::DeviceSnapshot fakeDevice() {
  vulkan::DeviceSnapshot d;
  d.name = "Fake GPU";
  d.apiVersion = (1u << 22) | (3u << 12);
  d.hasComputeQueue = true;
  d.limits.maxStorageBufferRange = 1u << 27;
  d.limits.maxBoundDescriptorSets = 4;
  d.limits.maxComputeWorkGroupCount = {65535, 65535, 65535};
  d.limits.maxComputeWorkGroupSize = {1024, 1024, 64};
  d.limits.maxComputeWorkGroupInvocations = 1024;
  d.limits.maxComputeSharedMemorySize = 32768;
  d.features.bits = ~0u;
  d.subgroupOperations = 0xFF;
  return d;
}

// A mutable copy of a built model's File (its spans still view the builder's storage).
struct Built {
  vgf::Builder builder;
  vgf::File file;
};

std::unique_ptr<Built> chainModel() {
  auto built = std::make_unique<Built>();
  openvgf::testing::buildChain(built->builder, k_chain_add, k_chain_scale2, k_chain_minus1);
  built->file = built->builder.file();
  return built;
}

TEST(Model, DescribesTheChain) {
  auto chain = chainModel();
  vgf::File& file = chain->file;
  Result<Model> model = Model::create(file, "chain.vgf");
  ASSERT_TRUE(model) << model.error().message();
  ASSERT_EQ(model->inputs().size(), 1u);
  EXPECT_EQ(model->inputs()[0].name, "x");
  EXPECT_EQ(model->inputs()[0].dtype, tosa::DType::Fp32);
  EXPECT_EQ(model->inputs()[0].bytes, 4000u);
  ASSERT_EQ(model->segments().size(), 4u);
  EXPECT_EQ(model->segments()[1].bindings[0].set, 1u);
  EXPECT_EQ(model->segments()[0].bindings[2].access, Access::Write);
  EXPECT_EQ(model->segments()[0].bindings[1].access, Access::Read);
  // glslang's SPIR-V 1.6 output uses ExecutionMode LocalSizeId, hence maintenance4.
  vulkan::FeatureSet maintenance4;
  maintenance4.add(vulkan::Feature::Maintenance4);
  EXPECT_EQ(model->requiredFeatures(), maintenance4);
  EXPECT_TRUE(model->checkDevice(fakeDevice()));
}

TEST(Model, DefaultNamesWhenTheFileHasNone) {
  auto chain = chainModel();
  vgf::File& file = chain->file;
  file.inputNames.clear();
  file.outputNames.clear();
  Result<Model> model = Model::create(file, "chain.vgf");
  ASSERT_TRUE(model);
  EXPECT_EQ(model->inputs()[0].name, "input_0");
  EXPECT_EQ(model->outputs()[0].name, "output_0");
}

TEST(Model, RefusesGraphSegmentsNamingTheExtension) {
  auto chain = chainModel();
  vgf::File& file = chain->file;
  file.segments[2].type = vgf::ModuleType::Graph;
  Result<Model> model = Model::create(file, "graph.vgf");
  ASSERT_FALSE(model);
  EXPECT_EQ(model.error().kind(), ErrorKind::Unsupported);
  EXPECT_EQ(model.error().exitCode(), 2);
  EXPECT_THAT(model.error().message(), HasSubstr("graph.vgf: segments[2] 'add_input': expected a COMPUTE segment, "
                                                 "got a GRAPH segment"));
  EXPECT_THAT(model.error().message(), HasSubstr("VK_ARM_data_graph"));
}

TEST(Model, RefusesModulesWithoutSpirv) {
  auto chain = chainModel();
  vgf::File& file = chain->file;
  file.modules[1].codeKind = vgf::CodeKind::Glsl;
  Result<Model> model = Model::create(file, "m.vgf");
  ASSERT_FALSE(model);
  EXPECT_THAT(model.error().message(), HasSubstr("modules[1] 'scale2': expected embedded SPIR-V code, got GLSL source"));
}

TEST(Model, ChecksBindingsResourcesAndConstants) {
  {
    auto chain = chainModel();
    vgf::File& file = chain->file;
    file.segments[0].setInfos[0].bindings[1].mrtIndex = 99;
    Result<Model> model = Model::create(file, "m.vgf");
    ASSERT_FALSE(model);
    EXPECT_EQ(model.error().message(),
              "m.vgf: segments[0] 'add_const': set_infos[0].bindings[1]: mrt_index: expected < 6, got 99");
  }
  {
    auto chain = chainModel();
    vgf::File& file = chain->file;
    file.constants[0].data = file.constants[0].data.first(12);
    Result<Model> model = Model::create(file, "m.vgf");
    ASSERT_FALSE(model);
    EXPECT_EQ(model.error().message(),
              "m.vgf: constants[0]: expected 4000 bytes for resources[1] (R32_SFLOAT [1,1000]), got 12");
  }
  {
    auto chain = chainModel();
    vgf::File& file = chain->file;
    file.resources[2].shape[1] = INT64_MIN;
    Result<Model> model = Model::create(file, "m.vgf");
    ASSERT_FALSE(model);
    EXPECT_EQ(model.error().message(), "m.vgf: resources[2]: shape[1]: expected a static dimension >= 1, got dynamic");
  }
  {
    auto chain = chainModel();
    vgf::File& file = chain->file;
    file.resources[3].descriptorType = vgf::kDescriptorTypeTensorArm;
    Result<Model> model = Model::create(file, "m.vgf");
    ASSERT_FALSE(model);
    EXPECT_THAT(model.error().message(), HasSubstr("resources[3]: expected a STORAGE_BUFFER resource, got TENSOR_ARM"));
  }
  {
    auto chain = chainModel();
    vgf::File& file = chain->file;
    file.segments[0].outputs.push_back({0, 1});  // writes the constant
    Result<Model> model = Model::create(file, "m.vgf");
    ASSERT_FALSE(model);
    EXPECT_THAT(model.error().message(), HasSubstr("expected a writable (OUTPUT or INTERMEDIATE) resource"));
  }
  {
    auto chain = chainModel();
    vgf::File& file = chain->file;
    file.segments[3].dispatchShape.reset();
    EXPECT_THAT(Model::create(file, "m.vgf").error().message(),
                HasSubstr("segments[3] 'minus_one': dispatch_shape: expected workgroup counts, got none"));
  }
}

// The classes of damage a mutation campaign found reaching the driver or running with wrong
// results (issue 17): each is refused before any Vulkan object exists, naming segment, binding
// and rule.
std::string refusal(vgf::File& file) {
  Result<Model> model = Model::create(file, "m.vgf");
  if (model) return "accepted";
  EXPECT_EQ(model.error().exitCode(), 2) << model.error().message();
  return model.error().message();
}

// The id of the variable a module declares at (set 0, binding).
std::uint32_t variableAt(std::span<const std::uint32_t> spirv, std::uint32_t binding) {
  // Named: a range-for over a member of the temporary Result would outlive it (before C++23's
  // lifetime extension, which GCC 12 lacks).
  const Result<vgf::SpirvModule> module = vgf::reflectSpirv(spirv);
  for (const vgf::SpirvDescriptor& d : module->entryPoints[0].descriptors) {
    if (d.binding == binding) return d.id;
  }
  return 0;
}

struct BinaryModel {
  vgf::Builder builder;
  vgf::File file;
};

std::unique_ptr<BinaryModel> binaryModel(V format = V::R32Sfloat, std::span<const std::uint32_t> spirv = k_binary_f32) {
  auto built = std::make_unique<BinaryModel>();
  openvgf::testing::buildBinary(built->builder, format, spirv);
  built->file = built->builder.file();
  return built;
}

TEST(ModelInterface, AnUnboundBindingTheModuleUsesIsRefused) {
  auto m = binaryModel();
  m->file.segments[0].setInfos[0].bindings[2].binding = 0xFFFFFFFFu;
  EXPECT_THAT(refusal(m->file), ::testing::AllOf(HasSubstr("m.vgf: segments[0] 'add': set 0 binding 2: modules[0] "
                                                           "'binary' uses a storage buffer there (variable %"),
                                                 HasSubstr("expected the segment to bind a tensor to it, got no binding")));
  auto empty = binaryModel();
  empty->file.segments[0].setInfos.clear();
  EXPECT_THAT(refusal(empty->file), HasSubstr("segments[0] 'add': set 0 binding 2: modules[0] 'binary' uses a storage buffer there"));
  auto moved = binaryModel();
  moved->file.segments[0].setInfos[0].setIndex = 1;
  EXPECT_THAT(refusal(moved->file), HasSubstr("set 0 binding 2: modules[0] 'binary' uses a storage buffer there"));
}

TEST(ModelInterface, RenumberedBindingsAreRefusedByAccess) {
  auto m = binaryModel();
  std::swap(m->file.segments[0].setInfos[0].bindings[1].binding, m->file.segments[0].setInfos[0].bindings[2].binding);
  // b (an input) now sits where the module stores, c (the output) where it only loads.
  EXPECT_EQ(refusal(m->file),
            "m.vgf: segments[0] 'add': set 0 binding 1 (output 'c' (resources[2])): expected modules[0] 'binary' to "
            "write a tensor the segment lists in outputs, got a module that never stores to it");
  auto unlisted = binaryModel();
  unlisted->file.segments[0].inputs.clear();
  unlisted->file.segments[0].outputs.clear();  // unlisted: inputs are read, the output read and written
  EXPECT_EQ(refusal(unlisted->file), "accepted");
  auto inputsOnly = binaryModel();
  inputsOnly->file.segments[0].outputs.clear();
  inputsOnly->file.segments[0].inputs.push_back({2, 2});
  EXPECT_THAT(refusal(inputsOnly->file),
              HasSubstr("set 0 binding 2 (output 'c' (resources[2])): expected modules[0] 'binary' not to write it, as "
                        "the segment lists it in inputs only, got a module that stores to it"));
}

TEST(ModelInterface, ModulesThatWriteConstantsOrInputsAreRefused) {
  auto chain = chainModel();
  chain->file.segments[0].setInfos[0].bindings[2].mrtIndex = 1;  // the constant where add_f32 stores
  EXPECT_THAT(refusal(chain->file),
              HasSubstr("segments[0] 'add_const': set 0 binding 2 (constant tensor resources[1] R32_SFLOAT [1,1000]): "
                        "expected modules[0] 'add_f32' not to write it, as model inputs and constants are read-only"));
}

TEST(ModelInterface, ElementTypeAndSizeMustFitTheModule) {
  auto wide = binaryModel(V::R32Sfloat, k_binary_i8);  // int8 loads of fp32 tensors
  EXPECT_EQ(refusal(wide->file),
            "m.vgf: segments[0] 'add': set 0 binding 0 (input 'a' (resources[0])): expected modules[0] 'binary' to "
            "access 4-byte floating-point elements (R32_SFLOAT), got 1-byte array elements of 1-byte int (variable %" +
                std::to_string(variableAt(k_binary_i8, 0)) + ")");
  auto intAsFloat = binaryModel(V::R32Sint, k_binary_f32);  // same size, float loads of int32 tensors
  EXPECT_THAT(refusal(intAsFloat->file), HasSubstr("expected modules[0] 'binary' to access 4-byte integer elements "
                                                   "(R32_SINT), got 4-byte array elements of 4-byte float"));
  auto narrow = binaryModel(V::R8Sint, k_binary_f32);
  EXPECT_THAT(refusal(narrow->file), HasSubstr("got 4-byte array elements of 4-byte float"));
  // Unsigned words are raw bits: 64-bit words of fp32 tensors (the CPU GEMM core's 8-float
  // loads) pass; signed 64-bit elements of them do not, nor do words narrower than the element.
  EXPECT_EQ(refusal(binaryModel(V::R32Sfloat, k_binary_u64)->file), "accepted");
  EXPECT_EQ(refusal(binaryModel(V::R8Sint, k_binary_u64)->file), "accepted");
  EXPECT_THAT(refusal(binaryModel(V::R32Sfloat, k_binary_i64)->file),
              HasSubstr("got 8-byte array elements of 8-byte int"));
  EXPECT_THAT(refusal(binaryModel(V::R64Sint, k_binary_i32)->file),
              HasSubstr("got 4-byte array elements of 4-byte int"));
}

TEST(ModelInterface, ModulesMustPassSpirvVal) {
  auto m = binaryModel();
  std::vector<std::uint32_t> words(k_binary_f32, k_binary_f32 + sizeof(k_binary_f32) / 4);
  words[1] = 0x00020000u;  // SPIR-V 2.0 does not exist
  m->file.modules[0].spirv = words;
  EXPECT_THAT(refusal(m->file), HasSubstr("m.vgf: segments[0] 'add': modules[0] 'binary': expected SPIR-V that "
                                          "spirv-val accepts for Vulkan 1.3, got: "));
  words[1] = 0x00010600u;
  words.resize(6);  // cut inside the first capability
  m->file.modules[0].spirv = words;
  EXPECT_THAT(refusal(m->file), HasSubstr("modules[0] 'binary': SPIR-V module: word 5: expected an instruction"));
  // Found by the mutation campaign: spirv-val accepts a non-zero schema word; lavapipe does not.
  words.assign(k_binary_f32, k_binary_f32 + sizeof(k_binary_f32) / 4);
  words[4] = 0x80000000u;
  m->file.modules[0].spirv = words;
  EXPECT_THAT(refusal(m->file), HasSubstr("modules[0] 'binary': header word 4 (schema): expected 0, got 2147483648"));
}

// `module` with its (only) OpControlBarrier's scopes and semantics replaced by new 32-bit
// unsigned constants, declared before the first function.
std::vector<std::uint32_t> withBarrier(std::span<const std::uint32_t> module, std::uint32_t execution,
                                       std::uint32_t memory, std::uint32_t semantics) {
  using openvgf::testing::findInstructions;
  std::vector<std::uint32_t> words(module.begin(), module.end());
  std::uint32_t uintType = 0;
  for (std::size_t at : findInstructions(words, 21)) {  // OpTypeInt
    if (words[at + 2] == 32 && words[at + 3] == 0) uintType = words[at + 1];
  }
  const std::vector<std::size_t> functions = findInstructions(words, 54), barriers = findInstructions(words, 224);
  EXPECT_TRUE(uintType != 0 && !functions.empty() && barriers.size() == 1);
  const std::size_t firstFunction = functions.at(0), barrier = barriers.at(0);  // OpFunction, OpControlBarrier
  const std::uint32_t ids = words[3];
  words[3] += 3;  // id bound
  words[barrier + 1] = ids;
  words[barrier + 2] = ids + 1;
  words[barrier + 3] = ids + 2;
  const std::uint32_t values[3] = {execution, memory, semantics};
  std::vector<std::uint32_t> constants;
  for (std::uint32_t k = 0; k < 3; ++k) constants.insert(constants.end(), {(4u << 16) | 43u, uintType, ids + k, values[k]});
  words.insert(words.begin() + static_cast<std::ptrdiff_t>(firstFunction), constants.begin(), constants.end());
  return words;
}

// Found by the mutation campaign: spirv-val accepts a barrier that orders no shared memory, and
// lavapipe then ran the module with outputs that depend on what the memory held before.
TEST(ModelInterface, BarriersMustMakeSharedMemoryVisible) {
  auto m = binaryModel(V::R32Sfloat, k_shared_sum);
  EXPECT_EQ(refusal(m->file), "accepted");
  // glslang's barrier(): Workgroup, Workgroup, AcquireRelease | WorkgroupMemory; subgroupBarrier()
  // orders more storage classes; a device-scope memory barrier is wider than needed but fine.
  for (auto [execution, memory, semantics] : {std::tuple{2u, 2u, 0x108u}, {3u, 3u, 0xD48u}, {2u, 1u, 0x110u}}) {
    auto ok = binaryModel(V::R32Sfloat, k_shared_sum);
    const std::vector<std::uint32_t> words = withBarrier(k_shared_sum, execution, memory, semantics);
    ok->file.modules[0].spirv = words;  // a view: `words` outlives the check
    EXPECT_EQ(refusal(ok->file), "accepted") << execution << " " << memory << " " << semantics;
  }
  struct Bad {
    std::uint32_t execution, memory, semantics;
    const char* got;
  };
  for (const Bad& bad : {Bad{2, 2, 0x80, "execution scope 2, memory scope 2, semantics 0x80"},  // the finding
                         Bad{2, 2, 0x0, "semantics 0x0"},
                         Bad{2, 2, 0x100, "semantics 0x100"},  // no ordering
                         Bad{2, 3, 0x108, "memory scope 3"}}) {  // narrower than the execution
    auto m2 = binaryModel(V::R32Sfloat, k_shared_sum);
    const std::vector<std::uint32_t> words = withBarrier(k_shared_sum, bad.execution, bad.memory, bad.semantics);
    m2->file.modules[0].spirv = words;
    const std::string message = refusal(m2->file);
    EXPECT_THAT(message, ::testing::AllOf(HasSubstr("m.vgf: segments[0] 'add': modules[0] 'binary': OpControlBarrier "
                                                    "at word "),
                                          HasSubstr("expected a barrier that makes shared memory visible"),
                                          HasSubstr(bad.got)))
        << bad.got;
  }
  // The reflection behind the rule: the shared-memory kernel declares Workgroup variables and
  // one barrier; the binary kernel neither (the rule leaves such modules alone).
  EXPECT_TRUE(vgf::reflectSpirv(k_shared_sum)->entryPoints[0].workgroupVariables);
  EXPECT_EQ(vgf::reflectSpirv(k_shared_sum)->controlBarriers.size(), 1u);
  EXPECT_FALSE(vgf::reflectSpirv(k_binary_f32)->entryPoints[0].workgroupVariables);
  EXPECT_TRUE(vgf::reflectSpirv(k_binary_f32)->controlBarriers.empty());
}

TEST(ModelDataflow, IntermediatesAreWrittenBeforeReadAndOutputsAreWritten) {
  auto chain = chainModel();
  chain->file.segments.erase(chain->file.segments.begin());  // 'scale' now reads t1 first
  EXPECT_EQ(refusal(chain->file),
            "m.vgf: segments[0] 'scale': set 1 binding 0: expected intermediate tensor resources[2] R32_SFLOAT "
            "[1,1000] to be written by an earlier segment before it is read, got a read first");
  // A binding the module never uses is inert, whatever the segment lists (the converter binds
  // a split-K partial pass's output, which only the reduction writes).
  auto inert = chainModel();
  inert->file.segments[0].setInfos[0].bindings.push_back({7, 3});
  inert->file.segments[0].inputs.push_back({7, 3});
  EXPECT_EQ(refusal(inert->file), "accepted");
  auto noLast = chainModel();
  noLast->file.segments.pop_back();  // nothing writes y
  EXPECT_EQ(refusal(noLast->file), "m.vgf: output 'y' (resources[5]): expected a segment to write it, got none");
}

// The campaign's `vgftable` class found it: an output slot pointed at an intermediate of the
// chain returned that tensor with exit 0, the real OUTPUT resource written and never read.
TEST(ModelInterface, EveryInputAndOutputResourceIsNamedByExactlyOneSlot) {
  auto retargeted = chainModel();
  const std::uint32_t output = retargeted->file.outputs[0].mrtIndex;
  retargeted->file.outputs[0].mrtIndex = 4;  // t3, an intermediate
  EXPECT_EQ(refusal(retargeted->file), fmt::format("m.vgf: resources[{}]: an OUTPUT resource that no model output "
                                                   "slot names", output));
  auto twice = chainModel();
  twice->file.outputs.push_back(twice->file.outputs[0]);
  twice->file.outputNames.push_back("y2");
  EXPECT_THAT(refusal(twice->file), HasSubstr(fmt::format("resources[{}] is named by 2 input/output slots", output)));
}

TEST(ModelDataflow, AliasGroupMembersMustNotBeLiveTogether) {
  auto chain = chainModel();
  chain->file.resources[3].aliasGroup = 0;  // t2 joins t1 and t3, but t1 -> t2 is one segment
  EXPECT_EQ(refusal(chain->file),
            "m.vgf: alias group 0: resources[2] and resources[3] are both live at segments[1] 'scale': expected "
            "tensors of one alias group to have disjoint lifetimes");
}

TEST(ModelLimits, TensorsLargerThanADescriptorRangeAreRefused) {
  auto m = binaryModel();
  m->file.resources[2].shape = {1 << 16, 1 << 14};  // 2^30 fp32 elements = 4 GiB
  EXPECT_EQ(refusal(m->file),
            "m.vgf: resources[2]: shape [65536,16384]: expected at most 4294967295 bytes per tensor, got 1073741824 "
            "elements of 4 bytes");
  m->file.resources[2].shape = {1ll << 40, 1ll << 40};  // the product overflows int64
  EXPECT_THAT(refusal(m->file), HasSubstr("resources[2]: shape [1099511627776,1099511627776]: expected at most"));
}

TEST(ModelLimits, ModelsClaimingMoreThanKMaxModelBytesAreRefused) {
  auto m = binaryModel();
  auto big = m->file.resources[2];
  big.shape = {1 << 15, (1 << 15) - 1};  // just under 4 GiB of fp32: each tensor alone is allowed
  while (m->file.resources.size() < 300) m->file.resources.push_back(big);
  EXPECT_THAT(refusal(m->file), HasSubstr(": expected at most 1099511627776 bytes of tensors in a model, got more"));
}

// Work is bounded by data: one workgroup per element of the largest bound tensor at most
// (the [37]-element add may use 37), and 2^40 invocations per run however the segments share it.
TEST(ModelLimits, DispatchesWithMoreWorkgroupsThanElementsAreRefused) {
  auto m = binaryModel();
  m->file.segments[0].dispatchShape = {37, 1, 1};
  EXPECT_EQ(refusal(m->file), "accepted");
  m->file.segments[0].dispatchShape = {1, 2, 19};
  EXPECT_EQ(refusal(m->file), "m.vgf: segments[0] 'add': dispatch_shape [1, 2, 19]: expected at most 37 workgroups "
                              "(one per element of the largest tensor the segment binds: output 'c' (resources[2])), "
                              "got 38");
  m->file.segments[0].dispatchShape = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};  // 2^96: saturates, refused
  EXPECT_THAT(refusal(m->file), HasSubstr("expected at most 37 workgroups"));
}

TEST(ModelLimits, RunsOfMoreThanKMaxRunInvocationsAreRefused) {
  auto m = binaryModel();
  for (vgf::Resource& r : m->file.resources) r.shape = {1 << 15, 1 << 14};  // 2^29 fp32 elements, 2 GiB
  m->file.segments[0].dispatchShape = {1 << 15, 1 << 14, 1};  // one workgroup per element: allowed
  EXPECT_EQ(refusal(m->file), "accepted");
  // The module's workgroups have 64 invocations, so 2^35 per segment; 32 segments reach 2^40.
  const vgf::Segment add = m->file.segments[0];
  while (m->file.segments.size() < 32) m->file.segments.push_back(add);
  EXPECT_EQ(refusal(m->file), "accepted");
  m->file.segments.push_back(add);
  EXPECT_EQ(refusal(m->file), "m.vgf: segments: expected at most 1099511627776 shader invocations per run "
                              "(workgroups x workgroup size, summed over segments), got more");
}

TEST(Model, DeviceCheckNamesTheMissingCapability) {
  vgf::Builder b;
  openvgf::testing::buildBinary(b, V::R8Sint, k_binary_i8);
  vgf::File file = b.file();
  Result<Model> model = Model::create(file, "int8.vgf");
  ASSERT_TRUE(model) << model.error().message();
  vulkan::FeatureSet needed = model->requiredFeatures();
  EXPECT_TRUE(needed.has(vulkan::Feature::ShaderInt8));
  EXPECT_TRUE(needed.has(vulkan::Feature::StorageBuffer8BitAccess));

  vulkan::DeviceSnapshot device = fakeDevice();
  device.features.bits &= ~static_cast<std::uint32_t>(vulkan::Feature::ShaderInt8);
  Status status = model->checkDevice(device);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().kind(), ErrorKind::Unsupported);
  EXPECT_EQ(status.error().message(),
            "int8.vgf: modules[0] 'binary' (segment 'add'): needs SPIR-V capability Int8 (device feature shaderInt8), "
            "expected Fake GPU to support it");
}

TEST(Model, DeviceCheckNamesATensorOverMaxStorageBufferRange) {
  vgf::Builder b;
  openvgf::testing::buildBinary(b, V::R32Sfloat, k_binary_f32);
  vgf::File file = b.file();
  file.resources[2].shape = {64, 1024, 1024};  // 256 MiB output
  Result<Model> model = Model::create(file, "big.vgf");
  ASSERT_TRUE(model) << model.error().message();
  Status status = model->checkDevice(fakeDevice());
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message(),
            "big.vgf: output 'c' (resources[2]): expected at most maxStorageBufferRange = 134217728 bytes per tensor "
            "on Fake GPU, got 268435456 bytes");
}

TEST(Model, DeviceCheckLimitsDispatchSize) {
  auto chain = chainModel();
  vgf::File& file = chain->file;
  Result<Model> model = Model::create(file, "m.vgf");
  ASSERT_TRUE(model);
  vulkan::DeviceSnapshot device = fakeDevice();
  device.limits.maxComputeWorkGroupCount[0] = 8;
  EXPECT_THAT(model->checkDevice(device).error().message(),
              HasSubstr("segment 'add_const': dispatch_shape[0]: expected at most maxComputeWorkGroupCount[0] = 8"));
}

}  // namespace
}  // namespace openvgf::runner
