// Tests of the source-page reader (source_page.cpp) on the recorded per-line captures of
// tests/fixtures/ncu/2025.3.1/source/ (docs/device-runs/2026-11-30-source-capture.md).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "csv/csv_tokenizer.hpp"
#include "kprof/numbers.hpp"
#include "kprof/source_page.hpp"
#include "unit/csv/csv_test_support.hpp"

namespace kprof {
namespace {

using namespace test;

std::filesystem::path source_fixture(std::string_view name) {
  return ncu_fixture("source/" + std::string(name));
}

SourcePage read_page(std::string_view name) {
  auto page = read_source_page(source_fixture(name));
  if (!page.ok()) {
    ADD_FAILURE() << name << ": " << page.error().message;
    return {};
  }
  return std::move(page).value();
}

Error page_error(std::string_view text) {
  auto page = parse_source_page(text, "page.csv");
  if (page.ok()) {
    ADD_FAILURE() << "expected an error, got " << page->blocks.size() << " blocks";
    return {};
  }
  return page.error();
}

std::vector<std::string> files_of(const SourcePage& page) {
  std::vector<std::string> files;
  for (const SourceBlock& block : page.blocks) {
    files.push_back(block.file);
  }
  return files;
}

const SourceLine& line_of_block(const SourceBlock& block, int number) {
  for (const SourceLine& line : block.lines) {
    if (line.line == number) {
      return line;
    }
  }
  throw std::runtime_error("no line " + std::to_string(number) + " in " + block.file);
}

double stall(const LineCounters& counters, std::string_view reason) {
  for (const auto& [name, count] : counters.stalls) {
    if (name == reason) {
      return count;
    }
  }
  return 0;
}

/// An independent reading of a page: per block and line number, the sum of the "All Samples"
/// column over the SASS rows under that line (the rows the reader skips).
class SassSums final : public csv::LineSink {
public:
  bool on_record(std::size_t /*line*/, std::span<const std::string_view> fields) override {
    if (fields[0] == "File Path") {
      ++m_block;
    } else if (fields[0] == "Line No") {
      m_samples_column = static_cast<std::size_t>(
          std::find(fields.begin(), fields.end(), "Warp Stall Sampling (All Samples)") -
          fields.begin());
    } else if (!fields[0].empty() && fields[0] != "Function Name") {
      m_line = std::stoi(std::string(fields[0]));
    } else if (fields[0].empty() && fields[2] != "...") {
      sums[{m_block, m_line}] += *parse_ncu_number(fields[m_samples_column]);
    }
    return true;
  }
  bool on_text(std::size_t /*line*/, std::string_view /*text*/) override { return true; }

