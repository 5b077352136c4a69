// kprof (private): an owned file descriptor, and errno text for messages.
#pragma once

#include <unistd.h>

#include <cstring>
#include <string>
#include <utility>

namespace kprof {

/// Owns one file descriptor and closes it on destruction. Move-only. -1 means "none".
class UniqueFd {
public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept : m_fd(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      reset(std::exchange(other.m_fd, -1));
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  [[nodiscard]] int get() const noexcept { return m_fd; }
  [[nodiscard]] bool valid() const noexcept { return m_fd >= 0; }
  explicit operator bool() const noexcept { return valid(); }

  /// Gives up ownership without closing.
  [[nodiscard]] int release() noexcept { return std::exchange(m_fd, -1); }

  /// Closes the held descriptor (if any) and takes `fd`. close() errors are ignored here; use
  /// close_checked() where a failed close means lost data.
  void reset(int fd = -1) noexcept {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
    m_fd = fd;
  }

  /// Closes now and reports close()'s result (0, or -1 with errno set).
  int close_checked() noexcept {
    const int fd = std::exchange(m_fd, -1);
    return fd >= 0 ? ::close(fd) : 0;
  }

private:
  int m_fd = -1;
};

/// "No such file or directory" for ENOENT; thread-safe (no static buffer).
inline std::string errno_text(int error_number) {
  const char* description = strerrordesc_np(error_number);
  return description != nullptr ? std::string(description)
                                : "error " + std::to_string(error_number);
}

} // namespace kprof
