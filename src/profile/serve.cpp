// kprof serve: one KernelProfiler with standbys behind a Unix socket (include/kprof/serve.hpp).
//
// The protocol is one JSON line each way per connection. Request: {"version": 1, "fingerprint":
// serve_fingerprint(...), "kernels": [paths], "round": N, "batch": bool}. Answer: {"accepted":
// false, "reason": text}, or {"accepted": true, "round": round_result_to_json(...)}, or
// {"accepted": true, "error": {category, message, detail}}. Requests are served one at a time.
#include "kprof/serve.hpp"

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "kprof/files.hpp"
#include "kprof/process.hpp"
#include "kprof/status.hpp"
#include "profile/run_metadata.hpp"
#include "util/unique_fd.hpp"

namespace kprof {
namespace fs = std::filesystem;

namespace {

constexpr int k_protocol_version = 1;
constexpr std::size_t k_max_line = std::size_t{256} << 20U; // a batch of reports

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

Result<void> send_line(int fd, std::string line) {
  line += '\n';
  std::size_t sent = 0;
  while (sent < line.size()) {
    const ssize_t n = ::send(fd, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return make_error(ErrorCategory::io,
                        fmt::format("kprof serve: cannot send: {}", std::strerror(errno)));
    }
    sent += static_cast<std::size_t>(n);
  }
  return {};
}

/// One line (without its newline), waiting at most until `deadline`.
Result<std::string> receive_line(int fd, Clock::time_point deadline) {
  std::string data;
  std::array<char, 65536> buffer{};
  while (data.find('\n') == std::string::npos) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 || cancellation_requested()) {
      return make_error(ErrorCategory::timeout, "kprof serve: no answer in time");
    }
    pollfd ready{fd, POLLIN, 0};
    const int polled = ::poll(&ready, 1, static_cast<int>(std::min<long long>(left.count(), 500)));
    if (polled <= 0) {
      continue;
    }
    const ssize_t n = ::recv(fd, buffer.data(), buffer.size(), 0);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return make_error(ErrorCategory::io, "kprof serve: the connection closed mid-answer");
    }
    data.append(buffer.data(), static_cast<std::size_t>(n));
    if (data.size() > k_max_line) {
      return make_error(ErrorCategory::malformed_input, "kprof serve: the message is too long");
    }
  }
  data.resize(data.find('\n'));
  return data;
}

Json error_json_of(const std::optional<Error>& error) {
  return error ? error_to_json(*error) : Json(nullptr);
}

/// "timeout 300 -> 60, problem ..." for the keys whose values differ.
std::string differences(const Json& mine, const Json& theirs) {
  std::string text;
  for (const auto& [key, value] : mine.items()) {
    const Json other = theirs.contains(key) ? theirs[key] : Json(nullptr);
    if (other != value) {
      text += fmt::format("{}{} (server {}, this call {})", text.empty() ? "" : "; ", key,
                          value.dump(), other.dump());
    }
  }
  return text.empty() ? "the request is not one this server reads" : text;
}

class Server {
public:
  Server(const ServeSettings& settings, KernelProfiler profiler, UniqueFd listener)
      : m_settings(settings), m_profiler(std::move(profiler)), m_listener(std::move(listener)),
        m_fingerprint(serve_fingerprint(m_profiler.options(), settings.problem)) {}

