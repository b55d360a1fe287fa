// ncu bounds (issue 17): a CSV row with one field and a details page without "Metric Value" were accepted silently;
// a kernel name that is not UTF-8 made `ncu --format json` fail with a bare nlohmann type_error.316; a launch ID of
// 1e300 was cast to int64 (undefined behaviour).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/io/input_bounds.h"
#include "analysis/io/ncu_reader.h"
#include "analysis/report/roofline_json.h"
#include "analysis/trace/errors.h"

using namespace sl;

namespace {
const std::string kRawHeader = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"nsecond\"\n";
const std::string kDetailsHeader =
    "\"ID\",\"Process ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";

bool has_warning(const NcuReport& r, const std::string& text)
{
    for (const auto& w : r.warnings)
        if (w.find(text) != std::string::npos)
            return true;
    return false;
}
} // namespace

TEST(NcuBounds, RawRowWithOneFieldIsCountedInAWarning)
{
    const NcuReport r = parse_ncu_text(kRawHeader + "\"0\",\"gemm\",\"1500\"\n\"1\"\n\"2\",\"gemm\",\"1600\"\n\"3\"\n",
                                       "raw.csv");
    ASSERT_EQ(r.launches.size(), 4u);   // the short rows are kept (their ID is known), with no counters
    EXPECT_TRUE(r.launches[1].metrics.empty());
    EXPECT_TRUE(has_warning(r, "2 CSV rows with fewer fields than the header's 3 (lines 4, 6)")) << r.warnings.size();
}

TEST(NcuBounds, DetailsShortRowIsCounted)
{
    const NcuReport r = parse_ncu_text(kDetailsHeader + "\"0\",\"1\",\"gemm\",\"SOL\",\"Duration\",\"usecond\",\"1.5\"\n"
                                                        "\"0\",\"1\",\"gemm\",\"SOL\"\n",
                                       "details.csv");
    EXPECT_TRUE(has_warning(r, "1 CSV row with fewer fields than the header's 7 (line 3)"));
}

TEST(NcuBounds, DetailsPageWithoutMetricValueIsRefused)
{
    const std::string csv = "\"ID\",\"Kernel Name\",\"Section Name\",\"Metric Name\",\"Metric Unit\"\n"
                            "\"0\",\"gemm\",\"SOL\",\"Duration\",\"usecond\"\n";
    try {
        parse_ncu_text(csv, "nometric.csv");
        FAIL() << "accepted";
    } catch (const TraceError& e) {
        EXPECT_EQ(e.file(), "nometric.csv");
        EXPECT_EQ(e.where(), "line 1");
        EXPECT_NE(e.expected().find("\"Metric Value\""), std::string::npos) << e.what();
    }
}

TEST(NcuBounds, NonUtf8KernelNameIsKeptEscapedAndJsonWorks)
{
    const NcuReport r = parse_ncu_text(kRawHeader + "\"0\",\"gemm\xFF\xFE_kernel\",\"1500\"\n", "raw.csv");
    ASSERT_EQ(r.launches.size(), 1u);
    EXPECT_EQ(r.launches[0].name, "gemm\\xFF\\xFE_kernel");
    EXPECT_TRUE(is_valid_utf8(r.launches[0].name));
    std::string text;
    ASSERT_NO_THROW(text = ncu_to_json(r).dump());   // threw type_error.316 before
    EXPECT_NE(text.find("gemm\\\\xFF\\\\xFE_kernel"), std::string::npos);
}

TEST(NcuBounds, HugeIdIsALocatedError)
{
    try {
        parse_ncu_text(kRawHeader + "\"1e300\",\"gemm\",\"1500\"\n", "raw.csv");
        FAIL() << "accepted";
    } catch (const TraceError& e) {
        EXPECT_EQ(e.where(), "line 3, column ID");
    }
}
