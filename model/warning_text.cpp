#include "model/warning_text.h"

#include "model/units.h"

namespace sl {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// The argument `key` as an integer; false when it is missing or not a number.
bool intArg(const WorkloadWarning& w, const char* key, qlonglong& out)
{
    const auto it = w.args.find(key);
    if (it == w.args.end())
        return false;
    bool ok = false;
    out = qs(it->second).toLongLong(&ok);
    return ok;
}

QString strArg(const WorkloadWarning& w, const char* key)
{
    const auto it = w.args.find(key);
    return it == w.args.end() ? QString() : qs(it->second);
}

} // namespace

QString WarningText::label(const std::string& code)
{
    if (code == "no_gpu_activity")
        return tr("No GPU activity");
    if (code == "no_kernels")
        return tr("No kernels");
    if (code == "clock_skew")
        return tr("Clock skew");
    if (code == "unsupported_events_dropped")
        return tr("Events dropped");
    if (code == "capture_too_short")
        return tr("Capture too short");
    if (code == "warmup_included")
        return tr("Warm-up included");
    if (code == "warmup_excluded")
        return tr("Warm-up excluded");
    if (code == "reader")
        return tr("Reader");
    if (code == "ncu_device_mismatch")
        return tr("ncu file of another GPU");
    if (code == "ncu_kernels_unmatched")
        return tr("ncu kernels not in the trace");
    if (code == "critical_path_skipped")
        return tr("Critical path left out");
    return qs(code);
}

QString WarningText::message(const WorkloadWarning& w)
{
    const std::string& c = w.code;
    qlonglong a = 0, b = 0, x = 0, y = 0;
    if (c == "no_gpu_activity")
        return tr("the trace holds no kernels, copies or sets: GPU utilisation is unknown, not 100 %, and no GPU "
                  "finding can be made");
    if (c == "no_kernels")
        return tr("the trace holds copies or sets but no kernels");
    if (c == "clock_skew" && w.args.count("reason")) {
        // The reason is the detector's own words (English, with the trace's numbers).
        if (strArg(w, "corrected") == QLatin1String("true") && intArg(w, "shift_ns", a))
            return tr("host and device clocks disagree (%1); GPU times were moved by %2 onto the host clock, so "
                      "queue delays and idle time are measured after the correction")
                .arg(strArg(w, "reason"), formatDuration(a));
        return tr("host and device clocks disagree (%1); queue delays and host-side idle attribution are not "
                  "trustworthy on this trace")
            .arg(strArg(w, "reason"));
    }
    if (c == "unsupported_events_dropped" && intArg(w, "events", a))
        return tr("%n event(s) of kinds Sightline does not read were dropped (%1); what they did on the device is "
                  "not analysed", nullptr, int(a))
            .arg(strArg(w, "kinds"));
    if (c == "capture_too_short" && intArg(w, "capture_ns", a) && intArg(w, "kernels", b) &&
        intArg(w, "min_capture_ns", x) && intArg(w, "min_kernels", y)) {
        // Which limit the capture is under (short_of: time, kernels or both).
        if (strArg(w, "short_of") == QLatin1String("kernels"))
            return tr("the capture (%1, %n kernel(s)) is too small for a verdict: it holds fewer than %2 kernels; "
                      "findings are indicative only", nullptr, int(b))
                .arg(formatDuration(a))
                .arg(y);
        if (strArg(w, "short_of") == QLatin1String("time"))
            return tr("the capture (%1, %n kernel(s)) is too small for a verdict: it is shorter than %2; findings are "
                      "indicative only", nullptr, int(b))
                .arg(formatDuration(a), formatDuration(x));
        return tr("the capture (%1, %n kernel(s)) is too short for a verdict (below %2 or %3 kernels): findings are "
                  "indicative only", nullptr, int(b))
            .arg(formatDuration(a), formatDuration(x))
            .arg(y);
    }
    if (c == "warmup_included" && strArg(w, "cause") == QLatin1String("module_loads") && intArg(w, "loads", a))
        return tr("%n module or library load(s) (lazy first launches) lie inside the capture: the first calls of "
                  "those kernels include loading", nullptr, int(a));
    if (c == "warmup_included" && strArg(w, "cause") == QLatin1String("few_decode_steps") &&
        intArg(w, "decode_steps", a))
        return tr("too few decode steps (%n) to leave warm-up out: TPOT includes the first steps", nullptr, int(a));
    if (c == "warmup_excluded" && intArg(w, "steps", a) && intArg(w, "steady_start_ns", x) &&
        intArg(w, "steady_end_ns", y))
        return tr("%n warm-up step(s) left out of the steady-state window %1 – %2", nullptr, int(a))
            .arg(formatDuration(x), formatDuration(y));
    if (c == "ncu_device_mismatch" && w.args.count("evidence"))
        return tr("the Nsight Compute file was profiled on another GPU than the trace's (%1): its counters describe "
                  "%2, not %3; joined anyway, read them with care")
            .arg(strArg(w, "evidence"), strArg(w, "ncu_device"), strArg(w, "trace_device"));
    if (c == "ncu_kernels_unmatched" && intArg(w, "unmatched", a) && intArg(w, "launches", b))
        return (a == b ? tr("none of the %n launch(es) of the Nsight Compute file matches a kernel of the trace (%1): "
                            "the file is of another run", nullptr, int(b))
                       : tr("%1 of the %n launch(es) of the Nsight Compute file match no kernel of the trace (%2): "
                            "their counters are joined to no kernel", nullptr, int(b))
                             .arg(a))
            .arg(strArg(w, "names"));
    if (c == "critical_path_skipped" && intArg(w, "needed_bytes", a) && intArg(w, "resident_bytes", b) &&
        intArg(w, "budget_bytes", x))
        return tr("the critical path and the what-if replays were not computed: their dependency graph would need "
                  "about %1 on top of the %2 in use, over the memory budget of %3 (raise it with --max-memory); the "
                  "findings keep their bounds")
            .arg(formatBytes(a), formatBytes(b), formatBytes(x));
    return qs(w.message);
}

} // namespace sl
