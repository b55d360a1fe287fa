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
    <message>
        <source>Trace of the graph capture, a file or a folder (repeatable); default: a capture_traces/ folder beside the trace.</source>
        <translation>图捕获时的 trace，可以是文件或目录（可重复）；默认：trace 旁的 capture_traces/ 目录。</translation>
    </message>
</context>
<context>
    <name>TraceHeader</name>
    <message>
        <source>capture %1 (time 0 = its start)</source>
        <translation>采集时长 %1（时间 0 = 采集开始）</translation>
    </message>
    <message>
        <source>GPU activity %1 (%2 – %3)</source>
        <translation>GPU 活动 %1（%2 – %3）</translation>
    </message>
    <message numerus="yes">
        <source>steady state %1 (%2 – %3, %n step(s))</source>
        <translation>
            <numerusform>稳态 %1（%2 – %3，%n 步）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n training iteration(s)</source>
        <translation>
            <numerusform>%n 次训练迭代</numerusform>
        </translation>
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
        <source>%1 CPU operators</source>
        <translation>%1 个 CPU 算子</translation>
    </message>
    <message>
        <source>Capture window from: %1</source>
        <translation>采集窗口来源：%1</translation>
    </message>
    <message>
        <source>GPU times moved by %1 onto the host clock</source>
        <translation>GPU 时间已平移 %1 以对齐主机时钟</translation>
    </message>
    <message>
        <source>Every time is measured from the capture start.</source>
        <translation>所有时间均从采集开始计时。</translation>
    </message>
    <message>
        <source>prefill-only</source>
        <translation>纯预填充</translation>
    </message>
    <message>
        <source>prefill-heavy</source>
        <translation>预填充为主</translation>
    </message>
    <message>
        <source>mixed</source>
        <translation>混合</translation>
    </message>
    <message>
        <source>decode-heavy</source>
        <translation>解码为主</translation>
    </message>
    <message>
        <source>decode-only</source>
        <translation>纯解码</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message numerus="yes">
        <source>%n prefill request(s)</source>
        <translation>
            <numerusform>%n 个预填充请求</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation>%1 个 token</translation>
    </message>
    <message numerus="yes">
        <source>%n decode request(s)</source>
        <translation>
            <numerusform>%n 个解码请求</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 KV tokens</source>
        <translation>%1 个 KV token</translation>
    </message>
    <message>
        <source>serving step: %1</source>
        <translation>服务步：%1</translation>
    </message>
    <message>
        <source>serving step: %1, %2</source>
        <translation>服务步：%1，%2</translation>
    </message>
    <message numerus="yes">
        <source>%n serving step(s): %1</source>
        <translation>
            <numerusform>%n 个服务步：%1</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 Python frames</source>
        <translation>%1 个 Python 帧</translation>
    </message>
</context>
<context>
    <name>sl::CompareDeltaModel</name>
    <message>
        <source>added</source>
        <translation>新增</translation>
    </message>
    <message>
        <source>removed</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>faster</source>
        <translation>变快</translation>
    </message>
    <message>
        <source>slower</source>
        <translation>变慢</translation>
    </message>
    <message>
        <source>unchanged</source>
        <translation>不变</translation>
    </message>
    <message>
        <source>Operator class</source>
        <translation>算子类别</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>Class</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Calls
before</source>
        <translation>变更前
调用次数</translation>
    </message>
    <message>
        <source>Calls
after</source>
        <translation>变更后
调用次数</translation>
    </message>
    <message>
        <source>Time
before</source>
        <translation>变更前
时间</translation>
    </message>
    <message>
        <source>Time
after</source>
        <translation>变更后
时间</translation>
    </message>
    <message>
        <source>Delta</source>
        <translation>差值</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>变化率</translation>
    </message>
</context>
<context>
    <name>sl::CompareHeadline</name>
    <message>
        <source>TPOT</source>
        <translation>TPOT</translation>
    </message>
    <message>
        <source>time per step</source>
        <translation>每步时间</translation>
    </message>
    <message>
        <source>wall time</source>
        <translation>墙钟时间</translation>
    </message>
    <message>
        <source>No end-to-end verdict: %1 has no GPU activity to time.</source>
        <translation>无端到端判定：%1 没有可计时的 GPU 活动。</translation>
    </message>
    <message>
        <source>BEFORE</source>
        <translation>变更前</translation>
    </message>
    <message>
        <source>AFTER</source>
        <translation>变更后</translation>
    </message>
    <message>
        <source>%1 %2 → %3 (%4)</source>
        <translation>%1 %2 → %3（%4）</translation>
    </message>
    <message>
        <source>steps/s</source>
        <translation>步/秒</translation>
    </message>
    <message>
        <source>tokens/s per sequence</source>
        <translation>token/秒（每序列）</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>token/秒</translation>
    </message>
    <message>
        <source>, throughput %1 → %2 %3</source>
        <translation>，吞吐 %1 → %2 %3</translation>
    </message>
    <message>
        <source>the noise of ±%1 (run-to-run spread ±%2)</source>
        <translation>±%1 的噪声（运行间波动 ±%2）</translation>
    </message>
    <message>
        <source>the noise floor of ±%1 (the run-to-run spread is not known)</source>
        <translation>±%1 的噪声下限（运行间波动未知）</translation>
    </message>
    <message>
        <source>Not comparable (%1): %2%3.</source>
        <translation>不可对比（%1）：%2%3。</translation>
    </message>
    <message>
        <source>Faster end to end: %1%2, beyond %3.</source>
        <translation>端到端变快：%1%2，超出%3。</translation>
    </message>
    <message>
        <source>Slower end to end: %1%2, beyond %3.</source>
        <translation>端到端变慢：%1%2，超出%3。</translation>
    </message>
    <message>
        <source>No measurable change end to end: %1%2, within %3.</source>
        <translation>端到端无可测变化：%1%2，在%3之内。</translation>
    </message>
    <message>
        <source>Judged on the median TPOT of %1 → %2 steady decode steps.</source>
        <translation>依据 %1 → %2 个稳态解码步的 TPOT 中位数判定。</translation>
    </message>
    <message>
        <source>Judged on the mean time per step of %1 → %2 steps.</source>
        <translation>依据 %1 → %2 步的平均每步时间判定。</translation>
    </message>
    <message>
        <source>Judged on the wall time of the GPU activity (neither run has steps).</source>
        <translation>依据 GPU 活动的墙钟时间判定（两次运行均无步）。</translation>
    </message>
    <message>
        <source>Kernel time %1 → %2: %3 gained, %4 lost (kernels: %5 faster, %6 slower, %7 added, %8 removed).</source>
        <translation>内核时间 %1 → %2：节省 %3，增加 %4（内核：%5 个变快，%6 个变慢，%7 个新增，%8 个移除）。</translation>
    </message>
    <message>
        <source>Kernel times are totals over each capture, whose step counts differ.</source>
        <translation>内核时间是各次采集的总和，而两次采集的步数不同。</translation>
    </message>
</context>
<context>
    <name>sl::CompareJob</name>
    <message>
        <source>No knowledge base at %1: accept suggestions first to get verdicts.</source>
        <translation>%1 处没有知识库：请先采纳建议，才能得到判定。</translation>
    </message>
    <message>
        <source>Verdicts need a before trace opened from one file.</source>
        <translation>判定要求变更前的 trace 由单个文件打开。</translation>
    </message>
    <message>
        <source>No suggestion of the before trace was accepted.</source>
        <translation>变更前 trace 的建议均未被采纳。</translation>
    </message>
    <message>
        <source>The knowledge base has no run of the before trace: accept its suggestions first.</source>
        <translation>知识库中没有变更前 trace 的运行记录：请先采纳它的建议。</translation>
    </message>
    <message>
        <source>The knowledge base cannot be read: %1</source>
        <translation>无法读取知识库：%1</translation>
    </message>
    <message>
        <source>Nothing to record: compare with an after trace first.</source>
        <translation>没有可记录的内容：请先与变更后的 trace 对比。</translation>
    </message>
</context>
<context>
    <name>sl::CompareMetricsModel</name>
    <message>
        <source>Wall time</source>
        <translation>墙钟时间</translation>
    </message>
    <message>
        <source>TPOT (median)</source>
        <translation>TPOT（中位数）</translation>
    </message>
    <message>
        <source>TPOT (p90)</source>
        <translation>TPOT（p90）</translation>
    </message>
    <message>
        <source>GPU utilisation</source>
        <translation>GPU 利用率</translation>
    </message>
    <message>
        <source>Idle fraction</source>
        <translation>空闲占比</translation>
    </message>
    <message>
        <source>Idle: host wait</source>
        <translation>空闲：主机等待</translation>
    </message>
    <message>
        <source>Idle: kernel wait</source>
        <translation>空闲：内核等待</translation>
    </message>
    <message>
        <source>Idle: sync wait</source>
        <translation>空闲：同步等待</translation>
    </message>
    <message>
        <source>Idle: other</source>
        <translation>空闲：其他</translation>
    </message>
    <message>
        <source>Kernels</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>Kernel time</source>
        <translation>内核时间</translation>
    </message>
    <message>
        <source>Launch API time</source>
        <translation>启动 API 时间</translation>
    </message>
    <message>
        <source>Sync API time</source>
        <translation>同步 API 时间</translation>
    </message>
    <message>
        <source>NCCL time</source>
        <translation>NCCL 时间</translation>
    </message>
    <message>
        <source>Host-to-device copies</source>
        <translation>主机到设备拷贝</translation>
    </message>
    <message>
        <source>Busy time</source>
        <translation>忙碌时间</translation>
    </message>
    <message>
        <source>Idle time</source>
        <translation>空闲时间</translation>
    </message>
    <message>
        <source>Decode steps</source>
        <translation>解码步数</translation>
    </message>
    <message>
        <source>Prefill time</source>
        <translation>预填充时间</translation>
    </message>
    <message>
        <source>Launch overhead</source>
        <translation>启动开销</translation>
    </message>
    <message>
        <source>Pageable async copies</source>
        <translation>可分页内存异步拷贝</translation>
    </message>
    <message>
        <source>Synchronous copies</source>
        <translation>同步拷贝</translation>
    </message>
    <message>
        <source>Metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Before</source>
        <translation>变更前</translation>
    </message>
    <message>
        <source>After</source>
        <translation>变更后</translation>
    </message>
    <message>
        <source>Delta</source>
        <translation>差值</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>变化率</translation>
    </message>
</context>
<context>
    <name>sl::CompareVerdictModel</name>
    <message>
        <source>verified</source>
        <translation>已验证</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>未通过</translation>
    </message>
    <message>
        <source>inconclusive</source>
        <translation>无定论</translation>
    </message>
    <message>
        <source>unmeasurable</source>
        <translation>无法衡量</translation>
    </message>
    <message>
        <source>Suggestion</source>
        <translation>建议</translation>
    </message>
    <message>
        <source>Subject</source>
        <translation>对象</translation>
    </message>
    <message>
        <source>Metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Before</source>
        <translation>变更前</translation>
    </message>
    <message>
        <source>After</source>
        <translation>变更后</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>变化率</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>判定</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
</context>
<context>
    <name>sl::CompareView</name>
    <message>
        <source>Open After…</source>
        <translation>打开变更后 trace…</translation>
    </message>
    <message>
        <source>Open the trace of the changed run (AFTER) to compare with the open trace (BEFORE).</source>
        <translation>打开改动后运行的 trace（变更后），与当前打开的 trace（变更前）对比。</translation>
    </message>
    <message>
        <source>Record Verdicts</source>
        <translation>记录判定</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Filter kernels by name…</source>
        <translation>按名称过滤内核…</translation>
    </message>
    <message>
        <source>Operator classes</source>
        <translation>算子类别</translation>
    </message>
    <message>
        <source>Kernels</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>Verdicts</source>
        <translation>判定</translation>
    </message>
    <message>
        <source>Comparing…</source>
        <translation>正在对比…</translation>
    </message>
    <message>
        <source>Comparing… (%1)</source>
        <translation>正在对比…（%1）</translation>
    </message>
    <message>
        <source>The comparison failed: %1</source>
        <translation>对比失败：%1</translation>
    </message>
    <message>
        <source>Comparison cancelled.</source>
        <translation>已取消对比。</translation>
    </message>
    <message numerus="yes">
        <source>Recorded %n verdict(s) in %1.</source>
        <translation>
            <numerusform>已将 %n 条判定记录到 %1。</numerusform>
        </translation>
    </message>
    <message>
        <source>Recording failed: %1</source>
        <translation>记录失败：%1</translation>
    </message>
    <message>
        <source>Open the trace of the changed run with “Open After…” to compare it with the open trace.</source>
        <translation>用“打开变更后 trace…”打开改动后运行的 trace，与当前 trace 对比。</translation>
    </message>
    <message>
        <source>Waiting for the open trace&apos;s analysis…</source>
        <translation>正在等待当前 trace 的分析完成…</translation>
    </message>
    <message>
        <source>Open After Trace</source>
        <translation>打开变更后的 trace</translation>
    </message>
    <message>
        <source>GPU traces (*.sqlite *.nsys-rep *.qdrep *.json *.json.gz *.gz);;All files (*)</source>
        <translation>GPU trace (*.sqlite *.nsys-rep *.qdrep *.json *.json.gz *.gz);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Recording in %1…</source>
        <translation>正在记录到 %1…</translation>
    </message>
    <message>
        <source>Verdicts (%1)</source>
        <translation>判定（%1）</translation>
    </message>
    <message>
        <source>Suggestions accepted on the before trace, judged by the metric each promised to move. Nothing is written until you press Record Verdicts.</source>
        <translation>在变更前 trace 上采纳的建议，按各自承诺改善的指标进行判定。按下“记录判定”之前不会写入任何内容。</translation>
    </message>
    <message>
        <source>Write the after run and these verdicts into the knowledge base %1 (as &apos;sightline-cli compare --record&apos; does).</source>
        <translation>将变更后的运行及这些判定写入知识库 %1（与 “sightline-cli compare --record” 相同）。</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>&lt;b&gt;Before:&lt;/b&gt; %1</source>
        <translation>&lt;b&gt;变更前：&lt;/b&gt;%1</translation>
    </message>
    <message>
        <source>&lt;b&gt;After:&lt;/b&gt; %1</source>
        <translation>&lt;b&gt;变更后：&lt;/b&gt;%1</translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>%1 → %2 GPUs</source>
        <translation>%1 → %2 块 GPU</translation>
    </message>
    <message>
        <source>%1: %2 → %3</source>
        <translation>%1：%2 → %3</translation>
    </message>
    <message>
        <source>Environment differences:
%1</source>
        <translation>环境差异：
%1</translation>
    </message>
    <message>
        <source>&lt;b&gt;Different hardware:&lt;/b&gt; %1. Every difference mixes the hardware with the change, so no suggestion is verified or failed across these runs; compare runs on the same GPUs.</source>
        <translation>&lt;b&gt;硬件不同：&lt;/b&gt;%1。每一处差异都混合了硬件与改动的影响，因此这两次运行之间不会判定任何建议为“已验证”或“失败”；请在相同的 GPU 上对比运行。</translation>
    </message>
    <message>
        <source>Accepted suggestions: %1 verified, %2 failed, %3 inconclusive, %4 unmeasurable (Verdicts tab).</source>
        <translation>已采纳的建议：%1 条已验证，%2 条未通过，%3 条无定论，%4 条无法衡量（见“判定”标签页）。</translation>
    </message>
    <message>
        <source>No suggestion of the before trace was accepted.</source>
        <translation>变更前 trace 的建议均未被采纳。</translation>
    </message>