  void run() {
    auto last = Clock::now();
    while (!cancellation_requested() && Clock::now() - last < m_settings.idle_timeout) {
      pollfd ready{m_listener.get(), POLLIN, 0};
      if (::poll(&ready, 1, 500) <= 0) {
        continue;
      }
      UniqueFd client(::accept4(m_listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (!client) {
        continue;
      }
      answer(client.get());
      last = Clock::now();
    }
    log(cancellation_requested() ? "interrupted; stopping" : "idle; stopping");
    m_profiler.release_standbys();
  }

private:
  void log(const std::string& line) const {
    if (m_settings.log) {
      m_settings.log(line);
    }
  }

  void answer(int fd) {
    auto line = receive_line(fd, Clock::now() + std::chrono::seconds(30));
    if (!line) {
      return;
    }
    Json request = Json::parse(*line, nullptr, false);
    if (!request.is_object() || request.value("version", 0) != k_protocol_version ||
        !request.contains("fingerprint") || !request["kernels"].is_array()) {
      (void)send_line(fd,
                      Json{{"accepted", false}, {"reason", "not a kprof serve request"}}.dump());
      return;
    }
    if (request["fingerprint"] != m_fingerprint) {
      const std::string reason = differences(m_fingerprint, request["fingerprint"]);
      log("refused a request: " + reason);
      (void)send_line(fd, json_text(Json{{"accepted", false}, {"reason", reason}}, -1));
      return;
    }
    std::vector<fs::path> kernels;
    for (const Json& kernel : request["kernels"]) {
      kernels.emplace_back(kernel.is_string() ? kernel.get<std::string>() : std::string());
    }
    const int round = request.value("round", 0);
    const bool batch = request.value("batch", false);
    log(fmt::format("round {}: {} candidate{}", round, kernels.size(),
                    kernels.size() == 1 ? "" : "s"));
    Result<RoundResult> result =
        batch ? m_profiler.profile_batch(m_settings.problem, kernels, round)
              : m_profiler.profile(kernels.empty() ? fs::path() : kernels.front(),
                                   m_settings.problem, round);
    Json reply{{"accepted", true}};
    if (result) {
      reply["round"] = round_result_to_json(*result);
    } else {
      reply["error"] = error_to_json(result.error());
    }
    (void)send_line(fd, json_text(reply, -1));
  }

  const ServeSettings& m_settings;
  KernelProfiler m_profiler;
  UniqueFd m_listener;
  Json m_fingerprint;
};

} // namespace

fs::path serve_socket_path(const fs::path& out_dir) {
  std::error_code ec;
  return fs::absolute(out_dir, ec) / ".kprof-serve.sock";
}

Json serve_fingerprint(const ProfileOptions& options, const fs::path& problem) {
  std::error_code ec;
  const auto path_or_null = [](const std::optional<fs::path>& path) {
    return path ? Json(path->string()) : Json(nullptr);
  };
  return Json{{"problem", fs::absolute(problem, ec).lexically_normal().string()},
              {"out_dir", fs::absolute(options.out_dir, ec).lexically_normal().string()},
              {"metrics", options.metrics},
              {"source", options.source},
              {"ncu", path_or_null(options.ncu)},
              {"python", path_or_null(options.python)},
              {"use_sudo", options.use_sudo},
              {"timeout", options.timeout.count()},
              {"retries", options.retries},
              {"warmup", options.warmup},
              {"inputs", std::string(to_string(options.inputs))},
              {"cast", std::string(to_string(options.cast))},
              {"seed", options.seed},
              {"clock_control", std::string(to_string(options.clock_control))},
              {"select", std::string(to_string(options.select.select))},
              {"kernels", options.select.kernel_filters},
              {"gpus", options.gpus},
              {"record_history", options.record_history},
              {"check_metrics", options.check_metrics},
              {"logs_dir", path_or_null(options.logs_dir)}};
}

Json round_result_to_json(const RoundResult& round) {
  Json candidates = Json::array();
  for (const CandidateResult& candidate : round.candidates) {
    candidates.push_back(Json{{"index", candidate.index},
                              {"kernel", candidate.kernel.string()},
                              {"status", std::string(to_string(candidate.status))},
                              {"error", error_json_of(candidate.error)},
                              {"report", candidate.report ? *candidate.report : Json(nullptr)},
                              {"dir", candidate.dir.string()},
                              {"gpu", candidate.gpu},
                              {"attempts", candidate.attempts}});
  }
  return Json{{"round", round.round},       {"dir", round.dir.string()},
              {"in_place", round.in_place}, {"wall_seconds", round.wall_seconds},
              {"metadata", round.metadata}, {"candidates", std::move(candidates)}};
}

Result<RoundResult> round_result_from_json(const Json& json) {
  const auto bad = [](std::string_view key) {
    return make_error(ErrorCategory::malformed_input,
                      fmt::format("not a kprof round: '{}' is missing or has the wrong type", key));
  };
  if (!json.is_object() || !json.contains("candidates") || !json["candidates"].is_array()) {
    return bad("candidates");
  }
  RoundResult round;
  round.round = json.value("round", 0);
  round.dir = json.value("dir", std::string());
  round.in_place = json.value("in_place", true);
  round.wall_seconds = json.value("wall_seconds", 0.0);
  round.metadata = json.value("metadata", Json::object());
  for (const Json& entry : json["candidates"]) {
    if (!entry.is_object()) {
      return bad("candidates[]");
    }
    CandidateResult candidate;
    candidate.index = entry.value("index", 0);
    candidate.kernel = entry.value("kernel", std::string());
    auto status = parse_candidate_status(entry.value("status", std::string()));
    if (!status) {
      return bad("candidates[].status");
    }
    candidate.status = *status;
    candidate.error = error_from_json(entry.value("error", Json(nullptr)));
    if (entry.contains("report") && entry["report"].is_object()) {
      candidate.report = entry["report"];
    }
    candidate.dir = entry.value("dir", std::string());
    candidate.gpu = entry.value("gpu", 0);
    candidate.attempts = entry.value("attempts", 0);
    round.candidates.push_back(std::move(candidate));
  }
  return round;
}

Result<void> serve(const ServeSettings& settings) {
  ProfileOptions options = settings.options;
  options.standby = true;
  auto inputs = check_round_inputs(settings.problem, {});
  if (!inputs) {
    return std::move(inputs).error();
  }
  if (auto created = kprof::create_directories(options.out_dir); !created) {
    return created;
  }
  const fs::path path = serve_socket_path(options.out_dir);
  auto address = socket_address(path);
  if (!address) {
    return std::move(address).error();
  }
  if (connect_to(path)) {
    return make_error(ErrorCategory::usage,
                      fmt::format("another kprof serve answers on {}", path.string()));
  }
  std::error_code ec;
  fs::remove(path, ec); // a stale socket of a server that is gone
  auto profiler = KernelProfiler::create(options);
  if (!profiler) {
    return std::move(profiler).error();
  }
  UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!listener ||
      ::bind(listener.get(), reinterpret_cast<const sockaddr*>(&*address), sizeof(*address)) != 0 ||
      ::listen(listener.get(), 16) != 0) {
    return make_error(ErrorCategory::io, fmt::format("kprof serve: cannot listen on {}: {}",
                                                     path.string(), std::strerror(errno)));
  }
  if (auto primed = profiler->prime_standbys(inputs->problem); !primed) {
    fs::remove(path, ec);
    return primed;
  }
  if (settings.log) {
    settings.log(fmt::format("serving {} on {} (stops after {} s idle)", inputs->problem.string(),
                             path.string(), settings.idle_timeout.count()));
  }
  ServeSettings resolved = settings;
  resolved.problem = inputs->problem;
  Server(resolved, std::move(profiler).value(), std::move(listener)).run();
  fs::remove(path, ec);
  return {};
}

