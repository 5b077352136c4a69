// Reading ncu output from a file or standard input: streamed through NcuCsvStream in chunks, so
// memory is bounded by what ReadOptions keeps, not by the input size.
//
// A path is checked before it is read, because `kprof report PATH` is given whatever a user or an
// agent typed: a FIFO nobody writes to would block open() and read() forever, a directory or a
// device is no capture, and a symlink loop fails with a puzzling errno. So: stat() first (no
// open of anything that is not a regular file, which could have side effects on a device), then
// open with O_NONBLOCK (a FIFO swapped in after the stat cannot block the open) and fstat() the
// descriptor we got, refusing anything that is not a regular file. Each refusal says what the
// path is.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <string>

#include <fmt/format.h>

#include "csv/ncu_reader_internal.hpp"
#include "kprof/ncu_output.hpp"
#include "util/unique_fd.hpp"

namespace kprof {
namespace csv {
namespace {

/// Nsight Compute reports start with "NVR\0" (seen on reports written by ncu 2025.3.1).
constexpr std::string_view k_report_magic{"NVR\0", 4};

/// What a file type is called in a message; empty for a regular file.
std::string_view kind_of(mode_t mode) {
  if (S_ISREG(mode)) {
    return {};
  }
  if (S_ISDIR(mode)) {
    return "a directory";
  }
  if (S_ISFIFO(mode)) {
    return "a FIFO";
  }
  if (S_ISCHR(mode)) {
    return "a character device";
  }
  if (S_ISBLK(mode)) {
    return "a block device";
  }
  if (S_ISSOCK(mode)) {
    return "a socket";
  }
  return "not a regular file";
}

Error not_a_file(const std::filesystem::path& path, mode_t mode) {
  std::string message = fmt::format("{} is {}, not a file", path.string(), kind_of(mode));
  if (S_ISFIFO(mode)) {
    message += " (to read a pipe, give it on standard input: kprof report - < PATH)";
  }
  return make_error(ErrorCategory::input_not_found, std::move(message));
}

Error cannot_open(const std::filesystem::path& path, int error_number) {
  if (error_number == ELOOP) {
    return make_error(ErrorCategory::input_not_found,
                      fmt::format("{} is a symlink loop", path.string()));
  }
  if (error_number == ENOENT) {
    return make_error(ErrorCategory::input_not_found,
                      fmt::format("{}: no such file", path.string()));
  }
  return make_error(ErrorCategory::input_not_found,
                    fmt::format("{}: cannot open: {}", path.string(), errno_text(error_number)));
}

} // namespace

Result<UniqueFd> open_regular_file(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return cannot_open(path, errno);
  }
  if (!S_ISREG(info.st_mode)) {
    return not_a_file(path, info.st_mode);
  }
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!fd) {
    return cannot_open(path, errno);
  }
  if (::fstat(fd.get(), &info) != 0) {
    return cannot_open(path, errno);
  }
  if (!S_ISREG(info.st_mode)) { // replaced between the stat and the open
    return not_a_file(path, info.st_mode);
  }
  // Regular files ignore O_NONBLOCK; clear it anyway so reads never see EAGAIN.
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags >= 0) {
    ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  }
  return fd;
}

Result<Capture> read_ncu_csv_fd(int fd, const ReadOptions& options, std::string_view source,
                                std::size_t chunk_size) {
  KPROF_ASSERT(chunk_size > 0);
  NcuCsvStream stream(options, source);
  std::string buffer(chunk_size, '\0');
  bool first = true;
  while (true) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0) {
      if (errno == EINTR) {
        continue;
      }
      if (errno == EAGAIN || errno == EWOULDBLOCK) { // an inherited non-blocking descriptor
        pollfd wait{fd, POLLIN, 0};
        ::poll(&wait, 1, -1);
        continue;
      }
      return make_error(ErrorCategory::input_not_found,
                        fmt::format("{}: cannot read: {}", source, errno_text(errno)));
    }
    const std::string_view chunk(buffer.data(), static_cast<std::size_t>(got));
    if (first && chunk.starts_with(k_report_magic)) {
      return make_error(ErrorCategory::malformed_input,
                        fmt::format("{} holds an Nsight Compute report (.ncu-rep), which ncu can "
                                    "only import from a file: give its path instead",
                                    source));
    }
    first = false;
    if (got == 0 || !stream.feed(chunk)) {
      break;
    }
  }
  return stream.finish();
}

Result<Capture> read_ncu_csv_file_chunked(const std::filesystem::path& path,
                                          const ReadOptions& options, std::size_t chunk_size) {
  auto fd = open_regular_file(path);
  if (!fd) {
    return std::move(fd).error();
  }
  return read_ncu_csv_fd(fd->get(), options, path.string(), chunk_size);
}

} // namespace csv

Result<Capture> read_ncu_csv_file(const std::filesystem::path& path, const ReadOptions& options) {
  return csv::read_ncu_csv_file_chunked(path, options, csv::k_default_chunk_size);
}

Result<Capture> read_ncu_csv_stdin(const ReadOptions& options) {
  return csv::read_ncu_csv_fd(STDIN_FILENO, options, k_stdin_source, csv::k_default_chunk_size);
}

bool looks_like_ncu_report(const std::filesystem::path& path) {
  auto fd = csv::open_regular_file(path);
  if (!fd) {
    return false; // not a readable file: reading it says why
  }
  if (path.extension() == ".ncu-rep") {
    return true;
  }
  std::array<char, 4096> head{};
  std::size_t have = 0;
  while (have < head.size()) {
    const ssize_t got = ::read(fd->get(), head.data() + have, head.size() - have);
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got <= 0) {
      break;
    }
    have += static_cast<std::size_t>(got);
  }
  // Any other binary file is malformed input, not a report that needs ncu.
  return std::string_view(head.data(), have).starts_with(csv::k_report_magic);
}

} // namespace kprof
