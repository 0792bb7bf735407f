"""Reading a trace file (docs/cli.md) for the independent reference scripts
(scripts/*-reference.py): times exact, as integer ns, and the request's
fields as the trace writes them. Shares no code with llmlat.
"""
import decimal
import json

NS = 10**9


def to_ns(d):
    """An exact decimal number of seconds -> integer ns, halves away from 0."""
    return int((decimal.Decimal(d) * NS).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def load_trace(path):
    """(requests, duration or None) from an array, an object or JSON Lines."""
    with open(path) as f:
        text = f.read()
    parse = dict(parse_float=decimal.Decimal, parse_int=int)
    try:
        data = json.loads(text, **parse)
    except json.JSONDecodeError:
        data = [json.loads(line, **parse) for line in text.splitlines() if line.strip()]
    if isinstance(data, dict) and "requests" in data:
        duration = data.get("duration")
        return data["requests"], (float(duration) if duration is not None else None)
    if isinstance(data, dict):
        data = [data]
    return data, None


class Request:
    """One request of a trace: start_ns, scheduled_ns (its intended start,
    the trace's "scheduled", else None), events [(t_ns, k)], end_ns (the
    trace's "end", else its last event, else its start), status
    ("finished", "failed" or "cancelled"), input tokens, and N (the usage
    count "output_tokens", else the sum of k)."""

    def __init__(self, r):
        self.start_ns = to_ns(r["start"])
        scheduled = r.get("scheduled")
        self.scheduled_ns = to_ns(scheduled) if scheduled is not None else None
        self.events = [(to_ns(t), int(k)) for t, k in r.get("events", [])]
        last = self.events[-1][0] if self.events else self.start_ns
        self.end_ns = to_ns(r["end"]) if r.get("end") is not None else last
        if r.get("cancelled", False):
            self.status = "cancelled"
        else:
            self.status = "finished" if r.get("ok", True) else "failed"
        self.input_tokens = int(r.get("input_tokens") or 0)
        usage = r.get("output_tokens")
        self.usage = int(usage) if usage is not None else None
        self.n = self.usage if usage is not None else sum(k for _, k in self.events)

    def rejected(self):
        """llmlat's rejection rule: times going backwards (an intended start
        after the start included), events after the end."""
        if self.scheduled_ns is not None and self.scheduled_ns > self.start_ns:
            return True
        prev = self.start_ns
        for t, _ in self.events:
            if t < prev:
                return True
            prev = t
        return self.end_ns < prev

    def content(self):
        """The times of the events that carry tokens."""
        return [t for t, k in self.events if k > 0]


def read_requests(path):
    """(the accepted requests, the trace's duration or None)."""
    requests, duration = load_trace(path)
    return [q for q in map(Request, requests) if not q.rejected()], duration
