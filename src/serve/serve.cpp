// kprof serve: one KernelProfiler with standbys behind a Unix socket (include/kprof/serve.hpp).
//
// Design note.
// - Protocol: one JSON line each way per connection. Request: serve_request_to_json(). Answer:
//   {"accepted": false, "reason": text, "differs": bool} (and "stopped": true from a server
//   stopped before or during the round, which recorded nothing of it), or {"accepted": true,
//   "round": round_document(RoundResult)}, or {"accepted": true, "error": {category, message,
//   detail}}.
// - Who: the socket is made mode 0600 whatever the umask (the umask is process-wide and other
//   threads exist, so it is not touched): bound in a fresh 0700 directory of ours beside the
//   socket's place, chmod 0600 there, then renamed into place without replacing anything. The
//   server answers only peers of its own uid (SO_PEERCRED, checked before anything is read);
//   the client uses only a socket that lstat() shows is a socket of its own uid, and only a
//   server whose SO_PEERCRED uid is its own. Everything else is refused, with the reason.
// - Concurrency: the accept loop (the thread of serve()) hands each connection to a thread of
//   its own, at most k_max_connections at once, which reads the request within
//   k_request_deadline, so an idle or slow client never delays another. Rounds run one at a time
//   (m_profile_mutex). The loop reaps finished threads; at the end it closes the listener and
//   joins every thread before the standbys are stopped and the socket removed.
// - A request is read into a ServeRequest that checks every field's type and range; the
//   connection's thread also catches any exception, answers an internal error and logs it, so no
//   request can end the server.
#include "kprof/serve.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <list>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "kprof/files.hpp"
#include "kprof/options.hpp"
#include "kprof/process.hpp"
#include "kprof/status.hpp"
#include "profile/round_writer.hpp"
#include "profile/run_metadata.hpp"
#include "util/unique_fd.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

constexpr int k_protocol_version = 1;
constexpr std::size_t k_max_answer = std::size_t{256} << 20U; // a batch of reports
constexpr std::size_t k_max_request = std::size_t{1} << 20U;
constexpr std::size_t k_max_connections = 16;
constexpr std::size_t k_max_depth = 64; // of a request's arrays and objects
constexpr std::chrono::seconds k_request_deadline{5};
constexpr std::chrono::seconds k_answer_deadline{60}; // for the client to take the answer
constexpr int k_poll_ms = 200;
constexpr std::string_view k_socket_name = ".kprof-serve.sock";

using Clock = std::chrono::steady_clock;

Result<sockaddr_un> socket_address(const fs::path& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string text = path.string();
  if (text.size() >= sizeof(address.sun_path)) {
    return make_error(ErrorCategory::usage,
                      fmt::format("the output directory's path is too long for kprof serve's "
                                  "Unix socket ({} bytes, at most {}): {}; use a shorter --out",
                                  text.size(), sizeof(address.sun_path) - 1, text));
  }
  std::memcpy(address.sun_path, text.c_str(), text.size() + 1);
  return address;
}

/// A connected socket to `path`, or an invalid one when nothing listens there.
UniqueFd connect_to(const fs::path& path) {
  auto address = socket_address(path);
  if (!address) {
    return UniqueFd();
  }
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) {
    return fd;
  }
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&*address), sizeof(*address)) != 0) {
    return UniqueFd();
  }
  return fd;
}

/// The uid of the process at the other end of `fd` (the one that connected, or listened).
std::optional<uid_t> peer_uid(int fd, pid_t* pid = nullptr) {
  ucred peer{};
  socklen_t size = sizeof(peer);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0 || size != sizeof(peer)) {
    return std::nullopt;
  }
  if (pid != nullptr) {
    *pid = peer.pid;
  }
  return peer.uid;
}

