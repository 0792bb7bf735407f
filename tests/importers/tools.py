"""Result files written the way each tool writes them, for known streams.

Each `write_<tool>` takes the same streamed requests (`make_streams`: a
start, the chunks an OpenAI-compatible server sends - a role chunk with
empty content, content chunks of k tokens, a usage chunk, then [DONE] at
the end of the stream - and a failure now and then), passes them through
that tool's client code as the comments cite it (what the client times,
what it counts), computes the tool's own summary fields with the tool's
formulas (numpy, as the tool does), and writes the tool's files. It
returns the files, the tool's summary fields, and the llmlat trace that
the file holds (what llmlat's importer must rebuild: `equivalent_trace`).

Cited code (the commits read):
  vLLM       vllm/benchmarks/serve.py @ 009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1
             (calculate_metrics; benchmark() builds `result`; main_async
             drops the per-request arrays unless --save-detailed)
             vllm/benchmarks/lib/endpoint_request_func.py @ 02cfb534df56
             (async_request_openai_chat_completions: ttft, itl, latency)
  SGLang     python/sglang/bench_serving.py @ 0033168f0f58b2bc05aa0273bd475d9c01bafb1c
             (async_request_openai_chat_completions; calculate_metrics;
             benchmark() writes result | result_details per line)
  AIPerf     ai-dynamo/aiperf @ db4f6397d11ee2d4cfbb41f70b2327315163dcf0
             aiperf/common/models/record_models.py (MetricRecordInfo,
             RawRecordInfo), aiperf/metrics/types/*.py, metric_dicts.py
             (to_result), common/enums/metric_enums.py (convert_to)
  GenAI-Perf triton-inference-server/perf_analyzer @ 263c5f6e0c7a6c15472a54409174981f67930cfe
             genai-perf/genai_perf/profile_data_parser/llm_profile_data_parser.py,
             metrics/statistics.py, export_data/json_exporter.py
  LLMPerf    ray-project/llmperf @ f1d6bed47e4501b0e371082b41601b59ab55269f
             token_benchmark_ray.py (lines 115-126; metrics_summary),
             src/llmperf/ray_clients/openai_chat_completions_client.py,
             src/llmperf/utils.py (flatten_dict)
"""

import json
import os
import random

import numpy as np

MS = 1_000_000
PERF_BASE = 7_000 * 10**9          # perf_counter's clock, ns
WALL_BASE = 1_759_813_207 * 10**9  # time.time_ns() of the same instant


def make_streams(seed, n, failures=True):
    """n requests: start (perf ns), chunks [(t, kind, k)] with kind "role",
    "content" or "usage", the end of the stream, failed, input tokens,
    N (the usage count: the content chunks' tokens)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        start = PERF_BASE + i * 7 * MS + rng.randrange(0, 3 * MS) + rng.randrange(1000)
        failed = failures and rng.random() < 0.12
        chunks = []
        if failed:
            end = start + rng.randrange(MS, 20 * MS)
        else:
            t = start + rng.randrange(30 * MS, 150 * MS)
            if rng.random() < 0.6:
                chunks.append((t, "role", 0))
                t += rng.randrange(MS, 5 * MS)
            for _ in range(rng.choice([1, 1, 2, 3, 5, 8, 12])):
                k = 1 if rng.random() < 0.8 else rng.randrange(2, 4)
                chunks.append((t, "content", k))
                t += rng.randrange(5 * MS, 40 * MS) + rng.randrange(1000)
            chunks.append((chunks[-1][0] + rng.randrange(MS // 10, MS), "usage", 0))
            end = chunks[-1][0] + rng.randrange(MS // 10, MS)  # [DONE]
        n_out = sum(k for _, kind, k in chunks if kind == "content")
        out.append(dict(start=start, chunks=chunks, end=end, failed=failed,
                        input=rng.randrange(20, 900), N=n_out))
    return out


def perf(ns):
    """time.perf_counter() at ns: a float of seconds."""
    return ns / 1e9


def content_text(k):
    return " tok" * k


def sse_json(kind, k, q):
    """The data of one SSE message of an OpenAI chat stream."""
    if kind == "role":
        choices = [{"index": 0, "delta": {"role": "assistant", "content": ""}}]
    elif kind == "content":
        choices = [{"index": 0, "delta": {"content": content_text(k)}}]
    else:
        return json.dumps({"id": "c", "object": "chat.completion.chunk", "choices": [],
                           "usage": {"prompt_tokens": q["input"], "completion_tokens": q["N"]}})
    return json.dumps({"id": "c", "object": "chat.completion.chunk", "choices": choices})


# --------------------------------------------------------------------- vLLM

def vllm_client(q):
    """endpoint_request_func.py, async_request_openai_chat_completions: a
    message with `choices` times ttft (the first) or an itl entry (the
    next), and moves most_recent_timestamp; the usage message sets
    output_tokens and prompt_len; latency = most_recent_timestamp - st."""
    st = perf(q["start"])
    out = dict(success=False, ttft=0.0, itl=[], latency=0.0, output_tokens=0,
               prompt_len=q["input"], start_time=st, error="", generated_text="")
    if q["failed"]:
        out["error"] = "Internal Server Error"
        return out
    recent = st
    first = True
    for t, kind, k in q["chunks"]:
        ts = perf(t)
        if kind in ("role", "content"):
            if first:
                first = False
                out["ttft"] = ts - st
            else:
                out["itl"].append(ts - recent)
            recent = ts
            out["generated_text"] += content_text(k) if kind == "content" else ""
        else:
            out["output_tokens"] = q["N"]
            out["prompt_len"] = q["input"]
    out["success"] = not first
    out["latency"] = recent - st
    return out


def vllm_metrics(outputs, dur_s, percentiles, goodput):
    """serve.py, calculate_metrics, for the fields the result file keeps."""
    actual, total_input, completed, good = [], 0, 0, 0
    itls, tpots, all_tpots, ttfts, e2els = [], [], [], [], []
    for o in outputs:
        if o["success"]:
            output_len = o["output_tokens"] or 1
            actual.append(output_len)
            total_input += o["prompt_len"]
            tpot = 0.0
            if output_len > 1:
                tpot = (o["latency"] - o["ttft"]) / (output_len - 1)
                tpots.append(tpot)
            all_tpots.append(tpot)
            itls += o["itl"]
            ttfts.append(o["ttft"])
            e2els.append(o["latency"])
            completed += 1
        else:
            actual.append(0)
    if goodput:
        valid, slos = [], []
        for name, values in (("ttft", ttfts), ("tpot", all_tpots), ("e2el", e2els)):
            if name in goodput:
                valid.append(values)
                slos.append(goodput[name] / 1000)
        for req in zip(*valid):
            good += all(s >= r for s, r in zip(slos, req))
    ok = [o for o in outputs if o["success"]]
    min_start = min(o["start_time"] for o in ok)
    max_end = max(o["start_time"] + o["latency"] for o in ok)
    seconds = int(np.ceil(max_end - min_start)) + 1
    per_second = np.zeros(seconds)
    for o in ok:
        times = [o["start_time"] + o["ttft"]]
        for g in o["itl"]:
            times.append(times[-1] + g)
        for t in times:
            b = int(t - min_start)
            if 0 <= b < seconds:
                per_second[b] += 1
    events = sorted([(o["start_time"], 1) for o in ok] +
                    [(o["start_time"] + o["latency"], -1) for o in ok])
    cur = peak = 0
    for _, d in events:
        cur += d
        peak = max(peak, cur)
    result = {
        "duration": dur_s, "completed": completed, "failed": len(outputs) - completed,
        "total_input_tokens": total_input, "total_output_tokens": sum(actual),
        "request_throughput": completed / dur_s,
        "request_goodput": good / dur_s if goodput else None,
        "output_throughput": sum(actual) / dur_s,
        "total_token_throughput": (total_input + sum(actual)) / dur_s,
        "max_output_tokens_per_s": float(np.max(per_second)),
        "max_concurrent_requests": peak,
    }
    for name, values in (("ttft", ttfts), ("tpot", tpots), ("itl", itls), ("e2el", e2els)):
        result["mean_%s_ms" % name] = float(np.mean(values or 0) * 1000)
        result["median_%s_ms" % name] = float(np.median(values or 0) * 1000)
        result["std_%s_ms" % name] = float(np.std(values or 0) * 1000)
        for p in percentiles:
            word = str(int(p)) if int(p) == p else str(p)
            result["p%s_%s_ms" % (word, name)] = float(np.percentile(values or 0, p) * 1000)
    return result, actual


def write_vllm(path, runs, percentiles=(50, 90, 99), goodput=None, start_times=True):
    """One JSON object per run, appended (--append-result), saved with
    --save-result --save-detailed and --percentile-metrics ttft,tpot,itl,
    e2el. start_times=False writes what versions before start_times wrote.
    Returns each run's summary and equivalent trace."""
    lines, results = [], []
    for streams in runs:
        outputs = [vllm_client(q) for q in streams]
        first = min(q["start"] for q in streams)
        dur_s = perf(max(q["end"] for q in streams) + 5 * MS) - perf(first - 2 * MS)
        summary, actual = vllm_metrics(outputs, dur_s, percentiles, goodput)
        result = {"date": "20250101-120000", "endpoint_type": "openai-chat",
                  "backend": "openai-chat", "label": None, "model_id": "m",
                  "tokenizer_id": "m", "num_prompts": len(streams), "request_rate": "inf",
                  "burstiness": 1.0, "max_concurrency": None}
        result.update(summary)
        result.update({
            "input_lens": [o["prompt_len"] for o in outputs], "output_lens": actual,
            "ttfts": [o["ttft"] for o in outputs], "itls": [o["itl"] for o in outputs],
            "latencies": [o["latency"] for o in outputs],
            "start_times": [o["start_time"] for o in outputs],
            "queue_times": [0.0 for _ in outputs],
            "generated_texts": [o["generated_text"] for o in outputs],
            "errors": [o["error"] for o in outputs], "rtfx": 0.0,
        })
        if not start_times:  # and so neither of the peaks
            del result["start_times"]
            for key in ("max_concurrent_requests", "max_output_tokens_per_s"):
                del result[key], summary[key]
        lines.append(json.dumps(result))
        results.append((summary, vllm_trace(streams, dur_s, start_times)))
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return results