</context>
<context>
    <name>sl::DeepDiveDialog</name>
    <message>
        <source>Deep-dive Focus Set</source>
        <translation>深入剖析关注集</translation>
    </message>
    <message>
        <source>roofline (fast: the Roofline counters)</source>
        <translation>roofline（快：Roofline 计数器）</translation>
    </message>
    <message>
        <source>full (every section: slow)</source>
        <translation>full（全部分节：慢）</translation>
    </message>
    <message>
        <source>the inference command, run under ncu</source>
        <translation>推理命令，在 ncu 下运行</translation>
    </message>
    <message>
        <source>extra ncu flags</source>
        <translation>额外的 ncu 参数</translation>
    </message>
    <message>
        <source>Forming the focus set…</source>
        <translation>正在形成关注集…</translation>
    </message>
    <message>
        <source>Trace:</source>
        <translation>trace：</translation>
    </message>
    <message>
        <source>Section set:</source>
        <translation>分节集：</translation>
    </message>
    <message>
        <source>Command:</source>
        <translation>命令：</translation>
    </message>
    <message>
        <source>Working folder:</source>
        <translation>工作目录：</translation>
    </message>
    <message>
        <source>ncu flags:</source>
        <translation>ncu 参数：</translation>
    </message>
    <message>
        <source>Output folder:</source>
        <translation>输出目录：</translation>
    </message>
    <message>
        <source>Focus set:</source>
        <translation>关注集：</translation>
    </message>
    <message>
        <source>Will run:</source>
        <translation>将运行：</translation>
    </message>
    <message>
        <source>No focus set: %1</source>
        <translation>无关注集：%1</translation>
    </message>
    <message>
        <source>The trace has no kernels: there is no focus set to profile.</source>
        <translation>该 trace 没有内核：没有可剖析的关注集。</translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s): %1</source>
        <translation>
            <numerusform>%n 个内核：%1</numerusform>
        </translation>
    </message>
    <message>
        <source>Check the command, then Run.</source>
        <translation>请检查命令，然后点击“运行”。</translation>
    </message>
    <message>
        <source>Done: %1</source>
        <translation>完成：%1</translation>
    </message>
    <message>
        <source>Give the inference command to run under ncu.</source>
        <translation>请给出要在 ncu 下运行的推理命令。</translation>
    </message>
    <message>
        <source>Running ncu on the focus set…</source>
        <translation>正在对关注集运行 ncu…</translation>
    </message>
    <message>
        <source>Cancelling: stopping ncu and the command…</source>
        <translation>正在取消：停止 ncu 和命令…</translation>
    </message>
</context>
<context>
    <name>sl::DetailsPanel</name>
    <message>
        <source>Operator class</source>
        <translation>算子类别</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>耗时</translation>
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
        <translation>网格</translation>
    </message>
    <message>
        <source>Block</source>
        <translation>线程块</translation>
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
    <message>
        <source>Click a kernel or an idle gap in the timeline to see its details.</source>
        <translation>在时间线中点击一个内核或空闲间隙以查看其详情。</translation>
    </message>
    <message>
        <source>GPU %1 · stream %2</source>
        <translation>GPU %1 · 流 %2</translation>
    </message>
    <message>
        <source>All instances of this name</source>
        <translation>同名的所有实例</translation>
    </message>
    <message>
        <source>Instances</source>
        <translation>次数</translation>
    </message>
    <message>
        <source>%1 · total %2</source>
        <translation>%1 · 共 %2</translation>
    </message>
    <message>
        <source>This instance</source>
        <translation>本实例</translation>
    </message>
    <message>
        <source>percentile %1</source>
        <translation>百分位 %1</translation>
    </message>
    <message>
        <source>Min · median</source>
        <translation>最小 · 中位数</translation>
    </message>
    <message>
        <source>p90 · max</source>
        <translation>p90 · 最大</translation>
    </message>
    <message>
        <source>Longest</source>
        <translation>最长</translation>
    </message>
    <message>
        <source>show</source>
        <translation>查看</translation>
    </message>
    <message>
        <source>Launch configuration</source>
        <translation>启动配置</translation>
    </message>
    <message>
        <source>Estimated occupancy</source>
        <translation>估算占用率</translation>
    </message>
    <message>
        <source>Launch</source>
        <translation>启动</translation>
    </message>
    <message>
        <source>Call duration</source>
        <translation>调用耗时</translation>
    </message>
    <message>
        <source>Thread</source>
        <translation>线程</translation>
    </message>
    <message>
        <source> (warm-up)</source>
        <translation>（预热）</translation>
    </message>
    <message>
        <source>Phase</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>单步耗时</translation>
    </message>
    <message>
        <source>Idle before it</source>
        <translation>之前的空闲</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1，%2</translation>
    </message>
    <message>
        <source>Findings (%1)</source>
        <translation>诊断结论（%1）</translation>
    </message>
    <message>
        <source>Roofline</source>
        <translation>Roofline 分析</translation>
    </message>
    <message>
        <source>The cost model has no operator of class %1 in this phase.</source>
        <translation>成本模型在此阶段没有类别为 %1 的算子。</translation>
    </message>
    <message>
        <source>Class · phase</source>
        <translation>类别 · 阶段</translation>
    </message>
    <message>
        <source>E_roof</source>
        <translation>E_roof</translation>
    </message>
    <message>
        <source>Intensity</source>
        <translation>算术强度</translation>
    </message>
    <message>
        <source>%1 FLOP/B</source>
        <translation>%1 FLOP/B</translation>
    </message>
    <message>
        <source>Theory per pass</source>
        <translation>每轮理论耗时</translation>
    </message>
    <message>
        <source>Measured per pass</source>
        <translation>每轮实测耗时</translation>
    </message>
    <message>
        <source>Achieved</source>
        <translation>实际算力</translation>
    </message>
    <message>
        <source>E_roof below %1</source>
        <translation>E_roof 低于 %1</translation>
    </message>
    <message>
        <source>Nsight Compute</source>
        <translation>Nsight Compute</translation>
    </message>
    <message>
        <source>Duration (ncu)</source>
        <translation>耗时（ncu）</translation>
    </message>
    <message>
        <source>SM throughput</source>
        <translation>SM 吞吐</translation>
    </message>
    <message>
        <source>DRAM throughput</source>
        <translation>DRAM 吞吐</translation>
    </message>
    <message>
        <source>Memory throughput</source>
        <translation>内存吞吐</translation>
    </message>
    <message>
        <source>Achieved occupancy</source>
        <translation>实际占用率</translation>
    </message>
    <message>
        <source>Top stalls</source>
        <translation>主要停顿原因</translation>
    </message>
    <message>
        <source>No profiled launch of the ncu file matches this kernel.</source>
        <translation>ncu 文件中没有与此内核匹配的已分析启动。</translation>
    </message>
    <message>
        <source>No finding involves it.</source>
        <translation>没有涉及它的诊断结论。</translation>
    </message>
    <message>
        <source>%1 · gain %2 · confidence %3 · %4</source>
        <translation>%1 · 收益 %2 · 置信度 %3 · %4</translation>
    </message>
    <message>
        <source>Evidence:</source>
        <translation>证据：</translation>
    </message>
    <message>
        <source>Idle gap · %1</source>
        <translation>空闲间隙 · %1</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source>The next operation was launched only after the GPU went idle: the CPU could not feed the GPU.</source>
        <translation>GPU 空闲之后下一个操作才被启动：CPU 供给不上 GPU。</translation>
    </message>
    <message>
        <source>Back-to-back launches with a short gap: launch latency.</source>
        <translation>连续启动之间的短间隙：启动延迟。</translation>
    </message>
    <message>
        <source>The host was blocked in a synchronising call before it launched the next operation.</source>
        <translation>主机在启动下一个操作之前阻塞在同步调用中。</translation>
    </message>
    <message>
        <source>Neither the host nor launch latency explains it (dependencies, unlinked operations).</source>
        <translation>既不能用主机也不能用启动延迟解释（依赖关系、无法关联的操作）。</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>%1 copy, %2</source>
        <translation>%1 拷贝，%2</translation>
    </message>
    <message>
        <source>memset</source>
        <translation>内存设置</translation>
    </message>
    <message>
        <source>Around the gap</source>
        <translation>间隙前后</translation>
    </message>
    <message>
        <source>Before</source>
        <translation>之前</translation>
    </message>
    <message>
        <source>After</source>
        <translation>之后</translation>
    </message>
    <message>
        <source>Its launch call</source>
        <translation>其启动调用</translation>
    </message>
    <message>
        <source>%1, began %2 after the gap started</source>
        <translation>%1，在间隙开始后 %2 发起</translation>
    </message>
    <message>
        <source>%1, began %2 before the gap started</source>
        <translation>%1，在间隙开始前 %2 发起</translation>
    </message>
    <message>
        <source>Blocking call</source>
        <translation>阻塞调用</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>CPU during the gap</source>
        <translation>间隙期间的 CPU</translation>
    </message>
    <message>
        <source>API calls</source>
        <translation>API 调用</translation>
    </message>
    <message>
        <source>none: the CPU issued no CUDA call during the gap</source>
        <translation>无：间隙期间 CPU 没有发起任何 CUDA 调用</translation>
    </message>
    <message>
        <source>%1, %2 of the gap in calls</source>
        <translation>%1 次，占间隙的 %2</translation>
    </message>
    <message>
        <source>prefill pass %1 of %2–%3</source>
        <translation>预填充第 %1 轮（%2–%3）</translation>
    </message>
    <message>
        <source>mixed step %1 of %2–%3</source>
        <translation>混合第 %1 步（%2–%3）</translation>
    </message>
    <message>
        <source>decode step %1 of %2–%3</source>
        <translation>解码第 %1 步（%2–%3）</translation>
    </message>
    <message>
        <source>Step range</source>
        <translation>步骤区间</translation>
    </message>
    <message numerus="yes">
        <source>among the %n operator(s) with the most time</source>
        <translation>
            <numerusform>耗时最多的 %n 个算子之一</numerusform>
        </translation>
    </message>
    <message>
        <source>Look at first</source>
        <translation>优先查看</translation>
    </message>
    <message>
        <source>none: started %1 before the call returned</source>
        <translation>无：在启动调用返回前 %1 已开始执行</translation>
    </message>
    <message>
        <source>Operator</source>
        <translation>算子</translation>
    </message>
    <message>
        <source>CPU op</source>
        <translation>CPU 算子</translation>
    </message>
    <message>
        <source> (from the graph&apos;s capture trace)</source>
        <translation>（来自该图捕获时的 trace）</translation>
    </message>
    <message>
        <source>unknown: replayed from a CUDA/HIP graph, whose launch carries no CPU op; give the trace of the graph&apos;s capture (--capture-trace)</source>
        <translation>未知：由 CUDA/HIP 图重放，图启动不带 CPU 算子；请提供该图捕获时的 trace（--capture-trace）</translation>
    </message>
    <message>
        <source>Input shapes</source>
        <translation>输入形状</translation>
    </message>
    <message>
        <source>Input types</source>
        <translation>输入类型</translation>
    </message>
    <message>
        <source>Operator chain</source>
        <translation>算子调用链</translation>
    </message>
    <message>
        <source>Module</source>
        <translation>模块</translation>
    </message>
    <message>
        <source>Verdict:</source>
        <translation>判定：</translation>
    </message>
    <message>
        <source>Operator · shape</source>
        <translation>算子 · 形状</translation>
    </message>
    <message>
        <source>Of the %1 roof</source>
        <translation>占 %1 屋顶</translation>
    </message>
    <message>
        <source>The model&apos;s Roofline needs its config.json (File › Open with the trace, or Settings › Preferences).</source>
        <translation>模型的 Roofline 需要其 config.json（文件 › 打开，与 trace 一起打开；或 设置 › 首选项）。</translation>
    </message>
    <message>
        <source>CPU operator</source>
        <translation>CPU 算子</translation>
    </message>
    <message>
        <source>Replayed from a CUDA graph: these are the operators around the graph launch.</source>
        <translation>由 CUDA 图重放：以下是图启动前后的算子。</translation>
    </message>
    <message>
        <source>Python frame</source>
        <translation>Python 帧</translation>
    </message>
    <message>
        <source>Annotation</source>
        <translation>用户标注</translation>
    </message>
    <message>
        <source>NVTX range</source>
        <translation>NVTX 区间</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Inside</source>
        <translation>所在层级</translation>
    </message>
    <message>
        <source>Kernels launched (%1)</source>
        <translation>启动的内核（%1）</translation>
    </message>
    <message>
        <source>GPU time</source>
        <translation>GPU 时间</translation>
    </message>
    <message numerus="yes">
        <source>… and %n more</source>
        <translation>
            <numerusform>… 另有 %n 个</numerusform>
        </translation>
    </message>
    <message>
        <source>The next operation was already queued and waited on a stream wait (an event of another stream) before it could start: a dependency, not the host.</source>
        <translation>下一个操作已经入队，但在开始之前等待了流等待（另一条流上的事件）：这是依赖，不是主机造成的。</translation>
    </message>
    <message>
        <source>Waited on</source>
        <translation>等待对象</translation>
    </message>
    <message>
        <source>Grid · block</source>
        <translation>网格 · 线程块</translation>
    </message>
    <message>
        <source>not recorded in the trace</source>
        <translation>trace 中未记录</translation>
    </message>
    <message>
        <source>hide the full name</source>
        <translation>收起完整名称</translation>
    </message>
    <message numerus="yes">
        <source>full name (%n character(s))</source>
        <translation>
            <numerusform>完整名称（%n 个字符）</numerusform>
        </translation>
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
    <message>
        <source>GPU activity window</source>
        <translation>GPU 活动窗口</translation>
    </message>