/// Sends `line` and a newline, waiting at most until `deadline` for the peer to take it.
Result<void> send_line(int fd, std::string line, Clock::time_point deadline) {
  line += '\n';
  std::size_t sent = 0;
  while (sent < line.size()) {
    const ssize_t n =
        ::send(fd, line.data() + sent, line.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0 || cancellation_requested()) {
        return make_error(ErrorCategory::timeout, "kprof serve: the peer took nothing in time");
      }
      pollfd ready{fd, POLLOUT, 0};
      (void)::poll(&ready, 1, static_cast<int>(std::min<long long>(left.count(), k_poll_ms)));
      continue;
    }
    return make_error(ErrorCategory::io,
                      fmt::format("kprof serve: cannot send: {}", errno_text(errno)));
  }
  return {};
}

/// One line (without its newline) of at most `max_size` bytes, waiting at most until
/// `deadline`. timeout when the deadline passes or kprof is interrupted first.
Result<std::string> receive_line(int fd, Clock::time_point deadline, std::size_t max_size) {
  std::string data;
  std::array<char, 65536> buffer{};
  while (data.find('\n') == std::string::npos) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 || cancellation_requested()) {
      return make_error(ErrorCategory::timeout, "kprof serve: nothing came in time");
    }
    pollfd ready{fd, POLLIN, 0};
    const int polled =
        ::poll(&ready, 1, static_cast<int>(std::min<long long>(left.count(), k_poll_ms)));
    if (polled <= 0) {
      continue;
    }
    const ssize_t n = ::recv(fd, buffer.data(), buffer.size(), 0);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return make_error(ErrorCategory::io, "kprof serve: the connection closed mid-message");
    }
    data.append(buffer.data(), static_cast<std::size_t>(n));
    if (data.size() > max_size && data.find('\n') > max_size) {
      return make_error(ErrorCategory::malformed_input,
                        fmt::format("kprof serve: the message is longer than {} bytes", max_size));
    }
  }
  data.resize(data.find('\n'));
  return data;
}

/// `json` as text for a message: invalid UTF-8 replaced, cut after 60 bytes.
std::string shown(const Json& json) {
  std::string text = json.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 60) {
    text.resize(57);
    text += "...";
  }
  return text;
}

Json refusal_json(const std::string& reason, bool differs = false) {
  return Json{{"accepted", false}, {"reason", reason}, {"differs", differs}};
}

/// The refusal of a server stopped (SIGTERM, Ctrl-C) before or during the round: nothing of the
/// round is recorded, and the client profiles it itself.
Json stopped_json(const std::string& reason) {
  Json reply = refusal_json(reason);
  reply["stopped"] = true;
  return reply;
}

/// "timeout 300 -> 60, problem ..." for the keys whose values differ.
std::string differences(const Json& mine, const Json& theirs) {
  std::string text;
  for (const auto& [key, value] : mine.items()) {
    const auto found = theirs.find(key);
    const Json other = found != theirs.end() ? *found : Json(nullptr);
    if (other != value) {
      text += fmt::format("{}{} (server {}, this call {})", text.empty() ? "" : "; ", key,
                          shown(value), shown(other));
    }
  }
  return text.empty() ? "the request is not one this server reads" : text;
}

/// What stat() says `mode` is, for a message ("a symlink").
std::string_view file_kind(mode_t mode) {
  if (S_ISLNK(mode)) {
    return "a symlink";
  }
  if (S_ISREG(mode)) {
    return "a regular file";
  }
  if (S_ISDIR(mode)) {
    return "a directory";
  }
  if (S_ISFIFO(mode)) {
    return "a FIFO";
  }
  return "something else";
}

/// The socket a server listens on, and the directory entry it was given.
struct Listener {
  UniqueFd fd;
  dev_t device = 0;
  ino_t inode = 0;
};

