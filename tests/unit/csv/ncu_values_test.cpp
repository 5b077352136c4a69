// Tests of ncu's value formats (ncu_values.cpp), one field at a time. The examples are values
// as ncu 2025.3.1 prints them in the recorded fixtures.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "csv/ncu_values.hpp"

namespace kprof::csv {
namespace {

TEST(NcuValues, ReadsIntegersWithThousandsSeparators) {
  EXPECT_EQ(parse_grouped_int("1,024"), 1024);
  EXPECT_EQ(parse_grouped_int(" 16,781,824 "), 16781824);
  EXPECT_EQ(parse_grouped_int("884"), 884);
  EXPECT_FALSE(parse_grouped_int("1,,024"));
  EXPECT_FALSE(parse_grouped_int(",1"));
  EXPECT_FALSE(parse_grouped_int("1,"));
  EXPECT_FALSE(parse_grouped_int("x"));
  EXPECT_FALSE(parse_grouped_int(""));
}

TEST(NcuValues, ReadsGridAndBlockTriplesWithOrWithoutSeparators) {
  EXPECT_EQ(parse_dim3("(1024, 1, 1)"), (std::array<std::int64_t, 3>{1024, 1, 1}));
  EXPECT_EQ(parse_dim3("(1,024, 2, 3)"), (std::array<std::int64_t, 3>{1024, 2, 3}));
  EXPECT_EQ(parse_dim3("(4,5,6)"), (std::array<std::int64_t, 3>{4, 5, 6}));
  EXPECT_FALSE(parse_dim3("(1, 1)"));
  EXPECT_FALSE(parse_dim3("(1, 1, 1, 1)"));
  EXPECT_FALSE(parse_dim3("1, 1, 1"));
  EXPECT_FALSE(parse_dim3("(1024, one, 1)"));
}

TEST(NcuValues, ReadsTheNvtxStackOutermostFirstKeepingColonsInRangeNames) {
  EXPECT_EQ(parse_nvtx_stack(R"(884  "<default domain>:kprof:none:none:none:none:none:none" )"),
            std::vector<std::string>{"kprof"});
  EXPECT_EQ(parse_nvtx_stack(R"("<default domain>:kprof:cand1:none:none:none:none:none:none")"),
            std::vector<std::string>{"kprof:cand1"});
  EXPECT_EQ(parse_nvtx_stack(R"("d:kprof:a:b:c:d:e:f" "d:cand0:a:b:c:d:e:f")"),
            (std::vector<std::string>{"kprof", "cand0"}));
  EXPECT_TRUE(parse_nvtx_stack("").empty());
  EXPECT_TRUE(parse_nvtx_stack("\"unterminated").empty());
}

TEST(NcuValues, TreatsNaNoDataAndEmptyAsMissing) {
  for (const char* text : {"", "n/a", "N/A", "no data"}) {
    EXPECT_TRUE(is_null_text(text)) << text;
    EXPECT_EQ(parse_metric_value(text, 0).kind, ValueKind::null) << text;
  }
  EXPECT_EQ(parse_metric_value("n/a (n/a)", 0).kind, ValueKind::null);
}

TEST(NcuValues, ReadsNanAsANumber) {
  const FieldValue value = parse_metric_value("nan", 0);
  EXPECT_EQ(value.kind, ValueKind::number);
  EXPECT_TRUE(std::isnan(value.number));
}

TEST(NcuValues, TakesTheValueBeforeTheParenthesisOfAnInstanceValue) {
  const FieldValue value = parse_metric_value("1,024 (1,024)", 0);
  EXPECT_EQ(value.kind, ValueKind::number);
  EXPECT_EQ(value.number, 1024.0);
  EXPECT_EQ(parse_metric_value("3,642 (3,642, 1)", 0).number, 3642.0);
  EXPECT_EQ(parse_metric_value("6.176 (6.176)", 3).number, 6176.0);
}

TEST(NcuValues, KeepsWordsAsText) {
  EXPECT_EQ(parse_metric_value("PolicySpread", 0).kind, ValueKind::text);
  EXPECT_EQ(parse_metric_value("NVIDIA H200", 0).kind, ValueKind::text);
  EXPECT_EQ(parse_metric_value("abc (def)", 0).kind, ValueKind::text);
}

TEST(NcuValues, MapsTheScaledUnitsOfNcuImportToBaseUnits) {
  const auto base = [](std::string_view unit) {
    const BaseUnit result = normalise_unit(unit);
    return std::make_pair(result.unit, result.exponent);
  };
  EXPECT_EQ(base("Mbyte"), std::make_pair(std::string("byte"), 6));
  EXPECT_EQ(base("Kbyte/block"), std::make_pair(std::string("byte/block"), 3));
  EXPECT_EQ(base("Tbyte/s"), std::make_pair(std::string("byte/s"), 12));
  EXPECT_EQ(base("Gbyte/second"), std::make_pair(std::string("byte/s"), 9));
  EXPECT_EQ(base("byte/second"), std::make_pair(std::string("byte/s"), 0));
  EXPECT_EQ(base("us"), std::make_pair(std::string("ns"), 3));
  EXPECT_EQ(base("msecond"), std::make_pair(std::string("ns"), 6));
  EXPECT_EQ(base("Mhz"), std::make_pair(std::string("hz"), 6));
  EXPECT_EQ(base("byte"), std::make_pair(std::string("byte"), 0));
  EXPECT_EQ(base("%"), std::make_pair(std::string("%"), 0));
  EXPECT_EQ(base("cycle"), std::make_pair(std::string("cycle"), 0));
}

TEST(NcuValues, ScalesDecimalTextExactly) {
  EXPECT_EQ(parse_scaled("16.781824", 6), 16781824.0);
  EXPECT_EQ(parse_scaled("2.717264", 12), 2717264000000.0);
  EXPECT_EQ(parse_scaled("1,040", 0), 1040.0);
  EXPECT_EQ(parse_scaled("1.5e2", 3), 150000.0);
  EXPECT_FALSE(parse_scaled("x", 3));
  EXPECT_EQ(parse_metric_value("6.176000", 3).number, 6176.0);
}

} // namespace
} // namespace kprof::csv
