# One-off: written with llmlat 1.0.0 (format version 1), commit 16989c1.
import json, sys, os
sys.path.insert(0,'bindings/python')
import llmlat
from decimal import Decimal
def ns(x): return int((Decimal(repr(x))*10**9).to_integral_value())
reqs=[json.loads(l) for l in open('tests/data/format-v1/trace.jsonl')]
out='tests/data/format-v1'
for conv in ['default','vllm','aiperf','sglang','llmperf']:
    for mode in ['exact','bounded']:
        a=llmlat.Aggregator(conv, mode)
        if conv=='vllm':
            a.set_param('slo_ttft',0.5); a.set_param('slo_tpot',0.05)
            a.set_quantiles([0.25,0.5,0.999])
            a.set_buckets('ttft',[0.1,0.2,0.5,1.0])
        if conv=='default' and mode=='bounded':
            a.set_param('relative_error',0.02)
        for q in reqs:
            r=llmlat.Request(); r.start(ns(q['start']))
            for t,k in q['events']: r.event(ns(t),k)
            if 'input_tokens' in q: r.set_input_tokens(q['input_tokens'])
            if 'output_tokens' in q: r.set_output_tokens(q['output_tokens'])
            end=ns(q['end']) if 'end' in q else (ns(q['events'][-1][0]) if q['events'] else ns(q['start']))
            (r.finish if q.get('ok',True) else r.fail)(end)
            a.add(r); r.close()
        open(f'{out}/{conv}-{mode}.bin','wb').write(a.to_bytes())
        # what 1.0.0 answered, for the compatibility test
        ans={}
        for m in ['ttft','tpot','itl','icl','e2e','tps_user','itl_max','output_tokens','input_tokens','tool_itl']:
            ans[m]={s:a.stat(m,s) for s in ['count','mean','std','min','max','median']}
            ans[m]['quantiles']=a.quantiles(m,[0.1,0.5,0.9,0.99])
        ans['counters']={c:a.counter(c) for c in ['completed','failed','tpot_undefined','input_tokens','output_tokens']}
        json.dump(ans,open(f'{out}/{conv}-{mode}.json','w'),indent=1,sort_keys=True)
print('ok')