</context>
<context>
    <name>sl::FindingsModel</name>
    <message>
        <source>High</source>
        <translation>高</translation>
    </message>
    <message>
        <source>Medium</source>
        <translation>中</translation>
    </message>
    <message>
        <source>Low</source>
        <translation>低</translation>
    </message>
    <message>
        <source>Info</source>
        <translation>信息</translation>
    </message>
    <message>
        <source>trace</source>
        <translation>整个 trace</translation>
    </message>
    <message>
        <source>device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>phase</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>operator class</source>
        <translation>算子类别</translation>
    </message>
    <message>
        <source>kernel</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>ncu launch</source>
        <translation>ncu 启动</translation>
    </message>
    <message>
        <source>Finding</source>
        <translation>诊断结论</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Evidence</source>
        <translation>证据</translation>
    </message>
    <message>
        <source>Suggestion</source>
        <translation>建议</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>Time range</source>
        <translation>时间范围</translation>
    </message>
    <message>
        <source>NVTX</source>
        <translation>NVTX</translation>
    </message>
    <message>
        <source>Links</source>
        <translation>关联</translation>
    </message>
    <message>
        <source>%1–%2</source>
        <translation>%1–%2</translation>
    </message>
    <message>
        <source>high</source>
        <translation>高</translation>
    </message>
    <message>
        <source>medium</source>
        <translation>中</translation>
    </message>
    <message>
        <source>low</source>
        <translation>低</translation>
    </message>
    <message numerus="yes">
        <source>%n rule(s) could not be loaded (%1: %2)</source>
        <translation>
            <numerusform>%n 条规则无法加载（%1：%2）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n rule(s) failed to evaluate (%1)</source>
        <translation>
            <numerusform>%n 条规则求值失败（%1）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n rule(s) could not run: missing %1</source>
        <translation>
            <numerusform>%n 条规则无法运行：缺少 %1</numerusform>
        </translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>排名</translation>
    </message>
    <message>
        <source>Severity</source>
        <translation>严重程度</translation>
    </message>
    <message>
        <source>Subject</source>
        <translation>对象</translation>
    </message>
    <message>
        <source>Expected gain</source>
        <translation>预期收益</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Computed from the metrics: %1</source>
        <translation>由指标计算：%1</translation>
    </message>
    <message>
        <source>The rule&apos;s range (the metrics did not give a number)</source>
        <translation>规则给出的范围（指标未能算出具体数值）</translation>
    </message>
    <message>
        <source>prior %1 × data quality %2 × history %3</source>
        <translation>先验 %1 × 数据质量 %2 × 历史 %3</translation>
    </message>
    <message>
        <source>%1 (value %2) from %3</source>
        <translation>%1（值 %2），来自 %3</translation>
    </message>
    <message>
        <source>risk: %1</source>
        <translation>风险：%1</translation>
    </message>
    <message>
        <source>Knowledge-base key: %1/%2</source>
        <translation>知识库键：%1/%2</translation>
    </message>
    <message>
        <source>Verify: %1</source>
        <translation>验证：%1</translation>
    </message>
    <message>
        <source>at %1</source>
        <translation>位于 %1</translation>
    </message>
    <message>
        <source>kernel #%1</source>
        <translation>内核 #%1</translation>
    </message>
    <message>
        <source>time range</source>
        <translation>时间范围</translation>
    </message>
    <message>
        <source>%1 – %2</source>
        <translation>%1 – %2</translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s), longest first</source>
        <translation>
            <numerusform>%n 个内核，按耗时从长到短</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n time range(s)</source>
        <translation>
            <numerusform>%n 个时间范围</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n NVTX range(s)</source>
        <translation>
            <numerusform>%n 个 NVTX 区间</numerusform>
        </translation>
    </message>
    <message>
        <source>Click a row below to select it in the other panes</source>
        <translation>点击下方的行，在其他面板中选中它</translation>
    </message>
    <message>
        <source>Kernels</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>Ranges</source>
        <translation>时间范围</translation>
    </message>
    <message>
        <source>no direct gain</source>
        <translation>无直接收益</translation>
    </message>
    <message>
        <source>idle attribution</source>
        <translation>空闲归因</translation>
    </message>
    <message>
        <source>launch statistics</source>
        <translation>启动统计</translation>
    </message>
    <message>
        <source>synchronisation analysis</source>
        <translation>同步分析</translation>
    </message>
    <message>
        <source>API calls in the trace</source>
        <translation>trace 中的 API 调用</translation>
    </message>
    <message>
        <source>overlap analysis</source>
        <translation>重叠分析</translation>
    </message>
    <message>
        <source>collectives across ranks</source>
        <translation>跨 rank 集合通信</translation>
    </message>
    <message>
        <source>operator classes</source>
        <translation>算子类别</translation>
    </message>
    <message>
        <source>weight-streaming analysis</source>
        <translation>权重流式加载分析</translation>
    </message>
    <message>
        <source>weight-streaming analysis (NVTX)</source>
        <translation>权重流式加载分析（NVTX）</translation>
    </message>
    <message>
        <source>idle attribution and overlap</source>
        <translation>空闲归因与重叠</translation>
    </message>
    <message>
        <source>Roofline model</source>
        <translation>Roofline 模型</translation>
    </message>
    <message>
        <source>trace (measured)</source>
        <translation>trace（实测）</translation>
    </message>
    <message>
        <source>Nsight Compute</source>
        <translation>Nsight Compute</translation>
    </message>
    <message>
        <source>trace (joined by kernel name)</source>
        <translation>trace（按内核名关联）</translation>
    </message>
    <message>
        <source>metrics</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>prefill/decode phases</source>
        <translation>预填充/解码阶段</translation>
    </message>
    <message>
        <source>kernels in the trace</source>
        <translation>trace 中的内核</translation>
    </message>
    <message>
        <source>LLM review</source>
        <translation>LLM 复核</translation>
    </message>
    <message>
        <source>dropped</source>
        <translation>已舍弃</translation>
    </message>
    <message>
        <source>✓ agrees</source>
        <translation>✓ 同意</translation>
    </message>
    <message>
        <source>✗ disagrees</source>
        <translation>✗ 不同意</translation>
    </message>
    <message>
        <source>The LLM reviewer agrees (advisory):</source>
        <translation>LLM 复核者同意（仅供参考）：</translation>
    </message>
    <message>
        <source>The LLM reviewer disagrees (advisory):</source>
        <translation>LLM 复核者不同意（仅供参考）：</translation>
    </message>
    <message>
        <source>Cited evidence:</source>
        <translation>引用的证据：</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>A claim of the reviewer was dropped: %1</source>
        <translation>复核者的一条意见已被舍弃：%1</translation>
    </message>
    <message>
        <source>%1 = %2  (rule: %3 %4 %5)</source>
        <translation>%1 = %2（规则：%3 %4 %5）</translation>
    </message>
    <message>
        <source>host-side cause</source>
        <translation>主机侧成因</translation>
    </message>
    <message>
        <source>prefill</source>
        <translation>预填充</translation>
    </message>
    <message>
        <source>decode</source>
        <translation>解码</translation>
    </message>
    <message>
        <source>mixed</source>
        <translation>混合</translation>
    </message>
    <message>
        <source>whole trace</source>
        <translation>整个 trace</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>host-side causes (compilation, module loading, allocator)</source>
        <translation>主机侧成因（编译、模块加载、分配器）</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>bounded by</source>
        <translation>上限为</translation>
    </message>
    <message>
        <source>training</source>
        <translation>训练</translation>
    </message>
</context>
<context>
    <name>sl::FindingsView</name>
    <message>
        <source>All severities</source>
        <translation>全部严重程度</translation>
    </message>
    <message>
        <source>Low and above</source>
        <translation>低及以上</translation>
    </message>
    <message>
        <source>Medium and above</source>
        <translation>中及以上</translation>
    </message>
    <message>
        <source>High only</source>
        <translation>仅高</translation>
    </message>
    <message>
        <source>Search findings, evidence, suggestions…</source>
        <translation>搜索诊断结论、证据、建议…</translation>
    </message>
    <message>
        <source>Copy command</source>
        <translation>复制命令</translation>
    </message>
    <message>
        <source>Copy the verify command of the selected suggestion</source>
        <translation>复制所选建议的验证命令</translation>
    </message>
    <message>
        <source>Severity:</source>
        <translation>严重程度：</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>排名</translation>
    </message>
    <message>
        <source>Severity</source>
        <translation>严重程度</translation>
    </message>
    <message>
        <source>Expected gain</source>
        <translation>预期收益</translation>
    </message>
    <message>
        <source>risk: %1</source>
        <translation>风险：%1</translation>
    </message>
    <message>
        <source>medium</source>
        <translation>中</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message numerus="yes">
        <source>%1: missing %2 (%n subject(s), e.g. %3)</source>
        <translation>
            <numerusform>%1：缺少 %2（%n 个对象，例如 %3）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n finding(s)</source>
        <translation>
            <numerusform>%n 条诊断结论</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n finding(s)</source>
        <translation>
            <numerusform>%1 / %n 条诊断结论</numerusform>
        </translation>
    </message>
    <message>
        <source>Select kernel</source>
        <translation>选中内核</translation>
    </message>
    <message>
        <source>Select time range</source>
        <translation>选中时间范围</translation>
    </message>
    <message>
        <source>Copy text</source>
        <translation>复制文本</translation>
    </message>
    <message>
        <source>Expand all</source>
        <translation>全部展开</translation>
    </message>
    <message>
        <source>Collapse all</source>
        <translation>全部折叠</translation>
    </message>
    <message>
        <source>Findings appear when the rules have run.</source>
        <translation>规则运行完成后将在此显示诊断结论。</translation>
    </message>
    <message>
        <source>Open a trace to see its findings.</source>
        <translation>打开 trace 后在此查看诊断结论。</translation>
    </message>
    <message numerus="yes">
        <source>No rule fired on this trace (%n rule(s) evaluated).</source>
        <translation>
            <numerusform>此 trace 未触发任何规则（已评估 %n 条规则）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Select a finding to see its evidence and suggestions.</source>
        <translation>选择一条诊断结论以查看其证据和建议。</translation>
    </message>
    <message>
        <source>Evidence</source>
        <translation>证据</translation>
    </message>
    <message>
        <source>Metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Rule</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; of the end-to-end time</source>
        <translation>端到端时间的 &lt;b&gt;%1&lt;/b&gt;</translation>
    </message>
    <message>
        <source>computed: %1</source>
        <translation>计算方式：%1</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1 to %2&lt;/b&gt; of the end-to-end time</source>
        <translation>端到端时间的 &lt;b&gt;%1 至 %2&lt;/b&gt;</translation>
    </message>
    <message>
        <source>the rule&apos;s range: the metrics did not give a number</source>
        <translation>规则给出的范围：指标未能算出具体数值</translation>
    </message>
    <message>
        <source>prior %1 × data quality %2 × history %3</source>
        <translation>先验 %1 × 数据质量 %2 × 历史 %3</translation>
    </message>
    <message>
        <source>Suggestions</source>
        <translation>建议</translation>
    </message>
    <message>
        <source>measured by %1 (%2)</source>
        <translation>以 %1 衡量（%2）</translation>
    </message>
    <message>
        <source>state: &lt;b&gt;%1&lt;/b&gt;</source>
        <translation>状态：&lt;b&gt;%1&lt;/b&gt;</translation>
    </message>
    <message>
        <source>In the trace</source>
        <translation>在 trace 中</translation>
    </message>
    <message>
        <source>kernel #%1</source>
        <translation>内核 #%1</translation>
    </message>
    <message>
        <source>%1 at %2</source>
        <translation>%1，位于 %2</translation>
    </message>
    <message numerus="yes">
        <source>%n more kernel(s) in the tree</source>
        <translation>
            <numerusform>树中还有 %n 个内核</numerusform>
        </translation>
    </message>
    <message>
        <source>time range</source>
        <translation>时间范围</translation>
    </message>
    <message numerus="yes">
        <source>%n more range(s) in the tree</source>
        <translation>
            <numerusform>树中还有 %n 个时间范围</numerusform>
        </translation>
    </message>
    <message>
        <source>References:</source>
        <translation>参考资料：</translation>
    </message>
    <message>
        <source>no direct gain</source>
        <translation>无直接收益</translation>
    </message>
    <message>
        <source>gain %1</source>
        <translation>收益 %1</translation>
    </message>
    <message>
        <source>✗ disagrees</source>
        <translation>✗ 不同意</translation>
    </message>
    <message>
        <source>LLM review</source>
        <translation>LLM 复核</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop waiting for the LLM reviewer; the findings stay as they are</source>
        <translation>不再等待 LLM 复核者；诊断结论保持不变</translation>
    </message>
    <message>
        <source>No LLM endpoint is set: give one in Settings › Preferences › Reviewer. Until then nothing is sent anywhere.</source>
        <translation>尚未设置 LLM 端点：请在 设置 › 首选项 › 复核 中填写。在此之前不会向任何地方发送任何内容。</translation>
    </message>
    <message>
        <source>The LLM endpoint %1 is not an http:// or https:// URL.</source>
        <translation>LLM 端点 %1 不是 http:// 或 https:// 地址。</translation>
    </message>
    <message>
        <source>There are no findings to review.</source>
        <translation>没有可复核的诊断结论。</translation>
    </message>
    <message>
        <source>The review could not be sent to %1.</source>
        <translation>无法将复核请求发送到 %1。</translation>
    </message>
    <message numerus="yes">
        <source>Asking the LLM reviewer at %1 about %n finding(s)…</source>
        <translation>
            <numerusform>正在请 %1 上的 LLM 复核者复核 %n 条诊断结论…</numerusform>
        </translation>
    </message>
    <message>
        <source>LLM review cancelled; the findings are unchanged.</source>
        <translation>LLM 复核已取消；诊断结论未改变。</translation>
    </message>
    <message>
        <source>The findings changed while the reviewer answered; its review was discarded.</source>
        <translation>复核者作答期间诊断结论已变化；其复核已丢弃。</translation>
    </message>
    <message>
        <source>LLM review failed: %1. The findings are unchanged.</source>
        <translation>LLM 复核失败：%1。诊断结论未改变。</translation>
    </message>
    <message>
        <source>LLM review (advisory) by %1: %2 agree, %3 disagree, %4 dropped</source>
        <translation>%1 的 LLM 复核（仅供参考）：%2 条同意，%3 条不同意，%4 条已舍弃</translation>
    </message>
    <message>
        <source>dropped %1: %2</source>
        <translation>已舍弃 %1：%2</translation>
    </message>
    <message>
        <source>a review</source>
        <translation>一条复核</translation>
    </message>
    <message>
        <source>LLM review (advisory)</source>
        <translation>LLM 复核（仅供参考）</translation>
    </message>
    <message>
        <source>Agrees:</source>
        <translation>同意：</translation>
    </message>
    <message>
        <source>Disagrees:</source>
        <translation>不同意：</translation>
    </message>
    <message>
        <source>Cited evidence:</source>
        <translation>引用的证据：</translation>
    </message>
    <message>
        <source>A claim of the reviewer was dropped: %1</source>
        <translation>复核者的一条意见已被舍弃：%1</translation>
    </message>
    <message>
        <source>rule %1</source>
        <translation>规则 %1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>increase</source>
        <translation>应提高</translation>
    </message>
    <message>
        <source>decrease</source>
        <translation>应降低</translation>
    </message>
</context>
<context>
    <name>sl::GapHistogramView</name>
    <message numerus="yes">
        <source>&lt;b&gt;%1&lt;/b&gt;: %n gap(s), %2 in all</source>
        <translation>
            <numerusform>&lt;b&gt;%1&lt;/b&gt;：%n 个间隙，共 %2</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2 · %3</source>
        <translation>%1：%2 · %3</translation>
    </message>
    <message>
        <source>Click a bar to highlight its gaps in the timeline.</source>
        <translation>点击柱形可在时间线中高亮其间隙。</translation>
    </message>
    <message>
        <source>highlighted; the largest is selected</source>
        <translation>已高亮，并选中其中最长的一个</translation>
    </message>
    <message>
        <source>Fine bins</source>
        <translation>细分区间</translation>
    </message>
    <message>
        <source>Log-spaced bins, 4 per decade from 100 ns up to the largest gap, instead of the summary&apos;s 7 buckets</source>
        <translation>按对数划分区间：从 100 ns 到最长间隙，每个数量级 4 个区间，取代汇总中的 7 个档位</translation>
    </message>
    <message>
        <source>Previous gap of the bin: centre it in the timeline</source>
        <translation>该区间的上一个空闲间隙：在时间线上居中显示</translation>
    </message>
    <message>
        <source>Previous gap</source>
        <translation>上一个间隙</translation>
    </message>
    <message>
        <source>Next gap of the bin: centre it in the timeline</source>
        <translation>该区间的下一个空闲间隙：在时间线上居中显示</translation>
    </message>
    <message>
        <source>Next gap</source>
        <translation>下一个间隙</translation>
    </message>
    <message>
        <source>Click a bar to list its gaps.</source>
        <translation>点击柱条以列出其中的间隙。</translation>
    </message>
    <message>
        <source>Gap %1 of %2</source>
        <translation>第 %1 个间隙，共 %2 个</translation>
    </message>
    <message numerus="yes">
        <source>%n gap(s) in this bin</source>
        <translation>
            <numerusform>该区间内 %n 个间隙</numerusform>
        </translation>
    </message>
    <message>
        <source>Gaps per cause (log scale) by length, 4 bins per decade</source>
        <translation>各原因的间隙数（对数刻度），按时长，每十倍 4 个区间</translation>
    </message>
    <message>
        <source>Gaps per cause (log scale) by length</source>
        <translation>各原因的间隙数（对数刻度），按时长</translation>
    </message>
    <message>
        <source>bin start</source>
        <translation>区间起点</translation>
    </message>
    <message>
        <source>bin start (µs)</source>
        <translation>区间起点（µs）</translation>
    </message>