Result<std::optional<ServerAnswer>> ask_server(const ProfileOptions& options,
                                               const fs::path& problem,
                                               const std::vector<fs::path>& kernels, int round,
                                               bool batch) {
  const fs::path path = serve_socket_path(options.out_dir);
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return std::optional<ServerAnswer>();
  }
  UniqueFd fd = connect_to(path);
  if (!fd) {
    return std::optional<ServerAnswer>(); // a stale socket: no server
  }
  Json paths = Json::array();
  for (const fs::path& kernel : kernels) {
    paths.push_back(fs::absolute(kernel, ec).lexically_normal().string());
  }
  const Json request{{"version", k_protocol_version},
                     {"fingerprint", serve_fingerprint(options, problem)},
                     {"kernels", std::move(paths)},
                     {"round", round},
                     {"batch", batch}};
  if (auto sent = send_line(fd.get(), json_text(request, -1)); !sent) {
    return sent.error();
  }
  // The server runs the round like profile() would: allow its whole time limit and then some.
  const auto limit = options.timeout * static_cast<long>(std::max<std::size_t>(kernels.size(), 1)) *
                         (options.retries + 1) +
                     std::chrono::minutes(10);
  auto line = receive_line(fd.get(), Clock::now() + limit);
  if (!line) {
    return std::move(line).error();
  }
  const Json reply = Json::parse(*line, nullptr, false);
  if (!reply.is_object()) {
    return make_error(ErrorCategory::malformed_input, "kprof serve answered something else");
  }
  ServerAnswer answer;
  if (!reply.value("accepted", false)) {
    answer.refusal = reply.value("reason", std::string("refused"));
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

} // namespace kprof
