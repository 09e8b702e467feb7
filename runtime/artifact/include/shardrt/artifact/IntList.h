//===- IntList.h - An instruction's ints, shared between copies -*- C++ -*-===//
//
// The compiler builds one program per rank before grouping ranks into
// classes. A collective's ints list an extent per member of its group, and
// every member carries the same list: over P ranks, P copies of P ints. An
// IntList copy shares its list with the original until either is written, so
// the partitioner can hand all members one list and compile memory stays
// linear in the ranks.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ARTIFACT_INTLIST_H
#define SHARDRT_ARTIFACT_INTLIST_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>

namespace shardrt::artifact {

/// A list of int64 with the parts of std::vector's interface that writers
/// use. Copies share storage. Reads are const only, so reading never copies;
/// each write (set, push_back, insert, ...) first makes the storage this
/// copy's alone, and no reference into the storage is handed out to write
/// through, so a copy never sees another's writes. Not for concurrent writes
/// to copies of one list from several threads.
class IntList {
public:
  using value_type = int64_t;
  using const_iterator = const int64_t *;
  using iterator = const_iterator; ///< read only: write with set()

  IntList() = default;
  IntList(std::vector<int64_t> values)
      : values_(std::make_shared<std::vector<int64_t>>(std::move(values))) {}
  IntList(std::initializer_list<int64_t> values)
      : IntList(std::vector<int64_t>(values)) {}

  size_t size() const { return values_ ? values_->size() : 0; }
  bool empty() const { return size() == 0; }
  /// Null when there is no storage (an empty list never written).
  const int64_t *data() const { return values_ ? values_->data() : nullptr; }
  const_iterator begin() const { return data(); }
  const_iterator end() const { return data() + size(); }
  int64_t operator[](size_t i) const { return (*values_)[i]; }
  int64_t front() const { return values_->front(); }
  int64_t back() const { return values_->back(); }
  /// The list as a vector (an empty one when there is none).
  const std::vector<int64_t> &vector() const {
    static const std::vector<int64_t> none;
    return values_ ? *values_ : none;
  }
  /// Whether this and `other` are one stored list (then they are equal).
  bool sharesStorageWith(const IntList &other) const {
    return values_ && values_ == other.values_;
  }

  void set(size_t i, int64_t v) { own()[i] = v; }
  void push_back(int64_t v) { own().push_back(v); }
  void pop_back() { own().pop_back(); }
  void clear() { values_.reset(); }
  template <typename It> void assign(It first, It last) {
    values_ = std::make_shared<std::vector<int64_t>>(first, last);
  }
  /// Inserts before `pos`, an iterator of this list's (taken after its last
  /// write, as std::vector's would be); returns the position of the first
  /// inserted value.
  template <typename It> size_t insert(const_iterator pos, It first, It last) {
    size_t at = offsetOf(pos);
    std::vector<int64_t> &v = own();
    v.insert(v.begin() + ptrdiff_t(at), first, last);
    return at;
  }
  size_t insert(const_iterator pos, size_t count, int64_t value) {
    size_t at = offsetOf(pos);
    std::vector<int64_t> &v = own();
    v.insert(v.begin() + ptrdiff_t(at), count, value);
    return at;
  }

  friend bool operator==(const IntList &a, const IntList &b) {
    return a.sharesStorageWith(b) || a.vector() == b.vector();
  }
  friend bool operator!=(const IntList &a, const IntList &b) {
    return !(a == b);
  }

private:
  /// Where `pos` points, counted before a write moves the storage.
  size_t offsetOf(const_iterator pos) const {
    return pos ? size_t(pos - data()) : 0;
  }
  /// The list, made this copy's alone.
  std::vector<int64_t> &own() {
    if (!values_)
      values_ = std::make_shared<std::vector<int64_t>>();
    else if (values_.use_count() > 1)
      values_ = std::make_shared<std::vector<int64_t>>(*values_);
    return *values_;
  }

  std::shared_ptr<std::vector<int64_t>> values_;
};

} // namespace shardrt::artifact

#endif // SHARDRT_ARTIFACT_INTLIST_H