</context>
<context>
    <name>sl::GapListModel</name>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>%1 copy, %2</source>
        <translation>%1 拷贝，%2</translation>
    </message>
    <message>
        <source>memset</source>
        <translation>内存设置</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Length</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Cause</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Before</source>
        <translation>之前</translation>
    </message>
    <message>
        <source>After</source>
        <translation>之后</translation>
    </message>
</context>
<context>
    <name>sl::KbSession</name>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>the trace has not been analysed yet</source>
        <translation>该 trace 尚未分析</translation>
    </message>
    <message>
        <source>the trace has no file to identify its run by</source>
        <translation>该 trace 没有可用来识别其运行的文件</translation>
    </message>
    <message>
        <source>cannot read the trace file(s) %1 to identify the run</source>
        <translation>无法读取 trace 文件 %1 以识别运行</translation>
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
    <name>sl::LoopDialogBase</name>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
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
        <source>&amp;Keyboard Shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
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
    <message>
        <source>Roofline</source>
        <translation>Roofline 分析</translation>
    </message>
    <message>
        <source>Findings</source>
        <translation>诊断结论</translation>
    </message>
    <message>
        <source>Suggestions</source>
        <translation>建议</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <source>Compare &amp;With…</source>
        <translation>对比(&amp;W)…</translation>
    </message>
    <message>
        <source>Open a second trace as “after” and compare it with the open one</source>
        <translation>打开第二个 trace 作为“变更后”，与当前 trace 对比</translation>
    </message>
    <message>
        <source>&amp;Preferences…</source>
        <translation>首选项(&amp;P)…</translation>
    </message>
    <message>
        <source>No NVTX range named %1 in this trace</source>
        <translation>此 trace 中没有名为 %1 的 NVTX 区间</translation>
    </message>
    <message>
        <source>No kernel of class %1 in %2</source>
        <translation>%2 阶段没有 %1 类的内核</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Find…</source>
        <translation>查找(&amp;F)…</translation>
    </message>
    <message>
        <source>Find kernels, NVTX ranges and API calls by name or regular expression</source>
        <translation>按名称或正则表达式查找内核、NVTX 区间和 API 调用</translation>
    </message>
    <message>
        <source>&amp;Reset Layout</source>
        <translation>重置布局(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Profile…</source>
        <translation>剖析(&amp;P)…</translation>
    </message>
    <message>
        <source>Run an inference command under nsys profile, several times, and open the result</source>
        <translation>在 nsys profile 下多次运行推理命令，并打开结果</translation>
    </message>
    <message>
        <source>&amp;Deep-dive Focus Set…</source>
        <translation>深入剖析关注集(&amp;D)…</translation>
    </message>
    <message>
        <source>Run ncu on the open trace&apos;s focus set and open the counters with it</source>
        <translation>对已打开 trace 的关注集运行 ncu，并连同计数器一起打开</translation>
    </message>
    <message>
        <source>&amp;Tools</source>
        <translation>工具(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Review Findings with LLM…</source>
        <translation>用 LLM 复核诊断结论(&amp;R)…</translation>
    </message>
    <message>
        <source>There are no findings to review yet.</source>
        <translation>还没有可复核的诊断结论。</translation>
    </message>
    <message>
        <source>A review is under way (Cancel in the Findings pane).</source>
        <translation>复核正在进行（可在“诊断结论”面板中取消）。</translation>
    </message>
    <message>
        <source>Send the findings and their evidence (never the trace) to %1 for an advisory second opinion</source>
        <translation>将诊断结论及其证据（绝不包括 trace 本身）发送到 %1，获取仅供参考的第二意见</translation>
    </message>
    <message>
        <source>File paths in their texts are sent as they are.</source>
        <translation>其文本中的文件路径将原样发送。</translation>
    </message>
    <message>
        <source>File paths in their texts are replaced by &lt;path&gt;.</source>
        <translation>其文本中的文件路径将替换为 &lt;path&gt;。</translation>
    </message>
    <message>
        <source>Review Findings with LLM</source>
        <translation>用 LLM 复核诊断结论</translation>
    </message>
    <message numerus="yes">
        <source>Send %n finding(s) and their evidence as JSON to %1? The trace itself is not sent.</source>
        <translation>
            <numerusform>将 %n 条诊断结论及其证据以 JSON 发送到 %1？trace 本身不会发送。</numerusform>
        </translation>
    </message>
    <message>
        <source>Range</source>
        <translation>时间范围</translation>
    </message>
    <message>
        <source>Nsight Compute — %1</source>
        <translation>Nsight Compute — %1</translation>
    </message>
    <message>
        <source>Opened %1 (Nsight Compute, no trace)</source>
        <translation>已打开 %1（Nsight Compute，无 trace）</translation>
    </message>
    <message>
        <source>Cannot open %1: %2</source>
        <translation>无法打开 %1：%2</translation>
    </message>
    <message>
        <source>PDF, summary (*.pdf)</source>
        <translation>PDF，摘要 (*.pdf)</translation>
    </message>
    <message>
        <source>Markdown, summary (*.md)</source>
        <translation>Markdown，摘要 (*.md)</translation>
    </message>
    <message>
        <source>HTML, summary (*.html)</source>
        <translation>HTML，摘要 (*.html)</translation>
    </message>
    <message>
        <source>PDF, full detail with the appendix (*.pdf)</source>
        <translation>PDF，完整详情含附录 (*.pdf)</translation>
    </message>
    <message>
        <source>Markdown, full detail with the appendix (*.md)</source>
        <translation>Markdown，完整详情含附录 (*.md)</translation>
    </message>
    <message>
        <source>HTML, full detail with the appendix (*.html)</source>
        <translation>HTML，完整详情含附录 (*.html)</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>&amp;Hide Panes</source>
        <translation>隐藏窗格(&amp;H)</translation>
    </message>
    <message>
        <source>Ctrl+B</source>
        <translation>Ctrl+B</translation>
    </message>
    <message>
        <source>Fold every docked pane away and give the timeline the whole window (again: back)</source>
        <translation>收起所有停靠窗格，让时间线占满整个窗口（再按一次恢复）</translation>
    </message>
    <message>
        <source>Critical &amp;Path</source>
        <translation>关键路径(&amp;P)</translation>
    </message>
    <message>
        <source>Outline the chain of work that sets the step on the timeline: the selected kernel&apos;s step, else the steady steps</source>
        <translation>在时间线上勾出决定步长的工作链：选中内核所在的步，否则为各稳态步</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>各 rank</translation>
    </message>
    <message>
        <source>Reading ranks… %1 of %2</source>
        <translation>正在读取 rank… 第 %1 个，共 %2 个</translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s) merged</source>
        <translation>
            <numerusform>已合并 %n 个 rank</numerusform>
        </translation>
    </message>
    <message>
        <source>Could not open the ranks: %1</source>
        <translation>无法打开这些 rank：%1</translation>
    </message>
    <message>
        <source>Could not open the ranks</source>
        <translation>无法打开这些 rank</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Open Ran&amp;ks Folder…</source>
        <translation>打开 rank 文件夹(&amp;K)…</translation>
    </message>
    <message>
        <source>Open Ranks Folder</source>
        <translation>打开 rank 文件夹</translation>
    </message>
    <message>
        <source>Reading ranks in %1…</source>
        <translation>正在读取 %1 中的 rank…</translation>
    </message>
</context>
<context>
    <name>sl::NcuLaunchModel</name>
    <message>
        <source>Elapsed cycles ÷ SM clock: the file has no duration</source>
        <translation>经过周期数 ÷ SM 时钟：文件中没有耗时</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1（理论 %2）</translation>
    </message>
    <message>
        <source>ID</source>
        <translation>编号</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>Grid</source>
        <translation>网格</translation>
    </message>
    <message>
        <source>Block</source>
        <translation>线程块</translation>
    </message>
    <message>
        <source>DRAM bytes</source>
        <translation>DRAM 字节数</translation>
    </message>
    <message>
        <source>FLOPs</source>
        <translation>FLOPs</translation>
    </message>
    <message>
        <source>Intensity</source>
        <translation>算术强度</translation>
    </message>
    <message>
        <source>Achieved</source>
        <translation>实际算力</translation>
    </message>
    <message>
        <source>SM %</source>
        <translation>SM %</translation>
    </message>
    <message>
        <source>Memory %</source>
        <translation>内存 %</translation>
    </message>
    <message>
        <source>DRAM %</source>
        <translation>DRAM %</translation>
    </message>
    <message>
        <source>Occupancy</source>
        <translation>占用率</translation>
    </message>
    <message>
        <source>L1 hit</source>
        <translation>L1 命中率</translation>
    </message>
    <message>
        <source>L2 hit</source>
        <translation>L2 命中率</translation>
    </message>
    <message>
        <source>Tensor pipe</source>
        <translation>Tensor 管线</translation>
    </message>
    <message>
        <source>Top stall</source>
        <translation>主要停顿原因</translation>
    </message>
    <message>
        <source>ncu rules</source>
        <translation>ncu 规则</translation>
    </message>
</context>
<context>
    <name>sl::NcuView</name>
    <message>
        <source>Reading %1 …</source>
        <translation>正在读取 %1 …</translation>
    </message>
    <message>
        <source>The Nsight Compute file could not be read:
%1</source>
        <translation>无法读取 Nsight Compute 文件：
%1</translation>
    </message>
    <message numerus="yes">
        <source>&lt;b&gt;%1&lt;/b&gt; · %2 · %n launch(es)</source>
        <translation>
            <numerusform>&lt;b&gt;%1&lt;/b&gt; · %2 · %n 次启动</numerusform>
        </translation>
    </message>
    <message>
        <source>GPU not identified: no roofs</source>
        <translation>无法识别 GPU：没有屋顶</translation>
    </message>
    <message>
        <source>roofs of %1</source>
        <translation>%1 的屋顶</translation>
    </message>
    <message>
        <source>no trace: the counters are not joined to kernels on a timeline</source>
        <translation>无 trace：计数器未关联到时间线上的内核</translation>
    </message>
    <message>
        <source>Note: %1</source>
        <translation>注意：%1</translation>
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
    <message>
        <source>Top findings</source>
        <translation>主要诊断结论</translation>
    </message>
    <message>
        <source>No rule fired on this trace.</source>
        <translation>此 trace 未触发任何规则。</translation>
    </message>
    <message numerus="yes">
        <source>%n more in the Findings pane</source>
        <translation>
            <numerusform>诊断结论面板中还有 %n 条</numerusform>
        </translation>
    </message>
    <message>
        <source>What to do first</source>
        <translation>优先处理</translation>
    </message>
    <message>
        <source>up to %1 of wall time (%2)</source>
        <translation>至多墙钟时间的 %1（%2）</translation>
    </message>
    <message>
        <source>inference</source>
        <translation>推理</translation>
    </message>
    <message>
        <source>training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>unknown kind</source>
        <translation>类型未知</translation>
    </message>
    <message>
        <source>eager</source>
        <translation>逐个启动</translation>
    </message>
    <message>
        <source>no kernels</source>
        <translation>无内核</translation>
    </message>
    <message>
        <source>Workload:</source>
        <translation>负载：</translation>
    </message>
    <message>
        <source>GPU activity window</source>
        <translation>GPU 活动窗口</translation>
    </message>
    <message>
        <source>Seen before on this environment</source>
        <translation>此环境的历史记录</translation>
    </message>
    <message>
        <source>unknown GPU</source>
        <translation>未知 GPU</translation>
    </message>
    <message>
        <source>, driver %1</source>
        <translation>，驱动 %1</translation>
    </message>
    <message>
        <source>, CUDA %1</source>
        <translation>，CUDA %1</translation>
    </message>
    <message>
        <source>Nothing yet: no run on a similar environment in the knowledge base.</source>
        <translation>暂无：知识库中没有相似环境上的运行。</translation>
    </message>
    <message numerus="yes">
        <source>%n earlier run(s) on a similar environment.</source>
        <translation>
            <numerusform>相似环境上有 %n 次较早的运行。</numerusform>
        </translation>
    </message>
    <message>
        <source>No A/B-verified suggestion is recorded there yet.</source>
        <translation>那里尚未记录经 A/B 验证的建议。</translation>
    </message>
    <message>
        <source>Suggestion</source>
        <translation>建议</translation>
    </message>
    <message>
        <source>Verdicts</source>
        <translation>判定</translation>
    </message>
    <message>
        <source>Measured change</source>
        <translation>实测变化</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>%1 verified, %2 failed, %3 inconclusive</source>
        <translation>%1 次验证通过，%2 次未通过，%3 次无定论</translation>
    </message>
    <message>
        <source>%1 % %2</source>
        <translation>%1 % %2</translation>
    </message>
    <message>
        <source>Limited by the CPU: the GPU waits for kernel launches</source>
        <translation>受 CPU 限制：GPU 在等待内核启动</translation>
    </message>
    <message>
        <source>Limited by synchronisation: the GPU waits while the CPU blocks</source>
        <translation>受同步限制：CPU 阻塞时 GPU 在等待</translation>
    </message>
    <message>
        <source>Limited by communication between GPUs</source>
        <translation>受 GPU 间通信限制</translation>
    </message>
    <message>
        <source>Balanced: no single cause limits the run</source>
        <translation>均衡：没有单一因素限制本次运行</translation>
    </message>
    <message>
        <source>Limited by GPU memory bandwidth</source>
        <translation>受 GPU 显存带宽限制</translation>
    </message>
    <message>
        <source>Limited by GPU compute throughput</source>
        <translation>受 GPU 计算吞吐限制</translation>
    </message>
    <message>
        <source>The GPU idles for reasons the trace does not show</source>
        <translation>GPU 处于空闲，trace 中看不出原因</translation>
    </message>
    <message>
        <source>Not enough in the trace to say what limits the run</source>
        <translation>trace 中的信息不足以判断是什么限制了本次运行</translation>
    </message>
    <message>
        <source>Limited by dependencies: queued work waits on events of other streams</source>
        <translation>受依赖限制：已入队的工作在等待其他流上的事件</translation>
    </message>
    <message>
        <source>Critical path %1 over the trace</source>
        <translation>整个 trace 的关键路径 %1</translation>
    </message>
    <message numerus="yes">
        <source>Critical path %1 per steady step (%n steps)</source>
        <translation>
            <numerusform>每个稳态步的关键路径 %1（%n 步）</numerusform>
        </translation>
    </message>
    <message>
        <source>host work</source>
        <translation>主机工作</translation>
    </message>
    <message>
        <source>launch delay</source>
        <translation>启动延迟</translation>
    </message>
    <message>
        <source>kernels</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <source>copies</source>
        <translation>拷贝</translation>
    </message>
    <message>
        <source>GPU gaps</source>
        <translation>GPU 空隙</translation>
    </message>
    <message>
        <source>What sets the step</source>
        <translation>决定步长的因素</translation>
    </message>
    <message>
        <source>Most of it in %1 (%2 of the trace&apos;s path)</source>
        <translation>其中最多的是 %1（占整个 trace 关键路径的 %2）</translation>
    </message>
    <message>
        <source>%1 graphs</source>
        <translation>%1 图</translation>
    </message>
    <message>
        <source>eager and %1 graphs</source>
        <translation>逐个启动与 %1 图混合</translation>
    </message>
</context>
<context>
    <name>sl::ProfileDialog</name>
    <message>
        <source>Profile</source>
        <translation>剖析</translation>
    </message>
    <message>
        <source>python generate.py --model …</source>
        <translation>python generate.py --model …</translation>
    </message>
    <message>
        <source>The inference command, run under nsys profile (quotes group words)</source>
        <translation>推理命令，在 nsys profile 下运行（引号把词组合在一起）</translation>
    </message>
    <message>
        <source>NAME=value, one per line</source>
        <translation>NAME=value，每行一个</translation>
    </message>
    <message>
        <source>Profile several times to measure the run-to-run spread (3 or more recommended)</source>
        <translation>多次剖析以测量运行间的波动（建议 3 次或更多）</translation>
    </message>
    <message>
        <source>--delay=5 --duration=20, or --capture-range=nvtx --nvtx-capture=decode</source>
        <translation>--delay=5 --duration=20，或 --capture-range=nvtx --nvtx-capture=decode</translation>
    </message>
    <message>
        <source>Extra nsys profile flags, after Sightline&apos;s own (so they win)</source>
        <translation>额外的 nsys profile 参数，放在 Sightline 自己的参数之后（因此优先生效）</translation>
    </message>
    <message>
        <source>a new sightline-profile-N folder in the working folder</source>
        <translation>工作目录中新建的 sightline-profile-N 文件夹</translation>
    </message>
    <message>
        <source>Record the runs in the knowledge base</source>
        <translation>将各次运行记录到知识库</translation>
    </message>
    <message>
        <source>Command:</source>
        <translation>命令：</translation>
    </message>
    <message>
        <source>Working folder:</source>
        <translation>工作目录：</translation>
    </message>
    <message>
        <source>Working folder</source>
        <translation>工作目录</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Environment:</source>
        <translation>环境变量：</translation>
    </message>
    <message>
        <source>Runs:</source>
        <translation>运行次数：</translation>
    </message>
    <message>
        <source>nsys flags:</source>
        <translation>nsys 参数：</translation>
    </message>
    <message>
        <source>Output folder:</source>
        <translation>输出目录：</translation>
    </message>
    <message>
        <source>Output folder</source>
        <translation>输出目录</translation>
    </message>
    <message>
        <source>run %1 of %2</source>
        <translation>第 %1 次，共 %2 次</translation>
    </message>
    <message>
        <source>Profiling: run %1 of %2…</source>
        <translation>正在剖析：第 %1 次，共 %2 次…</translation>
    </message>
    <message>
        <source>Cancelled: the finished runs are kept (%1).</source>
        <translation>已取消：已完成的运行均已保留（%1）。</translation>
    </message>
    <message>
        <source>nsys failed; the log says why. Finished runs are kept (%1).</source>
        <translation>nsys 失败，原因见日志。已完成的运行均已保留（%1）。</translation>
    </message>
    <message>
        <source>Done: %1</source>
        <translation>完成：%1</translation>
    </message>
    <message>
        <source>Give the inference command to profile.</source>
        <translation>请给出要剖析的推理命令。</translation>
    </message>
    <message>
        <source>The working folder %1 does not exist.</source>
        <translation>工作目录 %1 不存在。</translation>
    </message>
    <message>
        <source>Environment line “%1” is not NAME=value.</source>
        <translation>环境变量行“%1”不是 NAME=value 格式。</translation>
    </message>
    <message>
        <source>Starting nsys…</source>
        <translation>正在启动 nsys…</translation>
    </message>
    <message>
        <source>Cancelling: stopping nsys and the command…</source>
        <translation>正在取消：停止 nsys 和命令…</translation>
    </message>
</context>
<context>
    <name>sl::RangeStatsModel</name>
    <message>
        <source>Class</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>拷贝</translation>
    </message>
    <message>
        <source>API call</source>
        <translation>API 调用</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Group</source>
        <translation>分组</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Count</source>
        <translation>次数</translation>
    </message>
    <message>
        <source>Time in range</source>
        <translation>范围内时间</translation>
    </message>
    <message>
        <source>Average</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>占比</translation>
    </message>
    <message>
        <source>Time in range (ns)</source>
        <translation>范围内时间（ns）</translation>
    </message>
    <message>
        <source>Average (ns)</source>
        <translation>平均（ns）</translation>
    </message>
    <message>
        <source>Bytes</source>
        <translation>字节数</translation>
    </message>
</context>
<context>
    <name>sl::RangeStatsView</name>
    <message>
        <source>Copy as TSV</source>
        <translation>复制为 TSV</translation>
    </message>
    <message>
        <source>Copy the table as tab-separated values (times in ns), for a spreadsheet</source>
        <translation>将表格复制为制表符分隔的值（时间单位为 ns），可粘贴到电子表格</translation>
    </message>
    <message>
        <source>Shift+drag on the timeline to sum up a time range here.</source>
        <translation>在时间线上 Shift+拖动，即可在此汇总一个时间范围。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Range %1&lt;/b&gt; (%2 – %3)</source>
        <translation>&lt;b&gt;范围 %1&lt;/b&gt;（%2 – %3）</translation>
    </message>
    <message>
        <source>summing…</source>
        <translation>正在汇总…</translation>
    </message>
    <message numerus="yes">
        <source>%Ln kernel(s), %1</source>
        <translation>
            <numerusform>%Ln 个内核，%1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln copies, %1</source>
        <translation>
            <numerusform>%Ln 次拷贝，%1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln API call(s), %1</source>
        <translation>
            <numerusform>%Ln 次 API 调用，%1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sl::RankHeatModel</name>
    <message>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <source>%1 #%2</source>
        <translation>%1 #%2</translation>
    </message>
    <message>
        <source>rank %1, %2: none</source>
        <translation>rank %1，%2：无</translation>
    </message>
    <message>
        <source>rank %1, %2: %3 (click: open this rank at this step)</source>
        <translation>rank %1，%2：%3（单击：在此步打开该 rank）</translation>
    </message>
    <message>
        <source>rank %1, %2: arrives %3 after the first rank (click: open this rank there)</source>
        <translation>rank %1，%2：比最早的 rank 晚 %3 到达（单击：在此处打开该 rank）</translation>
    </message>
    <message>
        <source>rank %1</source>
        <translation>rank %1</translation>
    </message>
</context>
<context>
    <name>sl::RankView</name>
    <message>
        <source>Open a folder of ranks (File › Open Ranks Folder…).</source>
        <translation>打开一个 rank 文件夹（文件 › 打开 rank 文件夹…）。</translation>
    </message>
    <message>
        <source>Lateness of arrival at each collective matched on every rank (darker: later than the first rank). Click a cell to open that rank there.</source>
        <translation>在每个 rank 上都匹配到的各次集合通信的迟到时间（颜色越深，比最早的 rank 越晚）。单击单元格可在此处打开该 rank。</translation>
    </message>
    <message numerus="yes">
        <source>%n rank(s) of world size %1, %2 steps, %3 collectives matched on every rank.</source>
        <translation>
            <numerusform>%n 个 rank（world size %1），%2 步，%3 次集合通信在每个 rank 上都匹配。</numerusform>
        </translation>
    </message>
    <message>
        <source>Rank %1 arrives last, %2 after the others&apos; median; they wait %3 for it.</source>
        <translation>rank %1 最后到达，比其他 rank 的中位数晚 %2；其他 rank 为它等待 %3。</translation>
    </message>
    <message>
        <source>Step time spread %1 (slowest rank %2).</source>
        <translation>步时离散度 %1（最慢的是 rank %2）。</translation>
    </message>
    <message>
        <source>The lateness map shows the first %1 collectives.</source>
        <translation>迟到图只显示前 %1 次集合通信。</translation>
    </message>
    <message>
        <source>Step time per rank and step, against the step&apos;s median rank (darker: slower than the others in that step; 20 % or more: darkest). Click a cell to open that rank at that step.</source>
        <translation>每个 rank 每一步的步时，相对该步的中位 rank（颜色越深：在该步中比其他 rank 越慢；慢 20 % 或以上：最深）。单击单元格可在该步打开该 rank。</translation>
    </message>
    <message>
        <source>No steps in these ranks&apos; traces (no ProfilerStep or step annotation): no step map.</source>
        <translation>这些 rank 的 trace 中没有步（没有 ProfilerStep 或步标注）：无步时图。</translation>
    </message>
    <message>
        <source>No collective matched on every rank: no lateness map.</source>
        <translation>没有在每个 rank 上都匹配的集合通信：无迟到图。</translation>
    </message>
</context>
<context>
    <name>sl::RooflineModel</name>
    <message>
        <source>Theory</source>
        <translation>理论</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>ncu</source>
        <translation>ncu</translation>
    </message>
    <message>
        <source>%1 %2FLOP/s</source>
        <translation>%1 %2FLOP/s</translation>
    </message>
    <message>
        <source>%1 %2B/s</source>
        <translation>%1 %2B/s</translation>
    </message>
    <message>
        <source>%1 FLOP/B</source>
        <translation>%1 FLOP/B</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n launches)</source>
        <translation>
            <numerusform>%1（%n 次启动）</numerusform>
        </translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Operator / kernel</source>
        <translation>算子 / 内核</translation>
    </message>
    <message>
        <source>Phase</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>Intensity</source>
        <translation>算术强度</translation>
    </message>
    <message>
        <source>Performance</source>
        <translation>性能</translation>
    </message>
    <message>
        <source>Total time</source>
        <translation>总时长</translation>
    </message>
    <message>
        <source>E_roof</source>
        <translation>E_roof</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>%1 %2 (%3)</source>
        <translation>%1 %2（%3）</translation>
    </message>
