// The MCP server of `kprof mcp` in this process, over a pair of pipes: the protocol's answers,
// its errors, the option table's refusals, the report tool against recorded captures, resources,
// and random input that must never crash it or stop it from answering.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "kprof/analysis.hpp"
#include "kprof/files.hpp"
#include "kprof/mcp.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/options.hpp"
#include "kprof/process.hpp"
#include "kprof/report.hpp"
#include "kprof/round_layout.hpp"
#include "kprof/source_page.hpp"
#include "mcp/resources.hpp"
#include "unit/many_launches.hpp"

namespace kprof {
namespace {
namespace fs = std::filesystem;

const fs::path k_fixtures = fs::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1";

/// serve_mcp() on a thread, fed and read through pipes.
class TestServer {
public:
  explicit TestServer(McpSettings settings = {}) : m_settings(std::move(settings)) {
    int in[2];
    int out[2];
    KPROF_ASSERT(::pipe2(in, O_CLOEXEC) == 0 && ::pipe2(out, O_CLOEXEC) == 0);
    m_to_server = in[1];
    m_from_server = out[0];
    m_thread = std::thread([this, server_in = in[0], server_out = out[1]] {
      serve_mcp(m_settings, server_in, server_out);
      ::close(server_in);
      ::close(server_out);
    });
  }
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;
  TestServer(TestServer&&) = delete;
  TestServer& operator=(TestServer&&) = delete;
  ~TestServer() {
    close_input();
    m_thread.join();
    ::close(m_from_server);
  }

  void send_line(const std::string& line) {
    const std::string text = line + "\n";
    std::size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = ::write(m_to_server, text.data() + written, text.size() - written);
      ASSERT_GT(n, 0);
      written += static_cast<std::size_t>(n);
    }
  }
  void send(const Json& message) { send_line(message.dump()); }
  void send(const char* line) { send_line(line); }
  void send(const std::string& line) { send_line(line); }

  /// The next line the server writes (parsed), or null after `timeout`.
  Json receive(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (m_buffer.find('\n') == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd ready{m_from_server, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&ready, 1, static_cast<int>(left.count())) <= 0) {
        return Json();
      }
      char chunk[65536];
      const ssize_t n = ::read(m_from_server, chunk, sizeof(chunk));
      if (n <= 0) {
        return Json();
      }
      m_buffer.append(chunk, static_cast<std::size_t>(n));
    }
    const std::string line = m_buffer.substr(0, m_buffer.find('\n'));
    m_buffer.erase(0, line.size() + 1);
    Json parsed = Json::parse(line, nullptr, false);
    EXPECT_FALSE(parsed.is_discarded()) << "not JSON: " << line;
    return parsed;
  }

  /// Sends a request and returns its answer (notifications in between are skipped).
  Json request(const std::string& method, Json params = Json::object()) {
    const int id = ++m_next_id;
    send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    for (int i = 0; i < 1000; ++i) {
      Json answer = receive();
      if (answer.is_null() || (answer.contains("id") && answer["id"] == id)) {
        return answer;
      }
    }
    return Json();
  }

