#pragma once
// Interns strings once; everything else refers to them by a 32-bit id. Id 0 is always the empty string.

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sl {

using StrId = uint32_t;

class StringPool {
public:
    StringPool();
    StringPool(const StringPool&) = delete;
    StringPool& operator=(const StringPool&) = delete;
    StringPool(StringPool&& other) noexcept;
    StringPool& operator=(StringPool&& other) noexcept;

    StrId intern(std::string_view s);
    // Returns the id of s if it was interned, or nullopt-like UINT32_MAX when it was not.
    StrId find(std::string_view s) const;
    std::string_view view(StrId id) const { return id < views_.size() ? views_[id] : std::string_view{}; }
    size_t size() const { return views_.size(); }
    size_t memory_bytes() const;

    static constexpr StrId kNotFound = UINT32_MAX;

private:
    void rebuild_index();
    std::deque<std::string> storage_;                   // stable addresses
    std::vector<std::string_view> views_;
    std::unordered_map<std::string_view, StrId> index_;
    size_t chars_ = 0;
};

} // namespace sl
