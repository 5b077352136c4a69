// read_big FILE [--all]: reads an ncu CSV once with the 29-metric projection (or every column
// with --all) and prints what it got and how long it took. Run under /usr/bin/time -v for the
// peak RSS; docs/performance.md has the figures.
#include <chrono>
#include <cstdio>
#include <string_view>
#include <unordered_set>

#include "big_csv.hpp"
#include "kprof/ncu_output.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && std::string_view(argv[2]) != "--all")) {
    std::fprintf(stderr, "usage: read_big FILE [--all]\n");
    return 2;
  }
  const bool all = argc == 3;
  const auto& names = kprof::bench::projection_29();
  const std::unordered_set<std::string_view> wanted(names.begin(), names.end());
  kprof::ReadOptions options;
  if (!all) {
    options.keep_column = [&](std::string_view name) { return wanted.contains(name); };
  }
  const auto start = std::chrono::steady_clock::now();
  const auto capture = kprof::read_ncu_csv_file(argv[1], options);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  if (!capture.ok()) {
    std::fprintf(stderr, "read_big: %s\n", capture.error().message.c_str());
    return 1;
  }
  std::printf("kernels=%zu columns=%zu seconds=%.3f\n", capture->kernels.size(),
              capture->columns.size(), elapsed.count());
  return 0;
}
