/* include/llmlat.hpp without exceptions (built with -fno-exceptions, as
 * C++17 and as C++20, by g++ and clang++): RAII and moves, statuses and
 * results, the bulk calls through llmlat::span, and every answer equal to
 * the C API's on the same data. */
#include "llmlat.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "check.h"

using llmlat::aggregator;
using llmlat::request;
using llmlat::status;

static_assert(!std::is_copy_constructible<request>::value, "move-only");
static_assert(!std::is_copy_assignable<request>::value, "move-only");
static_assert(std::is_nothrow_move_constructible<request>::value, "noexcept moves");
static_assert(std::is_nothrow_move_assignable<request>::value, "noexcept moves");
static_assert(!std::is_copy_constructible<aggregator>::value, "move-only");
static_assert(!std::is_copy_assignable<aggregator>::value, "move-only");
static_assert(std::is_nothrow_move_constructible<aggregator>::value, "noexcept moves");
static_assert(std::is_nothrow_move_assignable<aggregator>::value, "noexcept moves");
static_assert(sizeof(request) == sizeof(llmlat_request *), "just the handle");
static_assert(sizeof(aggregator) == sizeof(llmlat_agg *), "just the handle");
#if __cplusplus >= 202002L && !defined(__cpp_lib_span)
#  error "C++20 without std::span: llmlat.hpp's detection (or this toolchain) is wrong"
#endif
#if defined(__cpp_lib_span)
static_assert(std::is_same<llmlat::span<const double>, std::span<const double>>::value,
              "C++20: std::span itself");
#endif

static const std::int64_t MS = 1000000;

/* DESIGN.md's example: A = 100 tokens 10 ms apart, B = 2 tokens 50 ms apart
 * (mean TPOT 30 ms, mean ITL 10.4 ms), recorded through three kinds of
 * containers; the same into a C aggregator. */
static void feed(aggregator &agg, llmlat_agg *c)
{
    auto r = request::create();
    CHECK(r.ok());
    llmlat_request *cr = llmlat_request_new();

    std::vector<std::int64_t> ta;
    for (int i = 0; i < 100; i++)
        ta.push_back(100 * MS + i * 10 * MS);
    std::vector<std::uint32_t> ka(ta.size(), 1);
    CHECK(r->start(0).ok());
    CHECK(r->events(ta, ka).ok());
    CHECK(r->set_input_tokens(7).ok());
    CHECK(r->finish(ta.back()).ok());
    CHECK(agg.add(*r).ok());
    llmlat_request_start(cr, 0);
    llmlat_request_events(cr, ta.data(), ka.data(), ta.size());
    llmlat_request_set_input_tokens(cr, 7);
    llmlat_request_finish(cr, ta.back());
    llmlat_agg_add(c, cr);

    const std::int64_t tb[] = {100 * MS, 150 * MS};
    const std::array<std::uint32_t, 2> kb = {{1, 1}};
    CHECK(r->reset().ok());
    CHECK(r->start(0).ok());
    CHECK(r->events(tb, kb).ok());
    CHECK(r->finish(150 * MS).ok());
    CHECK(r->value(LLMLAT_CONV_DEFAULT, LLMLAT_TPOT).value_or(-1) == 0.05);
    CHECK(agg.add(*r).ok());
    llmlat_request_reset(cr);
    llmlat_request_start(cr, 0);
    llmlat_request_events(cr, tb, kb.data(), 2);
    llmlat_request_finish(cr, 150 * MS);
    llmlat_agg_add(c, cr);

    /* a failed one, through a pointer and a size */
    std::int64_t tf = 20 * MS;
    std::uint32_t kf = 3;
    CHECK(r->reset().ok());
    CHECK(r->start(0).ok());
    CHECK(r->events(llmlat::span<const std::int64_t>(&tf, 1),
                    llmlat::span<const std::uint32_t>(&kf, 1)).ok());
    CHECK(r->fail(30 * MS).ok());
    CHECK(agg.add(*r).ok());
    llmlat_request_reset(cr);
    llmlat_request_start(cr, 0);
    llmlat_request_events(cr, &tf, &kf, 1);
    llmlat_request_fail(cr, 30 * MS);
    llmlat_agg_add(c, cr);

    /* a cancelled one */
    CHECK(r->reset().ok());
    CHECK(r->start(0).ok());
    CHECK(r->cancel(40 * MS).ok());
    std::int32_t state = -1;
    CHECK(llmlat_request_get_state(r->get(), &state) == LLMLAT_OK);
    CHECK(state == LLMLAT_STATE_CANCELLED);
    CHECK(agg.add(*r).ok());
    llmlat_request_reset(cr);
    llmlat_request_start(cr, 0);
    llmlat_request_cancel(cr, 40 * MS);
    llmlat_agg_add(c, cr);
    llmlat_request_free(cr);
}

