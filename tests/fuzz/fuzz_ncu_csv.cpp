// libFuzzer target for the ncu CSV reader: any input must give a Capture or a typed error,
// never a crash, and the result must not depend on how the input is split into chunks.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "csv/ncu_reader_internal.hpp"
#include "kprof/ncu_output.hpp"

namespace {

[[noreturn]] void disagree(const std::string& what) {
  std::fprintf(stderr, "fuzz_ncu_csv: whole and chunked parses disagree: %s\n", what.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto whole = kprof::parse_ncu_csv(text);

  // A small chunk size picked by the input itself, so the fuzzer explores boundaries too.
  const std::size_t chunk = 1 + (size == 0 ? 0 : data[size - 1] % 13);
  auto chunked = kprof::csv::parse_ncu_csv_chunked(text, {}, "<memory>", chunk);

  if (whole.ok() != chunked.ok()) {
    disagree(whole.ok() ? "chunked failed: " + chunked.error().message
                        : "whole failed: " + whole.error().message);
  }
  if (whole.ok()) {
    if (const std::string difference = kprof::csv::capture_difference(*whole, *chunked);
        !difference.empty()) {
      disagree(difference);
    }
  } else if (whole.error().category != chunked.error().category ||
             whole.error().message != chunked.error().message) {
    disagree(whole.error().message + " | " + chunked.error().message);
  }

  // A projection must read the same data, only less of it.
  kprof::ReadOptions options;
  options.keep_column = [](std::string_view name) { return name.size() % 2 == 0; };
  auto projected = kprof::parse_ncu_csv(text, options);
  if (projected.ok() != whole.ok()) {
    disagree("projection changed the outcome");
  }
  return 0;
}
