// kprof: JSON text and JSON files, with one policy for invalid UTF-8.
//
// Every JSON document kprof prints or writes goes through json_text(): bytes that are not valid
// UTF-8 (a mangled kernel name, a path in a legacy encoding, ncu output with stray bytes) become
// U+FFFD instead of making nlohmann throw. Files are written with write_json_atomic(), so a
// document appears whole or not at all.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kprof/error.hpp"

namespace kprof {

/// The document type of every kprof JSON file: keys keep their insertion order, so golden files
/// stay golden.
using Json = nlohmann::ordered_json;

/// `doc` as JSON text: indented by `indent` spaces (negative: compact, one line), invalid UTF-8
/// replaced by U+FFFD, with a trailing newline when `indent` >= 0. Never throws.
std::string json_text(const Json& doc, int indent = 2);

/// A number as every kprof document writes it: null when NaN or infinite, an integer when integral
/// and below 2^53 in magnitude (16781824, not 16781824.0), a double otherwise.
Json number_json(double value);
/// number_json(*value), or null without one.
Json number_json(std::optional<double> value);

/// An Error as JSON, the one shape of every document's "error": {"category", "exit_code",
/// "message", "detail"} (exit_code: the category's, as the command would exit with it).
Json to_json(const Error& error);
/// to_json(*error), or null without one.
Json to_json(const std::optional<Error>& error);
/// The JSON Schema of to_json(Error) (for the MCP tools' output schemas).
Json error_json_schema();
/// The Error of a to_json() object: an unknown category reads as internal, a missing or
/// non-string message or detail as empty. nullopt for anything but an object. Never throws.
std::optional<Error> error_from_json(const Json& json);

/// Writes json_text(doc, indent) to `path` atomically (see write_file_atomic). io error on failure.
Result<void> write_json_atomic(const std::filesystem::path& path, const Json& doc, int indent = 2);

} // namespace kprof