</context>
<context>
    <name>sl::RooflineView</name>
    <message>
        <source>The Roofline could not be computed:
%1</source>
        <translation>无法计算 Roofline：
%1</translation>
    </message>
    <message>
        <source>Computing the Roofline for %1 …</source>
        <translation>正在为 %1 计算 Roofline…</translation>
    </message>
    <message>
        <source>No Roofline: it needs the model&apos;s config.json.

Open the config.json together with the trace (File › Open, select both files), or set a model config in Settings › Preferences.</source>
        <translation>无 Roofline：需要模型的 config.json。

请将 config.json 与 trace 一起打开（文件 › 打开，同时选中两个文件），或在 设置 › 首选项 中设置模型配置。</translation>
    </message>
    <message>
        <source>Roofline (GPU not in the spec database: no roofs)</source>
        <translation>Roofline（GPU 不在规格数据库中：无屋顶线）</translation>
    </message>
    <message>
        <source>Roofline on %1</source>
        <translation>%1 上的 Roofline</translation>
    </message>
    <message>
        <source> · ncu launches per kernel name</source>
        <translation> · ncu 启动按内核名汇总</translation>
    </message>
    <message>
        <source>Arithmetic intensity (FLOP/byte)</source>
        <translation>算术强度（FLOP/byte）</translation>
    </message>
    <message>
        <source>Performance (FLOP/s)</source>
        <translation>性能（FLOP/s）</translation>
    </message>
    <message>
        <source>Memory roof</source>
        <translation>带宽屋顶</translation>
    </message>
    <message>
        <source>DRAM %1</source>
        <translation>DRAM %1</translation>
    </message>
    <message>
        <source>Ridge points</source>
        <translation>脊点</translation>
    </message>
    <message>
        <source>&lt;b&gt;Ridge point, %1&lt;/b&gt;&lt;br&gt;%2 at %3&lt;br&gt;Below it memory-bound, above it compute-bound.</source>
        <translation>&lt;b&gt;脊点，%1&lt;/b&gt;&lt;br&gt;%2，位于 %3&lt;br&gt;低于它为访存受限，高于它为计算受限。</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>Measured decode (size: time)</source>
        <translation>解码实测（点大小=耗时）</translation>
    </message>
    <message>
        <source>Measured prefill (size: time)</source>
        <translation>预填充实测（点大小=耗时）</translation>
    </message>
    <message>
        <source>Theory, prefill</source>
        <translation>预填充理论值</translation>
    </message>
    <message>
        <source>Theory, decode</source>
        <translation>解码理论值</translation>
    </message>
    <message>
        <source>ncu, per kernel name</source>
        <translation>ncu，按内核名</translation>
    </message>
    <message>
        <source>ncu, per launch</source>
        <translation>ncu，按启动</translation>
    </message>
    <message>
        <source>FLOP/s</source>
        <translation>FLOP/s</translation>
    </message>
    <message>
        <source>prefill</source>
        <translation>预填充</translation>
    </message>
    <message>
        <source>decode</source>
        <translation>解码</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1，%2</translation>
    </message>
    <message>
        <source>%1 (class %2)</source>
        <translation>%1（类别 %2）</translation>
    </message>
    <message>
        <source>Intensity: %1</source>
        <translation>算术强度：%1</translation>
    </message>
    <message>
        <source>Performance: %1 (%2 of the roof)</source>
        <translation>性能：%1（屋顶的 %2）</translation>
    </message>
    <message>
        <source>Performance: %1</source>
        <translation>性能：%1</translation>
    </message>
    <message>
        <source>E_roof: %1</source>
        <translation>E_roof：%1</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>T_theory per pass: %1</source>
        <translation>每轮 T_theory：%1</translation>
    </message>
    <message>
        <source>Time per pass: %1</source>
        <translation>每轮耗时：%1</translation>
    </message>
    <message>
        <source>Total time: %1</source>
        <translation>总时长：%1</translation>
    </message>
    <message numerus="yes">
        <source>Total time: %1 (%n launch(es))</source>
        <translation>
            <numerusform>总时长：%1（%n 次启动）</numerusform>
        </translation>
    </message>
    <message>
        <source> · measured from the trace&apos;s shapes</source>
        <translation> · 由 trace 自身的形状实测</translation>
    </message>
    <message>
        <source>GEMM</source>
        <translation>GEMM</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>Norm</source>
        <translation>归一化</translation>
    </message>
    <message>
        <source>Other ops</source>
        <translation>其他算子</translation>
    </message>
    <message>
        <source>Measured from the trace&apos;s shapes, %1, family %2</source>
        <translation>由 trace 的形状实测，%1，类别 %2</translation>
    </message>
    <message>
        <source>Input dims: %1</source>
        <translation>输入维度：%1</translation>
    </message>
    <message>
        <source>FLOPs per call: %1, bytes per call: %2</source>
        <translation>每次调用 FLOPs：%1，每次调用字节数：%2</translation>
    </message>
    <message>
        <source>Achieved: %1, %2</source>
        <translation>实测：%1，%2</translation>
    </message>
    <message>
        <source>%1 of the %2 compute roof (compute-bound)</source>
        <translation>达到 %2 计算屋顶的 %1（计算受限）</translation>
    </message>
    <message>
        <source>%1 of the roof at this intensity (memory-bound)</source>
        <translation>达到此算术强度下屋顶的 %1（访存受限）</translation>
    </message>
    <message>
        <source>Above the roof: wrong GPU row or dtype (see the trace warnings)</source>
        <translation>高于屋顶：GPU 规格或数据类型有误（见 trace 警告）</translation>
    </message>
    <message>
        <source>% of roof unknown (no peak for this GPU or dtype)</source>
        <translation>屋顶占比未知（此 GPU 或数据类型无峰值）</translation>
    </message>
    <message numerus="yes">
        <source>Kernel time: %1 over %n call(s)</source>
        <translation>
            <numerusform>内核耗时：%1，共 %n 次调用</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s); click to select them</source>
        <translation>
            <numerusform>%n 个内核；点击选中它们</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>… and %n more kernel name(s)</source>
        <translation>
            <numerusform>… 另有 %n 个内核名</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>FLOPs: %1, DRAM bytes: %2</source>
        <translation>FLOPs：%1，DRAM 字节数：%2</translation>
    </message>
    <message>
        <source>FLOPs per pass: %1, bytes per pass: %2</source>
        <translation>每轮 FLOPs：%1，每轮字节数：%2</translation>
    </message>
    <message>
        <source>Share of the trace&apos;s kernel time: %1</source>
        <translation>占 trace 内核时间：%1</translation>
    </message>
    <message>
        <source>mixed steps</source>
        <translation>混合步</translation>
    </message>
    <message>
        <source>training iteration</source>
        <translation>训练迭代</translation>
    </message>
    <message>
        <source>Measured mixed steps (size: time)</source>
        <translation>混合步实测（点大小=耗时）</translation>
    </message>
    <message>
        <source>Measured training iteration (size: time)</source>
        <translation>训练迭代实测（点大小=耗时）</translation>
    </message>
    <message>
        <source>Theory, mixed steps</source>
        <translation>混合步理论值</translation>
    </message>
    <message>
        <source>Theory, training iteration</source>
        <translation>训练迭代理论值</translation>
    </message>
    <message>
        <source>the trace&apos;s recorded shapes</source>
        <translation>trace 记录的形状</translation>
    </message>
    <message>
        <source>the steps&apos; annotations</source>
        <translation>各步的标注</translation>
    </message>
    <message>
        <source>your --batch/--prompt/--context or Preferences</source>
        <translation>你的 --batch/--prompt/--context 或首选项</translation>
    </message>
    <message>
        <source>defaults: nothing in the trace says</source>
        <translation>默认值：trace 中没有相关信息</translation>
    </message>
    <message>
        <source>%1 requests, %2 tokens in one pass</source>
        <translation>%1 个请求，一次前向 %2 个 token</translation>
    </message>
    <message>
        <source>batch %1, KV length %2</source>
        <translation>批大小 %1，KV 长度 %2</translation>
    </message>
    <message>
        <source>batch %1, %2 tokens per sequence</source>
        <translation>批大小 %1，每序列 %2 个 token</translation>
    </message>
    <message>
        <source>Workload: %1 (from %2)</source>
        <translation>工作负载：%1（来自%2）</translation>
    </message>
    <message numerus="yes">
        <source>%n more point(s) here: right-click to choose</source>
        <translation>
            <numerusform>此处还有 %n 个点：右键单击以选择</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n point(s) here</source>
        <translation>
            <numerusform>此处有 %n 个点</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
