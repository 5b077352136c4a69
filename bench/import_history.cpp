// bench_import_history OUT_DIR [--count N] [--shard S] [--one-by-one] [--metrics SET]
//                      [--report FILE]
//
// What importing the results of a batch into the history costs: records N candidate results of
// one round (candidates 0..N-1, every 25th a failed candidate with an error instead of a report)
// into a fresh OUT_DIR/kprof.db, S entries per HistoryStore::record_rounds() transaction, or
// one record_round() per entry with --one-by-one. Each entry's document is the report FILE
// (default: the report `kprof report --metrics SET` builds from the recorded ncu output
// tests/fixtures/ncu/2025.3.1/curated_nvtx_twostage.csv, SET "default" unless given; "all" keeps
// all 323 metric columns; written to OUT_DIR/report.json) with its round, candidate and kernel
// file set. Prints the time spent in
// the store, entries per second and the database size. Run under /usr/bin/time -v for the peak
// RSS; docs/performance.md has the figures.
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "kprof/analysis.hpp"
#include "kprof/files.hpp"
#include "kprof/history.hpp"
#include "kprof/json_file.hpp"
#include "kprof/metric_sets.hpp"
#include "kprof/ncu_output.hpp"
#include "kprof/report.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int k_round = 1;
constexpr int k_error_every = 25; // 4 % of the candidates failed

struct Options {
  fs::path out_dir;
  int count = 10'000;
  int shard = 8;
  bool one_by_one = false;
  std::string metrics = "default";
  fs::path report;
};

std::optional<int> parse_positive(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1) {
    return std::nullopt;
  }
  return value;
}

std::optional<Options> parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--one-by-one") {
      options.one_by_one = true;
    } else if ((arg == "--count" || arg == "--shard") && has_value) {
      const auto value = parse_positive(argv[++i]);
      if (!value) {
        return std::nullopt;
      }
      (arg == "--count" ? options.count : options.shard) = *value;
    } else if (arg == "--metrics" && has_value) {
      options.metrics = argv[++i];
    } else if (arg == "--report" && has_value) {
      options.report = argv[++i];
    } else if (!arg.starts_with("--") && options.out_dir.empty()) {
      options.out_dir = arg;
    } else {
      return std::nullopt;
    }
  }
  if (options.out_dir.empty()) {
    return std::nullopt;
  }
  if (options.one_by_one) {
    options.shard = 1;
  }
  return options;
}

/// The report every ok candidate records: FILE, or the one built from the recorded fixture.
kprof::Result<kprof::Json> base_report(const Options& options) {
  if (!options.report.empty()) {
    return kprof::load_report(options.report);
  }
  auto set = kprof::resolve_metric_set(options.metrics, kprof::MetricSetUse::read);
  if (!set) {
    return std::move(set).error();
  }
  // Read as kprof reads a capture: only the set's columns and what the analysis needs.
  const fs::path csv =
      fs::path(KPROF_FIXTURES_DIR) / "ncu" / "2025.3.1" / "curated_nvtx_twostage.csv";
  auto capture = kprof::read_ncu_csv_file(csv, kprof::read_options_for(*set));
  if (!capture) {
    return std::move(capture).error();
  }
  auto analysis = kprof::analyse(*capture, kprof::SelectOptions{});
  if (!analysis) {
    return std::move(analysis).error();
  }
  kprof::Json report = kprof::build_report(*capture, *analysis, *set);
  if (auto valid = kprof::validate_report(report); !valid) {
    return std::move(valid).error();
  }
  if (auto written =
          kprof::write_file_atomic(options.out_dir / "report.json", kprof::json_text(report, 2));
      !written) {
    return std::move(written).error();
  }
  return report;
}

