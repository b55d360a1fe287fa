#!/usr/bin/env python3
"""Records Sightline's own real samples on a GPU machine (the `device` tool; see tests/device/README.md).

A small Llama-shaped decoder written in plain PyTorch (the same operators Hugging Face's eager Llama runs: RMSNorm
as pow/mean/rsqrt/mul, rotary embedding, GQA attention through scaled_dot_product_attention, SwiGLU MLP, lm_head),
random bf16 weights, a static KV cache. Modes:

  prefill       batch --prefill-batch, --prompt tokens, one forward per profiler step
  decode-eager  batch --batch, one token per step, every kernel launched from Python (as HF generate does)
  decode-graph  the same decode step captured once in a CUDA graph and replayed (as vLLM / SGLang do); the capture
                is profiled too, into DIR/capture_traces/ with execution_details.json (as vLLM and SGLang keep it)

Each profiled mode writes DIR/<mode>.pt.trace.json.gz through torch.profiler (CPU + CUDA, record_shapes=True,
ProfilerStep#N per step), and config.json (Hugging Face format) describes the model for Sightline's Roofline.
--no-profile runs the same work without the profiler (the command that `sightline-cli deep-dive` runs under ncu).
--device cpu runs a smoke test of the script itself (no CUDA graph mode).
"""
import argparse
import gzip
import json
import os
import shutil
import sys
import time

import torch
import torch.nn.functional as F

CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 2048,
    "intermediate_size": 5632,
    "num_hidden_layers": 8,
    "num_attention_heads": 16,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "vocab_size": 32000,
    "max_position_embeddings": 4096,
    "rms_norm_eps": 1e-5,
    "rope_theta": 10000.0,
    "hidden_act": "silu",
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}


# The same attention and vocabulary, a Mixtral-shaped MoE MLP in 4 layers: 8 experts of width 1408, top-2.
MOE_CONFIG = {
    **CONFIG,
    "architectures": ["MixtralForCausalLM"],
    "model_type": "mixtral",
    "intermediate_size": 1408,
    "num_hidden_layers": 4,
    "num_local_experts": 8,
    "num_experts_per_tok": 2,
}