</context>
<context>
    <name>sl::SearchBar</name>
    <message>
        <source>Regular expression</source>
        <translation>正则表达式</translation>
    </message>
    <message>
        <source>Match case</source>
        <translation>区分大小写</translation>
    </message>
    <message>
        <source>Previous match (Shift+Enter)</source>
        <translation>上一个匹配（Shift+Enter）</translation>
    </message>
    <message>
        <source>Next match (Enter)</source>
        <translation>下一个匹配（Enter）</translation>
    </message>
    <message>
        <source>Close (Esc)</source>
        <translation>关闭（Esc）</translation>
    </message>
    <message>
        <source>Find:</source>
        <translation>查找：</translation>
    </message>
    <message>
        <source>Invalid regular expression</source>
        <translation>正则表达式无效</translation>
    </message>
    <message>
        <source>No match</source>
        <translation>无匹配</translation>
    </message>
    <message>
        <source>Instance %1 of %2 of the selected kernel</source>
        <translation>所选内核的第 %1 个实例（共 %2 个）</translation>
    </message>
    <message numerus="yes">
        <source>%n instance(s) of the selected kernel</source>
        <translation>
            <numerusform>所选内核共 %n 个实例</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s)</source>
        <translation>
            <numerusform>%n 个内核</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n NVTX range(s)</source>
        <translation>
            <numerusform>%n 个 NVTX 区间</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n API call(s)</source>
        <translation>
            <numerusform>%n 次 API 调用</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>第 %1 个，共 %2 个</translation>
    </message>
    <message>
        <source>selected kernels</source>
        <translation>所选内核</translation>
    </message>
    <message>
        <source>Kernel %1 of %2 of the selected point</source>
        <translation>所选点的第 %1 个内核（共 %2 个）</translation>
    </message>
    <message numerus="yes">
        <source>%n kernel(s) of the selected point</source>
        <translation>
            <numerusform>所选点共 %n 个内核</numerusform>
        </translation>
    </message>
    <message>
        <source>Find kernels (by name or operator class), NVTX ranges and API calls</source>
        <translation>查找内核（按名称或算子类别）、NVTX 区间和 API 调用</translation>
    </message>
