"""Record from many threads while a thread scrapes: a simulated server.

Worker threads stream simulated responses (a first token after 40-200 ms,
then a token every 10-30 ms) and add each finished request to one
``llmlat.LiveRecorder``; a scraper thread takes an interval snapshot every
``--every`` seconds, prints the requests and P90 TTFT of the last
interval, feeds it into a 60 s ``llmlat.Window`` and prints the window's
P90 too, as a dashboard would. At the end a cumulative snapshot holds every
request the workers added, no more, no less.

    python3 live_scrape.py [--threads 8] [--seconds 2] [--every 0.25]

Timestamps are simulated (nanoseconds on a shared fake clock that runs 10x
faster than the real one), so the run takes --seconds of real time.
"""

import argparse
import random
import threading
import time

import llmlat

MS = 1_000_000
S = 1_000_000_000
SPEEDUP = 10  # simulated ns per real ns


def fake_now(t0: int) -> int:
    return (time.monotonic_ns() - t0) * SPEEDUP


def worker(live: llmlat.LiveRecorder, t0: int, stop: threading.Event, seed: int,
           counts: list, index: int) -> None:
    rng = random.Random(seed)
    r = llmlat.Request()
    while not stop.is_set():
        start = fake_now(t0)
        t = start + rng.randint(40, 200) * MS
        times = []
        for _ in range(rng.randint(1, 60)):
            times.append(t)
            t += rng.randint(10, 30) * MS
        r.reset()
        r.start(start)
        r.events(times)
        r.set_input_tokens(rng.randint(50, 2000))
        if rng.random() < 0.05:
            r.fail(times[-1])
        else:
            r.finish(times[-1])
        live.add(r)           # from any thread, no lock around it
        counts[index] += 1
        time.sleep(0.0005)    # the rest of the server's work
    r.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--every", type=float, default=0.25)
    args = ap.parse_args()

    like = llmlat.Aggregator("vllm", "bounded", slo={"ttft": 0.15})
    live = llmlat.LiveRecorder(like)
    window = llmlat.Window(60, 5, like)
    t0 = time.monotonic_ns()
    window.advance(fake_now(t0))  # the window watches from now: its rates' span
    stop = threading.Event()
    counts = [0] * args.threads
    workers = [threading.Thread(target=worker, args=(live, t0, stop, i, counts, i))
               for i in range(args.threads)]
    for w in workers:
        w.start()

    interval = None
    deadline = time.monotonic() + args.seconds
    while time.monotonic() < deadline:
        time.sleep(args.every)
        now = fake_now(t0)
        interval = live.snapshot("interval", into=interval)  # reuses the aggregator
        window.merge(interval, now)
        window.advance(now)
        p90 = interval.quantile("ttft", 0.9)
        print("t=%6.2fs  interval: %4d requests, P90 TTFT %s;  window: %5d requests, "
              "P90 TTFT %.1f ms, goodput %.1f/s" % (
                  now / S, interval.counter("completed"),
                  "%.1f ms" % (p90 * 1e3) if p90 is not None else "-",
                  window.view.counter("completed"), window.view.quantile("ttft", 0.9) * 1e3,
                  window.view.rate("goodput") or 0.0))

    stop.set()
    for w in workers:
        w.join()
    total = live.snapshot("cumulative")
    added = total.counter("completed") + total.counter("failed")
    print("added %d requests from %d threads; the cumulative snapshot holds %d"
          % (sum(counts), args.threads, added))
    assert added == sum(counts)
    live.close()
    window.close()


if __name__ == "__main__":
    main()
