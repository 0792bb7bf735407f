#!/usr/bin/env python3
"""Writes the bundled example traces (standard library only, fixed seed):

  examples/sample-trace.json      3000 requests of a simulated benchmark run
  examples/sample-candidate.json  1000 requests of the same server with its
                                  prefill 20% slower (another seed), its
                                  client on schedule: the candidate of
                                  `llmlat compare`'s examples
  examples/tiny-trace.jsonl       5 hand-written requests for the docs

The simulation is a Poisson arrival of chat and completion requests against
one server: a queue delay (with bursts), a prefill time growing with the
prompt, then decode steps of ~20-30 ms. Some requests use speculative
decoding (chunks of 1-4 tokens), chat streams carry empty chunks (the role
chunk before the first token, the finish and usage chunks after the last),
a few requests stall (preemption), a few fail mid-stream or before any
chunk, a few finish with no content, and a few carry two chunks stamped the
same nanosecond. Each request's arrival is its intended start
("scheduled"); the client sends it a fraction of a millisecond later,
except from 100 s to 112 s of the base run, when it falls behind its
schedule (it can send only 7 requests a second for 10 arriving) and then
catches up: those requests wait up to seconds before they are sent, a
wait no latency measured from the send shows. Times are integer
nanoseconds written as decimal seconds.

Run from the repository root: scripts/gen-sample-trace.py
"""
import json
import math
import os
import random

SEED = 20261130
N_REQUESTS = 3000
CANDIDATE_SEED = 20261201
CANDIDATE_REQUESTS = 1000
CANDIDATE_PREFILL = 1.2  # the regression the comparison should find
ARRIVAL_RATE = 10.0  # requests per second
BEHIND = (100.0, 112.0)  # s of the base run in which the client falls behind
BEHIND_RATE = 7.0  # requests per second it can send meanwhile
CATCH_UP = 0.02  # s between its sends while it catches up
NS = 1_000_000_000
MS = 1_000_000


def seconds(ns):
    """ns as exact decimal seconds text (what the trace format wants)."""
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    return f"{sign}{ns // NS}.{ns % NS:09d}"


class Raw:
    """A number written verbatim into the JSON (our exact decimal text)."""

    def __init__(self, text):
        self.text = text

    def __float__(self):
        return float(self.text)


def clamp(x, lo, hi):
    return max(lo, min(hi, x))


def simulate_request(rng, index, start, prefill_factor=1.0):
    chat = rng.random() < 0.7
    speculative = rng.random() < 0.35
    input_tokens = clamp(int(rng.lognormvariate(math.log(600), 0.8)), 16, 8192)
    if rng.random() < 0.03:
        target = 1  # one-token answers: no TPOT
    else:
        target = clamp(int(rng.lognormvariate(math.log(45), 0.8)), 2, 1024)

    queue = rng.expovariate(1 / 0.02)
    if rng.random() < 0.05:
        queue += rng.uniform(0.5, 3.0)  # a burst fills the batch
    prefill = (0.015 + input_tokens * 0.00004) * prefill_factor
    t = start + int((queue + prefill + rng.uniform(0.001, 0.003)) * NS)

    fate = rng.random()
    fails_before_output = fate < 0.005
    fails_mid_stream = 0.005 <= fate < 0.02
    no_content = 0.02 <= fate < 0.022

    events = []
    if fails_before_output:
        end = start + int(rng.uniform(0.001, 0.030) * NS)
        return request_dict(index, start, events, input_tokens, None, False, end)

    if chat:
        events.append([t - int(rng.uniform(0.05, 0.5) * MS), 0])  # role chunk
    if no_content:
        end = t + int(rng.uniform(0.1, 1.0) * MS)
        return request_dict(index, start, events, input_tokens, 0, True, end)

    stall_at = rng.randrange(target) if rng.random() < 0.03 else -1
    same_ns_at = rng.randrange(target) if rng.random() < 0.01 else -1
    cut_at = rng.randrange(1, target + 1) if fails_mid_stream else None
    step_mean = 0.028 if speculative else 0.022
    produced = 0
    while produced < target:
        if produced:
            step = step_mean * rng.lognormvariate(0, 0.15)
            if produced >= stall_at >= 0:
                step += rng.uniform(0.3, 2.5)
                stall_at = -1
            t += int(step * NS)
        if speculative:
            k = 1 + rng.choices([0, 1, 2, 3], weights=[35, 30, 20, 15])[0]
        else:
            k = 1 if rng.random() < 0.95 else 2  # detokenizer flushes two
        k = min(k, target - produced)
        if produced >= same_ns_at >= 0 and target - produced >= 2:
            events.append([t, 1])  # two chunks read in one go: a zero gap
            produced += 1
            k = min(k, target - produced)
            same_ns_at = -1
        events.append([t, k])
        produced += k
        if cut_at is not None and produced >= cut_at:
            end = t + int(rng.uniform(0.5, 5.0) * NS)  # timeout or reset
            return request_dict(index, start, events, input_tokens, None, False, end)

    last = t
    if chat:
        t += int(rng.uniform(0.1, 1.0) * MS)
        events.append([t, 0])  # finish_reason chunk
        if rng.random() < 0.5:
            t += int(rng.uniform(0.05, 0.3) * MS)
            events.append([t, 0])  # usage chunk
    end = max(t, last) + int(rng.uniform(0.05, 0.5) * MS)
    usage = produced if rng.random() < 0.9 else None
    has_end = rng.random() < 0.85
    return request_dict(index, start, events, input_tokens, usage, True, end if has_end else None)


