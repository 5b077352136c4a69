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

Result<void> Statement::bind_zeroblob(int index, std::uint64_t bytes) {
  const int rc = sqlite3_bind_zeroblob64(m_stmt, index, bytes);
  if (rc == SQLITE_TOOBIG) {
    return make_error(ErrorCategory::database,
                      fmt::format("a value of {} bytes is longer than SQLite stores ({} bytes at "
                                  "most)",
                                  bytes, sqlite3_limit(m_db, SQLITE_LIMIT_LENGTH, -1)));
  }
  KPROF_ASSERT(rc == SQLITE_OK);
  return {};
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

BlobReader::BlobReader(BlobReader&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)), m_blob(std::exchange(other.m_blob, nullptr)) {}

Result<BlobReader> BlobReader::open(sqlite3* db, const char* table, const char* column,
                                    std::int64_t row) {
  sqlite3_blob* blob = nullptr;
  const int rc = sqlite3_blob_open(db, "main", table, column, row, 0, &blob);
  if (rc != SQLITE_OK) {
    sqlite3_blob_close(blob);
    return sqlite_error(db, rc, fmt::format("cannot read {}.{} of row {}", table, column, row));
  }
  return BlobReader(db, blob);
}

BlobReader& BlobReader::operator=(BlobReader&& other) noexcept {
  if (this != &other) {
    sqlite3_blob_close(m_blob);
    m_db = std::exchange(other.m_db, nullptr);
    m_blob = std::exchange(other.m_blob, nullptr);
  }
  return *this;
}

BlobReader::~BlobReader() {
  sqlite3_blob_close(m_blob);
}

std::size_t BlobReader::size() const {
  return static_cast<std::size_t>(sqlite3_blob_bytes(m_blob));
}

Result<void> BlobReader::read(char* buffer, std::size_t bytes, std::size_t offset) const {
  if (offset > size() || bytes > size() - offset) {
    return make_error(
        ErrorCategory::database,
        fmt::format("{} bytes at offset {} are past a value of {} bytes", bytes, offset, size()));
  }
  // Both fit an int: the value is no longer than SQLite's limit, which is below 2^31.
  const int rc =
      sqlite3_blob_read(m_blob, buffer, static_cast<int>(bytes), static_cast<int>(offset));
  if (rc != SQLITE_OK) {
    return sqlite_error(m_db, rc, "cannot read a value in pieces");
  }
  return {};
}

Result<BlobWriter> BlobWriter::open(sqlite3* db, const char* table, const char* column,
                                    std::int64_t row) {
  sqlite3_blob* blob = nullptr;
  const int rc = sqlite3_blob_open(db, "main", table, column, row, 1, &blob);
  if (rc != SQLITE_OK) {
    sqlite3_blob_close(blob);
    return sqlite_error(db, rc, fmt::format("cannot open {}.{} of row {}", table, column, row));
  }
  return BlobWriter(db, blob);
}

BlobWriter::BlobWriter(BlobWriter&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)), m_blob(std::exchange(other.m_blob, nullptr)) {}

BlobWriter& BlobWriter::operator=(BlobWriter&& other) noexcept {
  if (this != &other) {
    sqlite3_blob_close(m_blob);
    m_db = std::exchange(other.m_db, nullptr);
    m_blob = std::exchange(other.m_blob, nullptr);
  }
  return *this;
}

BlobWriter::~BlobWriter() {
  sqlite3_blob_close(m_blob);
}

Result<void> BlobWriter::write(std::string_view bytes, std::uint64_t offset) {
  const auto length = static_cast<std::uint64_t>(sqlite3_blob_bytes(m_blob));
  if (offset > length || bytes.size() > length - offset) {
    return make_error(ErrorCategory::database,
                      fmt::format("{} bytes at offset {} do not fit a value of {} bytes",
                                  bytes.size(), offset, length));
  }
  // Both fit an int: the value is no longer than SQLite's limit, which is below 2^31.
  const int rc = sqlite3_blob_write(m_blob, bytes.data(), static_cast<int>(bytes.size()),
                                    static_cast<int>(offset));
  if (rc != SQLITE_OK) {
    return sqlite_error(m_db, rc, "cannot write a value in pieces");
  }
  return {};
}

} // namespace kprof::history
