#pragma once
// A kernel's short name as Nsight Systems shortens it (the `shortName` column nsys exports beside `demangledName`,
// what its "base" kernel-name option and the GUI's short names show): the function's own name, without the return
// type, the enclosing namespaces and classes, the template arguments and the parameter list.
//   "void cutlass::Kernel<cutlass::gemm::kernel::Gemm<...>>(Params)"          -> "Kernel"
//   "void at::native::(anonymous namespace)::CatArrayBatchedCopy<...>(...)"    -> "CatArrayBatchedCopy"
//   "saxpy(double *, double *, double *, double, int)"                         -> "saxpy"
//   "triton_poi_fused_add_cos_sin_0", "Cijk_Alik_Bljk_..." (no C++ syntax)   -> unchanged
// An Itanium-mangled name (ROCm traces keep some: "_ZN5aiter24add_rmsnorm_quant_kernelI...") gives the last
// identifier of its nested name before its template arguments ("add_rmsnorm_quant_kernel").
// One pass over the name, no allocation: linear on hostile input (thousands of '<' or '(').

#include <string_view>

namespace sl {

// A view into `name`; `name` itself when nothing would be left ("<unnamed>", "").
std::string_view shorten_kernel_name(std::string_view name);

} // namespace sl
