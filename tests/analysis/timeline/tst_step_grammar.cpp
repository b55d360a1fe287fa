// The step grammar (resources/step_grammar.json): every framework's step name the file lists, parsed into the batch
// composition its framework states, and the step kind from the token shares. The names are the frameworks' own (the
// real SGLang / vLLM traces in ../shared/data, TraceLens's documented forms, TensorRT-LLM's executor range); the
// expected numbers are read off the names by hand.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "analysis/timeline/step_grammar.h"
#include "analysis/trace/errors.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

const StepGrammar& shipped()
{
    static const StepGrammar g = StepGrammar::load();
    return g;
}

StepBatch parse(const std::string& name)
{
    auto b = shipped().parse(name);
    EXPECT_TRUE(b.has_value()) << name;
    return b.value_or(StepBatch{});
}

} // namespace

TEST(StepGrammar, VllmDetailedNameGivesBothSidesAndTheirSums)
{
    // The vLLM decode of ../shared/data (gpt-oss, 32 requests, 55,086 KV tokens in all).
    const StepBatch d = parse("execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)");
    EXPECT_EQ(d.format, "vllm_execute");
    EXPECT_EQ(d.framework, "vLLM/SGLang");   // SGLang writes the same name
    EXPECT_EQ(d.tokens, 32);
    EXPECT_EQ(d.prefill_requests, 0);
    EXPECT_EQ(d.prefill_tokens, 0);
    EXPECT_EQ(d.decode_requests, 32);
    EXPECT_EQ(d.decode_tokens, 32);
    EXPECT_EQ(d.decode_kv_tokens, 55086);
    EXPECT_EQ(d.decode_sqsq, 32);
    EXPECT_EQ(d.decode_sqsk, 55086);
    EXPECT_TRUE(d.has_attention_sums());
    EXPECT_EQ(shipped().kind(d), StepKind::DecodeOnly);

    // The SGLang EXTEND of ../shared/data: 15 requests of 1,024 tokens each.
    const StepBatch p = parse("execute_15360_context_15(sq15360sk15360sqsq15728640sqsk15728640)_generation_0(sq0sk0sqsq0sqsk0)");
    EXPECT_EQ(p.prefill_requests, 15);
    EXPECT_EQ(p.prefill_tokens, 15360);
    EXPECT_EQ(p.prefill_kv_tokens, 15360);
    EXPECT_EQ(p.prefill_sqsq, 15 * 1024 * 1024);
    EXPECT_EQ(p.prefill_sqsk, 15 * 1024 * 1024);
    EXPECT_EQ(p.decode_requests, 0);
    EXPECT_EQ(shipped().kind(p), StepKind::PrefillOnly);
    EXPECT_EQ(p.composition(), "15 prefill requests (15,360 tokens, 15,360 KV)");

    // A chunked-prefill step (TraceLens's documented example): 6,144 prefill tokens with 3 decode tokens.
    const StepBatch m = parse("execute_6147_context_2(sq6144sk7144sqsq20971520sqsk23019520)_generation_3(sq3sk6144sqsq3sqsk6144)");
    EXPECT_EQ(m.prefill_requests, 2);
    EXPECT_EQ(m.prefill_kv_tokens, 7144);
    EXPECT_EQ(m.decode_requests, 3);
    EXPECT_EQ(m.decode_kv_tokens, 6144);
    EXPECT_EQ(shipped().kind(m), StepKind::PrefillHeavy);   // 6144 / 6147 of the tokens are prefill
}

TEST(StepGrammar, OlderVllmNamesStillParse)
{
    const StepBatch a = parse("execute_context_2(14721)_generation_0(0)");
    EXPECT_EQ(a.format, "vllm_execute_native");
    EXPECT_EQ(a.prefill_requests, 2);
    EXPECT_EQ(a.prefill_tokens, 14721);
    EXPECT_EQ(a.decode_requests, 0);
    EXPECT_EQ(shipped().kind(a), StepKind::PrefillOnly);
    const StepBatch b = parse("execute_context_0(0)_generation_64(64)");
    EXPECT_EQ(shipped().kind(b), StepKind::DecodeOnly);
    EXPECT_FALSE(b.has_attention_sums());
    // The form the synthetic generator has written since mixed steps were added.
    const StepBatch c = parse("execute_context_1(512)_generation_8(8)");
    EXPECT_EQ(shipped().kind(c), StepKind::PrefillHeavy);   // 512 of 520 tokens
}

TEST(StepGrammar, SglangStepNames)
{
    const StepBatch e = parse("step[EXTEND bs=15 toks=15360]");
    EXPECT_EQ(e.format, "sglang_step");
    EXPECT_EQ(e.framework, "SGLang");
    EXPECT_EQ(e.prefill_requests, 15);
    EXPECT_EQ(e.prefill_tokens, 15360);
    EXPECT_EQ(e.prefill_kv_tokens, -1);   // not stated
    EXPECT_EQ(e.decode_requests, 0);
    EXPECT_EQ(shipped().kind(e), StepKind::PrefillOnly);

    const StepBatch d = parse("step[DECODE bs=32]");
    EXPECT_EQ(d.decode_requests, 32);
    EXPECT_EQ(d.decode_tokens, 32);
    EXPECT_EQ(d.prefill_requests, 0);
    EXPECT_EQ(shipped().kind(d), StepKind::DecodeOnly);

    const StepBatch m = parse("step[MIXED bs=2 c=1 g=1 c_sq=5 c_sk=8 c_sqsq=25 c_sqsk=40 g_sq=1 g_sk=12 g_sqsq=1 g_sqsk=12]");
    EXPECT_EQ(m.prefill_requests, 1);
    EXPECT_EQ(m.decode_requests, 1);
    EXPECT_EQ(m.prefill_sqsk, 40);
    EXPECT_EQ(m.decode_kv_tokens, 12);
    EXPECT_TRUE(m.has_attention_sums());
    EXPECT_EQ(shipped().kind(m), StepKind::PrefillHeavy);   // 5 of its 6 tokens are prefill (0.83 >= 0.8)
}

