// `kprof mcp`: the MCP server (include/kprof/mcp.hpp).
//
// Design note.
// - Threads: the caller's thread reads the input (poll, so an interrupt is noticed), splits it
//   into lines (LineSplitter: never more than one line's limit in memory) and answers what is
//   quick itself: initialize, ping, the lists, resources/read, errors. Each tools/call runs on a
//   thread of its own, so pings and notifications/cancelled are read while a profile runs. All
//   writes go through Output, one mutex-guarded writer of whole lines.
// - Processes: calls that start processes (profile, batch, report of an .ncu-rep) take the
//   process lane, one at a time. kprof's cancellation (request_cancellation(), the one Ctrl-C
//   uses) is process-wide, so notifications/cancelled for the call in the lane requests it: the
//   running ncu session's process group gets SIGTERM, then SIGKILL, and the profiler returns.
//   Once the call has returned and left the lane, the cancellation is cleared and the next call
//   runs. A cancelled call is not answered (MCP: the client has stopped waiting).
// - Memory: calls that read captures or reports (ToolSpec::reads_files) run in one of a few read
//   slots (McpSettings::read_slots, sized to the host), so however many a client sends at once,
//   only that many captures are held; the others wait (with a progress notification saying so)
//   and a cancelled one stops waiting. A call that runs out of memory anyway (std::bad_alloc)
//   is answered with an out_of_memory tool error; its memory is freed and the server goes on.
// - The end: EOF on the input, a broken output or a signal stops the lane's call and whatever
//   waits for it, waits for every call's thread and stops the standbys, so nothing kprof
//   started is left running. A signal keeps kprof's cancellation set (the CLI then exits 130).
#include "kprof/mcp.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <poll.h>
#include <string>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kprof/files.hpp"
#include "kprof/process.hpp"
#include "kprof/version.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/resources.hpp"
#include "mcp/tools.hpp"

namespace kprof {
namespace mcp {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t k_max_calls_in_flight = 16;
constexpr std::string_view k_latest = k_mcp_protocol_versions[0];

/// Set by the signal handler of serve_mcp_stdio().
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "used from a signal handler");

extern "C" void on_mcp_signal(int /*signal*/) {
  g_interrupted.store(true);
  request_cancellation();
}

/// The one writer of the output: whole lines, one at a time.
class Output {
public:
  explicit Output(int fd) : m_fd(fd) {}

  /// Writes the message as one line; false once the output is broken (the client is gone).
  bool write(const Json& message) {
    const std::string text = wire_text(message);
    const std::lock_guard<std::mutex> hold(m_mutex);
    std::size_t written = 0;
    while (written < text.size() && !m_broken.load()) {
      const ssize_t n = ::write(m_fd, text.data() + written, text.size() - written);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n < 0 && errno == EAGAIN) {
        pollfd ready{m_fd, POLLOUT, 0};
        (void)::poll(&ready, 1, 100);
        continue;
      }
      if (n <= 0) {
        m_broken.store(true);
        break;
      }
      written += static_cast<std::size_t>(n);
    }
    return !m_broken.load();
  }

  [[nodiscard]] bool broken() const { return m_broken.load(); }

private:
  int m_fd;
  std::mutex m_mutex;
  std::atomic<bool> m_broken{false};
};

/// One tools/call in flight.
struct Call {
  std::string key; ///< the request's id as JSON text: the map key, parsed back for the answer
  std::string tool;
  std::string version;        ///< the protocol version its answer is written in
  std::string progress_token; ///< as JSON text; empty: the client asked for no progress
  std::atomic<bool> cancelled{false};
  std::atomic<std::int64_t> progress_count{0};
  Clock::time_point started = Clock::now();
  std::thread thread;
};

/// Where the answer of one request goes: the output, or the answers of its batch. nullopt:
/// nothing to answer (a cancelled call), which still counts for a batch.
using Reply = std::function<void(std::optional<Json>)>;

/// The answers of a batch line, written as one array once the last arrived.
class BatchAnswers {
public:
  BatchAnswers(Output& out, std::size_t expected) : m_out(out), m_expected(expected) {}