/// Frees the private directory a socket was bound in, whatever happens.
class PrivateDir {
public:
  explicit PrivateDir(fs::path path) : m_path(std::move(path)) {}
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  PrivateDir(PrivateDir&&) = delete;
  PrivateDir& operator=(PrivateDir&&) = delete;
  ~PrivateDir() {
    (void)::unlink((m_path / "s").c_str());
    (void)::rmdir(m_path.c_str());
  }
  [[nodiscard]] fs::path socket() const { return m_path / "s"; }

private:
  fs::path m_path;
};

/// Whether what is at `path` may be replaced by a new server's socket: nothing, or a socket of
/// this uid on which nobody listens (a server that is gone). usage error naming what is there.
Result<void> check_socket_place(const fs::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) {
      return {};
    }
    return make_error(ErrorCategory::io, fmt::format("kprof serve: cannot look at {}: {}",
                                                     path.string(), errno_text(errno)));
  }
  if (!S_ISSOCK(info.st_mode)) {
    return make_error(ErrorCategory::usage,
                      fmt::format("{} is {}, not a socket; kprof serve will not replace it "
                                  "(remove it, or use another --out)",
                                  path.string(), file_kind(info.st_mode)));
  }
  if (UniqueFd live = connect_to(path)) {
    const std::optional<uid_t> uid = peer_uid(live.get());
    return make_error(ErrorCategory::usage,
                      fmt::format("another kprof serve answers on {}{}", path.string(),
                                  uid ? fmt::format(" (uid {})", *uid) : std::string()));
  }
  if (info.st_uid != ::geteuid()) {
    return make_error(ErrorCategory::usage,
                      fmt::format("{} belongs to uid {}; kprof serve will not replace it "
                                  "(use another --out)",
                                  path.string(), info.st_uid));
  }
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) { // a stale socket of a server that is gone
    return make_error(ErrorCategory::io, fmt::format("kprof serve: cannot remove the stale {}: {}",
                                                     path.string(), errno_text(errno)));
  }
  return {};
}

/// A socket listening at `path`, mode 0600 and owned by this uid, whatever the umask: bound in a
/// fresh 0700 directory beside `path`, made 0600 there, then renamed into place without
/// replacing anything.
Result<Listener> listen_privately(const fs::path& path) {
  const auto failed = [&](std::string_view what, int error_number) {
    return make_error(ErrorCategory::io,
                      fmt::format("kprof serve: cannot listen on {}: {}: {}", path.string(), what,
                                  errno_text(error_number)));
  };
  std::string dir_template = (path.parent_path() / ".kprof-XXXXXX").string();
  if (::mkdtemp(dir_template.data()) == nullptr) {
    return failed("mkdtemp", errno);
  }
  const PrivateDir dir{fs::path(dir_template)};
  if (::chmod(dir_template.c_str(), S_IRWXU) != 0) {
    return failed("chmod", errno);
  }
  const fs::path inner = dir.socket();
  auto address = socket_address(inner);
  if (!address) {
    return std::move(address).error();
  }
  Listener listener;
  listener.fd = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!listener.fd) {
    return failed("socket", errno);
  }
  if (::bind(listener.fd.get(), reinterpret_cast<const sockaddr*>(&*address), sizeof(*address)) !=
      0) {
    return failed("bind", errno);
  }
  if (::chmod(inner.c_str(), S_IRUSR | S_IWUSR) != 0) {
    return failed("chmod", errno);
  }
  if (::listen(listener.fd.get(), static_cast<int>(k_max_connections)) != 0) {
    return failed("listen", errno);
  }
  struct stat info {};
  if (::lstat(inner.c_str(), &info) != 0) {
    return failed("lstat", errno);
  }
  listener.device = info.st_dev;
  listener.inode = info.st_ino;
  int renamed = ::renameat2(AT_FDCWD, inner.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE);
  if (renamed != 0 && errno == EINVAL) { // a filesystem without RENAME_NOREPLACE
    renamed = ::link(inner.c_str(), path.c_str());
  }
  if (renamed != 0) {
    if (errno == EEXIST) {
      return make_error(ErrorCategory::usage,
                        fmt::format("another kprof serve started on {} just now", path.string()));
    }
    return failed("rename", errno);
  }
  return listener;
}

