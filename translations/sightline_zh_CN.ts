<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>QObject</name>
    <message>
        <source>Diagnoses GPU traces of LLM inference.</source>
        <translation>诊断大模型推理的 GPU trace。</translation>
    </message>
    <message>
        <source>Trace files to open (several: one per rank).</source>
        <translation>要打开的 trace 文件（多个文件：每个 rank 一个）。</translation>
    </message>
    <message>
        <source>User interface language (en, zh_CN).</source>
        <translation>界面语言（en、zh_CN）。</translation>
    </message>
</context>
<context>
    <name>sl::DetailsPanel</name>
    <message>
        <source>Click a kernel in the timeline to see its details.</source>
        <translation>在时间线中点击一个内核以查看其详情。</translation>
    </message>
    <message>
        <source>Operator class</source>
        <translation>算子类别</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>Instances of this name</source>
        <translation>同名实例数</translation>
    </message>
    <message>
        <source>Median of the name</source>
        <translation>同名耗时中位数</translation>
    </message>
    <message>
        <source>Percentile of this instance</source>
        <translation>本实例所处百分位</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Device · stream</source>
        <translation>设备 · 流</translation>
    </message>
    <message>
        <source>Grid</source>
        <translation>Grid</translation>
    </message>
    <message>
        <source>Block</source>
        <translation>Block</translation>
    </message>
    <message>
        <source>Registers per thread</source>
        <translation>每线程寄存器数</translation>
    </message>
    <message>
        <source>Shared memory</source>
        <translation>共享内存</translation>
    </message>
    <message>
        <source>Launched by</source>
        <translation>启动调用</translation>
    </message>
    <message>
        <source>Queue delay</source>
        <translation>排队延迟</translation>
    </message>
    <message>
        <source>NVTX</source>
        <translation>NVTX</translation>
    </message>
</context>
<context>
    <name>sl::DeviceModel</name>
    <message>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source>Rank %1 · GPU %2</source>
        <translation>Rank %1 · GPU %2</translation>
    </message>
    <message>
        <source>This device did no GPU work in the trace</source>
        <translation>该设备在此 trace 中没有任何 GPU 活动</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Window</source>
        <translation>时间窗口</translation>
    </message>
    <message>
        <source>Busy</source>
        <translation>忙碌</translation>
    </message>
    <message>
        <source>Idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>Utilization</source>
        <translation>利用率</translation>
    </message>
    <message>
        <source>Gaps</source>
        <translation>空闲间隙</translation>
    </message>
    <message>
        <source>Gap time</source>
        <translation>间隙总时长</translation>
    </message>
    <message>
        <source>Kernels</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>From the first GPU operation to the end of the last one</source>
        <translation>从第一个 GPU 操作开始到最后一个操作结束</translation>
    </message>
    <message>
        <source>Union of kernel, memcpy and memset intervals</source>
        <translation>内核、memcpy 与 memset 区间的并集</translation>
    </message>
    <message>
        <source>Window minus busy time</source>
        <translation>时间窗口减去忙碌时间</translation>
    </message>
    <message>
        <source>Busy time as a share of the window</source>
        <translation>忙碌时间占时间窗口的比例</translation>
    </message>
    <message>
        <source>Idle intervals between busy periods</source>
        <translation>两段忙碌之间的空闲区间</translation>
    </message>
</context>
<context>
    <name>sl::GapHistogramView</name>
    <message>
        <source>Idle gaps by size and cause</source>
        <translation>按长度与原因统计的空闲间隙</translation>
    </message>
    <message>
        <source>Gap length</source>
        <translation>间隙长度</translation>
    </message>
    <message>
        <source>Gaps</source>
        <translation>空闲间隙</translation>
    </message>
</context>
<context>
    <name>sl::JobRunner</name>
    <message>
        <source>Opening</source>
        <translation>正在打开</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
</context>
<context>
    <name>sl::KernelSummaryModel</name>
    <message>
        <source>Time %</source>
        <translation>时间 %</translation>
    </message>
    <message>
        <source>Total</source>
        <translation>总时长</translation>
    </message>
    <message>
        <source>Instances</source>
        <translation>次数</translation>
    </message>
    <message>
        <source>Avg</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>Med</source>
        <translation>中位数</translation>
    </message>
    <message>
        <source>Min</source>
        <translation>最小</translation>
    </message>
    <message>
        <source>Max</source>
        <translation>最大</translation>
    </message>
    <message>
        <source>StdDev</source>
        <translation>标准差</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Share of the summed time of this table (not of wall time)</source>
        <translation>占本表总时长的比例（不是墙钟时间）</translation>
    </message>
    <message>
        <source>Summed duration of all instances</source>
        <translation>所有实例的耗时之和</translation>
    </message>
    <message>
        <source>Median duration</source>
        <translation>耗时中位数</translation>
    </message>
    <message>
        <source>Sample standard deviation of the duration</source>
        <translation>耗时的样本标准差</translation>
    </message>
