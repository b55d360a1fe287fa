#include "analysis/diagnosis/headline.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/diagnosis/ledger.h"
#include "analysis/roofline/roofline.h"
#include "analysis/timeline/analysis.h"
#include "analysis/timeline/capture_edge.h"
#include "analysis/trace/trace.h"

namespace sl {

namespace {

std::string pct(double f)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.1f %%", f * 100.0);
    return b;
}

std::string ms(double ns)
{
    char b[32];
    if (ns >= 1e9)
        std::snprintf(b, sizeof b, "%.3g s", ns / 1e9);
    else if (ns >= 1e6)
        std::snprintf(b, sizeof b, "%.3g ms", ns / 1e6);
    else
        std::snprintf(b, sizeof b, "%.3g µs", ns / 1e3);
    return b;
}

std::string op_words(const Trace& t, OpKind kind, int32_t row)
{
    if (row < 0)
        return "GPU work";
    const size_t r = static_cast<size_t>(row);
    switch (kind) {
    case OpKind::Kernel:
        return r < t.kernels.size() ? kernel_display_name(t.str(t.kernels.name[r])) : std::string("a kernel");
    case OpKind::Memcpy: return r < t.memcpy.size() ? copy_kind_label(t.memcpy.copy_kind[r]) : std::string("a copy");
    case OpKind::Memset: return "a memset";
    }
    return "GPU work";
}

std::string api_name(const Trace& t, int32_t a)
{
    return a >= 0 && static_cast<size_t>(a) < t.api.size() ? std::string(t.str(t.api.name[static_cast<size_t>(a)]))
                                                            : std::string();
}

int32_t launch_api_of(const Trace& t, OpKind kind, int32_t row)
{
    if (row < 0)
        return kNoIndex;
    const size_t r = static_cast<size_t>(row);
    switch (kind) {
    case OpKind::Kernel: return r < t.kernels.size() ? t.kernels.launch_api[r] : kNoIndex;
    case OpKind::Memcpy: return r < t.memcpy.size() ? t.memcpy.launch_api[r] : kNoIndex;
    case OpKind::Memset: return r < t.memset.size() ? t.memset.launch_api[r] : kNoIndex;
    }
    return kNoIndex;
}

// The dominant stall: where it lies, what ended it, why, in both languages.
HeadlineStall describe_stall(const Trace& t, const AnalysisResult& an, const Gap& g, double wall, bool capture_edge)
{
    HeadlineStall s;
    s.dominant = true;
    s.capture_edge = capture_edge;
    s.start = g.start;
    s.end = g.end;
    s.device = g.device;
    s.cause = gap_cause_name(g.cause);
    s.share_of_wall = wall > 0 ? double(g.duration()) / wall : 0;
    s.next_op = op_words(t, g.next_kind, g.next_row);
    const auto& steps = an.phases.steps;
    for (size_t i = 0; i < steps.size(); ++i) {
        if (g.end <= steps[i].start || g.start <= steps[i].start) {
            s.position = "before_step";
            s.step = static_cast<int64_t>(i);
            break;
        }
        if (g.start < steps[i].end) {
            s.position = "inside_step";
            s.step = static_cast<int64_t>(i);
            break;
        }
    }
    if (!steps.empty() && s.step < 0)
        s.position = "after_steps";
    const int32_t la = launch_api_of(t, g.next_kind, g.next_row);
    if (la >= 0 && static_cast<size_t>(la) < t.api.size()) {
        s.launch_call = api_name(t, la);
        s.launched_after_ns = t.api.start[static_cast<size_t>(la)] - t.meta.capture_start;
        s.queued_ns = std::max<int64_t>(0, g.end - t.api.end[static_cast<size_t>(la)]);
    }
    if (g.cause == GapCause::DependencyWait) {
        const GapDependency dep = dependency_of(t, g);
        s.wait_call = api_name(t, dep.wait_api);
        s.blocking_call = api_name(t, dep.blocking_api);
        s.blocking_overlap_ns = dep.blocking_overlap_ns;
    } else if (g.cause == GapCause::SyncWait) {
        s.blocking_call = api_name(t, g.sync_api);
    }
    // Where: "before the step", "before step 3", "inside step 3", "after the last step".
    const bool one = steps.size() == 1;
    std::string where_en, where_zh;
    if (s.position == "before_step") {
        where_en = one ? " before the step" : s.step == 0 ? " before the first step" : " before step " + std::to_string(s.step + 1);
        where_zh = one ? "在该步之前" : "在第 " + std::to_string(s.step + 1) + " 步之前";
    } else if (s.position == "inside_step") {
        where_en = one ? " inside the step" : " inside step " + std::to_string(s.step + 1);
        where_zh = one ? "在该步之中" : "在第 " + std::to_string(s.step + 1) + " 步之中";
    } else if (s.position == "after_steps") {
        where_en = " after the last step";
        where_zh = "在最后一步之后";
    }
    if (capture_edge) {
        if (where_en.empty()) {   // no steps: the edge is the first or the last kernel
            int64_t first_kernel = g.end;
            for (size_t i = 0; i < t.kernels.size(); ++i)
                if (t.kernels.device[i] == g.device)
                    first_kernel = std::min(first_kernel, t.kernels.start[i]);
            const bool before = g.end <= first_kernel;
            where_en = before ? " before the first kernel" : " after the last kernel";
            where_zh = before ? "在第一个内核之前" : "在最后一个内核之后";
        }
        where_en += ", at the edge of the capture,";
        where_zh += "（采集的边缘）";
    }
    const std::string len = ms(double(g.duration()));
    std::string why_en, why_zh;
    if (g.cause == GapCause::DependencyWait) {
        why_en = s.next_op + " was already queued";
        why_zh = s.next_op + " 已经入队";
        if (s.launched_after_ns) {
            why_en += " (" + s.launch_call + " " + ms(double(*s.launched_after_ns)) + " into the capture" +
                      (s.wait_call.empty() ? "" : ", right after " + s.wait_call) + ")";
            why_zh += "（" + s.launch_call + " 在采集开始后 " + ms(double(*s.launched_after_ns)) +
                      (s.wait_call.empty() ? "" : "，紧随 " + s.wait_call) + "）";
        }
        why_en += " and waited " + ms(double(s.queued_ns.value_or(g.duration()))) + " on " +
                  (s.wait_call.empty() ? std::string("another stream") : "the event of its " + s.wait_call);
        why_zh += "，随后在" + (s.wait_call.empty() ? std::string("另一个流") : s.wait_call + " 的事件") + "上等待了 " +
                  ms(double(s.queued_ns.value_or(g.duration())));
        if (!s.blocking_call.empty()) {
            why_en += " while the host blocked in " + s.blocking_call;
            why_zh += "，其间主机阻塞于 " + s.blocking_call;
        }
        why_en += ": a dependency wait, not the host";
        why_zh += "：这是依赖等待，而非主机瓶颈";
    } else if (g.cause == GapCause::SyncWait) {
        why_en = "the host sat in " + (s.blocking_call.empty() ? std::string("a synchronising call") : s.blocking_call) +
                 " before it launched " + s.next_op + " (sync wait)";
        why_zh = "主机阻塞于 " + (s.blocking_call.empty() ? std::string("同步调用") : s.blocking_call) + "，之后才启动 " +
                 s.next_op + "（同步等待）";
    } else if (g.cause == GapCause::HostWait) {
        why_en = "the host launched " + s.next_op + " only after it (host wait)";
        why_zh = "主机在其之后才启动 " + s.next_op + "（主机等待）";
    } else {
        why_en = "the trace does not show what " + s.next_op + " waited on";
        why_zh = "trace 未显示 " + s.next_op + " 在等待什么";
    }
    s.statement.en = "One " + len + " stall" + where_en + " holds " + pct(s.share_of_wall) + " of the window: " +
                     why_en + ".";
    s.statement.zh_CN = where_zh + "有一次 " + len + " 的停顿，占窗口的 " + pct(s.share_of_wall) + "：" + why_zh + "。";
    return s;
}

// Kernel classes that move bytes rather than do math: fusion candidates.
bool is_mix_class(const std::string& id)
{
    static const std::set<std::string> s = {"elementwise", "memcpy_memset", "activation", "norm", "rotary",
                                            "reduction"};
    return s.count(id) > 0;
}

// A word set inside Chinese text: Latin at either end is set off with a space ("主机处于 JIT 编译期间").
std::string zh_word(const std::string& w)
{
    if (w.empty())
        return w;
    const bool latin_front = static_cast<unsigned char>(w.front()) < 0x80;
    const bool latin_back = static_cast<unsigned char>(w.back()) < 0x80;
    return (latin_front ? " " : "") + w + (latin_back ? " " : "");
}

const char* host_cause_verdict(const std::string& id)
{
    if (id == "compilation") return "compilation";
    if (id == "autotuning") return "autotuning";
    if (id == "module_loading") return "module-loading";
    if (id == "allocator") return "allocator-stall";
    return "host-bound";
}

// "1,465"
std::string count_text(int64_t n)
{
    const std::string digits = std::to_string(n < 0 ? -(n + 1) + uint64_t{1} : static_cast<uint64_t>(n));
    std::string s = n < 0 ? "-" : "";
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            s += ',';
        s += digits[i];
    }
    return s;
}

