#!/usr/bin/python3
"""Captures the raw bytes of a server's responses (status line, headers,
chunked coding and all) for the stream parsers' tests.

    tests/bench/capture.py URL OUTDIR

URL is the server's base (http://127.0.0.1:8199). Each request of REQUESTS
is sent on its own connection ("Connection: close", so the response ends at
the close) and its response written to OUTDIR/NAME.http as it came off the
socket. tests/bench/data/llama-server/ was made this way (its README says
with which server and model).
"""
import json
import os
import socket
import sys
import urllib.parse

REQUESTS = [
    ("completions-usage", "/v1/completions",
     {"prompt": [1000, 1001, 1002, 1003], "max_tokens": 5, "stream": True, "ignore_eos": True,
      "stream_options": {"include_usage": True}}),
    ("chat-usage", "/v1/chat/completions",
     {"messages": [{"role": "user", "content": "Hi there"}], "max_tokens": 4, "stream": True,
      "ignore_eos": True, "stream_options": {"include_usage": True}}),
    ("completions-logprobs", "/v1/completions",
     {"prompt": [1000, 1001], "max_tokens": 3, "stream": True, "ignore_eos": True,
      "logprobs": 1, "stream_options": {"include_usage": True}}),
    ("chat-logprobs", "/v1/chat/completions",
     {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 3, "stream": True,
      "ignore_eos": True, "logprobs": True, "stream_options": {"include_usage": True}}),
    ("too-long", "/v1/completions",
     {"prompt": list(range(1000, 1700)), "max_tokens": 4, "stream": True}),
    ("bad-json", "/v1/completions", None),
]


def capture(base, path, body):
    u = urllib.parse.urlsplit(base)
    data = b'{"prompt":' if body is None else json.dumps(body).encode()
    head = (f"POST {path} HTTP/1.1\r\nHost: {u.netloc}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n").encode()
    with socket.create_connection((u.hostname, u.port), timeout=60) as s:
        s.sendall(head + data)
        out = bytearray()
        while True:
            b = s.recv(65536)
            if not b:
                return bytes(out)
            out += b


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    base, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    for name, path, body in REQUESTS:
        raw = capture(base, path, body)
        with open(os.path.join(outdir, name + ".http"), "wb") as f:
            f.write(raw)
        status = raw.split(b"\r\n", 1)[0].decode()
        print(f"{name}: {len(raw)} bytes, {status}")


if __name__ == "__main__":
    main()
