#include "analysis/trace/string_pool.h"

namespace sl {

StringPool::StringPool() { intern(std::string_view{}); }

StringPool::StringPool(StringPool&& other) noexcept
    : storage_(std::move(other.storage_)), views_(std::move(other.views_)), index_(std::move(other.index_)),
      chars_(other.chars_)
{
    other.storage_.clear();
    other.views_.clear();
    other.index_.clear();
    other.chars_ = 0;
    other.intern(std::string_view{});
}

StringPool& StringPool::operator=(StringPool&& other) noexcept
{
    if (this != &other) {
        // std::deque's move keeps element addresses, so the views stay valid.
        storage_ = std::move(other.storage_);
        views_ = std::move(other.views_);
        index_ = std::move(other.index_);
        chars_ = other.chars_;
        other.storage_.clear();
        other.views_.clear();
        other.index_.clear();
        other.chars_ = 0;
        other.intern(std::string_view{});
    }
    return *this;
}

StrId StringPool::intern(std::string_view s)
{
    if (auto it = index_.find(s); it != index_.end())
        return it->second;
    storage_.emplace_back(s);
    std::string_view v = storage_.back();
    const auto id = static_cast<StrId>(views_.size());
    views_.push_back(v);
    index_.emplace(v, id);
    chars_ += s.size();
    return id;
}

StrId StringPool::find(std::string_view s) const
{
    auto it = index_.find(s);
    return it == index_.end() ? kNotFound : it->second;
}

size_t StringPool::memory_bytes() const
{
    return chars_ + storage_.size() * sizeof(std::string) + views_.capacity() * sizeof(std::string_view) +
           index_.size() * (sizeof(std::string_view) + sizeof(StrId) + 2 * sizeof(void*));
}

} // namespace sl
