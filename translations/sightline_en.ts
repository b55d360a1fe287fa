<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
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
  </context>
  <context>
    <name>sl::TimelineView</name>
    <message numerus="yes">
      <source>%n kernels</source>
      <translation>
        <numerusform>%n kernel</numerusform>
        <numerusform>%n kernels</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>%n items</source>
      <translation>
        <numerusform>%n item</numerusform>
        <numerusform>%n items</numerusform>
      </translation>
    </message>
    <message numerus="yes">
      <source>Range %1 (%2 – %3) · busy %4 · idle %5 · %n kernel(s)</source>
      <translation>
        <numerusform>Range %1 (%2 – %3) · busy %4 · idle %5 · %n kernel</numerusform>
        <numerusform>Range %1 (%2 – %3) · busy %4 · idle %5 · %n kernels</numerusform>
      </translation>
    </message>
  </context>
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
  </context>
</TS>
