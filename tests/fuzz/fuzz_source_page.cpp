// libFuzzer target for the source-page reader and what reads its result: any input must give a
// page or a typed error, never a crash. A page that parses is split by launch (with its own
// function names, which must always match), folded with an inline map read from the same input
// as PTX, and written as JSON; the input is also fed to InlineMap as PTX on its own.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "kprof/hot_lines.hpp"
#include "kprof/json_file.hpp"
#include "kprof/source_page.hpp"

namespace {

[[noreturn]] void broken(const char* what) {
  std::fprintf(stderr, "fuzz_source_page: %s\n", what);
  std::abort();
}

/// One launch per run of blocks of one function: always a valid set of launch names.
std::vector<std::string> launch_names(const kprof::SourcePage& page) {
  std::vector<std::string> names;
  for (const kprof::SourceBlock& block : page.blocks) {
    names.push_back(block.function);
  }
  return names;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  kprof::InlineMap map;
  map.add_ptx(text);

  auto page = kprof::parse_source_page(text, "<fuzz>");
  if (!page.ok()) {
    if (page.error().category != kprof::ErrorCategory::malformed_input) {
      broken("a page failed with another category than malformed_input");
    }
    return 0;
  }
  for (const kprof::SourceBlock& block : page->blocks) {
    for (const kprof::SourceLine& line : block.lines) {
      if (line.line <= 0) {
        broken("a line number below 1");
      }
    }
  }
  // One launch per block always fits, whatever the grouping rule makes of the blocks.
  auto launches = kprof::split_source_by_launch(*page, launch_names(*page));
  if (!launches.ok()) {
    broken("the blocks did not fit one launch per block");
  }
  for (const auto& blocks : *launches) {
    const kprof::KernelHotLines hot = kprof::fold_hot_lines(blocks, map);
    const kprof::Json json = kprof::hot_lines_to_json(hot);
    (void)kprof::diff_hot_lines(json, json);
    (void)kprof::json_text(json);
  }
  return 0;
}
