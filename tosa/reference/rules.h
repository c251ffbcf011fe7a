// SPDX-License-Identifier: Apache-2.0
// Derivation of compliance rules (tosa/compliance.h) while the main block runs in precise
// mode: which rule judges each tensor, the dot-product "bounds" run, per-element absolute
// bounds of the transcendental ops, and the chain bookkeeping documented in compliance.h.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tosa/compliance.h"
#include "tosa/reference/value.h"

namespace openvgf::tosa::reference {

class RuleTracker {
 public:
  using Dispatch = std::function<Result<Outputs>(Context&, Inputs)>;

  /// Names whose full rule (with per-element data) is kept; others keep only the chain data.
  void keepRulesFor(std::set<std::string> names) { outputs_ = std::move(names); }

  void onConstant(const std::string& name);
  Result<void> onOperator(Context& ctx, Inputs in, const Outputs& outs, const Dispatch& dispatch);
  /// Rule and bounds of a graph output.
  void finish(const std::string& name, const Value& value, compliance::Rule& rule, std::vector<double>& bounds) const;

 private:
  struct Info {
    compliance::Rule rule;
    std::vector<double> bounds;
    int depth = 0;            // inexact fp operators on the longest path up to and including this one
    double maxAbsTol = 0.0;   // largest absolute tolerance (chain-scaled) of the values in this tensor
    std::vector<double> elementTol;  // the tolerance of each value (finite; empty when maxAbsTol is 0)
  };
  std::map<std::string, Info, std::less<>> infos_;
  std::set<std::string> outputs_;
};

/// RESCALE with INEXACT_ROUND: the interval of acceptable results per element (§2.3).
Result<void> rescaleInexactRange(Context& ctx, Inputs in, std::vector<std::int64_t>& minInt,
                                 std::vector<std::int64_t>& maxInt);

}  // namespace openvgf::tosa::reference
