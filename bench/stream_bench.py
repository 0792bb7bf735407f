#!/usr/bin/python3
"""The accuracy and the cost of `llmlat bench`'s timestamps (docs/bench.md,
"Accuracy"), beside a Python asyncio client doing what `vllm bench serve`
does (bench/py_stream_client.py), against the same C epoll server
(tests/bench/stream_server.c) in the same run.

    /usr/bin/python3 bench/stream_bench.py --build DIR [--streams 100,1000,10000]
        [--token-rate 10] [--seconds 20] [--rates 1000,5000] [--rate-seconds 10]
        [--repeats 1] [--clients llmlat,python] [--nice N | --fifo] [--json FILE]

DIR is a build with the command and tests/bench/stream_server (any build
with -Dtools=enabled and -Dtests=enabled, or -Dbench=true). Needs
python3-aiohttp for the reference, taskset (util-linux), and a file limit
above the streams (ulimit -n; the hard limit is raised to, not past).

1. Streams. For each N, the server serves N streams of --token-rate
   tokens/s each (10: a gap of 100 ms; the streams' phases spread evenly
   over the gap: N x 10 events/s without bursts), each --seconds long,
   their first token 0.1 s + N x 200 us after the request (the N
   connections and requests of the start are over by then: what is
   measured is the streaming); the client under test opens the N streams
   at once (a closed loop of N, each request sent once). Per
   client: the timestamp error of every event, client read time - server
   write time (both CLOCK_MONOTONIC; the server's taken just before its
   write), P50, P99 and max; the client's CPU (user + system, from wait4)
   per token; the server's own lateness (write - schedule) in that run.
2. Rates. The server answers each request at once with one token; the
   client sends at R requests/s (constant arrivals) for --rate-seconds.
   The achieved rate: (n - 1) / (last start - first start), from the
   actual send times; and the dispatch delay (start - intended start).

The server runs on CPU 0 and the client on CPU 1 (taskset), each alone on
its core when the machine is otherwise idle; --nice -20 (as root) gives
both the scheduler's priority over whatever else shares their cores (a
shared machine's builds), the same for either client: each runs in a
session of its own whose autogroup gets that nice value (with
kernel.sched_autogroup_enabled, the nice value of a process counts only
within its autogroup). --fifo runs both under SCHED_FIFO (chrt -f 1, as
root): they preempt every ordinary process at once (the kernel's RT
throttling still leaves others 5% of each second; the measured programs
sleep in epoll_wait between events, but a saturated client takes its core
for the run). The load average is
printed beside the figures. Timings are the machine's: not a test.
"""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def pct(sorted_values, q):
    if not sorted_values:
        return float("nan")
    i = min(len(sorted_values) - 1, int(q * (len(sorted_values) - 1) + 0.5))
    return sorted_values[i]


NICE = []  # ["nice", "-n", N] with --nice
FIFO = []  # ["chrt", "-f", "1"] with --fifo


def prioritize(proc):
    """With --nice, the process's own session's autogroup gets the value."""
    if NICE:
        try:
            with open("/proc/%d/autogroup" % proc.pid, "w") as f:
                f.write(NICE[2])
        except OSError as e:
            sys.exit("cannot set the autogroup's nice value (--nice needs root): %s" % e)


class Server:
    def __init__(self, build, script, seconds, cpu):
        self.dir = tempfile.mkdtemp(prefix="stream-bench-")
        self.log = os.path.join(self.dir, "events.log")
        self.stats = os.path.join(self.dir, "stats.json")
        exe = os.path.join(build, "tests", "bench", "stream_server")
        if not os.path.exists(exe):
            exe = os.path.join(build, "bench", "stream_server")
        self.proc = subprocess.Popen(
            [*FIFO, *NICE, "taskset", "-c", str(cpu), exe, "--seconds", str(seconds), "--script", script,
             "--log", self.log, "--stats", self.stats],
            stdout=subprocess.PIPE, universal_newlines=True, start_new_session=bool(NICE))
        prioritize(self.proc)
        m = re.match(r"listening on 127\.0\.0\.1:(\d+)", self.proc.stdout.readline())
        self.url = "http://127.0.0.1:%s" % m.group(1)

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        self.proc.stdout.close()
        writes = {}
        with open(self.log) as f:
            for line in f:
                i, e, w, _ = line.split()
                writes[(int(i), int(e))] = int(w)
        with open(self.stats) as f:
            stats = json.load(f)
        for p in (self.log, self.stats):
            os.unlink(p)
        os.rmdir(self.dir)
        return writes, stats