// The host-side causes (host_causes.h) in the headline's terms, largest idle first.
void fill_host_causes(Headline& h, const AnalysisResult& an)
{
    for (const auto& c : an.host_causes.causes) {
        HeadlineHostCause x;
        x.id = c.id;
        x.verdict = host_cause_verdict(c.id);
        x.label = {c.label, c.label_zh_CN};
        x.idle_ns = double(c.idle_ns);
        x.host_ns = double(c.host_ns);
        x.before_gpu_ns = double(c.before_gpu_ns);
        for (const auto& e : c.evidence)
            x.evidence.push_back((e.source == "nvtx" ? "NVTX " : e.source == "api" ? "" : e.source + " ") + e.name +
                                 " " + ms(double(e.total_ns)) + (e.count > 1 ? " (" + count_text(e.count) + "×)" : ""));
        h.startup_idle_ns += x.idle_ns;
        h.host_causes.push_back(std::move(x));
    }
    std::stable_sort(h.host_causes.begin(), h.host_causes.end(),
                     [](const HeadlineHostCause& a, const HeadlineHostCause& b) { return a.idle_ns > b.idle_ns; });
}

// "Seen: 49.8 ms of capture, 1,465 kernels, 1 prefill pass." and, for a short capture, that it is a sample.
EvidenceBase evidence_base(const Trace& trace, const AnalysisResult& an, const HeadlineOptions& opt)
{
    EvidenceBase b;
    b.capture_ns = double(an.wall_ns);
    b.kernels = static_cast<int64_t>(trace.kernels.size());
    b.prefill_steps = an.phases.prefill_steps;
    b.decode_steps = an.phases.decode_steps;
    b.training_iterations = an.phases.training_iterations;
    b.short_capture = an.wall_ns < opt.short_capture_ns;
    auto plural = [](int64_t n, const char* one, const char* many) {
        return count_text(n) + " " + (n == 1 ? one : many);
    };
    std::string en = "Seen: " + ms(b.capture_ns) + " of capture, " + plural(b.kernels, "kernel", "kernels");
    std::string zh = "所见：" + ms(b.capture_ns) + " 的采集，" + count_text(b.kernels) + " 个内核";
    if (b.training_iterations > 0) {
        en += ", " + plural(b.training_iterations, "training iteration", "training iterations");
        zh += "，" + count_text(b.training_iterations) + " 次训练迭代";
    } else if (b.prefill_steps + b.decode_steps > 0) {
        if (b.prefill_steps > 0) {
            en += ", " + plural(b.prefill_steps, "prefill pass", "prefill passes");
            zh += "，" + count_text(b.prefill_steps) + " 次预填充";
        }
        if (b.decode_steps > 0) {
            en += ", " + plural(b.decode_steps, "decode step", "decode steps");
            zh += "，" + count_text(b.decode_steps) + " 个解码步";
        }
    } else {
        en += ", no steps found";
        zh += "，未找到步";
    }
    if (b.short_capture) {
        en += ": a sample of the run, and the verdict holds for what it saw.";
        zh += "：只是运行的一个样本，结论只对所见部分成立。";
    } else {
        en += ".";
        zh += "。";
    }
    b.text = {en, zh};
    return b;
}

} // namespace

