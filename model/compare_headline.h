#pragma once
// The verdict of an A/B comparison in words, end to end (issue 37 §4): what a user asks first ("did the change make
// the run faster?") before any table. Judged as the suggestions' verdicts are (analysis/diagnosis/compare.h): on TPOT
// when both runs have decode steps, else on the wall time per step, else on the wall time; faster or slower only
// beyond the run-to-run noise (twice the standard error of the difference of the two runs' mean step time, at least
// CompareOptions::verify_threshold). It needs no accepted suggestion and no knowledge base.
//
// The kernel details that follow it count time, not kernels: a change that removes launch gaps may leave many
// kernels a little slower in total and the run much faster.

#include <QString>
#include <string>

namespace sl {

struct CompareOutput;

struct CompareHeadline {
    enum class Verdict { Faster, Slower, Unchanged, NotComparable, Unknown };
    Verdict verdict = Verdict::Unknown;
    std::string metric; // the end-to-end metric judged ("tpot_median_ns", "wall_per_step_ns", "wall_ns")
    double before = 0, after = 0;
    double change = 0;        // relative (-0.898 = 89.8 % less time)
    double noise = 0;         // relative threshold a change must exceed
    bool spreadKnown = false; // the noise comes from the runs' step spread (else only the fixed threshold)
    double throughputBefore = 0, throughputAfter = 0; // tokens/s (or steps/s); 0 when not known
    bool throughputPerSequence = false;               // tokens/s of one sequence (no batch sizes in the trace)
    bool throughputSteps = false;                     // steps/s (no decode steps)

    QString title;   // first line, plain text: the verdict and the numbers
    QString details; // what it was judged on, then the kernel time gained and lost
};

CompareHeadline compareHeadline(const CompareOutput& output);

} // namespace sl