</context>
<context>
    <name>sl::SettingsDialog</name>
    <message>
        <source>Preferences</source>
        <translation>首选项</translation>
    </message>
    <message>
        <source>Model &amp;&amp; GPU</source>
        <translation>模型与 GPU</translation>
    </message>
    <message>
        <source>Analysis</source>
        <translation>分析</translation>
    </message>
    <message>
        <source>Locations</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Appearance</source>
        <translation>外观</translation>
    </message>
    <message>
        <source>Changes re-run the analysis of the open files when you press OK.</source>
        <translation>按“确定”后，将用新设置重新分析已打开的文件。</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>From the trace</source>
        <translation>取自 trace</translation>
    </message>
    <message>
        <source>The GPU whose peaks the Roofline uses. &quot;From the trace&quot; matches the device the trace names; pick or type a row of the GPU database to override it (like --gpu).</source>
        <translation>Roofline 使用哪款 GPU 的峰值。“取自 trace” 按 trace 中记录的设备名匹配；从 GPU 数据库中选择或输入一行即可覆盖（同 --gpu）。</translation>
    </message>
    <message>
        <source>GPU override:</source>
        <translation>指定 GPU：</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Hugging Face config.json (optional)</source>
        <translation>Hugging Face config.json（可选）</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Model config:</source>
        <translation>模型配置：</translation>
    </message>
    <message>
        <source>Sequences decoded together (b of the cost model).</source>
        <translation>同时解码的序列数（成本模型中的 b）。</translation>
    </message>
    <message>
        <source>Prompt tokens per prefill pass (s).</source>
        <translation>每轮预填充的提示词 token 数（s）。</translation>
    </message>
    <message>
        <source>KV-cache length at decode (L).</source>
        <translation>解码时的 KV Cache 长度（L）。</translation>
    </message>
    <message>
        <source>Batch size:</source>
        <translation>批大小：</translation>
    </message>
    <message>
        <source>Prompt tokens:</source>
        <translation>提示词 token 数：</translation>
    </message>
    <message>
        <source>Context length:</source>
        <translation>上下文长度：</translation>
    </message>
    <message>
        <source>Idle gaps and launches</source>
        <translation>空闲间隙与启动</translation>
    </message>
    <message>
        <source>A gap shorter than this between back-to-back launches counts as kernel wait (HTA&apos;s consecutive-kernel delay).</source>
        <translation>连续启动之间短于此值的间隙计为“等待内核”（即 HTA 的 consecutive-kernel delay）。</translation>
    </message>
    <message>
        <source>Launch calls up to this long whose kernel ran shorter than the call count as launch-bound short kernels (HTA&apos;s runtime cutoff).</source>
        <translation>不超过此时长、且内核运行时间短于调用本身的启动调用，计为受启动开销限制的短内核（即 HTA 的 runtime cutoff）。</translation>
    </message>
    <message>
        <source>Short-kernel cutoff:</source>
        <translation>短内核阈值：</translation>
    </message>
    <message>
        <source>The K operators with the most time are always in focus.</source>
        <translation>耗时最多的 K 个算子始终在重点关注集中。</translation>
    </message>
    <message>
        <source>Operators whose Roofline efficiency E_roof is below τ are in focus too.</source>
        <translation>Roofline 效率 E_roof 低于 τ 的算子也在重点关注集中。</translation>
    </message>
    <message>
        <source>Rules</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>Empty: %1</source>
        <translation>留空：%1</translation>
    </message>
    <message>
        <source>Your rules folder:</source>
        <translation>自定义规则目录：</translation>
    </message>
    <message>
        <source>Added to the shipped rules; a rule with the same id replaces the shipped one.</source>
        <translation>与内置规则一起加载；ID 相同的规则会替换内置规则。</translation>
    </message>
    <message>
        <source>Knowledge base</source>
        <translation>知识库</translation>
    </message>
    <message>
        <source>File:</source>
        <translation>文件：</translation>
    </message>
    <message>
        <source>Suggestion states, notes and A/B verdicts live here. Empty: the default shown.</source>
        <translation>建议状态、备注和 A/B 判定都保存在这里。留空则使用显示的默认路径。</translation>
    </message>
    <message>
        <source>Follow system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Language:</source>
        <translation>语言：</translation>
    </message>
    <message>
        <source>A new language applies when Sightline is restarted.</source>
        <translation>重新启动 Sightline 后新语言生效。</translation>
    </message>
    <message>
        <source>Theme:</source>
        <translation>主题：</translation>
    </message>
    <message>
        <source>None: no Roofline, unless a config.json is opened with the trace.</source>
        <translation>无：不生成 Roofline，除非与 trace 一起打开了 config.json。</translation>
    </message>
    <message>
        <source>⚠ The file does not exist or cannot be read.</source>
        <translation>⚠ 文件不存在或无法读取。</translation>
    </message>
    <message>
        <source>⚠ Not a Hugging Face config.json (this looks like: %1).</source>
        <translation>⚠ 不是 Hugging Face config.json（看起来是：%1）。</translation>
    </message>
    <message>
        <source>✓ Model config: %1, %2 layers, hidden size %3</source>
        <translation>✓ 模型配置：%1，%2 层，hidden size %3</translation>
    </message>
    <message>
        <source>, %1 experts (%2 per token)</source>
        <translation>，%1 个专家（每个 token %2 个）</translation>
    </message>
    <message>
        <source>⚠ A config.json, but it cannot be used: %1</source>
        <translation>⚠ 是 config.json，但无法使用：%1</translation>
    </message>
    <message>
        <source>The GPU is matched from the device name in the trace.</source>
        <translation>根据 trace 中的设备名匹配 GPU。</translation>
    </message>
    <message>
        <source>⚠ The GPU database cannot be read: %1</source>
        <translation>⚠ 无法读取 GPU 数据库：%1</translation>
    </message>
    <message>
        <source>✓ %1</source>
        <translation>✓ %1</translation>
    </message>
    <message>
        <source>: %1 SMs, %2 TB/s</source>
        <translation>：%1 个 SM，%2 TB/s</translation>
    </message>
    <message>
        <source>⚠ Unknown GPU: the Roofline will fail. Pick a row from the list.</source>
        <translation>⚠ 未知 GPU：Roofline 将无法计算。请从列表中选择一行。</translation>
    </message>
    <message>
        <source>Model config</source>
        <translation>模型配置</translation>
    </message>
    <message>
        <source>Model config (config.json *.json);;All files (*)</source>
        <translation>模型配置 (config.json *.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Rules folder</source>
        <translation>规则目录</translation>
    </message>
    <message>
        <source>Knowledge base (*.db);;All files (*)</source>
        <translation>知识库 (*.db);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Kernel wait gap threshold:</source>
        <translation>内核等待间隙阈值：</translation>
    </message>
    <message>
        <source>Operators to look at first</source>
        <translation>优先查看的算子</translation>
    </message>
    <message>
        <source>The operators with the most time, how many:</source>
        <translation>耗时最多的算子个数：</translation>
    </message>
    <message>
        <source>And any with Roofline efficiency (E_roof) below:</source>
        <translation>以及 Roofline 效率（E_roof）低于：</translation>
    </message>
    <message>
        <source>The defaults are the command line&apos;s: 30 µs, 50 µs, 10 operators, E_roof 0.3.</source>
        <translation>默认值与命令行相同：30 µs、50 µs、10 个算子、E_roof 0.3。</translation>
    </message>
    <message>
        <source>Reviewer</source>
        <translation>复核</translation>
    </message>
    <message>
        <source>LLM reviewer (optional, off by default)</source>
        <translation>LLM 复核者（可选，默认关闭）</translation>
    </message>
    <message>
        <source>An OpenAI-compatible endpoint (llama.cpp server, vLLM, Ollama), like the CLI&apos;s --llm-endpoint. Empty: the reviewer is off and nothing is sent anywhere.</source>
        <translation>兼容 OpenAI 的端点（llama.cpp server、vLLM、Ollama），同命令行的 --llm-endpoint。留空：复核者关闭，不向任何地方发送任何内容。</translation>
    </message>
    <message>
        <source>the server&apos;s default</source>
        <translation>服务器默认模型</translation>
    </message>
    <message>
        <source>The name of the environment variable that holds the API key (like the CLI&apos;s --llm-key-env). The key itself is never stored by Sightline.</source>
        <translation>保存 API 密钥的环境变量名（同命令行的 --llm-key-env）。Sightline 从不保存密钥本身。</translation>
    </message>
    <message>
        <source>Allow file paths in what is sent</source>
        <translation>允许在发送内容中包含文件路径</translation>
    </message>
    <message>
        <source>Off: every absolute path in a finding&apos;s text is replaced by &lt;path&gt; before it is sent.</source>
        <translation>关闭：发送前，诊断结论文本中的每个绝对路径都替换为 &lt;path&gt;。</translation>
    </message>
    <message>
        <source>Endpoint URL:</source>
        <translation>端点地址：</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>API key variable:</source>
        <translation>API 密钥变量：</translation>
    </message>
    <message>
        <source>Only the variable&apos;s name is stored; set the key in the environment Sightline starts in. Empty: no key is sent.</source>
        <translation>只保存变量名；请在启动 Sightline 的环境中设置密钥。留空：不发送密钥。</translation>
    </message>
    <message>
        <source>Timeout:</source>
        <translation>超时：</translation>
    </message>
    <message>
        <source>Tools › Review Findings with LLM… sends the findings and their evidence as JSON (never the trace) and shows the verdicts beside them. Verdicts that cite no evidence or contradict it are dropped. The findings themselves never change.</source>
        <translation>工具 › 用 LLM 复核诊断结论… 将诊断结论及其证据以 JSON 发送（绝不包括 trace），并在结论旁显示复核意见。未引用证据或与证据矛盾的意见会被舍弃。诊断结论本身从不改变。</translation>
    </message>
</context>
<context>
    <name>sl::Shortcuts</name>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>Application</source>
        <translation>应用程序</translation>
    </message>
    <message>
        <source>W / S</source>
        <translation>W / S</translation>
    </message>
    <message>
        <source>Zoom in / out at the mouse cursor</source>
        <translation>在鼠标位置放大 / 缩小</translation>
    </message>
    <message>
        <source>A / D, Left / Right</source>
        <translation>A / D、← / →</translation>
    </message>
    <message>
        <source>Pan left / right</source>
        <translation>向左 / 向右平移</translation>
    </message>
    <message>
        <source>Fit the whole trace</source>
        <translation>显示整个 trace</translation>
    </message>
    <message>
        <source>Z</source>
        <translation>Z</translation>
    </message>
    <message>
        <source>Zoom to the selected range (Shift+drag)</source>
        <translation>缩放到选中的时间范围（Shift+拖动）</translation>
    </message>
    <message>
        <source>Esc</source>
        <translation>Esc</translation>
    </message>
    <message>
        <source>Clear the selection</source>
        <translation>清除选择</translation>
    </message>
    <message>
        <source>Mouse wheel</source>
        <translation>鼠标滚轮</translation>
    </message>
    <message>
        <source>Zoom at the mouse cursor</source>
        <translation>在鼠标位置缩放</translation>
    </message>
    <message>
        <source>Pan</source>
        <translation>平移</translation>
    </message>
    <message>
        <source>Scroll the lanes</source>
        <translation>滚动泳道</translation>
    </message>
    <message>
        <source>Drag</source>
        <translation>拖动</translation>
    </message>
    <message>
        <source>Pan and scroll</source>
        <translation>平移并滚动</translation>
    </message>
    <message>
        <source>Shift+drag</source>
        <translation>Shift+拖动</translation>
    </message>
    <message>
        <source>Click</source>
        <translation>单击</translation>
    </message>
    <message>
        <source>Open files</source>
        <translation>打开文件</translation>
    </message>
    <message>
        <source>Close the trace</source>
        <translation>关闭 trace</translation>
    </message>
    <message>
        <source>Export the report</source>
        <translation>导出报告</translation>
    </message>
    <message>
        <source>(menu)</source>
        <translation>（菜单）</translation>
    </message>
    <message>
        <source>Preferences</source>
        <translation>首选项</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <source>Ctrl+F or /</source>
        <translation>Ctrl+F 或 /</translation>
    </message>
    <message>
        <source>Find kernels, NVTX ranges and API calls (every match is outlined on the timeline)</source>
        <translation>查找内核、NVTX 区间和 API 调用（时间线上标出所有匹配）</translation>
    </message>
    <message>
        <source>Enter / Shift+Enter</source>
        <translation>Enter / Shift+Enter</translation>
    </message>
    <message>
        <source>Next / previous match</source>
        <translation>下一个 / 上一个匹配</translation>
    </message>
    <message>
        <source>Close the search and clear its marks</source>
        <translation>关闭搜索并清除标记</translation>
    </message>
    <message>
        <source>F</source>
        <translation>F</translation>
    </message>
    <message>
        <source>0</source>
        <translation>0</translation>
    </message>
    <message>
        <source>Ctrl+wheel</source>
        <translation>Ctrl+滚轮</translation>
    </message>
    <message>
        <source>Shift+wheel, horizontal wheel</source>
        <translation>Shift+滚轮、水平滚轮</translation>
    </message>
    <message>
        <source>Findings</source>
        <translation>诊断结论</translation>
    </message>
    <message>
        <source>Copy the verify command of the selected suggestion</source>
        <translation>复制所选建议的验证命令</translation>
    </message>
    <message>
        <source>Suggestions</source>
        <translation>建议</translation>
    </message>
    <message>
        <source>Ctrl+Enter</source>
        <translation>Ctrl+Enter</translation>
    </message>
    <message>
        <source>Save the annotation</source>
        <translation>保存备注</translation>
    </message>
    <message>
        <source>Fit the selection (range, kernel, CPU operator, the gaps of a histogram bin, or gap), or the whole trace when nothing is selected</source>
        <translation>适配选中内容（时间范围、内核、CPU 算子、直方图区间的间隙或单个间隙）；未选中任何内容时显示整个 trace</translation>
    </message>
    <message>
        <source>Select a time range and show its aggregate table (Range pane)</source>
        <translation>选择一个时间范围并显示其汇总表（时间范围面板）</translation>
    </message>
    <message>
        <source>Select a kernel (with its launch call and CPU operator) or a CPU operator (with its kernels)</source>
        <translation>选中一个内核（连同其启动调用和 CPU 算子）或一个 CPU 算子（连同其内核）</translation>
    </message>
    <message>
        <source>Click a ▸ / ▾ label</source>
        <translation>单击 ▸ / ▾ 标签</translation>
    </message>
    <message>
        <source>Fold or unfold a flame chart (CPU operators, Python frames)</source>
        <translation>折叠或展开火焰图（CPU 算子、Python 帧）</translation>
    </message>
    <message>
        <source>Drag the labels&apos; edge</source>
        <translation>拖动标签栏的边缘</translation>
    </message>
    <message>
        <source>Widen or narrow the lane labels</source>
        <translation>加宽或收窄泳道标签</translation>
    </message>
    <message>
        <source>Click or drag in the overview</source>
        <translation>在概览轨道中单击或拖动</translation>
    </message>
    <message>
        <source>Centre the view there, or show what the drag spans</source>
        <translation>将视图居中到该处，或显示拖动所覆盖的范围</translation>
    </message>
    <message>
        <source>Hide or show the panes (the timeline takes the whole window)</source>
        <translation>隐藏或显示窗格（时间线占满整个窗口）</translation>
    </message>
</context>
<context>
    <name>sl::ShortcutsDialog</name>
    <message>
        <source>Keyboard Shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>操作</translation>
    </message>
</context>
<context>
    <name>sl::StageText</name>
    <message>
        <source>Opening the report</source>
        <translation>正在打开报告</translation>
    </message>
    <message>
        <source>Exporting the report with nsys</source>
        <translation>正在用 nsys 导出报告</translation>
    </message>
    <message>
        <source>Reading strings</source>
        <translation>正在读取字符串</translation>
    </message>
    <message>
        <source>Reading kernels</source>
        <translation>正在读取内核</translation>
    </message>
    <message>
        <source>Reading memory copies</source>
        <translation>正在读取内存拷贝</translation>
    </message>
    <message>
        <source>Reading memsets</source>
        <translation>正在读取内存设置</translation>
    </message>
    <message>
        <source>Reading API calls</source>
        <translation>正在读取 API 调用</translation>
    </message>
    <message>
        <source>Reading synchronizations</source>
        <translation>正在读取同步</translation>
    </message>
    <message>
        <source>Reading NVTX ranges</source>
        <translation>正在读取 NVTX 区间</translation>
    </message>
    <message>
        <source>Reading CUDA graphs</source>
        <translation>正在读取 CUDA 图</translation>
    </message>
    <message>
        <source>Reading events</source>
        <translation>正在读取事件</translation>
    </message>
    <message>
        <source>Linking launches to GPU work</source>
        <translation>正在关联启动调用与 GPU 工作</translation>
    </message>
    <message>
        <source>Summarising</source>
        <translation>正在汇总</translation>
    </message>
    <message>
        <source>Building the timeline</source>
        <translation>正在构建时间线</translation>
    </message>
    <message>
        <source>Running the analyses</source>
        <translation>正在运行分析</translation>
    </message>
    <message>
        <source>Classifying operators</source>
        <translation>正在划分算子类别</translation>
    </message>
    <message>
        <source>Analysing launches</source>
        <translation>正在分析启动</translation>
    </message>
    <message>
        <source>Analysing synchronization</source>
        <translation>正在分析同步</translation>
    </message>
    <message>
        <source>Analysing overlap</source>
        <translation>正在分析重叠</translation>
    </message>
    <message>
        <source>Projecting NVTX ranges</source>
        <translation>正在投影 NVTX 区间</translation>
    </message>
    <message>
        <source>Finding phases and steps</source>
        <translation>正在识别阶段与步</translation>
    </message>
    <message>
        <source>Attributing idle time</source>
        <translation>正在进行空闲归因</translation>
    </message>
    <message>
        <source>Matching collectives</source>
        <translation>正在匹配集合通信</translation>
    </message>
    <message>
        <source>Analysing weight streaming</source>
        <translation>正在分析权重流式读取</translation>
    </message>
    <message>
        <source>Roofline</source>
        <translation>Roofline 分析</translation>
    </message>
    <message>
        <source>Evaluating the rules</source>
        <translation>正在评估规则</translation>
    </message>
    <message>
        <source>Judging the changes</source>
        <translation>正在判定变更</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
</context>
<context>
    <name>sl::SuggestionModel</name>
    <message>
        <source>Proposed</source>
        <translation>待处理</translation>
    </message>
    <message>
        <source>Accepted</source>
        <translation>已采纳</translation>
    </message>
    <message>
        <source>Rejected</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>Verified</source>
        <translation>已验证</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>未通过</translation>
    </message>
    <message>
        <source>increase</source>
        <translation>上升</translation>
    </message>
    <message>
        <source>decrease</source>
        <translation>下降</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Suggestion</source>
        <translation>建议</translation>
    </message>
    <message>
        <source>Subject</source>
        <translation>对象</translation>
    </message>
    <message>
        <source>Metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Annotation</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>Updated</source>
        <translation>更新时间</translation>
    </message>
    <message>
        <source>Subject time</source>
        <translation>对象耗时</translation>
    </message>
    <message>
        <source>Median TPOT</source>
        <translation>TPOT 中位数</translation>
    </message>
    <message>
        <source>GPU idle share</source>
        <translation>GPU 空闲占比</translation>
    </message>
    <message>
        <source>Kernel count</source>
        <translation>内核数量</translation>
    </message>
    <message>
        <source>Kernel time</source>
        <translation>内核耗时</translation>
    </message>
    <message>
        <source>Launch call time</source>
        <translation>启动调用耗时</translation>
    </message>
    <message>
        <source>NCCL time</source>
        <translation>NCCL 耗时</translation>
    </message>
    <message>
        <source>Pageable async copy time</source>
        <translation>可分页异步拷贝耗时</translation>
    </message>
    <message>
        <source>Synchronising call time</source>
        <translation>同步调用耗时</translation>
    </message>
    <message>
        <source>Synchronous copy time</source>
        <translation>同步拷贝耗时</translation>
    </message>
    <message>
        <source>Wall time</source>
        <translation>墙钟时间</translation>
    </message>
    <message>
        <source>%1 should %2 (%3)</source>
        <translation>%1 应当%2（%3）</translation>
    </message>
</context>
<context>
    <name>sl::SuggestionsView</name>
    <message>
        <source>All states</source>
        <translation>全部状态</translation>
    </message>
    <message>
        <source>Accept</source>
        <translation>采纳</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Reset to proposed</source>
        <translation>重置为待处理</translation>
    </message>
    <message>
        <source>Mark the selected suggestion as accepted: you mean to apply it. Saved at once.</source>
        <translation>将所选建议标记为已采纳（表示你打算实施它）。立即保存。</translation>
    </message>
    <message>
        <source>Mark the selected suggestion as rejected. Saved at once.</source>
        <translation>将所选建议标记为已拒绝。立即保存。</translation>
    </message>
    <message>
        <source>Put the selected suggestion back to proposed. Saved at once.</source>
        <translation>将所选建议恢复为待处理。立即保存。</translation>
    </message>
    <message>
        <source>Reload</source>
        <translation>重新加载</translation>
    </message>
    <message>
        <source>Read the states again from the knowledge base (changes made by another Sightline)</source>
        <translation>从知识库重新读取状态（获取其他 Sightline 实例所做的更改）</translation>
    </message>
    <message>
        <source>Show:</source>
        <translation>显示：</translation>
    </message>
    <message>
        <source>Why you accepted or rejected it, what you tried, what happened…</source>
        <translation>为什么采纳或拒绝、尝试了什么、结果如何…</translation>
    </message>
    <message>
        <source>No knowledge base is configured.</source>
        <translation>未配置知识库。</translation>
    </message>
    <message>
        <source>Knowledge base: %1</source>
        <translation>知识库：%1</translation>
    </message>
    <message>
        <source>Saved to %1 at %2</source>
        <translation>已于 %2 保存到 %1</translation>
    </message>
    <message>
        <source>Not saved: %1</source>
        <translation>未保存：%1</translation>
    </message>
    <message>
        <source>Knowledge base unavailable: %1</source>
        <translation>知识库不可用：%1</translation>
    </message>
    <message>
        <source>The knowledge base could not be used, so states cannot be shown or saved: %1</source>
        <translation>知识库无法使用，因此无法显示或保存状态：%1</translation>
    </message>
    <message>
        <source>Suggestions appear here once a trace has been opened and its analysis has finished.</source>
        <translation>打开 trace 并完成分析后，建议将显示在这里。</translation>
    </message>
    <message>
        <source>Reading this trace&apos;s suggestions from the knowledge base…</source>
        <translation>正在从知识库读取此 trace 的建议…</translation>
    </message>
    <message>
        <source>No suggestions for this trace: none of the rules that fired proposes a change.</source>
        <translation>此 trace 没有建议：触发的规则均未提出改动。</translation>
    </message>
    <message>
        <source>Select a suggestion to see how to verify it.</source>
        <translation>选择一条建议以查看如何验证它。</translation>
    </message>
    <message>
        <source>Finding: %1</source>
        <translation>诊断结论：%1</translation>
    </message>
    <message>
        <source>Subject: %1</source>
        <translation>对象：%1</translation>
    </message>
    <message>
        <source>Computed from this trace: %1 % of the end-to-end time</source>
        <translation>由本 trace 计算：端到端时间的 %1 %</translation>
    </message>
    <message>
        <source>Risk: %1</source>
        <translation>风险：%1</translation>
    </message>
    <message>
        <source>Verify with:</source>
        <translation>验证方式：</translation>
    </message>
    <message>
        <source>The current analysis does not contain this suggestion (it was recorded by an earlier run of the rules), so its verification command is not known.</source>
        <translation>当前分析结果中不包含此建议（它由更早一次规则运行记录），因此不知道其验证命令。</translation>
    </message>
    <message>
        <source>Expected gain: %1 of %2</source>
        <translation>预期收益：%2 的 %1</translation>
    </message>
    <message>
        <source>the run</source>
        <translation>本次运行</translation>
    </message>
    <message>
        <source>Note (saved as you type)</source>
        <translation>备注（输入时即保存）</translation>
    </message>
    <message>
        <source>Saved to the knowledge base a moment after each change, and when you leave the field, press Ctrl+Enter or select another suggestion.</source>
        <translation>每次修改后稍等片刻即保存到知识库；离开输入框、按 Ctrl+Enter 或选择另一条建议时也会保存。</translation>
    </message>
    <message>
        <source>graph replay</source>
        <translation>CUDA graph 重放</translation>
    </message>
    <message>
        <source>without the per-step syncs</source>
        <translation>去掉每步同步</translation>
    </message>
    <message>
        <source>capture</source>
        <translation>采集</translation>
    </message>
    <message>
        <source>TPOT</source>
        <translation>TPOT</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步长</translation>
    </message>
    <message>
        <source>%1: %2 %3 → %4 (%5 – %6)</source>
        <translation>%1：%2 %3 → %4（%5 – %6）</translation>
    </message>
    <message>
        <source>the bound, up to %1 %, stays the ceiling</source>
        <translation>上限仍为该界限，最多 %1 %</translation>
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
        <source>[CUDA memset]</source>
        <translation>[CUDA memset]</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>空闲</translation>
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
        <translation>网格 %1×%2×%3 · 线程块 %4×%5×%6</translation>
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
        <translation>主机等待</translation>
    </message>
    <message>
        <source>kernel wait</source>
        <translation>内核等待</translation>
    </message>
    <message>
        <source>sync wait</source>
        <translation>同步等待</translation>
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
    <message>
        <source>Click for the kernels around it and what the CPU did.</source>
        <translation>点击查看其前后的内核以及 CPU 当时在做什么。</translation>
    </message>
    <message>
        <source>Span: %1</source>
        <translation>跨度：%1</translation>
    </message>
    <message>
        <source>From %1 to %2</source>
        <translation>从 %1 到 %2</translation>
    </message>
    <message>
        <source>Most frequent (sample of %1):</source>
        <translation>最常见（抽样 %1 个）：</translation>
    </message>
    <message>
        <source>Most frequent:</source>
        <translation>最常见：</translation>
    </message>
    <message>
        <source>Zoom in (W) to see them one by one.</source>
        <translation>放大（W）以逐个查看。</translation>
    </message>
    <message>
        <source>Visible %1</source>
        <translation>可见 %1</translation>
    </message>
    <message numerus="yes">
        <source>Range %1 (%2 – %3) · busy %4 · idle %5 · %n kernel(s)</source>
        <translation>
            <numerusform>选区 %1（%2 – %3）· 忙碌 %4 · 空闲 %5 · %n 个内核</numerusform>
        </translation>
    </message>
    <message>
        <source>Finding the idle gaps…</source>
        <translation>正在查找空闲间隙…</translation>
    </message>
    <message>
        <source>dependency wait</source>
        <translation>依赖等待</translation>
    </message>
    <message>
        <source>%1 · Stream %2 · copies</source>
        <translation>%1 · 流 %2 · 拷贝</translation>
    </message>
    <message>
        <source>CPU ops %1</source>
        <translation>CPU 算子 %1</translation>
    </message>
    <message>
        <source>NVTX %1</source>
        <translation>NVTX %1</translation>
    </message>
    <message>
        <source>CPU ops</source>
        <translation>CPU 算子</translation>
    </message>
    <message>
        <source>NVTX</source>
        <translation>NVTX</translation>
    </message>
    <message>
        <source>%1 · CPU ops</source>
        <translation>%1 · CPU 算子</translation>
    </message>
    <message>
        <source>%1 · NVTX</source>
        <translation>%1 · NVTX</translation>
    </message>
    <message>
        <source>Python %1</source>
        <translation>Python %1</translation>
    </message>
    <message numerus="yes">
        <source>Python (%n level(s))</source>
        <translation>
            <numerusform>Python（%n 层）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 · Python (%n level(s))</source>
        <translation>
            <numerusform>%1 · Python（%n 层）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln copies</source>
        <translation>
            <numerusform>%Ln 次拷贝</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln kernels</source>
        <translation>
            <numerusform>%Ln 个内核</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln ops</source>
        <translation>
            <numerusform>%Ln 个算子</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln idle gaps</source>
        <translation>
            <numerusform>%Ln 个空闲间隙</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln API calls</source>
        <translation>
            <numerusform>%Ln 次 API 调用</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln ranges</source>
        <translation>
            <numerusform>%Ln 个区间</numerusform>
        </translation>
    </message>
    <message>
        <source>Overview · GPU busy %1</source>
        <translation>概览 · GPU 忙碌 %1</translation>
    </message>
    <message>
        <source>CPU operator</source>
        <translation>CPU 算子</translation>
    </message>
    <message>
        <source>Python frame</source>
        <translation>Python 帧</translation>
    </message>
    <message>
        <source>Annotation</source>
        <translation>用户标注</translation>
    </message>
    <message>
        <source>NVTX range</source>
        <translation>NVTX 区间</translation>
    </message>
    <message>
        <source>Click for the kernels it launched.</source>
        <translation>点击查看它启动的内核。</translation>
    </message>
    <message>
        <source>Busy %1 of the span</source>
        <translation>该范围内忙碌 %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;Overview&lt;/b&gt; at %1</source>
        <translation>&lt;b&gt;概览&lt;/b&gt;，位于 %1</translation>
    </message>
    <message>
        <source>GPU busy %1</source>
        <translation>GPU 忙碌 %1</translation>
    </message>
    <message>
        <source>Click to centre the view here, drag to choose what it shows.</source>
        <translation>单击将视图居中到此处，拖动选择要显示的范围。</translation>
    </message>
    <message>
        <source>%1 · %2 API</source>
        <translation>%1 · %2 API</translation>
    </message>
</context>
<context>
    <name>sl::VerdictText</name>
    <message>
        <source>Compute-bound</source>
        <translation>受算力限制</translation>
    </message>
    <message>
        <source>Memory-bound</source>
        <translation>受访存限制</translation>
    </message>
    <message>
        <source>Latency-bound</source>
        <translation>受延迟限制</translation>
    </message>
    <message>
        <source>Inconsistent</source>
        <translation>数据不一致</translation>
    </message>
    <message>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>host wait</source>
        <translation>主机等待</translation>
    </message>
    <message>
        <source>kernel wait</source>
        <translation>内核等待</translation>
    </message>
    <message>
        <source>sync wait</source>
        <translation>同步等待</translation>
    </message>
    <message>
        <source>other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>Compute-bound: SM throughput at %1 of peak (ncu launch %2)</source>
        <translation>受算力限制：SM 吞吐达到峰值的 %1（ncu 启动 %2）</translation>
    </message>
    <message>
        <source>Memory-bound: memory throughput at %1 of peak (ncu launch %2)</source>
        <translation>受访存限制：内存吞吐达到峰值的 %1（ncu 启动 %2）</translation>
    </message>
    <message>
        <source>, measured on another launch of this kernel</source>
        <translation>，测自该内核的另一次启动</translation>
    </message>
    <message>
        <source>Compute-bound at %1 of the %2 roof (%3)</source>
        <translation>受算力限制，达到 %2 屋顶的 %1（%3）</translation>
    </message>
    <message>
        <source>Compute-bound at E_roof %1 (%2 in %3, from the model config)</source>
        <translation>受算力限制，E_roof %1（%3阶段的 %2，来自模型配置）</translation>
    </message>
    <message>
        <source>Memory-bound at E_roof %1 (%2 in %3, from the model config)</source>
        <translation>受访存限制，E_roof %1（%3阶段的 %2，来自模型配置）</translation>
    </message>
    <message>
        <source>Latency-bound: SM %1 and memory %2 of peak, both under 60 % (ncu launch %3)</source>
        <translation>受延迟限制：SM 为峰值的 %1，内存为峰值的 %2，均低于 60 %（ncu 启动 %3）</translation>
    </message>
    <message>
        <source>Measured above the roof (%1): wrong GPU row or dtype</source>
        <translation>实测值高于屋顶（%1）：GPU 规格行或数据类型有误</translation>
    </message>
    <message>
        <source>Measured above the roof (%1 in %2, T_theory/T_actual %3): wrong dtype, parallelism, shape or GPU</source>
        <translation>实测值高于屋顶（%2阶段的 %1，T_theory/T_actual %3）：数据类型、并行方式、形状或 GPU 有误</translation>
    </message>
    <message>
        <source>Unknown — what would tell: %1</source>
        <translation>未知——可据以判定的信息：%1</translation>
    </message>
    <message>
        <source>idle %1 before it (%2)</source>
        <translation>运行前空闲 %1（%2）</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>dependency wait</source>
        <translation>依赖等待</translation>
    </message>
    <message>
        <source>Compute-bound (instruction issue): PyTorch&apos;s strided elementwise loop over %1 waves spends its issue slots on index arithmetic</source>
        <translation>受算力限制（指令发射）：PyTorch 的跨步逐元素循环覆盖 %1 个 wave，发射槽耗在索引计算上</translation>
    </message>
    <message>
        <source> (memory at %1 of its roof)</source>
        <translation>（访存为其屋顶的 %1）</translation>
    </message>
    <message>
        <source>Memory-bound at %1 of the memory roof (%2)</source>
        <translation>受访存限制，达到访存屋顶的 %1（%2）</translation>
    </message>
    <message>
        <source>Latency-bound: it runs %1, under the %2 a kernel needs to approach any roof</source>
        <translation>受延迟限制：它运行 %1，低于内核接近任何屋顶所需的 %2</translation>
    </message>
    <message>
        <source>Latency-bound: %1 blocks on %2 SMs leave most SMs without work</source>
        <translation>受延迟限制：%1 个线程块分布在 %2 个 SM 上，多数 SM 无事可做</translation>
    </message>
    <message>
        <source>Latency-bound: E_roof %1, under 60 % (%2 in %3, from the model config)</source>
        <translation>受延迟限制：E_roof %1，低于 60 %（%3阶段的 %2，来自模型配置）</translation>
    </message>
    <message>
        <source>Latency-bound: the GPU&apos;s minimum kernel duration bounds %1 in %2, at E_roof %3 (from the model config)</source>
        <translation>受延迟限制：GPU 的最短内核时长限定了%2阶段的 %1，E_roof %3（来自模型配置）</translation>
    </message>
    <message>
        <source>Latency-bound: %1 of its compute roof, under 60 % (%2)</source>
        <translation>受延迟限制：为其算力屋顶的 %1，低于 60 %（%2）</translation>
    </message>
    <message>
        <source>Latency-bound: %1 of its memory roof, under 60 % (%2)</source>
        <translation>受延迟限制：为其访存屋顶的 %1，低于 60 %（%2）</translation>
    </message>
    <message>
        <source>an ncu profile of this kernel</source>
        <translation>该内核的 ncu 剖析</translation>
    </message>
    <message>
        <source>shapes in the trace (record_shapes=True)</source>
        <translation>trace 中的张量形状（record_shapes=True）</translation>
    </message>
    <message>
        <source>the model&apos;s config.json</source>
        <translation>模型的 config.json</translation>
    </message>
    <message>
        <source>the trace of the graph&apos;s capture (--capture-trace)</source>
        <translation>该图捕获过程的 trace（--capture-trace）</translation>
    </message>
    <message>
        <source>launch-bound: the GPU waited %1 for it, and its launch call took %2, longer than it runs</source>
        <translation>受内核启动限制：GPU 为它等待了 %1，其启动调用耗时 %2，比它的运行时间更长</translation>
    </message>
    <message>
        <source>the GPU waited %1 for its graph launch</source>
        <translation>GPU 为其图启动等待了 %1</translation>
    </message>
    <message>
        <source>the GPU waited %1 for its launch</source>
        <translation>GPU 为其启动等待了 %1</translation>
    </message>
    <message>
        <source>node %1 of %2 of its graph replay</source>
        <translation>其图重放中的第 %1 个节点（共 %2 个）</translation>
    </message>
    <message>
        <source>, idle %1 before it (%2)</source>
        <translation>，运行前空闲 %1（%2）</translation>
    </message>
</context>
<context>
    <name>sl::WarningText</name>
    <message>
        <source>No GPU activity</source>
        <translation>无 GPU 活动</translation>
    </message>
    <message>
        <source>No kernels</source>
        <translation>无内核</translation>
    </message>
    <message>
        <source>Clock skew</source>
        <translation>时钟偏移</translation>
    </message>
    <message>
        <source>Events dropped</source>
        <translation>已丢弃事件</translation>
    </message>
    <message>
        <source>Capture too short</source>
        <translation>采集过短</translation>
    </message>
    <message>
        <source>Warm-up included</source>
        <translation>含预热</translation>
    </message>
    <message>
        <source>Warm-up excluded</source>
        <translation>已排除预热</translation>
    </message>
    <message>
        <source>Reader</source>
        <translation>读取器</translation>
    </message>
    <message>
        <source>the trace holds no kernels, copies or sets: GPU utilisation is unknown, not 100 %, and no GPU finding can be made</source>
        <translation>trace 中没有内核、拷贝或内存设置：GPU 利用率未知（不是 100 %），无法给出 GPU 方面的诊断</translation>
    </message>
    <message>
        <source>the trace holds copies or sets but no kernels</source>
        <translation>trace 中只有拷贝或内存设置，没有内核</translation>
    </message>
    <message>
        <source>host and device clocks disagree (%1); GPU times were moved by %2 onto the host clock, so queue delays and idle time are measured after the correction</source>
        <translation>主机与设备时钟不一致（%1）；GPU 时间已平移 %2 以对齐主机时钟，排队延迟和空闲时间均按校正后的时间计算</translation>
    </message>
    <message>
        <source>host and device clocks disagree (%1); queue delays and host-side idle attribution are not trustworthy on this trace</source>
        <translation>主机与设备时钟不一致（%1）；此 trace 上的排队延迟和主机侧空闲归因不可信</translation>
    </message>
    <message numerus="yes">
        <source>%n event(s) of kinds Sightline does not read were dropped (%1); what they did on the device is not analysed</source>
        <translation>
            <numerusform>已丢弃 %n 个 Sightline 不读取的类型的事件（%1）；它们在设备上的活动未被分析</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>the capture (%1, %n kernel(s)) is too short for a verdict (below %2 or %3 kernels): findings are indicative only</source>
        <translation>
            <numerusform>采集（%1，%n 个内核）过短，不足以下结论（短于 %2 或少于 %3 个内核）：诊断结论仅供参考</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n module or library load(s) (lazy first launches) lie inside the capture: the first calls of those kernels include loading</source>
        <translation>
            <numerusform>采集中包含 %n 次模块或库加载（首次启动时的延迟加载）：这些内核的首次调用包含加载时间</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>too few decode steps (%n) to leave warm-up out: TPOT includes the first steps</source>
        <translation>
            <numerusform>解码步数过少（%n），无法排除预热：TPOT 包含最初几步</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n warm-up step(s) left out of the steady-state window %1 – %2</source>
        <translation>
            <numerusform>%n 个预热步未计入稳态窗口 %1 – %2</numerusform>
        </translation>
    </message>
    <message>
        <source>ncu file of another GPU</source>
        <translation>ncu 文件来自另一款 GPU</translation>
    </message>
    <message>
        <source>ncu kernels not in the trace</source>
        <translation>ncu 内核不在 trace 中</translation>
    </message>
    <message numerus="yes">
        <source>the capture (%1, %n kernel(s)) is too small for a verdict: it holds fewer than %2 kernels; findings are indicative only</source>
        <translation>
            <numerusform>采集（%1，%n 个内核）过小，不足以下结论：少于 %2 个内核；诊断结论仅供参考</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>the capture (%1, %n kernel(s)) is too small for a verdict: it is shorter than %2; findings are indicative only</source>
        <translation>
            <numerusform>采集（%1，%n 个内核）过小，不足以下结论：短于 %2；诊断结论仅供参考</numerusform>
        </translation>
    </message>
    <message>
        <source>the Nsight Compute file was profiled on another GPU than the trace&apos;s (%1): its counters describe %2, not %3; joined anyway, read them with care</source>
        <translation>Nsight Compute 文件是在与 trace 不同的 GPU 上采集的（%1）：其计数器描述的是 %2，而不是 %3；仍已关联，请谨慎解读</translation>
    </message>
    <message numerus="yes">
        <source>none of the %n launch(es) of the Nsight Compute file matches a kernel of the trace (%1): the file is of another run</source>
        <translation>
            <numerusform>Nsight Compute 文件的 %n 次启动都与 trace 中的内核不匹配（%1）：该文件来自另一次运行</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of the %n launch(es) of the Nsight Compute file match no kernel of the trace (%2): their counters are joined to no kernel</source>
        <translation>
            <numerusform>Nsight Compute 文件的 %n 次启动中有 %1 次与 trace 中的任何内核都不匹配（%2）：其计数器未关联到任何内核</numerusform>
        </translation>
    </message>
    <message>
        <source>Critical path left out</source>
        <translation>未计算关键路径</translation>
    </message>
    <message>
        <source>the critical path and the what-if replays were not computed: their dependency graph would need about %1 on top of the %2 in use, over the memory budget of %3 (raise it with --max-memory); the findings keep their bounds</source>
        <translation>未计算关键路径与假设重放：其依赖图在已用的 %2 之外还需约 %1，将超出 %3 的内存预算（可用 --max-memory 调高）；各项发现保留其收益上限</translation>
    </message>
</context>
</TS>
