// SPDX-License-Identifier: Apache-2.0
// One BERT-base encoder layer (post-norm): hidden 768, 12 heads of 64, FFN 3072, sequence
// 128, batch 1, no attention mask. Softmax, layer norm and GELU are spelled in TOSA
// primitives:
//   softmax(x)   = e / REDUCE_SUM(e), e = EXP(x - REDUCE_MAX(x)), division via RECIPROCAL
//   layernorm(x) = (x - mean) * RSQRT(mean((x - mean)^2) + 1e-12) * gamma + beta
//   gelu(x)      = 0.5 * x * (1 + ERF(x / sqrt(2)))
// Weights follow BERT's initialiser scale (std 0.02, here uniform), layer-norm gamma near 1.
#include <cmath>

#include "benchmarks/models/zoo.h"

namespace openvgf::benchmarks {

namespace {

constexpr std::int64_t kSeq = 128;
constexpr std::int64_t kHidden = 768;
constexpr std::int64_t kHeads = 12;
constexpr std::int64_t kHeadDim = kHidden / kHeads;
constexpr std::int64_t kFfn = 3072;
constexpr float kInitStd = 0.02f;

class BertBuilder {
 public:
  BertBuilder(Net& net, tosa::DType type) : net_(net), type_(type) {}

  Value scalar(const std::string& hint, float v) { return net_.floatScalar(hint, v, 3, type_); }

  /// x [1, S, in] @ W [1, in, out] + b [1, 1, out]
  Value linear(const Value& x, std::int64_t out, const std::string& hint) {
    std::int64_t in = x.shape[2];
    float bound = kInitStd * std::sqrt(3.0f);
    Value w = net_.uniformWeight(hint + "_w", {1, in, out}, -bound, bound, type_);
    Value b = net_.uniformWeight(hint + "_b", {1, 1, out}, -kInitStd, kInitStd, type_);
    return net_.add(net_.matmul(x, w), b);
  }

  Value softmax(const Value& x, std::int32_t axis) {
    Value shifted = net_.sub(x, net_.reduce(tosa::Op::ReduceMax, x, axis));
    Value e = net_.unary(tosa::Op::Exp, shifted);
    Value inv = net_.unary(tosa::Op::Reciprocal, net_.reduce(tosa::Op::ReduceSum, e, axis));
    return net_.mul(e, inv);
  }

  Value layerNorm(const Value& x, const std::string& hint) {
    Value invN = scalar("inv_hidden", 1.0f / static_cast<float>(kHidden));
    Value mean = net_.mul(net_.reduce(tosa::Op::ReduceSum, x, 2), invN);
    Value centered = net_.sub(x, mean);
    Value var = net_.mul(net_.reduce(tosa::Op::ReduceSum, net_.mul(centered, centered), 2), invN);
    // 1e-12 (BERT's epsilon) underflows fp16; fp16 uses its smallest normal instead.
    float eps = type_ == tosa::DType::Fp16 ? 6.1035e-05f : 1e-12f;
    Value rstd = net_.unary(tosa::Op::Rsqrt, net_.add(var, scalar("ln_eps", eps)));
    Value gamma = net_.uniformWeight(hint + "_gamma", {1, 1, kHidden}, 0.9f, 1.1f, type_);
    Value beta = net_.uniformWeight(hint + "_beta", {1, 1, kHidden}, -0.1f, 0.1f, type_);
    return net_.add(net_.mul(net_.mul(centered, rstd), gamma), beta);
  }

  Value gelu(const Value& x) {
    Value inner = net_.unary(tosa::Op::Erf, net_.mul(x, scalar("inv_sqrt2", 0.70710678f)));
    Value onePlus = net_.add(inner, scalar("one", 1.0f));
    return net_.mul(net_.mul(x, onePlus), scalar("half", 0.5f));
  }

  /// [1, S, H*D] -> [H, S, D] (or [H, D, S] when `keysTransposed`).
  Value splitHeads(const Value& x, bool keysTransposed) {
    Value r = net_.reshape(x, {1, kSeq, kHeads, kHeadDim});
    Value t = net_.transpose(r, keysTransposed ? std::vector<std::int32_t>{0, 2, 3, 1}
                                               : std::vector<std::int32_t>{0, 2, 1, 3});
    return net_.reshape(t, keysTransposed ? tosa::Shape{kHeads, kHeadDim, kSeq} : tosa::Shape{kHeads, kSeq, kHeadDim});
  }

 private:
  Net& net_;
  tosa::DType type_;
};

}  // namespace

Net buildBertLayer(const std::string& name, bool fp16) {
  Net net(name, 0x424552546C617972ull);
  tosa::DType type = fp16 ? tosa::DType::Fp16 : tosa::DType::Fp32;
  BertBuilder b(net, type);
  Value x = net.input("hidden_states", {1, kSeq, kHidden}, type);

  Value q = b.splitHeads(b.linear(x, kHidden, "attn_q"), false);
  Value k = b.splitHeads(b.linear(x, kHidden, "attn_k"), true);
  Value v = b.splitHeads(b.linear(x, kHidden, "attn_v"), false);
  Value scores = net.mul(net.matmul(q, k), b.scalar("attn_scale", 1.0f / std::sqrt(static_cast<float>(kHeadDim))));
  Value probs = b.softmax(scores, 2);
  Value context = net.matmul(probs, v);                                     // [H, S, D]
  Value merged = net.reshape(net.transpose(net.reshape(context, {1, kHeads, kSeq, kHeadDim}), {0, 2, 1, 3}),
                             {1, kSeq, kHidden});
  Value attnOut = b.linear(merged, kHidden, "attn_out");
  Value h1 = b.layerNorm(net.add(attnOut, x), "attn_ln");

  Value ffn = b.linear(b.gelu(b.linear(h1, kFfn, "ffn_in")), kHidden, "ffn_out");
  net.output(b.layerNorm(net.add(ffn, h1), "ffn_ln"));
  return net;
}

}  // namespace openvgf::benchmarks
