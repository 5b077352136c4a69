// kprof (private to src/csv, its tests, fuzzer and benchmark): ncu's value formats.
//
// ncu prints numbers for people: thousands separators ("1,024"), "n/a", "no data", "nan",
// instance values ("1,024 (1,024)": the value, then per-instance detail in parentheses), dims
// ("(128, 1, 1)"), an NVTX stack of quoted "Domain:Range:..." entries, and, under
// `ncu --import --csv`, scaled units (Mbyte, us, Gbyte/s). These functions turn one field into
// what a Capture stores; they know nothing about pages or rows.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/capture.hpp"

namespace kprof::csv {

/// `text` without leading and trailing spaces (only ' ': ncu pads with spaces).
std::string_view trim_spaces(std::string_view text);

/// True for what ncu prints when it has no value: empty, "n/a", "N/A", "no data".
bool is_null_text(std::string_view text);

/// An integer as ncu prints it, thousands separators allowed ("1,024"); nullopt otherwise
/// (a separator must stand between two digits).
std::optional<std::int64_t> parse_grouped_int(std::string_view text);

/// "(128, 1, 1)" -> {128, 1, 1}; components may have thousands separators. nullopt otherwise.
std::optional<std::array<std::int64_t, 3>> parse_dim3(std::string_view text);

/// The NVTX push/pop column: `884  "<default domain>:kprof:none:...:none" ` with one quoted
/// entry per range on the stack, outermost first. Returns the range names, outermost first.
std::vector<std::string> parse_nvtx_stack(std::string_view text);

/// A unit in ncu's base form and the power of ten that takes a value there.
struct BaseUnit {
  std::string unit;
  int exponent = 0;
};

/// Maps a printed unit to its base form: "Mbyte" -> {"byte", 6}, "us" -> {"ns", 3},
/// "Gbyte/s" -> {"byte/s", 9}, "byte/second" -> {"byte/s", 0}; other units unchanged, exponent 0.
BaseUnit normalise_unit(std::string_view unit);

/// A number as ncu prints it times 10^exponent; the scaling is applied to the decimal text so
/// that "16.781824" Mbyte becomes exactly 16781824 byte. nullopt when `text` is not a number.
std::optional<double> parse_scaled(std::string_view text, int exponent);

/// What one metric field holds. For kind == text the caller stores the field as printed.
struct FieldValue {
  ValueKind kind = ValueKind::null;
  double number = 0.0;
};

/// One metric field: null ("n/a", empty, "no data", or an instance value whose head is null), a
/// number scaled by 10^exponent ("nan" is a number; for an instance value "1,024 (1,024)" the
/// value before the parenthesis), else text.
FieldValue parse_metric_value(std::string_view field, int exponent);

} // namespace kprof::csv
