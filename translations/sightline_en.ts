<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>TraceHeader</name>
    <message numerus="yes">
        <source>%n device(s)</source>
        <translation>
            <numerusform>%n device</numerusform>
            <numerusform>%n devices</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>steady state %1 (%2 – %3, %n step(s))</source>
        <translation>
            <numerusform>steady state %1 (%2 – %3, %n step)</numerusform>
            <numerusform>steady state %1 (%2 – %3, %n steps)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n training iteration(s)</source>
        <translation>
            <numerusform>%n training iteration</numerusform>
            <numerusform>%n training iterations</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n prefill request(s)</source>
        <translation>
            <numerusform>%n prefill request</numerusform>
            <numerusform>%n prefill requests</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n decode request(s)</source>
        <translation>
            <numerusform>%n decode request</numerusform>
            <numerusform>%n decode requests</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n serving step(s): %1</source>
        <translation>
            <numerusform>%n serving step: %1</numerusform>
            <numerusform>%n serving steps: %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sl::CompareView</name>
    <message numerus="yes">
        <source>Recorded %n verdict(s) in %1.</source>
        <translation>
            <numerusform>Recorded %n verdict in %1.</numerusform>
            <numerusform>Recorded %n verdicts in %1.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sl::DeepDiveDialog</name>
    <message numerus="yes">
        <source>%n kernel(s): %1</source>
        <translation>
            <numerusform>%n kernel: %1</numerusform>
            <numerusform>%n kernels: %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sl::DetailsPanel</name>
    <message numerus="yes">
        <source>among the %n operator(s) with the most time</source>
        <translation>
            <numerusform>among the %n operator with the most time</numerusform>
            <numerusform>among the %n operators with the most time</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>… and %n more</source>
        <translation>
            <numerusform>… and %n more</numerusform>
            <numerusform>… and %n more</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>full name (%n character(s))</source>
        <translation>
            <numerusform>full name (%n character)</numerusform>
            <numerusform>full name (%n characters)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sl::FindingsModel</name>
    <message numerus="yes">
        <source>%n rule(s) could not be loaded (%1: %2)</source>
        <translation>
            <numerusform>%n rule could not be loaded (%1: %2)</numerusform>
            <numerusform>%n rules could not be loaded (%1: %2)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n rule(s) failed to evaluate (%1)</source>
        <translation>
            <numerusform>%n rule failed to evaluate (%1)</numerusform>
            <numerusform>%n rules failed to evaluate (%1)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n rule(s) could not run: missing %1</source>
        <translation>
            <numerusform>%n rule could not run: missing %1</numerusform>
            <numerusform>%n rules could not run: missing %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s), longest first</source>
        <translation>
            <numerusform>%n kernel, longest first</numerusform>
            <numerusform>%n kernels, longest first</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n time range(s)</source>
        <translation>
            <numerusform>%n time range</numerusform>
            <numerusform>%n time ranges</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n NVTX range(s)</source>
        <translation>
            <numerusform>%n NVTX range</numerusform>
            <numerusform>%n NVTX ranges</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sl::FindingsView</name>
    <message numerus="yes">
        <source>%1: missing %2 (%n subject(s), e.g. %3)</source>
        <translation>
            <numerusform>%1: missing %2 (%n subject, e.g. %3)</numerusform>
            <numerusform>%1: missing %2 (%n subjects, e.g. %3)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n finding(s)</source>
        <translation>
            <numerusform>%n finding</numerusform>
            <numerusform>%n findings</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n finding(s)</source>
        <translation>
            <numerusform>%1 of %n finding</numerusform>
            <numerusform>%1 of %n findings</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>No rule fired on this trace (%n rule(s) evaluated).</source>
        <translation>
            <numerusform>No rule fired on this trace (%n rule evaluated).</numerusform>
            <numerusform>No rule fired on this trace (%n rules evaluated).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n more kernel(s) in the tree</source>
        <translation>
            <numerusform>%n more kernel in the tree</numerusform>
            <numerusform>%n more kernels in the tree</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n more range(s) in the tree</source>
        <translation>
            <numerusform>%n more range in the tree</numerusform>
            <numerusform>%n more ranges in the tree</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Asking the LLM reviewer at %1 about %n finding(s)…</source>
        <translation>
            <numerusform>Asking the LLM reviewer at %1 about %n finding…</numerusform>
            <numerusform>Asking the LLM reviewer at %1 about %n findings…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sl::GapHistogramView</name>
    <message numerus="yes">
        <source>&lt;b&gt;%1&lt;/b&gt;: %n gap(s), %2 in all</source>
        <translation>
            <numerusform>&lt;b&gt;%1&lt;/b&gt;: %n gap, %2 in all</numerusform>
            <numerusform>&lt;b&gt;%1&lt;/b&gt;: %n gaps, %2 in all</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n gap(s) in this bin</source>
        <translation>
            <numerusform>%n gap in this bin</numerusform>
            <numerusform>%n gaps in this bin</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sl::MainWindow</name>
    <message numerus="yes">
        <source>Loading %n file(s)…</source>
        <translation>
            <numerusform>Loading %n file…</numerusform>
            <numerusform>Loading %n files…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s) loaded</source>
        <translation>
            <numerusform>%n kernel loaded</numerusform>
            <numerusform>%n kernels loaded</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n files</source>
        <translation>
            <numerusform>%n file</numerusform>
            <numerusform>%n files</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Send %n finding(s) and their evidence as JSON to %1? The trace itself is not sent.</source>
        <translation>
            <numerusform>Send %n finding and its evidence as JSON to %1? The trace itself is not sent.</numerusform>
            <numerusform>Send %n findings and their evidence as JSON to %1? The trace itself is not sent.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sl::NcuView</name>
    <message numerus="yes">
        <source>&lt;b&gt;%1&lt;/b&gt; · %2 · %n launch(es)</source>
        <translation>
            <numerusform>&lt;b&gt;%1&lt;/b&gt; · %2 · %n launch</numerusform>
            <numerusform>&lt;b&gt;%1&lt;/b&gt; · %2 · %n launches</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sl::OverviewPanel</name>
    <message numerus="yes">
        <source>%n gap(s)</source>
        <translation>
            <numerusform>%n gap</numerusform>
            <numerusform>%n gaps</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n more in the Findings pane</source>
        <translation>
            <numerusform>%n more in the Findings pane</numerusform>
            <numerusform>%n more in the Findings pane</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n earlier run(s) on a similar environment.</source>
        <translation>
            <numerusform>%n earlier run on a similar environment.</numerusform>
            <numerusform>%n earlier runs on a similar environment.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sl::RangeStatsView</name>
    <message numerus="yes">
        <source>%Ln kernel(s), %1</source>
        <translation>
            <numerusform>%Ln kernel, %1</numerusform>
            <numerusform>%Ln kernels, %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln copies, %1</source>
        <translation>
            <numerusform>%Ln copy, %1</numerusform>
            <numerusform>%Ln copies, %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln API call(s), %1</source>
        <translation>
            <numerusform>%Ln API call, %1</numerusform>
            <numerusform>%Ln API calls, %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sl::RooflineModel</name>
    <message numerus="yes">
        <source>%1 (%n launches)</source>
        <translation>
            <numerusform>%1 (%n launch)</numerusform>
            <numerusform>%1 (%n launches)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sl::RooflineView</name>
    <message numerus="yes">
        <source>Total time: %1 (%n launch(es))</source>
        <translation>
            <numerusform>Total time: %1 (%n launch)</numerusform>
            <numerusform>Total time: %1 (%n launches)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Kernel time: %1 over %n call(s)</source>
        <translation>
            <numerusform>Kernel time: %1 over %n call</numerusform>
            <numerusform>Kernel time: %1 over %n calls</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s); click to select them</source>
        <translation>
            <numerusform>%n kernel; click to select them</numerusform>
            <numerusform>%n kernels; click to select them</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>… and %n more kernel name(s)</source>
        <translation>
            <numerusform>… and %n more kernel name</numerusform>
            <numerusform>… and %n more kernel names</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n more point(s) here: right-click to choose</source>
        <translation>
            <numerusform>%n more point here: right-click to choose</numerusform>
            <numerusform>%n more points here: right-click to choose</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n point(s) here</source>
        <translation>
            <numerusform>%n point here</numerusform>
            <numerusform>%n points here</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sl::SearchBar</name>
    <message numerus="yes">
        <source>%n instance(s) of the selected kernel</source>
        <translation>
            <numerusform>%n instance of the selected kernel</numerusform>
            <numerusform>%n instances of the selected kernel</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s)</source>
        <translation>
            <numerusform>%n kernel</numerusform>
            <numerusform>%n kernels</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n NVTX range(s)</source>
        <translation>
            <numerusform>%n NVTX range</numerusform>
            <numerusform>%n NVTX ranges</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n API call(s)</source>
        <translation>
            <numerusform>%n API call</numerusform>
            <numerusform>%n API calls</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s) of the selected point</source>
        <translation>
            <numerusform>%n kernel of the selected point</numerusform>
            <numerusform>%n kernels of the selected point</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sl::TimelineView</name>
    <message numerus="yes">
        <source>Range %1 (%2 – %3) · busy %4 · idle %5 · %n kernel(s)</source>
        <translation>
            <numerusform>Range %1 (%2 – %3) · busy %4 · idle %5 · %n kernel</numerusform>
            <numerusform>Range %1 (%2 – %3) · busy %4 · idle %5 · %n kernels</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Python (%n level(s))</source>
        <translation>
            <numerusform>Python (%n level)</numerusform>
            <numerusform>Python (%n levels)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 · Python (%n level(s))</source>
        <translation>
            <numerusform>%1 · Python (%n level)</numerusform>
            <numerusform>%1 · Python (%n levels)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln copies</source>
        <translation>
            <numerusform>%Ln copy</numerusform>
            <numerusform>%Ln copies</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln kernels</source>
        <translation>
            <numerusform>%Ln kernel</numerusform>
            <numerusform>%Ln kernels</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln ops</source>
        <translation>
            <numerusform>%Ln op</numerusform>
            <numerusform>%Ln ops</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln idle gaps</source>
        <translation>
            <numerusform>%Ln idle gap</numerusform>
            <numerusform>%Ln idle gaps</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln API calls</source>
        <translation>
            <numerusform>%Ln API call</numerusform>
            <numerusform>%Ln API calls</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln ranges</source>
        <translation>
            <numerusform>%Ln range</numerusform>
            <numerusform>%Ln ranges</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sl::WarningText</name>
    <message numerus="yes">
        <source>%n event(s) of kinds Sightline does not read were dropped (%1); what they did on the device is not analysed</source>
        <translation>
            <numerusform>%n event of kinds Sightline does not read was dropped (%1); what it did on the device is not analysed</numerusform>
            <numerusform>%n events of kinds Sightline does not read were dropped (%1); what they did on the device is not analysed</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>the capture (%1, %n kernel(s)) is too short for a verdict (below %2 or %3 kernels): findings are indicative only</source>
        <translation>
            <numerusform>the capture (%1, %n kernel) is too short for a verdict (below %2 or %3 kernels): findings are indicative only</numerusform>
            <numerusform>the capture (%1, %n kernels) is too short for a verdict (below %2 or %3 kernels): findings are indicative only</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n module or library load(s) (lazy first launches) lie inside the capture: the first calls of those kernels include loading</source>
        <translation>
            <numerusform>%n module or library load (lazy first launch) lies inside the capture: the first calls of those kernels include loading</numerusform>
            <numerusform>%n module or library loads (lazy first launches) lie inside the capture: the first calls of those kernels include loading</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n warm-up step(s) left out of the steady-state window %1 – %2</source>
        <translation>
            <numerusform>%n warm-up step left out of the steady-state window %1 – %2</numerusform>
            <numerusform>%n warm-up steps left out of the steady-state window %1 – %2</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>too few decode steps (%n) to leave warm-up out: TPOT includes the first steps</source>
        <translation>
            <numerusform>too few decode steps (%n) to leave warm-up out: TPOT includes the first step</numerusform>
            <numerusform>too few decode steps (%n) to leave warm-up out: TPOT includes the first steps</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>the capture (%1, %n kernel(s)) is too small for a verdict: it holds fewer than %2 kernels; findings are indicative only</source>
        <translation>
            <numerusform>the capture (%1, %n kernel) is too small for a verdict: it holds fewer than %2 kernels; findings are indicative only</numerusform>
            <numerusform>the capture (%1, %n kernels) is too small for a verdict: it holds fewer than %2 kernels; findings are indicative only</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>the capture (%1, %n kernel(s)) is too small for a verdict: it is shorter than %2; findings are indicative only</source>
        <translation>
            <numerusform>the capture (%1, %n kernel) is too small for a verdict: it is shorter than %2; findings are indicative only</numerusform>
            <numerusform>the capture (%1, %n kernels) is too small for a verdict: it is shorter than %2; findings are indicative only</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>none of the %n launch(es) of the Nsight Compute file matches a kernel of the trace (%1): the file is of another run</source>
        <translation>
            <numerusform>the %n launch of the Nsight Compute file matches no kernel of the trace (%1): the file is of another run</numerusform>
            <numerusform>none of the %n launches of the Nsight Compute file matches a kernel of the trace (%1): the file is of another run</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of the %n launch(es) of the Nsight Compute file match no kernel of the trace (%2): their counters are joined to no kernel</source>
        <translation>
            <numerusform>%1 of the %n launch of the Nsight Compute file matches no kernel of the trace (%2): their counters are joined to no kernel</numerusform>
            <numerusform>%1 of the %n launches of the Nsight Compute file match no kernel of the trace (%2): their counters are joined to no kernel</numerusform>
        </translation>
    </message>
</context>
</TS>
