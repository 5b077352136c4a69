// kprof: locale-proof number parsing and printing, used by every reader and sink.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kprof {

/// Parses an ncu number: optional sign, digits with ',' thousands separators, optional fraction
/// and exponent; "nan"/"inf" too. Surrounding spaces allowed. nullopt when not a number.
std::optional<double> parse_ncu_number(std::string_view text);

/// Parses a plain integer (no separators); nullopt otherwise.
std::optional<std::int64_t> parse_int(std::string_view text);

/// Shortest round-trip representation ("16781824", "7.7", "0.000125"); "null"-free: NaN prints
/// "nan", infinities "inf"/"-inf". Never depends on the locale.
std::string format_number(double value);

/// Fixed decimals, locale-proof ("%.2f").
std::string format_fixed(double value, int decimals);

/// Rounds to `digits` decimals (KernelAgent's round(v, 3)); NaN/inf unchanged.
double round_to(double value, int digits);

/// Human-scaled value with unit: 16781824 byte -> "16.78 MB", 9856 ns -> "9.86 us",
/// 2.7e12 byte/s -> "2.70 TB/s", "%" -> "56.50 %". Unknown units print the number and unit.
std::string format_with_unit(double value, std::string_view unit);

} // namespace kprof