def vllm_trace(streams, dur_s, start_times):
    """What a vLLM file holds: every chunk with choices, one token each (the
    file has no tokens per chunk), N, the start when the file has it."""
    trace = {"duration": dur_s, "requests": [
        {"start": q["start"] if start_times else 0,
         "events": [[t if start_times else t - q["start"], 1]
                    for t, kind, _ in q["chunks"] if kind in ("role", "content")],
         "input_tokens": q["input"], "output_tokens": q["N"], "ok": not q["failed"]}
        for q in streams]}
    for r, q in zip(trace["requests"], streams):
        r["scheduled"] = r["start"]  # queue_times are 0: the intended start is the start
        if q["failed"]:
            r["events"] = []
            r["output_tokens"] = 0
    return trace


# ------------------------------------------------------------------- SGLang

def sglang_client(q):
    """bench_serving.py, async_request_openai_chat_completions: only a
    chunk with content is timed (ttft, then itl); `latency` is taken at
    every line, [DONE] included: the end of the stream."""
    st = perf(q["start"])
    out = dict(success=False, ttft=0.0, itl=[], latency=0.0, output_len=0,
               prompt_len=q["input"], error="", generated_text="")
    if q["failed"]:
        out["error"] = "Internal Server Error"
        return out
    recent = st
    ttft = 0.0
    for t, kind, k in q["chunks"]:
        out["latency"] = perf(t) - st
        if kind == "content":
            ts = perf(t)
            if ttft == 0.0:
                ttft = ts - st
                out["ttft"] = ttft
            else:
                out["itl"].append(ts - recent)
            recent = ts
            out["generated_text"] += content_text(k)
        if kind == "usage":
            out["output_len"] = q["N"]
    out["latency"] = perf(q["end"]) - st
    out["success"] = True
    return out