  void add(std::optional<Json> answer) {
    Json all;
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      if (answer) {
        m_answers.push_back(std::move(*answer));
      }
      if (++m_arrived < m_expected || m_answers.empty()) {
        return;
      }
      all = std::move(m_answers);
    }
    m_out.write(all);
  }

private:
  Output& m_out;
  std::mutex m_mutex;
  std::size_t m_expected;
  std::size_t m_arrived = 0;
  Json m_answers = Json::array();
};

/// One call at a time runs processes (see the design note).
class ProcessLane {
public:
  /// Runs `work` once the lane is free; false (work not run) when `call` was cancelled or the
  /// server closed first.
  bool run(Call& call, const std::function<void()>& work) {
    {
      std::unique_lock<std::mutex> hold(m_mutex);
      m_ready.wait(hold, [&] { return m_owner == nullptr || call.cancelled.load() || m_closed; });
      if (call.cancelled.load() || m_closed) {
        call.cancelled.store(true);
        return false;
      }
      m_owner = &call;
    }
    work();
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      m_owner = nullptr;
      if (m_cancel_issued) {
        m_cancel_issued = false;
        if (!m_closed && !g_interrupted.load()) {
          clear_cancellation(); // the cancelled call has returned: the next one runs
        }
      }
    }
    m_ready.notify_all();
    return true;
  }

  /// notifications/cancelled for `call`: stops its processes when it holds the lane, or its
  /// wait for the lane.
  void cancel(Call& call) {
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      call.cancelled.store(true);
      if (m_owner == &call && !m_cancel_issued) {
        m_cancel_issued = true;
        request_cancellation();
      }
    }
    m_ready.notify_all();
  }

  /// The end: stops the running call's processes and every wait.
  void close() {
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      m_closed = true;
      if (m_owner != nullptr) {
        m_owner->cancelled.store(true);
        m_cancel_issued = true;
        request_cancellation();
      }
    }
    m_ready.notify_all();
  }

private:
  std::mutex m_mutex;
  std::condition_variable m_ready;
  Call* m_owner = nullptr;
  bool m_cancel_issued = false;
  bool m_closed = false;
};

/// The read slots (see the design note): `run` waits for a free one, runs the work in it and
/// frees it, also when the work throws.
class ReadSlots {
public:
  explicit ReadSlots(std::size_t count) : m_free(std::max<std::size_t>(count, 1)) {}

  /// Runs `work` in a slot once one is free; `waiting` is called first when none is. False
  /// (work not run) when `call` was cancelled or the server closed while it waited.
  bool run(Call& call, const std::function<void()>& work, const std::function<void()>& waiting) {
    {
      std::unique_lock<std::mutex> hold(m_mutex);
      if (m_free == 0) {
        hold.unlock();
        waiting();
        hold.lock();
      }
      m_ready.wait(hold, [&] { return m_free > 0 || call.cancelled.load() || m_closed; });
      if (call.cancelled.load() || m_closed) {
        call.cancelled.store(true);
        return false;
      }
      --m_free;
    }
    try {
      work();
    } catch (...) {
      release();
      throw; // not swallowed: the slot is free again, the caller sees the exception
    }
    release();
    return true;
  }

  /// A call was cancelled: its wait, if it waits, ends.
  void wake() {
    { const std::lock_guard<std::mutex> hold(m_mutex); }
    m_ready.notify_all();
  }

  /// The end: every wait ends.
  void close() {
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      m_closed = true;
    }
    m_ready.notify_all();
  }

private:
  void release() {
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      ++m_free;
    }
    m_ready.notify_all();
  }

  std::mutex m_mutex;
  std::condition_variable m_ready;
  std::size_t m_free;
  bool m_closed = false;
};

