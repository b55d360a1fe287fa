#include "model/compare_headline.h"

#include <QCoreApplication>
#include <QLocale>
#include <QStringList>
#include <algorithm>
#include <cmath>

#include "analysis/diagnosis/compare.h"
#include "analysis/timeline/analysis.h"
#include "model/compare_job.h"
#include "model/units.h"

namespace sl {

namespace {

// "−89.8 %" / "+3.1 %" (a true minus sign, as the compare tables write it).
QString signedPercent(double rel)
{
    const QString v = QStringLiteral("%1 %").arg(QLocale().toString(std::fabs(rel) * 100, 'f', 1));
    return rel > 0 ? QStringLiteral("+") + v : rel < 0 ? QStringLiteral("−") + v : v;
}

QString rate(double v)
{
    return QLocale().toString(v, 'f', v >= 100 ? 0 : v >= 10 ? 1 : 2);
}

QString metricName(const std::string& metric)
{
    if (metric == "tpot_median_ns")
        return QCoreApplication::translate("sl::CompareHeadline", "TPOT");
    if (metric == "wall_per_step_ns")
        return QCoreApplication::translate("sl::CompareHeadline", "time per step");
    return QCoreApplication::translate("sl::CompareHeadline", "wall time");
}

} // namespace

CompareHeadline compareHeadline(const CompareOutput& out)
{
    CompareHeadline h;
    const CompareResult& r = out.result;
    if (!out.beforeAnalysis || !out.afterAnalysis)
        return h;
    // The verdict's numbers are the core's (compare_runs: EndToEndVerdict), as `sightline-cli compare` prints them.
    const EndToEndVerdict& v = r.end_to_end;
    h.metric = v.metric;
    h.before = v.before;
    h.after = v.after;
    h.noise = v.noise;
    h.spreadKnown = v.spread_known;
    const double stepNoise = v.step_noise;
    h.throughputBefore = v.throughput_before;
    h.throughputAfter = v.throughput_after;
    h.throughputPerSequence = v.throughput_per_sequence;
    h.throughputSteps = v.throughput_steps;

    if (h.before <= 0 || h.after <= 0) {
        h.verdict = CompareHeadline::Verdict::Unknown;
        h.title =
            QCoreApplication::translate("sl::CompareHeadline", "No end-to-end verdict: %1 has no GPU activity to time.")
                .arg(h.before <= 0 ? QCoreApplication::translate("sl::CompareHeadline", "BEFORE")
                                   : QCoreApplication::translate("sl::CompareHeadline", "AFTER"));
    } else {
        h.change = v.change;
        const QString numbers = QCoreApplication::translate("sl::CompareHeadline", "%1 %2 → %3 (%4)")
                                    .arg(metricName(h.metric), formatDuration(int64_t(std::llround(h.before))),
                                         formatDuration(int64_t(std::llround(h.after))), signedPercent(h.change));
        QString throughput;
        if (h.throughputBefore > 0) {
            const QString unit = h.throughputSteps ? QCoreApplication::translate("sl::CompareHeadline", "steps/s")
                                 : h.throughputPerSequence
                                     ? QCoreApplication::translate("sl::CompareHeadline", "tokens/s per sequence")
                                     : QCoreApplication::translate("sl::CompareHeadline", "tokens/s");
            throughput = QCoreApplication::translate("sl::CompareHeadline", ", throughput %1 → %2 %3")
                             .arg(rate(h.throughputBefore), rate(h.throughputAfter), unit);
        }
        // The noise a change must exceed: the run-to-run spread of the mean step time, at least the fixed floor.
        const QString spread =
            h.spreadKnown
                ? QCoreApplication::translate("sl::CompareHeadline", "the noise of ±%1 (run-to-run spread ±%2)")
                      .arg(signedPercent(h.noise).mid(1), signedPercent(stepNoise).mid(1))
                : QCoreApplication::translate("sl::CompareHeadline",
                                              "the noise floor of ±%1 (the run-to-run spread is not known)")
                      .arg(signedPercent(h.noise).mid(1));
        if (v.verdict == "not-comparable") {
            h.verdict = CompareHeadline::Verdict::NotComparable;
            h.title = QCoreApplication::translate("sl::CompareHeadline", "Not comparable (%1): %2%3.")
                          .arg(QString::fromStdString(r.not_comparable.front()), numbers, throughput);
        } else if (v.verdict == "faster") {
            h.verdict = CompareHeadline::Verdict::Faster;
            h.title = QCoreApplication::translate("sl::CompareHeadline", "Faster end to end: %1%2, beyond %3.")
                          .arg(numbers, throughput, spread);
        } else if (v.verdict == "slower") {
            h.verdict = CompareHeadline::Verdict::Slower;
            h.title = QCoreApplication::translate("sl::CompareHeadline", "Slower end to end: %1%2, beyond %3.")
                          .arg(numbers, throughput, spread);
        } else {
            h.verdict = CompareHeadline::Verdict::Unchanged;
            h.title =
                QCoreApplication::translate("sl::CompareHeadline", "No measurable change end to end: %1%2, within %3.")
                    .arg(numbers, throughput, spread);
        }
    }

    // Details: what was judged, then the kernel time gained and lost (time, not counts).
    QStringList details;
    if (h.metric == "tpot_median_ns")
        details << QCoreApplication::translate("sl::CompareHeadline",
                                               "Judged on the median TPOT of %1 → %2 steady decode steps.")
                       .arg(v.steps_before)
                       .arg(v.steps_after);
    else if (h.metric == "wall_per_step_ns")
        details << QCoreApplication::translate("sl::CompareHeadline",
                                               "Judged on the mean time per step of %1 → %2 steps.")
                       .arg(v.steps_before)
                       .arg(v.steps_after);
    else if (h.before > 0 && h.after > 0)
        details << QCoreApplication::translate("sl::CompareHeadline",
                                               "Judged on the wall time of the GPU activity (neither run has steps).");
    int64_t gained = 0, lost = 0;
    int faster = 0, slower = 0, added = 0, removed = 0;
    for (const DeltaRow& k : r.kernels) {
        if (k.delta_ns() < 0)
            gained += k.delta_ns();
        else
            lost += k.delta_ns();
        faster += k.status == "faster";
        slower += k.status == "slower";
        added += k.status == "added";
        removed += k.status == "removed";
    }
    const auto kb = r.before_metrics.find("kernel_ns"), ka = r.after_metrics.find("kernel_ns");
    if (kb != r.before_metrics.end() && ka != r.after_metrics.end())
        details << QCoreApplication::translate(
                       "sl::CompareHeadline",
                       "Kernel time %1 → %2: %3 gained, %4 lost (kernels: %5 faster, %6 slower, %7 added, %8 "
                       "removed).")
                       .arg(formatDuration(int64_t(kb->second)), formatDuration(int64_t(ka->second)),
                            formatDuration(-gained), formatDuration(lost))
                       .arg(faster)
                       .arg(slower)
                       .arg(added)
                       .arg(removed);
    if (v.steps_before != v.steps_after && v.steps_before > 0 && v.steps_after > 0)
        details << QCoreApplication::translate("sl::CompareHeadline",
                                               "Kernel times are totals over each capture, whose step counts differ.");
    h.details = details.join(QLatin1Char(' '));
    return h;
}

} // namespace sl