  Json initialize(const std::string& version = "2025-06-18") {
    Json answer = request("initialize", Json{{"protocolVersion", version},
                                             {"capabilities", Json::object()},
                                             {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
    send(Json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    return answer;
  }

  Json call(const std::string& tool, Json arguments) {
    return request("tools/call", Json{{"name", tool}, {"arguments", std::move(arguments)}});
  }

  void close_input() {
    if (m_to_server >= 0) {
      ::close(m_to_server);
      m_to_server = -1;
    }
  }

private:
  McpSettings m_settings;
  int m_to_server = -1;
  int m_from_server = -1;
  std::string m_buffer;
  int m_next_id = 0;
  std::thread m_thread;
};

std::string text_of(const Json& answer) {
  return answer["result"]["content"][0]["text"].get<std::string>();
}

/// The report document `kprof report FILE` builds (default set, select all).
Json cli_report(const fs::path& file) {
  Result<Capture> capture = read_ncu_csv_file(file);
  KPROF_ASSERT(capture.ok());
  Result<Analysis> analysis = analyse(*capture, SelectOptions{});
  KPROF_ASSERT(analysis.ok());
  Result<MetricSet> set = resolve_metric_set("default", MetricSetUse::read);
  KPROF_ASSERT(set.ok());
  return build_report(*capture, *analysis, *set, Json{{"select", "all"}});
}

// The server stops a cancelled call's processes with request_cancellation() and ends that
// cancellation once the call returned.
TEST(ClearCancellation, LetsTheNextChildRunAfterACancelledOne) {
  ProcessSpec spec;
  spec.argv = {std::string(KPROF_STANDINS_DIR) + "/sleep_then_exit", "30"};
  spec.kill_grace = std::chrono::milliseconds(200);
  request_cancellation();
  const auto started = std::chrono::steady_clock::now();
  Result<ProcessResult> stopped = run_process(spec);
  ASSERT_TRUE(stopped.ok());
  EXPECT_TRUE(stopped->cancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  clear_cancellation();
  EXPECT_FALSE(cancellation_requested());
  spec.argv = {std::string(KPROF_STANDINS_DIR) + "/exit_code", "0"};
  Result<ProcessResult> ran = run_process(spec);
  ASSERT_TRUE(ran.ok());
  EXPECT_FALSE(ran->cancelled);
  EXPECT_TRUE(ran->succeeded());
}

TEST(McpServer, AnswersTheProtocolVersionTheClientAsksForWhenItKnowsIt) {
  for (const std::string_view version : k_mcp_protocol_versions) {
    TestServer server;
    const Json answer = server.initialize(std::string(version));
    EXPECT_EQ(answer["result"]["protocolVersion"], version);
    EXPECT_EQ(answer["result"]["serverInfo"]["name"], "kprof");
    EXPECT_TRUE(answer["result"]["capabilities"].contains("tools"));
    EXPECT_TRUE(answer["result"]["capabilities"].contains("resources"));
  }
  TestServer server;
  EXPECT_EQ(server.initialize("2099-01-01")["result"]["protocolVersion"], "2025-06-18");
}

TEST(McpServer, ListsOutputSchemasOnlyIn20250618AndAnnotationsFrom20250326) {
  for (const std::string_view version : k_mcp_protocol_versions) {
    TestServer server;
    server.initialize(std::string(version));
    const Json tools = server.request("tools/list")["result"]["tools"];
    ASSERT_EQ(tools.size(), 8U) << version;
    for (const Json& tool : tools) {
      EXPECT_EQ(tool["inputSchema"]["type"], "object");
      EXPECT_EQ(tool.contains("outputSchema"), version == "2025-06-18") << tool["name"];
      EXPECT_EQ(tool.contains("title"), version == "2025-06-18") << tool["name"];
      EXPECT_EQ(tool.contains("annotations"), version != "2024-11-05") << tool["name"];
    }
  }
}

TEST(McpServer, TakesTheProfileOptionsOfTheTableAsArguments) {
  TestServer server;
  server.initialize();
  const Json tools = server.request("tools/list")["result"]["tools"];
  for (const Json& tool : tools) {
    if (tool["name"] != "profile" && tool["name"] != "batch") {
      continue;
    }
    const unsigned scope = tool["name"] == "profile" ? k_scope_profile : k_scope_batch;
    const Json& properties = tool["inputSchema"]["properties"];
    for (const OptionSpec& spec : option_specs()) {
      const bool server_level = spec.name == "ncu" || spec.name == "python" ||
                                spec.name == "use_sudo" || spec.name == "standby" ||
                                spec.name == "standby_idle_seconds" ||
                                spec.name == "keep_ncu_report";
      EXPECT_EQ(properties.contains(std::string(spec.name)),
                (spec.scopes & scope) != 0U && !server_level)
          << tool["name"] << " " << spec.name;
    }
    EXPECT_EQ(properties["cast"]["enum"], Json::array({"none", "auto", "bf16", "fp16", "fp32"}));
    EXPECT_EQ(properties["timeout"]["minimum"], 1);
  }
}

TEST(McpServer, AnswersInvalidJsonWithAParseErrorAndGoesOn) {
  TestServer server;
  server.initialize();
  server.send("{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": \"ping\"");
  const Json error = server.receive();
  EXPECT_EQ(error["error"]["code"], -32700);
  EXPECT_TRUE(error["id"].is_null());
  EXPECT_TRUE(server.request("ping")["result"].is_object());
}

TEST(McpServer, AnswersALineOverTheLimitAndReadsTheNextOne) {
  McpSettings settings;
  settings.max_message_bytes = 4096;
  TestServer server(settings);
  server.initialize();
  server.send(Json{{"jsonrpc", "2.0"},
                   {"id", 77},
                   {"method", "ping"},
                   {"params", {{"padding", std::string(10000, 'x')}}}});
  const Json error = server.receive();
  EXPECT_EQ(error["error"]["code"], -32600);
  EXPECT_NE(error["error"]["message"].get<std::string>().find("4096 bytes"), std::string::npos);
  EXPECT_TRUE(server.request("ping")["result"].is_object());
}

TEST(McpServer, AnswersAnUnknownMethodWithMethodNotFound) {
  TestServer server;
  server.initialize();
  const Json answer = server.request("prompts/list");
  EXPECT_EQ(answer["error"]["code"], -32601);
  EXPECT_NE(answer["error"]["message"].get<std::string>().find("tools/call"), std::string::npos);
}

TEST(McpServer, RefusesAWrongArgumentTypeInTheOptionTablesWords) {
  TestServer server;
  server.initialize();
  const Json answer = server.call(
      "profile", Json{{"kernel_file", "k.py"}, {"problem_file", "p.py"}, {"timeout", "60"}});
  EXPECT_EQ(answer["error"]["code"], -32602);
  const Result<void> table = check_option_types(Json{{"timeout", "60"}}, OptionContext{});
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(answer["error"]["message"], table.error().message);
  EXPECT_EQ(answer["error"]["data"]["category"], "usage");
  EXPECT_EQ(answer["error"]["data"]["exit_code"], 2);

  const Json unknown = server.call("report", Json{{"path", "x.csv"}, {"colour", true}});
  EXPECT_EQ(unknown["error"]["code"], -32602);
  EXPECT_NE(unknown["error"]["message"].get<std::string>().find("unknown argument 'colour'"),
            std::string::npos);
  const Json missing = server.call("report", Json::object());
  EXPECT_EQ(missing["error"]["code"], -32602);
  const Json no_tool = server.call("optimize", Json::object());
  EXPECT_EQ(no_tool["error"]["code"], -32602);
  const Json not_object = server.request("tools/call", Json{{"name", "report"}, {"arguments", 3}});
  EXPECT_EQ(not_object["error"]["code"], -32602);
}

TEST(McpServer, RefusesAValueTheCliRefusesAsAToolErrorWithItsExitCode) {
  TestServer server;
  server.initialize();
  const Json answer = server.call(
      "profile", Json{{"kernel_file", "k.py"}, {"problem_file", "p.py"}, {"timeout", 0}});
  ASSERT_TRUE(answer.contains("result")) << answer.dump();
  EXPECT_TRUE(answer["result"]["isError"].get<bool>());
  const auto table = parse_run_options(Json{{"timeout", 0}}, OptionContext{});
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(answer["result"]["structuredContent"]["error"]["message"], table.error().message);
  EXPECT_EQ(answer["result"]["structuredContent"]["error"]["exit_code"], 2);
  EXPECT_NE(text_of(answer).find(table.error().message), std::string::npos);

  const Json word = server.call(
      "batch", Json{{"problem_file", "p.py"}, {"kernel_files", {"k.py"}}, {"cast", "fp64"}});
  EXPECT_NE(text_of(word).find("unknown cast 'fp64' (valid: none, auto, bf16, fp16, fp32)"),
            std::string::npos)
      << text_of(word);
}

TEST(McpServer, RefusesANulByteInAnyPathUpFrontAsInvalidParams) {
  TestServer server;
  server.initialize();
  const std::string nul("kernel\0.py", 10);
  const std::vector<std::pair<std::string, Json>> calls{
      {"profile", Json{{"kernel_file", nul}, {"problem_file", "p.py"}}},
      {"profile", Json{{"kernel_file", "k.py"}, {"problem_file", nul}}},
      {"profile", Json{{"kernel_file", "k.py"}, {"problem_file", "p.py"}, {"out_dir", nul}}},
      {"batch", Json{{"problem_file", "p.py"}, {"kernel_files", Json::array({"k.py", nul})}}},
      {"report", Json{{"path", nul}}},
      {"report", Json{{"path", "capture.csv"}, {"source_page", nul}}},
      {"diff", Json{{"a", nul}, {"b", "b.json"}}},
      {"history", Json{{"dir", nul}}},
      {"hot_lines", Json{{"report", nul}}},
      {"diagnosis", Json{{"dir", nul}, {"round", 1}}},
  };
  for (const auto& [tool, arguments] : calls) {
    const Json answer = server.call(tool, arguments);
    ASSERT_TRUE(answer.contains("error")) << tool << ": " << answer.dump();
    EXPECT_EQ(answer["error"]["code"], -32602) << tool;
    const std::string message = answer["error"]["message"].get<std::string>();
    EXPECT_NE(message.find("holds a NUL byte after '"), std::string::npos)
        << tool << ": " << message;
    EXPECT_EQ(answer["error"]["data"]["category"], "usage") << tool;
  }
  const Json batch = server.call(
      "batch", Json{{"problem_file", "p.py"}, {"kernel_files", Json::array({"k.py", nul})}});
  EXPECT_NE(batch["error"]["message"].get<std::string>().find("kernel_files[1] holds a NUL byte"),
            std::string::npos)
      << batch.dump();
}

TEST(McpServer, RefusesAnEmptyOutDirAsAUsageErrorSayingItMayNotBeEmpty) {
  TestServer server;
  server.initialize();
  for (const std::string tool : {"profile", "batch"}) {
    const Json arguments =
        tool == "profile" ? Json{{"kernel_file", "k.py"}, {"problem_file", "p.py"}, {"out_dir", ""}}
                          : Json{{"problem_file", "p.py"},
                                 {"kernel_files", Json::array({"k.py"})},
                                 {"out_dir", ""}};
    const Json answer = server.call(tool, arguments);
    ASSERT_TRUE(answer.contains("result")) << answer.dump();
    EXPECT_TRUE(answer["result"]["isError"].get<bool>());
    const Json& error = answer["result"]["structuredContent"]["error"];
    EXPECT_EQ(error["category"], "usage") << tool;
    EXPECT_EQ(error["message"], "out_dir may not be empty: give the output directory (by default "
                                "kprof-out)")
        << tool;
  }
}

TEST(McpServer, SaysInputNotFoundForAMissingFile) {
  TestServer server;
  server.initialize();
  const Json answer = server.call("report", Json{{"path", "/nonexistent/capture.csv"}});
  EXPECT_TRUE(answer["result"]["isError"].get<bool>());
  const Json& error = answer["result"]["structuredContent"]["error"];
  EXPECT_EQ(error["category"], "input_not_found");
  EXPECT_EQ(error["exit_code"], 3);
  EXPECT_NE(text_of(answer).find("/nonexistent/capture.csv"), std::string::npos);
  const Json dash = server.call("report", Json{{"path", "-"}});
  EXPECT_EQ(dash["result"]["structuredContent"]["error"]["category"], "usage");
}

TEST(McpServer, RefusesAFifoWithoutOpeningIt) {
  auto dir = TempDir::create("kprof-mcp-test");
  ASSERT_TRUE(dir.ok());
  TestServer server;
  server.initialize();
  for (const std::string name : {"report.json", "capture.csv"}) {
    const fs::path fifo = dir->path() / name;
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const Json answer = server.call("report", Json{{"path", fifo.string()}});
    ASSERT_TRUE(answer.contains("result")) << name << ": no answer (blocked?)";
    EXPECT_EQ(answer["result"]["structuredContent"]["error"]["category"], "input_not_found");
    EXPECT_NE(text_of(answer).find("FIFO"), std::string::npos) << text_of(answer);
  }
  const Json diff = server.call("diff", Json{{"a", (dir->path() / "report.json").string()},
                                             {"b", (dir->path() / "report.json").string()}});
  EXPECT_NE(text_of(diff).find("FIFO"), std::string::npos) << text_of(diff);
}

TEST(McpServer, ReportTextIsThePromptOfTheCliWhenItFits) {
  TestServer server;
  server.initialize();
  const fs::path file = k_fixtures / "curated_nvtx_twostage.csv";
  const Json answer =
      server.call("report", Json{{"path", file.string()}, {"token_budget", 100000}});
  ASSERT_FALSE(answer["result"]["isError"].get<bool>()) << answer.dump();
  const std::string prompt = render(Format::prompt, cli_report(file));
  const std::string text = text_of(answer);
  EXPECT_EQ(text.substr(0, prompt.size()), prompt);
  const Json& structured = answer["result"]["structuredContent"];
  EXPECT_EQ(structured["summary"]["dominant_kernel"], "scale_kernel");
  EXPECT_EQ(structured["summary"]["kernels"].size(), 2U);
  // The whole document is a resource of the session.
  const std::string uri = structured["report_uri"].get<std::string>();
  EXPECT_NE(text.find("Whole report: " + uri), std::string::npos);
  const Json read = server.request("resources/read", Json{{"uri", uri}});
  const Json document = Json::parse(read["result"]["contents"][0]["text"].get<std::string>());
  EXPECT_EQ(document["summary"], cli_report(file)["summary"]);
}

TEST(McpServer, ReportsABigCaptureFromItsOutlineAndKeepsNoDocumentResourcesReadCouldNotReturn) {
  auto dir = TempDir::create("kprof-mcp-test");
  ASSERT_TRUE(dir.ok());
  const fs::path file = dir->path() / "many.csv";
  testing::write_many_launches(file, 2000); // its report.json is longer than 8 MiB
  TestServer server;
  server.initialize();
  const Json answer =
      server.call("report", Json{{"path", file.string()}, {"token_budget", 100000}});
  ASSERT_FALSE(answer["result"]["isError"].get<bool>()) << answer.dump().substr(0, 2000);
  const Json& structured = answer["result"]["structuredContent"];
  EXPECT_EQ(structured["summary"]["launches"], 2000);
  EXPECT_EQ(structured["summary"]["kernels"][0]["launches"], 2000);
  EXPECT_TRUE(structured["report_uri"].is_null()) << structured["report_uri"];
  for (const Json& item : answer["result"]["content"]) {
    EXPECT_NE(item["type"], "resource_link") << item.dump();
  }
  const std::string text = text_of(answer);
  // The CLI's prompt of the same file (one launch per kernel name), then where the whole is.
  Result<Capture> capture = read_ncu_csv_file(file);
  ASSERT_TRUE(capture.ok());
  Result<Analysis> analysis = analyse(*capture, SelectOptions{});
  ASSERT_TRUE(analysis.ok());
  const std::string prompt =
      render(Format::prompt,
             build_report_of_representatives(*capture, *analysis, *find_metric_set("default")));
  EXPECT_EQ(text.substr(0, prompt.size()), prompt);
  EXPECT_NE(text.find("Whole report: not kept, its JSON being longer than 8 MiB, the most "
                      "resources/read returns; `kprof report " +
                      file.string() + " --format json --out FILE` writes it"),
            std::string::npos)
      << text;
  const Json listed = server.request("resources/list");
  EXPECT_TRUE(listed["result"]["resources"].empty()) << listed.dump();
}

/// Sets an environment variable for a scope (the stand-in ncu reads it in its children).
class ScopedEnv {
public:
  ScopedEnv(const char* name, const char* value) : m_name(name) { ::setenv(name, value, 1); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ScopedEnv(ScopedEnv&&) = delete;
  ScopedEnv& operator=(ScopedEnv&&) = delete;
  ~ScopedEnv() { ::unsetenv(m_name); }

private:
  const char* m_name;
};

/// The next message that `match` accepts; the others are kept in `seen`. Null after 60 s.
Json next_message(TestServer& server, const std::function<bool(const Json&)>& match,
                  std::vector<Json>& seen) {
  for (int i = 0; i < 200; ++i) {
    Json message = server.receive(std::chrono::seconds(60));
    if (message.is_null() || match(message)) {
      return message;
    }
    seen.push_back(std::move(message));
  }
  return Json();
}

TEST(McpServer, RunsNoMoreReadsThanItsSlotsAndAQueuedCallCanBeCancelled) {
  const ScopedEnv hang("KPROF_FAKE_NCU_SCENARIO", "hang"); // its --import never ends
  auto dir = TempDir::create("kprof-mcp-test");
  ASSERT_TRUE(dir.ok());
  const fs::path stuck = dir->path() / "stuck.ncu-rep";
  ASSERT_TRUE(write_file_atomic(stuck, "NVR").ok());
  McpSettings settings;
  settings.read_slots = 1;
  settings.heartbeat_seconds = 1;
  settings.run_options = Json{{"ncu", std::string(KPROF_STANDINS_DIR) + "/ncu"}};
  TestServer server(settings);
  server.initialize();
  const auto call = [&](int id, const fs::path& path, const std::string& token) {
    Json params{{"name", "report"}, {"arguments", {{"path", path.string()}}}};
    if (!token.empty()) {
      params["_meta"] = Json{{"progressToken", token}};
    }
    server.send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", params}});
  };
  const auto progress_of = [](const std::string& token) {
    return [token](const Json& message) {
      return message.value("method", "") == "notifications/progress" &&
             message["params"]["progressToken"] == token;
    };
  };
  std::vector<Json> seen;
  // 1 takes the only slot and stays in it (its ncu's heartbeat says it runs).
  call(1, stuck, "one");
  ASSERT_FALSE(next_message(server, progress_of("one"), seen).is_null());
  // 2 waits for the slot, and says so; cancelled, it is never answered.
  const fs::path small = k_fixtures / "curated_nvtx_twostage.csv";
  call(2, small, "two");
  const Json waiting = next_message(server, progress_of("two"), seen);
  ASSERT_FALSE(waiting.is_null());
  EXPECT_NE(waiting["params"]["message"].get<std::string>().find("waiting"), std::string::npos)
      << waiting.dump();
  server.send(Json{
      {"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 2}}}});
  // 3 waits too, and runs once 1 is cancelled (its ncu stopped) and leaves the slot.
  call(3, small, "");
  server.send(Json{
      {"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 1}}}});
  const Json third = next_message(
      server, [](const Json& message) { return message.value("id", 0) == 3; }, seen);
  ASSERT_FALSE(third.is_null()) << "3 was never answered";
  EXPECT_FALSE(third["result"]["isError"].get<bool>()) << third.dump();
  EXPECT_EQ(third["result"]["structuredContent"]["summary"]["dominant_kernel"], "scale_kernel");
  for (const Json& message : seen) {
    EXPECT_FALSE(message.contains("id")) << "a cancelled call was answered: " << message.dump();
  }
  EXPECT_FALSE(server.request("ping").is_null());
}

TEST(McpServer, SpeaksWithoutStructuredContentTo20241105Clients) {
  TestServer server;
  server.initialize("2024-11-05");
  const Json answer =
      server.call("report", Json{{"path", (k_fixtures / "curated_nvtx_vadd.csv").string()}});
  EXPECT_FALSE(answer["result"].contains("structuredContent"));
  EXPECT_EQ(answer["result"]["content"].size(), 1U);
  EXPECT_NE(text_of(answer).find("## Kernel:"), std::string::npos);
}

TEST(McpServer, AnswersABatchAsOneArrayIn20250326AndRefusesItIn20250618) {
  {
    TestServer server;
    server.initialize("2025-03-26");
    server.send(R"([{"jsonrpc":"2.0","id":"a","method":"ping"},)"
                R"({"jsonrpc":"2.0","method":"notifications/initialized"},)"
                R"({"jsonrpc":"2.0","id":"b","method":"nope"}])");
    const Json answers = server.receive();
    ASSERT_TRUE(answers.is_array()) << answers.dump();
    ASSERT_EQ(answers.size(), 2U);
    EXPECT_EQ(answers[0]["id"], "a");
    EXPECT_EQ(answers[1]["error"]["code"], -32601);
  }
  TestServer server;
  server.initialize("2025-06-18");
  server.send(R"([{"jsonrpc":"2.0","id":"a","method":"ping"}])");
  EXPECT_EQ(server.receive()["error"]["code"], -32600);
}

TEST(McpServer, ReadsOnlyResourcesUnderTheDirectoriesItsCallsNamed) {
  auto dir = TempDir::create("kprof-mcp-test");
  ASSERT_TRUE(dir.ok());
  const fs::path round = dir->path() / "run" / "round001";
  fs::create_directories(round);
  const Json doc = cli_report(k_fixtures / "curated_nvtx_vadd.csv");
  ASSERT_TRUE(write_json_atomic(round / RoundLayout::k_report, doc).ok());
  ASSERT_TRUE(write_file_atomic(dir->path() / "secret.txt", "no").ok());
  ASSERT_TRUE(write_file_atomic(dir->path() / "run" / "notes.txt", "not a round").ok());
  TestServer server;
  server.initialize();
  const Json outside =
      server.request("resources/read", Json{{"uri", mcp::file_uri(dir->path() / "secret.txt")}});
  EXPECT_EQ(outside["error"]["code"], -32002);

  const Json answer =
      server.call("hot_lines", Json{{"dir", (dir->path() / "run").string()}, {"round", 1}});
  ASSERT_TRUE(answer.contains("result")) << answer.dump();
  EXPECT_FALSE(answer["result"]["isError"].get<bool>());
  EXPECT_FALSE(answer["result"]["structuredContent"]["available"].get<bool>());
  EXPECT_NE(text_of(answer).find("has no hot lines"), std::string::npos);

  const Json list = server.request("resources/list");
  std::vector<std::string> uris;
  for (const Json& resource : list["result"]["resources"]) {
    uris.push_back(resource["uri"].get<std::string>());
  }
  const std::string report_uri = mcp::file_uri(fs::canonical(round / RoundLayout::k_report));
  EXPECT_NE(std::find(uris.begin(), uris.end(), report_uri), uris.end()) << list.dump();
  const Json read = server.request("resources/read", Json{{"uri", report_uri}});
  EXPECT_EQ(Json::parse(read["result"]["contents"][0]["text"].get<std::string>())["summary"],
            doc["summary"]);
  const Json escape = server.request(
      "resources/read", Json{{"uri", mcp::file_uri(fs::canonical(round)) + "/../../secret.txt"}});
  EXPECT_EQ(escape["error"]["code"], -32002);
  const Json listing =
      server.request("resources/read", Json{{"uri", mcp::file_uri(fs::canonical(round)) + "/"}});
  EXPECT_NE(listing["result"]["contents"][0]["text"].get<std::string>().find("report.json"),
            std::string::npos);
}

TEST(McpServer, GivesTheHotLinesOfARoundWithTheVerdictAndWithoutTheMetricGroups) {
  const fs::path source = k_fixtures / "source";
  Result<Capture> capture = read_ncu_csv_file(source / "softmax.raw.csv");
  ASSERT_TRUE(capture.ok());
  Result<Analysis> analysis = analyse(*capture, SelectOptions{});
  Result<MetricSet> set = resolve_metric_set("default", MetricSetUse::read);
  ASSERT_TRUE(analysis.ok() && set.ok());
  Json doc = build_report(*capture, *analysis, *set);
  Result<SourcePage> page = read_source_page(source / "softmax.source.csv");
  auto dir = TempDir::create("kprof-mcp-test");
  ASSERT_TRUE(page.ok() && dir.ok());
  ASSERT_TRUE(attach_hot_lines(doc, *capture, *page, dir->path()).ok());
  const fs::path file = dir->path() / "report.json";
  ASSERT_TRUE(write_json_atomic(file, doc).ok());

  TestServer server;
  server.initialize();
  const Json answer = server.call("hot_lines", Json{{"report", file.string()}});
  const std::string text = text_of(answer);
  EXPECT_NE(text.find("Roofline: memory-bound"), std::string::npos) << text;
  EXPECT_NE(text.find("Hot lines (share of the kernel's warp stall samples):"), std::string::npos);
  EXPECT_NE(text.find("kernel.py:11"), std::string::npos) << text;
  EXPECT_EQ(text.find("Occupancy:"), std::string::npos) << "metric groups are the report's";
  const Json& kernel = answer["result"]["structuredContent"]["kernels"][0];
  EXPECT_EQ(kernel["name"], "softmax_kernel");
  EXPECT_EQ(kernel["hot_lines"]["lines"][0]["line"], 11);
  EXPECT_FALSE(kernel["hot_lines"].contains("heat"));
  const Json none = server.call("hot_lines", Json{{"report", file.string()}, {"kernel", "gemm"}});
  EXPECT_TRUE(none["result"]["isError"].get<bool>()) << "the round has no kernel named so";
}

TEST(McpServer, SaysWhichKernelsARoundHasWhenTheKernelFilterMatchesNone) {
  auto dir = TempDir::create("kprof-mcp-test");
  ASSERT_TRUE(dir.ok());
  const fs::path file = dir->path() / "report.json";
  ASSERT_TRUE(write_json_atomic(file, cli_report(k_fixtures / "curated_nvtx_twostage.csv")).ok());
  TestServer server;
  server.initialize();
  for (const std::string tool : {"diagnosis", "hot_lines"}) {
    const Json answer = server.call(tool, Json{{"report", file.string()}, {"kernel", "gemm"}});
    ASSERT_TRUE(answer.contains("result")) << answer.dump();
    EXPECT_TRUE(answer["result"]["isError"].get<bool>()) << tool;
    const Json& error = answer["result"]["structuredContent"]["error"];
    EXPECT_EQ(error["category"], "no_kernels") << tool;
    EXPECT_EQ(error["exit_code"], 5) << tool;
    // The words of `kprof report --kernel gemm`, with the round in place of the capture.
    EXPECT_EQ(error["message"], "no kernel name contains 'gemm' (kernels in " + file.string() +
                                    ": partial_sum_kernel, scale_kernel)")
        << tool;
    EXPECT_EQ(text_of(answer).find("source: true"), std::string::npos) << text_of(answer);
    EXPECT_EQ(text_of(answer).find("carries no kernels[].diagnosis"), std::string::npos);
  }
  // A kernel that is there: its diagnosis.
  const Json found = server.call("diagnosis", Json{{"report", file.string()}, {"kernel", "scale"}});
  EXPECT_FALSE(found["result"]["isError"].get<bool>()) << text_of(found);
  EXPECT_EQ(found["result"]["structuredContent"]["kernels"][0]["name"], "scale_kernel");
}

TEST(McpServer, GivesTheDiagnosisOfARoundAndSaysSoWhenItHasNone) {
  auto dir = TempDir::create("kprof-mcp-test");
  ASSERT_TRUE(dir.ok());
  const fs::path file = dir->path() / "report.json";
  // A report of an older kprof: no kernels[].diagnosis.
  Json old = cli_report(k_fixtures / "curated_nvtx_vadd.csv");
  for (Json& kernel : old["kernels"]) {
    kernel.erase("diagnosis");
    kernel.erase("diagnosis_notes");
  }
  ASSERT_TRUE(write_json_atomic(file, old).ok());
  TestServer server;
  server.initialize();
  const Json none = server.call("diagnosis", Json{{"report", file.string()}});
  EXPECT_FALSE(none["result"]["isError"].get<bool>());
  EXPECT_FALSE(none["result"]["structuredContent"]["available"].get<bool>());
  EXPECT_NE(text_of(none).find("no diagnosis"), std::string::npos) << text_of(none);

  // This kprof's report: every cause, in the document's order, with its evidence and the notes.
  const Json with = cli_report(k_fixtures / "curated_nvtx_vadd.csv");
  const Json& causes = with["kernels"][0]["diagnosis"];
  ASSERT_TRUE(causes.is_array() && !causes.empty()) << with["kernels"][0].dump();
  ASSERT_TRUE(write_json_atomic(file, with).ok());
  const Json found = server.call("diagnosis", Json{{"report", file.string()}});
  const std::string text = text_of(found);
  EXPECT_TRUE(found["result"]["structuredContent"]["available"].get<bool>());
  EXPECT_EQ(found["result"]["structuredContent"]["kernels"][0]["diagnosis"], causes);
  EXPECT_NE(text.find("1. " + causes[0]["title"].get<std::string>()), std::string::npos) << text;
  EXPECT_EQ(text, "## Kernel: " + with["kernels"][0]["name"].get<std::string>() + "\n" +
                      diagnosis_text(with["kernels"][0]));
}

TEST(McpServer, EndsCleanlyWhenTheInputClosesWithoutAnswersPending) {
  auto server = std::make_unique<TestServer>();
  server->initialize();
  server->close_input();
  EXPECT_TRUE(server->receive(std::chrono::seconds(5)).is_null()); // EOF, nothing more
  server.reset();                                                  // joined: serve_mcp returned
}

/// Random lines of garbage and mutated requests: every answer is a JSON-RPC message, and the
/// server still answers a ping at the end.
TEST(McpServer, AnswersEveryLineOfRandomInputAndStaysUp) {
  TestServer server;
  server.initialize("2025-03-26");
  std::mt19937 random(7);
  const std::vector<std::string> seeds{
      R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})",
      R"({"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///etc/passwd"}})",
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"history","arguments":{"dir":7}}})",
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}})",
      R"([{"jsonrpc":"2.0","id":4,"method":"ping"}])",
  };
  int sent = 0;
  for (int round = 0; round < 300; ++round) {
    std::string line = seeds[random() % seeds.size()];
    for (int e = 0; e < 3; ++e) {
      const std::size_t at = random() % line.size();
      line[at] = "{}[]\":,0a\\ "[random() % 12];
    }
    if (line.find('\n') == std::string::npos) {
      server.send(line);
      ++sent;
    }
  }
  server.send(R"({"jsonrpc":"2.0","id":"last","method":"ping"})");
  for (int i = 0; i < sent + 1; ++i) {
    const Json answer = server.receive(std::chrono::seconds(10));
    if (answer.is_null()) {
      FAIL() << "no answer for the ping after random input";
    }
    const Json& one = answer.is_array() && !answer.empty() ? answer[0] : answer;
    ASSERT_EQ(one["jsonrpc"], "2.0") << answer.dump();
    ASSERT_TRUE(one.contains("result") || one.contains("error")) << answer.dump();
    if (one.value("id", Json()) == "last") {
      SUCCEED();
      return;
    }
  }
  FAIL() << "the ping after the random input was not answered";
}

} // namespace
} // namespace kprof
