# One-off: written with llmlat 1.2.0 before format version 3 (format
# version 2), commit 084b3ee, run from the source root of that commit:
#   LLMLAT_LIBRARY=<its build>/lib/libllmlat.so.1 python3 THIS OUT_DIR
import json, os, random, sys
sys.path.insert(0, 'bindings/python')
import llmlat
from decimal import Decimal

out = sys.argv[1]
CONVENTIONS = ['default', 'vllm', 'aiperf', 'sglang', 'llmperf', 'guidellm', 'inference-perf']
METRICS = ['ttft', 'tpot', 'itl', 'icl', 'e2e', 'tps_user', 'itl_max', 'output_tokens',
           'input_tokens', 'tool_itl', 'ntpot']
COUNTERS = ['completed', 'failed', 'tpot_undefined', 'input_tokens', 'output_tokens']


def s(ns):
    return '%d.%09d' % divmod(ns, 10**9)


def ns(text):
    return int((Decimal(text) * 10**9).to_integral_value())


# 40 requests: multi-token and empty chunks, one token, no content, usage
# counts, failures and cancellations
rng = random.Random(20261207)
lines = []
for i in range(40):
    start = rng.randint(0, 5 * 10**9)
    t = start + rng.randint(20 * 10**6, 300 * 10**6)
    events = []
    for _ in range(rng.choice([0, 1, 2, rng.randint(3, 30), rng.randint(3, 30)])):
        events.append([t, rng.choice([1, 1, 1, 2, 0, 3])])
        t += rng.choice([0, rng.randint(10**6, 50 * 10**6), rng.randint(10**6, 50 * 10**6)])
    q = {'id': i, 'start': s(start), 'end': s(t + rng.randint(0, 4 * 10**6)),
         'events': [[s(a), k] for a, k in events], 'input_tokens': rng.randint(1, 2000)}
    x = rng.random()
    if x < 0.1:
        q['ok'] = False
    elif x < 0.2:
        q['cancelled'] = True
    if rng.random() < 0.2:
        q['output_tokens'] = sum(k for _, k in events) + rng.choice([0, 2])
    lines.append(q)
with open(os.path.join(out, 'trace.jsonl'), 'w') as f:
    for q in lines:
        f.write(json.dumps(q) + '\n')


def request(q, lacks=0):
    r = llmlat.Request()
    r.start(ns(q['start']))
    for t, k in q['events']:
        r.event(ns(t), k)
    r.set_input_tokens(q['input_tokens'])
    if 'output_tokens' in q:
        r.set_output_tokens(q['output_tokens'])
    if lacks:
        r.set_lacks(lacks)
    end = ns(q['end'])
    if q.get('cancelled'):
        r.cancel(end)
    elif q.get('ok', True):
        r.finish(end)
    else:
        r.fail(end)
    return r


def answers(a):
    ans = {}
    for m in METRICS:
        ans[m] = {st: a.stat(m, st) for st in ['count', 'mean', 'std', 'min', 'max', 'median',
                                                'sum']}
        ans[m]['quantiles'] = a.quantiles(m, [0.1, 0.5, 0.9, 0.99])
    ans['counters'] = {c: a.counter(c) for c in COUNTERS}
    ans['labels'] = a.labels
    return ans


def write(name, a):
    with open(os.path.join(out, name + '.bin'), 'wb') as f:
        f.write(a.to_bytes())
    with open(os.path.join(out, name + '.json'), 'w') as f:
        json.dump(answers(a), f, indent=1, sort_keys=True)


for conv in CONVENTIONS:
    for mode in ['exact', 'bounded']:
        a = llmlat.Aggregator(conv, mode)
        a.set_label('model', 'format-v2')
        if conv == 'vllm':
            a.set_param('slo_ttft', 0.5)
            a.set_param('slo_tpot', 0.05)
            a.set_quantiles([0.25, 0.5, 0.999])
            a.set_buckets('ttft', [0.1, 0.2, 0.5, 1.0])
        if conv == 'guidellm' and mode == 'bounded':
            a.set_param('relative_error', 0.02)
        for q in lines:
            r = request(q)
            a.add(r)
            r.close()
        write(conv + '-' + mode, a)
# what requests lacked, kept: requests without end-of-stream times
a = llmlat.Aggregator('sglang', 'exact')
for q in lines:
    r = request(q, lacks=2)  # LLMLAT_LACKS_END
    a.add(r)
    r.close()
write('sglang-exact-lacks', a)
print('ok')
