// SPDX-License-Identifier: Apache-2.0
// `openvgf compare`: where a wrong answer starts (docs/debugging.md).
//   compare ACTUAL.npy EXPECTED.npy   TOSA-style error figures of two arrays (max absolute
//                                     error, max ulp and relative error, elements beyond the
//                                     tolerance)
//   compare MODEL.tosa [--input ...]  runs the model on the device with every computed tensor
//                                     kept (ModelOptions::keepIntermediates) and judges each
//                                     with the reference interpreter under TOSA's compliance
//                                     rules (Session::check), on the same graph or with
//                                     --against model:OTHER.tosa on another; reports the first
//                                     operator, in operator order, whose output is beyond its
//                                     tolerance.
//   compare MODEL.tosa --per-operator  the same run, but each operator judged alone on the
//                                     device's own values of its inputs, under its own TOSA
//                                     rule (Session::checkOperators): no upstream error is
//                                     propagated, so deep graphs get a verdict.
// Exit 1 when something differs, 2 for bad input, 3 when nothing differs but some tensors'
// tolerances are too wide to judge them (inconclusive: see tosa/compliance.h) or some
// operators cannot be judged alone.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "debug.h"
#include "inputs.h"

namespace openvgf::cli {
namespace {

struct CompareArgs {
  std::vector<std::string> files;
  double ulp = 0;
  double atol = 0;
  std::string against = "reference";
  bool all = false;
  bool perOperator = false;
  RunOptions run;  // the model's inputs and device
};

int compareArrays(const CompareArgs& args) {
  CompareOptions options;
  options.ulp = args.ulp;
  options.absTolerance = args.atol;
  const Comparison c = compareNpy(args.files[0], args.files[1], options);
  // The verdict is what was asked for: a failing one is printed even with -q.
  if (!c.pass || !quiet())
    std::printf("%s vs %s: %s\n", args.files[0].c_str(), args.files[1].c_str(), c.line.c_str());
  return c.pass ? 0 : 1;
}

// "operator 3 CONV2D -> 'conv1' [1,8,8,16] FP32"
std::string describe(const TensorInfo& info) {
  return fmt::format("operator {} {} -> '{}' [{}] {}", info.producerIndex, info.producer, info.name,
                     fmt::join(info.shape, ","), toString(info.dtype));
}

// What the model is judged against: the reference interpreter on its own graph, or on another .tosa.
ModelOptions compareOptions(const CompareArgs& args) {
  ModelOptions open;
  open.device = args.run.device;
  open.target = args.run.target;
  open.keepIntermediates = true;
  if (args.against == "reference") {
    open.check = true;
  } else if (args.against.starts_with("model:") && args.against.size() > 6) {
    open.reference = args.against.substr(6);
  } else {
    fail(ErrorCode::InvalidInput,
         fmt::format(
             "--against: expected reference or model:OTHER.tosa, got '{}' (comparing two devices or two "
             "targets directly is not available: compare each with the reference)",
             args.against));
  }
  return open;
}

std::string againstText(const CompareArgs& args) {
  return args.against == "reference" ? "the reference interpreter"
                                     : "the reference interpreter on " + args.against.substr(6);
}

// "operator 3 CONV2D: conv1: FAIL (...)", or why the operator was not judged.
std::string operatorLine(const OperatorCheck& op, const OutputCheck* check) {
  std::string line = fmt::format("operator {} {}: ", op.index, op.op);
  line += check != nullptr ? check->line : "NOT JUDGED per operator: " + op.notJudged;
  if (op.upstream > 0) {
    line += fmt::format(" (computed with {} operator{} before it whose values the device does not return)",
                        op.upstream, op.upstream == 1 ? "" : "s");
  }
  return line;
}

bool isFloat(DataType t) {
  return t == DataType::Float32 || t == DataType::Float16 || t == DataType::BFloat16 || t == DataType::Float8E4M3 ||
         t == DataType::Float8E5M2;
}

// The figures of a failing output, as the tensor-by-tensor report gives them.
std::string failureFigures(const TensorInfo& info, const OutputCheck& c) {
  return fmt::format("{}: {} of {} elements beyond tolerance ({} check), max abs error {:.6g}{}", describe(info),
                     c.failures, c.elements, c.rule, c.maxAbsError,
                     isFloat(info.dtype) ? fmt::format(", max ULP error {:.6g}", c.maxUlpError) : "");
}

std::string failureFigures(const Model& model, const OperatorCheck& op, const OutputCheck& c) {
  for (const TensorInfo& info : model.outputs()) {
    if (info.name == c.output) return failureFigures(info, c);
  }
  return fmt::format("operator {} {} -> '{}': {}", op.index, op.op, c.output, c.line);
}

// Session::checkOperators of one run: a line per failing (or, with --all, every) operator,
// the count judged within tolerance and the first failing operator.
int compareOperators(const CompareArgs& args, const Model& model, const Session& session,
                     const std::map<std::string, Tensor>& inputs, const std::vector<Tensor>& outputs) {
  const OperatorReport report = session.checkOperators(inputs, outputs);
  std::size_t passed = 0;
  std::string firstFailure;
  std::vector<std::string> unjudged;  // not judged, or inconclusive
  for (const OperatorCheck& op : report.operators) {
    bool pass = op.notJudged.empty();
    if (!pass) unjudged.push_back(fmt::format("operator {} {}", op.index, op.op));
    if (!pass && (!quiet() || args.all)) std::printf("%s\n", operatorLine(op, nullptr).c_str());
    bool inconclusive = false;
    for (const OutputCheck& c : op.outputs) {
      if (!c.pass && !c.inconclusive && firstFailure.empty()) firstFailure = failureFigures(model, op, c);
      if (c.inconclusive) inconclusive = true;
      if (!c.pass || args.all) std::printf("%s\n", operatorLine(op, &c).c_str());
      pass = pass && c.pass;
    }
    if (inconclusive && op.notJudged.empty()) unjudged.push_back(fmt::format("operator {} {} (inconclusive)", op.index, op.op));
    if (pass) ++passed;
  }
  const std::string where = fmt::format("against {} on {}", againstText(args), model.deviceName());
  std::string summary = fmt::format("{}: {} of {} operators within TOSA's per-operator tolerance on the device's own "
                                    "inputs, {}", args.run.path, passed, report.operators.size(), where);
  if (!unjudged.empty()) summary += fmt::format("; {} not judged: {}", unjudged.size(), fmt::join(unjudged, ", "));
  if (!report.pass || !quiet()) std::printf("%s\n", summary.c_str());
  if (!firstFailure.empty()) std::printf("%s: first failing operator: %s\n", args.run.path.c_str(), firstFailure.c_str());
  return report.pass ? 0 : (report.inconclusive ? 3 : 1);
}

int compareModel(const CompareArgs& args) {
  if (args.ulp != 0 || args.atol != 0) {
    fail(ErrorCode::InvalidInput,
         "--ulp / --atol: expected two .npy files; a model is judged under TOSA's own "
         "tolerance of each operator");
  }
  const GivenInputs given = readGivenInputs(args.run);
  const Model model = Model::open(args.run.path, compareOptions(args));
  const std::map<std::string, Tensor> inputs = bindGivenInputs(args.run, model, given);
  spdlog::info("device: {}", model.deviceName());
  Session session = model.createSession();
  const std::vector<Tensor> outputs = session.runNamed(inputs);
  if (args.perOperator) return compareOperators(args, model, session, inputs, outputs);
  const CheckReport report = session.check(inputs, outputs);

  std::map<std::string, const OutputCheck*> checks;
  for (const OutputCheck& c : report.outputs) checks[c.output] = &c;
  std::vector<const TensorInfo*> order;
  for (const TensorInfo& info : model.outputs()) order.push_back(&info);
  std::stable_sort(order.begin(), order.end(), [](const TensorInfo* a, const TensorInfo* b) {
    return a->producerIndex < b->producerIndex;
  });
  const TensorInfo* first = nullptr;
  const TensorInfo* firstInconclusive = nullptr;
  std::size_t failed = 0;
  std::size_t inconclusive = 0;
  for (const TensorInfo* info : order) {
    const OutputCheck* c = checks.count(info->name) ? checks[info->name] : nullptr;
    if (c == nullptr) continue;  // a `state:` output is judged under its own name below
    if (c->inconclusive && inconclusive++ == 0) firstInconclusive = info;
    if (!c->pass && !c->inconclusive && failed++ == 0) first = info;
    if (args.all && !quiet()) std::printf("%s: %s\n", describe(*info).c_str(), c->line.c_str());
  }
  for (const OutputCheck& c : report.outputs) {
    if (!c.pass && !c.inconclusive &&
        !std::any_of(order.begin(), order.end(), [&](const TensorInfo* t) { return t->name == c.output; })) {
      if (failed++ == 0) std::printf("%s\n", c.line.c_str());
    }
  }
  const std::string against = againstText(args);
  if (failed == 0 && firstInconclusive != nullptr) {
    // Tolerances propagated from the graph's inputs grow with depth: past some operator they
    // judge nothing (tosa/compliance.h), so the operators from there on are not vouched for.
    std::printf("%s: no computed tensor beyond TOSA's tolerance of %s on %s, but %zu of %zu could not be judged, "
                "the first at %s: %s\n%s: --per-operator judges each operator on the device's own inputs instead\n",
                args.run.path.c_str(), against.c_str(), model.deviceName().c_str(), inconclusive,
                report.outputs.size(), describe(*firstInconclusive).c_str(), checks[firstInconclusive->name]->line.c_str(),
                args.run.path.c_str());
    return 3;
  }
  if (failed == 0) {
    if (!quiet()) {
      std::printf("%s: all %zu computed tensors within TOSA's tolerance of %s on %s\n", args.run.path.c_str(),
                  report.outputs.size(), against.c_str(), model.deviceName().c_str());
    }
    return 0;
  }
  if (first != nullptr) {
    const OutputCheck& c = *checks[first->name];
    std::printf("%s: first difference at %s\n  %s\n", args.run.path.c_str(), failureFigures(*first, c).c_str(),
                c.line.c_str());
  }
  std::printf("%s: %zu of %zu computed tensors beyond tolerance against %s on %s\n", args.run.path.c_str(),
              failed, report.outputs.size(), against.c_str(), model.deviceName().c_str());
  return 1;
}

void setup(CLI::App& sub, Action& action) {
  auto args = std::make_shared<CompareArgs>();
  sub.add_option(
         "files", args->files,
         "ACTUAL.npy EXPECTED.npy (two arrays of one shape), or MODEL.tosa (the device against the reference "
         "interpreter, operator by operator)")
      ->required()
      ->expected(1, 2);
  sub.add_option("--ulp", args->ulp,
                 "Arrays: tolerance in units in the last place of their float type (default 0: exact)")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--atol", args->atol,
                 "Arrays: absolute tolerance (default 0); an element passes within either")
      ->check(CLI::NonNegativeNumber);
  std::function<void()> finishInputs = addInputOptions(sub, args->run);
  sub.add_option("--against", args->against,
                 "Model: what the device is judged against: reference (the interpreter on MODEL, default) or "
                 "model:OTHER.tosa (the interpreter on another graph with the same tensor names)")
      ->capture_default_str();
  sub.add_option("--device", args->run.device, "Model: Vulkan device index or name substring");
  sub.add_option("--target", args->run.target,
                 "Model: how the .tosa is converted for the device, and so which kernels are judged: portable "
                 "(default) or native (tuned for this device)")
      ->check(oneOf({"portable", "native"}))
      ->capture_default_str();
  sub.add_flag("--all", args->all,
               "Model: print the verdict of every computed tensor (with --per-operator: every operator), in "
               "operator order");
  sub.add_flag("--per-operator", args->perOperator,
               "Model: judge each operator alone, on the device's own values of its inputs, under its own TOSA "
               "tolerance (no error propagated from earlier operators: deep graphs get a verdict)");
  action = [args, finishInputs]() -> int {
    finishInputs();
    if (args->files.size() == 2) {
      if (!args->run.inputs.empty() || args->run.randomSeed) {
        fail(ErrorCode::InvalidInput,
             "--input / --random-inputs: expected MODEL.tosa, got two files to compare");
      }
      if (args->perOperator) fail(ErrorCode::InvalidInput, "--per-operator: expected MODEL.tosa, got two arrays");
      return compareArrays(*args);
    }
    args->run.path = args->files[0];
    return compareModel(*args);
  };
}

OPENVGF_REGISTER_COMMAND(
    {"compare",
     "Find where a wrong answer starts: a model on the device against the reference, operator by "
     "operator, or two .npy arrays",
     41, setup});

}  // namespace
}  // namespace openvgf::cli