/// Progress notifications every few seconds while a call runs processes and has nothing new to
/// say, so a client that restarts its timeout on progress keeps waiting.
class Heartbeat {
public:
  Heartbeat(std::chrono::seconds every, std::function<void(double)> beat)
      : m_thread([this, every, beat = std::move(beat)] {
          const Clock::time_point start = Clock::now();
          std::unique_lock<std::mutex> hold(m_mutex);
          while (!m_done) {
            if (m_stop.wait_for(hold, every, [&] { return m_done; })) {
              break;
            }
            hold.unlock();
            beat(std::chrono::duration<double>(Clock::now() - start).count());
            hold.lock();
          }
        }) {}
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;
  Heartbeat(Heartbeat&&) = delete;
  Heartbeat& operator=(Heartbeat&&) = delete;
  ~Heartbeat() {
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      m_done = true;
    }
    m_stop.notify_all();
    m_thread.join();
  }

private:
  std::mutex m_mutex;
  std::condition_variable m_stop;
  bool m_done = false;
  std::thread m_thread; ///< last: starts once the members above exist
};

bool batches_allowed(std::string_view version) {
  return !version.empty() && version != "2025-06-18"; // 2025-06-18 removed JSON-RPC batches
}

std::string method_list() {
  return "initialize, ping, tools/list, tools/call, resources/list, resources/read, "
         "resources/templates/list";
}

constexpr std::string_view k_instructions =
    "kprof profiles Triton and CUDA kernels with Nsight Compute and answers with facts an "
    "optimizer can act on. profile runs one kernel_file on a problem_file (batch: several "
    "candidates, ranked); report reads an existing capture or report.json; history and diff "
    "follow a run directory across rounds and say when to stop; hot_lines and diagnosis give "
    "one round's per-line facts and what to fix first. Each answer is cut to token_budget "
    "tokens per candidate; the whole report.json and the round's files are resources "
    "(resources/read) when more is needed. Relative paths are relative to the server's working "
    "directory.";

class Server;

class CallContext final : public ToolContext {
public:
  CallContext(Server& server, Call& call) : m_server(server), m_call(call) {}
  void progress(const std::string& message) override;
  bool in_process_lane(const std::function<void()>& work) override;
  [[nodiscard]] bool cancelled() const override { return m_call.cancelled.load(); }
  Resources& resources() override;
  ProfilerCache& profilers() override;
  [[nodiscard]] const McpSettings& settings() const override;

private:
  Server& m_server;
  Call& m_call;
};

class Server {
public:
  Server(const McpSettings& settings, Output& out)
      : m_settings(settings), m_out(out),
        m_read_slots(settings.read_slots > 0 ? settings.read_slots : mcp_read_slots_for_host()),
        m_slots(m_read_slots) {}
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  Server(Server&&) = delete;
  Server& operator=(Server&&) = delete;
  ~Server() { shutdown(); }

  void on_line(const InputLine& line) {
    if (line.too_long) {
      m_out.write(rpc_error(nullptr, RpcCode::invalid_request,
                            fmt::format("the message is longer than {} bytes, the most kprof mcp "
                                        "reads; it was skipped",
                                        m_settings.max_message_bytes)));
      return;
    }
    ParsedLine parsed = parse_line(line.text);
    if (!parsed.batch) {
      dispatch(parsed.messages.front(), [this](std::optional<Json> answer) {
        if (answer) {
          m_out.write(*answer);
        }
      });
      return;
    }
    if (!batches_allowed(version())) {
      m_out.write(rpc_error(nullptr, RpcCode::invalid_request,
                            fmt::format("JSON-RPC batches are not part of MCP {}; send one "
                                        "message per line",
                                        version().empty() ? k_latest : version())));
      return;
    }
    std::size_t expected = 0;
    for (const Message& message : parsed.messages) {
      expected +=
          message.kind == MessageKind::request || message.kind == MessageKind::invalid ? 1U : 0U;
    }
    auto answers = std::make_shared<BatchAnswers>(m_out, expected);
    for (const Message& message : parsed.messages) {
      if (message.kind == MessageKind::request && message.method == "initialize") {
        answers->add(rpc_error(message.id, RpcCode::invalid_request,
                               "initialize must not be part of a batch"));
        continue;
      }
      dispatch(message, [answers, counted = message.kind == MessageKind::request ||
                                            message.kind ==
                                                MessageKind::invalid](std::optional<Json> answer) {
        if (counted) {
          answers->add(std::move(answer));
        }
      });
    }
  }

