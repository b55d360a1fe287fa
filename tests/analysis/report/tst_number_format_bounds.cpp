// Text formatting of numbers near and beyond 2^63 (issue 17): a duration near 2^63 ns made the text output fail with
// a bare std::stoll out_of_range (the JSON output worked).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "analysis/report/summary_text.h"

using namespace sl;

TEST(NumberFormatBounds, GroupsDigitsBeyondInt64)
{
    EXPECT_EQ(group_digits(9223372036854775807.0, 0), "9,223,372,036,854,775,808");
    EXPECT_EQ(group_digits(-1.0e19, 1), "-10,000,000,000,000,000,000.0");
    EXPECT_EQ(group_digits(1234567.891, 2), "1,234,567.89");
    EXPECT_EQ(group_digits(0.0, 1), "0.0");
    EXPECT_EQ(group_digits(std::numeric_limits<double>::infinity(), 1), "inf");
    EXPECT_EQ(group_digits(std::nan(""), 1), "nan");
}