  std::map<std::pair<int, int>, double> sums; ///< (block index, line) -> samples

private:
  int m_block = -1;
  int m_line = 0;
  std::size_t m_samples_column = 0;
};

TEST(SourcePageReader, ReadsTheTwoBlocksOfTheSoftmaxPage) {
  const SourcePage page = read_page("softmax.source.csv");
  ASSERT_EQ(page.blocks.size(), 2U);
  EXPECT_TRUE(page.blocks[0].file.ends_with("/triton/language/standard.py"));
  EXPECT_EQ(page.blocks[1].file, "/work/main/examples/softmax/kernel.py");
  EXPECT_EQ(page.blocks[1].function, "softmax_kernel");
  // kernel.py lines 7 to 15, in file order; the SASS rows under them are not lines.
  std::vector<int> numbers;
  for (const SourceLine& line : page.blocks[1].lines) {
    numbers.push_back(line.line);
  }
  EXPECT_EQ(numbers, (std::vector<int>{7, 8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_TRUE(page.messages.empty());
}

TEST(SourcePageReader, KeepsTheSourceTextOfALineWithItsCommasAndQuotes) {
  const SourcePage page = read_page("softmax.source.csv");
  ASSERT_EQ(page.blocks.size(), 2U);
  // ncu prints the text's own quotes unescaped ("...-float("inf"))..."): read as CSV, they go.
  EXPECT_EQ(line_of_block(page.blocks[1], 11).text,
            "x = tl.load(in_ptr + row * in_stride + cols, mask=mask, "
            "other=-float(inf)).to(tl.float32)");
  EXPECT_EQ(line_of_block(page.blocks[0], 170).text, "return core.maximum(a, b)");
}

TEST(SourcePageReader, EveryLineTotalIsTheSumOfTheSassRowsUnderIt) {
  for (const char* name : {"softmax.source.csv", "twostage.source.csv", "batch2.source.csv",
                           "vadd.source.csv", "matmul.source.csv"}) {
    SCOPED_TRACE(name);
    const SourcePage page = read_page(name);
    SassSums independent;
    csv::CsvTokenizer tokenizer(independent);
    ASSERT_TRUE(tokenizer.feed(slurp(source_fixture(name))));
    ASSERT_TRUE(tokenizer.finish());
    std::size_t lines = 0;
    for (std::size_t b = 0; b < page.blocks.size(); ++b) {
      for (const SourceLine& line : page.blocks[b].lines) {
        EXPECT_EQ(line.counters.samples, (independent.sums[{static_cast<int>(b), line.line}]))
            << page.blocks[b].file << ":" << line.line;
        ++lines;
      }
    }
    EXPECT_EQ(lines, independent.sums.size());
  }
}

TEST(SourcePageReader, KeepsEveryLinesSassInstructionsOnceEachWithTheirOwnCounters) {
  // The histogram page of the planted suite prints the instructions of some lines twice.
  for (const char* name : {"source/softmax.source.csv", "source/matmul.source.csv",
                           "planted/hist_i32/source.csv", "planted/vec_f32/source.csv"}) {
    SCOPED_TRACE(name);
    auto page = read_source_page(ncu_fixture(name));
    ASSERT_TRUE(page.ok()) << page.error().message;
    std::size_t instructions = 0;
    for (const SourceBlock& block : page->blocks) {
      for (const SourceLine& line : block.lines) {
        double samples = 0;
        std::vector<std::uint64_t> addresses;
        for (const SassInstruction& instruction : line.instructions) {
          samples += instruction.counters.samples;
          addresses.push_back(instruction.address);
          EXPECT_FALSE(instruction.text.empty());
          EXPECT_EQ(instruction.text.find("  "), std::string::npos) << instruction.text;
        }
        EXPECT_EQ(samples, line.counters.samples) << block.file << ":" << line.line;
        std::sort(addresses.begin(), addresses.end());
        EXPECT_EQ(std::adjacent_find(addresses.begin(), addresses.end()), addresses.end());
        instructions += line.instructions.size();
      }
    }
    EXPECT_GT(instructions, 0U);
  }
}

TEST(SourcePageReader, ReadsAnInstructionsAddressTextAndLanes) {
  auto page = read_source_page(ncu_fixture("planted/hist_i32/source.csv"));
  ASSERT_TRUE(page.ok()) << page.error().message;
  // The CUDA histogram's atomicAdd, inlined from the toolkit's header: one REDG per warp of 32
  // lanes ("REDG.E.ADD.STRONG.GPU desc[UR4][R4.64], R7","189",..., "262144","8388608", ...).
  const SassInstruction* red = nullptr;
  for (const SourceBlock& block : page->blocks) {
    for (const SourceLine& line : block.lines) {
      for (const SassInstruction& instruction : line.instructions) {
        if (block.function.starts_with("histogram_atomic_kernel") &&
            instruction.text.starts_with("REDG")) {
          red = &instruction;
        }
      }
    }
  }
  ASSERT_NE(red, nullptr);
  EXPECT_EQ(red->address, 0x7f6b9f7ff620U);
  EXPECT_EQ(red->text, "REDG.E.ADD.STRONG.GPU desc[UR4][R4.64], R7");
  EXPECT_EQ(red->counters.samples, 189);
  EXPECT_EQ(red->counters.instructions_executed, 262144);
  EXPECT_EQ(red->counters.thread_instructions_executed, 8388608);
  EXPECT_EQ(red->counters.l2_sectors, 262144);
}

TEST(SourcePageReader, ReadsTheCountersOfTheLoadLine) {
  const SourcePage page = read_page("softmax.source.csv");
  ASSERT_EQ(page.blocks.size(), 2U);
  const LineCounters& load = line_of_block(page.blocks[1], 11).counters;
  // The recorded row: "3728","1348","3728","4587520", ..., "Global(2)","Load(2)","128(2)".
  EXPECT_EQ(load.samples, 3728);
  EXPECT_EQ(load.samples_not_issued, 1348);
  EXPECT_EQ(load.instructions_executed, 4587520);
  EXPECT_EQ(load.access_size_bits, 128);
  EXPECT_GT(load.l2_sectors, 0);
  // Stall reasons sum to the line's samples and are named without their prefix.
  double stalls = 0;
  for (const auto& [reason, count] : load.stalls) {
    EXPECT_FALSE(reason.starts_with("stall_")) << reason;
    EXPECT_EQ(reason.find("Not Issued"), std::string::npos) << reason;
    EXPECT_GT(count, 0) << reason;
    stalls += count;
  }
  EXPECT_EQ(stalls, load.samples);
  EXPECT_GT(stall(load, "long_sb"), 0);
}

TEST(SourcePageReader, ReadsAnAccessSizeOfSeveralSizesAsZero) {
  const SourcePage page = read_page("matmul.source.csv");
  std::vector<double> sizes;
  for (const SourceLine& line : page.blocks.at(0).lines) {
    sizes.push_back(line.counters.access_size_bits);
  }
  // matmul's lines print "-", "128(12)", "128(24)" and "32(9),128(12)".
  EXPECT_NE(std::find(sizes.begin(), sizes.end(), 128.0), sizes.end());
  EXPECT_EQ(std::find_if(sizes.begin(), sizes.end(),
                         [](double size) { return size != 0 && size != 128; }),
            sizes.end());
  const std::string csv = slurp(source_fixture("matmul.source.csv"));
  ASSERT_NE(csv.find("\"32(9),128(12)\""), std::string::npos);
}

TEST(SourcePageReader, ReadsTheFourBlocksOfTwoKernels) {
  const SourcePage page = read_page("twostage.source.csv");
  ASSERT_EQ(page.blocks.size(), 4U);
  std::vector<std::string> functions;
  for (const SourceBlock& block : page.blocks) {
    functions.push_back(block.function);
  }
  EXPECT_EQ(functions, (std::vector<std::string>{"partial_sum_kernel", "partial_sum_kernel",
                                                 "scale_kernel", "scale_kernel"}));
}

TEST(SourcePageReader, ReadsAPageWithoutLineInfoAsItsWarningAndNoBlocks) {
  const SourcePage page = read_page("softmax-noline.source.csv");
  EXPECT_TRUE(page.blocks.empty());
  ASSERT_EQ(page.messages.size(), 1U);
  EXPECT_EQ(page.messages[0], "==WARNING== No lineinfo available to show CUDA-C source related "
                              "to 'softmax_kernel'.");
}

TEST(SourcePageReader, ReadsAnEmptyPageAsNoBlocks) {
  auto page = parse_source_page("");
  ASSERT_TRUE(page.ok()) << page.error().message;
  EXPECT_TRUE(page->blocks.empty());
}

TEST(SourcePageReader, FindsColumnsByNameWhateverTheirOrder) {
  const std::string text = "\"File Path\",\"/k.py\"\n"
                           "\"Function Name\",\"k\"\n"
                           "\"Instructions Executed\",\"stall_lg\",\"Line No\",\"Source\","
                           "\"Warp Stall Sampling (All Samples)\",\"stall_lg (Not Issued)\"\n"
                           "\"1,024\",\"7\",\"3\",\"y = x\",\"9\",\"2\"\n";
  auto page = parse_source_page(text);
  ASSERT_TRUE(page.ok()) << page.error().message;
  ASSERT_EQ(page->blocks.at(0).lines.size(), 1U);
  const SourceLine& line = page->blocks[0].lines[0];
  EXPECT_EQ(line.line, 3);
  EXPECT_EQ(line.text, "y = x");
  EXPECT_EQ(line.counters.samples, 9);
  EXPECT_EQ(line.counters.instructions_executed, 1024);
  EXPECT_EQ(line.counters.stalls,
            (std::vector<std::pair<std::string, double>>{{"lg", 7}})); // not its twin's 2
}

TEST(SourcePageReader, JoinsBackASourceTextThatNcuCutAtTheCommaOfAStringLiteral) {
  // What ncu prints for `s = tl.load(p, eviction_policy="a,b")` (quotes left unescaped).
  const std::string text = "\"File Path\",\"/k.py\"\n\"Function Name\",\"k\"\n"
                           "\"Line No\",\"Source\",\"Warp Stall Sampling (All Samples)\"\n"
                           "\"4\",\"s = tl.load(p, eviction_policy=\"a,b\")\",\"12\"\n";
  auto page = parse_source_page(text);
  ASSERT_TRUE(page.ok()) << page.error().message;
  const SourceLine& line = page->blocks.at(0).lines.at(0);
  EXPECT_EQ(line.text, "s = tl.load(p, eviction_policy=a,b)");
  EXPECT_EQ(line.counters.samples, 12);
}

// --- malformed pages: a message naming the line, never a crash ---------------------------

TEST(SourcePageReader, CallsAPageCutInsideARowMalformed) {
  const std::string text = slurp(source_fixture("softmax.source.csv"));
  const Error error = page_error(with_line_cut(text, 166, 60));
  EXPECT_EQ(error.category, ErrorCategory::malformed_input);
  EXPECT_NE(error.message.find("page.csv: line 166"), std::string::npos) << error.message;
}

TEST(SourcePageReader, CallsAPageCutInsideAQuotedFieldMalformed) {
  const std::string text = slurp(source_fixture("softmax.source.csv"));
  const Error error = page_error(with_line_cut(text, 166, 8));
  EXPECT_EQ(error.category, ErrorCategory::malformed_input);
  EXPECT_NE(error.message.find("line 166"), std::string::npos) << error.message;
}

TEST(SourcePageReader, CallsABlockThatEndsBeforeItsHeaderMalformed) {
  const std::string text = slurp(source_fixture("softmax.source.csv"));
  const Error error = page_error(with_line_cut(text, 145, 0));
  EXPECT_EQ(error.category, ErrorCategory::malformed_input);
  EXPECT_NE(error.message.find("kernel.py"), std::string::npos) << error.message;
  EXPECT_NE(error.message.find("header"), std::string::npos) << error.message;
}

TEST(SourcePageReader, CallsARowBeforeAnyBlockMalformed) {
  const Error error = page_error("\"11\",\"x = 1\",\"-\",\"-\",\"5\"\n");
  EXPECT_EQ(error.category, ErrorCategory::malformed_input);
  EXPECT_NE(error.message.find("page.csv: line 1: a record before any \"File Path\""),
            std::string::npos)
      << error.message;
}

TEST(SourcePageReader, CallsAHeaderWithoutTheSampleColumnMalformed) {
  const Error error = page_error("\"File Path\",\"/k.py\"\n\"Function Name\",\"k\"\n"
                                 "\"Line No\",\"Source\",\"Instructions Executed\"\n");
  EXPECT_EQ(error.category, ErrorCategory::malformed_input);
  EXPECT_NE(error.message.find("line 3"), std::string::npos) << error.message;
  EXPECT_NE(error.message.find("Warp Stall Sampling (All Samples)"), std::string::npos);
}

TEST(SourcePageReader, CallsALineNumberThatIsNotANumberMalformed) {
  const Error error = page_error("\"File Path\",\"/k.py\"\n\"Function Name\",\"k\"\n"
                                 "\"Line No\",\"Source\",\"Warp Stall Sampling (All Samples)\"\n"
                                 "\"eleven\",\"x = 1\",\"5\"\n");
  EXPECT_EQ(error.category, ErrorCategory::malformed_input);
  EXPECT_NE(error.message.find("line 4: \"Line No\" is not a line number"), std::string::npos)
      << error.message;
}

TEST(SourcePageReader, CallsTextThatIsNoSourcePageMalformed) {
  const Error csv_page = page_error(slurp(ncu_fixture("curated_nvtx_twostage.csv")));
  EXPECT_EQ(csv_page.category, ErrorCategory::malformed_input);
  const Error prose = page_error("hello\nworld\n");
  EXPECT_EQ(prose.category, ErrorCategory::malformed_input);
  EXPECT_NE(prose.message.find("line 1: not ncu's source page"), std::string::npos)
      << prose.message;
  const Error binary = page_error(std::string("NVR\0\x01", 5));
  EXPECT_NE(binary.message.find("ncu --import"), std::string::npos) << binary.message;
}

TEST(SourcePageReader, RefusesAFifoAndADirectoryLikeTheRawReader) {
  const ScratchDir dir;
  const std::filesystem::path fifo = dir.path() / "source.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto from_fifo = read_source_page(fifo);
  ASSERT_FALSE(from_fifo.ok());
  EXPECT_EQ(from_fifo.error().category, ErrorCategory::input_not_found);
  EXPECT_NE(from_fifo.error().message.find("is a FIFO, not a file"), std::string::npos);
  auto from_dir = read_source_page(dir.path());
  ASSERT_FALSE(from_dir.ok());
  EXPECT_NE(from_dir.error().message.find("is a directory"), std::string::npos);
  auto absent = read_source_page(dir.path() / "absent.csv");
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.error().category, ErrorCategory::input_not_found);
}

TEST(SourcePageReader, ReadsAFileExactlyAsItParsesItsText) {
  const std::string text = slurp(source_fixture("batch2.source.csv"));
  auto parsed = parse_source_page(text);
  ASSERT_TRUE(parsed.ok());
  const SourcePage read = read_page("batch2.source.csv");
  ASSERT_EQ(files_of(read), files_of(*parsed));
  for (std::size_t b = 0; b < read.blocks.size(); ++b) {
    ASSERT_EQ(read.blocks[b].lines.size(), parsed->blocks[b].lines.size());
    for (std::size_t i = 0; i < read.blocks[b].lines.size(); ++i) {
      EXPECT_EQ(read.blocks[b].lines[i].counters.samples,
                parsed->blocks[b].lines[i].counters.samples);
    }
  }
}

// --- LineCounters ------------------------------------------------------------------------

TEST(LineCounters, AddsEveryCounterAndMergesStallsByReason) {
  LineCounters a;
  a.samples = 10;
  a.l2_sectors_excessive = 4;
  a.access_size_bits = 128;
  a.stalls = {{"long_sb", 6}, {"wait", 4}};
  LineCounters b;
  b.samples = 5;
  b.l2_sectors_excessive = 1;
  b.access_size_bits = 128;
  b.stalls = {{"wait", 2}, {"barrier", 3}};
  a += b;
  EXPECT_EQ(a.samples, 15);
  EXPECT_EQ(a.l2_sectors_excessive, 5);
  EXPECT_EQ(a.access_size_bits, 128);
  EXPECT_EQ(a.stalls, (std::vector<std::pair<std::string, double>>{
                          {"long_sb", 6}, {"wait", 6}, {"barrier", 3}}));
  LineCounters c;
  c.access_size_bits = 32;
  a += c;
  EXPECT_EQ(a.access_size_bits, 0); // two sizes: none to report
}

// --- blocks to launches ------------------------------------------------------------------

/// The kernel name of every launch of a raw page, in launch order.
std::vector<std::string> kernel_names(const Capture& capture) {
  std::vector<std::string> names;
  for (const KernelRecord& kernel : capture.kernels) {
    names.push_back(kernel.name);
  }
  return names;
}

std::vector<std::size_t> block_counts(const std::vector<std::vector<SourceBlock>>& launches) {
  std::vector<std::size_t> counts;
  for (const auto& blocks : launches) {
    counts.push_back(blocks.size());
  }
  return counts;
}

TEST(SplitSourceByLaunch, GivesEachLaunchOfABatchItsOwnTwoBlocks) {
  const SourcePage page = read_page("batch2.source.csv");
  const auto names = kernel_names(read_fixture("source/batch2.raw.csv"));
  ASSERT_EQ(names.size(), 2U);
  auto launches = split_source_by_launch(page, names);
  ASSERT_TRUE(launches.ok()) << launches.error().message;
  ASSERT_EQ(block_counts(*launches), (std::vector<std::size_t>{2, 2}));
  EXPECT_EQ((*launches)[0][1].file, "/work/main/examples/softmax/kernel.py");
  EXPECT_EQ((*launches)[1][1].file, "/work/main/examples/softmax_variants/cand1.py");
  EXPECT_TRUE((*launches)[1][0].file.ends_with("/triton/language/standard.py"));
}

TEST(SplitSourceByLaunch, SplitsTwoKernelsByFunctionName) {
  const SourcePage page = read_page("twostage.source.csv");
  const auto names = kernel_names(read_fixture("source/twostage.raw.csv"));
  auto launches = split_source_by_launch(page, names);
  ASSERT_TRUE(launches.ok()) << launches.error().message;
  ASSERT_EQ(block_counts(*launches), (std::vector<std::size_t>{2, 2}));
  EXPECT_EQ((*launches)[1][0].function, "scale_kernel");
}

TEST(SplitSourceByLaunch, LeavesALaunchWithoutLineInfoEmpty) {
  const SourcePage page = read_page("softmax.source.csv");
  auto launches = split_source_by_launch(page, {"other_kernel", "softmax_kernel"});
  ASSERT_TRUE(launches.ok()) << launches.error().message;
  EXPECT_EQ(block_counts(*launches), (std::vector<std::size_t>{0, 2}));
  auto none = split_source_by_launch(read_page("softmax-noline.source.csv"), {"softmax_kernel"});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(block_counts(*none), (std::vector<std::size_t>{0}));
}

TEST(SplitSourceByLaunch, SaysWhenBlocksMatchNoLaunch) {
  const SourcePage page = read_page("batch2.source.csv");
  auto one = split_source_by_launch(page, {"softmax_kernel"}); // two launches' blocks
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.error().category, ErrorCategory::malformed_input);
  EXPECT_NE(one.error().message.find("softmax_kernel"), std::string::npos);
  auto other = split_source_by_launch(page, {"add_kernel", "add_kernel"});
  ASSERT_FALSE(other.ok());
}

} // namespace
} // namespace kprof
