#pragma once
// Gives the heap's free pages back to the system between pipeline stages (issue 18). glibc keeps what a stage's
// temporaries freed in its arenas (the readers' threads have one each), and a later stage's large list is mapped
// afresh beside it: at 10^7 kernels analyze's resident peak was 170-330 MB above its live heap. malloc_trim(0) also
// releases free pages inside the arenas; it costs milliseconds and changes no result. No-op elsewhere.

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace sl {

inline void release_free_memory()
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

} // namespace sl