  /// Joins the threads of the calls that have finished.
  void reap() {
    std::vector<std::shared_ptr<Call>> finished;
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      finished.swap(m_finished);
    }
    for (const auto& call : finished) {
      if (call->thread.joinable()) {
        call->thread.join();
      }
    }
  }

  /// Stops what runs, waits for every call and stops the standbys. Idempotent.
  void shutdown() {
    m_lane.close();
    m_slots.close();
    std::vector<std::shared_ptr<Call>> running;
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      for (const auto& [key, call] : m_calls) {
        running.push_back(call);
      }
    }
    for (const auto& call : running) {
      if (call->thread.joinable()) {
        call->thread.join();
      }
    }
    reap();
    m_profilers.clear();
  }

  void notify_progress(Call& call, const std::string& message) {
    if (call.progress_token.empty() || call.cancelled.load()) {
      return;
    }
    Json params{{"progressToken", Json::parse(call.progress_token)},
                {"progress", ++call.progress_count}};
    if (call.version != "2024-11-05") {
      params["message"] = message; // added in 2025-03-26
    }
    m_out.write(rpc_notification("notifications/progress", std::move(params)));
    log(fmt::format("{}: {}", call.tool, message));
  }

  bool in_lane(Call& call, const std::function<void()>& work) {
    if (call.progress_token.empty()) {
      return m_lane.run(call, work);
    }
    return m_lane.run(call, [&] {
      const Heartbeat heartbeat(
          std::chrono::seconds(std::max(m_settings.heartbeat_seconds, 1)), [&](double seconds) {
            notify_progress(call, fmt::format("{}: running for {:.0f} s", call.tool, seconds));
          });
      work();
    });
  }

  Resources& resources() { return m_resources; }
  ProfilerCache& profilers() { return m_profilers; }
  [[nodiscard]] const McpSettings& settings() const { return m_settings; }