static bool same(double a, double b)
{
    return std::memcmp(&a, &b, sizeof a) == 0; /* NaN too, bit for bit */
}

static void test_answers_equal_c()
{
    auto agg = aggregator::create(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    CHECK(agg.ok());
    llmlat_agg *c = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    CHECK(agg->set_param(LLMLAT_PARAM_SLO_TTFT, 0.5).ok());
    llmlat_agg_set_param(c, LLMLAT_PARAM_SLO_TTFT, 0.5);
    feed(*agg, c);

    CHECK(std::fabs(agg->stat(LLMLAT_TPOT, LLMLAT_STAT_MEAN).value_or(0) - 0.030) < 1e-12);
    CHECK(std::fabs(agg->stat(LLMLAT_ITL, LLMLAT_STAT_MEAN).value_or(0) - 0.0104) < 1e-12);
    for (std::int32_t m = LLMLAT_TTFT; m <= LLMLAT_INPUT_TOKENS; m++) {
        for (std::int32_t s = LLMLAT_STAT_COUNT; s <= LLMLAT_STAT_MEDIAN; s++) {
            double want = NAN;
            std::int32_t st = llmlat_agg_stat(c, m, s, &want);
            auto got = agg->stat(m, s);
            CHECK(got.error().code() == st);
            CHECK(same(*got, want));
        }
        double want = NAN;
        std::int32_t st = llmlat_agg_quantile(c, m, 0.99, &want);
        auto got = agg->quantile(m, 0.99);
        CHECK(got.error().code() == st && same(*got, want));
    }
    for (std::int32_t rate = LLMLAT_RATE_REQUESTS; rate <= LLMLAT_RATE_PEAK_OUTPUT_TOKENS; rate++) {
        double want = NAN;
        std::int32_t st = llmlat_agg_rate(c, rate, &want);
        auto got = agg->rate(rate);
        CHECK(got.error().code() == st && same(*got, want));
    }
    for (std::int32_t k = LLMLAT_COUNT_COMPLETED; k <= LLMLAT_COUNT_PEAK_CONCURRENCY; k++) {
        std::uint64_t want = 0;
        std::int32_t st = llmlat_agg_counter(c, k, &want);
        auto got = agg->counter(k);
        CHECK(got.error().code() == st && *got == want);
    }
    CHECK(agg->counter(LLMLAT_COUNT_COMPLETED).value_or(0) == 2);
    CHECK(agg->counter(LLMLAT_COUNT_FAILED).value_or(0) == 2); /* failed, cancelled */

    const std::vector<double> qs = {0.5, 0.9, 0.99};
    std::vector<double> out(qs.size()), want(qs.size());
    CHECK(agg->quantiles(LLMLAT_ITL, qs, out).ok());
    llmlat_agg_quantiles(c, LLMLAT_ITL, qs.data(), qs.size(), want.data());
    CHECK(out == want);
    std::vector<double> short_out(2);
    CHECK(agg->quantiles(LLMLAT_ITL, qs, short_out).code() == LLMLAT_EINVAL);

    for (std::int32_t f = LLMLAT_FORMAT_TEXT; f <= LLMLAT_FORMAT_PROMETHEUS; f++) {
        auto text = agg->report(f);
        CHECK(text.ok());
        std::size_t len = 0;
        llmlat_agg_report(c, f, nullptr, 0, &len);
        std::string ctext(len, '\0');
        llmlat_agg_report(c, f, &ctext[0], len, &len);
        CHECK(*text == ctext);
        /* the caller's buffer: too small writes nothing and says the size */
        std::vector<char> small(8, 'x');
        std::size_t need = 0;
        CHECK(agg->report(f, small, need).code() == LLMLAT_ENOSPC);
        CHECK(need == ctext.size() && small[0] == 'x');
    }
    CHECK(agg->report(99).error().code() == LLMLAT_EINVAL);
    CHECK(agg->report(99)->empty());

    /* streamed: the pieces make the report; a sink's status stops it */
    std::string streamed;
    int pieces = 0;
    CHECK(agg->report_write(LLMLAT_FORMAT_JSON, [&](const char *b, std::size_t n) {
                  streamed.append(b, n);
                  pieces++;
                  return status();
              }).ok());
    CHECK(pieces >= 1 && streamed == *agg->report(LLMLAT_FORMAT_JSON));
    int calls = 0;
    CHECK(agg->report_write(LLMLAT_FORMAT_TEXT, [&](const char *, std::size_t) {
                  calls++;
                  return LLMLAT_ENOSPC;
              }).code() == LLMLAT_ENOSPC);
    CHECK(calls == 1);
    CHECK(agg->report_write(99, [](const char *, std::size_t) {}).code() == LLMLAT_EINVAL);
    std::size_t total = 0;
    auto count = [](void *user, const void *, std::size_t n) -> std::int32_t {
        *static_cast<std::size_t *>(user) += n;
        return LLMLAT_OK;
    };
    CHECK(agg->report_write(LLMLAT_FORMAT_JSON, count, &total).ok());
    CHECK(total == streamed.size());

    llmlat_agg_free(c);
}

static void test_serialize_merge()
{
    auto a = aggregator::create(LLMLAT_CONV_VLLM, LLMLAT_MODE_BOUNDED);
    auto b = aggregator::create(LLMLAT_CONV_VLLM, LLMLAT_MODE_BOUNDED);
    CHECK(a.ok() && b.ok());
    llmlat_agg *scratch = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_BOUNDED);
    feed(*a, scratch);
    llmlat_agg_free(scratch);

    auto bytes = a->serialize();
    CHECK(bytes.ok() && !bytes->empty());
    auto copy = aggregator::deserialize(*bytes);
    CHECK(copy.ok());
    CHECK(*copy->report(LLMLAT_FORMAT_JSON) == *a->report(LLMLAT_FORMAT_JSON));
    CHECK(copy->mode().value_or(-1) == LLMLAT_MODE_BOUNDED);
    CHECK(copy->convention().value_or(-1) == LLMLAT_CONV_VLLM);
    std::vector<unsigned char> buf(bytes->size());
    std::size_t len = 0;
    CHECK(a->serialize(buf, len).ok() && len == bytes->size() && buf == *bytes);

    const unsigned char junk[] = {1, 2, 3};
    auto bad = aggregator::deserialize(junk);
    CHECK(bad.error().code() == LLMLAT_EFORMAT && !*bad);

    CHECK(b->merge(*a).ok());
    CHECK(b->merge(*copy).ok());
    CHECK(b->counter(LLMLAT_COUNT_COMPLETED).value_or(0) == 4);
    CHECK(a->merge(*a).code() == LLMLAT_EINVAL);
    auto exact = aggregator::create(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    CHECK(b->merge(*exact).code() == LLMLAT_EMISMATCH);
}

static void test_settings()
{
    auto agg = aggregator::create(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    CHECK(agg->set_param(LLMLAT_PARAM_DURATION, 12.5).ok());
    CHECK(agg->param(LLMLAT_PARAM_DURATION).value_or(0) == 12.5);
    CHECK(agg->set_param(LLMLAT_PARAM_DURATION, NAN).code() == LLMLAT_EINVAL);
    CHECK(agg->param(99).error().code() == LLMLAT_EINVAL);
    auto b = llmlat::param_bounds(LLMLAT_PARAM_RELATIVE_ERROR);
    CHECK(b.ok() && b->lo > 0 && b->lo < b->hi);
    CHECK(llmlat::param_bounds(99).error().code() == LLMLAT_EINVAL);

    const double q[] = {0.25, 0.75};
    CHECK(agg->set_quantiles(q).ok());
    CHECK(agg->set_quantiles(llmlat::span<const double>()).code() == LLMLAT_EINVAL);
    const std::vector<double> bounds = {0.1, 0.2, 0.4};
    CHECK(agg->set_buckets(LLMLAT_TTFT, bounds).ok());
    CHECK(agg->set_buckets(LLMLAT_TTFT, {}).ok()); /* back to the default */
    CHECK(agg->set_buckets(LLMLAT_OUTPUT_TOKENS, bounds).code() == LLMLAT_EINVAL);

    CHECK(agg->set_label("model", "llama-3-70b").ok());
    CHECK(agg->set_label(std::string("route"), std::string("/v1/chat")).ok());
    CHECK(agg->set_label("__reserved", "x").code() == LLMLAT_EINVAL);
    CHECK(agg->label_count().value_or(0) == 2);
    auto l = agg->label_at(0);
    CHECK(l.ok() && std::strcmp(l->name, "model") == 0 && std::strcmp(l->value, "llama-3-70b") == 0);
    CHECK(agg->label_at(2).error().code() == LLMLAT_EINVAL);
    CHECK(agg->reset().ok());
    CHECK(agg->label_count().value_or(0) == 2); /* kept by reset */
}

static void test_handles_and_moves()
{
    CHECK(aggregator::create(99, LLMLAT_MODE_EXACT).error().code() == LLMLAT_EINVAL);
    CHECK(aggregator::create(LLMLAT_CONV_DEFAULT, 99).error().code() == LLMLAT_EINVAL);

    request empty;
    CHECK(!empty && empty.get() == nullptr);
    CHECK(empty.start(0).code() == LLMLAT_EINVAL);
    CHECK(empty.value(LLMLAT_CONV_DEFAULT, LLMLAT_TTFT).error().code() == LLMLAT_EINVAL);
    aggregator none;
    CHECK(none.add(empty).code() == LLMLAT_EINVAL);
    CHECK(std::isnan(*none.stat(LLMLAT_TTFT, LLMLAT_STAT_MEAN)));

    auto made = request::create();
    request r = std::move(*made);
    CHECK(r && !*made);
    CHECK(r.start(5).ok());
    request moved;
    moved = std::move(r);
    CHECK(!r && moved);
    request &alias = moved;
    moved = std::move(alias); /* self-move keeps the handle */
    CHECK(moved);
    CHECK(moved.event(4).code() == LLMLAT_EORDER);
    CHECK(moved.event(6, 2).ok());
    CHECK(r.event(7).code() == LLMLAT_EINVAL); /* moved-from owns nothing */

    /* release and adopt */
    llmlat_request *raw = moved.release();
    CHECK(!moved && raw != nullptr);
    request adopted(raw);
    CHECK(adopted.finish(9).ok());
    CHECK(adopted.value(LLMLAT_CONV_DEFAULT, LLMLAT_OUTPUT_TOKENS).value_or(0) == 2.0);

    /* all or nothing, and sizes checked before C sees them */
    auto fresh = request::create();
    CHECK(fresh->start(0).ok());
    const std::int64_t t[] = {1, 2, 3};
    const std::uint32_t k[] = {1, 1};
    CHECK(fresh->events(t, k).code() == LLMLAT_EINVAL);
    const std::int64_t back[] = {5, 4};
    const std::uint32_t k2[] = {1, 1};
    CHECK(fresh->events(back, k2).code() == LLMLAT_EORDER);
    CHECK(fresh->finish(10).ok());
    CHECK(fresh->value(LLMLAT_CONV_DEFAULT, LLMLAT_OUTPUT_TOKENS).value_or(-1) == 0.0);
    auto tpot = fresh->value(LLMLAT_CONV_DEFAULT, LLMLAT_TPOT);
    CHECK(tpot.error().code() == LLMLAT_EUNDEFINED && std::isnan(*tpot) && !tpot);
    CHECK(tpot.value_or(-1.0) == -1.0);
    CHECK(fresh->event(11).code() == LLMLAT_ESTATE);
}

static void test_status_and_library()
{
    status ok;
    CHECK(ok.ok() && ok && ok.code() == LLMLAT_OK && ok == status(LLMLAT_OK));
    status bad(LLMLAT_EORDER);
    CHECK(!bad && bad != ok && std::strcmp(bad.message(), llmlat_strerror(LLMLAT_EORDER)) == 0);
    CHECK(llmlat::version_number() == LLMLAT_VERSION_NUMBER);
    CHECK(std::strcmp(llmlat::version_string(), llmlat_version_string()) == 0);
    CHECK(std::strcmp(llmlat::metric_name(LLMLAT_ITL), "itl") == 0);
    CHECK(llmlat::metric_name(-1) == nullptr);
    CHECK(std::strcmp(llmlat::convention_name(LLMLAT_CONV_VLLM), "vllm") == 0);
    CHECK(llmlat::now_ns() > 0);
}

/* ------------------------------ recorders read back, columns, lacks */

static void test_request_getters_and_lacks()
{
    auto r = request::create();
    CHECK(r.ok());
    CHECK(r->state().value_or(-1) == LLMLAT_STATE_NEW);
    CHECK(r->start_time().error().code() == LLMLAT_ESTATE);
    CHECK(r->start(5 * MS).ok());
    const std::vector<std::int64_t> t = {10 * MS, 20 * MS};
    const std::vector<std::uint32_t> k = {1, 3};
    CHECK(r->events(t, k).ok());
    CHECK(r->set_input_tokens(9).ok());
    CHECK(r->output_tokens().error().code() == LLMLAT_EUNDEFINED && *r->output_tokens() == 4);
    CHECK(r->set_lacks(LLMLAT_LACKS_START_TIMES).ok());
    CHECK(r->set_lacks(LLMLAT_LACKS_CHUNKS).code() == LLMLAT_EINVAL);
    CHECK(r->finish(30 * MS).ok());
    CHECK(r->state().value_or(-1) == LLMLAT_STATE_FINISHED);
    CHECK(r->start_time().value_or(0) == 5 * MS && r->end_time().value_or(0) == 30 * MS);
    auto ev = r->recorded_events();
    CHECK(ev.ok() && ev->t_ns.size() == 2 && ev->k.size() == 2);
    CHECK(ev->t_ns[1] == 20 * MS && ev->k[1] == 3);
    CHECK(r->input_tokens().value_or(0) == 9 && r->lacks().value_or(0) == LLMLAT_LACKS_START_TIMES);

    auto agg = aggregator::create(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    CHECK(agg.ok() && agg->add(*r).ok());
    const char *c_reason = nullptr;
    CHECK(llmlat_agg_unavailable(agg->get(), LLMLAT_KIND_RATE, LLMLAT_RATE_REQUESTS, &c_reason) ==
          LLMLAT_EUNDEFINED);
    auto why = agg->unavailable(LLMLAT_KIND_RATE, LLMLAT_RATE_REQUESTS);
    CHECK(why.ok() && *why == c_reason && c_reason != nullptr);
    auto fine = agg->unavailable(LLMLAT_KIND_METRIC, LLMLAT_TTFT);
    CHECK(fine.ok() && *fine == nullptr);
    CHECK(agg->unavailable(99, LLMLAT_TTFT).error().code() == LLMLAT_EINVAL);

    /* a request known by its per-request values only */
    auto known = request::create();
    CHECK(known->start(0).ok());
    CHECK(known->set_known(LLMLAT_CONV_LLMPERF, LLMLAT_TTFT, 0.2).ok());
    CHECK(known->event(1).code() == LLMLAT_ESTATE);
    CHECK(known->finish(MS).ok());
    CHECK(known->value(LLMLAT_CONV_LLMPERF, LLMLAT_TTFT).value_or(0) == 0.2);
    CHECK(known->lacks().value_or(0) == LLMLAT_LACKS_CHUNKS);
}

static void test_columns_and_buckets()
{
    /* two requests as columns == the same two added one by one */
    const std::vector<std::int64_t> starts = {0, 100 * MS};
    const std::vector<std::uint64_t> offsets = {0, 3, 5};
    const std::vector<std::int64_t> t = {10 * MS, 20 * MS, 35 * MS, 150 * MS, 190 * MS};
    const std::vector<std::uint32_t> k = {1, 2, 1, 1, 4};
    const std::vector<std::uint8_t> ok = {1, 0};
    auto cols = aggregator::create(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    llmlat::columns c;
    c.start_ns = starts;
    c.ok = ok;
    c.offsets = offsets;
    c.t_ns = t;
    c.k = k;
    std::size_t bad = 0;
    CHECK(cols->add_columns(c, &bad).ok());
    auto one = aggregator::create(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    for (std::size_t i = 0; i < 2; i++) {
        auto r = request::create();
        CHECK(r->start(starts[i]).ok());
        std::size_t from = offsets[i], n = offsets[i + 1] - offsets[i];
        CHECK(r->events({t.data() + from, n}, {k.data() + from, n}).ok());
        CHECK((ok[i] ? r->finish(t[from + n - 1]) : r->fail(t[from + n - 1])).ok());
        CHECK(one->add(*r).ok());
    }
    for (std::int32_t m : {LLMLAT_TTFT, LLMLAT_ITL, LLMLAT_E2E})
        CHECK(same(cols->stat(m, LLMLAT_STAT_MEAN).value_or(-1),
                   one->stat(m, LLMLAT_STAT_MEAN).value_or(-2)));
    CHECK(cols->counter(LLMLAT_COUNT_FAILED).value_or(0) == 1);

    /* sizes that do not fit are refused before C reads past a span */
    llmlat::columns short_k = c;
    short_k.k = {k.data(), 4};
    CHECK(cols->add_columns(short_k, &bad).code() == LLMLAT_EINVAL && bad == SIZE_MAX);
    llmlat::columns short_ok = c;
    short_ok.ok = {ok.data(), 1};
    CHECK(cols->add_columns(short_ok).code() == LLMLAT_EINVAL);
    /* a request at fault is named, and nothing is added */
    const std::vector<std::int64_t> backwards = {10 * MS, 5 * MS, 35 * MS, 150 * MS, 190 * MS};
    llmlat::columns order = c;
    order.t_ns = backwards;
    CHECK(cols->add_columns(order, &bad).code() == LLMLAT_EORDER && bad == 0);
    CHECK(cols->counter(LLMLAT_COUNT_COMPLETED).value_or(9) == 1);

    /* buckets: what the C call gives */
    auto b = cols->buckets(LLMLAT_ITL);
    CHECK(b.ok() && !b->counts.empty());
    std::int32_t schema = 0, offset = 0;
    double zt = 0;
    std::uint64_t zc = 0, counts[256];
    std::size_t len = 0;
    CHECK(llmlat_agg_buckets(cols->get(), LLMLAT_ITL, &schema, &zt, &zc, &offset, counts, 256,
                             &len) == LLMLAT_OK);
    CHECK(b->schema == schema && b->offset == offset && b->zero_count == zc &&
          same(b->zero_threshold, zt) && b->counts.size() == len);
    CHECK(std::memcmp(b->counts.data(), counts, len * sizeof counts[0]) == 0);
    CHECK(cols->buckets(-1).error().code() == LLMLAT_EINVAL);
}

static void test_expose()
{
    auto a = aggregator::create(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    auto b = aggregator::create(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    CHECK(a->set_label("model", "a").ok() && b->set_label("model", "b").ok());
    feed(*a, nullptr);
    const llmlat_agg *const handles[] = {a->get(), b->get()};
    for (std::int32_t f : {LLMLAT_FORMAT_PROMETHEUS, LLMLAT_FORMAT_OPENMETRICS,
                           LLMLAT_FORMAT_PROMETHEUS_PROTOBUF}) {
        auto text = llmlat::expose(handles, f);
        CHECK(text.ok() && !text->empty());
        std::size_t len = 0;
        CHECK(llmlat_expose(handles, 2, f, nullptr, 0, &len) == LLMLAT_ENOSPC);
        std::vector<char> buf(len);
        CHECK(llmlat::expose(handles, f, buf, len).ok());
        CHECK(std::string(buf.data(), len) == *text);
        CHECK(std::strcmp(llmlat::format_content_type(f), llmlat_format_content_type(f)) == 0);
    }
    const llmlat_agg *const twice[] = {a->get(), a->get()};
    CHECK(llmlat::expose(twice, LLMLAT_FORMAT_PROMETHEUS).error().code() == LLMLAT_EINVAL);
    CHECK(llmlat::format_content_type(-1) == nullptr);
    /* naming schemes: the three ways give the same bytes */
    for (std::int32_t names = LLMLAT_NAMES_LLMLAT; names <= LLMLAT_NAMES_OTEL; names++) {
        auto text = llmlat::expose(handles, LLMLAT_FORMAT_PROMETHEUS, names);
        CHECK(text.ok() && !text->empty());
        std::size_t len = 0;
        CHECK(llmlat_expose_names(handles, 2, LLMLAT_FORMAT_PROMETHEUS, names, nullptr, 0,
                                  &len) == LLMLAT_ENOSPC);
        std::vector<char> buf(len);
        CHECK(llmlat::expose(handles, LLMLAT_FORMAT_PROMETHEUS, names, buf, len).ok());
        CHECK(std::string(buf.data(), len) == *text);
        std::string streamed;
        CHECK(llmlat::expose_write(handles, LLMLAT_FORMAT_PROMETHEUS, names,
                                   [&streamed](const char *p, std::size_t n) {
                                       streamed.append(p, n);
                                   }).ok());
        CHECK(streamed == *text);
    }
    auto vllm = llmlat::expose(handles, LLMLAT_FORMAT_PROMETHEUS, LLMLAT_NAMES_VLLM);
    CHECK(vllm->find("vllm:time_to_first_token_seconds_count{model_name=\"a\"}") !=
          std::string::npos);
    CHECK(llmlat::expose(handles, LLMLAT_FORMAT_PROMETHEUS, 4).error().code() == LLMLAT_EINVAL);
    CHECK(std::strcmp(llmlat::names_name(LLMLAT_NAMES_OTEL), "otel") == 0);
    CHECK(llmlat::names_name(4) == nullptr);
}

static void test_reader()
{
    CHECK(llmlat::reader::create(99).error().code() == LLMLAT_EINVAL);
    CHECK(std::strcmp(llmlat::input_name(LLMLAT_INPUT_VLLM), "vllm") == 0);
    const std::string trace = "{\"start\": 0, \"events\": [[0.1, 1], [0.12, 2]], \"id\": \"a\"}\n"
                              "{\"start\": 1, \"events\": [[1.2, 1], [1.1, 1]]}\n"
                              "{\"start\": 2, \"events\": [[2.05, 3]], \"ok\": false}\n";
    auto rd = llmlat::reader::create(LLMLAT_INPUT_AUTO, "t.jsonl");
    CHECK(rd.ok());
    CHECK(rd->feed(trace.data(), 10).ok()); /* in two pieces, the second through space */
    auto room = rd->space(trace.size());
    CHECK(room.ok() && room->size() >= trace.size() - 10);
    std::memcpy(room->data(), trace.data() + 10, trace.size() - 10);
    CHECK(rd->commit(trace.size() - 10).ok());
    CHECK(rd->end().ok());
    auto r = request::create();
    auto what = rd->next(*r);
    CHECK(what.ok() && *what == LLMLAT_READ_REQUEST);
    CHECK(std::strcmp(rd->request_id(), "a") == 0 && r->end_time().value_or(0) == 120 * MS);
    CHECK(rd->position().ok() && rd->position()->index == 1 && rd->position()->line == 1);
    auto agg = aggregator::create(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    what = rd->add_to(*agg);
    CHECK(what.ok() && *what == LLMLAT_READ_REJECTED);
    CHECK(std::strncmp(rd->message(), "t.jsonl:2:1: ", 13) == 0);
    what = rd->add_to(*agg);
    CHECK(what.ok() && *what == LLMLAT_READ_END);
    CHECK(agg->counter(LLMLAT_COUNT_FAILED).value_or(0) == 1);
    CHECK(rd->counter(LLMLAT_READ_COUNT_REQUESTS).value_or(0) == 3);
    CHECK(rd->counter(LLMLAT_READ_COUNT_REJECTED).value_or(0) == 1);
    CHECK(rd->counter(LLMLAT_READ_COUNT_RUNS).error().code() == LLMLAT_EUNDEFINED);
    CHECK(rd->format().value_or(0) == LLMLAT_INPUT_TRACE);
    CHECK(rd->duration().error().code() == LLMLAT_EUNDEFINED);

    auto malformed = llmlat::reader::create(LLMLAT_INPUT_TRACE, "bad.json");
    (void)malformed->feed("[{\"start\": x}]", 15); /* the error may show here or below */
    (void)malformed->end();
    CHECK(malformed->next(*r).error().code() == LLMLAT_EFORMAT);
    CHECK(std::strncmp(malformed->message(), "bad.json:1:", 11) == 0);

    llmlat::reader none;
    CHECK(!none && none.feed("x", 1).code() == LLMLAT_EINVAL && *none.message() == '\0');
}

/* ------------------------------------------------- the allocator hook */

static int allocations;
static void *count_malloc(void *, std::size_t n)
{
    allocations++;
    return std::malloc(n);
}
static void *count_realloc(void *, void *p, std::size_t n)
{
    allocations++;
    return std::realloc(p, n);
}
static void count_free(void *, void *p) { std::free(p); }

static void test_allocator()
{
    CHECK(llmlat::set_allocator(count_malloc, count_realloc, count_free, nullptr).ok());
    {
        auto agg = aggregator::create(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
        CHECK(agg.ok());
    }
    CHECK(allocations > 0);
    CHECK(llmlat::set_allocator(nullptr, nullptr, nullptr, nullptr).ok());
    CHECK(llmlat::set_allocator(count_malloc, nullptr, nullptr, nullptr).code() == LLMLAT_EINVAL);
}

/* The intended start: schedule, its getter, the metrics from it, and
 * columns with it. */
static void test_schedule()
{
    auto r = request::create();
    CHECK(r->scheduled().error().code() == LLMLAT_EUNDEFINED);
    CHECK(r->schedule(2 * MS).ok());
    CHECK(r->start(MS).code() == LLMLAT_EORDER);
    CHECK(r->start(5 * MS).ok() && r->scheduled().value_or(0) == 2 * MS);
    CHECK(r->event(10 * MS, 1).ok() && r->finish(12 * MS).ok());
    CHECK(same(r->value(LLMLAT_CONV_DEFAULT, LLMLAT_DISPATCH_DELAY).value_or(-1), 0.003));
    CHECK(same(r->value(LLMLAT_CONV_DEFAULT, LLMLAT_SCHEDULED_TTFT).value_or(-1), 0.008));
    CHECK(same(r->value(LLMLAT_CONV_SGLANG, LLMLAT_SCHEDULED_E2E).value_or(-1), 0.010));
    auto one = aggregator::create(LLMLAT_CONV_SGLANG, LLMLAT_MODE_BOUNDED);
    CHECK(one->stat(LLMLAT_DISPATCH_DELAY, LLMLAT_STAT_MEAN).error().code() == LLMLAT_EUNDEFINED);
    CHECK(one->add(*r).ok());

    const std::vector<std::int64_t> starts = {5 * MS, 0};
    const std::vector<std::int64_t> sched = {2 * MS, LLMLAT_NO_SCHEDULE};
    const std::vector<std::int64_t> ends = {12 * MS, 1 * MS};
    const std::vector<std::uint64_t> offsets = {0, 1, 1};
    const std::vector<std::int64_t> t = {10 * MS};
    const std::vector<std::uint32_t> k = {1};
    llmlat::columns c;
    c.start_ns = starts;
    c.end_ns = ends;
    c.offsets = offsets;
    c.t_ns = t;
    c.k = k;
    c.scheduled_ns = sched;
    auto cols = aggregator::create(LLMLAT_CONV_SGLANG, LLMLAT_MODE_BOUNDED);
    CHECK(cols->add_columns(c).ok());
    CHECK(cols->stat(LLMLAT_DISPATCH_DELAY, LLMLAT_STAT_COUNT).value_or(0) == 1);
    CHECK(same(cols->stat(LLMLAT_SCHEDULED_E2E, LLMLAT_STAT_MAX).value_or(-1),
               one->stat(LLMLAT_SCHEDULED_E2E, LLMLAT_STAT_MAX).value_or(-2)));
    const std::vector<std::int64_t> short_sched = {2 * MS};
    c.scheduled_ns = short_sched;
    CHECK(cols->add_columns(c).code() == LLMLAT_EINVAL);
}

int main()
{
    test_answers_equal_c();
    test_serialize_merge();
    test_settings();
    test_handles_and_moves();
    test_status_and_library();
    test_request_getters_and_lacks();
    test_columns_and_buckets();
    test_schedule();
    test_expose();
    test_reader();
    test_allocator();
    if (check_failures()) {
        std::fprintf(stderr, "%d checks failed\n", check_failures());
        return 1;
    }
    std::printf("llmlat.hpp (C++%ld): all checks passed\n", static_cast<long>(__cplusplus / 100 % 100));
    return 0;
}
