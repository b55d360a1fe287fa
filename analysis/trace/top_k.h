#pragma once
// The k first items of a stream in a strict total order ("ahead"), kept in a bounded heap: O(k) memory where a
// sorted index of every candidate held 4-8 bytes per item (issue 18: up to 10^7 gaps or kernels at analyze's and
// the summary's peak). With a total order the result is the one a full sort would give, ties included.

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace sl {

template <class T, class Ahead>
class TopK {
public:
    TopK(size_t k, Ahead ahead) : k_(k), ahead_(std::move(ahead)) {}

    void offer(const T& item)
    {
        if (k_ == 0)
            return;
        if (heap_.size() < k_) {
            heap_.push_back(item);
            std::push_heap(heap_.begin(), heap_.end(), ahead_);   // front: the kept item that comes last
        } else if (ahead_(item, heap_.front())) {
            std::pop_heap(heap_.begin(), heap_.end(), ahead_);
            heap_.back() = item;
            std::push_heap(heap_.begin(), heap_.end(), ahead_);
        }
    }

    // The kept items in order; the TopK is empty afterwards.
    std::vector<T> take()
    {
        std::sort(heap_.begin(), heap_.end(), ahead_);
        return std::exchange(heap_, {});
    }

private:
    size_t k_;
    Ahead ahead_;
    std::vector<T> heap_;
};

} // namespace sl
