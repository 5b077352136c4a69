// libFuzzer target for the ncu CSV reader: any input must give a Capture or a typed error,
// never a crash, and the result must not depend on how the input is split into chunks. Every
// unit of the reader is reached: the tokenizer and the stream (ncu_reader.cpp), the raw and the
// details page (a header with Section Name, Metric Name and Metric Value picks the details page;
// the corpus has both), and the value parser, also called directly on the input as one field.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "csv/ncu_reader_internal.hpp"
#include "csv/ncu_values.hpp"
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

  // The value parser on the input as one field (short inputs: fields are short).
  if (size <= 512) {
    for (const int exponent : {0, 3, 12}) {
      (void)kprof::csv::parse_metric_value(text, exponent);
    }
    (void)kprof::csv::parse_dim3(text);
    (void)kprof::csv::parse_nvtx_stack(text);
    (void)kprof::csv::parse_grouped_int(text);
    (void)kprof::csv::normalise_unit(text);
  }

  // A projection that keeps everything reads exactly what no projection reads.
  kprof::ReadOptions keep_all;
  keep_all.keep_column = [](std::string_view /*name*/) { return true; };
  auto kept = kprof::parse_ncu_csv(text, keep_all);
  if (kept.ok() != whole.ok() ||
      (whole.ok() && !kprof::csv::capture_difference(*whole, *kept).empty())) {
    disagree("a keep-everything projection changed the data");
  }

  // A projection must read the same data, only less of it; a details page may be kept whole.
  kprof::ReadOptions options;
  options.keep_column = [](std::string_view name) { return name.size() % 2 == 0; };
  auto projected = kprof::parse_ncu_csv(text, options);
  if (projected.ok() != whole.ok()) {
    disagree("projection changed the outcome");
  }
  options.project_details_page = false;
  auto raw_only = kprof::parse_ncu_csv(text, options);
  if (raw_only.ok() != whole.ok()) {
    disagree("a raw-page-only projection changed the outcome");
  }
  return 0;
}
