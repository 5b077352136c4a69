#include <gtest/gtest.h>

#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "kprof/numbers.hpp"

namespace kprof {
namespace {

TEST(ParseNcuNumber, StripsThousandsSeparators) {
  EXPECT_EQ(parse_ncu_number("16,781,824"), 16781824.0);
  EXPECT_EQ(parse_ncu_number("2,703,257,731,958.76"), 2703257731958.76);
  EXPECT_EQ(parse_ncu_number("1,024"), 1024.0);
}

TEST(ParseNcuNumber, ReadsSignsFractionsExponentsAndSpaces) {
  EXPECT_EQ(parse_ncu_number("7.70"), 7.7);
  EXPECT_EQ(parse_ncu_number(" 9,856 "), 9856.0);
  EXPECT_EQ(parse_ncu_number("-1.5e3"), -1500.0);
  EXPECT_EQ(parse_ncu_number("+3"), 3.0);
  EXPECT_EQ(parse_ncu_number("2.5E-2"), 0.025);
  EXPECT_EQ(parse_ncu_number("0"), 0.0);
  EXPECT_EQ(parse_ncu_number(".5"), 0.5);
}

TEST(ParseNcuNumber, RoundsEveryDecimalLikeFromChars) {
  // The common short decimals take a fast path; they must give the same double as from_chars.
  std::uint64_t state = 12345;
  for (int i = 0; i < 20000; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const auto digits = static_cast<int>((state >> 33) % 17);
    const double value = static_cast<double>(state >> 20) / std::pow(10.0, (state >> 8) % 12);
    const std::string text = format_fixed(value, digits % 7);
    double expected = 0.0;
    std::from_chars(text.data(), text.data() + text.size(), expected);
    EXPECT_EQ(parse_ncu_number(text), expected) << text;
  }
}

TEST(ParseNcuNumber, ReadsNanAndInfinity) {
  const auto nan = parse_ncu_number("nan");
  ASSERT_TRUE(nan);
  EXPECT_TRUE(std::isnan(*nan));
  EXPECT_EQ(parse_ncu_number("inf"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(parse_ncu_number("-inf"), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(parse_ncu_number("1e999"), std::numeric_limits<double>::infinity());
}

TEST(ParseNcuNumber, RejectsWhatIsNotANumber) {
  for (const char* text : {"", " ", "n/a", "no data", "PolicySpread", "1,2,", ",1", "1,,2", "1.2.3",
                           "1e", "12abc", "1 2", "0x10", "-", ".", "1.5,0", "(128, 1, 1)"}) {
    EXPECT_FALSE(parse_ncu_number(text)) << "'" << text << "'";
  }
}

TEST(ParseNcuNumber, DoesNotDependOnTheLocale) {
  const std::string previous = std::setlocale(LC_ALL, nullptr);
  if (std::setlocale(LC_ALL, "de_DE.UTF-8") == nullptr &&
      std::setlocale(LC_ALL, "fr_FR.UTF-8") == nullptr) {
    GTEST_SKIP() << "no locale with a decimal comma is installed";
  }
  const auto value = parse_ncu_number("1,234.5");
  const std::string printed = format_number(1234.5);
  std::setlocale(LC_ALL, previous.c_str());
  EXPECT_EQ(value, 1234.5);
  EXPECT_EQ(printed, "1234.5");
}

TEST(ParseInt, ReadsPlainIntegersOnly) {
  EXPECT_EQ(parse_int("42"), 42);
  EXPECT_EQ(parse_int("-7"), -7);
  EXPECT_EQ(parse_int("+5"), 5);
  EXPECT_EQ(parse_int("9223372036854775807"), std::numeric_limits<std::int64_t>::max());
  for (const char* text : {"", "1,024", " 4", "4 ", "1.0", "9223372036854775808", "+-1", "x"}) {
    EXPECT_FALSE(parse_int(text)) << "'" << text << "'";
  }
}

TEST(FormatNumber, PrintsTheShortestTextThatReadsBack) {
  EXPECT_EQ(format_number(16781824.0), "16781824");
  EXPECT_EQ(format_number(1e6), "1000000");
  EXPECT_EQ(format_number(7.7), "7.7");
  EXPECT_EQ(format_number(0.000125), "0.000125");
  EXPECT_EQ(format_number(-2.5), "-2.5");
  EXPECT_EQ(format_number(1e20), "1e+20");
  EXPECT_EQ(format_number(1e-7), "1e-07");
  EXPECT_EQ(format_number(-0.0), "0");
  const double awkward = 0.1 + 0.2;
  EXPECT_EQ(parse_ncu_number(format_number(awkward)), awkward);
}

TEST(FormatNumber, PrintsNanAndInfinitiesAsWords) {
  EXPECT_EQ(format_number(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(format_number(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::infinity()), "-inf");
}

TEST(FormatFixed, PrintsTheAskedNumberOfDecimals) {
  EXPECT_EQ(format_fixed(56.5, 2), "56.50");
  EXPECT_EQ(format_fixed(2.675, 2), "2.67"); // 2.675 is 2.67499999... in binary
  EXPECT_EQ(format_fixed(1234.5678, 0), "1235");
  EXPECT_EQ(format_fixed(-0.126, 1), "-0.1");
  EXPECT_EQ(format_fixed(std::numeric_limits<double>::quiet_NaN(), 2), "nan");
}

TEST(RoundTo, RoundsLikePythonsRound) {
  EXPECT_EQ(round_to(2.675, 2), 2.67);
  EXPECT_EQ(round_to(0.1234567, 3), 0.123);
  EXPECT_EQ(round_to(1234.5678, 1), 1234.6);
  EXPECT_EQ(round_to(93.79, 3), 93.79);
  EXPECT_EQ(round_to(1250.0, -2), 1200.0);
  EXPECT_TRUE(std::isnan(round_to(std::numeric_limits<double>::quiet_NaN(), 3)));
  EXPECT_EQ(round_to(std::numeric_limits<double>::infinity(), 3),
            std::numeric_limits<double>::infinity());
}

TEST(FormatWithUnit, ScalesBytesWithDecimalPrefixes) {
  EXPECT_EQ(format_with_unit(16781824.0, "byte"), "16.78 MB");
  EXPECT_EQ(format_with_unit(512.0, "byte"), "512 B");
  EXPECT_EQ(format_with_unit(999999.0, "byte"), "1.00 MB");
  EXPECT_EQ(format_with_unit(536899072.0, "byte"), "536.90 MB");
  EXPECT_EQ(format_with_unit(2.5e9, "byte"), "2.50 GB");
}

TEST(FormatWithUnit, ScalesBandwidthTimeAndFrequency) {
  EXPECT_EQ(format_with_unit(2.7e12, "byte/s"), "2.70 TB/s");
  EXPECT_EQ(format_with_unit(9856.0, "ns"), "9.86 us");
  EXPECT_EQ(format_with_unit(640.0, "ns"), "640 ns");
  EXPECT_EQ(format_with_unit(1.5e9, "ns"), "1.50 s");
  EXPECT_EQ(format_with_unit(2.5e6, "ns"), "2.50 ms");
  EXPECT_EQ(format_with_unit(1965223225.46, "hz"), "1.97 GHz");
  EXPECT_EQ(format_with_unit(1.98e9 / 1000.0, "hz"), "1.98 MHz");
}

TEST(FormatWithUnit, SuffixesCyclesAndInstructions) {
  EXPECT_EQ(format_with_unit(125947.0, "cycle"), "125.95K cycle");
  EXPECT_EQ(format_with_unit(3.2e6, "inst"), "3.20M inst");
  EXPECT_EQ(format_with_unit(812.0, "cycle"), "812 cycle");
}

TEST(FormatWithUnit, PrintsPercentAndUnknownUnitsPlainly) {
  EXPECT_EQ(format_with_unit(56.5, "%"), "56.50 %");
  EXPECT_EQ(format_with_unit(26.0, "register/thread"), "26 register/thread");
  EXPECT_EQ(format_with_unit(3.5, ""), "3.5");
  EXPECT_EQ(format_with_unit(std::numeric_limits<double>::quiet_NaN(), "byte"), "nan byte");
}

} // namespace
} // namespace kprof