TEST(StepGrammar, KindThresholdsFollowTheTokenShare)
{
    StepBatch b;
    b.format = "x";
    b.prefill_requests = 1;
    b.decode_requests = 100;
    b.decode_tokens = 100;
    for (const auto& [p, want] : std::vector<std::pair<int64_t, StepKind>>{
             {400, StepKind::PrefillHeavy}, {399, StepKind::Mixed}, {25, StepKind::DecodeHeavy}, {26, StepKind::Mixed}}) {
        b.prefill_tokens = p;
        EXPECT_EQ(shipped().kind(b), want) << p << " prefill tokens with 100 decode tokens";
    }
    b.prefill_tokens = -1;   // both sides present, one's tokens unknown: mixed
    EXPECT_EQ(shipped().kind(b), StepKind::Mixed);
}

TEST(StepGrammar, TensorRtLlmAndAtomNames)
{
    const StepBatch t = parse("[Executor] _forward_step 12: 0 ctx reqs, 64 gen reqs");
    EXPECT_EQ(t.format, "trtllm_forward_step");
    EXPECT_EQ(t.decode_requests, 64);
    EXPECT_EQ(shipped().kind(t), StepKind::DecodeOnly);
    const StepBatch u = parse("_forward_step: 2 ctx reqs, 30 gen reqs");
    EXPECT_EQ(shipped().kind(u), StepKind::Mixed);   // token counts not stated

    const StepBatch a = parse("prefill[bs=2 tok=14721 ctx=[7803, 6918] sqsq=108745533 sqsk=108745533 sk=14721]");
    EXPECT_EQ(a.format, "atom_step");
    EXPECT_EQ(a.prefill_requests, 2);
    EXPECT_EQ(a.prefill_tokens, 14721);
    EXPECT_EQ(a.prefill_sqsk, 108745533);
    const StepBatch d = parse("decode[bs=117/128 tok=117 d=117]");
    EXPECT_EQ(d.decode_requests, 117);   // CUDA-graph padding (/128) is not the batch
    EXPECT_EQ(shipped().kind(d), StepKind::DecodeOnly);
}

TEST(StepGrammar, OtherNamesAreNotSteps)
{
    for (const char* n : {"decode_step 3", "capture_32_FULL", "ProfilerStep#6", "step[", "execute_model",
                          "## Call CompiledFxGraph f4ii ##", "layer 3"})
        EXPECT_FALSE(shipped().parse(n).has_value()) << n;
}

TEST(StepGrammar, BadFilesNameTheFileAndTheEntry)
{
    const std::string dir = test::scratch_dir("step_grammar");
    auto expect_error = [&](const std::string& text, const std::string& where) {
        const std::string path = dir + "/g.json";
        std::ofstream(path) << text;
        try {
            StepGrammar::load_file(path);
            ADD_FAILURE() << "accepted: " << text;
        } catch (const TraceError& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(path), std::string::npos) << msg;
            EXPECT_NE(msg.find(where), std::string::npos) << msg;
        }
    };
    expect_error("{\"formats\": 3}", "top level");
    expect_error(R"({"formats": [{"id": "a", "regex": "^x(\\d+$", "groups": ["tokens"]}]})", "formats[0].regex");
    expect_error(R"({"formats": [{"id": "a", "regex": "^x(\\d+)$", "groups": ["tokenz"]}]})", "formats[0].groups");
    expect_error(R"({"formats": [{"id": "a", "regex": "^x(\\d+)(\\d+)$", "groups": ["tokens"]}]})", "formats[0].groups");
    expect_error(R"({"formats": [], "kinds": {"prefill_heavy_share": 0.1, "decode_heavy_share": 0.5}})", "kinds");
    expect_error(R"({"formats": [{"id": "a", "regex": "^(A)$", "groups": ["mode"], "modes": {"A": "both"}}]})",
                 "formats[0].modes.A");
    expect_error(R"({"formats": [], "attention_ops": [{"op": "x", "q_arg": -1}]})", "attention_ops[0].q_arg");
    expect_error("not json", "");
}

TEST(StepGrammar, AUserFileIsAWholeNewGrammar)
{
    // A new framework version is a data change: a format the shipped file does not know.
    const std::string path = test::scratch_dir("step_grammar_user") + "/g.json";
    std::ofstream(path) << R"({"formats": [{"id": "mine", "framework": "Mine", "contains": "iter",
        "regex": "^iter (\\d+) prefill / (\\d+) decode$", "groups": ["prefill_requests", "decode_requests"]}]})";
    const StepGrammar g = StepGrammar::load_file(path);
    const auto b = g.parse("iter 0 prefill / 48 decode");
    ASSERT_TRUE(b.has_value());
    EXPECT_EQ(b->format, "mine");
    EXPECT_EQ(g.kind(*b), StepKind::DecodeOnly);
    EXPECT_FALSE(g.parse("step[DECODE bs=32]").has_value());
}
