// kprof: `kprof serve`, standbys for one problem behind a Unix socket (docs/standby.md).
//
// A server keeps one KernelProfiler with standbys (ProfileOptions::standby) for one problem and
// answers profile and batch requests from `kprof profile`/`kprof batch` in the same output
// directory, over `out_dir/.kprof-serve.sock`: one JSON line each way. A client whose options
// or problem differ from the server's is told so and profiles as usual. Server and client serve
// and trust only their own uid (docs/standby.md, "Who may talk to a server").
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

/// One request of a client: run `kernels` (one, or a batch) as round `round` of the server whose
/// serve_fingerprint() is `fingerprint`. On the wire {"version": 1, "fingerprint", "kernels",
/// "round", "batch"}.
struct ServeRequest {
  Json fingerprint = Json::object();
  std::vector<std::filesystem::path> kernels; ///< absolute paths
  int round = 0;
  bool batch = false;
};

Json serve_request_to_json(const ServeRequest& request);

/// Reads a request, checking every field: version an integer (and this protocol's), fingerprint
/// an object, kernels an array of absolute paths (without NUL) as strings (exactly one unless
/// batch, at least one for a batch), round an integer within `--round`'s range, batch a boolean.
/// malformed_input naming the field ("'round' must be an integer from 0 to 999999, not \"x\"")
/// otherwise; never throws.
Result<ServeRequest> serve_request_from_json(const Json& json);

/// A request line as the server reads it: serve_request_from_json() of its JSON. malformed_input
/// also for text that is not JSON or is nested deeper than 64 arrays or objects (deeper JSON
/// would exhaust a thread's stack when compared or printed); never throws.
Result<ServeRequest> parse_serve_request(std::string_view line);

struct ServeSettings {
  ProfileOptions options; ///< standby is turned on, record_interrupted_rounds off
  std::filesystem::path problem;
  std::chrono::seconds idle_timeout{600}; ///< stop after this long without a request
  /// One line per event (requests, refusals, stopping); called from several threads, one call
  /// per line. May be empty.
  std::function<void(const std::string&)> log;
};

/// Serves until idle_timeout passes without a connection or kprof is interrupted; then stops the
/// standbys and removes the socket. The socket is mode 0600 whatever the umask (bound in a
/// private directory beside it, then renamed into place), and only requests of this process's
/// uid are served (SO_PEERCRED); others get a refusal and are logged. Connections are served
/// each in its own thread (at most 16 at once; beyond that a connection is told the server is
/// busy), each request read within 5 s; rounds run one at a time.
/// usage error when the socket path is too long for a Unix socket, another server answers on it,
/// or something other than a stale socket of this uid is in its place; io error when it cannot
/// be created.
Result<void> serve(const ServeSettings& settings);

/// How a server (or the socket in its place) answered a client.
enum class ServerReply {
  answered, ///< it ran the round
  differs,  ///< it serves another problem or other options (reason: what differs)
  refused,  ///< it did not take the request (reason: busy, a bad request, another uid)
  /// it was stopped (SIGTERM, Ctrl-C) before or during the round, or went away without an
  /// answer (killed, crashed): it recorded nothing of the round, which the client runs itself
  stopped,
  not_used, ///< the socket or its server is not this uid's (reason: whose); nothing was sent
};

/// What a server said to a client.
struct ServerAnswer {
  ServerReply reply = ServerReply::answered;
  std::optional<RoundResult> round; ///< the round it ran, when answered
  std::string reason;               ///< why not, otherwise
};

/// Asks the server of options.out_dir to run a round (a batch when `batch`). nullopt when no
/// server listens there; not_used when the socket is not a socket of this uid (a symlink,
/// another uid's) or the server on it runs as another uid, and then nothing is sent; differs or
/// refused when the server did not run it; stopped when the server was stopped before or
/// during the round or closed the connection without an answer; an Error when the server failed
/// the round (as profile() would have) or its answer cannot be read.
Result<std::optional<ServerAnswer>> ask_server(const ProfileOptions& options,
                                               const std::filesystem::path& problem,
                                               const std::vector<std::filesystem::path>& kernels,
                                               int round, bool batch);

/// The one line a client says of an answer it does not use (differs, refused, stopped,
/// not_used): why it profiles without the server of out_dir. Empty for answered.
std::string unused_answer_note(const ServerAnswer& answer, const std::filesystem::path& out_dir);

} // namespace kprof
