// SPDX-License-Identifier: Apache-2.0
// Error and Result types shared by every openvgf library.
//
// Libraries never throw across their boundary and never log-and-return-null: a failing call
// returns an Error that carries a category (which decides the CLI exit code) and a message
// shaped "<file>: <element path>: expected <rule>, got <value>". Callers add context as the
// error travels up, so the outermost message names the file and the element.
#pragma once

#include <optional>
#include <type_traits>
#include <variant>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace openvgf {

enum class ErrorKind {
  InvalidInput,  ///< malformed or inconsistent user data (file, npy, graph, arguments): exit 2
  Unsupported,   ///< valid input that openvgf cannot handle (op, type, feature): exit 2
  Environment,   ///< missing driver, device, file system failure: exit 1
  Runtime,       ///< a failure while executing (device lost, check failed): exit 1
  Internal,      ///< a bug in openvgf: exit 1
};

class Error {
 public:
  Error(ErrorKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}

  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return message_; }

  /// Prepends "<context>: " to the message (outermost context first in the final text).
  Error& addContext(std::string_view context) & {
    message_ = fmt::format("{}: {}", context, message_);
    return *this;
  }
  Error&& addContext(std::string_view context) && {
    message_ = fmt::format("{}: {}", context, message_);
    return std::move(*this);
  }

  /// Exit code used by the CLI: 2 for bad input or usage, 1 for everything else.
  int exitCode() const {
    return kind_ == ErrorKind::InvalidInput || kind_ == ErrorKind::Unsupported ? 2 : 1;
  }

 private:
  ErrorKind kind_;
  std::string message_;
};

/// Carries an Error into a Result (the failure side), like std::unexpected.
class Unexpected {
 public:
  explicit Unexpected(Error error) : error_(std::move(error)) {}
  Error& error() & { return error_; }
  Error&& error() && { return std::move(error_); }

 private:
  Error error_;
};

/// A value or an Error. Our own small std::expected work-alike: GCC 12 has std::expected
/// in C++23 mode but clang 14 (the libFuzzer compiler) cannot use libstdc++'s, and the
/// parsers must build with both.
template <typename T>
class [[nodiscard]] Result {
 public:
  using value_type = T;

  template <typename U = T>
    requires(std::is_constructible_v<T, U &&> && !std::is_same_v<std::remove_cvref_t<U>, Result> &&
             !std::is_same_v<std::remove_cvref_t<U>, Unexpected>)
  Result(U&& value) : storage_(std::in_place_index<0>, std::forward<U>(value)) {}
  Result(Unexpected failure) : storage_(std::in_place_index<1>, std::move(failure).error()) {}

  bool has_value() const { return storage_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { return std::get<0>(storage_); }
  const T& value() const& { return std::get<0>(storage_); }
  T&& value() && { return std::get<0>(std::move(storage_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  Error& error() & { return std::get<1>(storage_); }
  const Error& error() const& { return std::get<1>(storage_); }
  Error&& error() && { return std::get<1>(std::move(storage_)); }

 private:
  std::variant<T, Error> storage_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  using value_type = void;

  Result() = default;
  Result(Unexpected failure) : error_(std::move(failure).error()) {}

  bool has_value() const { return !error_.has_value(); }
  explicit operator bool() const { return has_value(); }
  void value() const {}
  void operator*() const {}

  Error& error() & { return *error_; }
  const Error& error() const& { return *error_; }
  Error&& error() && { return std::move(*error_); }

 private:
  std::optional<Error> error_;
};

/// Result of a call that returns nothing on success.
using Status = Result<void>;

template <typename... Args>
Unexpected makeError(ErrorKind kind, fmt::format_string<Args...> format, Args&&... args) {
  return Unexpected(Error(kind, fmt::format(format, std::forward<Args>(args)...)));
}

template <typename... Args>
Unexpected invalidInput(fmt::format_string<Args...> format, Args&&... args) {
  return makeError(ErrorKind::InvalidInput, format, std::forward<Args>(args)...);
}

template <typename... Args>
Unexpected unsupported(fmt::format_string<Args...> format, Args&&... args) {
  return makeError(ErrorKind::Unsupported, format, std::forward<Args>(args)...);
}

template <typename... Args>
Unexpected environmentError(fmt::format_string<Args...> format, Args&&... args) {
  return makeError(ErrorKind::Environment, format, std::forward<Args>(args)...);
}

template <typename... Args>
Unexpected runtimeError(fmt::format_string<Args...> format, Args&&... args) {
  return makeError(ErrorKind::Runtime, format, std::forward<Args>(args)...);
}

template <typename... Args>
Unexpected internalError(fmt::format_string<Args...> format, Args&&... args) {
  return makeError(ErrorKind::Internal, format, std::forward<Args>(args)...);
}

/// Adds context to the error of a failed Result and passes it on unchanged otherwise.
template <typename T>
Result<T> withContext(Result<T>&& result, std::string_view context) {
  if (!result) result.error().addContext(context);
  return std::move(result);
}

}  // namespace openvgf

#define OPENVGF_CONCAT_INNER(a, b) a##b
#define OPENVGF_CONCAT(a, b) OPENVGF_CONCAT_INNER(a, b)

/// Evaluates a Status/Result expression and returns its error from the enclosing function.
#define OPENVGF_TRY(expr)                                                     \
  do {                                                                        \
    auto&& openvgf_try_result_ = (expr);                                      \
    if (!openvgf_try_result_) return ::openvgf::Unexpected(openvgf_try_result_.error()); \
  } while (false)

/// `OPENVGF_ASSIGN_OR_RETURN(auto x, f());` declares x from the value or returns the error.
#define OPENVGF_ASSIGN_OR_RETURN(lhs, expr) \
  OPENVGF_ASSIGN_OR_RETURN_IMPL(OPENVGF_CONCAT(openvgf_result_, __LINE__), lhs, expr)
#define OPENVGF_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr)      \
  auto tmp = (expr);                                       \
  if (!tmp) return ::openvgf::Unexpected(std::move(tmp).error()); \
  lhs = std::move(*tmp)