private:
  void log(const std::string& line) const {
    if (m_settings.log) {
      m_settings.log(line);
    }
  }

  std::string version() {
    const std::lock_guard<std::mutex> hold(m_mutex);
    return m_version;
  }

  void dispatch(const Message& message, const Reply& reply) {
    switch (message.kind) {
    case MessageKind::invalid:
      reply(rpc_error(message.id, message.error_code, message.error_message));
      return;
    case MessageKind::response:
      reply(std::nullopt); // kprof sends no requests; an answer to none is dropped
      return;
    case MessageKind::notification:
      notification(message);
      reply(std::nullopt);
      return;
    case MessageKind::request:
      request(message, reply);
      return;
    }
  }

  void notification(const Message& message) {
    if (message.method == "notifications/cancelled") {
      const Json id = message.params.value("requestId", Json(nullptr));
      std::shared_ptr<Call> call;
      {
        const std::lock_guard<std::mutex> hold(m_mutex);
        if (const auto found = m_calls.find(id.dump()); found != m_calls.end()) {
          call = found->second;
        }
      }
      if (call) {
        log(fmt::format("{} (id {}): cancelled by the client", call->tool, call->key));
        m_lane.cancel(*call);
        m_slots.wake();
      }
    }
    // notifications/initialized and the rest need nothing.
  }

  void request(const Message& message, const Reply& reply) {
    const std::string& method = message.method;
    if (method == "initialize") {
      reply(rpc_result(message.id, initialize(message.params)));
    } else if (method == "ping") {
      reply(rpc_result(message.id, Json::object()));
    } else if (method == "tools/list") {
      reply(rpc_result(message.id, tools_list()));
    } else if (method == "tools/call") {
      call_tool(message, reply);
    } else if (method == "resources/list") {
      const Json cursor = message.params.value("cursor", Json(nullptr));
      reply(answer(message.id, m_resources.list(cursor.is_string() ? cursor.get<std::string>()
                                                                   : std::string())));
    } else if (method == "resources/read") {
      const Json uri = message.params.value("uri", Json(nullptr));
      if (!uri.is_string()) {
        reply(rpc_error(message.id, RpcCode::invalid_params,
                        "resources/read needs params.uri, a string"));
        return;
      }
      reply(answer(message.id, m_resources.read(uri.get<std::string>())));
    } else if (method == "resources/templates/list") {
      reply(rpc_result(message.id, Json{{"resourceTemplates", Json::array()}}));
    } else {
      reply(rpc_error(
          message.id, RpcCode::method_not_found,
          fmt::format("method '{}' not found (kprof mcp serves: {})", method, method_list())));
    }
  }

  static Json answer(const Json& id, std::variant<Json, RpcFailure> outcome) {
    if (auto* failure = std::get_if<RpcFailure>(&outcome)) {
      return rpc_error(id, failure->code, failure->message);
    }
    return rpc_result(id, std::move(std::get<Json>(outcome)));
  }

  Json initialize(const Json& params) {
    const Json asked = params.value("protocolVersion", Json(nullptr));
    std::string version(k_latest);
    for (const std::string_view known : k_mcp_protocol_versions) {
      if (asked.is_string() && asked.get<std::string>() == known) {
        version = known;
      }
    }
    const Json client = params.value("clientInfo", Json::object());
    log(fmt::format("client {} {} asked for protocol {}; speaking {}",
                    client.is_object() ? client.value("name", "?") : "?",
                    client.is_object() ? client.value("version", "") : "",
                    asked.is_string() ? asked.get<std::string>() : "(none)", version));
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      m_version = version;
    }
    Json info{{"name", "kprof"}, {"version", std::string(k_version)}};
    if (version == "2025-06-18") {
      info["title"] = "kprof: Nsight Compute profiles of Triton and CUDA kernels";
    }
    return Json{
        {"protocolVersion", version},
        {"capabilities", Json{{"tools", Json{{"listChanged", false}}},
                              {"resources", Json{{"subscribe", false}, {"listChanged", false}}}}},
        {"serverInfo", std::move(info)},
        {"instructions", k_instructions}};
  }

  Json tools_list() {
    const std::string speaking = version().empty() ? std::string(k_latest) : version();
    Json tools = Json::array();
    for (const ToolSpec& tool : tool_specs()) {
      Json entry{{"name", tool.name}};
      if (speaking == "2025-06-18") {
        entry["title"] = tool.title;
      }
      entry["description"] = tool.description;
      entry["inputSchema"] = tool.input_schema;
      if (speaking == "2025-06-18") {
        entry["outputSchema"] = tool.output_schema;
      }
      if (speaking != "2024-11-05") {
        entry["annotations"] = Json{{"title", tool.title},
                                    {"readOnlyHint", tool.read_only},
                                    {"destructiveHint", false},
                                    {"idempotentHint", tool.read_only},
                                    {"openWorldHint", false}};
      }
      tools.push_back(std::move(entry));
    }
    return Json{{"tools", std::move(tools)}};
  }

  void call_tool(const Message& message, const Reply& reply) {
    const Json name = message.params.value("name", Json(nullptr));
    if (!name.is_string()) {
      reply(
          rpc_error(message.id, RpcCode::invalid_params, "tools/call needs params.name, a string"));
      return;
    }
    const ToolSpec* tool = find_tool(name.get<std::string>());
    if (tool == nullptr) {
      std::string valid;
      for (const ToolSpec& each : tool_specs()) {
        valid += (valid.empty() ? "" : ", ") + each.name;
      }
      reply(
          rpc_error(message.id, RpcCode::invalid_params,
                    fmt::format("unknown tool '{}' (valid: {})", name.get<std::string>(), valid)));
      return;
    }
    Json arguments = message.params.value("arguments", Json::object());
    if (arguments.is_null()) {
      arguments = Json::object();
    }
    if (auto checked = check_arguments(*tool, arguments); !checked) {
      const Error& error = checked.error();
      reply(rpc_error(
          message.id, RpcCode::invalid_params, error.message,
          Json{{"category", to_string(error.category)}, {"exit_code", exit_code(error.category)}}));
      return;
    }
    auto call = std::make_shared<Call>();
    call->key = message.id.dump();
    call->tool = tool->name;
    if (const Json meta = message.params.value("_meta", Json(nullptr)); meta.is_object()) {
      const Json token = meta.value("progressToken", Json(nullptr));
      if (token.is_string() || token.is_number_integer() || token.is_number_unsigned()) {
        call->progress_token = token.dump();
      }
    }
    const std::lock_guard<std::mutex> hold(m_mutex);
    call->version = m_version.empty() ? std::string(k_latest) : m_version;
    if (m_calls.contains(call->key)) {
      reply(rpc_error(message.id, RpcCode::invalid_request,
                      fmt::format("id {} belongs to a call still in flight", call->key)));
      return;
    }
    if (m_calls.size() >= k_max_calls_in_flight) {
      reply(rpc_error(message.id, RpcCode::server_busy,
                      fmt::format("{} calls are in flight, the most kprof mcp runs at once; "
                                  "send this one again after an answer",
                                  k_max_calls_in_flight)));
      return;
    }
    m_calls.emplace(call->key, call);
    call->thread = std::thread([this, call, tool, arguments = std::move(arguments), reply] {
      run_call(call, *tool, arguments, reply);
    });
  }

  void run_call(const std::shared_ptr<Call>& call, const ToolSpec& tool, const Json& arguments,
                const Reply& reply) {
    CallContext context(*this, *call);
    ToolResult result;
    const auto run = [&] {
      try {
        result = tool.run(arguments, context);
      } catch (const std::exception& e) {
        // out_of_memory for std::bad_alloc: what the call held is freed by now.
        result = error_result(
            error_from_exception(e).with_context(fmt::format("the {} call", call->tool)));
      }
    };
    if (tool.reads_files) {
      (void)m_slots.run(*call, run, [&] {
        notify_progress(*call, fmt::format("waiting: {} calls read files at once, the most this "
                                           "server runs; this one starts when one ends",
                                           m_read_slots));
      });
    } else {
      run();
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - call->started).count();
    bool cancelled = false;
    {
      const std::lock_guard<std::mutex> hold(m_mutex);
      cancelled = call->cancelled.load();
      m_calls.erase(call->key); // the id is free before the answer arrives
      m_finished.push_back(call);
    }
    log(fmt::format("{} (id {}): {} in {:.1f} s", call->tool, call->key,
                    cancelled         ? std::string("cancelled")
                    : result.is_error ? "error: " + result.text.substr(0, result.text.find('\n'))
                                      : std::string("done"),
                    seconds));
    if (cancelled) {
      reply(std::nullopt);
      return;
    }
    std::optional<Json> answer;
    try {
      answer = rpc_result(Json::parse(call->key), result_json(result, call->version));
    } catch (const std::exception& e) {
      // The answer itself did not fit in memory: say so in a few bytes instead.
      answer.reset();
      result = error_result(error_from_exception(e).with_context(
          fmt::format("the answer of the {} call", call->tool)));
      answer = rpc_result(Json::parse(call->key), result_json(result, call->version));
    }
    reply(std::move(answer));
  }

  static Json result_json(const ToolResult& result, const std::string& version) {
    Json content = Json::array({Json{{"type", "text"}, {"text", result.text}}});
    Json out = Json::object();
    if (version == "2025-06-18") {
      for (const ResourceLink& link : result.links) {
        content.push_back(Json{{"type", "resource_link"},
                               {"uri", link.uri},
                               {"name", link.name},
                               {"description", link.description},
                               {"mimeType", link.mime_type}});
      }
      out["content"] = std::move(content);
      out["structuredContent"] = result.structured;
    } else {
      out["content"] = std::move(content);
    }
    out["isError"] = result.is_error;
    return out;
  }

  const McpSettings& m_settings;
  Output& m_out;
  std::mutex m_mutex; ///< m_calls, m_finished, m_version
  std::map<std::string, std::shared_ptr<Call>> m_calls;
  std::vector<std::shared_ptr<Call>> m_finished;
  std::string m_version;
  Resources m_resources;
  ProfilerCache m_profilers;
  ProcessLane m_lane;
  std::size_t m_read_slots;
  ReadSlots m_slots;
};