def request_dict(index, start, events, input_tokens, usage, ok, end):
    r = {"id": index, "scheduled": None, "start": Raw(seconds(start))}
    if end is not None:
        r["end"] = Raw(seconds(end))
    r["ok"] = ok
    r["input_tokens"] = input_tokens
    if usage is not None:
        r["output_tokens"] = usage
    r["events"] = [[Raw(seconds(t)), k] for t, k in events]
    return r


def last_time(r):
    times = [float(r["start"])] + [float(t) for t, _ in r["events"]]
    if "end" in r:
        times.append(float(r["end"]))
    return max(times)


def dumps(obj):
    """Compact JSON keeping our decimal text for times."""
    if isinstance(obj, Raw):
        return obj.text
    if isinstance(obj, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {dumps(v)}" for k, v in obj.items()) + "}"
    if isinstance(obj, list):
        return "[" + ",".join(dumps(v) for v in obj) + "]"
    return json.dumps(obj)


def dispatch(rng, arrival, free, behind):
    """When the client sends a request that arrives (is due) at `arrival`,
    its sender being free again at `free`: (the send, when it is free
    next). A wake-up of 0.05 to 0.4 ms after the arrival; in the stretch
    where it falls behind, one send every 1/BEHIND_RATE s; while it has a
    backlog, one every CATCH_UP s."""
    send = max(arrival + int(rng.uniform(0.05, 0.4) * MS), free)
    if behind and BEHIND[0] * NS <= arrival < BEHIND[1] * NS:
        return send, send + int(NS / BEHIND_RATE)
    if send > arrival + MS:
        return send, send + int(CATCH_UP * NS)
    return send, send


def sample_trace(seed=SEED, n=N_REQUESTS, prefill_factor=1.0, behind=True):
    rng = random.Random(seed)
    sender = random.Random(seed + 1)  # its own stream: the rest is unchanged
    bench_start = 0
    t = bench_start + int(0.05 * NS)
    free = 0
    requests = []
    for i in range(n):
        t += int(rng.expovariate(ARRIVAL_RATE) * NS)
        send, free = dispatch(sender, t, free, behind)
        r = simulate_request(rng, i, send, prefill_factor)
        r["scheduled"] = Raw(seconds(t))
        requests.append(r)
    # the host's wall time: from before the first send to after the last
    # response, as a benchmark client measures it
    wall_end = max(last_time(r) for r in requests) + 0.02
    duration = Raw(seconds(int(round(wall_end * NS)) - bench_start))
    lines = ["{\"duration\": " + duration.text + ",", " \"requests\": ["]
    lines += [dumps(r) + ("," if i + 1 < len(requests) else "") for i, r in enumerate(requests)]
    lines.append("]}")
    return "\n".join(lines) + "\n"


# For the docs: a plain request, a chat stream with its empty role and
# finish chunks, a speculative-decoding stream with multi-token chunks, a
# one-token answer (no TPOT) and a request that failed mid-stream.
TINY = [
    {"id": "plain", "start": 0.0, "input_tokens": 100,
     "events": [[0.150, 1], [0.170, 1], [0.190, 1], [0.210, 1]], "end": 0.211},
    {"id": "chat", "start": 0.050, "input_tokens": 220, "output_tokens": 3,
     "events": [[0.199, 0], [0.200, 1], [0.230, 1], [0.260, 1], [0.261, 0]], "end": 0.262},
    {"id": "speculative", "start": 0.100, "input_tokens": 80,
     "events": [[0.180, 1], [0.210, 3], [0.240, 2], [0.270, 4]], "end": 0.271},
    {"id": "one-token", "start": 0.120, "input_tokens": 40, "output_tokens": 1,
     "events": [[0.190, 1]], "end": 0.191},
    {"id": "failed", "start": 0.130, "input_tokens": 500, "ok": False,
     "events": [[0.400, 1], [0.420, 1]], "end": 1.500},
]


def tiny_trace():
    return "".join(json.dumps(r) + "\n" for r in TINY)


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    examples = os.path.join(root, "examples")
    with open(os.path.join(examples, "sample-trace.json"), "w") as f:
        f.write(sample_trace())
    with open(os.path.join(examples, "sample-candidate.json"), "w") as f:
        f.write(sample_trace(CANDIDATE_SEED, CANDIDATE_REQUESTS, CANDIDATE_PREFILL,
                             behind=False))
    with open(os.path.join(examples, "tiny-trace.jsonl"), "w") as f:
        f.write(tiny_trace())


if __name__ == "__main__":
    main()