def run_timed(args, cpu):
    """Runs args on cpu; its exit status, wall seconds, CPU seconds."""
    t = time.monotonic()
    p = subprocess.Popen([*FIFO, *NICE, "taskset", "-c", str(cpu), *args], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, universal_newlines=True,
                         start_new_session=bool(NICE))
    prioritize(p)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(args), err))
    return time.monotonic() - t, ru.ru_utime + ru.ru_stime


def llmlat_events(trace):
    """{(number, index): read_ns} from llmlat bench's trace."""
    out = {}
    with open(trace) as f:
        for line in f:
            r = json.loads(line)
            i = int(r["id"].rsplit("-", 1)[1])
            content = [t for t, k in r["events"] if k > 0]
            for e, t in enumerate(content):
                out[(i, e)] = int(round(t * 1e9))
    return out


def python_events(path):
    out = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            for e, t in enumerate(r["events"]):
                out[(r["id"], e)] = t
    return out


def errors(reads, writes):
    errs = sorted(reads[k] - writes[k] for k in reads if k in writes)
    missing = sum(1 for k in writes if k not in reads)
    return errs, missing


def streams_run(args, n, client):
    tokens = int(args.seconds * args.token_rate)
    gap = 1.0 / args.token_rate
    ttft = 0.1 + n * 200e-6
    script = "ttft=%g,gap=%g,spread=%g,tokens=%d,usage=1" % (ttft, gap, gap, tokens)
    srv = Server(args.build, script, args.seconds * 3 + 60, cpu=0)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.jsonl")
        if client == "llmlat":
            cmd = [os.path.join(args.build, "tools", "llmlat"), "bench", "--base-url", srv.url,
                   "--concurrency", str(n), "--requests", str(n), "--input-len", "4",
                   "--output-len", str(tokens), "--timeout", str(args.seconds * 3),
                   "--quiet", "--output", out]
        else:
            cmd = ["/usr/bin/python3", os.path.join(HERE, "py_stream_client.py"), "--url",
                   srv.url + "/v1/completions", "--streams", str(n), "--tokens", str(tokens),
                   "--output", out]
        wall, cpu = run_timed(cmd, cpu=1)
        writes, stats = srv.stop()
        reads = llmlat_events(out) if client == "llmlat" else python_events(out)
    errs, missing = errors(reads, writes)
    return {
        "client": client, "streams": n, "token_rate": args.token_rate, "events": len(errs),
        "missing": missing,
        "error_p50_us": pct(errs, 0.5) / 1e3, "error_p99_us": pct(errs, 0.99) / 1e3,
        "error_max_us": errs[-1] / 1e3 if errs else float("nan"),
        "error_min_us": errs[0] / 1e3 if errs else float("nan"),
        "cpu_s": cpu, "wall_s": wall, "cpu_per_token_us": cpu / max(1, len(errs)) * 1e6,
        "server_late_p99_us": stats["late_p99_ns"] / 1e3,
        "server_late_max_us": stats["late_max_ns"] / 1e3,
        "load": load_average(),
    }