bool is_kernel_mix_class(const std::string& id)
{
    return is_mix_class(id);
}

// A finding's subject for people: an operator-class scope "gemm (decode)" -> "GEMM / GEMV (decode)" (解码 in
// Chinese), a phase scope by its phase word; kernel names, devices and "trace" as they are.
LocalText subject_words(ScopeKind scope, const std::string& subject, const OpClassResult& classes)
{
    auto phase = [](const std::string& p) -> LocalText {
        if (p == "decode")
            return {"decode", "解码"};
        if (p == "prefill")
            return {"prefill", "预填充"};
        if (p == "mixed")
            return {"mixed steps", "混合步"};
        if (p == "training")
            return {"training", "训练"};
        return {p, p};
    };
    if (scope == ScopeKind::Phase)
        return phase(subject);
    if (scope == ScopeKind::Trace)
        return {"whole trace", "整个 trace"};
    if (scope != ScopeKind::OpClass)
        return {subject, subject};
    std::string id = subject, ph;
    if (const size_t open = id.find(" ("); open != std::string::npos && id.back() == ')') {
        ph = id.substr(open + 2, id.size() - open - 3);
        id.resize(open);
    }
    LocalText t{id, id};
    for (const auto& c : classes.classes)
        if (c.id == id)
            t = {c.label_for("en"), c.label_for("zh_CN")};
    if (!ph.empty()) {
        const LocalText p = phase(ph);
        t.en += " (" + p.en + ")";
        t.zh_CN += "（" + p.zh_CN + "）";
    }
    return t;
}

double elementwise_copy_kernel_ns(const Trace& trace, const AnalysisResult& an)
{
    std::vector<bool> mix(an.classes.classes.size(), false);
    for (size_t c = 0; c < mix.size(); ++c)
        mix[c] = is_mix_class(an.classes.classes[c].id);
    double ns = 0;
    for (size_t i = 0; i < trace.kernels.size() && i < an.classes.kernel_class.size(); ++i) {
        const int c = an.classes.kernel_class[i];
        if (c >= 0 && static_cast<size_t>(c) < mix.size() && mix[static_cast<size_t>(c)])
            ns += double(trace.kernels.end[i] - trace.kernels.start[i]);
    }
    return ns;
}

