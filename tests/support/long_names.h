#pragma once
// A trace whose analyses spend seconds in one stage, for the cancel tests (issue 36 §7): `kernels` kernels, each with
// its own `length`-byte name, so the operator-class stage runs every shipped class pattern over all of them (30,000
// names of 2 KiB: about 1.5 s of class patterns on the project's 2-core machine, more under ASan).

#include <cstdint>
#include <string>

#include "analysis/trace/trace.h"

namespace sl::test {

inline Trace long_kernel_names(int kernels = 30'000, size_t length = 2048)
{
    Trace t;
    const std::string pad(length, 'q');
    for (int i = 0; i < kernels; ++i)
        t.kernels.append(int64_t(i) * 1000, int64_t(i) * 1000 + 500, t.strings.intern("k" + std::to_string(i) + "_" + pad));
    t.finish();
    return t;
}

} // namespace sl::test