/// Removes the socket at `path` when it is still the entry `listener` was given.
void remove_socket(const fs::path& path, const Listener& listener) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0 && info.st_dev == listener.device &&
      info.st_ino == listener.inode) {
    (void)::unlink(path.c_str());
  }
}

class Server {
public:
  Server(const ServeSettings& settings, KernelProfiler profiler, UniqueFd listener)
      : m_settings(settings), m_profiler(std::move(profiler)), m_listener(std::move(listener)),
        m_fingerprint(serve_fingerprint(m_profiler.options(), settings.problem)),
        m_uid(::geteuid()) {}

  void run() {
    auto last = Clock::now();
    while (!cancellation_requested()) {
      if (reap() > 0) {
        last = Clock::now();
      }
      if (m_connections.empty() && Clock::now() - last >= m_settings.idle_timeout) {
        break;
      }
      pollfd ready{m_listener.get(), POLLIN, 0};
      if (::poll(&ready, 1, k_poll_ms) <= 0) {
        continue;
      }
      UniqueFd client(::accept4(m_listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (client && take(std::move(client))) {
        last = Clock::now(); // another uid's connection does not keep the server up
      }
    }
    m_stopping.store(true);
    log(cancellation_requested() ? "interrupted; stopping" : "idle; stopping");
    m_listener.reset();
    for (Connection& connection : m_connections) {
      connection.thread.join();
    }
    m_connections.clear();
    m_profiler.release_standbys();
  }

private:
  struct Connection {
    std::thread thread;
    std::atomic<bool> done{false};
  };

  void log(const std::string& line) const {
    if (m_settings.log) {
      m_settings.log(line);
    }
  }

  /// Joins the threads of finished connections; how many there were.
  std::size_t reap() {
    std::size_t reaped = 0;
    for (auto it = m_connections.begin(); it != m_connections.end();) {
      if (it->done.load()) {
        it->thread.join();
        it = m_connections.erase(it);
        ++reaped;
      } else {
        ++it;
      }
    }
    return reaped;
  }

  /// A refusal sent at once, from the accept loop (the answer fits an empty socket buffer).
  static void refuse_now(int fd, const std::string& reason) {
    (void)send_line(fd, json_text(refusal_json(reason), -1), Clock::now());
  }

  /// Checks the peer and hands the connection to a thread of its own; false when it was
  /// refused at once.
  bool take(UniqueFd client) {
    pid_t pid = 0;
    const std::optional<uid_t> uid = peer_uid(client.get(), &pid);
    if (!uid || *uid != m_uid) {
      log(fmt::format("refused a request from uid {} (pid {}): not this server's owner",
                      uid ? std::to_string(*uid) : std::string("unknown"), pid));
      refuse_now(client.get(),
                 fmt::format("kprof serve runs only its owner's (uid {}) requests", m_uid));
      return false;
    }
    if (m_connections.size() >= k_max_connections) {
      log(fmt::format("busy: refused a connection ({} open)", m_connections.size()));
      refuse_now(client.get(), fmt::format("kprof serve is busy ({} connections are open)",
                                           m_connections.size()));
      return false;
    }
    Connection& connection = m_connections.emplace_back();
    try {
      connection.thread = std::thread([this, &connection, fd = std::move(client)]() mutable {
        serve_connection(fd.get());
        fd.reset();
        connection.done.store(true);
      });
    } catch (const std::system_error& e) {
      m_connections.pop_back();
      log(fmt::format("cannot start a thread for a connection: {}", e.what()));
      return false;
    }
    return true;
  }

  /// The thread of one connection. The last line of defence: an exception answers an internal
  /// error and is logged, never ends the server.
  void serve_connection(int fd) noexcept {
    const auto internal = [&](const std::string& what) {
      log("internal error while answering a request: " + what);
      const Error error =
          make_error(ErrorCategory::internal,
                     "kprof serve: internal error while answering this request: " + what);
      (void)send_line(fd, json_text(Json{{"accepted", true}, {"error", to_json(error)}}, -1),
                      Clock::now() + k_answer_deadline);
    };
    try {
      answer(fd);
    } catch (const std::exception& e) {
      internal(e.what());
    } catch (...) {
      internal("an exception of an unknown type");
    }
  }

  void answer(int fd) {
    auto line = receive_line(fd, Clock::now() + k_request_deadline, k_max_request);
    if (!line) {
      if (line.error().category == ErrorCategory::timeout && !cancellation_requested()) {
        refuse(fd, fmt::format("no request within {} s", k_request_deadline.count()));
      } else if (line.error().category == ErrorCategory::malformed_input) {
        refuse(fd, fmt::format("not a kprof serve request: longer than {} bytes", k_max_request));
      }
      return;
    }
    auto request = parse_serve_request(*line);
    if (!request) {
      refuse(fd, request.error().message);
      return;
    }
    if (request->fingerprint != m_fingerprint) {
      const std::string reason = differences(m_fingerprint, request->fingerprint);
      log("refused a request: " + reason);
      (void)send_line(fd, json_text(refusal_json(reason, true), -1),
                      Clock::now() + k_answer_deadline);
      return;
    }
    const Json reply = run_round(*request);
    (void)send_line(fd, json_text(reply, -1), Clock::now() + k_answer_deadline);
  }

  void refuse(int fd, const std::string& reason) const {
    log("refused a request: " + reason);
    (void)send_line(fd, json_text(refusal_json(reason), -1), Clock::now() + k_answer_deadline);
  }

  /// Runs the request's round, one at a time.
  Json run_round(const ServeRequest& request) {
    const std::lock_guard<std::mutex> one_at_a_time(m_profile_mutex);
    if (m_stopping.load() || cancellation_requested()) {
      return stopped_json("it was stopped before the round began");
    }
    log(fmt::format("round {}: {} candidate{}", request.round, request.kernels.size(),
                    request.kernels.size() == 1 ? "" : "s"));
    Result<RoundResult> result =
        request.batch
            ? m_profiler.profile_batch(m_settings.problem, request.kernels, request.round)
            : m_profiler.profile(request.kernels.front(), m_settings.problem, request.round);
    if (result ? !result->recorded : cancellation_requested()) {
      log(fmt::format("round {}: stopped during the round; nothing recorded (the client "
                      "profiles it itself)",
                      request.round));
      return stopped_json("it was stopped during the round and recorded nothing of it");
    }
    Json reply{{"accepted", true}};
    if (result) {
      reply["round"] = round_document(*result, ReportDetail::full);
    } else {
      reply["error"] = to_json(result.error());
    }
    return reply;
  }

  const ServeSettings& m_settings;
  KernelProfiler m_profiler;
  std::mutex m_profile_mutex;
  UniqueFd m_listener;
  Json m_fingerprint;
  uid_t m_uid;
  std::atomic<bool> m_stopping{false};
  std::list<Connection> m_connections; ///< only the accept loop's thread touches the list
};

/// Why the entry at `path` is not a socket of this uid; empty when it is one.
std::string untrusted_socket(const struct stat& info) {
  if (!S_ISSOCK(info.st_mode)) {
    return fmt::format("{}, not a socket", file_kind(info.st_mode));
  }
  if (info.st_uid != ::geteuid()) {
    return fmt::format("owned by uid {}, not you", info.st_uid);
  }
  return {};
}

/// The answer of a client that did not use the socket, saying why.
std::optional<ServerAnswer> not_used(std::string reason) {
  ServerAnswer answer;
  answer.reply = ServerReply::not_used;
  answer.reason = std::move(reason);
  return answer;
}

/// `reply` (a server's answer line, parsed) as a ServerAnswer; an Error as the server sent it.
Result<std::optional<ServerAnswer>> answer_of(const Json& reply) {
  const auto accepted = reply.find("accepted");
  if (!reply.is_object() || accepted == reply.end() || !accepted->is_boolean()) {
    return make_error(ErrorCategory::malformed_input, "kprof serve answered something else");
  }
  ServerAnswer answer;
  if (!accepted->get<bool>()) {
    const auto reason = reply.find("reason");
    const auto flag = [&reply](const char* key) {
      const auto found = reply.find(key);
      return found != reply.end() && found->is_boolean() && found->get<bool>();
    };
    answer.reply = flag("stopped")   ? ServerReply::stopped
                   : flag("differs") ? ServerReply::differs
                                     : ServerReply::refused;
    answer.reason = reason != reply.end() && reason->is_string() ? reason->get<std::string>()
                                                                 : std::string("refused");
    return std::optional<ServerAnswer>(std::move(answer));
  }
  if (auto error = error_from_json(reply.value("error", Json(nullptr)))) {
    return *error;
  }
  auto parsed = round_result_from_json(reply.value("round", Json(nullptr)));
  if (!parsed) {
    return std::move(parsed).error();
  }
  answer.round = std::move(parsed).value();
  return std::optional<ServerAnswer>(std::move(answer));
}

} // namespace

fs::path serve_socket_path(const fs::path& out_dir) {
  std::error_code ec;
  return fs::absolute(out_dir, ec) / k_socket_name;
}

Json serve_fingerprint(const ProfileOptions& options, const fs::path& problem) {
  // Every option of the table (option_values), so that a new option can never be left out,
  // except those that do not change what a round measures or writes: the standby's own
  // (a server always keeps one) and how long an unused one waits.
  Json fingerprint = option_values(options);
  fingerprint.erase("standby");
  fingerprint.erase("standby_idle_seconds");
  std::error_code ec;
  fingerprint["problem"] = fs::absolute(problem, ec).lexically_normal().string();
  fingerprint["out_dir"] = fs::absolute(options.out_dir, ec).lexically_normal().string();
  return fingerprint;
}

Json serve_request_to_json(const ServeRequest& request) {
  Json kernels = Json::array();
  for (const fs::path& kernel : request.kernels) {
    kernels.push_back(kernel.string());
  }
  return Json{{"version", k_protocol_version},
              {"fingerprint", request.fingerprint},
              {"kernels", std::move(kernels)},
              {"round", request.round},
              {"batch", request.batch}};
}

Result<ServeRequest> serve_request_from_json(const Json& json) {
  const auto bad = [](const std::string& what) {
    return make_error(ErrorCategory::malformed_input, "not a kprof serve request: " + what);
  };
  if (!json.is_object()) {
    return bad(fmt::format("not a JSON object but {}", shown(json)));
  }
  const auto field = [&](std::string_view key) -> const Json* {
    const auto found = json.find(key);
    return found != json.end() ? &*found : nullptr;
  };
  for (const std::string_view key : {"version", "fingerprint", "kernels", "round", "batch"}) {
    if (field(key) == nullptr) {
      return bad(fmt::format("'{}' is missing", key));
    }
  }
  const Json& version = *field("version");
  if (!version.is_number_integer()) {
    return bad(fmt::format("'version' must be an integer, not {}", shown(version)));
  }
  if (version != k_protocol_version) {
    return bad(fmt::format("it is of protocol version {}, this kprof serve speaks version {}",
                           shown(version), k_protocol_version));
  }
  ServeRequest request;
  const Json& fingerprint = *field("fingerprint");
  if (!fingerprint.is_object()) {
    return bad(fmt::format("'fingerprint' must be an object, not {}", shown(fingerprint)));
  }
  request.fingerprint = fingerprint;
  const Json& batch = *field("batch");
  if (!batch.is_boolean()) {
    return bad(fmt::format("'batch' must be true or false, not {}", shown(batch)));
  }
  request.batch = batch.get<bool>();
  const OptionSpec* spec = find_option_spec("round");
  KPROF_ASSERT(spec != nullptr);
  const Json& round = *field("round");
  std::optional<std::uint64_t> number;
  if (round.is_number_unsigned()) {
    number = round.get<std::uint64_t>();
  } else if (round.is_number_integer() && round.get<std::int64_t>() >= 0) {
    number = static_cast<std::uint64_t>(round.get<std::int64_t>());
  }
  if (!number || *number < spec->min || *number > spec->max) {
    return bad(fmt::format("'round' must be an integer from {} to {} (as --round), not {}",
                           spec->min, spec->max, shown(round)));
  }
  request.round = static_cast<int>(*number);
  const Json& kernels = *field("kernels");
  if (!kernels.is_array() ||
      !std::all_of(kernels.begin(), kernels.end(), [](const Json& k) { return k.is_string(); })) {
    return bad(fmt::format("'kernels' must be an array of strings, not {}", shown(kernels)));
  }
  if (!request.batch && kernels.size() != 1) {
    return bad(fmt::format("'kernels' must name one kernel for a profile, not {}", kernels.size()));
  }
  if (request.batch && kernels.empty()) {
    return bad("'kernels' must name at least one kernel for a batch");
  }
  for (const Json& kernel : kernels) {
    const auto& text = kernel.get_ref<const std::string&>();
    if (text.find('\0') != std::string::npos) {
      return bad(fmt::format("kernel paths must not contain a NUL byte, not {}", shown(kernel)));
    }
    fs::path path(text);
    if (!path.is_absolute()) {
      return bad(fmt::format("kernel paths must be absolute, not {}", shown(kernel)));
    }
    request.kernels.push_back(std::move(path));
  }
  return request;
}

Result<ServeRequest> parse_serve_request(std::string_view line) {
  // The deepest nesting of arrays and objects, outside strings.
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : line) {
    if (escaped) {
      escaped = false;
    } else if (in_string) {
      escaped = c == '\\';
      in_string = c != '"';
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  if (deepest > k_max_depth) {
    return make_error(
        ErrorCategory::malformed_input,
        fmt::format("not a kprof serve request: nested deeper than {} levels", k_max_depth));
  }
  const Json json = Json::parse(line, nullptr, false);
  if (json.is_discarded()) {
    return make_error(ErrorCategory::malformed_input, "not a kprof serve request: not JSON");
  }
  return serve_request_from_json(json);
}

Result<void> serve(const ServeSettings& settings) {
  ProfileOptions options = settings.options;
  options.standby = true;
  options.record_interrupted_rounds = false; // a stopped server's round is its client's to run
  auto inputs = check_round_inputs(settings.problem, {});
  if (!inputs) {
    return std::move(inputs).error();
  }
  // Its rounds run under --out: an --out another user could swap is refused before the socket
  // is made, as every round would refuse it.
  if (auto prepared = prepare_run_directory(options.out_dir); !prepared) {
    return prepared;
  }
  const fs::path path = serve_socket_path(options.out_dir);
  if (auto address = socket_address(path); !address) {
    return std::move(address).error();
  }
  if (auto place = check_socket_place(path); !place) {
    return place;
  }
  auto profiler = KernelProfiler::create(options);
  if (!profiler) {
    return std::move(profiler).error();
  }
  auto listener = listen_privately(path);
  if (!listener) {
    return std::move(listener).error();
  }
  if (auto primed = profiler->prime_standbys(inputs->problem); !primed) {
    remove_socket(path, *listener);
    return primed;
  }
  if (settings.log) {
    settings.log(fmt::format("serving {} on {} for uid {} (stops after {} s idle)",
                             inputs->problem.string(), path.string(), ::geteuid(),
                             settings.idle_timeout.count()));
  }
  ServeSettings resolved = settings;
  resolved.problem = inputs->problem;
  const Listener bound{UniqueFd(), listener->device, listener->inode};
  Server(resolved, std::move(profiler).value(), std::move(listener->fd)).run();
  remove_socket(path, bound);
  return {};
}

Result<std::optional<ServerAnswer>> ask_server(const ProfileOptions& options,
                                               const fs::path& problem,
                                               const std::vector<fs::path>& kernels, int round,
                                               bool batch) {
  const fs::path path = serve_socket_path(options.out_dir);
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return std::optional<ServerAnswer>();
    }
    return not_used(fmt::format("cannot look at it: {}", errno_text(errno)));
  }
  if (std::string why = untrusted_socket(info); !why.empty()) {
    return not_used(std::move(why));
  }
  UniqueFd fd = connect_to(path);
  if (!fd) {
    return std::optional<ServerAnswer>(); // a stale socket: no server
  }
  const std::optional<uid_t> server_uid = peer_uid(fd.get());
  if (!server_uid) {
    return not_used(fmt::format("cannot tell whose its server is: {}", errno_text(errno)));
  }
  if (*server_uid != ::geteuid()) {
    return not_used(fmt::format("its server runs as uid {}, not you", *server_uid));
  }
  ServeRequest request;
  request.fingerprint = serve_fingerprint(options, problem);
  request.round = round;
  request.batch = batch;
  std::error_code ec;
  for (const fs::path& kernel : kernels) {
    request.kernels.push_back(fs::absolute(kernel, ec).lexically_normal());
  }
  // A server that refuses at once (busy) may answer and close before the request is sent: its
  // answer is read all the same.
  auto sent = send_line(fd.get(), json_text(serve_request_to_json(request), -1),
                        Clock::now() + k_answer_deadline);
  // The server runs the round like profile() would: allow its whole time limit and then some.
  const auto limit = options.timeout * static_cast<long>(std::max<std::size_t>(kernels.size(), 1)) *
                         (options.retries + 1) +
                     std::chrono::minutes(10);
  auto line =
      receive_line(fd.get(), Clock::now() + (sent ? limit : k_request_deadline), k_max_answer);
  if (!line && line.error().category == ErrorCategory::io) {
    // The server went away (killed, crashed) before it answered: a round it ran to the end is
    // committed and then answered, so at worst the client's own round replaces it; nothing of
    // an unfinished one is committed. The client profiles the round itself.
    ServerAnswer answer;
    answer.reply = ServerReply::stopped;
    answer.reason = "its connection closed without an answer (the server stopped or died)";
    return std::optional<ServerAnswer>(std::move(answer));
  }
  if (!line) {
    return sent ? std::move(line).error() : sent.error();
  }
  const Json reply = Json::parse(*line, nullptr, false);
  try {
    return answer_of(reply);
  } catch (const Json::exception& e) {
    return make_error(ErrorCategory::malformed_input,
                      fmt::format("kprof serve answered something else: {}", e.what()));
  }
}

std::string unused_answer_note(const ServerAnswer& answer, const fs::path& out_dir) {
  switch (answer.reply) {
  case ServerReply::answered:
    return {};
  case ServerReply::differs:
    return "kprof serve in this directory serves something else (" + answer.reason +
           "); profiling here";
  case ServerReply::refused:
    return "kprof serve in this directory refused this call (" + answer.reason +
           "); profiling here";
  case ServerReply::stopped:
    return "kprof serve in this directory stopped during this call (" + answer.reason +
           "); profiling here";
  case ServerReply::not_used:
    return fmt::format("not using {}: {}; profiling without the server",
                       serve_socket_path(out_dir).string(), answer.reason);
  }
  return {};
}

} // namespace kprof
