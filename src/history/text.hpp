// Text helpers shared by the history renderers (tables, prompt lines, CSV). Numbers go through
// kprof/numbers.hpp, so they print the same, locale-proof, everywhere.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kprof::history {

/// A CSV field, quoted (RFC 4180) when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view text);
/// format_number(), or "" when absent.
std::string csv_number(const std::optional<double>& value);

/// "91%" (one decimal below 10: "4.5%"); "-" when absent.
std::string short_percent(const std::optional<double>& value);
/// A metric value for a person: percentages as short_percent, others via format_with_unit;
/// "-" when absent.
std::string short_value(const std::optional<double>& value, std::string_view unit);

/// Lays out rows of cells as left-aligned columns two spaces apart, without trailing spaces.
std::string columns(const std::vector<std::vector<std::string>>& rows);

} // namespace kprof::history
