// JSON-RPC framing of `kprof mcp` (src/mcp/jsonrpc.hpp): lines, limits, message kinds, and
// random input that must never throw or get past the limits.
#include "mcp/jsonrpc.hpp"

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace kprof::mcp {
namespace {

std::vector<InputLine> split(LineSplitter& splitter, const std::vector<std::string>& pieces,
                             bool finish = true) {
  std::vector<InputLine> lines;
  const auto emit = [&](InputLine line) { lines.push_back(std::move(line)); };
  for (const std::string& piece : pieces) {
    splitter.feed(piece, emit);
  }
  if (finish) {
    splitter.finish(emit);
  }
  return lines;
}

TEST(LineSplitter, CutsAtNewlinesDropsCarriageReturnsAndSkipsEmptyLines) {
  LineSplitter splitter(100);
  const auto lines = split(splitter, {"{\"a\":1}\r\n\n  \n{\"b\":2}\n"});
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0].text, "{\"a\":1}");
  EXPECT_EQ(lines[1].text, "{\"b\":2}");
}

TEST(LineSplitter, JoinsALineThatArrivesInPieces) {
  LineSplitter splitter(100);
  const auto lines = split(splitter, {"{\"jso", "nrpc\":", "\"2.0\"}", "\n"});
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_EQ(lines[0].text, "{\"jsonrpc\":\"2.0\"}");
}

TEST(LineSplitter, GivesTheLastLineWithoutANewlineAtTheEnd) {
  LineSplitter splitter(100);
  const auto lines = split(splitter, {"one\ntwo"});
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[1].text, "two");
}

TEST(LineSplitter, ReportsALineOverTheLimitOnceAndGoesOnAfterIt) {
  LineSplitter splitter(10);
  const std::string long_line(25, 'x');
  const auto lines = split(splitter, {long_line.substr(0, 8), long_line.substr(8), "\nshort\n"});
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_TRUE(lines[0].too_long);
  EXPECT_TRUE(lines[0].text.empty());
  EXPECT_FALSE(lines[1].too_long);
  EXPECT_EQ(lines[1].text, "short");
}

TEST(LineSplitter, TakesALineOfExactlyTheLimit) {
  LineSplitter splitter(10);
  const auto lines = split(splitter, {std::string(10, 'y') + "\n"});
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_FALSE(lines[0].too_long);
}

TEST(ParseLine, SaysParseErrorForTextThatIsNotJson) {
  const ParsedLine parsed = parse_line("{\"jsonrpc\": \"2.0\", \"method\": ");
  ASSERT_EQ(parsed.messages.size(), 1U);
  EXPECT_EQ(parsed.messages[0].kind, MessageKind::invalid);
  EXPECT_EQ(parsed.messages[0].error_code, RpcCode::parse_error);
  EXPECT_TRUE(parsed.messages[0].id.is_null());
}

TEST(ParseLine, SaysParseErrorForInvalidUtf8InAString) {
  const ParsedLine parsed = parse_line("{\"jsonrpc\":\"2.0\",\"method\":\"\xff\xfe\",\"id\":1}");
  EXPECT_EQ(parsed.messages.at(0).error_code, RpcCode::parse_error);
}

TEST(ParseLine, TellsRequestsNotificationsAndResponsesApart) {
  EXPECT_EQ(parse_line(R"({"jsonrpc":"2.0","id":1,"method":"ping"})").messages[0].kind,
            MessageKind::request);
  EXPECT_EQ(parse_line(R"({"jsonrpc":"2.0","id":"a","method":"ping"})").messages[0].kind,
            MessageKind::request);
  EXPECT_EQ(
      parse_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").messages[0].kind,
      MessageKind::notification);
  EXPECT_EQ(parse_line(R"({"jsonrpc":"2.0","id":4,"result":{}})").messages[0].kind,
            MessageKind::response);
}

TEST(ParseLine, RefusesWhatIsNotAJsonRpcRequest) {
  struct Case {
    const char* line;
    RpcCode code;
    bool id_kept;
  };
  const std::vector<Case> cases{
      {R"([1,2])", RpcCode::invalid_request, false},
      {R"("ping")", RpcCode::invalid_request, false},
      {R"({"id":1,"method":"ping"})", RpcCode::invalid_request, true},
      {R"({"jsonrpc":"1.0","id":1,"method":"ping"})", RpcCode::invalid_request, true},
      {R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})", RpcCode::invalid_request, false},
      {R"({"jsonrpc":"2.0","id":null,"method":"ping"})", RpcCode::invalid_request, false},
      {R"({"jsonrpc":"2.0","id":[1],"method":"ping"})", RpcCode::invalid_request, false},
      {R"({"jsonrpc":"2.0","id":1,"method":7})", RpcCode::invalid_request, true},
      {R"({"jsonrpc":"2.0","id":1})", RpcCode::invalid_request, true},
      {R"({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]})", RpcCode::invalid_params, true},
  };
  for (const Case& c : cases) {
    const ParsedLine parsed = parse_line(c.line);
    ASSERT_FALSE(parsed.messages.empty()) << c.line;
    for (const Message& message : parsed.messages) {
      EXPECT_EQ(message.kind, MessageKind::invalid) << c.line;
      EXPECT_EQ(message.error_code, c.code) << c.line;
      EXPECT_FALSE(message.error_message.empty()) << c.line;
    }
    if (!parsed.batch) {
      EXPECT_EQ(!parsed.messages[0].id.is_null(), c.id_kept) << c.line;
    }
  }
}