def write_sglang(path, runs):
    """One line per run (the file is appended to), with --output-details.
    Returns each run's summary and equivalent trace."""
    lines, results = [], []
    for streams in runs:
        outputs = [sglang_client(q) for q in streams]
        dur_s = perf(max(q["end"] for q in streams) + 3 * MS) - perf(streams[0]["start"] - MS)
        output_lens, total_input, completed = [], 0, 0
        itls, tpots, ttfts, e2es = [], [], [], []
        for o in outputs:
            if o["success"]:
                output_lens.append(o["output_len"])
                total_input += o["prompt_len"]
                if o["output_len"] > 1:
                    tpots.append((o["latency"] - o["ttft"]) / (o["output_len"] - 1))
                itls += o["itl"]
                ttfts.append(o["ttft"])
                e2es.append(o["latency"])
                completed += 1
            else:
                output_lens.append(0)
        result = {
            "backend": "sglang-oai-chat", "dataset_name": "random", "request_rate": "inf",
            "max_concurrency": None, "sharegpt_output_len": None, "random_input_len": 512,
            "random_output_len": 32, "random_range_ratio": 0.0,
            "duration": dur_s, "completed": completed, "total_input_tokens": total_input,
            "total_output_tokens": sum(output_lens),
            "total_output_tokens_retokenized": sum(output_lens),
            "request_throughput": completed / dur_s, "input_throughput": total_input / dur_s,
            "output_throughput": sum(output_lens) / dur_s,
            "mean_e2e_latency_ms": float(np.mean(e2es) * 1000),
            "median_e2e_latency_ms": float(np.median(e2es) * 1000),
            "std_e2e_latency_ms": float(np.std(e2es) * 1000),
            "p99_e2e_latency_ms": float(np.percentile(e2es, 99) * 1000),
            "mean_ttft_ms": float(np.mean(ttfts or 0) * 1000),
            "median_ttft_ms": float(np.median(ttfts or 0) * 1000),
            "std_ttft_ms": float(np.std(ttfts or 0) * 1000),
            "p99_ttft_ms": float(np.percentile(ttfts or 0, 99) * 1000),
            "mean_tpot_ms": float(np.mean(tpots or 0) * 1000),
            "median_tpot_ms": float(np.median(tpots or 0) * 1000),
            "std_tpot_ms": float(np.std(tpots or 0) * 1000),
            "p99_tpot_ms": float(np.percentile(tpots or 0, 99) * 1000),
            "mean_itl_ms": float(np.mean(itls or 0) * 1000),
            "median_itl_ms": float(np.median(itls or 0) * 1000),
            "std_itl_ms": float(np.std(itls or 0) * 1000),
            "p95_itl_ms": float(np.percentile(itls or 0, 95) * 1000),
            "p99_itl_ms": float(np.percentile(itls or 0, 99) * 1000),
            "concurrency": float(np.sum(e2es) / dur_s), "accept_length": None,
        }
        details = {
            "input_lens": [o["prompt_len"] for o in outputs], "output_lens": output_lens,
            "ttfts": [o["ttft"] for o in outputs], "itls": [o["itl"] for o in outputs],
            "generated_texts": [o["generated_text"] for o in outputs],
            "errors": [o["error"] for o in outputs],
        }
        lines.append(json.dumps(result | details))
        results.append((result, sglang_trace(streams, dur_s)))
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in lines))
    return results


def sglang_trace(streams, dur_s):
    """What an SGLang file holds: the chunks with content, one token each,
    N, no start time (each starts at 0) and no end of the stream."""
    trace = {"duration": dur_s, "requests": [
        {"start": 0, "events": [[t - q["start"], 1] for t, kind, _ in q["chunks"]
                                if kind == "content"],
         "input_tokens": q["input"], "output_tokens": q["N"], "ok": not q["failed"]}
        for q in streams]}
    for r, q in zip(trace["requests"], streams):
        if q["failed"]:
            r["output_tokens"] = 0
    return trace


# ------------------------------------------------------------------- AIPerf

def aiperf_ms(ns):
    """metric_enums.py, convert_to: value * (other.per_second / self.per_second)."""
    return ns * (1_000 / 1_000_000_000)


def aiperf_stats(values, unit, scale):
    """metric_dicts.py, to_result, then the display unit (JSON exporter)."""
    arr = np.array(values, dtype=np.float64)
    ps = np.percentile(arr, [1, 5, 10, 25, 50, 75, 90, 95, 99])
    out = {"unit": unit, "avg": float(np.mean(arr)) * scale}
    for p, v in zip((1, 5, 10, 25, 50, 75, 90, 95, 99), ps):
        out["p%d" % p] = float(v) * scale
    out["min"] = float(np.min(arr)) * scale
    out["max"] = float(np.max(arr)) * scale
    out["std"] = float(np.std(arr)) * scale
    return out


