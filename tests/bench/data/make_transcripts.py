#!/usr/bin/python3
"""Writes the vLLM, SGLang and TGI transcripts of tests/bench/data/ (the
llama-server ones were captured from a real server: tests/bench/capture.py).

No such server runs here (they need GPUs), so these are built byte for byte
from what their code writes -- each one's README line says from where:

- vLLM (uvicorn + FastAPI StreamingResponse): every `yield f"data: {json}\\n\\n"`
  of vllm/entrypoints/openai/serving_completion.py and serving_chat.py is one
  HTTP chunk; chunks are pydantic model_dump_json() (nulls included), the
  usage chunk has "choices": [] (stream_options.include_usage); completions
  logprobs are {"text_offset", "token_logprobs", "tokens", "top_logprobs"};
  a mid-stream error is `data: {"error": {...}}` followed by `data: [DONE]`
  (create_streaming_error_response). Chat chunk shapes as in vLLM issue
  #6083's transcript.
- SGLang (python/sglang/srt/entrypoints/openai/serving_completions.py):
  model_dump_json() chunks with "matched_stop"; with --stream-interval N a
  chunk carries N tokens (delta = text[offset:]), its logprobs list each;
  the final usage chunk is dumped with exclude_none.
- TGI (router/src/server.rs on axum): axum writes "data:" with no space
  before the value; chunk objects as in TGI's integration snapshot
  test_flash_llama_completion_stream_usage.json; an error is
  `data:{"error": "...", "error_type": "..."}` (impl From<InferError> for
  Event); hyper's chunk sizes are lower-case hex.

    /usr/bin/python3 tests/bench/data/make_transcripts.py   (from the repo root)
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def chunked(pieces):
    out = b""
    for p in pieces:
        out += b"%x\r\n" % len(p) + p + b"\r\n"
    return out + b"0\r\n\r\n"


def dump(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def sse(obj, space=True):
    data = obj if isinstance(obj, bytes) else dump(obj)
    return (b"data: " if space else b"data:") + data + b"\n\n"


UVICORN = (b"HTTP/1.1 200 OK\r\ndate: Sat, 06 Dec 2025 10:00:00 GMT\r\nserver: uvicorn\r\n"
           b"content-type: text/event-stream; charset=utf-8\r\ntransfer-encoding: chunked\r\n\r\n")
AXUM = (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
        b"x-compute-type: 1-nvidia-a10g\r\nx-accel-buffering: no\r\n"
        b"access-control-allow-origin: *\r\ntransfer-encoding: chunked\r\n"
        b"date: Sat, 06 Dec 2025 10:00:00 GMT\r\n\r\n")


def write(server, name, raw):
    os.makedirs(os.path.join(HERE, server), exist_ok=True)
    with open(os.path.join(HERE, server, name + ".http"), "wb") as f:
        f.write(raw)


def vllm():
    model = "meta-llama/Llama-3.1-8B-Instruct"
    base = {"id": "cmpl-5e1a7c0b9d2f4e3a8b6c1d0e9f8a7b6c", "object": "text_completion",
            "created": 1765015200, "model": model}

    def comp(text, finish=None, logprobs=None):
        return dict(base, choices=[{"index": 0, "text": text, "logprobs": logprobs,
                                    "finish_reason": finish, "stop_reason": None}], usage=None)

    usage = dict(base, choices=[], usage={"prompt_tokens": 6, "total_tokens": 11,
                                          "completion_tokens": 5})
    events = [comp(" Paris"), comp(","), comp(" the"), comp(" capital"),
              comp(" of", finish="length"), usage]
    write("vllm", "completions-usage",
          UVICORN + chunked([sse(e) for e in events] + [sse(b"[DONE]")]))

    # Speculative decoding: one chunk of 3 tokens, its logprobs list each.
    def lp(tokens):
        return {"text_offset": list(range(len(tokens))),
                "token_logprobs": [-0.25] * len(tokens), "tokens": tokens,
                "top_logprobs": [{t: -0.25} for t in tokens]}
    events = [comp(" Paris", logprobs=lp([" Paris"])),
              comp(", the capital", logprobs=lp([",", " the", " capital"])),
              comp(" of France", finish="length", logprobs=lp([" of", " France"])),
              dict(usage, usage={"prompt_tokens": 6, "total_tokens": 12,
                                 "completion_tokens": 6})]
    write("vllm", "completions-logprobs-spec",
          UVICORN + chunked([sse(e) for e in events] + [sse(b"[DONE]")]))

    chat = {"id": "chatcmpl-0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c", "object": "chat.completion.chunk",
            "created": 1765015200, "model": model}

    def delta(d, finish=None):
        return dict(chat, choices=[{"index": 0, "delta": d, "logprobs": None,
                                    "finish_reason": finish}])
    events = [delta({"role": "assistant", "content": ""}), delta({"content": "Hello"}),
              delta({"content": "!"}), delta({"content": " How"}),
              delta({"content": ""}, finish="stop"),
              dict(chat, choices=[], usage={"prompt_tokens": 12, "total_tokens": 16,
                                            "completion_tokens": 4})]
    write("vllm", "chat-usage", UVICORN + chunked([sse(e) for e in events] + [sse(b"[DONE]")]))

    err = {"error": {"message": "The decoder prompt (length 9000) is longer than the maximum "
                                "model length of 8192.", "type": "BadRequestError",
                     "param": None, "code": 400}}
    events = [delta({"role": "assistant", "content": ""}), delta({"content": "Hi"}), err]
    write("vllm", "chat-error", UVICORN + chunked([sse(e) for e in events] + [sse(b"[DONE]")]))

    body = dump({"error": {"message": "The model `gpt-4` does not exist.",
                           "type": "NotFoundError", "param": None, "code": 404}})
    write("vllm", "not-found",
          b"HTTP/1.1 404 Not Found\r\ndate: Sat, 06 Dec 2025 10:00:00 GMT\r\nserver: uvicorn\r\n"
          b"content-length: %d\r\ncontent-type: application/json\r\n\r\n" % len(body) + body)


def sglang():
    model = "Qwen/Qwen2.5-7B-Instruct"
    base = {"id": "8c2d4e6f0a1b3c5d7e9f1a2b3c4d5e6f", "object": "text_completion",
            "created": 1765015200, "model": model}

    def comp(text, tokens, finish=None):
        return dict(base, choices=[{"index": 0, "text": text,
                                    "logprobs": {"text_offset": [0] * len(tokens),
                                                 "token_logprobs": [-0.5] * len(tokens),
                                                 "tokens": tokens,
                                                 "top_logprobs": [None] * len(tokens)},
                                    "finish_reason": finish, "matched_stop": None}],
                    usage=None)
    # --stream-interval 4: four tokens a chunk, the last chunk the rest.
    events = [comp(" The sky is blue", [" The", " sky", " is", " blue"]),
              comp(" because of Rayleigh", [" because", " of", " Ray", "leigh"]),
              comp(" scattering.", [" scattering", "."], finish="length"),
              dict(base, choices=[], usage={"prompt_tokens": 9, "total_tokens": 19,
                                            "completion_tokens": 10})]
    write("sglang", "completions-interval4",
          UVICORN + chunked([sse(e) for e in events] + [sse(b"[DONE]")]))

    err = {"error": {"object": "error", "message": "Generation aborted.",
                     "type": "SERVICE_UNAVAILABLE", "param": None, "code": 503}}
    events = [dict(base, choices=[{"index": 0, "text": " The", "logprobs": None,
                                   "finish_reason": None, "matched_stop": None}], usage=None),
              err]
    write("sglang", "completions-abort",
          UVICORN + chunked([sse(e) for e in events] + [sse(b"[DONE]")]))


def tgi():
    model = "meta-llama/Llama-3.1-8B-Instruct"
    base = {"created": 1741274364, "id": "", "model": model, "object": "chat.completion.chunk",
            "system_fingerprint": "3.1.2-dev0-native"}

    def delta(content, finish=None):
        return dict(base, choices=[{"delta": {"content": content, "role": "assistant",
                                              "tool_calls": None},
                                    "finish_reason": finish, "index": 0, "logprobs": None}],
                    usage=None)
    events = [delta("**"), delta("Deep"), delta(" Learning"), delta(":"),
              delta("\n\n", finish="length"),
              dict(base, choices=[], usage={"completion_tokens": 5, "prompt_tokens": 40,
                                            "total_tokens": 45})]
    write("tgi", "chat-usage",
          AXUM + chunked([sse(e, space=False) for e in events] + [sse(b"[DONE]", space=False)]))

    err = {"error": "Request failed during generation: Server error: CUDA out of memory",
           "error_type": "generation"}
    events = [delta("Deep"), err]
    write("tgi", "chat-error", AXUM + chunked([sse(e, space=False) for e in events]))

    body = dump({"error": "Input validation error: `inputs` tokens + `max_new_tokens` must be "
                          "<= 4096. Given: 4000 `inputs` tokens and 200 `max_new_tokens`",
                 "error_type": "validation"})
    write("tgi", "validation",
          b"HTTP/1.1 422 Unprocessable Entity\r\ncontent-type: application/json\r\n"
          b"content-length: %d\r\ndate: Sat, 06 Dec 2025 10:00:00 GMT\r\n\r\n" % len(body) + body)


if __name__ == "__main__":
    vllm()
    sglang()
    tgi()
