#include "history/sqlite.hpp"

#include <limits>
#include <utility>

#include <fmt/format.h>

namespace kprof::history {

Error sqlite_error(sqlite3* db, int code, std::string_view what) {
  const char* message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  return make_error(ErrorCategory::database,
                    fmt::format("{}: {} ({})", what, message, sqlite3_errstr(code)));
}

bool is_busy(int code) {
  const int primary = code & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

Result<void> exec(sqlite3* db, std::string_view sql, int* code) {
  const std::string text(sql);
  char* message = nullptr;
  const int rc = sqlite3_exec(db, text.c_str(), nullptr, nullptr, &message);
  if (code != nullptr) {
    *code = rc;
  }
  if (rc != SQLITE_OK) {
    std::string detail = message != nullptr ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    return make_error(ErrorCategory::database, fmt::format("{} ({})", detail, sqlite3_errstr(rc)));
  }
  return {};
}

Result<Statement> Statement::prepare(sqlite3* db, std::string_view sql) {
  KPROF_ASSERT(sql.size() < static_cast<std::size_t>(std::numeric_limits<int>::max()));
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return sqlite_error(db, rc, "cannot prepare a statement");
  }
  return Statement(db, stmt);
}

Statement::Statement(Statement&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)), m_stmt(std::exchange(other.m_stmt, nullptr)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(m_stmt);
    m_db = std::exchange(other.m_db, nullptr);
    m_stmt = std::exchange(other.m_stmt, nullptr);
  }
  return *this;
}

Statement::~Statement() {
  sqlite3_finalize(m_stmt);
}

// Bind failures are bugs (wrong index, statement in use), hence assertions.
void Statement::bind(int index, std::int64_t value) {
  KPROF_ASSERT(sqlite3_bind_int64(m_stmt, index, value) == SQLITE_OK);
}

void Statement::bind(int index, double value) {
  KPROF_ASSERT(sqlite3_bind_double(m_stmt, index, value) == SQLITE_OK);
}

void Statement::bind(int index, std::string_view text) {
  KPROF_ASSERT(text.size() < static_cast<std::size_t>(std::numeric_limits<int>::max()));
  KPROF_ASSERT(sqlite3_bind_text(m_stmt, index, text.data(), static_cast<int>(text.size()),
                                 SQLITE_TRANSIENT) == SQLITE_OK);
}

void Statement::bind_null(int index) {
  KPROF_ASSERT(sqlite3_bind_null(m_stmt, index) == SQLITE_OK);
}

void Statement::bind(int index, const std::optional<double>& value) {
  if (value) {
    bind(index, *value);
  } else {
    bind_null(index);
  }
}

void Statement::bind(int index, const std::optional<int>& value) {
  if (value) {
    bind(index, *value);
  } else {
    bind_null(index);
  }
}

void Statement::bind_text_or_null(int index, std::string_view text) {
  if (text.empty()) {
    bind_null(index);
  } else {
    bind(index, text);
  }
}

void Statement::bind_borrowed_text_or_null(int index, std::string_view text) {
  if (text.empty()) {
    bind_null(index);
    return;
  }
  KPROF_ASSERT(text.size() < static_cast<std::size_t>(std::numeric_limits<int>::max()));
  KPROF_ASSERT(sqlite3_bind_text(m_stmt, index, text.data(), static_cast<int>(text.size()),
                                 SQLITE_STATIC) == SQLITE_OK);
}

Result<bool> Statement::step(int* code) {
  const int rc = sqlite3_step(m_stmt);
  if (code != nullptr) {
    *code = rc;
  }
  if (rc == SQLITE_ROW) {
    return true;
  }
  if (rc == SQLITE_DONE) {
    return false;
  }
  return sqlite_error(m_db, rc, "statement failed");
}

Result<void> Statement::run(int* code) {
  while (true) {
    auto row = step(code);
    if (!row) {
      return std::move(row).error();
    }
    if (!*row) {
      return {};
    }
  }
}

void Statement::reset() {
  sqlite3_reset(m_stmt);
  sqlite3_clear_bindings(m_stmt);
}

bool Statement::is_null(int column) const {
  return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

std::int64_t Statement::column_int64(int column) const {
  return sqlite3_column_int64(m_stmt, column);
}

int Statement::column_int(int column) const {
  return sqlite3_column_int(m_stmt, column);
}

double Statement::column_double(int column) const {
  return sqlite3_column_double(m_stmt, column);
}

std::string Statement::column_text(int column) const {
  const unsigned char* text = sqlite3_column_text(m_stmt, column);
  if (text == nullptr) {
    return {};
  }
  const int bytes = sqlite3_column_bytes(m_stmt, column);
  return {reinterpret_cast<const char*>(text), static_cast<std::size_t>(bytes)};
}

std::optional<double> Statement::column_optional_double(int column) const {
  if (is_null(column)) {
    return std::nullopt;
  }
  return column_double(column);
}

std::optional<int> Statement::column_optional_int(int column) const {
  if (is_null(column)) {
    return std::nullopt;
  }
  return column_int(column);
}

} // namespace kprof::history
