// Tests of the incremental CSV tokenizer: what is a record and what is text, unescaping, line
// numbers, and independence from how the input is cut into chunks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "csv/csv_tokenizer.hpp"

namespace kprof::csv {
namespace {

/// Records each callback as one string: "R<line>:field|field|..." or "T<line>:text".
class Recorder final : public LineSink {
public:
  bool on_record(std::size_t line, std::span<const std::string_view> fields) override {
    std::string entry = "R" + std::to_string(line) + ":";
    for (std::size_t i = 0; i < fields.size(); ++i) {
      entry += (i > 0 ? "|" : "");
      entry += fields[i];
    }
    events.push_back(entry);
    return true;
  }
  bool on_text(std::size_t line, std::string_view text) override {
    events.push_back("T" + std::to_string(line) + ":" + std::string(text));
    return true;
  }
  std::vector<std::string> events;
};

struct Outcome {
  std::vector<std::string> events;
  bool ok = true;
  std::optional<TokenizerError> error;
};

Outcome tokenize(std::string_view input, std::size_t chunk) {
  Recorder recorder;
  CsvTokenizer tokenizer(recorder);
  Outcome outcome;
  for (std::size_t at = 0; outcome.ok && at < input.size(); at += chunk) {
    outcome.ok = tokenizer.feed(input.substr(at, chunk));
  }
  if (outcome.ok) {
    outcome.ok = tokenizer.finish();
  }
  outcome.events = recorder.events;
  outcome.error = tokenizer.error();
  return outcome;
}

TEST(CsvTokenizer, TellsCsvRecordsFromOtherLines) {
  const Outcome outcome =
      tokenize("==PROF== hello\n\"a\",\"b\"\nprogram output, with \"quotes\n\n\"c\"\nrc=0", 1024);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.events, (std::vector<std::string>{"T1:==PROF== hello", "R2:a|b",
                                                      "T3:program output, with \"quotes",
                                                      "T4:", "R5:c", "T6:rc=0"}));
}

TEST(CsvTokenizer, UnescapesDoubledQuotesAndKeepsCommasAndNewlinesInQuotes) {
  const std::string input =
      "\"884  \"\"<default domain>:kprof\"\" \",\"a,b\",\"x\ny\",\"\",\"\"\"\"\n"
      "\"next\"\n";
  const Outcome outcome = tokenize(input, 1024);
  ASSERT_TRUE(outcome.ok);
  ASSERT_EQ(outcome.events.size(), 2U);
  EXPECT_EQ(outcome.events[0], "R1:884  \"<default domain>:kprof\" |a,b|x\ny||\"");
  EXPECT_EQ(outcome.events[1], "R3:next"); // the first record spanned lines 1 and 2
}

TEST(CsvTokenizer, ReadsUnquotedAndStrayQuotedFieldsLeniently) {
  const Outcome outcome = tokenize("\"a\",plain,\"ab\"cd,e\"f\"g,\n", 1024);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.events, (std::vector<std::string>{"R1:a|plain|abcd|efg|"}));
}

TEST(CsvTokenizer, DropsCarriageReturnsBeforeNewlines) {
  const Outcome outcome = tokenize("==PROF== x\r\n\"a\",\"b\"\r\n\"c\",d\r\n", 1024);
  ASSERT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.events, (std::vector<std::string>{"T1:==PROF== x", "R2:a|b", "R3:c|d"}));
}

TEST(CsvTokenizer, GivesTheSameResultForEveryChunkSize) {
  const std::string input =
      "==WARNING== w\n\"ID\",\"x\"\"y\",\"multi\nline\"\n\"1\",\"a,b\"\r\nfree "
      "text\n\"2\",\"\"\"\",z";
  const Outcome whole = tokenize(input, input.size());
  ASSERT_TRUE(whole.ok);
  for (std::size_t chunk = 1; chunk < input.size(); ++chunk) {
    EXPECT_EQ(tokenize(input, chunk).events, whole.events) << "chunk " << chunk;
  }
}

TEST(CsvTokenizer, ReportsAnUnterminatedQuoteWithTheLineItStarted) {
  for (const std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{100}}) {
    const Outcome outcome = tokenize("\"a\"\n\"b\",\"never\nclosed", chunk);
    EXPECT_FALSE(outcome.ok);
    ASSERT_TRUE(outcome.error);
    EXPECT_EQ(outcome.error->reason, TokenizerError::Reason::unterminated_quote);
    EXPECT_EQ(outcome.error->line, 2U);
    EXPECT_EQ(outcome.events, std::vector<std::string>{"R1:a"});
  }
}

TEST(CsvTokenizer, StopsAtANulByteAfterDeliveringTheLinesBeforeIt) {
  const std::string input = std::string("\"a\"\n\"b\"\nxx") + '\0' + "\n\"c\"\n";
  for (const std::size_t chunk : {std::size_t{1}, std::size_t{4}, input.size()}) {
    const Outcome outcome = tokenize(input, chunk);
    EXPECT_FALSE(outcome.ok);
    ASSERT_TRUE(outcome.error);
    EXPECT_EQ(outcome.error->reason, TokenizerError::Reason::binary);
    EXPECT_EQ(outcome.error->line, 3U) << "chunk " << chunk;
    EXPECT_EQ(outcome.events, (std::vector<std::string>{"R1:a", "R2:b"})) << "chunk " << chunk;
  }
}

TEST(CsvTokenizer, StopsWhenTheSinkSaysSo) {
  class StopAtFirst final : public LineSink {
  public:
    bool on_record(std::size_t /*line*/, std::span<const std::string_view> /*fields*/) override {
      ++calls;
      return false;
    }
    bool on_text(std::size_t /*line*/, std::string_view /*text*/) override { return true; }
    int calls = 0;
  };
  StopAtFirst sink;
  CsvTokenizer tokenizer(sink);
  EXPECT_FALSE(tokenizer.feed("\"a\"\n\"b\"\n"));
  EXPECT_FALSE(tokenizer.feed("\"c\"\n"));
  EXPECT_EQ(sink.calls, 1);
  EXPECT_FALSE(tokenizer.error());
}

} // namespace
} // namespace kprof::csv
