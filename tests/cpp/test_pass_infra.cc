// The pass infrastructure (ir/transform.h, ir/instrument.h,
// tir/transform/prim_func_pass.h): PassContext nesting and config
// validation, Sequential's opt_level/required/disabled semantics, the order
// of instrument hooks, the timing instrument, PrimFuncPass and the pass
// registry. Passes here log their names so every expectation is a list.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ir/instrument.h"
#include "ir/transform.h"
#include "runtime/registry.h"
#include "tir/function.h"
#include "tir/op.h"
#include "tir/transform/pipeline.h"
#include "tir/transform/prim_func_pass.h"

namespace tessera {
namespace transform {
namespace {

TESSERA_REGISTER_PASS_CONFIG_OPTION("testing.pass_infra.flag", bool);
TESSERA_REGISTER_PASS_CONFIG_OPTION("testing.pass_infra.count", int64_t);
TESSERA_REGISTER_PASS_CONFIG_OPTION("testing.pass_infra.scale", double);
TESSERA_REGISTER_PASS_CONFIG_OPTION("testing.pass_infra.label", std::string);

std::vector<std::string>& Log() {
  static std::vector<std::string> log;
  return log;
}

// A module pass that appends its name to the log and returns a new module.
Pass LoggingPass(const std::string& name, int opt_level = 0, Array<String> required = {}) {
  return CreateModulePass(
      [name](IRModule mod, PassContext) {
        Log().push_back(name);
        return mod.ShallowCopy();
      },
      opt_level, name, required);
}

TESSERA_REGISTER_PASS("testing.pass_infra.Prep", [] { return LoggingPass("Prep"); });

TEST(PassContext, DefaultsAndNesting) {
  PassContext outer_default = PassContext::Current();
  EXPECT_EQ(outer_default->opt_level, 2);
  EXPECT_TRUE(outer_default->required_pass.empty());
  PassContext a = PassContext::Create(1, {}, {}, {}, {});
  PassContext b = PassContext::Create(3, {}, {}, {}, {});
  {
    PassContextScope sa(a);
    EXPECT_TRUE(PassContext::Current().same_as(a));
    {
      PassContextScope sb(b);
      EXPECT_TRUE(PassContext::Current().same_as(b));
      EXPECT_EQ(PassContext::Current()->opt_level, 3);
    }
    EXPECT_TRUE(PassContext::Current().same_as(a));
  }
  EXPECT_TRUE(PassContext::Current().same_as(outer_default));
}

TEST(PassContext, ExitOutOfOrderIsRefused) {
  PassContext a = PassContext::Create(), b = PassContext::Create();
  a.EnterWithScope();
  b.EnterWithScope();
  EXPECT_THROW(a.ExitWithScope(), ValueError);
  b.ExitWithScope();
  a.ExitWithScope();
  EXPECT_THROW(a.ExitWithScope(), ValueError);  // nothing entered any more
}

TEST(PassContext, ConfigIsValidatedByKeyAndType) {
  Map<String, Any> config;
  config.Set("testing.pass_infra.flag", Any(int64_t{1}));  // 0/1 ints become bools
  config.Set("testing.pass_infra.count", Any(int64_t{7}));
  config.Set("testing.pass_infra.scale", Any(int64_t{3}));  // ints widen to float
  config.Set("testing.pass_infra.label", Any("x"));
  PassContext ctx = PassContext::Create(2, {}, {}, config, {});
  EXPECT_EQ(ctx->config.at("testing.pass_infra.flag").kind(), Any::Kind::kBool);
  EXPECT_TRUE(ctx->GetConfig<bool>("testing.pass_infra.flag", false));
  EXPECT_EQ(ctx->GetConfig<int64_t>("testing.pass_infra.count", 0), 7);
  EXPECT_EQ(ctx->GetConfig<double>("testing.pass_infra.scale", 0.0), 3.0);
  EXPECT_EQ(ctx->GetConfig<std::string>("testing.pass_infra.label", ""), "x");
  EXPECT_EQ(ctx->GetConfig<int64_t>("tir.some_unset_key", 5), 5);

  auto expect_error = [](const char* key, Any value, const std::string& kind) {
    Map<String, Any> bad;
    bad.Set(key, value);
    try {
      PassContext::Create(2, {}, {}, bad, {});
      ADD_FAILURE() << "accepted " << key;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), kind);
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  expect_error("testing.pass_infra.no_such_key", Any(true), "AttributeError");
  expect_error("testing.pass_infra.flag", Any("yes"), "TypeError");
  expect_error("testing.pass_infra.flag", Any(int64_t{2}), "TypeError");
  expect_error("testing.pass_infra.count", Any(1.5), "TypeError");
  expect_error("testing.pass_infra.count", Any(true), "TypeError");
  expect_error("testing.pass_infra.label", Any(int64_t{3}), "TypeError");
  // Re-registering under another type is refused; the same type is fine.
  EXPECT_THROW(PassContext::RegisterConfigOption<std::string>("testing.pass_infra.flag"), ValueError);
  PassContext::RegisterConfigOption<bool>("testing.pass_infra.flag");
  bool listed = false;
  for (const auto& [key, type] : PassContext::ListConfigs()) listed |= key == "testing.pass_infra.count" && type == "int";
  EXPECT_TRUE(listed);
}

TEST(Sequential, HonoursOptLevelRequiredAndDisabled) {
  Sequential seq({LoggingPass("A", 0), LoggingPass("B", 3), LoggingPass("C", 1, {"Prep"}), LoggingPass("D", 2)});
  auto run = [&](PassContext ctx) {
    Log().clear();
    PassContextScope scope(ctx);
    seq(IRModule::Empty());
    return Log();
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(run(PassContext::Create()), (V{"A", "Prep", "C", "D"}));  // opt_level 2 skips B
  EXPECT_EQ(run(PassContext::Create(3, {}, {}, {}, {})), (V{"A", "B", "Prep", "C", "D"}));
  EXPECT_EQ(run(PassContext::Create(0, {"D"}, {}, {}, {})), (V{"A", "D"}));
  EXPECT_EQ(run(PassContext::Create(3, {}, {"B", "C"}, {}, {})), (V{"A", "D"}));
  // disabled wins over required
  EXPECT_EQ(run(PassContext::Create(3, {"B"}, {"B"}, {}, {})), (V{"A", "Prep", "C", "D"}));
  // A pass called directly always runs (the context filters only Sequentials).
  Log().clear();
  {
    PassContextScope scope(PassContext::Create(0, {}, {"B"}, {}, {}));
    LoggingPass("B", 3)(IRModule::Empty());
  }
  EXPECT_EQ(Log(), (V{"B"}));
}

TEST(Sequential, UnknownRequiredPassIsAnError) {
  Sequential seq({LoggingPass("X", 0, {"NoSuchPassAnywhere"})});
  try {
    seq(IRModule::Empty());
    ADD_FAILURE() << "ran";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("NoSuchPassAnywhere"), std::string::npos);
  }
  EXPECT_THROW(Sequential({Pass()}), TypeError);
  EXPECT_THROW(PassInfo(0, ""), ValueError);
}

// An instrument that logs "<tag>:<hook>[:<pass>]" and skips passes named "Skip".
PassInstrument Recorder(const std::string& tag) {
  auto hook = [tag](const std::string& what) {
    return PackedFunc([tag, what](PackedArgs args) -> Any {
      std::string entry = tag + ":" + what;
      if (args.size() == 2) entry += ":" + std::string(args[1].cast<PassInfo>()->name);
      Log().push_back(entry);
      if (what == "should_run") return Any(args[1].cast<PassInfo>()->name != "Skip");
      return Any();
    });
  };
  return PassInstrument(tag, hook("enter"), hook("exit"), hook("should_run"), hook("before"), hook("after"));
}

TEST(PassInstrument, HooksRunInTVMOrder) {
  Log().clear();
  Sequential seq({LoggingPass("P1"), LoggingPass("Skip"), LoggingPass("P2")}, "seq");
  {
    PassContextScope scope(PassContext::Create(2, {}, {}, {}, {Recorder("a"), Recorder("b")}));
    seq(IRModule::Empty());
  }
  std::vector<std::string> expected = {
      "a:enter", "b:enter",
      "a:should_run:seq", "b:should_run:seq", "a:before:seq", "b:before:seq",
      "a:should_run:P1", "b:should_run:P1", "a:before:P1", "b:before:P1", "P1", "a:after:P1", "b:after:P1",
      "a:should_run:Skip",  // a says no: b is not asked, the pass and its hooks do not run
      "a:should_run:P2", "b:should_run:P2", "a:before:P2", "b:before:P2", "P2", "a:after:P2", "b:after:P2",
      "a:after:seq", "b:after:seq",
      "a:exit", "b:exit"};
  EXPECT_EQ(Log(), expected);
}

TEST(PassInstrument, FailingEnterLeavesTheStackBalanced) {
  Log().clear();
  PackedFunc fail([](PackedArgs) -> Any { TESSERA_THROW(RuntimeError) << "enter failed"; });
  PassInstrument bad("bad", fail, PackedFunc(), PackedFunc(), PackedFunc(), PackedFunc());
  PassContext before = PassContext::Current();
  PassContext ctx = PassContext::Create(2, {}, {}, {}, {Recorder("a"), bad});
  EXPECT_THROW(ctx.EnterWithScope(), RuntimeError);
  EXPECT_TRUE(PassContext::Current().same_as(before));
  EXPECT_EQ(Log(), (std::vector<std::string>{"a:enter", "a:exit"}));
}

TEST(PassInstrument, TimingRecordsEveryPassNested) {
  Sequential seq({LoggingPass("T1"), LoggingPass("T2")}, "timed_seq");
  std::string text;
  {
    PassContextScope scope(PassContext::Create(2, {}, {}, {}, {instrument::PassTimingInstrument()}));
    seq(IRModule::Empty());
    text = instrument::RenderPassProfiles();
  }
  size_t s = text.find("timed_seq: "), t1 = text.find("\n  T1: "), t2 = text.find("\n  T2: ");
  EXPECT_NE(s, std::string::npos) << text;
  EXPECT_NE(t1, std::string::npos) << text;
  EXPECT_NE(t2, std::string::npos) << text;
  EXPECT_LT(t1, t2);
  EXPECT_EQ(instrument::RenderPassProfiles(), "");  // cleared when the context exits
}

TEST(PrimFuncPass, AppliesToEachPrimFuncAndCanRemove) {
  using namespace tir;
  auto make = [](const std::string& name) {
    Var n("n", DataType::Int(32));
    return WithAttr(PrimFunc({n}, Evaluate(n)), "global_symbol", Any(name));
  };
  IRModule mod = IRModule::Empty();
  mod.mutable_node()->Add(GlobalVar("f"), make("f"));
  mod.mutable_node()->Add(GlobalVar("g"), make("g"));
  std::vector<std::string> seen;
  Pass p = tir::transform::CreatePrimFuncPass(
      [&seen](PrimFunc f, IRModule, PassContext) -> PrimFunc {
        std::string name = f.GetAttr("global_symbol")->cast<std::string>();
        seen.push_back(name);
        if (name == "g") return PrimFunc();  // removed
        return WithAttr(f, "visited", Any(true));
      },
      0, "Visit");
  IRModule out = p(mod);
  EXPECT_EQ(seen, (std::vector<std::string>{"f", "g"}));
  EXPECT_EQ(out->functions.size(), 1u);
  EXPECT_TRUE(out->Lookup("f").GetAttr("visited").has_value());
  EXPECT_EQ(mod->functions.size(), 2u);  // the input module is untouched
  EXPECT_FALSE(mod->Lookup("f").GetAttr("visited").has_value());
}

TEST(PassRegistry, LowerPassesAreRegisteredByName) {
  for (const char* name : {"LowerCrossThreadReduction", "LowerThreadAllreduce", "LowerInitBlock", "ConvertBlocksToOpaque",
                           "LowerOpaqueBlock", "CompactBufferAllocation", "LoopPartition", "FlattenBuffer", "VectorizeLoop", "UnrollLoop", "MakePackedAPI"}) {
    Pass p = GetPass(name);
    EXPECT_EQ(std::string(p->Info()->name), name);
    EXPECT_TRUE(GetPass(std::string("tir.transform.") + name).defined());
    EXPECT_TRUE(Registry::Get(std::string("tir.transform.") + name).has_value());
  }
  EXPECT_THROW(GetPass("NoSuchPass"), ValueError);
}

TEST(PassRegistry, DefaultPipelineIsTheNamedSequentialInOrder) {
  Sequential pipeline = tir::transform::DefaultTIRPipeline();
  EXPECT_EQ(std::string(pipeline->Info()->name), "tir.default_pipeline");
  std::vector<std::string> names;
  for (const Pass& p : pipeline->passes) names.push_back(p->Info()->name);
  EXPECT_EQ(names, (std::vector<std::string>{"LowerCrossThreadReduction", "LowerInitBlock", "ConvertBlocksToOpaque",
                                             "LowerOpaqueBlock",
                                             "CompactBufferAllocation", "HoistNestPredicates", "LoopPartition", "FlattenBuffer",
                                             "VectorizeLoop", "UnrollLoop", "MakePackedAPI"}));
  for (const auto& [name, reason] : tir::transform::PassesRequiredForCodegen()) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
}

}  // namespace
}  // namespace transform
}  // namespace tessera