def write_aiperf(dir_, streams):
    """profile_export.jsonl (records), profile_export_raw.jsonl (raw) and
    the summary profile_export_aiperf.json. AIPerf keeps responses with
    content: TTFT = first - start, ICL = their gaps, request_latency = last
    - start (ns); ISL and OSL are token counts (N here)."""
    records, raws = [], []
    ttft, lat, icl, itl, osl, isl, tps = [], [], [], [], [], [], []
    starts, ends = [], []
    errors = 0
    for i, q in enumerate(streams):
        wall = q["start"] - PERF_BASE + WALL_BASE
        meta = {"session_num": i, "x_request_id": "r%d" % i, "x_correlation_id": "c%d" % i,
                "conversation_id": "s%d" % i, "turn_index": 0, "request_start_ns": wall,
                "request_ack_ns": None, "request_end_ns": q["end"] - PERF_BASE + WALL_BASE,
                "worker_id": "worker_1", "record_processor_id": "rp_1",
                "benchmark_phase": "profiling", "was_cancelled": False,
                "cancellation_time_ns": None}
        content = [t for t, kind, _ in q["chunks"] if kind == "content"]
        if q["failed"]:
            errors += 1
            metrics = {"error_isl": {"value": q["input"], "unit": "tokens"}}
            error = {"code": 500, "type": "ServerError", "message": "Internal Server Error"}
        else:
            error = None
            r_ttft, r_lat = content[0] - q["start"], content[-1] - q["start"]
            gaps = [b - a for a, b in zip(content, content[1:])]
            metrics = {"input_sequence_length": {"value": q["input"], "unit": "tokens"},
                       "time_to_first_token": {"value": aiperf_ms(r_ttft), "unit": "ms"},
                       "request_latency": {"value": aiperf_ms(r_lat), "unit": "ms"},
                       "output_token_count": {"value": q["N"], "unit": "tokens"},
                       "output_sequence_length": {"value": q["N"], "unit": "tokens"}}
            if gaps:
                metrics["inter_chunk_latency"] = {"value": [aiperf_ms(g) for g in gaps],
                                                  "unit": "ms"}
            ttft.append(r_ttft)
            lat.append(r_lat)
            icl += gaps
            osl.append(q["N"])
            isl.append(q["input"])
            starts.append(wall)
            ends.append(wall + r_lat)
            if q["N"] >= 2:
                r_itl = (r_lat - r_ttft) / (q["N"] - 1)
                itl.append(r_itl)
                metrics["inter_token_latency"] = {"value": aiperf_ms(r_itl), "unit": "ms"}
                if r_itl:  # an ITL of 0 leaves it missing (get_converted_or_raise)
                    tps.append(1 / (r_itl / 1e9))
                    metrics["output_token_throughput_per_user"] = {
                        "value": 1 / (r_itl / 1e9), "unit": "tokens/sec/user"}
        records.append({"metadata": meta, "metrics": metrics, "error": error})
        start_perf = q["start"] - 12_345  # perf_counter_ns of the request start
        responses = [{"perf_ns": t - 12_345,
                      "packets": [{"name": "data", "value": sse_json(kind, k, q)}]}
                     for t, kind, k in q["chunks"]]
        if not q["failed"]:
            responses.append({"perf_ns": q["end"] - 12_345,
                              "packets": [{"name": "data", "value": "[DONE]"}]})
        raws.append({"metadata": meta, "start_perf_ns": start_perf,
                     "payload": {"messages": [{"role": "user", "content": "hi"}]},
                     "request_headers": None, "status": 500 if q["failed"] else 200,
                     "response_headers": None, "responses": responses, "error": error})
    with open(os.path.join(dir_, "profile_export.jsonl"), "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in records))
    with open(os.path.join(dir_, "profile_export_raw.jsonl"), "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in raws))
    dur_ns = max(ends) - min(starts)
    to_ms = 1_000 / 1_000_000_000
    summary = {}  # a metric without a value is left out, as AIPerf leaves it
    for tag, values, unit, scale in (
            ("time_to_first_token", ttft, "ms", to_ms), ("request_latency", lat, "ms", to_ms),
            ("inter_token_latency", itl, "ms", to_ms), ("inter_chunk_latency", icl, "ms", to_ms),
            ("output_token_throughput_per_user", tps, "tokens/sec/user", 1.0),
            ("output_sequence_length", osl, "tokens", 1.0),
            ("input_sequence_length", isl, "tokens", 1.0)):
        if values:
            summary[tag] = aiperf_stats(values, unit, scale)
    summary.update({
        "request_throughput": {"unit": "requests/sec", "avg": len(ttft) / (dur_ns / 1e9)},
        "output_token_throughput": {"unit": "tokens/sec", "avg": sum(osl) / (dur_ns / 1e9)},
        "benchmark_duration": {"unit": "sec", "avg": dur_ns / 1e9},
        "request_count": {"unit": "requests", "avg": len(ttft)},
        "error_request_count": {"unit": "requests", "avg": errors},
        "total_osl": {"unit": "tokens", "avg": sum(osl)},
        "total_isl": {"unit": "tokens", "avg": sum(isl)},
    })
    with open(os.path.join(dir_, "profile_export_aiperf.json"), "w") as f:
        json.dump(summary, f, indent=2)
    def wall(t):
        return t - PERF_BASE + WALL_BASE
    trace = {"requests": [
        {"start": wall(q["start"]),
         "events": [] if q["failed"] else
         [[wall(t), 1] for t, kind, _ in q["chunks"] if kind == "content"],
         "input_tokens": q["input"], "output_tokens": q["N"], "ok": not q["failed"]}
        for q in streams]}
    for r, q in zip(trace["requests"], streams):
        if q["failed"]:  # its request_end_ns: the time of the error
            r["end"] = wall(q["end"])
    # the raw export has every response, [DONE] included, and no token count
    raw_trace = {"requests": [
        {"start": wall(q["start"]),
         "events": [] if q["failed"] else
         [[wall(t), 1 if kind == "content" else 0] for t, kind, _ in q["chunks"]] +
         [[wall(q["end"]), 0]],
         "ok": not q["failed"]} for q in streams]}
    return summary, trace, raw_trace


# --------------------------------------------------------------- GenAI-Perf

def write_genai_perf(dir_, experiments):
    """profile_export.json as perf_analyzer writes it (every response's
    timestamp and text), and the summary profile_export_genai_perf.json of
    the last experiment, as llm_profile_data_parser.py computes it: empty
    responses removed; TTFT = first - timestamp, request_latency = last -
    timestamp (ns), statistics.py's np functions, scaled by 1/1e6 to ms;
    request_throughput = len(requests) / duration."""
    data = {"experiments": [], "version": "2.x", "service_kind": "openai",
            "endpoint": "v1/chat/completions"}
    for streams in experiments:
        reqs = []
        for q in streams:
            stamps = [t for t, _, _ in q["chunks"]] + [q["end"]]
            outputs = [{"response": "data: %s\n\n" % sse_json(kind, k, q)}
                       for _, kind, k in q["chunks"]] + [{"response": "data: [DONE]\n\n"}]
            reqs.append({"timestamp": q["start"], "request_inputs": {
                "payload": json.dumps({"messages": [{"role": "user", "content": "hi"}]})},
                "response_timestamps": stamps, "response_outputs": outputs})
        data["experiments"].append({"experiment": {"mode": "concurrency", "value": 4},
                                    "requests": reqs, "window_boundaries": [0, 1]})
    with open(os.path.join(dir_, "profile_export.json"), "w") as f:
        json.dump(data, f)
    streams = experiments[-1]
    ttft, lat, lo, hi = [], [], None, 0
    for q in streams:
        content = [t for t, kind, _ in q["chunks"] if kind == "content"]
        ttft.append(content[0] - q["start"])
        lat.append(content[-1] - q["start"])
        lo = q["start"] if lo is None else min(lo, q["start"])
        hi = max(hi, content[-1])
    scale = 1 / 1e6

    def stats(values):
        out = {"unit": "ms", "avg": float(np.mean(values)) * scale}
        for p in (1, 5, 10, 25, 50, 75, 90, 95, 99):
            out["p%d" % p] = float(np.percentile(values, p)) * scale
        out["min"] = float(np.min(values)) * scale
        out["max"] = float(np.max(values)) * scale
        out["std"] = float(np.std(values)) * scale
        return out
    summary = {"time_to_first_token": stats(ttft), "request_latency": stats(lat),
               "request_throughput": {"unit": "requests/sec",
                                      "avg": len(streams) / ((hi - lo) / 1e9)}}
    with open(os.path.join(dir_, "profile_export_genai_perf.json"), "w") as f:
        json.dump(summary, f, indent=2)
    trace = {"requests": [
        {"start": q["start"],
         "events": [[t, 1 if kind == "content" else 0] for t, kind, _ in q["chunks"]] +
                   [[q["end"], 0]],
         "input_tokens": q["input"]} for q in streams]}
    return summary, trace


# ------------------------------------------------------------------ LLMPerf

def llmperf_client(q):
    """openai_chat_completions_client.py: every data line but [DONE] counts
    in tokens_received (no usage message: LLMPerf does not ask for one);
    a chunk with content times ttft or the next time_to_next_token entry;
    total_request_time = the end of the stream - start."""
    start = perf(q["start"])
    m = {"error_code": None, "error_msg": ""}
    if q["failed"]:
        m.update(error_code=500, error_msg="Internal Server Error")
        m.update({"inter_token_latency_s": 0, "ttft_s": 0, "end_to_end_latency_s": 0,
                  "request_output_throughput_token_per_s": 0, "number_total_tokens": q["input"],
                  "number_output_tokens": 0, "number_input_tokens": q["input"]})
        return m, 0
    ttft, recent, nexts, received = 0, start, [], 0
    for t, kind, _ in q["chunks"]:
        if kind == "usage":
            continue
        received += 1
        if kind == "content":
            if not ttft:
                ttft = perf(t) - start
                nexts.append(ttft)
            else:
                nexts.append(perf(t) - recent)
            recent = perf(t)
    total = perf(q["end"]) - start
    m.update({"inter_token_latency_s": sum(nexts), "ttft_s": ttft, "end_to_end_latency_s": total,
              "request_output_throughput_token_per_s": received / total,
              "number_total_tokens": received + q["input"], "number_output_tokens": received,
              "number_input_tokens": q["input"]})
    return m, received


def write_llmperf(dir_, streams):
    """<model>_individual_responses.json and <model>_summary.json, as
    token_benchmark_ray.py writes them: the per-request ITL divided by the
    chunks received (lines 115-126), N the tokenizer's count (N here)."""
    individual = []
    for q in streams:
        m, received = llmperf_client(q)
        if not q["failed"]:
            n_out = q["N"]
            m["inter_token_latency_s"] /= m["number_output_tokens"]
            m["number_output_tokens"] = n_out
            m["number_total_tokens"] = m["number_input_tokens"] + n_out
            m["request_output_throughput_token_per_s"] = n_out / m["end_to_end_latency_s"]
        individual.append(m)
    name = os.path.join(dir_, "m_550_150")
    with open(name + "_individual_responses.json", "w") as f:
        json.dump(individual, f, indent=4)
    ok = [m for m in individual if m["error_code"] is None]
    results = {}
    for key in ("inter_token_latency_s", "ttft_s", "end_to_end_latency_s",
                "request_output_throughput_token_per_s", "number_input_tokens",
                "number_output_tokens"):
        s = np.array([m[key] for m in ok], dtype=np.float64)
        qs = np.quantile(s, [0.25, 0.5, 0.75, 0.9, 0.95, 0.99])  # pandas' linear
        results[key] = {"quantiles": {"p%d" % int(p * 100): float(v)
                                      for p, v in zip([0.25, 0.5, 0.75, 0.9, 0.95, 0.99], qs)},
                        "mean": float(s.mean()), "min": float(s.min()), "max": float(s.max()),
                        "stddev": float(np.std(s, ddof=1))}
    results["num_requests_started"] = len(individual)
    results["error_rate"] = (len(individual) - len(ok)) / len(individual)
    results["number_errors"] = len(individual) - len(ok)
    results["num_completed_requests"] = len(ok)
    summary = {"version": "2023-08-31", "name": "m_550_150_summary"}
    summary.update({"results_" + k: v for k, v in flatten(results).items()})
    with open(name + "_summary.json", "w") as f:
        json.dump(summary, f, indent=4)
    trace = {"requests": [
        {"start": q["start"],
         "events": [[t, k] for t, kind, k in q["chunks"] if kind != "usage"],
         "end": q["end"], "input_tokens": q["input"], "output_tokens": q["N"],
         "ok": not q["failed"]} for q in streams]}
    return summary, trace


def client_tokens(trace):
    """The trace as inference-perf's convention reads a file without tokens
    per chunk: N is the file's count (llmlat takes the usage count where
    the events do not carry their tokens), so the trace's sum of k is made
    N by giving the first content chunk the tokens the others lack."""
    out = json.loads(json.dumps(trace))
    for r in out["requests"]:
        content = [e for e in r["events"] if e[1]]
        extra = r.get("output_tokens", 0) - sum(k for _, k in r["events"])
        if content and extra > 0:
            content[0][1] += extra
        elif content and extra < 0:
            return None  # more chunks than tokens (a vLLM role chunk): no such trace
    return out


def ns_text(ns):
    """Integer ns as the exact decimal seconds a trace holds."""
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    return "%s%d.%09d" % (sign, ns // 10**9, ns % 10**9)


def trace_text(trace):
    """An equivalent trace (times in integer ns) as llmlat's trace file."""
    def request(r):
        parts = ['"start": ' + ns_text(r["start"]),
                 '"events": [' + ", ".join("[%s, %d]" % (ns_text(t), k) for t, k in r["events"])
                 + "]"]
        if "end" in r:
            parts.append('"end": ' + ns_text(r["end"]))
        if "scheduled" in r:
            parts.append('"scheduled": ' + ns_text(r["scheduled"]))
        for key in ("input_tokens", "output_tokens", "ok", "cancelled"):
            if key in r:
                parts.append('"%s": %s' % (key, json.dumps(r[key])))
        return "{" + ", ".join(parts) + "}"
    body = ",\n".join(request(r) for r in trace["requests"])
    duration = ', "duration": %s' % json.dumps(trace["duration"]) if "duration" in trace else ""
    return '{"requests": [\n%s\n]%s}\n' % (body, duration)


def flatten(d, parent=""):
    """utils.py, flatten_dict with sep '_'."""
    out = {}
    for k, v in d.items():
        key = parent + "_" + k if parent else k
        if isinstance(v, dict):
            out.update(flatten(v, key))
        else:
            out[key] = v
    return out


# ----------------------------------------------------------------- GuideLLM

def _reference(name):
    """A scripts/*-reference.py module: the tools' formulas, written out."""
    import importlib.util
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "scripts", name + "-reference.py")
    spec = importlib.util.spec_from_file_location(name.replace("-", "_") + "_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def epoch(ns):
    """time.time() at perf ns: a float of epoch seconds."""
    return (ns - PERF_BASE + WALL_BASE) / 1e9


def ns_of(seconds):
    """The exact value of a float of seconds, in ns rounded half away from
    zero: the time llmlat reads from the float's text."""
    import decimal
    d = decimal.Decimal(seconds) * 10**9
    return int(d.to_integral_value(rounding=decimal.ROUND_HALF_UP))


def guidellm_timings(q, cancel_after=None):
    """What GuideLLM's OpenAI backend records of one stream
    (src/guidellm/backends/openai/http.py @ e52e92cb, resolve: every line
    of aiter_lines() is a request iteration, the SSE data line and the
    blank line after it; a line with content is a token iteration;
    request_end after the stream closed; a cancellation ends it early).
    Returns (timings, output_tokens, status)."""
    t = {"targeted_start": epoch(q["start"] - 1000 - (q["start"] % 700_000)),
         "queued": epoch(q["start"] - 3 * MS), "dequeued": epoch(q["start"] - 2000),
         "scheduled_at": epoch(q["start"] - 2000), "resolve_start": epoch(q["start"] - 500),
         "request_start": epoch(q["start"]), "first_request_iteration": None,
         "first_token_iteration": None, "last_token_iteration": None,
         "last_request_iteration": None, "request_iterations": 0, "token_iterations": 0,
         "request_end": None, "resolve_end": None, "finalized": None}
    if q["failed"]:  # the stream raised before any line
        t["resolve_end"] = epoch(q["end"])
        t["finalized"] = epoch(q["end"] + 1000)
        return t, None, "errored"
    lines = [(c, kind, k) for c, kind, k in q["chunks"]] + [(q["end"], "done", 0)]
    usage = None
    for i, (at, kind, k) in enumerate(lines):
        if cancel_after is not None and i == cancel_after:
            t["resolve_end"] = epoch(at)
            t["finalized"] = epoch(at + 1000)
            return t, usage, "incomplete"
        for _ in range(2):  # "data: ..." and the blank line after it
            if t["first_request_iteration"] is None:
                t["first_request_iteration"] = epoch(at)
            t["last_request_iteration"] = epoch(at)
            t["request_iterations"] += 1
        if kind == "content":
            if t["first_token_iteration"] is None:
                t["first_token_iteration"] = epoch(at)
                t["token_iterations"] = 0
            t["last_token_iteration"] = epoch(at)
            t["token_iterations"] += 1
            # continuous_usage_stats: the tokens so far
            usage = (usage or 0) + k
    t["request_end"] = epoch(q["end"] + 300_000)
    t["resolve_end"] = epoch(q["end"] + 400_000)
    t["finalized"] = epoch(q["end"] + 500_000)
    return t, q["N"], "successful"


class GuideLLMStats:
    """GenerativeRequestStats' computed fields (src/guidellm/schemas/
    request_stats.py @ e52e92cb), in Python floats as GuideLLM has them."""

    def __init__(self, timings, prompt, output_metric_tokens):
        self.t = timings
        self.prompt_tokens = prompt
        total = output_metric_tokens
        self.output_tokens = total if total is not None else (t_or_none(timings))

    def request_end_time(self):
        return self.t["request_end"] if self.t["request_end"] is not None \
            else self.t["resolve_end"]

    def request_start_time(self):
        return self.t["request_start"] if self.t["request_start"] is not None \
            else self.t["resolve_start"]

    def request_latency(self):
        if self.t["request_start"] is None or self.t["request_end"] is None:
            return None
        return self.t["request_end"] - self.t["request_start"]

    def time_to_first_token_ms(self):
        if self.t["first_token_iteration"] is None or self.t["request_start"] is None:
            return None
        return 1000 * (self.t["first_token_iteration"] - self.t["request_start"])

    def time_per_output_token_ms(self):
        last = self.t["last_token_iteration"] or self.request_end_time()
        if self.t["request_start"] is None or last is None or not self.output_tokens:
            return None
        return 1000 * (last - self.t["request_start"]) / self.output_tokens

    def inter_token_latency_ms(self):
        first, last = self.t["first_token_iteration"], self.t["last_token_iteration"]
        if first is None or last is None or self.output_tokens is None or \
                self.output_tokens <= 1:
            return None
        return 1000 * (last - first) / (self.output_tokens - 1)

    def output_tokens_timings(self):
        first, last = self.t["first_token_iteration"], self.t["last_token_iteration"]
        iterations = self.t["token_iterations"]
        if first is None or last is None or iterations <= 1:
            at = last if last is not None else self.request_end_time()
            return [(at, self.output_tokens or 0.0)]
        out = [(first, 1.0 * bool(self.output_tokens))]
        if self.output_tokens is None or self.output_tokens <= 1:
            return out
        per = (self.output_tokens - 1.0) / (iterations - 1.0)
        return out + [(x, per) for x in np.linspace(first, last, num=iterations)[1:]]


def t_or_none(timings):
    """output_tokens without usage: the token iterations, or None."""
    return timings["token_iterations"] or None


def guidellm_metrics(stats_by_group, start, end):
    """GenerativeMetrics.compile (benchmark/schemas/generative/metrics.py),
    for the fields llmlat's `tool` object writes, with the statistics of
    scripts/guidellm-reference.py (src/guidellm/schemas/statistics.py)."""
    ref = _reference("guidellm")
    groups = ("successful", "incomplete", "errored")

    def by_group(function):
        values = {g: [] for g in groups}
        for g in groups:
            for s in stats_by_group[g]:
                v = function(s)
                values[g].append(v if isinstance(v, tuple) else (v, 1.0))
        out = {g: ref.from_values(values[g]) for g in groups}
        out["total"] = ref.from_values([x for g in groups for x in values[g]])
        return out

    def rates(function, lo=None, hi=None):
        times = {g: [x for s in stats_by_group[g] for x in function(s)] for g in groups}
        out = {g: {"mean": ref.rate_distribution(times[g], lo, hi)["mean"]} for g in groups}
        out["total"] = {"mean": ref.rate_distribution(
            [x for g in groups for x in times[g]], lo, hi)["mean"]}
        return out

    totals = {g: len(stats_by_group[g]) for g in groups}
    totals["total"] = sum(totals.values())
    return {
        "request_totals": totals,
        "requests_per_second": rates(lambda s: [(s.request_end_time(), 1.0)], start, end),
        "output_tokens_per_second": rates(lambda s: s.output_tokens_timings()),
        "request_latency": by_group(lambda s: s.request_latency() or 0.0),
        "prompt_token_count": by_group(lambda s: float(s.prompt_tokens or 0.0)),
        "output_token_count": by_group(lambda s: float(s.output_tokens or 0.0)),
        "time_to_first_token_ms": by_group(lambda s: s.time_to_first_token_ms() or 0.0),
        "time_per_output_token_ms": by_group(
            lambda s: (s.time_per_output_token_ms() or 0.0, float(s.output_tokens or 0.0))),
        "inter_token_latency_ms": by_group(
            lambda s: (s.inter_token_latency_ms() or 0.0,
                       float(s.output_tokens or 1.0) - 1.0)),
    }


def write_guidellm(path, benchmarks):
    """benchmarks.json as GuideLLM 0.4-0.5 writes it
    (GenerativeBenchmarksReport: metadata, args, benchmarks), one benchmark
    per list of streams: each with a warm-up request that ends before its
    measurement window (so its metrics leave it out: get_within_range) and
    every fifth success cancelled after its second line. Returns each
    benchmark's (window start, end, metrics) and its equivalent trace."""
    out, results = [], []
    for streams in benchmarks:
        warm = dict(streams[0], start=streams[0]["start"] - 9 * 10**9,
                    end=streams[0]["end"] - 9 * 10**9,
                    chunks=[(c - 9 * 10**9, kind, k) for c, kind, k in streams[0]["chunks"]])
        requests = {"successful": [], "errored": [], "incomplete": []}
        stats = {g: [] for g in requests}
        kept = []
        for i, q in enumerate([warm] + streams):
            cancel = 2 if i % 5 == 3 and not q["failed"] and len(q["chunks"]) >= 3 else None
            timings, usage, group = guidellm_timings(q, cancel)
            output_total = usage if group != "errored" else None
            s = GuideLLMStats(timings, q["input"], output_total)
            record = {
                "type_": "generative_request_stats", "request_id": "r%d" % i,
                "response_id": "c%d" % i, "request_args": "{}", "output": "tok",
                "info": {"request_id": "r%d" % i, "status": {
                    "successful": "completed", "errored": "errored",
                    "incomplete": "cancelled"}[group], "scheduler_node_id": -1,
                    "scheduler_process_id": 0, "scheduler_start_time": epoch(PERF_BASE),
                    "timings": timings, "error": None, "traceback": None},
                "input_metrics": {"text_tokens": q["input"], "total_tokens": q["input"]},
                "output_metrics": {"text_tokens": output_total, "total_tokens": output_total},
                "request_start_time": s.request_start_time(),
                "request_end_time": s.request_end_time(),
                "request_latency": s.request_latency(), "prompt_tokens": q["input"],
                "output_tokens": s.output_tokens,
                "time_to_first_token_ms": s.time_to_first_token_ms(),
                "time_per_output_token_ms": s.time_per_output_token_ms(),
                "inter_token_latency_ms": s.inter_token_latency_ms()}
            requests[group].append(record)
            if i > 0:
                stats[group].append(s)
                kept.append((q, timings, group, s))
        start = min(s.request_start_time() for g in stats for s in stats[g]) - 0.0005
        end = max(s.request_end_time() for g in stats for s in stats[g]) + 1.0
        metrics = guidellm_metrics(stats, start, end)
        bench = {
            "type_": "generative_benchmark", "config": {"strategy": {"type_": "throughput"}},
            "scheduler_state": {}, "scheduler_metrics": {
                "measure_start_time": start, "measure_end_time": end},
            "metrics": metrics, "requests": dict(requests, total=None),
            "start_time": start, "end_time": end, "duration": end - start,
            "warmup_duration": 0.0, "cooldown_duration": 0.0}
        out.append(bench)
        results.append(({"benchmark": {"start_time": start, "end_time": end,
                                       "duration": end - start}, "metrics": metrics},
                         guidellm_trace(kept, end - start)))
    with open(path, "w") as f:
        json.dump({"metadata": {"version": 1, "guidellm_version": "0.5.0",
                                "python_version": "3.12", "platform": "Linux"},
                   "args": {"target": "http://localhost:8000"}, "benchmarks": out}, f, indent=2)
    return results


def guidellm_trace(kept, duration):
    """What a benchmarks.json holds, as llmlat's importer places it: the
    first and last iteration of any kind and of content, the content ones
    between evenly (floor((last - first) i / (n - 1))), the other empty
    ones before the last content one; the times the floats' exact values."""
    reqs = []
    for q, t, group, s in kept:
        first_req, last_req = t["first_request_iteration"], t["last_request_iteration"]
        first_tok, last_tok = t["first_token_iteration"], t["last_token_iteration"]
        n_tok, n_all = t["token_iterations"], t["request_iterations"]
        events = []
        if first_tok is None:
            n_tok = 0
        lead = first_req is not None and (n_tok == 0 or ns_of(first_req) < ns_of(first_tok))
        trail = last_req is not None and n_tok > 0 and ns_of(last_req) > ns_of(last_tok)
        if n_tok == 0 and first_req is not None and last_req is not None and \
                ns_of(last_req) > ns_of(first_req):
            trail = True
        others = max(n_all - (n_tok + lead + trail), 0)
        if lead:
            events.append([ns_of(first_req), 0])
        if n_tok == 0 and others:
            events += [[ns_of(first_req), 0]] * others
        a, b = (ns_of(first_tok), ns_of(last_tok)) if n_tok else (0, 0)
        for i in range(n_tok):
            if i + 1 == n_tok and n_tok > 1:
                events += [[b, 0]] * others
            events.append([a + (b - a) * i // (n_tok - 1) if n_tok > 1 else a, 1])
        if n_tok == 1:
            events += [[a, 0]] * others
        if trail:
            events.append([ns_of(last_req), 0])
        end = t["request_end"] if group == "successful" and t["request_end"] is not None \
            else t["resolve_end"]
        r = {"start": ns_of(t["request_start"]), "scheduled": ns_of(t["targeted_start"]),
             "events": events, "end": ns_of(end), "input_tokens": q["input"]}
        if s.output_tokens is not None:
            r["output_tokens"] = s.output_tokens
            # the tokens the file does not place: on the first content
            # chunk, so that the trace's sum of k is N too (inference-perf
            # counts the client's tokens; llmlat takes N where a file has
            # no tokens per chunk)
            extra = s.output_tokens - sum(k for _, k in events)
            content = [e for e in events if e[1]]
            if extra > 0 and content:
                content[0][1] += extra
        if group == "errored":
            r["ok"] = False
        elif group == "incomplete":
            r["cancelled"] = True
        reqs.append(r)
    return {"duration": duration, "requests": reqs}


# ----------------------------------------------------------- inference-perf

def ip_summarize(items):
    """reportgen/base.py, summarize (numpy; None when empty)."""
    if not items:
        return None
    a = np.array(items, dtype=np.float64)
    out = {"mean": float(np.mean(a)), "min": float(np.min(a))}
    for p in (0.1, 1, 5, 10, 25):
        out["p%g" % p] = float(np.percentile(a, p))
    out["median"] = float(np.percentile(a, 50))
    for p in (75, 90, 95, 99, 99.9):
        out["p%g" % p] = float(np.percentile(a, p))
    out["max"] = float(np.max(a))
    return out


def write_inference_perf(path, streams, server_extra=2):
    """per_request_lifecycle_metrics.json as inference-perf writes it
    (kubernetes-sigs/inference-perf @ 7de5ef2: reportgen/base.py,
    generate_reports, one object per request: start_time, end_time,
    request, response, info.model_dump(), error): apis/streaming_parser.py
    times the content chunks (chunk_times), the report's tokenizer gives
    each chunk's time once per token (output_token_times; " tok" is one
    token here), output_tokens is the client's count of the whole text,
    server_usage the server's, every fourth one server_extra tokens more.
    Returns the summaries (summarize_requests) without and with
    use_server_output_tokens, and the equivalent trace."""
    records, reqs = [], []
    for i, q in enumerate(streams):
        content = [(t, k) for t, kind, k in q["chunks"] if kind == "content"]
        client = sum(k for _, k in content)
        server = client + (server_extra if i % 4 == 1 else 0)
        info = {"request_metrics": {"text": {"input_tokens": q["input"]}},
                "response_metrics": None, "extra_info": {}, "lora_adapter": None,
                "labels": {}, "input_tokens": q["input"]}
        error = None
        if q["failed"]:
            error = {"error_type": "HTTP Error 500", "error_msg": "Internal Server Error"}
        else:
            info["response_metrics"] = {
                "output_tokens": client,
                "server_usage": {"prompt_tokens": q["input"], "completion_tokens": server},
                "response_chunks": [sse_json("content", k, q) for _, k in content],
                "chunk_times": [perf(t) for t, _ in content],
                "output_token_times": [perf(t) for t, k in content for _ in range(k)]}
        records.append({"start_time": perf(q["start"]), "end_time": perf(q["end"]),
                        "request": "{}", "response": "" if q["failed"] else "ok",
                        "info": info, "error": error})
        r = {"start": q["start"], "end": q["end"], "events": [[t, k] for t, k in content],
             "input_tokens": q["input"], "ok": not q["failed"]}
        if not q["failed"]:
            r["output_tokens"] = server
        reqs.append(r)
    with open(path, "w") as f:
        json.dump(records, f, indent=2)
    return (ip_summary(records, False), ip_summary(records, True),
            {"requests": reqs})


def ip_summary(records, use_server):
    """reportgen/base.py @ 7de5ef2, summarize_requests, for the fields of
    summary_lifecycle_metrics.json llmlat's `tool` object writes."""
    ok = [m for m in records if m["error"] is None]
    failed = [m for m in records if m["error"] is not None]
    total_time = max(m["end_time"] for m in records) - min(m["start_time"] for m in records)

    def n_of(m):  # effective_output_tokens
        rm = m["info"]["response_metrics"]
        if rm is None:
            return 0
        if use_server and rm.get("server_usage"):
            ct = rm["server_usage"].get("completion_tokens")
            if ct:
                return int(ct)
        return rm["output_tokens"]
    latencies, ntpots, tpots, ttfts, itls = [], [], [], [], []
    for m in ok:
        latency = m["end_time"] - m["start_time"]
        latencies.append(latency)
        n = n_of(m)
        ntpots.append(latency / n if n > 0 else 0.0)
        times = m["info"]["response_metrics"]["output_token_times"]
        if len(times) > 1:
            ttfts.append(times[0] - m["start_time"])
            if n > 1:
                tpots.append((times[-1] - times[0]) / (n - 1))
            itls += [b - a for a, b in zip(times, times[1:])]

    def usage(values):
        out = {"total": float(sum(values))}
        if (d := ip_summarize([float(v) for v in values])):
            out.update(d)
        return out

    def prompt(ms):
        values = [m["info"]["request_metrics"]["text"]["input_tokens"] for m in ms]
        out = {"total": float(sum(values)), "cached": 0.0, "uncached": float(sum(values))}
        if (d := ip_summarize([float(v) for v in values])):
            out.update(d)
        return out

    inputs = sum(m["info"]["request_metrics"]["text"]["input_tokens"] for m in ok)
    outputs = sum(n_of(m) for m in ok)
    server_or_client = [m["info"]["response_metrics"]["server_usage"]["completion_tokens"]
                        for m in ok]
    return {
        "benchmark_time_seconds": total_time,
        "load_summary": {"count": len(records)},
        "successes": {
            "count": len(ok),
            "latency": {"request_latency": ip_summarize(latencies),
                        "normalized_time_per_output_token": ip_summarize(ntpots),
                        "time_per_output_token": ip_summarize(tpots),
                        "time_to_first_token": ip_summarize(ttfts),
                        "inter_token_latency": ip_summarize(itls)},
            "throughput": {"input_tokens_per_sec": inputs / total_time,
                           "output_tokens_per_sec": outputs / total_time,
                           "total_tokens_per_sec": (inputs + outputs) / total_time,
                           "requests_per_sec": len(ok) / total_time},
            "prompt_tokens": prompt(ok),
            "output_len": ip_summarize([float(m["info"]["response_metrics"]["output_tokens"])
                                        for m in ok]),
            "output_tokens": usage(server_or_client)},
        "failures": {"count": len(failed),
                     "request_latency": ip_summarize([m["end_time"] - m["start_time"]
                                                      for m in failed]),
                     "prompt_tokens": prompt(failed)},
    }


def write_inference_perf_old(path, streams):
    """The per-request file inference-perf wrote up to late 2025
    (7ff8150: info = {input_tokens, output_tokens, output_token_times}),
    where apis/completion.py's process_response took a time for every line
    of the response (the SSE data line and the blank line after it, [DONE]
    too). Returns the summary of that version's summarize_requests."""
    records = []
    for q in streams:
        lines = [] if q["failed"] else \
            [perf(t) for t, kind, _ in q["chunks"] if kind != "usage" for _ in range(2)] + \
            [perf(q["end"])] * 2
        client = sum(k for _, kind, k in q["chunks"] if kind == "content")
        records.append({
            "start_time": perf(q["start"]), "end_time": perf(q["end"]), "request": "{}",
            "response": "",
            "info": {"input_tokens": q["input"], "output_tokens": 0 if q["failed"] else client,
                     "output_token_times": lines},
            "error": {"error_type": "Error response", "error_msg": "500"}
            if q["failed"] else None})
    with open(path, "w") as f:
        json.dump(records, f)
    ok = [m for m in records if m["error"] is None]
    streamable = [m for m in ok if len(m["info"]["output_token_times"]) > 1]
    total_time = max(m["end_time"] for m in records) - min(m["start_time"] for m in records)
    return {
        "successes": {
            "count": len(ok),
            "latency": {
                "request_latency": ip_summarize([m["end_time"] - m["start_time"] for m in ok]),
                "normalized_time_per_output_token": ip_summarize(
                    [(m["end_time"] - m["start_time"]) / m["info"]["output_tokens"]
                     if m["info"]["output_tokens"] else 0 for m in ok]),
                "time_per_output_token": ip_summarize(
                    [(m["info"]["output_token_times"][-1] - m["info"]["output_token_times"][0])
                     / (len(m["info"]["output_token_times"]) - 1) for m in streamable]),
                "time_to_first_token": ip_summarize(
                    [m["info"]["output_token_times"][0] - m["start_time"] for m in streamable]),
                "inter_token_latency": ip_summarize(
                    [b - a for m in streamable for a, b in
                     zip(m["info"]["output_token_times"], m["info"]["output_token_times"][1:])]),
            },
            "throughput": {
                "output_tokens_per_sec": sum(m["info"]["output_tokens"] for m in ok) / total_time,
                "requests_per_sec": len(ok) / total_time},
        },
        "failures": {"count": len(records) - len(ok)},
    }
