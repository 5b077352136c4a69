// The request of `kprof serve` (include/kprof/serve.hpp): every field is checked, and a bad one
// is named. The socket, its owner and several clients at once are tested end to end in
// tests/python/test_serve.py.
#include <gtest/gtest.h>

#include "kprof/options.hpp"
#include "kprof/serve.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;

Json good_request() {
  ServeRequest request;
  request.fingerprint = Json{{"problem", "/p/problem.py"}};
  request.kernels = {"/p/kernel.py"};
  request.round = 3;
  return serve_request_to_json(request);
}

/// The message serve_request_from_json() gives `json`, or "accepted" when it reads it.
std::string refusal_of(const Json& json) {
  auto request = serve_request_from_json(json);
  if (request) {
    return "accepted";
  }
  EXPECT_EQ(request.error().category, ErrorCategory::malformed_input);
  return request.error().message;
}

Json with(std::string_view key, Json value) {
  Json json = good_request();
  json[std::string(key)] = std::move(value);
  return json;
}

TEST(ServeRequest, ReadsBackWhatItWrites) {
  ServeRequest request;
  request.fingerprint = Json{{"problem", "/p/problem.py"}, {"timeout", 60}};
  request.kernels = {"/p/a.py", "/p/b.py"};
  request.round = 999999;
  request.batch = true;
  auto read = serve_request_from_json(serve_request_to_json(request));
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->fingerprint, request.fingerprint);
  EXPECT_EQ(read->kernels, request.kernels);
  EXPECT_EQ(read->round, 999999);
  EXPECT_TRUE(read->batch);
}

TEST(ServeRequest, NamesTheFieldOfTheWrongType) {
  EXPECT_EQ(refusal_of(with("version", "1")),
            "not a kprof serve request: 'version' must be an integer, not \"1\"");
  EXPECT_EQ(refusal_of(with("batch", "yes")),
            "not a kprof serve request: 'batch' must be true or false, not \"yes\"");
  EXPECT_EQ(refusal_of(with("round", "x")),
            "not a kprof serve request: 'round' must be an integer from 0 to 999999 (as "
            "--round), not \"x\"");
  EXPECT_EQ(refusal_of(with("fingerprint", Json::array())),
            "not a kprof serve request: 'fingerprint' must be an object, not []");
  EXPECT_EQ(refusal_of(with("kernels", Json::array({"/p/kernel.py", 1}))),
            "not a kprof serve request: 'kernels' must be an array of strings, not "
            "[\"/p/kernel.py\",1]");
  EXPECT_EQ(refusal_of(with("kernels", "/p/kernel.py")),
            "not a kprof serve request: 'kernels' must be an array of strings, not "
            "\"/p/kernel.py\"");
  EXPECT_EQ(refusal_of(Json::array({1, 2})),
            "not a kprof serve request: not a JSON object but [1,2]");
}

TEST(ServeRequest, RefusesRoundsOutsideTheRangeOfTheRoundOption) {
  const OptionSpec* spec = find_option_spec("round");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(refusal_of(with("round", spec->max)), "accepted");
  EXPECT_EQ(refusal_of(with("round", spec->min)), "accepted");
  for (const Json& round : {Json(spec->max + 1), Json(std::uint64_t{1} << 40U), Json(-1),
                            Json(std::int64_t{-2147483648}), Json(1.5)}) {
    EXPECT_NE(refusal_of(with("round", round)).find("'round' must be an integer from 0 to 999999"),
              std::string::npos)
        << round.dump();
  }
}

TEST(ServeRequest, NamesAMissingField) {
  for (const std::string_view key : {"version", "fingerprint", "kernels", "round", "batch"}) {
    Json json = good_request();
    json.erase(std::string(key));
    EXPECT_EQ(refusal_of(json), "not a kprof serve request: '" + std::string(key) + "' is missing");
  }
}

TEST(ServeRequest, RefusesAnotherProtocolVersion) {
  EXPECT_EQ(refusal_of(with("version", 2)),
            "not a kprof serve request: it is of protocol version 2, this kprof serve speaks "
            "version 1");
}

TEST(ServeRequest, RefusesRelativeKernelPaths) {
  EXPECT_EQ(refusal_of(with("kernels", Json::array({"kernel.py"}))),
            "not a kprof serve request: kernel paths must be absolute, not \"kernel.py\"");
  EXPECT_EQ(refusal_of(with("kernels", Json::array({""}))),
            "not a kprof serve request: kernel paths must be absolute, not \"\"");
}

TEST(ServeRequest, RefusesKernelPathsWithANulByte) {
  EXPECT_EQ(refusal_of(with("kernels", Json::array({std::string("/p/kernel.py\0x", 14)}))),
            "not a kprof serve request: kernel paths must not contain a NUL byte, not "
            "\"/p/kernel.py\\u0000x\"");
}

