// make_big_csv OUT ROWS [TEMPLATE]: writes a raw-page `--set full` ncu CSV of ROWS kernel rows
// (20,000 rows ~ 317 MB, the size of KernelAgent's reference file) for the reader's benchmarks.
#include <cstdio>
#include <string>

#include "big_csv.hpp"
#include "kprof/numbers.hpp"

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "usage: make_big_csv OUT ROWS [TEMPLATE]\n");
    return 2;
  }
  const auto rows = kprof::parse_int(argv[2]);
  if (!rows || *rows < 0) {
    std::fprintf(stderr, "make_big_csv: ROWS must be a non-negative integer\n");
    return 2;
  }
  const std::filesystem::path templ = argc == 4 ? argv[3] : kprof::bench::default_template();
  std::size_t bytes = 0;
  const std::string error =
      kprof::bench::write_big_csv(argv[1], static_cast<std::size_t>(*rows), templ, bytes);
  if (!error.empty()) {
    std::fprintf(stderr, "make_big_csv: %s\n", error.c_str());
    return 1;
  }
  std::printf("%s: %lld rows, %zu bytes\n", argv[1], static_cast<long long>(*rows), bytes);
  return 0;
}
