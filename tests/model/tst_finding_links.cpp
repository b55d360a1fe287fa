// finding_links on diagnoses the real pipeline produced (synthetic decode traces with planted host starvation,
// per-step syncs and pageable copies, shipped rules): every kernel a finding links finds that finding back; kernel
// and op-class findings reach the instances of their name / class; a kernel of an unrelated class and name, not
// linked, does not get them; ranges find the findings whose time ranges overlap them.
#include <QTest>
#include <algorithm>

#include "analysis/pipeline.h"
#include "analysis/diagnosis/rules.h"
#include "analysis/io/synthetic.h"
#include "model/finding_links.h"
#include "model/kernel_lookup.h"
#include "tests/support/qt_fixtures.h"

using namespace sl;

namespace {

PipelineResult runPlanted() { return *testing::runShippedRules(testing::plantedDecode()); }

bool has(const std::vector<size_t>& v, size_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

} // namespace

class TestFindingLinks : public QObject {
    Q_OBJECT
private slots:
    // The Roofline's class points select this kernel: checked against a brute-force scan that computes the phase of
    // every kernel from its step window.
    void longestKernelOfAClassInAPhase()
    {
        const PipelineResult r = runPlanted();
        const Trace& t = *r.trace;
        const auto lookup = KernelLookup::build(r.trace);
        size_t checked = 0;
        for (const OpClassTotals& c : r.analysis.classes.classes)
            for (const std::string phase : {"prefill", "decode", ""}) {
                int64_t want = -1, wantDur = -1;
                for (size_t k = 0; k < t.kernels.size(); ++k) {
                    if (classOfKernel(&r.analysis, int64_t(k)) != c.id)
                        continue;
                    if (!phase.empty() && phaseOfKernel(r.analysis, t, int64_t(k)) != phase)
                        continue;
                    const int64_t d = t.kernels.end[k] - t.kernels.start[k];
                    if (d > wantDur) {
                        want = int64_t(k);
                        wantDur = d;
                    }
                }
                QCOMPARE(longestKernelOfClass(t, r.analysis, c.id, phase), want);
                // the indexed walk (no scan per click) gives the same kernel
                QCOMPARE(longestKernelOfClass(t, r.analysis, c.id, phase, lookup.get()), want);
                checked += want >= 0;
            }
        QVERIFY(checked >= 10);
        QCOMPARE(longestKernelOfClass(t, r.analysis, "no-such-class", "decode"), int64_t(-1));
        QCOMPARE(longestKernelOfClass(t, r.analysis, "no-such-class", "decode", lookup.get()), int64_t(-1));

        // The longest range of a name (a finding's NVTX link) from the lookup, against a scan.
        size_t names = 0;
        for (StrId id = 0; id < t.strings.size(); ++id) {
            int64_t want = -1;
            for (size_t i = 0; i < t.ranges.size(); ++i)
                if (t.ranges.name[i] == id &&
                    (want < 0 || t.ranges.end[i] - t.ranges.start[i] > t.ranges.end[size_t(want)] - t.ranges.start[size_t(want)]))
                    want = int64_t(i);
            QCOMPARE(lookup->longestRange(id), want);
            names += want >= 0;
        }
        QVERIFY(names >= 2);
    }

