//===- span.h - A pointer and a length, without the standard library -----===//
//
// The runtime takes every buffer it does not own as a Span: the program file, the memory
// regions, the input data. A Span never owns what it points to; whoever builds it keeps the
// memory alive for as long as the receiver says it needs it (see Program and Executor).
// std::span is C++20 and the freestanding subset has no <span>, hence this small type.

#pragma once

#include <stddef.h>

namespace ember::rt {

template <typename T>
class Span {
 public:
  constexpr Span() = default;
  constexpr Span(T* data, size_t size) : data_(data), size_(size) {}
  /// From a C array: `uint8_t arena[1024]; Span<uint8_t> s(arena);`.
  template <size_t N>
  constexpr Span(T (&array)[N]) : data_(array), size_(N) {}  // NOLINT: implicit on purpose
  /// Span<T> converts to Span<const T>, never the other way.
  template <typename U>
  constexpr Span(const Span<U>& other) : data_(other.data()), size_(other.size()) {}

  constexpr T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  /// Unchecked: callers index only below size(), which the verifier or the caller has checked.
  constexpr T& operator[](size_t i) const { return data_[i]; }
  constexpr T* begin() const { return data_; }
  constexpr T* end() const { return data_ + size_; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace ember::rt