void CallContext::progress(const std::string& message) {
  m_server.notify_progress(m_call, message);
}
bool CallContext::in_process_lane(const std::function<void()>& work) {
  return m_server.in_lane(m_call, work);
}
Resources& CallContext::resources() {
  return m_server.resources();
}
ProfilerCache& CallContext::profilers() {
  return m_server.profilers();
}
const McpSettings& CallContext::settings() const {
  return m_server.settings();
}

} // namespace
} // namespace mcp

void serve_mcp(const McpSettings& settings, int in_fd, int out_fd) {
  using namespace kprof::mcp;
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGPIPE, &ignore, nullptr); // a closed output is an EPIPE, not a death
  Output out(out_fd);
  Server server(settings, out);
  LineSplitter splitter(settings.max_message_bytes);
  const auto on_line = [&server](const InputLine& line) { server.on_line(line); };
  std::array<char, 65536> buffer{};
  while (!g_interrupted.load() && !out.broken()) {
    pollfd ready{in_fd, POLLIN, 0};
    const int polled = ::poll(&ready, 1, 200);
    server.reap();
    if (polled < 0 && errno == EINTR) {
      continue;
    }
    if (polled < 0 || (ready.revents & POLLNVAL) != 0) {
      break;
    }
    if (polled == 0) {
      continue;
    }
    const ssize_t n = ::read(in_fd, buffer.data(), buffer.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
      continue;
    }
    if (n <= 0) {
      break; // the client closed its end
    }
    splitter.feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)), on_line);
  }
  if (!g_interrupted.load() && !out.broken()) {
    splitter.finish(on_line);
  }
  server.shutdown();
  if (g_interrupted.load()) {
    request_cancellation(); // the CLI says "interrupted" and exits 130
  } else {
    clear_cancellation();
  }
}

