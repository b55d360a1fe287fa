#pragma once
// The dimensions of a GEMM CPU op read from its "Input Dims" (a PyTorch-profiler trace recorded with
// record_shapes=True): the one reader behind the measured throughput (shape_throughput.h) and the model-config shape
// check (config_check.h). Implemented in shape_throughput.cpp, beside the "Input Dims" parser it uses.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sl {

// C[batch, M, N] = A[batch, M, K] · B, for aten::mm, addmm, bmm, baddbmm, linear, matmul and _scaled_mm.
struct GemmDims {
    int64_t batch = 1, m = 0, n = 0, k = 0;   // K as A gives it
    int64_t b_k = 0;                          // K as B gives it (a well-formed op has b_k == k)
    size_t a = 0, b = 1;                      // the argument indices of A and B (addmm, baddbmm: a bias first;
                                              // linear: B is the weight [N, K])
};

// True for the ops gemm_dims reads.
bool is_gemm_op(std::string_view op);

// nullopt when op is not one of those or its A and B arguments are not tensors of the ranks the op takes (mm,
// addmm, _scaled_mm: 2-D; bmm, baddbmm: 3-D; linear: A of any rank ≥ 1 and a 2-D weight; matmul: both ≥ 2-D).
std::optional<GemmDims> gemm_dims(std::string_view op, const std::string& input_dims);

} // namespace sl