def rate_run(args, rate, client):
    srv = Server(args.build, "ttft=0,gap=0,tokens=1,usage=1", args.rate_seconds * 3 + 60,
                 cpu=0)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.jsonl")
        if client == "llmlat":
            cmd = [os.path.join(args.build, "tools", "llmlat"), "bench", "--base-url", srv.url,
                   "--rate", str(rate), "--arrival", "constant", "--duration",
                   str(args.rate_seconds), "--input-len", "4", "--output-len", "1", "--quiet",
                   "--output", out]
        else:
            cmd = ["/usr/bin/python3", os.path.join(HERE, "py_stream_client.py"), "--url",
                   srv.url + "/v1/completions", "--rate", str(rate), "--seconds",
                   str(args.rate_seconds), "--output", out]
        wall, cpu = run_timed(cmd, cpu=1)
        srv.stop()
        starts, delays, failed = [], [], 0
        with open(out) as f:
            for line in f:
                r = json.loads(line)
                if client == "llmlat":
                    starts.append(int(round(r["start"] * 1e9)))
                    delays.append(int(round(r["start"] * 1e9)) - int(round(r["scheduled"] * 1e9)))
                    failed += not r["ok"]
                else:
                    starts.append(r["start"])
                    failed += not r["events"]
    starts.sort()
    delays.sort()
    achieved = (len(starts) - 1) / ((starts[-1] - starts[0]) / 1e9)
    return {
        "client": client, "target_rate": rate, "requests": len(starts), "failed": failed,
        "achieved_rate": achieved, "achieved_vs_target_pct": 100 * (achieved / rate - 1),
        "dispatch_p50_us": pct(delays, 0.5) / 1e3 if delays else None,
        "dispatch_p99_us": pct(delays, 0.99) / 1e3 if delays else None,
        "cpu_s": cpu, "load": load_average(),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--streams", default="100,1000,10000")
    ap.add_argument("--token-rate", type=float, default=10)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--rates", default="1000,5000")
    ap.add_argument("--rate-seconds", type=float, default=10)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--clients", default="llmlat,python")
    ap.add_argument("--nice", type=int)
    ap.add_argument("--fifo", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    if args.nice is not None:
        NICE[:] = ["nice", "-n", str(args.nice)]
    if args.fifo:
        FIFO[:] = ["chrt", "-f", "1"]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    clients = args.clients.split(",")
    results = {"machine": os.uname().release, "cpus": os.cpu_count(), "streams": [],
               "rates": []}
    print("load average at start: %s" % load_average())
    print("\nTimestamp error (client read - server write) and CPU per token")
    print("%-7s %7s %5s %9s %9s %9s %9s %10s %11s %14s" % (
        "client", "streams", "tok/s", "events", "P50 us", "P99 us", "max us", "CPU us/tok",
        "srv P99 us", "load"))
    for rep in range(args.repeats):
        for n in (int(x) for x in args.streams.split(",") if x):
            for client in clients:
                r = streams_run(args, n, client)
                r["repeat"] = rep
                results["streams"].append(r)
                print("%-7s %7d %5g %9d %9.1f %9.1f %9.1f %10.2f %11.1f %14s%s" % (
                    client, n, args.token_rate, r["events"], r["error_p50_us"], r["error_p99_us"],
                    r["error_max_us"], r["cpu_per_token_us"], r["server_late_p99_us"],
                    r["load"], "  (%d events not read)" % r["missing"] if r["missing"] else ""),
                    flush=True)
    print("\nAchieved vs target rate (constant arrivals)")
    print("%-7s %8s %9s %10s %8s %12s %12s %14s" % (
        "client", "target", "requests", "achieved", "diff %", "disp P50 us", "disp P99 us",
        "load"))
    for rep in range(args.repeats):
        for rate in (float(x) for x in args.rates.split(",") if x):
            for client in clients:
                r = rate_run(args, rate, client)
                r["repeat"] = rep
                results["rates"].append(r)
                disp = ("%12.1f %12.1f" % (r["dispatch_p50_us"], r["dispatch_p99_us"])
                        if r["dispatch_p50_us"] is not None else "%12s %12s" % ("-", "-"))
                print("%-7s %8.0f %9d %10.1f %8.2f %s %14s" % (
                    client, rate, r["requests"], r["achieved_rate"],
                    r["achieved_vs_target_pct"], disp, r["load"]), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
