#pragma once
// The trace-level warnings of the core (WorkloadWarning: a stable code, an English message for the CLI's JSON, and
// the arguments the message is made of) said in the interface's language. The core's English is kept where the
// warning quotes the trace or a reader (code "reader", a clock detector's reason, event kind names).

#include <QCoreApplication>
#include <QString>
#include <string>

#include "analysis/timeline/workload.h"

namespace sl {

class WarningText {
    Q_DECLARE_TR_FUNCTIONS(sl::WarningText)
public:
    // A short label for the code ("Clock skew"); the code itself when it is unknown.
    static QString label(const std::string& code);
    // The warning's sentence, from its code and args; the core's message when the args do not say enough (a
    // warning of an older core, or one whose text comes from a reader).
    static QString message(const WorkloadWarning& warning);
};

} // namespace sl
