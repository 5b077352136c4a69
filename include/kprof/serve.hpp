// kprof: `kprof serve`, standbys for one problem behind a Unix socket (docs/standby.md).
//
// A server keeps one KernelProfiler with standbys (ProfileOptions::standby) for one problem and
// answers profile and batch requests from `kprof profile`/`kprof batch` in the same output
// directory, over `out_dir/.kprof-serve.sock`: one JSON line each way. A client whose options
// or problem differ from the server's is told so and profiles as usual.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kprof/error.hpp"
#include "kprof/json_file.hpp"
#include "kprof/profiler.hpp"

namespace kprof {

/// The socket of the server of an output directory: out_dir/.kprof-serve.sock.
std::filesystem::path serve_socket_path(const std::filesystem::path& out_dir);

/// What must match between a client and a server: the problem (absolute path) and every
/// profile option that changes what a round measures or where it goes. A JSON object.
Json serve_fingerprint(const ProfileOptions& options, const std::filesystem::path& problem);

/// A RoundResult as JSON (the reports and errors of its candidates included), and back;
/// malformed_input naming the key when `json` is not one.
Json round_result_to_json(const RoundResult& round);
Result<RoundResult> round_result_from_json(const Json& json);

struct ServeSettings {
  ProfileOptions options; ///< standby is turned on
  std::filesystem::path problem;
  std::chrono::seconds idle_timeout{600};      ///< stop after this long without a request
  std::function<void(const std::string&)> log; ///< one line per event; may be empty
};

/// Serves until idle_timeout passes without a request or kprof is interrupted; then stops the
/// standbys and removes the socket. usage error when the socket path is too long for a Unix
/// socket or another server answers on it; io error when it cannot be created.
Result<void> serve(const ServeSettings& settings);

/// What a server said to a client.
struct ServerAnswer {
  std::optional<RoundResult> round; ///< the round it ran; nullopt when it did not run it
  std::string refusal;              ///< why not (options or problem differ), when it did not
};

/// Asks the server of options.out_dir to run a round (a batch when `batch`). nullopt when no
/// server listens there; an answer with a refusal when one does but serves something else; an
/// Error when the server failed the round (as profile() would have).
Result<std::optional<ServerAnswer>> ask_server(const ProfileOptions& options,
                                               const std::filesystem::path& problem,
                                               const std::vector<std::filesystem::path>& kernels,
                                               int round, bool batch);

} // namespace kprof
