// config.json bounds (issue 17): each failure found by the hostile-user run has a test here.
//  - hidden_size nested 100,000 deep crashed (SIGSEGV) in the error message's recursive dump();
//  - num_hidden_layers = 10^9 (or INT64_MAX) was accepted and the per-layer cost loop ran for ~70 minutes;
//  - 1e999 escaped as a bare nlohmann out_of_range.406; a 30-digit layer index in the weight index as a bare
//    std::out_of_range from stoll.
#include <gtest/gtest.h>

#include <fstream>

#include "analysis/io/model_config.h"
#include "analysis/trace/errors.h"
#include "tests/support/test_env.h"

using namespace sl;

namespace {

const std::string kBase = R"("model_type":"llama","num_attention_heads":4,"intermediate_size":128,"vocab_size":256,)";

std::string config(const std::string& hidden, const std::string& layers, const std::string& extra = "")
{
    return "{" + kBase + extra + "\"hidden_size\":" + hidden + ",\"num_hidden_layers\":" + layers + "}";
}

// The TraceError's message, or a description of what else happened.
std::string error_of(const std::string& json)
{
    try {
        parse_model_config(json, "cfg.json");
    } catch (const TraceError& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("BARE ") + e.what();
    }
    return "(accepted)";
}

} // namespace

TEST(ModelConfigBounds, DeeplyNestedValueIsNamedNotDumped)
{
    // Nested within the JSON bound: the field is named and the value described, never dumped.
    const std::string nested = std::string(20, '[') + std::string(20, ']');
    EXPECT_EQ(error_of(config(nested, "2")), "cfg.json (hidden_size): expected an integer, found an array of 1 element");
    // 100,000 deep: refused by its nesting before it is parsed (issue 36 §2), at the byte where it goes too deep.
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    const std::string msg = error_of(config(deep, "2"));
    EXPECT_NE(msg.find("cfg.json (byte "), std::string::npos) << msg;
    EXPECT_NE(msg.find("expected JSON nested at most 64 deep"), std::string::npos) << msg;
    EXPECT_LT(msg.size(), 200u);
}

TEST(ModelConfigBounds, LayerCountInRange)
{
    for (const char* n : {"1000000000", "9223372036854775807", "4097"}) {
        const std::string msg = error_of(config("64", n));
        EXPECT_EQ(msg, std::string("cfg.json (num_hidden_layers): expected a value from 1 to 4096 (the range Sightline "
                                   "models), found ") + n);
    }
    // 18446744073709551615 does not fit int64 at all.
    EXPECT_NE(error_of(config("64", "18446744073709551615")).find("(num_hidden_layers): expected an integer below 2^63"),
              std::string::npos);
    // The upper end itself is accepted: 4096 layers load (and parameter_count stays in int64).
    const ModelConfig m = parse_model_config(config("64", "4096"), "cfg.json");
    EXPECT_EQ(m.num_layers, 4096);
    EXPECT_GT(m.parameter_count(), 0);
}

TEST(ModelConfigBounds, EveryStructureNumberHasARange)
{
    EXPECT_NE(error_of(config("262145", "2")).find("(hidden_size): expected a value from 1 to 262144"), std::string::npos);
    EXPECT_NE(error_of("{\"model_type\":\"llama\",\"num_attention_heads\":16385,\"intermediate_size\":128,"
                       "\"vocab_size\":256,\"hidden_size\":16385,\"num_hidden_layers\":2}")
                  .find("(num_attention_heads): expected a value from 1 to 16384"),
              std::string::npos);
    EXPECT_NE(error_of("{\"model_type\":\"llama\",\"num_attention_heads\":4,\"intermediate_size\":128,"
                       "\"vocab_size\":1099511627776,\"hidden_size\":64,\"num_hidden_layers\":2}")
                  .find("(vocab_size): expected a value from 1 to 16777216"),
              std::string::npos);
    EXPECT_NE(error_of(config("64", "2", "\"num_local_experts\":1000000,\"num_experts_per_tok\":2,"))
                  .find("(num_experts): expected a value from 1 to 1024"),
              std::string::npos);
    EXPECT_NE(error_of("{\"model_type\":\"llama\",\"num_attention_heads\":4,\"intermediate_size\":2000000,"
                       "\"vocab_size\":256,\"hidden_size\":64,\"num_hidden_layers\":2}")
                  .find("(intermediate_size): expected a value from 1 to 1048576"),
              std::string::npos);
    EXPECT_NE(error_of(config("64", "2", "\"head_dim\":100000,")).find("(head_dim): expected a value from 1 to 16384"),
              std::string::npos);
}

TEST(ModelConfigBounds, HugeNumbersGiveLocatedErrors)
{
    const std::string a = error_of(config("1e999", "2"));
    EXPECT_EQ(a.rfind("cfg.json: expected valid JSON with finite numbers", 0), 0u) << a;
    // 1e300 is a finite double but no integer: its cast to int64 would be undefined behaviour.
    EXPECT_EQ(error_of(config("1e300", "2")), "cfg.json (hidden_size): expected an integer, found 1e+300");
    // A whole float is taken as the integer it is.
    EXPECT_EQ(parse_model_config(config("64.0", "2"), "cfg.json").hidden_size, 64);
}

TEST(ModelConfigBounds, WeightIndexWithAHugeLayerIndex)
{
    const std::string dir = test::scratch_dir("model_config_bounds");
    {
        std::ofstream(dir + "/config.json") << config("64", "2");
        std::ofstream(dir + "/index.json")
            << R"({"weight_map":{"model.layers.123456789012345678901234567890.mlp.up_proj.weight":"a.safetensors"}})";
    }
    try {
        load_model_config(dir + "/config.json", dir + "/index.json");
        FAIL() << "accepted";
    } catch (const TraceError& e) {
        EXPECT_EQ(e.file(), dir + "/index.json");
        EXPECT_NE(std::string(e.what()).find("a layer index below 4096"), std::string::npos) << e.what();
    }
}
