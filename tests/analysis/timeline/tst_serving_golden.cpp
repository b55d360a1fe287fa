// Golden files for the planted serving traces of `sightline-cli generate` (analysis/io/synthetic.h): a vLLM-style and
// an SGLang-style step annotation with mixed (chunked-prefill) batches, and a queued kernel blocked on an event.
// What is kept: each step's kind, batch composition and phase, the phase counts and TPOT, the idle by cause, the
// largest gap's cause and what it waited on, and the headline's bound and stall — the serving-step and stall readings,
// not the rest of the report (which has goldens of its own). On a mismatch the test writes <golden>.actual beside the
// golden file: diff it, and copy it over the golden when the change is intended.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/io/synthetic.h"
#include "analysis/pipeline.h"
#include "tests/support/test_env.h"

using namespace sl;
using nlohmann::json;

namespace {

json reading(const SynthOptions& o)
{
    PipelineOptions po;
    po.rule_dirs = {test::source_dir() + "/resources/rules"};
    const PipelineResult r = run_pipeline_on(std::make_shared<const Trace>(make_synthetic_trace(o)), po);
    const json j = pipeline_to_json(r);
    json out;
    const json& P = j.at("phases");
    for (const char* k : {"source", "batch_source", "annotated_steps", "prefill_steps", "decode_steps", "mixed_steps",
                          "steady_steps", "warmup_excluded", "tpot_median_ns", "phase_source", "note"})
        out["phases"][k] = P.at(k);
    json steps = json::array();
    for (const json& s : P.at("steps")) {
        json x;
        for (const char* k : {"index", "kind", "phase", "prefill_requests", "prefill_tokens", "prefill_kv_tokens",
                              "decode_requests", "decode_tokens", "decode_kv_tokens", "scheduled_tokens",
                              "batch_source", "framework", "annotation", "kernels", "wall_ns", "warmup"})
            x[k] = s.at(k);
        steps.push_back(std::move(x));
    }
    out["phases"]["steps"] = std::move(steps);
    out["idle_breakdown"] = j.at("devices").at(0).at("idle_breakdown");
    const json& largest = j.at("gaps").at("largest");
    if (!largest.empty()) {
        json g = largest.at(0);
        g.erase("prev");
        out["largest_gap"] = g;
    }
    const json& h = j.at("headline");
    out["headline"] = {{"bound", h.at("bound")}, {"verdict", h.at("verdict")}, {"stall", h.at("stall")},
                       {"idle_by_cause", h.at("idle_by_cause")}, {"statement", h.at("statement").at("en")}};
    return out;
}

void check(const std::string& name, const SynthOptions& o)
{
    const std::string golden = test::source_dir() + "/tests/golden/serving/" + name + ".json";
    EXPECT_TRUE(test::matches_golden(golden, reading(o).dump(2) + "\n")) << "see " << golden << ".actual";
}

SynthOptions small()
{
    SynthOptions o;
    o.layers = 2;
    o.decode_steps = 12;
    o.prefill_steps = 1;
    o.mixed_every = 4;
    o.batch = 16;
    return o;
}

} // namespace

// sightline-cli generate --layers 2 --steps 12 --prefill 1 --mixed-every 4 --batch 16 --step-annotation vllm
TEST(ServingGolden, VllmStepAnnotationsWithMixedBatches)
{
    SynthOptions o = small();
    o.step_annotation = "vllm";
    check("vllm_mixed", o);
}

// sightline-cli generate --layers 2 --steps 12 --prefill 1 --mixed-every 4 --batch 16 --step-annotation sglang
TEST(ServingGolden, SglangStepAnnotationsWithMixedBatches)
{
    SynthOptions o = small();
    o.step_annotation = "sglang";
    check("sglang_mixed", o);
}

// sightline-cli generate --layers 2 --steps 12 --prefill 0 --step-annotation sglang --event-stall-ms 200
TEST(ServingGolden, QueuedKernelBlockedOnAnEvent)
{
    SynthOptions o = small();
    o.prefill_steps = 0;
    o.mixed_every = 0;
    o.step_annotation = "sglang";
    o.event_stall_ns = 200'000'000;
    check("event_stall", o);
}
