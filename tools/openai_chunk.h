/* One chunk of an OpenAI-compatible stream (the JSON data of one SSE event
 * of /v1/completions or /v1/chat/completions), reduced to what a latency
 * measurement needs: whether it is an event of the stream (it has
 * choices), whether it carries output (text, content, reasoning, a tool
 * call), how many tokens its logprobs list, the usage counts, the finish
 * reason, and an error object. A pure function of the bytes. Members
 * the reader does not know, and known members of an unexpected type, are
 * skipped; bytes that are not one JSON object are malformed. */
#ifndef LLMLAT_OPENAI_CHUNK_H
#define LLMLAT_OPENAI_CHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CHUNK_MESSAGE_MAX 200
#define CHUNK_FINISH_MAX 32

typedef struct chunk_info {
    bool choices;               /* a non-empty "choices" array: an event */
    bool content;               /* a choice carries output */
    bool has_logprobs;          /* a choice lists logprobs (content or tokens) */
    uint64_t logprobs;          /* their entries, over the choices */
    bool has_prompt_tokens, has_completion_tokens; /* from "usage" */
    uint64_t prompt_tokens, completion_tokens;
    char finish_reason[CHUNK_FINISH_MAX]; /* "" when none */
    bool error;                 /* an error object instead of a chunk */
    /* The error's message (cut to fit), or, when chunk_read returns
     * false, what is malformed and where. */
    char message[CHUNK_MESSAGE_MAX];
} chunk_info;

/* Reads one chunk into *out. false when the bytes are not one JSON object
 * (out->message says why). Error shapes read: {"error": {"message": ...}}
 * (OpenAI, vLLM, SGLang, llama.cpp), {"error": "...", "error_type": ...}
 * (TGI), {"object": "error", "message": ...} (vLLM's ErrorResponse). */
bool chunk_read(const char *json, size_t len, chunk_info *out);

#endif
