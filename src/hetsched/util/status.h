// Errors as values (LevelDB style). A Status carries a code and a message that names the file,
// line and field at fault; Result<T> is a value or a Status. Nothing throws across module borders.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace hetsched {

enum class StatusCode { kOk = 0, kInvalidArgument, kNotFound, kParseError, kIoError, kInfeasible, kInternal };

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) { return Status(StatusCode::kInvalidArgument, std::move(msg)); }
  static Status NotFound(std::string msg) { return Status(StatusCode::kNotFound, std::move(msg)); }
  static Status ParseError(std::string msg) { return Status(StatusCode::kParseError, std::move(msg)); }
  static Status IoError(std::string msg) { return Status(StatusCode::kIoError, std::move(msg)); }
  static Status Infeasible(std::string msg) { return Status(StatusCode::kInfeasible, std::move(msg)); }
  static Status Internal(std::string msg) { return Status(StatusCode::kInternal, std::move(msg)); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const;

  // Returns a copy whose message is prefixed by `context` ("file.yaml: " + message).
  Status WithContext(const std::string& context) const;

 private:
  Status(StatusCode code, std::string msg) : code_(code), message_(std::move(msg)) {}
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or an error. REQUIRES: value() only when ok(); status() is Ok when a value is held.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) { assert(!std::get<Status>(v_).ok()); }  // NOLINT

  bool ok() const { return std::holds_alternative<T>(v_); }
  const T& value() const& { assert(ok()); return std::get<T>(v_); }
  T& value() & { assert(ok()); return std::get<T>(v_); }
  T&& value() && { assert(ok()); return std::get<T>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }

 private:
  std::variant<T, Status> v_;
};

#define HETSCHED_RETURN_IF_ERROR(expr)           \
  do {                                           \
    ::hetsched::Status _st = (expr);             \
    if (!_st.ok()) return _st;                   \
  } while (0)

#define HETSCHED_CONCAT_INNER(a, b) a##b
#define HETSCHED_CONCAT(a, b) HETSCHED_CONCAT_INNER(a, b)
#define HETSCHED_ASSIGN_OR_RETURN(lhs, expr) \
  HETSCHED_ASSIGN_OR_RETURN_IMPL(HETSCHED_CONCAT(_res_, __LINE__), lhs, expr)
#define HETSCHED_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return tmp.status();                  \
  lhs = std::move(tmp).value()

}  // namespace hetsched
