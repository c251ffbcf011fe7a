// SPDX-License-Identifier: Apache-2.0
// COND_IF, WHILE_LOOP (with parent-block name lookup), variables across runs, topological
// order and graph errors.
#include "graph_helpers.h"

namespace openvgf::tosa {
namespace {

using namespace reftest;
using ::testing::ElementsAre;

Tensor tensorOf(std::string name, DType type, Shape shape) { return makeTensor(std::move(name), type, std::move(shape)); }

// A region with one block computing `op(a, b)` for int32 scalars-of-shape-[1].
Region binaryRegion(const std::string& name, Op op) {
  Block b;
  b.name = name;
  b.tensors = {tensorOf("a", DType::Int32, {1}), tensorOf("b", DType::Int32, {1}), tensorOf("r", DType::Int32, {1})};
  b.inputs = {"a", "b"};
  b.outputs = {"r"};
  b.operators.push_back(makeOp(op, {"a", "b"}, {"r"}));
  return Region{name, {b}};
}

TEST(ControlFlow, CondIfPicksABranch) {
  for (bool cond : {true, false}) {
    GraphBuilder g;
    auto c = g.input(ints(DType::Bool, {1}, {cond ? 1 : 0}));
    auto x = g.input(ints(DType::Int32, {1}, {10}));
    auto y = g.input(ints(DType::Int32, {1}, {3}));
    auto out = g.tensor(DType::Int32, {1});
    g.op(Op::CondIf, {c, x, y}, {out}, CondIfAttrs{"then", "else"});
    g.output(out);
    g.graph().regions.push_back(binaryRegion("then", Op::Add));
    g.graph().regions.push_back(binaryRegion("else", Op::Sub));
    auto r = g.run();
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_THAT(intValues(r->outputs[0].value), ElementsAre(cond ? 13 : 7));
  }
}

TEST(ControlFlow, WhileLoopCountsAndReadsParentConstants) {
  GraphBuilder g;
  auto i = g.input(ints(DType::Int32, {1}, {0}));
  auto acc = g.input(ints(DType::Int32, {1}, {1}));
  // Constants of the main block used inside the bodies by name.
  g.block().tensors.push_back(makeTensor("limit", DType::Int32, {1}, ints(DType::Int32, {1}, {5}).bytes));
  g.block().tensors.push_back(makeTensor("one", DType::Int32, {1}, ints(DType::Int32, {1}, {1}).bytes));
  g.block().operators.push_back(makeOp(Op::Const, {}, {"limit"}));
  g.block().operators.push_back(makeOp(Op::Const, {}, {"one"}));
  auto oi = g.tensor(DType::Int32, {1});
  auto oacc = g.tensor(DType::Int32, {1});
  g.op(Op::WhileLoop, {i, acc}, {oi, oacc}, WhileLoopAttrs{"cond", "body"});
  g.output(oacc);
  g.output(oi);
  Block cond;
  cond.name = "cond";
  cond.tensors = {tensorOf("ci", DType::Int32, {1}), tensorOf("cacc", DType::Int32, {1}), tensorOf("cr", DType::Bool, {1})};
  cond.inputs = {"ci", "cacc"};
  cond.outputs = {"cr"};
  cond.operators.push_back(makeOp(Op::Greater, {"limit", "ci"}, {"cr"}));
  Block body;
  body.name = "body";
  body.tensors = {tensorOf("bi", DType::Int32, {1}), tensorOf("bacc", DType::Int32, {1}),
                  tensorOf("ni", DType::Int32, {1}), tensorOf("nacc", DType::Int32, {1})};
  body.inputs = {"bi", "bacc"};
  body.outputs = {"ni", "nacc"};
  // Serialized out of order on purpose: the executor must schedule by data dependence.
  body.operators.push_back(makeOp(Op::Add, {"bacc", "ni"}, {"nacc"}));
  body.operators.push_back(makeOp(Op::Add, {"bi", "one"}, {"ni"}));
  g.graph().regions.push_back(Region{"cond", {cond}});
  g.graph().regions.push_back(Region{"body", {body}});
  auto r = g.run();
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_THAT(intValues(r->outputs[0].value), ElementsAre(16));  // 1 + 1 + 2 + 3 + 4 + 5
  EXPECT_THAT(intValues(r->outputs[1].value), ElementsAre(5));
}

TEST(ControlFlow, VariablesPersistAcrossRuns) {
  GraphBuilder g;
  auto x = g.input(ints(DType::Int8, {1}, {3}));
  g.block().tensors.push_back(makeTensor("state", DType::Int8, {1}, ints(DType::Int8, {1}, {10}).bytes, true));
  auto read = g.tensor(DType::Int8, {1});
  auto sum = g.tensor(DType::Int8, {1});
  // The serialized writer's convention: IDENTITY from / to the variable's name.
  g.op(Op::Identity, {"state"}, {read});
  g.op(Op::Add, {read, x}, {sum});
  g.op(Op::Identity, {sum}, {"state"});
  g.output(sum);
  // INT8 ADD is not a TOSA type pair, but the interpreter is generic enough for this test:
  // it checks the state handling, not ADD's type rules.
  reference::VariableState state;
  auto r1 = g.run({}, &state);
  ASSERT_TRUE(r1) << r1.error().message();
  EXPECT_THAT(intValues(r1->outputs[0].value), ElementsAre(13));
  auto r2 = g.run({}, &state);
  ASSERT_TRUE(r2);
  EXPECT_THAT(intValues(r2->outputs[0].value), ElementsAre(16));
  auto fresh = g.run();
  ASSERT_TRUE(fresh);
  EXPECT_THAT(intValues(fresh->outputs[0].value), ElementsAre(13));
}

TEST(ControlFlow, VariableOperators) {
  GraphBuilder g;
  auto x = g.input(floats(DType::Fp32, {2}, {1.5, -2}));
  g.block().tensors.push_back(makeTensor("acc", DType::Fp32, {2}));
  g.op(Op::Variable, {}, {"acc"});
  auto before = g.tensor(DType::Fp32, {2});
  auto sum = g.tensor(DType::Fp32, {2});
  g.op(Op::VariableRead, {"acc"}, {before});
  g.op(Op::Add, {before, x}, {sum});
  g.op(Op::VariableWrite, {sum}, {"acc"});
  g.output(sum);
  reference::VariableState state;
  ASSERT_TRUE(g.run({}, &state));
  auto r = g.run({}, &state);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_THAT(floatValues(r->outputs[0].value), ElementsAre(3.0, -4.0));
  ASSERT_NE(state.find("acc"), nullptr);
  EXPECT_THAT(floatValues(*state.find("acc")), ElementsAre(3.0, -4.0));
}

TEST(ControlFlow, GraphErrorsNameTheProblem) {
  GraphBuilder g;
  auto x = g.input(ints(DType::Int32, {1}, {1}));
  auto a = g.tensor(DType::Int32, {1});
  auto b = g.tensor(DType::Int32, {1});
  g.op(Op::Add, {x, b}, {a});
  g.op(Op::Add, {x, a}, {b});
  g.output(b);
  auto r = g.run();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("cycle"), std::string::npos) << r.error().message();

  GraphBuilder u;
  auto y = u.input(ints(DType::Int32, {1}, {1}));
  auto o = u.tensor(DType::Int32, {1});
  u.op(Op::Add, {y, "nowhere"}, {o});
  u.output(o);
  auto ru = u.run();
  ASSERT_FALSE(ru);
  EXPECT_NE(ru.error().message().find("'nowhere'"), std::string::npos) << ru.error().message();

  GraphBuilder w;
  w.input(ints(DType::Int32, {2}, {1, 2}));
  w.output("in0");
  std::vector<HostTensor> wrong{ints(DType::Int8, {2}, {1, 2})};
  auto rw = reference::run(w.graph(), wrong);
  ASSERT_FALSE(rw);
  EXPECT_NE(rw.error().message().find("expected INT32 [2], got INT8 [2]"), std::string::npos) << rw.error().message();
}

}  // namespace
}  // namespace openvgf::tosa