std::size_t mcp_read_slots_for_host() {
  constexpr std::uint64_t k_bytes_per_slot = std::uint64_t{2} << 30U;
  constexpr std::size_t k_most = mcp::k_max_calls_in_flight;
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  std::uint64_t memory = pages > 0 && page_size > 0 ? static_cast<std::uint64_t>(pages) *
                                                          static_cast<std::uint64_t>(page_size)
                                                    : k_bytes_per_slot;
  // A cgroup (a container, a Slurm job) may allow less than the machine has.
  if (auto limit = read_file("/sys/fs/cgroup/memory.max"); limit) {
    std::uint64_t bytes = 0;
    const std::string& text = *limit;
    const auto parsed = std::from_chars(text.data(), text.data() + text.size(), bytes);
    if (parsed.ec == std::errc() && bytes > 0) {
      memory = std::min(memory, bytes);
    }
  }
  const std::size_t cores = std::max(1U, std::thread::hardware_concurrency());
  const auto by_memory = static_cast<std::size_t>(memory / k_bytes_per_slot);
  return std::clamp<std::size_t>(std::min(cores, by_memory), 1, k_most);
}

Result<void> serve_mcp_stdio(const McpSettings& settings) {
  // The protocol's descriptors, private and close-on-exec; /dev/null and stderr in their place,
  // so that no printf and no child can write into (or read from) the stream.
  const int in_fd = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
  const int out_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (in_fd < 0 || out_fd < 0 || null_fd < 0 || ::dup2(null_fd, STDIN_FILENO) < 0 ||
      ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    return make_error(ErrorCategory::io, fmt::format("kprof mcp: cannot set up standard input "
                                                     "and output: {}",
                                                     std::strerror(errno)));
  }
  ::close(null_fd);
  struct sigaction action {};
  action.sa_handler = mcp::on_mcp_signal;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
  serve_mcp(settings, in_fd, out_fd);
  ::close(in_fd);
  ::close(out_fd);
  return {};
}

} // namespace kprof
