// The option table's defaults are ProfileOptions{}'s: every default the table shows in help is
// the value a default-constructed ProfileOptions holds (option_values), so the two cannot drift.
#include <string>

#include <gtest/gtest.h>

#include "kprof/options.hpp"
#include "kprof/profiler.hpp"

namespace kprof {
namespace {

/// A value of option_values() as the table's default_text writes it.
std::string as_default_text(const Json& value) {
  if (value.is_string()) {
    return value.get<std::string>();
  }
  if (value.is_boolean()) {
    return value.get<bool>() ? "true" : "false";
  }
  if (value.is_number_integer() || value.is_number_unsigned()) {
    return std::to_string(value.get<long long>());
  }
  if (value.is_null()) {
    return "";
  }
  return value.dump();
}

TEST(OptionTable, ShowsTheDefaultsOfADefaultProfileOptions) {
  const Json values = option_values(ProfileOptions{});
  int compared = 0;
  for (const OptionSpec& spec : option_specs()) {
    if (spec.default_text.empty() || spec.kind == OptionKind::flag || !values.contains(spec.name)) {
      continue;
    }
    EXPECT_EQ(as_default_text(values[std::string(spec.name)]), spec.default_text)
        << spec.name << ": the table's default is not ProfileOptions{}'s";
    ++compared;
  }
  EXPECT_GE(compared, 8) << "the comparison covered too few options to mean anything";
}

} // namespace
} // namespace kprof
