#pragma once
// A write to the knowledge base that its disk had no room for (SQLITE_FULL, or an I/O error whose system error is
// ENOSPC or EDQUOT, as when the -shm file of the WAL cannot grow). Thrown by knowledge_base.cpp in place of a plain
// KbError, so that the command line says exit 4 (an output could not be written), not 2 (bad input). The
// transaction is rolled back: nothing half-written stays.
#include "analysis/diagnosis/knowledge_base.h"

namespace sl {

class KbDiskFull : public KbError {
public:
    using KbError::KbError;
};

} // namespace sl