/// Candidate `candidate` of the round: a report, or (every 25th) the error of a failed run.
kprof::RoundEntry candidate_entry(const kprof::Json& report, int candidate) {
  kprof::RoundEntry entry;
  entry.round = k_round;
  entry.candidate = candidate;
  entry.label = fmt::format("candidates/cand_{:05}/kernel.py", candidate);
  if (candidate % k_error_every == k_error_every - 1) {
    entry.status = kprof::CandidateStatus::failed;
    entry.error = kprof::make_error(
        kprof::ErrorCategory::kernel_raised,
        "RuntimeError: CUDA error: an illegal memory access was encountered",
        "Traceback (most recent call last):\n  File \"kernel.py\", line 42, in kernel_function\n");
    return entry;
  }
  entry.document = report;
  kprof::Json& metadata = (*entry.document)["metadata"];
  metadata["round"] = k_round;
  metadata["candidate"] = candidate;
  metadata["kernel_file"] = entry.label;
  return entry;
}

/// How many metric values the report holds (each becomes a row of the metrics table).
std::size_t metric_values(const kprof::Json& report) {
  std::size_t count = 0;
  for (const auto& kernel : report.at("kernels")) {
    if (kernel.contains("metrics") && kernel.at("metrics").is_object()) {
      count += kernel.at("metrics").size();
    }
  }
  return count;
}

std::uintmax_t size_or_zero(const fs::path& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? 0 : size;
}

} // namespace

int main(int argc, char** argv) {
  const auto options = parse_options(argc, argv);
  if (!options) {
    std::fprintf(stderr, "usage: bench_import_history OUT_DIR [--count N] [--shard S] "
                         "[--one-by-one] [--metrics SET] [--report FILE]\n");
    return 2;
  }
  const auto started = Clock::now();
  const fs::path db_path = options->out_dir / "kprof.db";
  if (fs::exists(db_path)) {
    std::fprintf(stderr, "bench_import_history: %s exists; the import needs a fresh one\n",
                 db_path.c_str());
    return 2;
  }
  if (auto made = kprof::create_directories(options->out_dir); !made) {
    std::fprintf(stderr, "bench_import_history: %s\n", made.error().message.c_str());
    return 1;
  }
  const auto report = base_report(*options);
  if (!report) {
    std::fprintf(stderr, "bench_import_history: %s\n", report.error().message.c_str());
    return 1;
  }
  std::optional<kprof::HistoryStore> store;
  {
    auto opened = kprof::HistoryStore::open(db_path);
    if (!opened) {
      std::fprintf(stderr, "bench_import_history: %s\n", opened.error().message.c_str());
      return 1;
    }
    store.emplace(std::move(opened).value());
  }

  Clock::duration in_store{};
  int transactions = 0;
  int failed = 0;
  std::vector<kprof::RoundEntry> shard;
  for (int first = 0; first < options->count; first += options->shard) {
    shard.clear();
    for (int candidate = first; candidate < options->count && candidate < first + options->shard;
         ++candidate) {
      shard.push_back(candidate_entry(*report, candidate));
      failed += shard.back().error ? 1 : 0;
    }
    const auto before = Clock::now();
    std::optional<kprof::Error> error;
    if (options->one_by_one) {
      if (auto id = store->record_round(shard.front()); !id) {
        error = id.error();
      }
    } else if (auto ids = store->record_rounds(shard); !ids) {
      error = ids.error();
    }
    in_store += Clock::now() - before;
    if (error) {
      std::fprintf(stderr, "bench_import_history: %s\n", error->message.c_str());
      return 1;
    }
    ++transactions;
  }
  const auto wal_bytes = size_or_zero(db_path.string() + "-wal");
  store.reset(); // the last connection checkpoints the WAL into kprof.db and removes it
  const std::chrono::duration<double> store_seconds = in_store;
  const std::chrono::duration<double> wall_seconds = Clock::now() - started;
  const auto db_bytes = size_or_zero(db_path);

  std::printf("mode=%s entries=%d shard=%d transactions=%d failed=%d document_bytes=%zu "
              "metric_values=%zu\n",
              options->one_by_one ? "record_round" : "record_rounds", options->count,
              options->shard, transactions, failed, kprof::json_text(*report, -1).size(),
              metric_values(*report));
  std::printf("store_seconds=%.3f entries_per_second=%.0f wall_seconds=%.3f\n",
              store_seconds.count(), options->count / store_seconds.count(), wall_seconds.count());
  std::printf("db_bytes=%ju bytes_per_entry=%.0f wal_bytes_before_close=%ju\n", db_bytes,
              static_cast<double>(db_bytes) / options->count, wal_bytes);
  return 0;
}