</context>
<context>
    <name>sl::MainWindow</name>
    <message>
        <source>Sightline</source>
        <translation>Sightline</translation>
    </message>
    <message>
        <source>Loading cancelled</source>
        <translation>已取消加载</translation>
    </message>
    <message>
        <source>&lt;h2&gt;Sightline&lt;/h2&gt;&lt;p&gt;Open a GPU trace (Nsight Systems export, .nsys-rep, PyTorch profiler JSON) with &lt;b&gt;File › Open&lt;/b&gt;, or drop files here.&lt;/p&gt;</source>
        <translation>&lt;h2&gt;Sightline&lt;/h2&gt;&lt;p&gt;通过&lt;b&gt;文件 › 打开&lt;/b&gt;打开 GPU trace（Nsight Systems 导出文件、.nsys-rep、PyTorch profiler JSON），或将文件拖放到此处。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Kernels</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>Devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>关闭(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>设置(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Sightline</source>
        <translation>关于 Sightline(&amp;A)</translation>
    </message>
    <message>
        <source>About Sightline</source>
        <translation>关于 Sightline</translation>
    </message>
    <message>
        <source>&lt;b&gt;Sightline&lt;/b&gt; %1&lt;p&gt;Diagnoses GPU traces of LLM inference: where GPU time goes, why the GPU sits idle, and what to change.&lt;/p&gt;</source>
        <translation>&lt;b&gt;Sightline&lt;/b&gt; %1&lt;p&gt;诊断大模型推理的 GPU trace：GPU 时间花在哪里、GPU 为什么空闲，以及应该改什么。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop loading</source>
        <translation>停止加载</translation>
    </message>
    <message>
        <source>Open Trace</source>
        <translation>打开 Trace</translation>
    </message>
    <message>
        <source>GPU traces (*.sqlite *.nsys-rep *.qdrep *.json *.json.gz *.gz);;All files (*)</source>
        <translation>GPU trace (*.sqlite *.nsys-rep *.qdrep *.json *.json.gz *.gz);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation>正在加载 %1…</translation>
    </message>
    <message numerus="yes">
        <source>Loading %n file(s)…</source>
        <translation>
            <numerusform>正在加载 %n 个文件…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s) loaded</source>
        <translation>
            <numerusform>已加载 %n 个内核</numerusform>
        </translation>
    </message>
    <message>
        <source>Could not open the trace</source>
        <translation>无法打开 trace</translation>
    </message>
    <message>
        <source>%1 — Sightline</source>
        <translation>%1 — Sightline</translation>
    </message>
    <message numerus="yes">
        <source>%n files</source>
        <translation>
            <numerusform>%n 个文件</numerusform>
        </translation>
    </message>
    <message>
        <source>capture %1</source>
        <translation>采集时长 %1</translation>
    </message>
    <message numerus="yes">
        <source>%n device(s)</source>
        <translation>
            <numerusform>%n 个设备</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 kernels</source>
        <translation>%1 个内核</translation>
    </message>
    <message>
        <source>%1 memory copies</source>
        <translation>%1 次内存拷贝</translation>
    </message>
    <message>
        <source>%1 API calls</source>
        <translation>%1 次 API 调用</translation>
    </message>
    <message>
        <source>%1 NVTX ranges</source>
        <translation>%1 个 NVTX 区间</translation>
    </message>
    <message>
        <source>Clear Menu</source>
        <translation>清空列表</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>The language changes when Sightline is started again.</source>
        <translation>重新启动 Sightline 后语言设置生效。</translation>
    </message>
    <message>
        <source>Analysis failed: %1</source>
        <translation>分析失败：%1</translation>
    </message>
    <message>
        <source>Overview</source>
        <translation>概览</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>Gaps</source>
        <translation>空闲间隙</translation>
    </message>
    <message>
        <source>&amp;Export Report…</source>
        <translation>导出报告(&amp;E)…</translation>
    </message>
    <message>
        <source>Ctrl+E</source>
        <translation>Ctrl+E</translation>
    </message>
    <message>
        <source>Export Report</source>
        <translation>导出报告</translation>
    </message>
    <message>
        <source>PDF (*.pdf);;Markdown (*.md);;HTML (*.html);;JSON (*.json)</source>
        <translation>PDF (*.pdf);;Markdown (*.md);;HTML (*.html);;JSON (*.json)</translation>
    </message>
    <message>
        <source>Writing the report…</source>
        <translation>正在生成报告…</translation>
    </message>
    <message>
        <source>The report could not be written.</source>
        <translation>报告写入失败。</translation>
    </message>
    <message>
        <source>Report written to %1</source>
        <translation>报告已写入 %1</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
</context>
<context>
    <name>sl::OverviewPanel</name>
    <message>
        <source>Open a trace to see its overview.</source>
        <translation>打开 trace 后在此查看概览。</translation>
    </message>
    <message>
        <source>GPU time</source>
        <translation>GPU 时间</translation>
    </message>
    <message>
        <source>Kernels</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>Window</source>
        <translation>时间窗口</translation>
    </message>
    <message>
        <source>Busy</source>
        <translation>忙碌</translation>
    </message>
    <message>
        <source>Idle</source>
        <translation>空闲</translation>
    </message>
    <message numerus="yes">
        <source>%n gap(s)</source>
        <translation>
            <numerusform>%n 个间隙</numerusform>
        </translation>
    </message>
    <message>
        <source>Idle by cause</source>
        <translation>空闲原因分布</translation>
    </message>
    <message>
        <source>Top operator classes</source>
        <translation>耗时最多的算子类别</translation>
    </message>
    <message>
        <source>Analysing…</source>
        <translation>正在分析…</translation>
    </message>
</context>
<context>
    <name>sl::SummaryTableView</name>
    <message>
        <source>Filter by name…</source>
        <translation>按名称过滤…</translation>
    </message>
</context>
<context>
    <name>sl::TimelineView</name>
    <message>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source>Thread %1</source>
        <translation>线程 %1</translation>
    </message>
    <message>
        <source>%1 · Stream %2</source>
        <translation>%1 · 流 %2</translation>
    </message>
    <message>
        <source>%1 · Idle gaps</source>
        <translation>%1 · 空闲间隙</translation>
    </message>
    <message>
        <source>%1 · CUDA API</source>
        <translation>%1 · CUDA API</translation>
    </message>
    <message>
        <source>%1 · NVTX %2</source>
        <translation>%1 · NVTX %2</translation>
    </message>
    <message>
        <source>[CUDA memset]</source>
        <translation>[CUDA memset]</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>空闲</translation>
    </message>
    <message numerus="yes">
        <source>%n kernels</source>
        <translation>
            <numerusform>%n 个内核</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n items</source>
        <translation>
            <numerusform>%n 项</numerusform>
        </translation>
    </message>
    <message>
        <source>Window %1</source>
        <translation>窗口 %1</translation>
    </message>
    <message numerus="yes">
        <source>Range %1 · busy %2 · idle %3 · %n kernel(s)</source>
        <translation>
            <numerusform>选区 %1 · 忙碌 %2 · 空闲 %3 · %n 个内核</numerusform>
        </translation>
    </message>
    <message>
        <source>No trace loaded</source>
        <translation>尚未加载 trace</translation>
    </message>
    <message>
        <source>Duration: %1</source>
        <translation>耗时：%1</translation>
    </message>
    <message>
        <source>Start: %1</source>
        <translation>开始：%1</translation>
    </message>
    <message>
        <source>Stream %1</source>
        <translation>流 %1</translation>
    </message>
    <message>
        <source>Grid %1×%2×%3 · Block %4×%5×%6</source>
        <translation>Grid %1×%2×%3 · Block %4×%5×%6</translation>
    </message>
    <message>
        <source>Registers/thread %1</source>
        <translation>每线程寄存器 %1</translation>
    </message>
    <message>
        <source>Size %1</source>
        <translation>大小 %1</translation>
    </message>
    <message>
        <source>Correlation id %1</source>
        <translation>关联 ID %1</translation>
    </message>
    <message>
        <source>host wait</source>
        <translation>等待主机</translation>
    </message>
    <message>
        <source>kernel wait</source>
        <translation>等待内核</translation>
    </message>
    <message>
        <source>sync wait</source>
        <translation>等待同步</translation>
    </message>
    <message>
        <source>other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>&lt;b&gt;Kernels:&lt;/b&gt; %1 &amp;nbsp;&amp;nbsp; &lt;b&gt;Gaps:&lt;/b&gt; %2</source>
        <translation>&lt;b&gt;内核：&lt;/b&gt;%1 &amp;nbsp;&amp;nbsp; &lt;b&gt;间隙：&lt;/b&gt;%2</translation>
    </message>
    <message>
        <source>Class: %1</source>
        <translation>类别：%1</translation>
    </message>
    <message>
        <source>Cause: %1</source>
        <translation>原因：%1</translation>
    </message>
</context>
</TS>