Headline make_headline(const Trace& trace, const AnalysisResult& an, const std::vector<Finding>& findings,
                       const HeadlineOptions& opt)
{
    Headline h;
    for (const auto& d : an.idle.devices) {
        h.wall_ns += double(d.window_ns);
        h.busy_ns += double(d.busy_ns);
        h.idle_ns += double(d.idle_ns);
        h.host_wait_ns += double(d.breakdown.ns[0]);
        h.kernel_wait_ns += double(d.breakdown.ns[1]);
        h.sync_wait_ns += double(d.breakdown.ns[2]);
        h.other_wait_ns += double(d.breakdown.ns[3]);
        h.dependency_wait_ns += double(d.breakdown.ns[4]);
    }
    for (const auto& o : an.overlap.devices)
        h.comm_exposed_ns += double(o.comm.time_ns) * (1.0 - std::max(0.0, o.comm.hidden_fraction));
    h.launch_api_ns = double(an.launch.launch_api_ns);
    h.kernel_ns = double(an.classes.kernel_time_ns);

    // Kernel mix: kernel time only (the memcpy_memset class also holds DMA copy rows, which are not kernels).
    std::vector<double> class_kernel_ns(an.classes.classes.size(), 0.0);
    for (size_t i = 0; i < trace.kernels.size() && i < an.classes.kernel_class.size(); ++i) {
        const int c = an.classes.kernel_class[i];
        if (c >= 0 && static_cast<size_t>(c) < class_kernel_ns.size())
            class_kernel_ns[static_cast<size_t>(c)] += double(trace.kernels.end[i] - trace.kernels.start[i]);
    }
    std::vector<std::pair<double, std::string>> mix;
    for (size_t c = 0; c < an.classes.classes.size(); ++c)
        if (is_mix_class(an.classes.classes[c].id) && class_kernel_ns[c] > 0) {
            mix.emplace_back(class_kernel_ns[c], an.classes.classes[c].id);
            h.kernel_mix.ns += class_kernel_ns[c];
        }
    std::sort(mix.rbegin(), mix.rend());
    if (h.kernel_ns > 0)
        h.kernel_mix.fraction = std::min(1.0, h.kernel_mix.ns / h.kernel_ns);
    for (const auto& [ns, id] : mix)
        h.kernel_mix.classes.push_back(id + " " + ms(ns));
    h.kernel_mix.dominant = h.kernel_mix.fraction >= opt.mix_fraction;
    if (h.kernel_mix.dominant && an.workload.torch_compile.detected) {
        // A compiled run is not told to compile: what is left is what Inductor did not fuse.
        h.kernel_mix.story.en = "Elementwise, copy and normalisation kernels take " + pct(h.kernel_mix.fraction) +
                                " of GPU kernel time (" + ms(h.kernel_mix.ns) +
                                ") although the run is compiled (torch.compile): they are what Inductor left unfused "
                                "(graph breaks, fallbacks, whole-buffer copies of functionalised in-place updates).";
        h.kernel_mix.story.zh_CN = "逐元素、拷贝和归一化类内核占 GPU 内核时间的 " + pct(h.kernel_mix.fraction) + "（" +
                                   ms(h.kernel_mix.ns) +
                                   "），而本次运行已经编译（torch.compile）：它们是 Inductor 未能融合的部分（图中断、回退、"
                                   "函数化原地更新产生的整块缓冲区拷贝）。";
    } else if (h.kernel_mix.dominant) {
        h.kernel_mix.story.en = "Elementwise, copy and normalisation kernels take " + pct(h.kernel_mix.fraction) +
                                " of GPU kernel time (" + ms(h.kernel_mix.ns) +
                                "): they move bytes rather than compute, so fusing them (torch.compile, fused "
                                "kernels, CUDA graphs with fused kernels) removes most of that time.";
        h.kernel_mix.story.zh_CN = "逐元素、拷贝和归一化类内核占 GPU 内核时间的 " + pct(h.kernel_mix.fraction) + "（" +
                                   ms(h.kernel_mix.ns) +
                                   "）：它们搬运数据而非计算，融合它们（torch.compile、融合内核、配合融合内核的 CUDA "
                                   "Graphs）可去掉其中大部分时间。";
    }

    // Bound, judged on the steady state: the idle that start-up causes cover (the host compiling, autotuning,
    // loading modules, allocating: host_causes.h) is taken out of the wall, the idle and the host wait (it is all
    // host-wait idle) for the judgement, and put back after it.
    fill_host_causes(h, an);
    const double startup = std::clamp(h.startup_idle_ns, 0.0, h.host_wait_ns);
    const double wall_all = h.wall_ns;
    h.wall_ns -= startup;
    h.idle_ns -= startup;
    h.host_wait_ns -= startup;
    // One stall that dominates the window: said as such, and the bound is the rest's.
    const double W = h.wall_ns;
    const CaptureEdgeIdle& edge = an.capture_edge;
    if (W > 0 && !an.idle.gaps.empty()) {
        const Gap* top = &an.idle.gaps.front();
        for (const Gap& g : an.idle.gaps)
            if (g.duration() > top->duration())
                top = &g;
        const double d = double(top->duration());
        // A host-wait gap that start-up causes cover (the host compiling before the first kernel) is start-up,
        // already taken out of W above and said as such below: not a stall of the steady state.
        const bool startup_gap = startup > 0 && top->cause == GapCause::HostWait && startup >= 0.5 * d;
        if (!startup_gap && d < W && d >= opt.stall_idle_share * h.idle_ns && d >= opt.idle_fraction * W)
            h.stall = describe_stall(trace, an, *top, W,
                                     is_capture_edge_gap(edge, static_cast<uint32_t>(top - an.idle.gaps.data())));
    }
    // Bound, over the window without the dominant stall (the whole window when there is none).
    double bw = W, b_idle = h.idle_ns, b_host = h.host_wait_ns, b_kernel = h.kernel_wait_ns, b_sync = h.sync_wait_ns,
           b_other = h.other_wait_ns, b_dep = h.dependency_wait_ns;
    if (h.stall.dominant) {
        const double d = double(h.stall.end - h.stall.start);
        bw -= d;
        b_idle -= d;
        double* bucket = h.stall.cause == "host_wait"         ? &b_host
                         : h.stall.cause == "kernel_wait"     ? &b_kernel
                         : h.stall.cause == "sync_wait"       ? &b_sync
                         : h.stall.cause == "dependency_wait" ? &b_dep
                                                              : &b_other;
        *bucket = std::max(0.0, *bucket - d);
        h.stall.rest_wall_ns = bw;
        h.stall.rest_busy_ns = h.busy_ns;
    }
    // ... and without the capture's other edge idle (the stall's share of it is out already), as the ledger grants
    // none of it.
    {
        double* buckets[kGapCauses] = {&b_host, &b_kernel, &b_sync, &b_other, &b_dep};
        for (size_t c = 0; c < kGapCauses; ++c) {
            double e = double(edge.ns[c]);
            if (h.stall.dominant && h.stall.capture_edge && h.stall.cause == gap_cause_name(static_cast<GapCause>(c)))
                e -= double(h.stall.end - h.stall.start);
            e = std::clamp(e, 0.0, *buckets[c]);
            *buckets[c] -= e;
            bw -= e;
            b_idle -= e;
        }
    }
    if (bw <= 0 || h.kernel_ns <= 0) {
        h.bound = "unknown";
        h.verdict = "unknown";
    } else {
        const double idle_f = b_idle / bw, comm_f = h.comm_exposed_ns / bw;
        const double launch_wait = b_host + b_kernel;
        // GPU-bound: memory when the small byte-moving kernels dominate or the run is mostly decode, else compute.
        auto gpu_bound = [&] {
            double decode_ns = 0, all_ns = 0;
            for (const auto& s : an.phases.steps) {
                all_ns += double(s.end - s.start);
                if (!s.prefill && (!s.mixed || s.decode_dominated()))
                    decode_ns += double(s.end - s.start);
            }
            const bool decode_dominant = all_ns > 0 && decode_ns / all_ns >= 0.5;
            if (h.kernel_mix.fraction >= 0.5 || decode_dominant) {
                h.bound = "gpu-memory";
                h.verdict = "memory-bound";
            } else {
                h.bound = "gpu-compute";
                h.verdict = "compute-bound";
            }
        };
        if (comm_f >= opt.comm_fraction && h.comm_exposed_ns > b_idle) {
            h.bound = "communication";
            h.verdict = "communication-bound";
        } else if (idle_f >= opt.idle_fraction) {
            if (launch_wait >= b_sync && launch_wait >= b_other && launch_wait >= b_dep) {
                h.bound = "host";
                h.verdict = "host-bound";
            } else if (b_dep >= b_sync && b_dep >= b_other) {
                h.bound = "dependency";
                h.verdict = "dependency-bound";
            } else if (b_sync >= b_other) {
                h.bound = "sync";
                h.verdict = "sync-bound";
            } else {
                h.bound = "unknown";
                h.verdict = "idle-gaps";
            }
        } else if (idle_f >= opt.balanced_fraction) {
            // Mostly busy, but idling noticeably: when one cause holds most of the time the GPU does not compute
            // (its idle plus its exposed communication) and is itself a sizeable share of the wall, that cause is
            // what limits the run — a sync every step leaves the GPU 88 % busy yet waiting on the host each step.
            // Otherwise (the causes spread out, or the largest is "other", which the trace cannot explain) it is
            // balanced.
            // Here kernel wait (a gap shorter than the threshold before a kernel that was already launched when the
            // stream drained) is the GPU's own per-kernel launch latency, not the host's: a CUDA-graph replay 89 %
            // busy whose gaps all lie between graph nodes, with the host steps ahead, is GPU-bound; fewer, larger
            // kernels are its remedy (the kernel-mix story and the launch findings say so, with their own gains).
            const std::pair<double, const char*> causes[] = {{b_host, "host"},
                                                             {b_kernel, "gpu"},
                                                             {b_sync, "sync"},
                                                             {h.comm_exposed_ns, "communication"},
                                                             {b_dep, "dependency"},
                                                             {b_other, "other"}};
            const auto* top = &causes[0];
            for (const auto& c : causes)
                if (c.first > top->first)
                    top = &c;
            const double not_computing = b_idle + h.comm_exposed_ns;
            const bool dominant = top->first >= opt.cause_fraction * bw && top->first >= 0.5 * not_computing;
            const std::string cause = top->second;
            if (dominant && cause == "host" && h.busy_ns >= opt.steady_busy_fraction * bw) {
                // The host holds the largest share of little idle (an eager prefill before a graph replay), but the
                // GPU is busy at least steady_busy_fraction of the steady state: nothing says the host limits it.
                gpu_bound();
            } else if (dominant && cause == "host") {
                h.bound = "host";
                h.verdict = "host-bound";
            } else if (dominant && cause == "sync") {
                h.bound = "sync";
                h.verdict = "sync-bound";
            } else if (dominant && cause == "communication") {
                h.bound = "communication";
                h.verdict = "communication-bound";
            } else if (dominant && cause == "dependency") {
                h.bound = "dependency";
                h.verdict = "dependency-bound";
            } else if (dominant && cause == "gpu") {
                gpu_bound();
            } else {
                h.bound = "balanced";
                h.verdict = "balanced";
            }
        } else {
            gpu_bound();
        }
    }
    h.wall_ns = wall_all;
    h.idle_ns += startup;
    h.host_wait_ns += startup;
    // Start-up as the verdict: it holds cause_fraction of the wall and at least half of the time the GPU does not
    // compute (the compile before the first kernel of a JIT-compiled run).
    const HeadlineHostCause* startup_cause = nullptr;
    if (!h.host_causes.empty() && startup > 0 && startup >= opt.cause_fraction * wall_all &&
        startup >= 0.5 * (h.idle_ns + h.comm_exposed_ns)) {
        startup_cause = &h.host_causes.front();
        h.bound = "host";
        h.verdict = startup_cause->verdict;
    }

    // Actions: the top findings (already ranked by bounded gain x confidence), distinct suggestions, one per time
    // they remove: findings sharing a pool (the gaps, the idle fraction and the low-utilisation chunks of one idle
    // time) are three views of the same seconds, and three actions for them would read as three separate wins.
    std::set<std::string> seen, pools;
    for (const auto& f : findings) {
        if (h.actions.size() >= 3)
            break;
        if (f.severity == Severity::Info)
            continue;
        HeadlineAction a;
        a.rule = f.rule;
        a.verdict = f.verdict;
        a.subject = f.subject;
        a.severity = severity_name(f.severity);
        if (!f.suggestions.empty()) {
            // The remedy (the first suggestion that promises a gain), not a profiling step that removes nothing: the
            // action's gain is its gain (the ledger ends its range at the bounded gain: one number).
            const Suggestion* sg = &f.suggestions[0];
            for (const auto& x : f.suggestions)
                if (x.gain_high > 0) {
                    sg = &x;
                    break;
                }
            a.suggestion = f.rule + "/" + sg->id;
            a.text = sg->text;
            a.verify = sg->verify;
        } else {
            a.text = f.title;
        }
        if (!seen.insert(a.text.en + "|" + a.subject).second)
            continue;
        a.gain_fraction = f.expected_gain.fraction;
        a.gain_ns = f.expected_gain.ns.value_or(0);
        a.subject_text = subject_words(f.scope, f.subject, an.classes);
        if (f.scope == ScopeKind::HostCause)   // the cause in words ("JIT compilation"), not its id
            for (const auto& c : an.host_causes.causes)
                if (c.id == f.subject)
                    a.subject_text = {c.label, c.label_zh_CN};
        // The same advice for another subject is one action, not two that read alike (issue 37 §8: the GEMM
        // Tensor Core advice for GEMM and for attention in prefill): it names both subjects and keeps the larger
        // bounded gain with the time that gain removes.
        if (auto same = std::find_if(h.actions.begin(), h.actions.end(),
                                     [&](const HeadlineAction& x) { return x.text.en == a.text.en; });
            same != h.actions.end()) {
            same->merged_subjects.push_back(a.subject);
            same->subject_text.en += "; " + a.subject_text.en;
            same->subject_text.zh_CN += "；" + a.subject_text.zh_CN;
            const bool pool_free = !f.expected_gain.ledger || !pools.count(f.expected_gain.ledger->entry);
            if (a.gain_ns > same->gain_ns && pool_free) {
                same->gain_fraction = a.gain_fraction;
                same->gain_ns = a.gain_ns;
                if (f.expected_gain.ledger) {
                    pools.insert(f.expected_gain.ledger->entry);
                    same->removes = f.expected_gain.ledger->entry;
                    same->removes_text = ledger_entry_words(same->removes, &an.classes);
                }
            }
            continue;
        }
        if (f.expected_gain.ledger) {
            if (!pools.insert(f.expected_gain.ledger->entry).second)
                continue;
            a.removes = f.expected_gain.ledger->entry;
            a.removes_text = ledger_entry_words(a.removes, &an.classes);
        }
        a.confidence = f.confidence.value;
        a.confidence_label = f.confidence.label.empty() ? confidence_label(f.confidence.value) : f.confidence.label;
        h.actions.push_back(std::move(a));
    }

    // Statement.
    static const std::map<std::string, std::pair<std::string, std::string>> what = {
        {"host", {"host-bound: the GPU waits for the CPU to issue work", "受主机限制：GPU 在等待 CPU 下发工作"}},
        {"sync", {"sync-bound: the GPU idles while the host blocks in synchronisations",
                  "受同步限制：主机阻塞于同步时 GPU 空闲"}},
        {"communication", {"communication-bound: exposed communication holds the GPU",
                           "受通信限制：未被隐藏的通信占用了 GPU"}},
        {"balanced", {"balanced: the GPU is mostly busy but idles noticeably", "较均衡：GPU 大部分时间忙碌，但有明显空闲"}},
        {"gpu-memory", {"GPU-bound (memory): kernels limited by memory traffic hold the GPU",
                        "受 GPU 限制（访存）：受显存带宽限制的内核占满 GPU"}},
        {"gpu-compute", {"GPU-bound (compute): the GPU is busy with compute kernels", "受 GPU 限制（计算）：GPU 忙于计算内核"}},
        {"dependency", {"dependency-bound: queued work waits on events of other streams",
                        "受依赖限制：已入队的工作在等待其他流的事件"}},
        {"unknown", {"undetermined: the trace does not say what the GPU waited on, or has no kernels",
                     "无法判定：trace 未说明 GPU 在等待什么，或没有内核"}}};
    auto w = what.at(h.bound);
    if (startup_cause) {
        static const std::map<std::string, std::pair<std::string, std::string>> does = {
            {"compilation", {"compiles kernels", "编译内核"}},
            {"autotuning", {"autotunes kernels", "自动调优内核"}},
            {"module_loading", {"loads modules", "加载模块"}},
            {"allocator", {"allocates device memory", "分配显存"}}};
        const auto it = does.find(startup_cause->id);
        const std::pair<std::string, std::string> verb =
            it != does.end() ? it->second : std::make_pair(std::string("is busy"), std::string("忙碌"));
        w = {"host-bound by " + startup_cause->label.en + ": the GPU waits while the host " + verb.first,
             "受主机端" + zh_word(startup_cause->label.zh_CN) + "限制：主机" + verb.second + "时 GPU 在等待"};
    }
    std::string en, zh;
    // Idle by cause; dependency wait only where there is some (most traces have none).
    std::string causes_en = "host wait " + ms(h.host_wait_ns) + ", kernel wait " + ms(h.kernel_wait_ns) +
                            ", sync wait " + ms(h.sync_wait_ns) + ", other " + ms(h.other_wait_ns);
    std::string causes_zh = "主机等待 " + ms(h.host_wait_ns) + "，内核等待 " + ms(h.kernel_wait_ns) + "，同步等待 " +
                            ms(h.sync_wait_ns) + "，其他 " + ms(h.other_wait_ns);
    if (h.dependency_wait_ns > 0) {
        causes_en += ", dependency wait " + ms(h.dependency_wait_ns);
        causes_zh += "，依赖等待 " + ms(h.dependency_wait_ns);
    }
    if (wall_all > 0 && h.stall.dominant) {
        const double W = wall_all;
        // "One 493 ms stall before the step …; the step itself is GPU-bound (compute) …": the stall is a fact of the
        // capture, not what bounds the work around it.
        const HeadlineStall& st = h.stall;
        const double rest = st.rest_wall_ns;
        const bool one_step = an.phases.steps.size() == 1;
        const std::string itself_en = st.step >= 0 ? (one_step ? "The step itself is " : "The steps themselves are ")
                                                    : "The rest of the run is ";
        const std::string itself_zh = st.step >= 0 ? (one_step ? "该步本身" : "各步本身") : "其余部分";
        // The bound's name alone ("GPU-bound (compute)"), then the busy share without the stall.
        const std::string bound_en = w.first.substr(0, w.first.find(':'));
        const std::string bound_zh = w.second.substr(0, w.second.find("："));
        en = st.statement.en + " " + itself_en + bound_en + " at " + pct(rest > 0 ? h.busy_ns / rest : 0.0) +
             " busy over the other " + ms(rest) + ". Over the whole " + ms(W) + " window the GPU is busy " +
             pct(h.busy_ns / W) + "; idle " + ms(h.idle_ns) + " (" + causes_en + ").";
        zh = st.statement.zh_CN + itself_zh + bound_zh + "：在其余 " + ms(rest) + " 中 GPU 忙碌 " +
             pct(rest > 0 ? h.busy_ns / rest : 0.0) + "。整个 " + ms(W) + " 窗口中 GPU 忙碌 " + pct(h.busy_ns / W) +
             "；空闲 " + ms(h.idle_ns) + "（" + causes_zh + "）。";
    } else if (wall_all > 0) {
        const double W = wall_all;
        en = "The run is " + w.first + ". The GPU is busy " + pct(h.busy_ns / W) + " of " + ms(W) + "; idle " +
             ms(h.idle_ns) + " (" + causes_en + ").";
        zh = "本次运行" + w.second + "。GPU 在 " + ms(W) + " 中忙碌 " + pct(h.busy_ns / W) + "；空闲 " + ms(h.idle_ns) +
             "（" + causes_zh + "）。";
        if (h.launch_api_ns > h.busy_ns && h.bound == "host") {
            en += " The CPU spends " + ms(h.launch_api_ns) + " in launch calls to issue " + ms(h.busy_ns) +
                  " of GPU work.";
            zh += " CPU 花费 " + ms(h.launch_api_ns) + " 调用启动接口，只下发了 " + ms(h.busy_ns) + " 的 GPU 工作。";
        }
        if (h.comm_exposed_ns > 0) {
            en += " Exposed communication: " + ms(h.comm_exposed_ns) + ".";
            zh += " 未隐藏的通信：" + ms(h.comm_exposed_ns) + "。";
        }
        // Start-up causes, with their ranges and calls as evidence, and the steady state without them.
        for (const auto& c : h.host_causes) {
            if (c.idle_ns < opt.startup_fraction * W && c.before_gpu_ns < opt.startup_fraction * W)
                continue;
            std::string ev;
            for (size_t i = 0; i < c.evidence.size() && i < 3; ++i)
                ev += (i ? "; " : "") + c.evidence[i];
            if (c.idle_ns > 0) {
                en += " The GPU idles " + ms(c.idle_ns) + " (" + pct(c.idle_ns / W) + " of the wall) while the host is in " +
                      c.label.en + " (" + ev + ").";
                zh += " 主机处于" + zh_word(c.label.zh_CN) + "期间 GPU 空闲 " + ms(c.idle_ns) + "（占墙钟时间的 " +
                      pct(c.idle_ns / W) + "）（" + ev + "）。";
            }
            if (c.before_gpu_ns > 0) {
                en += " Before the first GPU operation the host spends " + ms(c.before_gpu_ns) + " in " + c.label.en +
                      (c.idle_ns > 0 ? "" : " (" + ev + ")") + ", outside the GPU-active window.";
                zh += " 在第一个 GPU 操作之前，主机在" + zh_word(c.label.zh_CN) + "上花费 " + ms(c.before_gpu_ns) +
                      (c.idle_ns > 0 ? "" : "（" + ev + "）") + "，位于 GPU 活动窗口之外。";
            }
        }
        if (startup >= opt.startup_fraction * W && W > startup) {
            const double steady = W - startup;
            en += " The steady state is judged without it: there the GPU is busy " + pct(h.busy_ns / steady) + " of " +
                  ms(steady) + ".";
            zh += " 稳态的判定不计入这段时间：其中 GPU 在 " + ms(steady) + " 中忙碌 " + pct(h.busy_ns / steady) + "。";
        }
    } else {
        en = "The run is " + w.first + ": the trace has no GPU activity.";
        zh = "本次运行" + w.second + "：trace 中没有 GPU 活动。";
    }
    if (h.kernel_mix.dominant) {
        en += " " + h.kernel_mix.story.en;
        zh += h.kernel_mix.story.zh_CN;
    }
    // Suggestion texts end with a full stop; the sentence goes on.
    auto clause = [](const HeadlineAction& a, std::string& t_en, std::string& t_zh) {
        t_en = a.text.en;
        t_zh = a.text.get("zh_CN");
        while (!t_en.empty() && t_en.back() == '.')
            t_en.pop_back();
        for (const std::string stop : {"。", "."})
            while (t_zh.size() >= stop.size() && t_zh.compare(t_zh.size() - stop.size(), stop.size(), stop) == 0)
                t_zh.resize(t_zh.size() - stop.size());
        if (a.subject != "trace") {
            t_en += " (" + a.subject_text.en + ")";
            t_zh += "（" + a.subject_text.get("zh_CN") + "）";
        }
    };
    // The largest bounded gain is the action that removes the most time, not the first one: a check that comes
    // first (the configuration before anything else) removes none, and is said as what to do first.
    const HeadlineAction* best = nullptr;
    for (const auto& a : h.actions)
        if (a.gain_fraction > 0 && (!best || a.gain_fraction > best->gain_fraction))
            best = &a;
    if (!h.actions.empty() && h.actions.front().gain_fraction <= 0) {
        std::string t_en, t_zh;
        clause(h.actions.front(), t_en, t_zh);
        en += " First: " + t_en + ".";
        zh += " 首先：" + t_zh + "。";
    }
    if (best) {
        std::string t_en, t_zh;
        clause(*best, t_en, t_zh);
        en += " The largest bounded gain: " + t_en + ", up to " + pct(best->gain_fraction) + " of wall time (" +
              ms(best->gain_ns) + ").";
        zh += " 最大的有界收益：" + t_zh + "，至多墙钟时间的 " + pct(best->gain_fraction) + "（" + ms(best->gain_ns) +
              "）。";
    } else {
        en += " No finding promises a measurable gain.";
        zh += " 没有发现能带来可测收益。";
    }
    h.evidence_base = evidence_base(trace, an, opt);
    en += " " + h.evidence_base.text.en;
    zh += " " + h.evidence_base.text.zh_CN;
    h.statement.en = en;
    h.statement.zh_CN = zh;
    return h;
}