    void kernelsFindTheirFindings()
    {
        const PipelineResult r = runPlanted();
        const Trace& t = *r.trace;
        const auto& findings = r.diagnosis.eval.findings;
        QVERIFY2(!findings.empty(), "the planted trace must produce findings");

        // 1. every linked kernel finds the finding
        size_t linked = 0;
        for (size_t f = 0; f < findings.size(); ++f)
            for (int64_t k : findings[f].links.kernel_ids) {
                QVERIFY(has(findingsForKernel(r.diagnosis, t, &r.analysis, k), f));
                ++linked;
            }
        QVERIFY2(linked > 0, "some finding links kernels");

        // 2. kernel- and op-class-scope findings reach every instance of their subject, and not a kernel of another
        //    class and name that they do not link
        size_t scoped = 0, rejected = 0;
        for (size_t f = 0; f < findings.size(); ++f) {
            const Finding& fi = findings[f];
            if (fi.scope != ScopeKind::Kernel && fi.scope != ScopeKind::OpClass)
                continue;
            int64_t member = -1, stranger = -1;
            for (size_t k = 0; k < t.kernels.size(); ++k) {
                const std::string cls = classOfKernel(&r.analysis, int64_t(k));
                const std::string phase = phaseOfKernel(r.analysis, t, int64_t(k));
                const bool isMember = fi.scope == ScopeKind::Kernel
                                          ? fi.subject == t.str(t.kernels.name[k])
                                          : (fi.subject == cls || fi.subject == cls + " (" + phase + ")");
                const std::string subjectClass = fi.subject.substr(0, fi.subject.find(' '));
                const bool linkedHere = std::find(fi.links.kernel_ids.begin(), fi.links.kernel_ids.end(),
                                                  int64_t(k)) != fi.links.kernel_ids.end();
                if (isMember && member < 0)
                    member = int64_t(k);
                // unrelated: another class than the subject's (and for kernel scope another name), not linked
                const std::string memberClass = member >= 0 ? classOfKernel(&r.analysis, member) : std::string();
                const bool otherClass = fi.scope == ScopeKind::OpClass ? cls != subjectClass
                                                                      : (!memberClass.empty() && cls != memberClass);
                if (!isMember && !linkedHere && otherClass && stranger < 0 && !cls.empty())
                    stranger = int64_t(k);
            }
            if (member >= 0) {
                QVERIFY2(has(findingsForKernel(r.diagnosis, t, &r.analysis, member), f), fi.rule.c_str());
                ++scoped;
            }
            if (stranger >= 0) {
                QVERIFY2(!has(findingsForKernel(r.diagnosis, t, &r.analysis, stranger), f), fi.rule.c_str());
                ++rejected;
            }
        }
        qInfo("findings %zu, linked kernels %zu, scoped members %zu, rejected strangers %zu", findings.size(), linked,
              scoped, rejected);
        QVERIFY(scoped > 0);
        QVERIFY(rejected > 0);

        // 3. nothing for a kernel outside the trace
        QVERIFY(findingsForKernel(r.diagnosis, t, &r.analysis, int64_t(t.kernels.size())).empty());
        QVERIFY(findingsForKernel(r.diagnosis, t, &r.analysis, -1).empty());
    }

    void rangesFindOverlappingFindings()
    {
        const PipelineResult r = runPlanted();
        const Trace& t = *r.trace;
        const auto& findings = r.diagnosis.eval.findings;
        size_t checked = 0;
        for (size_t f = 0; f < findings.size(); ++f)
            for (const LinkedRange& lr : findings[f].links.time_ranges) {
                // a point inside the linked range
                const int64_t mid = lr.start + (lr.end - lr.start) / 2;
                QVERIFY(has(findingsForRange(r.diagnosis, t, &r.analysis, mid, mid + 1), f));
                ++checked;
            }
        QVERIFY(checked > 0);
        // a gap inside a decode step finds the decode phase finding when there is one
        for (size_t f = 0; f < findings.size(); ++f)
            if (findings[f].scope == ScopeKind::Phase && findings[f].subject == "decode")
                for (const Gap& g : r.analysis.idle.gaps) {
                    const int64_t s = stepAt(r.analysis, g.start);
                    if (s >= 0 && !r.analysis.phases.steps[size_t(s)].prefill) {
                        QVERIFY(has(findingsForRange(r.diagnosis, t, &r.analysis, g.start, g.end), f));
                        break;
                    }
                }
    }

    void stepAndPhaseOfKernels()
    {
        const PipelineResult r = runPlanted();
        const Trace& t = *r.trace;
        const auto& steps = r.analysis.phases.steps;
        QVERIFY(!steps.empty());
        for (size_t k = 0; k < t.kernels.size(); k += 31) {
            // independent linear scan over the steps
            std::string expected;
            for (const StepInfo& s : steps)
                if (t.kernels.start[k] >= s.start && t.kernels.start[k] < s.end)
                    expected = s.prefill ? "prefill" : "decode";
            QCOMPARE(phaseOfKernel(r.analysis, t, int64_t(k)), expected);
        }
    }
};

QTEST_GUILESS_MAIN(TestFindingLinks)
#include "tst_finding_links.moc"
