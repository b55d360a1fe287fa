// Issue 15, "done when": every E_roof in the JSON is <= 1.05 or carries the inconsistency warning, on the sample at
// every shape Preferences offers. Preferences (widgets/settings_dialog.cpp, model/workbench_settings.cpp) offers
// batch in [1, 2^20], prompt and context in [1, 2^24] (spin boxes, defaults 1 / 1024 / 2048) and a GPU: "from the
// trace" or any row of the spec database. The shapes are sampled at both ends of each range, the defaults and
// typical values in between, at the trace's GPU; every GPU row is run at the default shape. Each run is the CLI's
// pipeline (run_pipeline_on + pipeline_to_json, as `analyze --model config.json --batch/--seq/--gpu`) on the
// sample (the generated decode trace and its model config).
#include <gtest/gtest.h>

#include <fstream>

#include "analysis/io/synthetic.h"
#include "analysis/pipeline.h"
#include "analysis/roofline/gpu_specs.h"
#include "analysis/roofline/roofline.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

struct Check {
    int e_roof = 0, inconsistent = 0;
};

// Walks the document: every "e_roof" number is plausible; every object with "e_roof_inconsistent" says why.
void walk(const nlohmann::json& j, Check& c, const std::string& where)
{
    if (j.is_object()) {
        if (j.contains("e_roof") && j["e_roof"].is_number()) {
            ++c.e_roof;
            EXPECT_LE(j["e_roof"].get<double>(), kMaxPlausibleERoof) << where << ": " << j.dump().substr(0, 300);
        }
        if (j.contains("e_roof_inconsistent") && !j["e_roof_inconsistent"].is_null()) {
            ++c.inconsistent;
            EXPECT_GT(j["e_roof_inconsistent"].get<double>(), kMaxPlausibleERoof) << where;
            EXPECT_TRUE(j.contains("consistency_warning") && j["consistency_warning"].is_string() &&
                        !j["consistency_warning"].get<std::string>().empty())
                << where << ": " << j.dump().substr(0, 300);
            EXPECT_TRUE(!j.contains("e_roof") || j["e_roof"].is_null()) << where;
        }
        for (auto it = j.begin(); it != j.end(); ++it)
            walk(it.value(), c, where);
    } else if (j.is_array()) {
        for (const auto& x : j)
            walk(x, c, where);
    }
}

class EveryShape : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        so_ = synth_preset("decode");
        trace_ = std::make_shared<const Trace>(make_synthetic_trace(so_));
        config_ = test::scratch_dir("eroof_every_shape") + "/config.json";
        std::ofstream(config_) << synth_model_config_json(so_);
    }

    static Check run(int64_t batch, int64_t prompt, int64_t context, const std::string& gpu)
    {
        PipelineOptions o;
        o.run_rules = false;
        o.roofline.model = config_;
        o.roofline.gpu = gpu;
        o.roofline.cost.batch = batch;
        o.roofline.cost.prompt = prompt;
        o.roofline.cost.context = context;
        const PipelineResult r = run_pipeline_on(trace_, o);
        const nlohmann::json j = pipeline_to_json(r);
        EXPECT_TRUE(j.contains("roofline"));
        Check c;
        walk(j, c,
             "b=" + std::to_string(batch) + " s=" + std::to_string(prompt) + " L=" + std::to_string(context) +
                 " gpu=" + (gpu.empty() ? "trace" : gpu));
        return c;
    }

    static inline SynthOptions so_;
    static inline std::shared_ptr<const Trace> trace_;
    static inline std::string config_;
};

} // namespace

TEST_F(EveryShape, AtTheTracesGpuEveryShapeIsPlausibleOrWarned)
{
    int plausible = 0, inconsistent = 0;
    for (int64_t b : {int64_t(1), int64_t(8), int64_t(64), int64_t(1) << 20})
        for (int64_t s : {int64_t(1), int64_t(128), int64_t(1024), int64_t(1) << 24})
            for (int64_t L : {int64_t(1), int64_t(2048), int64_t(32768), int64_t(1) << 24}) {
                const Check c = run(b, s, L, "");
                plausible += c.e_roof;
                inconsistent += c.inconsistent;
            }
    // Both sides were exercised: real efficiencies at sensible shapes, warnings where the shape is far off.
    EXPECT_GT(plausible, 0);
    EXPECT_GT(inconsistent, 0);
}

TEST_F(EveryShape, EveryGpuRowAtTheDefaultShapeIsPlausibleOrWarned)
{
    const GpuDatabase db = GpuDatabase::load_default();
    ASSERT_FALSE(db.rows().empty());
    for (const GpuSpec& g : db.rows())
        run(1, 1024, 2048, g.name);
}
