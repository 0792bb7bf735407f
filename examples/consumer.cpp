// consumer.c in C++, through llmlat.hpp: the same responses, the same
// summary, the same output (tests/abi/consumer.expected), with RAII owners
// and no exception (it builds with -fno-exceptions).
//
// Build against an installed llmlat:
//     c++ -std=c++17 consumer.cpp $(pkg-config --cflags --libs llmlat) -o consumer
#include <llmlat.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr std::int64_t MS = 1000000;

// One streamed response: when it was sent, when each chunk arrived and how
// many tokens the chunk carried, how it ended.
struct response {
    std::int64_t sent;
    std::int64_t first; // first chunk, relative to sent
    std::int64_t gap;   // between chunks
    std::uint32_t chunks;
    std::uint32_t tokens_per_chunk;
    std::uint64_t prompt_tokens;
    bool failed;
};

const response RESPONSES[] = {
    {0 * MS, 120 * MS, 20 * MS, 50, 1, 512, false},
    {30 * MS, 95 * MS, 25 * MS, 40, 1, 128, false},
    {60 * MS, 210 * MS, 40 * MS, 12, 2, 2048, false}, // speculative decoding: 2 per chunk
    {90 * MS, 80 * MS, 15 * MS, 1, 1, 64, false},     // one token: TPOT undefined
    {120 * MS, 300 * MS, 30 * MS, 5, 1, 256, true},   // timed out
};

bool check(llmlat::status st, const char *what)
{
    if (!st.ok())
        std::fprintf(stderr, "consumer: %s: %s\n", what, st.message());
    return st.ok();
}

// Records every response into a, reusing one recorder as a server would;
// the chunks of each response go in with one bulk call.
bool record_all(llmlat::aggregator &a)
{
    auto r = llmlat::request::create();
    if (!check(r.error(), "request"))
        return false;
    std::vector<std::int64_t> times;
    std::vector<std::uint32_t> tokens;
    for (const response &s : RESPONSES) {
        std::int64_t t = s.sent + s.first;
        times.assign(1, t - 5 * MS); // the role chunk, no token yet: vLLM's TTFT counts it
        tokens.assign(1, 0);
        for (std::uint32_t c = 0; c < s.chunks; c++, t += s.gap) {
            times.push_back(t);
            tokens.push_back(s.tokens_per_chunk);
        }
        t -= s.gap;
        bool ok = check(r->start(s.sent), "start") &&
                  check(r->set_input_tokens(s.prompt_tokens), "input tokens") &&
                  check(r->events(times, tokens), "events") &&
                  check(s.failed ? r->fail(t) : r->finish(t), "end") &&
                  check(a.add(*r), "add") && check(r->reset(), "reset");
        if (!ok)
            return false;
    }
    return true;
}

void print_ms(const llmlat::aggregator &a, std::int32_t metric, const char *label)
{
    auto mean = a.stat(metric, LLMLAT_STAT_MEAN);
    auto p50 = a.quantile(metric, 0.5);
    auto p99 = a.quantile(metric, 0.99);
    if (!mean || !p50 || !p99) {
        std::printf("  %-6s undefined\n", label);
        return;
    }
    std::printf("  %-6s mean %8.3f ms  p50 %8.3f ms  p99 %8.3f ms\n", label, *mean * 1e3,
                *p50 * 1e3, *p99 * 1e3);
}

bool summary(std::int32_t convention)
{
    auto a = llmlat::aggregator::create(convention, LLMLAT_MODE_EXACT);
    if (!check(a.error(), "aggregator") || !record_all(*a))
        return false;
    auto done = a->counter(LLMLAT_COUNT_COMPLETED);
    auto failed = a->counter(LLMLAT_COUNT_FAILED);
    auto out = a->counter(LLMLAT_COUNT_OUTPUT_TOKENS);
    auto no_tpot = a->counter(LLMLAT_COUNT_TPOT_UNDEFINED);
    auto rps = a->rate(LLMLAT_RATE_REQUESTS);
    auto tps = a->rate(LLMLAT_RATE_OUTPUT_TOKENS);
    if (!done || !failed || !out || !no_tpot || !rps || !tps)
        return false;
    std::printf("%s: %llu completed, %llu failed, %llu output tokens, %llu without TPOT\n",
                llmlat::convention_name(convention), static_cast<unsigned long long>(*done),
                static_cast<unsigned long long>(*failed), static_cast<unsigned long long>(*out),
                static_cast<unsigned long long>(*no_tpot));
    std::printf("  %.3f requests/s, %.3f output tokens/s\n", *rps, *tps);
    print_ms(*a, LLMLAT_TTFT, "TTFT");
    print_ms(*a, LLMLAT_TPOT, "TPOT");
    print_ms(*a, LLMLAT_ITL, "ITL");
    print_ms(*a, LLMLAT_E2E, "E2E");
    return true;
}

} // namespace

int main()
{
    // A program built against one major version must not run on another.
    if (llmlat::version_number() / 10000 != LLMLAT_VERSION_MAJOR) {
        std::fprintf(stderr, "consumer: built for llmlat %d.x, running with %s\n",
                     LLMLAT_VERSION_MAJOR, llmlat::version_string());
        return EXIT_FAILURE;
    }
    std::printf("llmlat %s\n", llmlat::version_string());
    bool ok = summary(LLMLAT_CONV_DEFAULT);
    ok = summary(LLMLAT_CONV_VLLM) && ok;
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
