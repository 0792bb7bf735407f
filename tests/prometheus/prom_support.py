"""What the Prometheus end-to-end tests share: free ports, HTTP fetches, the
processes they start (each stopped at the end), Prometheus' query API, and
Prometheus' own arithmetic for classic buckets and native ones."""

import json
import math
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.parse
import urllib.request


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def fetch(url, timeout=5, accept=None):
    req = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.read()


def native_index(v, schema):
    """The native bucket (base^(i-1), base^i] holding v > 0."""
    return math.ceil(math.log2(v) * 2 ** schema - 1e-9)


def classic_quantile(q, buckets):
    """Prometheus' bucketQuantile over [(le, cumulative count)]: linear
    inside the bucket holding rank q * count, the first bucket starting at
    0, the +Inf bucket giving the last finite bound."""
    total = buckets[-1][1]
    rank = q * total
    prev_le, prev_count = 0.0, 0.0
    for le, count in buckets:
        if count >= rank:
            if math.isinf(le):
                return prev_le
            return prev_le + (le - prev_le) * (rank - prev_count) / (count - prev_count)
        prev_le, prev_count = le, count
    return prev_le


def classic_buckets(text, family):
    """[(le, cumulative count)] of the one unlabelled histogram `family` in
    a text exposition."""
    prefix = family + '_bucket{le="'
    out = []
    for line in text.splitlines():
        if line.startswith(prefix):
            le, count = line[len(prefix):].split('"} ')
            out.append((float(le), float(count)))
    if not out:
        raise AssertionError("no buckets of %s" % family)
    return out


class Processes:
    """The processes a test starts and a temporary directory, all gone on
    close()."""

    def __init__(self, prefix):
        self.procs = []
        self.tmp = tempfile.mkdtemp(prefix=prefix)
        self.logs = []

    def spawn(self, args, **kw):
        p = subprocess.Popen(args, stdin=subprocess.DEVNULL, **kw)
        self.procs.append(p)
        return p

    def exporter(self, exporter, *args):
        """An examples/prometheus-exporter: (port, process), once it listens."""
        p = self.spawn([exporter, "--port", "0", *args], stdout=subprocess.PIPE, text=True)
        line = p.stdout.readline()
        if not line.startswith("listening on 127.0.0.1:"):
            raise AssertionError("exporter: %r" % line)
        return int(line.rsplit(":", 1)[1]), p

    def prometheus(self, prometheus, config_text):
        """Prometheus 2.x on a free loopback port with native histograms
        and this configuration: the query API's base URL."""
        config = os.path.join(self.tmp, "prometheus.yml")
        with open(config, "w") as f:
            f.write(config_text)
        port = free_port()
        log = open(os.path.join(self.tmp, "prometheus.log"), "w")
        self.logs.append(log)
        self.spawn([prometheus, "--config.file=" + config,
                    "--storage.tsdb.path=" + os.path.join(self.tmp, "data"),
                    "--web.listen-address=127.0.0.1:%d" % port,
                    "--enable-feature=native-histograms", "--log.level=warn"],
                   stdout=log, stderr=subprocess.STDOUT)
        return "http://127.0.0.1:%d/api/v1/" % port

    def log_text(self):
        return "".join(open(log.name).read() for log in self.logs)

    def close(self):
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            if p.stdout:
                p.stdout.close()
        for log in self.logs:
            log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


class ProcessesTest(unittest.TestCase):
    """A test class whose start() (a classmethod) starts its processes in
    cls.processes: all stopped at the end, or as soon as start() fails."""

    @classmethod
    def setUpClass(cls):
        cls.processes = Processes("llmlat-prom-")
        try:
            cls.start()
        except BaseException:
            cls.processes.close()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.processes.close()


class Api:
    """Prometheus' HTTP query API."""

    def __init__(self, base):
        self.base = base

    def get(self, path, **params):
        url = self.base + path + "?" + urllib.parse.urlencode(params, doseq=True)
        body = json.loads(fetch(url))
        if body.get("status") != "success":
            raise ValueError("%s %s: %s" % (path, params, body))
        return body["data"]

    def query(self, promql, at=None):
        params = {"query": promql}
        if at is not None:
            params["time"] = "%.3f" % at
        return self.get("query", **params)["result"]

    def value(self, promql, at=None):
        """The single float of an instant query (a one-series vector)."""
        result = self.query(promql, at)
        if len(result) != 1:
            raise ValueError("%s: %d series" % (promql, len(result)))
        return float(result[0]["value"][1])


def wait_until(check, deadline, what, log=lambda: ""):
    """Polls check() (exceptions count as not yet) until it is true."""
    while True:
        try:
            if check():
                return
        except (OSError, ValueError, KeyError, IndexError):
            pass
        if time.monotonic() > deadline:
            raise AssertionError("%s: not in time; Prometheus' log:\n%s" % (what, log()))
        time.sleep(0.5)
