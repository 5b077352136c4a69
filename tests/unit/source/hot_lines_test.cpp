// Tests of hot lines (src/source): the inline map read from Triton's PTX, the folding of
// library lines into the user's lines, the JSON member and its diff, and finding PTX in a
// Triton cache. The numbers come from the recorded pages of tests/fixtures/ncu/2025.3.1/source/
// and are checked against sums computed here from the page's own lines.
#include <gtest/gtest.h>

#include <stdlib.h> // mkdtemp

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kprof/hot_lines.hpp"
#include "kprof/source_page.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;

const std::string k_cand1 = "/work/main/examples/softmax_variants/cand1.py";
const std::string k_standard =
    "/opt/torch/.venv/lib/python3.12/site-packages/triton/language/standard.py";

fs::path fixture(std::string_view name) {
  return fs::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1" / "source" / std::string(name);
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("cannot open " + path.string());
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

SourcePage page_of(std::string_view name) {
  auto page = read_source_page(fixture(name));
  if (!page.ok()) {
    throw std::runtime_error(page.error().message);
  }
  return std::move(page).value();
}

/// The blocks of launch `index` of a page whose launches are all named `kernel`.
std::vector<SourceBlock> launch_of(std::string_view name, std::size_t index, std::size_t launches,
                                   const std::string& kernel) {
  auto split = split_source_by_launch(page_of(name), std::vector<std::string>(launches, kernel));
  if (!split.ok()) {
    throw std::runtime_error(split.error().message);
  }
  return split->at(index);
}

InlineMap cand1_map() {
  InlineMap map;
  map.add_ptx(slurp(fixture("softmax_kernel.ptx")));
  return map;
}

/// The samples the page gives `file:line` (its basename is enough), 0 when it has no row.
double page_samples(const std::vector<SourceBlock>& blocks, std::string_view file, int line) {
  double samples = 0;
  for (const SourceBlock& block : blocks) {
    if (!block.file.ends_with(file)) {
      continue;
    }
    for (const SourceLine& source : block.lines) {
      samples += source.line == line ? source.counters.samples : 0;
    }
  }
  return samples;
}

double all_samples(const std::vector<SourceBlock>& blocks) {
  double samples = 0;
  for (const SourceBlock& block : blocks) {
    for (const SourceLine& source : block.lines) {
      samples += source.counters.samples;
    }
  }
  return samples;
}

const HotLine& hot_line(const KernelHotLines& hot, int line) {
  for (const HotLine& found : hot.lines) {
    if (found.line == line) {
      return found;
    }
  }
  throw std::runtime_error("no hot line " + std::to_string(line));
}

std::vector<int> inlined_lines(const HotLine& line) {
  std::vector<int> lines;
  for (const InlinedPart& part : line.inlined) {
    lines.push_back(part.line);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

bool has_note(const KernelHotLines& hot, std::string_view text) {
  return std::any_of(hot.notes.begin(), hot.notes.end(),
                     [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

/// A fresh directory, removed with everything in it.
class TempDir {
public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "kprof-source-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp failed");
    }
    m_path = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir(TempDir&&) = delete;
  TempDir& operator=(TempDir&&) = delete;
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(m_path, ignored);
  }
  [[nodiscard]] const fs::path& path() const { return m_path; }
  fs::path write(const fs::path& relative, std::string_view text) const {
    const fs::path file = m_path / relative;
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }

private:
  fs::path m_path;
};

std::string replaced(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// --- which files are Triton's --------------------------------------------------------------

TEST(TritonLibraryFile, IsAFileUnderTritonLanguage) {
  EXPECT_TRUE(is_triton_library_file(k_standard));
  EXPECT_TRUE(is_triton_library_file("/usr/lib/python3/dist-packages/triton/language/math.py"));
  EXPECT_FALSE(is_triton_library_file(k_cand1));
  EXPECT_FALSE(is_triton_library_file("/home/me/triton_kernels/language.py"));
}

// --- the inline map ------------------------------------------------------------------------

TEST(InlineMap, ResolvesTheChainsOfTheRecordedPtxToTheUsersLines) {
  InlineMap map = cand1_map();
  ASSERT_FALSE(map.empty());
  for (const int line : {170, 191}) {
    const auto callers = map.callers(k_standard, line);
    ASSERT_EQ(callers.size(), 1U) << line;
    EXPECT_EQ(callers[0].file, k_cand1); // the basename of the comment, resolved by `.file`
    EXPECT_EQ(callers[0].line, 13);
  }
  for (const int line : {263, 293}) {
    const auto callers = map.callers("standard.py", line); // a basename is enough
    ASSERT_EQ(callers.size(), 1U) << line;
    EXPECT_EQ(callers[0].line, 15);
  }
  EXPECT_TRUE(map.callers(k_standard, 171).empty());
  EXPECT_TRUE(map.callers(k_cand1, 13).empty()); // a user line is nobody's inlined callee
}

TEST(InlineMap, NamesTheCalleeFromTheUsersLineWithOrWithoutItsIndentation) {
  InlineMap trimmed = cand1_map();
  trimmed.add_user_source(k_cand1, 13, "x = x - tl.max(x, axis=0)"); // as ncu prints it
  trimmed.add_user_source(k_cand1, 15, "out = num / tl.sum(num, axis=0)");
  EXPECT_EQ(trimmed.callers(k_standard, 170).at(0).callee, "tl.max");
  EXPECT_EQ(trimmed.callers(k_standard, 293).at(0).callee, "tl.sum");
  InlineMap indented = cand1_map();
  indented.add_user_source(k_cand1, 13, "    x = x - tl.max(x, axis=0)"); // as in the file
  EXPECT_EQ(indented.callers(k_standard, 191).at(0).callee, "tl.max");
  EXPECT_EQ(cand1_map().callers(k_standard, 191).at(0).callee, ""); // no text: unknown
}

TEST(InlineMap, GivesALibraryLineCalledInsideAUserHelperToTheHelpersLine) {
  // The kernel (k.py:9) calls the user's own @triton.jit helper, whose line 4 calls tl.max.
  InlineMap map;
  map.add_ptx("\t.loc\t3 170 27 // standard.py:170:27 @[ helper.py:4:18 @[ k.py:9:8 ] ]\n"
              "\t.file\t1 \"/w/k.py\"\n\t.file\t2 \"/w/helper.py\"\n\t.file\t3 \"" +
              k_standard + "\"\n");
  map.add_user_source("/w/helper.py", 4, "return tl.max(x, 0)");
  const auto callers = map.callers(k_standard, 170);
  ASSERT_EQ(callers.size(), 1U);
  EXPECT_EQ(callers[0].file, "/w/helper.py");
  EXPECT_EQ(callers[0].line, 4);
  EXPECT_EQ(callers[0].callee, "tl.max");
}

TEST(InlineMap, AddsNothingForTextThatIsNotPtxOrHasNoInlineChain) {
  InlineMap map;
  map.add_ptx("");
  map.add_ptx("hello @[ world ]\n.loc garbage // a.py:1:2 @[ b.py:x:1 ]\n");
  map.add_ptx("\t.loc\t1 9 24 // cand1.py:9:24\n\t.file\t1 \"/w/cand1.py\"\n");
  EXPECT_TRUE(map.empty());
}

// --- folding -------------------------------------------------------------------------------

TEST(FoldHotLines, PutsTheInlinedMaxAndSumOfTheBatchsSecondLaunchOnTheirCallers) {
  const auto blocks = launch_of("batch2.source.csv", 1, 2, "softmax_kernel");
  ASSERT_EQ(blocks.size(), 2U);
  ASSERT_EQ(blocks[1].file, k_cand1);
  const KernelHotLines hot = fold_hot_lines(blocks, cand1_map());

  EXPECT_EQ(hot.samples, all_samples(blocks));
  const HotLine& max_line = hot_line(hot, 13);
  EXPECT_EQ(max_line.counters.samples, page_samples(blocks, "cand1.py", 13) +
                                           page_samples(blocks, "standard.py", 170) +
                                           page_samples(blocks, "standard.py", 191));
  EXPECT_EQ(inlined_lines(max_line), (std::vector<int>{170, 191}));
  EXPECT_EQ(max_line.inlined.at(0).callee, "tl.max");
  const HotLine& sum_line = hot_line(hot, 15);
  EXPECT_EQ(sum_line.counters.samples, page_samples(blocks, "cand1.py", 15) +
                                           page_samples(blocks, "standard.py", 263) +
                                           page_samples(blocks, "standard.py", 293));
  EXPECT_EQ(inlined_lines(sum_line), (std::vector<int>{263, 293}));
  EXPECT_EQ(sum_line.inlined.at(0).callee, "tl.sum");
  EXPECT_EQ(sum_line.text, "out = num / tl.sum(num, axis=0)");
  EXPECT_TRUE(hot.unattributed.empty());
  // Everything landed on a user line: the shares add up to the whole kernel.
  const double shares = std::accumulate(hot.lines.begin(), hot.lines.end(), 0.0,
                                        [](double sum, const HotLine& l) { return sum + l.share; });
  EXPECT_NEAR(shares, 1.0, 1e-9);
  // Ranked by samples.
  EXPECT_TRUE(std::is_sorted(hot.lines.begin(), hot.lines.end(), [](const auto& a, const auto& b) {
    return a.counters.samples > b.counters.samples;
  }));
  EXPECT_TRUE(hot.notes.empty()) << hot.notes.at(0);
}

TEST(FoldHotLines, MakesTheLoadLineTheHottestOfSoftmaxWithHalfTheSamples) {
  const SourcePage page = page_of("softmax.source.csv");
  const KernelHotLines hot = fold_hot_lines(page.blocks, InlineMap{});
  ASSERT_FALSE(hot.lines.empty());
  const HotLine& top = hot.lines.front();
  EXPECT_EQ(top.line, 11);
  EXPECT_TRUE(top.text.starts_with("x = tl.load("));
  EXPECT_EQ(top.share, page_samples(page.blocks, "kernel.py", 11) / all_samples(page.blocks));
  EXPECT_NEAR(top.share, 0.5, 0.05);
  EXPECT_FALSE(top.few_samples);
  EXPECT_FALSE(hot.few_samples);
  // Without PTX the library lines stay apart, and the kernel says so.
  EXPECT_EQ(hot.unattributed.size(), 4U);
  EXPECT_TRUE(has_note(hot, "Triton library lines not folded: no PTX of this kernel"));
  for (const HotLine& line : hot.lines) {
    EXPECT_FALSE(is_triton_library_file(line.file)) << line.file;
  }
}

TEST(FoldHotLines, LeavesLibraryLinesAloneWhenThePtxIsOfAnotherKernelsFile) {
  // cand1.py's PTX against the first launch (examples/softmax/kernel.py).
  const auto blocks = launch_of("batch2.source.csv", 0, 2, "softmax_kernel");
  const KernelHotLines hot = fold_hot_lines(blocks, cand1_map());
  EXPECT_EQ(hot.unattributed.size(), 4U);
  for (const HotLine& line : hot.lines) {
    EXPECT_TRUE(line.inlined.empty());
    EXPECT_EQ(line.file, "/work/main/examples/softmax/kernel.py");
  }
  EXPECT_TRUE(has_note(hot, "Triton library lines not folded: no PTX of this kernel"));
}

TEST(FoldHotLines, KeepsALibraryLineCalledFromTwoUserLinesUnattributedWithItsCallee) {
  const std::string ptx = "\t.loc\t2 263 15 // standard.py:263:15 @[ k.py:5:23 ]\n"
                          "\t.loc\t2 263 15 // standard.py:263:15 @[ k.py:7:23 ]\n"
                          "\t.file\t1 \"/w/k.py\"\n"
                          "\t.file\t2 \"" +
                          k_standard + "\"\n";
  InlineMap map;
  map.add_ptx(ptx);
  LineCounters lib;
  lib.samples = 40;
  LineCounters own;
  own.samples = 10;
  const std::vector<SourceBlock> blocks = {
      {k_standard, "k", {{263, "return a + b", lib}}},
      {"/w/k.py",
       "k",
       {{5, "out = num / tl.sum(num, axis=0)", own}, {7, "den = num / tl.sum(num, axis=0)", own}}},
  };
  const KernelHotLines hot = fold_hot_lines(blocks, map);
  ASSERT_EQ(hot.unattributed.size(), 1U);
  EXPECT_EQ(hot.unattributed[0].callee, "tl.sum");
  EXPECT_EQ(hot.unattributed[0].line, 263);
  EXPECT_EQ(hot.unattributed[0].samples, 40);
  ASSERT_EQ(hot.lines.size(), 2U);
  EXPECT_EQ(hot.lines[0].counters.samples, 10);
  EXPECT_EQ(hot.lines[0].line, 5); // a tie keeps line order
  EXPECT_EQ(hot.lines[0].share, 10.0 / 60.0);
  EXPECT_TRUE(has_note(hot, "40 samples (66.7% of the kernel) on Triton library lines that no "
                            "single user line called"));
}

TEST(FoldHotLines, CreatesTheCallersLineWhenItHadNoSamplesOfItsOwn) {
  InlineMap map;
  map.add_ptx("\t.loc\t2 170 27 // standard.py:170:27 @[ k.py:9:19 ]\n\t.file\t1 \"/w/k.py\"\n"
              "\t.file\t2 \"" +
              k_standard + "\"\n");
  LineCounters lib;
  lib.samples = 30;
  LineCounters own;
  own.samples = 300;
  const std::vector<SourceBlock> blocks = {
      {k_standard, "k", {{170, "return core.maximum(a, b)", lib}}},
      {"/w/k.py", "k", {{8, "y = tl.load(p)", own}, {9, "m = tl.max(y, 0)", {}}}},
  };
  const KernelHotLines hot = fold_hot_lines(blocks, map);
  const HotLine& max_line = hot_line(hot, 9);
  EXPECT_EQ(max_line.counters.samples, 30);
  EXPECT_EQ(max_line.text, "m = tl.max(y, 0)");
  EXPECT_EQ(max_line.inlined.at(0).callee, "tl.max");
  EXPECT_EQ(hot.lines.front().line, 8);
}

TEST(FoldHotLines, ListsEveryLibraryLineItFoldedSamplesOrNot) {
  InlineMap map;
  map.add_ptx("\t.loc\t2 170 27 // standard.py:170:27 @[ k.py:9:19 ]\n"
              "\t.loc\t2 191 40 // standard.py:191:40 @[ k.py:9:19 ]\n\t.file\t1 \"/w/k.py\"\n"
              "\t.file\t2 \"" +
              k_standard + "\"\n");
  LineCounters lib;
  lib.samples = 30;
  const std::vector<SourceBlock> blocks = {
      {k_standard, "k", {{170, "return core.maximum(a, b)", lib}, {191, "return max(x)", {}}}},
      {"/w/k.py", "k", {{9, "m = tl.max(y, 0)", lib}}},
  };
  const KernelHotLines hot = fold_hot_lines(blocks, map);
  ASSERT_EQ(hot.folded.size(), 2U);
  for (const FoldedLine& folded : hot.folded) {
    EXPECT_EQ(folded.library_file, k_standard);
    EXPECT_EQ(folded.file, "/w/k.py");
    EXPECT_EQ(folded.line, 9);
  }
  EXPECT_EQ(hot.folded[1].library_line, 191); // no samples, still placed
}

TEST(FoldHotLines, SaysWhenAKernelHasTooFewSamplesToTrustItsShares) {
  LineCounters few;
  few.samples = 12;
  const std::vector<SourceBlock> blocks = {{"/w/k.py", "k", {{3, "x = 1", few}}}};
  const KernelHotLines hot = fold_hot_lines(blocks, InlineMap{});
  EXPECT_TRUE(hot.few_samples);
  EXPECT_TRUE(hot.lines.at(0).few_samples);
  EXPECT_TRUE(has_note(hot, "only 12 samples"));
  HotLineOptions lenient;
  lenient.min_kernel_samples = 10;
  lenient.min_line_samples = 10;
  const KernelHotLines trusted = fold_hot_lines(blocks, InlineMap{}, lenient);
  EXPECT_FALSE(trusted.few_samples);
  EXPECT_FALSE(trusted.lines.at(0).few_samples);
  EXPECT_TRUE(trusted.notes.empty());
}

TEST(FoldHotLines, GivesNothingForALaunchWithoutBlocks) {
  const KernelHotLines hot = fold_hot_lines({}, cand1_map());
  EXPECT_EQ(hot.samples, 0);
  EXPECT_TRUE(hot.lines.empty());
  EXPECT_TRUE(hot.unattributed.empty());
  EXPECT_TRUE(hot.notes.empty());
}

TEST(FoldHotLines, SharesOfEachKernelOfTwoAreOfThatKernelsSamplesOnly) {
  auto launches = split_source_by_launch(page_of("twostage.source.csv"),
                                         {"partial_sum_kernel", "scale_kernel"});
  ASSERT_TRUE(launches.ok());
  for (const auto& blocks : *launches) {
    const KernelHotLines hot = fold_hot_lines(blocks, InlineMap{});
    double covered = 0;
    for (const HotLine& line : hot.lines) {
      covered += line.counters.samples;
    }
    for (const InlinedPart& part : hot.unattributed) {
      covered += part.samples;
    }
    EXPECT_EQ(covered, all_samples(blocks));
    EXPECT_EQ(hot.samples, all_samples(blocks));
  }
}

// --- JSON ----------------------------------------------------------------------------------

TEST(HotLinesJson, HasTheDocumentedShapeWithTheTopLinesAndStalls) {
  const auto blocks = launch_of("batch2.source.csv", 1, 2, "softmax_kernel");
  const KernelHotLines hot = fold_hot_lines(blocks, cand1_map());
  HotLineOptions options;
  options.top = 3;
  options.top_stalls = 2;
  const Json json = Json::parse(hot_lines_to_json(hot, options).dump());
  EXPECT_EQ(json["samples"], all_samples(blocks));
  EXPECT_EQ(json["few_samples"], false);
  ASSERT_EQ(json["lines"].size(), 3U);
  const Json& top = json["lines"][0];
  std::vector<std::string> keys;
  for (const auto& item : top.items()) {
    keys.push_back(item.key());
  }
  EXPECT_EQ(keys,
            (std::vector<std::string>{"file", "line", "source", "samples", "share", "few_samples",
                                      "instructions_executed", "stalls", "memory", "inlined"}));
  EXPECT_EQ(top["line"], hot.lines[0].line);
  EXPECT_EQ(top["samples"], hot.lines[0].counters.samples);
  ASSERT_LE(top["stalls"].size(), 2U);
  EXPECT_GE(top["stalls"][0]["samples"].get<double>(), top["stalls"][1]["samples"].get<double>());
  EXPECT_LE(top["stalls"][0]["share"].get<double>(), 1.0);
  EXPECT_TRUE(top["memory"].contains("l2_sectors_excessive"));
  EXPECT_TRUE(top["memory"].contains("access_size_bits"));
  const Json& max_line = json["lines"][1]["line"] == 13 ? json["lines"][1] : json["lines"][2];
  ASSERT_EQ(max_line["line"], 13);
  EXPECT_EQ(max_line["inlined"][0]["callee"], "tl.max");
  EXPECT_TRUE(json["unattributed"].is_array());
  EXPECT_TRUE(json["notes"].is_array());
}

TEST(HotLinesJson, WritesAnUnknownCalleeAsNull) {
  const KernelHotLines hot = fold_hot_lines(page_of("softmax.source.csv").blocks, InlineMap{});
  const Json json = hot_lines_to_json(hot);
  ASSERT_FALSE(json["unattributed"].empty());
  EXPECT_TRUE(json["unattributed"][0]["callee"].is_null());
  EXPECT_EQ(json["unattributed"][0]["file"], k_standard);
}

TEST(DiffHotLines, MatchesLinesBySourceTextAcrossAShiftOfLineNumbers) {
  // The batch's two candidates: cand1.py has one line more above the kernel.
  const Json before = hot_lines_to_json(
      fold_hot_lines(launch_of("batch2.source.csv", 0, 2, "softmax_kernel"), InlineMap{}));
  const Json after = hot_lines_to_json(
      fold_hot_lines(launch_of("batch2.source.csv", 1, 2, "softmax_kernel"), cand1_map()));
  const Json diff = diff_hot_lines(before, after);
  ASSERT_FALSE(diff.empty());
  const Json& load = diff[0];
  EXPECT_TRUE(load["source"].get<std::string>().starts_with("x = tl.load("));
  EXPECT_EQ(load["before"]["line"], 11);
  EXPECT_EQ(load["after"]["line"], 12);
  EXPECT_EQ(load["after"]["share"], after["lines"][0]["share"]);
  // Ordered by the larger share of the two sides.
  double previous = 2;
  for (const Json& row : diff) {
    const double share =
        std::max(row["before"].is_null() ? 0.0 : row["before"]["share"].get<double>(),
                 row["after"].is_null() ? 0.0 : row["after"]["share"].get<double>());
    EXPECT_LE(share, previous);
    previous = share;
  }
}

TEST(DiffHotLines, CollapsesWhitespaceAndShowsLinesOnOneSideAsNull) {
  const Json before = Json::parse(R"json({"lines": [
      {"source": "x  =  tl.load(p)", "line": 4, "share": 0.5, "samples": 50},
      {"source": "y = gone(x)", "line": 5, "share": 0.2, "samples": 20}]})json");
  const Json after = Json::parse(R"json({"lines": [
      {"source": "x = tl.load(p)", "line": 9, "share": 0.1, "samples": 10},
      {"source": "z = new(x)", "line": 10, "share": 0.3, "samples": 30}]})json");
  const Json diff = diff_hot_lines(before, after);
  ASSERT_EQ(diff.size(), 3U);
  EXPECT_EQ(diff[0]["before"]["line"], 4);
  EXPECT_EQ(diff[0]["after"]["line"], 9);
  EXPECT_EQ(diff[1]["source"], "z = new(x)");
  EXPECT_TRUE(diff[1]["before"].is_null());
  EXPECT_TRUE(diff[2]["after"].is_null());
  EXPECT_TRUE(diff_hot_lines(Json("no"), Json::array()).empty());
  EXPECT_EQ(diff_hot_lines(Json(nullptr), after).size(), 2U);
}

