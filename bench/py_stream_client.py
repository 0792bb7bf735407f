#!/usr/bin/python3
"""The Python reference of bench/stream_bench.py: an asyncio client with
aiohttp (Debian's python3-aiohttp) that does what `vllm bench serve`'s
request function does (vllm/benchmarks/lib/endpoint_request_func.py,
async_request_openai_completions): one shared ClientSession, a POST with
"stream": true per request, `response.content.iter_any()`, the bytes split
into SSE messages at blank lines, "data:" taken off, and for each message
that is not [DONE] and has "choices", time.perf_counter() taken after the
message is split out (CLOCK_MONOTONIC on Linux: the clock of the server's
log).

    py_stream_client.py --url URL --streams N --tokens T --output FILE
    py_stream_client.py --url URL --rate R --seconds S --output FILE

--streams: N requests at once (a closed loop of N, each sent once), each
asking for T tokens. --rate: requests sent at R/s, constant arrivals, as
vLLM's get_request paces them (asyncio.sleep of the interval between
sends). FILE: one JSON line per request: {"id", "start", "events"} with
times in ns.
"""
import argparse
import asyncio
import json
import time

import aiohttp


class SseMessages:
    """Splits streamed bytes into SSE messages at blank lines, as vLLM's
    StreamedResponseHandler does."""

    def __init__(self):
        self.buffer = ""

    def add(self, chunk_bytes):
        self.buffer += chunk_bytes.decode("utf-8")
        messages = []
        while "\n\n" in self.buffer:
            message, self.buffer = self.buffer.split("\n\n", 1)
            message = message.strip()
            if message:
                messages.append(message)
        return messages


async def one_request(session, url, i, tokens, results):
    payload = {"model": "test-model", "prompt": [1000, 1001, 1002, 1003],
               "max_tokens": tokens, "stream": True,
               "stream_options": {"include_usage": True}}
    headers = {"Content-Type": "application/json", "x-request-id": "py-%d" % i}
    events = []
    start = time.perf_counter_ns()
    async with session.post(url=url, json=payload, headers=headers) as response:
        if response.status == 200:
            handler = SseMessages()
            async for chunk_bytes in response.content.iter_any():
                for message in handler.add(chunk_bytes):
                    if message.startswith(":"):
                        continue
                    chunk = message[len("data:"):].strip() if message.startswith(
                        "data:") else message
                    if chunk != "[DONE]":
                        data = json.loads(chunk)
                        if data.get("choices"):
                            timestamp = time.perf_counter_ns()
                            if data["choices"][0].get("text"):
                                events.append(timestamp)
    results.append({"id": i, "start": start, "events": events})


async def streams(args):
    results = []
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=6 * 60 * 60)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        await asyncio.gather(*(one_request(session, args.url, i, args.tokens, results)
                               for i in range(args.streams)))
    return results


async def paced(args):
    results = []
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=6 * 60 * 60)
    interval = 1.0 / args.rate
    n = int(args.rate * args.seconds)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        tasks = []
        for i in range(n):
            tasks.append(asyncio.create_task(one_request(session, args.url, i, 1, results)))
            await asyncio.sleep(interval)
        await asyncio.gather(*tasks)
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--streams", type=int)
    ap.add_argument("--tokens", type=int, default=100)
    ap.add_argument("--rate", type=float)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--output", required=True)
    args = ap.parse_args()
    results = asyncio.run(paced(args) if args.rate else streams(args))
    with open(args.output, "w") as f:
        for r in results:
            f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