TEST(ParseLine, ReadsABatchAndRefusesAnEmptyOne) {
  const ParsedLine batch =
      parse_line(R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}])");
  EXPECT_TRUE(batch.batch);
  ASSERT_EQ(batch.messages.size(), 2U);
  EXPECT_EQ(batch.messages[1].kind, MessageKind::notification);
  const ParsedLine empty = parse_line("[]");
  EXPECT_FALSE(empty.batch);
  EXPECT_EQ(empty.messages.at(0).error_code, RpcCode::invalid_request);
}

TEST(ParseLine, RefusesDeepNestingWithoutParsingIt) {
  const std::string deep = std::string(1U << 20U, '[') + std::string(1U << 20U, ']');
  const ParsedLine parsed = parse_line(deep);
  ASSERT_EQ(parsed.messages.size(), 1U);
  EXPECT_EQ(parsed.messages[0].error_code, RpcCode::invalid_request);
  EXPECT_NE(parsed.messages[0].error_message.find("nested deeper"), std::string::npos);
  // Brackets inside strings do not count.
  EXPECT_EQ(nesting_depth(R"({"a":"[[[[[[[[","b":[1]})", 64), 2U);
}

TEST(WireText, IsOneLineEvenForTextWithNewlinesAndInvalidUtf8) {
  const std::string text = wire_text(rpc_result(1, Json{{"text", std::string("a\nb\xff")}}));
  EXPECT_EQ(text.find('\n'), text.size() - 1);
  const Json back = Json::parse(text);
  EXPECT_EQ(back["result"]["text"], "a\nb\xEF\xBF\xBD");
}

/// Random bytes and mutated messages through the splitter and the parser: nothing throws, no
/// line is over the limit, every message is a kind with an answer the server can write.
TEST(JsonRpcFraming, SurvivesTenThousandRandomAndMutatedInputs) {
  std::mt19937 random(20261201);
  const std::vector<std::string> seeds{
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})",
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"report","arguments":{"path":"x.csv"}}})",
      R"([{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}])",
      R"({"jsonrpc":"2.0","id":"s","result":{"a":[1,2,{"b":null}]}})",
  };
  const std::size_t limit = 512;
  LineSplitter splitter(limit);
  std::size_t lines = 0;
  const auto check = [&](InputLine line) {
    ++lines;
    EXPECT_LE(line.text.size(), limit);
    if (line.too_long) {
      return;
    }
    const ParsedLine parsed = parse_line(line.text);
    EXPECT_FALSE(parsed.messages.empty());
    for (const Message& message : parsed.messages) {
      if (message.kind == MessageKind::invalid) {
        EXPECT_FALSE(message.error_message.empty());
        EXPECT_NO_THROW(
            (void)wire_text(rpc_error(message.id, message.error_code, message.error_message)));
      }
      if (message.kind == MessageKind::request || message.kind == MessageKind::notification) {
        EXPECT_TRUE(message.params.is_object());
      }
    }
  };
  for (int round = 0; round < 10000; ++round) {
    std::string input;
    if (round % 3 == 0) {
      const std::size_t size = random() % 700;
      for (std::size_t i = 0; i < size; ++i) {
        input += static_cast<char>(random() % 256);
      }
    } else {
      input = seeds[random() % seeds.size()];
      const std::size_t edits = 1 + random() % 6;
      for (std::size_t e = 0; e < edits && !input.empty(); ++e) {
        const std::size_t at = random() % input.size();
        switch (random() % 4) {
        case 0:
          input[at] = static_cast<char>(random() % 256);
          break;
        case 1:
          input.erase(at, 1 + random() % 8);
          break;
        case 2:
          input.insert(at, std::string(1 + random() % 4, "[{\"\\:,"[random() % 6]));
          break;
        default:
          input.insert(at, input.substr(0, std::min<std::size_t>(input.size(), 64)));
          break;
        }
      }
      input += '\n';
    }
    EXPECT_NO_THROW(splitter.feed(input, check));
  }
  EXPECT_NO_THROW(splitter.finish(check));
  EXPECT_GT(lines, 6000U);
}

} // namespace
} // namespace kprof::mcp
