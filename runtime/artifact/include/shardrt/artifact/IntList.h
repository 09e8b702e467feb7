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

/// A list of int64 with std::vector's interface for what writers use.
/// Copies share storage; a non-const access detaches first (copy on write),
/// so a copy never sees another's writes. Not for concurrent writes to
/// copies of one list from several threads.
class IntList {
public:
  using value_type = int64_t;
  using iterator = int64_t *;
  using const_iterator = const int64_t *;

  IntList() = default;
  IntList(std::vector<int64_t> values)
      : values_(std::make_shared<std::vector<int64_t>>(std::move(values))) {}
  IntList(std::initializer_list<int64_t> values)
      : IntList(std::vector<int64_t>(values)) {}

  size_t size() const { return values_ ? values_->size() : 0; }
  bool empty() const { return size() == 0; }
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

  iterator begin() { return own().data(); }
  iterator end() { return own().data() + own().size(); }
  int64_t &operator[](size_t i) { return own()[i]; }
  void push_back(int64_t v) { own().push_back(v); }
  void pop_back() { own().pop_back(); }
  void clear() { values_.reset(); }
  template <typename It> void assign(It first, It last) {
    values_ = std::make_shared<std::vector<int64_t>>(first, last);
  }
  /// Inserts before `pos` (an iterator of this list's, taken after its last
  /// write, as std::vector's would be).
  template <typename It>
  iterator insert(const_iterator pos, It first, It last) {
    std::vector<int64_t> &v = own();
    auto at = v.insert(v.begin() + (pos - v.data()), first, last);
    return v.data() + (at - v.begin());
  }
  iterator insert(const_iterator pos, size_t count, int64_t value) {
    std::vector<int64_t> &v = own();
    auto at = v.insert(v.begin() + (pos - v.data()), count, value);
    return v.data() + (at - v.begin());
  }

  friend bool operator==(const IntList &a, const IntList &b) {
    return a.sharesStorageWith(b) || a.vector() == b.vector();
  }
  friend bool operator!=(const IntList &a, const IntList &b) {
    return !(a == b);
  }

private:
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