TEST(ServeRequest, AProfileNamesOneKernelAndABatchAtLeastOne) {
  EXPECT_EQ(refusal_of(with("kernels", Json::array({"/a.py", "/b.py"}))),
            "not a kprof serve request: 'kernels' must name one kernel for a profile, not 2");
  EXPECT_EQ(refusal_of(with("kernels", Json::array())),
            "not a kprof serve request: 'kernels' must name one kernel for a profile, not 0");
  Json batch = with("batch", true);
  batch["kernels"] = Json::array();
  EXPECT_EQ(refusal_of(batch),
            "not a kprof serve request: 'kernels' must name at least one kernel for a batch");
  batch["kernels"] = Json::array({"/a.py", "/b.py"});
  EXPECT_EQ(refusal_of(batch), "accepted");
}

TEST(ServeRequest, ShowsAtMostTheStartOfALongValue) {
  const std::string message = refusal_of(with("batch", std::string(1000, 'y')));
  EXPECT_LT(message.size(), 160U);
  EXPECT_NE(message.find("..."), std::string::npos);
}

TEST(ServeRequestLine, RefusesTextThatIsNotJson) {
  for (const std::string_view line : {"", "{\"version\": 1,", "not json", "{\"a\": 1} x"}) {
    auto request = parse_serve_request(line);
    ASSERT_FALSE(request.ok()) << line;
    EXPECT_EQ(request.error().message, "not a kprof serve request: not JSON") << line;
  }
}

TEST(ServeRequestLine, RefusesJsonNestedDeeperThan64Levels) {
  // The request's object, its fingerprint's, then `arrays` arrays.
  const auto nested = [](std::size_t arrays) {
    return R"({"version": 1, "fingerprint": {"deep": )" + std::string(arrays, '[') +
           std::string(arrays, ']') +
           R"(}, "kernels": ["/p/kernel.py"], "round": 3, "batch": false})";
  };
  const std::string too_deep = nested(63);
  auto refused = parse_serve_request(too_deep);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "not a kprof serve request: nested deeper than 64 levels");
  EXPECT_TRUE(parse_serve_request(nested(62)).ok());
  // Brackets inside strings, escaped quotes included, are text, not nesting.
  Json json = good_request();
  json["fingerprint"]["text"] = "\"[[[" + std::string(200, '{') + "\\";
  auto read = parse_serve_request(json.dump());
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->fingerprint, json["fingerprint"]);
}

TEST(ServeRequestLine, ReadsAGoodLine) {
  auto read = parse_serve_request(good_request().dump());
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->kernels, std::vector<fs::path>{"/p/kernel.py"});
  EXPECT_EQ(read->round, 3);
  EXPECT_FALSE(read->batch);
}

TEST(OptionValues, NameEveryOptionOfTheTableAndReadBackAsTheSameOptions) {
  ProfileOptions options;
  options.out_dir = "/tmp/run";
  options.metrics = find_metric_set("lean").value();
  options.source = true;
  options.timeout = std::chrono::seconds(42);
  options.retries = 0;
  options.cast = CastDtype::bf16;
  options.select.select = Select::longest;
  options.select.kernel_filters = {"add"};
  options.keep_ncu_report = false;
  options.prestart = false;
  options.logs_dir = "/tmp/logs";
  const Json values = option_values(options);
  for (const OptionSpec& spec : option_specs()) {
    const bool spelling = spec.name == "round" || spec.name == "gpu" || spec.name == "attempts";
    EXPECT_EQ(values.contains(std::string(spec.name)), !spelling) << spec.name;
  }
  Json given = values;
  for (auto it = given.begin(); it != given.end();) {
    it = it->is_null() ? given.erase(it) : std::next(it); // unset paths are not given at all
  }
  auto parsed = parse_run_options(given, OptionContext{});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(option_values(parsed->options), values);
}

TEST(ServeFingerprint, DiffersInEveryOptionThatChangesARoundButNotInTheStandbysOwn) {
  const ProfileOptions base;
  const Json fingerprint = serve_fingerprint(base, "/p/problem.py");
  // A server started with one value must not hand its standby to a request with the other.
  ProfileOptions no_report = base;
  no_report.keep_ncu_report = false;
  EXPECT_NE(serve_fingerprint(no_report, "/p/problem.py"), fingerprint);
  ProfileOptions no_prestart = base;
  no_prestart.prestart = false;
  EXPECT_NE(serve_fingerprint(no_prestart, "/p/problem.py"), fingerprint);
  ProfileOptions logs = base;
  logs.kernelagent_logs_only = true;
  EXPECT_NE(serve_fingerprint(logs, "/p/problem.py"), fingerprint);
  // A server always keeps a standby; how long an unused one waits changes no round.
  ProfileOptions standby = base;
  standby.standby = true;
  standby.standby_idle_seconds = 5;
  EXPECT_EQ(serve_fingerprint(standby, "/p/problem.py"), fingerprint);
  EXPECT_NE(serve_fingerprint(base, "/q/problem.py"), fingerprint);
}

} // namespace
} // namespace kprof