class TinyLlama:
    def __init__(self, cfg, batch, max_len, device, dtype, train=False):
        g = torch.Generator(device="cpu").manual_seed(0)
        self.experts = cfg.get("num_local_experts", 0)
        self.top_k = cfg.get("num_experts_per_tok", 0)
        h, inter = cfg["hidden_size"], cfg["intermediate_size"]
        self.nh, self.nkv, self.hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
        self.eps = cfg["rms_norm_eps"]
        self.batch, self.max_len, self.device, self.dtype = batch, max_len, device, dtype

        def w(*shape):
            t = (torch.randn(*shape, generator=g) * 0.02).to(device=device, dtype=dtype)
            return t.requires_grad_(True) if train else t

        self.embed = w(cfg["vocab_size"], h)
        self.layers = []
        for _ in range(cfg["num_hidden_layers"]):
            self.layers.append({
                "ln1": torch.ones(h, device=device, dtype=dtype),
                "q": w(self.nh * self.hd, h), "k": w(self.nkv * self.hd, h), "v": w(self.nkv * self.hd, h),
                "o": w(h, self.nh * self.hd),
                "ln2": torch.ones(h, device=device, dtype=dtype),
                **({"router": w(self.experts, h),
                    "experts": [{"gate": w(inter, h), "up": w(inter, h), "down": w(h, inter)}
                                for _ in range(self.experts)]}
                   if self.experts else {"gate": w(inter, h), "up": w(inter, h), "down": w(h, inter)}),
                "k_cache": torch.zeros(batch, self.nkv, max_len, self.hd, device=device, dtype=dtype),
                "v_cache": torch.zeros(batch, self.nkv, max_len, self.hd, device=device, dtype=dtype),
            })
        self.norm = torch.ones(h, device=device, dtype=dtype)
        self.lm_head = w(cfg["vocab_size"], h)
        inv = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, self.hd, 2, dtype=torch.float32) / self.hd))
        freqs = torch.outer(torch.arange(max_len, dtype=torch.float32), inv)
        emb = torch.cat([freqs, freqs], dim=-1)
        self.cos = emb.cos().to(device=device, dtype=dtype)
        self.sin = emb.sin().to(device=device, dtype=dtype)

    def rmsnorm(self, x, weight):
        xf = x.to(torch.float32)
        var = xf.pow(2).mean(-1, keepdim=True)
        return weight * (xf * torch.rsqrt(var + self.eps)).to(x.dtype)

    @staticmethod
    def rotate_half(x):
        half = x.shape[-1] // 2
        return torch.cat((-x[..., half:], x[..., :half]), dim=-1)

    def rope(self, x, cos, sin):
        return x * cos + self.rotate_half(x) * sin

    def repeat_kv(self, x):
        n = self.nh // self.nkv
        if n == 1:
            return x
        b, kv, s, d = x.shape
        return x[:, :, None, :, :].expand(b, kv, n, s, d).reshape(b, kv * n, s, d)

    def attention(self, q, k, v, mask, causal):
        if hasattr(F, "scaled_dot_product_attention"):
            return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)
        # torch < 2.0 (the CPU smoke test on Debian's python3-torch only)
        s = (q @ k.transpose(-1, -2)) / (q.shape[-1] ** 0.5)
        if causal:
            n = q.shape[-2]
            s = s.masked_fill(torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        return torch.softmax(s.float(), dim=-1).to(q.dtype) @ v

    def mlp(self, L, h):
        if not self.experts:
            return F.linear(F.silu(F.linear(h, L["gate"])) * F.linear(h, L["up"]), L["down"])
        # Hugging Face's eager Mixtral sparse block: router softmax, top-k, then one pass per expert over the tokens
        # routed to it (torch.where on the expert mask: a host sync per expert), index_add_ back.
        b, s, d = h.shape
        x = h.reshape(-1, d)
        probs = torch.softmax(F.linear(x, L["router"]).float(), dim=-1)
        weights, chosen = torch.topk(probs, self.top_k, dim=-1)
        weights = (weights / weights.sum(dim=-1, keepdim=True)).to(x.dtype)
        out = torch.zeros_like(x)
        mask = F.one_hot(chosen, num_classes=self.experts).permute(2, 1, 0)
        for e, E in enumerate(L["experts"]):
            slot, tok = torch.where(mask[e])
            if tok.numel() == 0:
                continue
            xe = x[tok]
            ye = F.linear(F.silu(F.linear(xe, E["gate"])) * F.linear(xe, E["up"]), E["down"])
            out.index_add_(0, tok, ye * weights[tok, slot, None])
        return out.reshape(b, s, d)

    def forward(self, tokens, pos, prefill, all_logits=False, cache=True):
        """tokens [B, S]; pos: a [S] int64 tensor of positions (decode: [1], on the device, so the step is
        graph-capturable). Returns the next token per sequence [B, 1] (greedy, no host sync)."""
        b, s = tokens.shape
        x = F.embedding(tokens, self.embed)
        cos, sin = self.cos.index_select(0, pos), self.sin.index_select(0, pos)
        mask = None
        if not prefill:
            mask = (torch.arange(self.max_len, device=self.device) <= pos)[None, None, None, :]
        for L in self.layers:
            h = self.rmsnorm(x, L["ln1"])
            q = F.linear(h, L["q"]).view(b, s, self.nh, self.hd).transpose(1, 2)
            k = F.linear(h, L["k"]).view(b, s, self.nkv, self.hd).transpose(1, 2)
            v = F.linear(h, L["v"]).view(b, s, self.nkv, self.hd).transpose(1, 2)
            q, k = self.rope(q, cos, sin), self.rope(k, cos, sin)
            if cache:
                L["k_cache"].index_copy_(2, pos, k)
                L["v_cache"].index_copy_(2, pos, v)
            if prefill:
                o = self.attention(q, self.repeat_kv(k), self.repeat_kv(v), None, True)
            else:
                o = self.attention(q, self.repeat_kv(L["k_cache"]), self.repeat_kv(L["v_cache"]), mask, False)
            o = o.transpose(1, 2).reshape(b, s, self.nh * self.hd)
            x = x + F.linear(o, L["o"])
            h = self.rmsnorm(x, L["ln2"])
            x = x + self.mlp(L, h)
        x = self.rmsnorm(x if all_logits else x[:, -1:, :], self.norm)
        logits = F.linear(x, self.lm_head).float()
        return logits if all_logits else torch.argmax(logits, dim=-1)

    def parameters(self):
        out = [self.embed, self.norm, self.lm_head]
        for L in self.layers:
            for k, v in L.items():
                if k == "experts":
                    out += [t for E in v for t in E.values()]
                elif "cache" not in k:
                    out.append(v)
        return [p for p in out if p.requires_grad]


def profiler(args, steps, warmup):
    from torch.profiler import ProfilerActivity, profile, schedule
    acts = [ProfilerActivity.CPU]
    if args.device == "cuda":
        acts.append(ProfilerActivity.CUDA)
    return profile(activities=acts, record_shapes=True,
                   schedule=schedule(wait=1, warmup=warmup, active=steps, repeat=1))


def profiler_plain(args):
    """A profiler with no schedule: it records everything between start() and stop() (the graph's capture)."""
    from torch.profiler import ProfilerActivity, profile
    acts = [ProfilerActivity.CPU]
    if args.device == "cuda":
        acts.append(ProfilerActivity.CUDA)
    return profile(activities=acts, record_shapes=True, with_modules=True)


def save_capture(prof, out_dir, batch):
    cdir = os.path.join(out_dir, "capture_traces")
    os.makedirs(cdir, exist_ok=True)
    name = f"capture_{batch}_FULL.pt.trace.json"
    raw = os.path.join(cdir, name)
    prof.export_chrome_trace(raw)
    with open(raw, "rb") as f, gzip.open(raw + ".gz", "wb", compresslevel=9) as z:
        shutil.copyfileobj(f, z)
    os.remove(raw)
    with open(os.path.join(cdir, "execution_details.json"), "w") as f:
        json.dump([{"file": name + ".gz", "batch_size": batch, "mode": "FULL"}], f, indent=2)
        f.write("\n")
    print(f"capture: wrote {raw}.gz ({os.path.getsize(raw + '.gz')} bytes)", flush=True)


def save(prof, out_dir, mode):
    raw = os.path.join(out_dir, mode + ".pt.trace.json")
    prof.export_chrome_trace(raw)
    with open(raw, "rb") as f, gzip.open(raw + ".gz", "wb", compresslevel=9) as z:
        shutil.copyfileobj(f, z)
    os.remove(raw)
    print(f"{mode}: wrote {raw}.gz ({os.path.getsize(raw + '.gz')} bytes)", flush=True)


def sync(args):
    if args.device == "cuda":
        torch.cuda.synchronize()


def report(args, mode, prof, steps, t0):
    ms = (time.perf_counter() - t0) * 1e3 / steps
    print(f"{mode}: {steps} steps, {ms:.3f} ms per step wall ({'profiled' if prof else 'no profiler'})", flush=True)


def run_prefill(args, model):
    tokens = torch.randint(0, CONFIG["vocab_size"], (args.prefill_batch, args.prompt), device=args.device)
    pos = torch.arange(args.prompt, device=args.device)
    total = 1 + 2 + args.prefill_steps
    prof = None if args.no_profile else profiler(args, args.prefill_steps, 2)
    if prof:
        prof.start()
    t0 = time.perf_counter()
    for _ in range(total):
        model.forward(tokens, pos, prefill=True)
        sync(args)              # one request per step: the server waits for the first token
        if prof:
            prof.step()
    report(args, "prefill", prof, total, t0)
    if prof:
        prof.stop()
        save(prof, args.out, "prefill")


def run_train(args, model):
    """Training steps: forward over batch x seq tokens with all logits, cross-entropy, backward, AdamW."""
    b, n = args.train_batch, args.train_seq
    tokens = torch.randint(0, CONFIG["vocab_size"], (b, n + 1), device=args.device)
    pos = torch.arange(n, device=args.device)
    params = model.parameters()
    opt = torch.optim.AdamW(params, lr=1e-4)
    total = 1 + 2 + args.train_steps
    prof = None if args.no_profile else profiler(args, args.train_steps, 2)
    if prof:
        prof.start()
    t0 = time.perf_counter()
    for _ in range(total):
        logits = model.forward(tokens[:, :-1], pos, prefill=True, all_logits=True, cache=False)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if prof:
            prof.step()
    sync(args)
    report(args, "train", prof, total, t0)
    if prof:
        prof.stop()
        save(prof, args.out, "train")


def run_decode(args, model, graph, mode=None, stop_check=False):
    b = args.batch
    # The prompt's KV first (not profiled), then one token per step.
    tokens = torch.randint(0, CONFIG["vocab_size"], (b, args.context), device=args.device)
    first = model.forward(tokens, torch.arange(args.context, device=args.device), prefill=True)
    sync(args)
    cur = first.clone()                                           # [B, 1] static input of the step
    pos = torch.tensor([args.context], device=args.device, dtype=torch.long)
    step = lambda: model.forward(cur, pos, prefill=False)        # noqa: E731
    if graph:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                step()
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        # The capture itself under the profiler, as vLLM (--profiler-config.capture_torch_profiler) and SGLang
        # (--enable-profile-cuda-graph) record it: DIR/capture_traces/<file> with an execution_details.json naming
        # each capture's batch and mode, beside the replay trace, so the replayed kernels can be joined to the CPU
        # ops and shapes that launched them at capture.
        cap = None if args.no_profile else profiler_plain(args)
        if cap:
            cap.start()
        with torch.cuda.graph(g):
            nxt = step()
        if cap:
            cap.stop()
            save_capture(cap, args.out, args.batch)
        run = lambda: (g.replay(), nxt)[1]                        # noqa: E731
    else:
        run = step
    total = 1 + 2 + args.decode_steps
    prof = None if args.no_profile else profiler(args, args.decode_steps, 2)
    if prof:
        prof.start()
    t0 = time.perf_counter()
    mode = mode or ("decode-graph" if graph else "decode-eager")
    eos = CONFIG["vocab_size"] + 1          # never produced: the check runs every step and never stops
    for _ in range(total):
        out = run()
        cur.copy_(out)
        pos.add_(1)
        if stop_check and bool((out == eos).all().item()):   # HF generate's per-step stopping check: a host sync
            break
        if prof:
            prof.step()
    sync(args)
    report(args, mode, prof, total, t0)
    if prof:
        prof.stop()
        save(prof, args.out, mode)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", action="append", choices=["prefill", "decode-eager", "decode-graph", "decode-sync", "moe-decode", "train"],
                    help="what to run (repeatable; default prefill, decode-eager, decode-graph)")
    ap.add_argument("--out", default=".")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--batch", type=int, default=8, help="decode batch")
    ap.add_argument("--context", type=int, default=512, help="KV length at the first decode step")
    ap.add_argument("--prefill-batch", type=int, default=1)
    ap.add_argument("--prompt", type=int, default=2048)
    ap.add_argument("--prefill-steps", type=int, default=4)
    ap.add_argument("--decode-steps", type=int, default=16)
    ap.add_argument("--train-batch", type=int, default=4)
    ap.add_argument("--train-seq", type=int, default=512)
    ap.add_argument("--train-steps", type=int, default=4)
    ap.add_argument("--layers", type=int, help="override num_hidden_layers (the CPU smoke test)")
    ap.add_argument("--hidden", type=int, help="override hidden_size, scaling the others (the CPU smoke test)")
    ap.add_argument("--no-profile", action="store_true")
    args = ap.parse_args()
    modes = args.mode or ["prefill", "decode-eager", "decode-graph"]
    if args.device == "cpu" and "decode-graph" in modes:
        modes.remove("decode-graph")
    cfg = dict(CONFIG)
    if args.layers:
        cfg["num_hidden_layers"] = args.layers
    if args.hidden:
        cfg["hidden_size"] = args.hidden
        cfg["intermediate_size"] = args.hidden * 11 // 4
        cfg["head_dim"] = args.hidden // cfg["num_attention_heads"]
        cfg["vocab_size"] = 1024
    CONFIG.update(cfg)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    dtype = torch.bfloat16 if args.device == "cuda" else torch.float32
    # Each model's KV cache holds what its mode writes, so a decode step reads about --context positions (the
    # Roofline theory's KV bytes), not a prompt-sized cache.
    decode_len = args.context + 3 + args.decode_steps + 8
    t0 = time.time()
    with torch.no_grad():
        if "prefill" in modes:
            model = TinyLlama(cfg, args.prefill_batch, args.prompt, args.device, dtype)
            run_prefill(args, model)
            del model
        if "decode-eager" in modes or "decode-graph" in modes or "decode-sync" in modes:
            model = TinyLlama(cfg, args.batch, decode_len, args.device, dtype)
            for m in ("decode-eager", "decode-graph", "decode-sync"):
                if m in modes:
                    run_decode(args, model, graph=(m == "decode-graph"), mode=m, stop_check=(m == "decode-sync"))
            del model
        if "moe-decode" in modes:
            mcfg = dict(MOE_CONFIG)
            if args.hidden:
                mcfg.update(hidden_size=cfg["hidden_size"], head_dim=cfg["head_dim"], vocab_size=cfg["vocab_size"],
                            intermediate_size=cfg["intermediate_size"] // 4)
            if args.layers:
                mcfg["num_hidden_layers"] = args.layers
            with open(os.path.join(args.out, "config-moe.json"), "w") as f:
                json.dump(mcfg, f, indent=2)
                f.write("\n")
            model = TinyLlama(mcfg, args.batch, decode_len, args.device, dtype)
            run_decode(args, model, graph=False, mode="moe-decode")
            del model
    if "train" in modes:
        model = TinyLlama(cfg, args.train_batch, args.train_seq, args.device, dtype, train=True)
        run_train(args, model)
    print(f"done in {time.time() - t0:.1f} s: {', '.join(modes)}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