// --- the Triton cache ----------------------------------------------------------------------

TEST(FindTritonPtx, KeepsOnlyFreshPtxOfTheKernelThatNamesTheUsersFile) {
  const TempDir dir;
  const fs::path user = dir.write("work/cand1.py", "# the kernel\n");
  const std::string ptx = slurp(fixture("softmax_kernel.ptx"));
  const std::string mine = replaced(ptx, k_cand1, user.string());
  const fs::path cache = dir.path() / "cache";
  dir.write("cache/fresh/softmax_kernel.ptx", mine);
  const fs::path old = dir.write("cache/old/softmax_kernel.ptx", mine);
  dir.write("cache/other-kernel/add_kernel.ptx", mine);
  dir.write("cache/other-file/softmax_kernel.ptx", ptx); // names /work/main/.../cand1.py
  dir.write("cache/deeper/nested/softmax_kernel.ptx", mine);
  const auto written = fs::last_write_time(user);
  fs::last_write_time(old, written - std::chrono::hours(1));

  const auto found = find_triton_ptx(cache, {"softmax_kernel"}, user, written);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0], mine);
  // Through another spelling of the same path.
  const fs::path roundabout = dir.path() / "work" / ".." / "work" / "cand1.py";
  EXPECT_EQ(find_triton_ptx(cache, {"softmax_kernel"}, roundabout, written).size(), 1U);
  // Everything when nothing is too old.
  EXPECT_EQ(
      find_triton_ptx(cache, {"softmax_kernel", "add_kernel"}, user, fs::file_time_type::min())
          .size(),
      3U);
}

TEST(FindTritonPtx, FindsNothingInACacheThatIsNotThere) {
  const TempDir dir;
  EXPECT_TRUE(
      find_triton_ptx(dir.path() / "absent", {"k"}, dir.path() / "k.py", fs::file_time_type::min())
          .empty());
}

} // namespace
} // namespace kprof
