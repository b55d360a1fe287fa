#pragma once
// Words that travel with a MetricScope for the texts of its findings, in its `sources` map under keys no metric can
// have (braces), as kNcuKernelsKey does (ncu_target.h): the English words of the subject ("GEMM / GEMV (decode)"
// for the class key "gemm (decode)"), which {subject} says in English titles and explanations; the Chinese words
// have their own field, MetricScope::subject_zh_CN. Finding::subject stays the key, for scripts and the JSON.

namespace sl {

inline constexpr const char* kSubjectEnKey = "{subject_en}";

} // namespace sl