namespace {

nlohmann::json stall_json(const HeadlineStall& s)
{
    using nlohmann::json;
    if (!s.dominant)
        return json();
    auto opt = [](const std::optional<int64_t>& v) { return v ? json(*v) : json(); };
    auto str = [](const std::string& v) { return v.empty() ? json() : json(v); };
    return json{{"start_ns", s.start},
                {"duration_ns", s.end - s.start},
                {"device", s.device},
                {"cause", s.cause},
                {"position", str(s.position)},
                {"step", s.step >= 0 ? json(s.step) : json()},
                {"next_op", s.next_op},
                {"launched_after_ns", opt(s.launched_after_ns)},
                {"queued_ns", opt(s.queued_ns)},
                {"launch_call", str(s.launch_call)},
                {"wait_call", str(s.wait_call)},
                {"blocking_call", str(s.blocking_call)},
                {"blocking_overlap_ns", s.blocking_overlap_ns},
                {"share_of_wall", s.share_of_wall},
                {"capture_edge", s.capture_edge},
                {"rest_wall_ns", s.rest_wall_ns},
                {"statement", json{{"en", s.statement.en}, {"zh_CN", s.statement.zh_CN}}}};
}

} // namespace

nlohmann::json headline_to_json(const Headline& h)
{
    using nlohmann::json;
    json actions = json::array();
    for (const auto& a : h.actions) {
        actions.push_back(json{{"rule", a.rule},
                               {"verdict", a.verdict},
                               {"subject", a.subject},
                               {"severity", a.severity},
                               {"suggestion", a.suggestion.empty() ? json() : json(a.suggestion)},
                               {"text", json{{"en", a.text.en}, {"zh_CN", a.text.zh_CN}}},
                               {"gain_fraction", a.gain_fraction},
                               {"gain_ns", a.gain_ns},
                               {"removes", a.removes},
                               {"removes_text", json{{"en", a.removes_text.en}, {"zh_CN", a.removes_text.zh_CN}}},
                               {"subject_text", json{{"en", a.subject_text.en}, {"zh_CN", a.subject_text.zh_CN}}},
                               {"confidence", a.confidence},
                               {"confidence_label", a.confidence_label},
                               {"verify", a.verify}});
        if (!a.merged_subjects.empty())   // only then: one more key, not an empty list on every action
            actions.back()["merged_subjects"] = a.merged_subjects;
    }
    json mix{{"fraction", h.kernel_mix.fraction},
             {"ns", h.kernel_mix.ns},
             {"classes", h.kernel_mix.classes},
             {"dominant", h.kernel_mix.dominant}};
    mix["story"] = h.kernel_mix.dominant ? json{{"en", h.kernel_mix.story.en}, {"zh_CN", h.kernel_mix.story.zh_CN}}
                                         : json();
    json causes = json::array();
    for (const auto& c : h.host_causes)
        causes.push_back(json{{"id", c.id},
                              {"verdict", c.verdict},
                              {"label", json{{"en", c.label.en}, {"zh_CN", c.label.zh_CN}}},
                              {"idle_ns", c.idle_ns},
                              {"host_ns", c.host_ns},
                              {"before_gpu_ns", c.before_gpu_ns},
                              {"evidence", c.evidence}});
    const auto& b = h.evidence_base;
    json base{{"capture_ns", b.capture_ns},
              {"kernels", b.kernels},
              {"prefill_steps", b.prefill_steps},
              {"decode_steps", b.decode_steps},
              {"training_iterations", b.training_iterations},
              {"short_capture", b.short_capture},
              {"text", json{{"en", b.text.en}, {"zh_CN", b.text.zh_CN}}}};
    return json{{"bound", h.bound},
                {"verdict", h.verdict},
                {"startup_idle_ns", h.startup_idle_ns},
                {"host_causes", causes},
                {"evidence_base", base},
                {"statement", json{{"en", h.statement.en}, {"zh_CN", h.statement.zh_CN}}},
                {"wall_ns", h.wall_ns},
                {"busy_ns", h.busy_ns},
                {"idle_ns", h.idle_ns},
                {"idle_by_cause", json{{"host_wait_ns", h.host_wait_ns},
                                       {"kernel_wait_ns", h.kernel_wait_ns},
                                       {"sync_wait_ns", h.sync_wait_ns},
                                       {"other_wait_ns", h.other_wait_ns},
                                       {"dependency_wait_ns", h.dependency_wait_ns}}},
                {"stall", stall_json(h.stall)},
                {"comm_exposed_ns", h.comm_exposed_ns},
                {"launch_api_ns", h.launch_api_ns},
                {"kernel_ns", h.kernel_ns},
                {"kernel_mix", mix},
                {"actions", actions}};
}

std::string headline_to_text(const Headline& h, std::string_view lang)
{
    std::ostringstream o;
    o << "Headline: " << h.bound << " (" << h.verdict << ")\n" << h.statement.get(lang) << "\n";
    int i = 0;
    for (const auto& a : h.actions)
        o << "  " << ++i << ". " << a.text.get(lang) << " [" << a.subject_text.get(lang) << "] — up to "
          << pct(a.gain_fraction) << " of wall (" << ms(a.gain_ns) << ")"
          << (a.removes.empty() ? std::string() : ", removes " + a.removes_text.get(lang)) << "\n";
    return o.str();
}

} // namespace sl
