// MCP resources of a `kprof mcp` session (internal to src/mcp): the run directories its calls
// named, their rounds and files, and the report documents it built from captures.
#pragma once

#include <cstddef>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "kprof/json_file.hpp"
#include "kprof/report.hpp"
#include "mcp/jsonrpc.hpp"

namespace kprof::mcp {

/// A JSON-RPC error to answer with.
struct RpcFailure {
  RpcCode code = RpcCode::internal_error;
  std::string message;
};

/// "file:///abs/path" with every byte outside [A-Za-z0-9-._~/] percent-encoded.
std::string file_uri(const std::filesystem::path& path);

/// The path of a file: URI ("file:///p" or "file://localhost/p", %XX decoded); nullopt for
/// anything else (another scheme, a relative path, a bad escape, a NUL byte).
std::optional<std::filesystem::path> path_of_file_uri(std::string_view uri);

/// What resources/read reads at most of one file.
inline constexpr std::size_t k_max_resource_bytes = std::size_t{8} << 20U;

/// Thread-safe: tool calls add to it while resources/list and resources/read read it.
class Resources {
public:
  /// A run directory (out_dir of profile and batch, the DIR of history and diff): its round
  /// directories (roundNNN/, roundNNN.attempt-K/) are listed and everything in them can be read;
  /// nothing else of it (kprof.db, other files beside the rounds) is a resource.
  void add_run_dir(const std::filesystem::path& dir);
  /// A report document named by a call: its round directory when it lies in one
  /// (roundNNN/report.json, roundNNN/candK/report.json), else the file alone.
  void add_report_file(const std::filesystem::path& file);

  /// Keeps the JSON text of a report a call built (the report of a capture) as
  /// kprof://report/<n> and returns that URI; nullopt, keeping nothing, when the text is longer
  /// than k_max_resource_bytes (what resources/read returns of a file): its launches are then
  /// not written at all when the outline's launch counts say so, else only until the text
  /// passes that length. The oldest are dropped past 64 documents or 128 MiB of text.
  std::optional<std::string> keep_report(const ReportSource& report, std::string name);

  /// The result of resources/list: one page of up to 200 resources from `cursor` (empty: the
  /// first); invalid_params for a cursor this server did not give.
  [[nodiscard]] std::variant<Json, RpcFailure> list(std::string_view cursor) const;

  /// The result of resources/read for `uri`: a file (text, at most k_max_resource_bytes), a
  /// directory (a JSON listing of its files with their URIs) of the rounds and reports above, or
  /// a kept document. resource_not_found for anything else (outside them after resolving
  /// symlinks and "..", missing); invalid_params for a binary or too large file or a URI that is
  /// no URI.
  [[nodiscard]] std::variant<Json, RpcFailure> read(std::string_view uri) const;

private:
  struct Kept {
    std::string uri;
    std::string name;
    std::string text;
  };
  enum class RootKind { run_dir, round_dir, file };
  struct Root {
    std::filesystem::path path; ///< canonical (or absolute while it does not exist)
    RootKind kind = RootKind::run_dir;
    friend bool operator==(const Root&, const Root&) = default;
  };
  void add_root(const std::filesystem::path& path, RootKind kind);
  [[nodiscard]] std::vector<Json> all_resources() const;
  [[nodiscard]] bool readable(const std::filesystem::path& canonical) const;

  mutable std::mutex m_mutex;
  std::vector<Root> m_roots;
  std::deque<Kept> m_kept;
  std::size_t m_kept_bytes = 0;
  int m_next_document = 1;
};

} // namespace kprof::mcp
