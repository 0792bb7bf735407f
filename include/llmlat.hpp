/*
 * llmlat.hpp — the C++ face of llmlat.h: header-only, C++17 or later.
 *
 * RAII owners of the library's handles, move-only, and no exceptions
 * required (it builds with -fno-exceptions): every call returns what the C
 * function returns, as a value.
 *
 *   - llmlat::status wraps an int32_t status: ok(), code(), message().
 *   - llmlat::result<T> is a T or the status why not (like std::expected):
 *     ok(), *r, r->, value_or(), error(). A query whose value is undefined
 *     (an empty set, TPOT with N <= 1) is a result whose error() is
 *     LLMLAT_EUNDEFINED and whose *r is NaN, as in C.
 *   - llmlat::request, llmlat::aggregator and llmlat::reader own an
 *     llmlat_request, an llmlat_agg and an llmlat_reader. create() makes one (a result: ENOMEM, or EINVAL for an
 *     unknown id); a default-constructed or moved-from object owns nothing,
 *     and every call on it returns LLMLAT_EINVAL, as C does for NULL.
 *     get() lends the C handle, release() gives it up, and the explicit
 *     constructor from a handle takes ownership of one.
 *   - Bulk calls take llmlat::span<T>: std::span under C++20, otherwise a
 *     minimal view of the same shape, made from a pointer and a size, an
 *     array, or a contiguous container (std::vector, std::array, ...).
 *   - aggregator::report_write(format, sink) and llmlat::expose_write
 *     stream a report or an exposition to any callable; an exception it
 *     throws never crosses the C code.
 *
 * Opt-in exceptions: define LLMLAT_HPP_EXCEPTIONS before including this
 * header to get llmlat::error (a std::runtime_error carrying the status)
 * and llmlat::check(), which returns a result's value or throws:
 *
 *     double p99 = llmlat::check(agg.quantile(LLMLAT_ITL, 0.99));
 *
 * The rest of the header is the same either way, so translation units
 * with and without the macro mix freely.
 *
 * Threads, ownership, errors: as the C functions these call
 * (include/llmlat.h); docs/cpp.md has a complete example.
 */
#ifndef LLMLAT_HPP
#define LLMLAT_HPP

#if !(__cplusplus >= 201703L || (defined(_MSVC_LANG) && _MSVC_LANG >= 201703L))
#  error "llmlat.hpp needs C++17 or later (llmlat.h alone works from C++98)"
#endif

#include "llmlat.h"

#include <cmath>
#include <cstddef>
#include <exception>
#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if __cplusplus >= 202002L || (defined(_MSVC_LANG) && _MSVC_LANG >= 202002L)
#  if __has_include(<span>)
#    include <span>
#  endif
#endif

#ifdef LLMLAT_HPP_EXCEPTIONS
#  include <stdexcept>
#endif

namespace llmlat {

/* ------------------------------------------------------------------ status */

/* An int32_t status of the C library. [[nodiscard]]: a status that is
 * dropped is a warning; write (void) to mean it. */
class [[nodiscard]] status {
public:
    constexpr status() noexcept = default;
    constexpr explicit status(std::int32_t code) noexcept : code_(code) {}

    constexpr std::int32_t code() const noexcept { return code_; }
    constexpr bool ok() const noexcept { return code_ == LLMLAT_OK; }
    constexpr explicit operator bool() const noexcept { return ok(); }
    /* llmlat_strerror(code()): a static string, never NULL. */
    const char *message() const noexcept { return llmlat_strerror(code_); }

    friend constexpr bool operator==(status a, status b) noexcept { return a.code_ == b.code_; }
    friend constexpr bool operator!=(status a, status b) noexcept { return a.code_ != b.code_; }

private:
    std::int32_t code_ = LLMLAT_OK;
};

/* ------------------------------------------------------------------ result */

/* A T, or the status why there is none. T is default-constructible (the
 * value an error leaves: NaN for double results, as the C out parameter). */
template <class T>
class [[nodiscard]] result {
public:
    result(T value) noexcept(std::is_nothrow_move_constructible<T>::value)
        : value_(std::move(value)) {}
    /* An error (a status that is not ok), with the value C left. */
    result(status error, T value = T()) noexcept(std::is_nothrow_move_constructible<T>::value)
        : value_(std::move(value)), status_(error.ok() ? status(LLMLAT_EINVAL) : error) {}

    bool ok() const noexcept { return status_.ok(); }
    explicit operator bool() const noexcept { return ok(); }
    /* LLMLAT_OK when there is a value. */
    status error() const noexcept { return status_; }

    /* The value; on an error, what C left (NaN, 0, an empty object). */
    const T &operator*() const & noexcept { return value_; }
    T &operator*() & noexcept { return value_; }
    T &&operator*() && noexcept { return std::move(value_); }
    const T *operator->() const noexcept { return &value_; }
    T *operator->() noexcept { return &value_; }

    template <class U>
    T value_or(U &&other) const & { return ok() ? value_ : static_cast<T>(std::forward<U>(other)); }
    template <class U>
    T value_or(U &&other) && { return ok() ? std::move(value_) : static_cast<T>(std::forward<U>(other)); }

private:
    T value_;
    status status_;
};

#ifdef LLMLAT_HPP_EXCEPTIONS
/* The exception of check(): what() is llmlat_strerror's text. */
class error : public std::runtime_error {
public:
    explicit error(llmlat::status st) : std::runtime_error(st.message()), status_(st) {}
    llmlat::status status() const noexcept { return status_; }

private:
    llmlat::status status_;
};

/* Throws llmlat::error unless st is ok. */
inline void check(status st)
{
    if (!st.ok())
        throw error(st);
}

/* r's value, or throws llmlat::error with r's status. */
template <class T>
T check(result<T> r)
{
    if (!r.ok())
        throw error(r.error());
    return std::move(*r);
}
#endif

/* -------------------------------------------------------------------- span */

#if defined(__cpp_lib_span)
template <class T>
using span = std::span<T>;
#else
/* The part of C++20's std::span the bulk calls use. */
template <class T>
class span {
    template <class C>
    using data_of = decltype(std::data(std::declval<C &>()));
    template <class C>
    using from_container = std::enable_if_t<
        !std::is_array<std::remove_reference_t<C>>::value &&
        !std::is_same<std::remove_cv_t<std::remove_reference_t<C>>, span>::value &&
        std::is_convertible<std::remove_pointer_t<data_of<C>> (*)[], T (*)[]>::value &&
        (std::is_const<T>::value || std::is_lvalue_reference<C>::value)>;

public:
    using element_type = T;
    using value_type = std::remove_cv_t<T>;
    using size_type = std::size_t;
    using pointer = T *;
    using iterator = T *;

    constexpr span() noexcept = default;
    constexpr span(T *data, std::size_t size) noexcept : data_(data), size_(size) {}
    template <std::size_t N>
    constexpr span(T (&array)[N]) noexcept : data_(array), size_(N) {}
    template <class C, class = from_container<C>>
    constexpr span(C &&c) noexcept(noexcept(std::data(c)) && noexcept(std::size(c)))
        : data_(std::data(c)), size_(std::size(c)) {}
    template <class U, class = std::enable_if_t<std::is_convertible<U (*)[], T (*)[]>::value>>
    constexpr span(const span<U> &other) noexcept : data_(other.data()), size_(other.size()) {}

    constexpr T *data() const noexcept { return data_; }
    constexpr std::size_t size() const noexcept { return size_; }
    constexpr bool empty() const noexcept { return size_ == 0; }
    constexpr T *begin() const noexcept { return data_; }
    constexpr T *end() const noexcept { return data_ + size_; }
    constexpr T &operator[](std::size_t i) const noexcept { return data_[i]; }

private:
    T *data_ = nullptr;
    std::size_t size_ = 0;
};
#endif

/* ------------------------------------------------------- library, ids, clock */

inline std::uint32_t version_number() noexcept { return llmlat_version_number(); }
inline const char *version_string() noexcept { return llmlat_version_string(); }
/* Static names, nullptr for an unknown id. */
inline const char *metric_name(std::int32_t metric) noexcept { return llmlat_metric_name(metric); }
inline const char *convention_name(std::int32_t convention) noexcept
{
    return llmlat_convention_name(convention);
}
/* Static names and Content-Types, nullptr for an unknown id. */
inline const char *input_name(std::int32_t input) noexcept { return llmlat_input_name(input); }
inline const char *names_name(std::int32_t names) noexcept { return llmlat_names_name(names); }
inline const char *format_content_type(std::int32_t format) noexcept
{
    return llmlat_format_content_type(format);
}
inline std::int64_t now_ns() noexcept { return llmlat_now_ns(); }

inline status set_allocator(llmlat_malloc_fn malloc_fn, llmlat_realloc_fn realloc_fn,
                            llmlat_free_fn free_fn, void *user) noexcept
{
    return status(llmlat_set_allocator(malloc_fn, realloc_fn, free_fn, user));
}

/* The accepted range of a parameter. */
struct bounds {
    double lo = NAN, hi = NAN;
};
inline result<bounds> param_bounds(std::int32_t param) noexcept
{
    bounds b;
    status st(llmlat_param_bounds(param, &b.lo, &b.hi));
    if (!st.ok())
        return {st, b};
    return b;
}

namespace detail {
/* What a query returns: the value, or the status with the value C left.
 * (The C call is made before, in its own statement: the order in which a
 * call's arguments are evaluated is unspecified.) */
template <class T>
result<T> answer(std::int32_t st, T value) noexcept
{
    if (st != LLMLAT_OK)
        return {status(st), value};
    return value;
}

/* What report_write hands to C: the caller's sink, and an exception it
 * threw, kept to be rethrown once C has returned. */
template <class Sink>
struct sink_context {
    Sink *sink;
    std::exception_ptr thrown;
};

template <class Sink>
std::int32_t call_sink(Sink &sink, const char *bytes, std::size_t len)
{
    using R = decltype(sink(bytes, len));
    if constexpr (std::is_void<R>::value) {
        sink(bytes, len);
        return LLMLAT_OK;
    } else if constexpr (std::is_same<std::decay_t<R>, status>::value) {
        return sink(bytes, len).code();
    } else {
        return static_cast<std::int32_t>(sink(bytes, len));
    }
}

template <class Sink>
std::int32_t sink_trampoline(void *user, const void *bytes, std::size_t len) noexcept
{
    auto *ctx = static_cast<sink_context<Sink> *>(user);
#if defined(__cpp_exceptions)
    try {
        return call_sink(*ctx->sink, static_cast<const char *>(bytes), len);
    } catch (...) {
        ctx->thrown = std::current_exception();
        return LLMLAT_ENOMEM; /* stops the report; report_write rethrows */
    }
#else
    return call_sink(*ctx->sink, static_cast<const char *>(bytes), len);
#endif
}
} // namespace detail

/* ----------------------------------------------------------------- request */

/* Owns one llmlat_request (one in-flight request; one thread at a time). */
class request {
public:
    /* A new recorder; ENOMEM when out of memory. */
    static result<request> create() noexcept
    {
        llmlat_request *r = llmlat_request_new();
        if (!r)
            return status(LLMLAT_ENOMEM);
        return request(r);
    }

    /* Owns nothing: every call returns LLMLAT_EINVAL. */
    request() noexcept = default;
    /* Takes ownership of r (may be nullptr). */
    explicit request(llmlat_request *r) noexcept : r_(r) {}
    ~request() { llmlat_request_free(r_); }
    request(request &&other) noexcept : r_(std::exchange(other.r_, nullptr)) {}
    request &operator=(request &&other) noexcept
    {
        if (this != &other) {
            llmlat_request_free(r_);
            r_ = std::exchange(other.r_, nullptr);
        }
        return *this;
    }
    request(const request &) = delete;
    request &operator=(const request &) = delete;

    explicit operator bool() const noexcept { return r_ != nullptr; }
    llmlat_request *get() const noexcept { return r_; }
    /* Gives the handle up: the caller frees it (llmlat_request_free). */
    llmlat_request *release() noexcept { return std::exchange(r_, nullptr); }

    status reset() noexcept { return status(llmlat_request_reset(r_)); }
    status start(std::int64_t t_ns) noexcept { return status(llmlat_request_start(r_, t_ns)); }
    /* When the request was meant to start, at or before its start
     * (llmlat_request_schedule): DISPATCH_DELAY, SCHEDULED_TTFT and
     * SCHEDULED_E2E come from it. */
    status schedule(std::int64_t t_ns) noexcept
    {
        return status(llmlat_request_schedule(r_, t_ns));
    }
    status event(std::int64_t t_ns, std::uint32_t k = 1) noexcept
    {
        return status(llmlat_request_event(r_, t_ns, k));
    }
    /* t_ns.size() events, the i-th carrying k[i] tokens, all or none;
     * EINVAL when the sizes differ. */
    status events(span<const std::int64_t> t_ns, span<const std::uint32_t> k) noexcept
    {
        if (t_ns.size() != k.size())
            return status(LLMLAT_EINVAL);
        return status(llmlat_request_events(r_, t_ns.data(), k.data(), t_ns.size()));
    }
    status set_input_tokens(std::uint64_t n) noexcept
    {
        return status(llmlat_request_set_input_tokens(r_, n));
    }
    status set_output_tokens(std::uint64_t n) noexcept
    {
        return status(llmlat_request_set_output_tokens(r_, n));
    }
    /* What a request rebuilt from another tool's file lacks (LLMLAT_LACKS_*). */
    status set_lacks(std::uint32_t lacks) noexcept
    {
        return status(llmlat_request_set_lacks(r_, lacks));
    }
    /* A per-request value of a request without chunk times (TTFT, E2E,
     * TOOL_ITL, TPS_USER as the tool of `convention` measured it). */
    status set_known(std::int32_t convention, std::int32_t metric, double value) noexcept
    {
        return status(llmlat_request_set_known(r_, convention, metric, value));
    }
    status finish(std::int64_t t_ns) noexcept { return status(llmlat_request_finish(r_, t_ns)); }
    status fail(std::int64_t t_ns) noexcept { return status(llmlat_request_fail(r_, t_ns)); }
    status cancel(std::int64_t t_ns) noexcept { return status(llmlat_request_cancel(r_, t_ns)); }

    /* ---- what the recorder holds (llmlat_request_get_*) */
    result<std::int32_t> state() const noexcept
    {
        std::int32_t v = -1;
        std::int32_t st = llmlat_request_get_state(r_, &v);
        return detail::answer(st, v);
    }
    /* ESTATE when not started. */
    result<std::int64_t> start_time() const noexcept
    {
        std::int64_t v = 0;
        std::int32_t st = llmlat_request_get_start(r_, &v);
        return detail::answer(st, v);
    }
    /* The finish or fail time; ESTATE when not ended. */
    result<std::int64_t> end_time() const noexcept
    {
        std::int64_t v = 0;
        std::int32_t st = llmlat_request_get_end(r_, &v);
        return detail::answer(st, v);
    }
    /* The events: views into the recorder, valid until it next changes. */
    struct event_view {
        span<const std::int64_t> t_ns;
        span<const std::uint32_t> k;
    };
    result<event_view> recorded_events() const noexcept
    {
        const std::int64_t *t = nullptr;
        const std::uint32_t *k = nullptr;
        std::size_t n = 0;
        std::int32_t st = llmlat_request_get_events(r_, &t, &k, &n);
        return detail::answer(st, event_view{{t, n}, {k, n}});
    }
    result<std::uint64_t> input_tokens() const noexcept
    {
        std::uint64_t v = 0;
        std::int32_t st = llmlat_request_get_input_tokens(r_, &v);
        return detail::answer(st, v);
    }
    /* The usage count; EUNDEFINED (with the sum of k) when none was set. */
    result<std::uint64_t> output_tokens() const noexcept
    {
        std::uint64_t v = 0;
        std::int32_t st = llmlat_request_get_output_tokens(r_, &v);
        return detail::answer(st, v);
    }
    result<std::uint32_t> lacks() const noexcept
    {
        std::uint32_t v = 0;
        std::int32_t st = llmlat_request_get_lacks(r_, &v);
        return detail::answer(st, v);
    }
    /* The intended start; EUNDEFINED (0) when none was given. */
    result<std::int64_t> scheduled() const noexcept
    {
        std::int64_t v = 0;
        std::int32_t st = llmlat_request_get_schedule(r_, &v);
        return detail::answer(st, v);
    }

    /* The request's own value of a metric; EUNDEFINED (NaN) when it has none. */
    result<double> value(std::int32_t convention, std::int32_t metric) const noexcept
    {
        double v = NAN;
        std::int32_t st = llmlat_request_value(r_, convention, metric, &v);
        return detail::answer(st, v);
    }

private:
    llmlat_request *r_ = nullptr;
};

/* -------------------------------------------------------------- aggregator */

/* A constant label of an aggregator: strings owned by it, valid until its
 * labels next change. */
struct label {
    const char *name = nullptr;
    const char *value = nullptr;
};

/* Requests as columns, for aggregator::add_columns
 * (llmlat_agg_add_columns_scheduled): request i starts at start_ns[i],
 * meant to start at scheduled_ns[i] (LLMLAT_NO_SCHEDULE: none), and has
 * the events offsets[i] .. offsets[i + 1] - 1 of t_ns and k. An empty span
 * is C's NULL: end_ns (each ends at its last event), ok (all finished),
 * offsets, t_ns and k (no events), input_tokens (0 each), output_tokens
 * (none), scheduled_ns (none). */
struct columns {
    span<const std::int64_t> start_ns;
    span<const std::int64_t> end_ns;
    span<const std::uint8_t> ok;
    span<const std::uint64_t> offsets;
    span<const std::int64_t> t_ns;
    span<const std::uint32_t> k;
    span<const std::int64_t> input_tokens;
    span<const std::int64_t> output_tokens;
    span<const std::int64_t> scheduled_ns;
};

/* One metric's native-histogram buckets (aggregator::buckets): counts[j]
 * is bucket offset + j, bucket i covering (base^(i-1), base^i], base =
 * 2^(2^-schema). */
struct native_buckets {
    std::int32_t schema = 0;
    double zero_threshold = NAN;
    std::uint64_t zero_count = 0;
    std::int32_t offset = 0;
    std::vector<std::uint64_t> counts;
};

/* Owns one llmlat_agg (changed by one thread at a time; queries only read). */
class aggregator {
public:
    /* A new aggregator (llmlat_agg_create): EINVAL for an unknown
     * convention or mode, ENOMEM. */
    static result<aggregator> create(std::int32_t convention, std::int32_t mode) noexcept
    {
        llmlat_agg *a = nullptr;
        std::int32_t st = llmlat_agg_create(convention, mode, &a);
        if (st != LLMLAT_OK)
            return status(st);
        return aggregator(a);
    }
    /* An aggregator from llmlat_agg_serialize's bytes (docs/format.md). */
    static result<aggregator> deserialize(const void *bytes, std::size_t len) noexcept
    {
        std::int32_t st = LLMLAT_OK;
        llmlat_agg *a = llmlat_agg_deserialize(bytes, len, &st);
        if (!a)
            return status(st != LLMLAT_OK ? st : LLMLAT_EINVAL);
        return aggregator(a);
    }
    static result<aggregator> deserialize(span<const unsigned char> bytes) noexcept
    {
        return deserialize(bytes.data(), bytes.size());
    }

    aggregator() noexcept = default;
    explicit aggregator(llmlat_agg *a) noexcept : a_(a) {}
    ~aggregator() { llmlat_agg_free(a_); }
    aggregator(aggregator &&other) noexcept : a_(std::exchange(other.a_, nullptr)) {}
    aggregator &operator=(aggregator &&other) noexcept
    {
        if (this != &other) {
            llmlat_agg_free(a_);
            a_ = std::exchange(other.a_, nullptr);
        }
        return *this;
    }
    aggregator(const aggregator &) = delete;
    aggregator &operator=(const aggregator &) = delete;

    explicit operator bool() const noexcept { return a_ != nullptr; }
    llmlat_agg *get() const noexcept { return a_; }
    llmlat_agg *release() noexcept { return std::exchange(a_, nullptr); }

    status reset() noexcept { return status(llmlat_agg_reset(a_)); }
    result<std::int32_t> convention() const noexcept
    {
        std::int32_t v = -1;
        std::int32_t st = llmlat_agg_get_convention(a_, &v);
        return detail::answer(st, v);
    }
    result<std::int32_t> mode() const noexcept
    {
        std::int32_t v = -1;
        std::int32_t st = llmlat_agg_get_mode(a_, &v);
        return detail::answer(st, v);
    }

    /* ---- configuration */
    status set_param(std::int32_t param, double value) noexcept
    {
        return status(llmlat_agg_set_param(a_, param, value));
    }
    result<double> param(std::int32_t param) const noexcept
    {
        double v = NAN;
        std::int32_t st = llmlat_agg_get_param(a_, param, &v);
        return detail::answer(st, v);
    }
    status set_quantiles(span<const double> q) noexcept
    {
        return status(llmlat_agg_set_quantiles(a_, q.data(), q.size()));
    }
    /* An empty span restores the default buckets. */
    status set_buckets(std::int32_t metric, span<const double> bounds) noexcept
    {
        return status(llmlat_agg_set_buckets(a_, metric, bounds.empty() ? nullptr : bounds.data(),
                                             bounds.size()));
    }
    /* value nullptr (or "") removes the label. */
    status set_label(const char *name, const char *value) noexcept
    {
        return status(llmlat_agg_set_label(a_, name, value));
    }
    status set_label(const std::string &name, const std::string &value) noexcept
    {
        return set_label(name.c_str(), value.c_str());
    }
    result<std::size_t> label_count() const noexcept
    {
        std::size_t n = 0;
        std::int32_t st = llmlat_agg_label_count(a_, &n);
        return detail::answer(st, n);
    }
    result<llmlat::label> label_at(std::size_t i) const noexcept
    {
        llmlat::label l;
        std::int32_t st = llmlat_agg_get_label(a_, i, &l.name, &l.value);
        return detail::answer(st, l);
    }

    /* ---- feeding */
    status add(const request &r) noexcept { return status(llmlat_agg_add(a_, r.get())); }
    status merge(const aggregator &src) noexcept { return status(llmlat_agg_merge(a_, src.a_)); }
    /* Many requests in one call, all or none; *bad (may be nullptr) is the
     * first request at fault, SIZE_MAX when none is. EINVAL also when the
     * spans' sizes do not fit together (each of end_ns, ok, the token
     * counts and scheduled_ns empty or start_ns.size(); offsets empty or
     * start_ns.size() + 1; t_ns and k both offsets.back() long). */
    status add_columns(const columns &c, std::size_t *bad = nullptr) noexcept
    {
        const std::size_t n = c.start_ns.size();
        if (bad)
            *bad = SIZE_MAX;
        auto fits = [n](std::size_t size) { return size == 0 || size == n; };
        std::size_t events = c.offsets.empty() ? 0 : c.offsets[c.offsets.size() - 1];
        if (!fits(c.end_ns.size()) || !fits(c.ok.size()) || !fits(c.input_tokens.size()) ||
            !fits(c.output_tokens.size()) || !fits(c.scheduled_ns.size()) ||
            (!c.offsets.empty() && c.offsets.size() != n + 1) || c.t_ns.size() != events ||
            c.k.size() != events)
            return status(LLMLAT_EINVAL);
        auto ptr = [](auto sp) { return sp.empty() ? nullptr : sp.data(); };
        return status(llmlat_agg_add_columns_scheduled(
            a_, n, ptr(c.start_ns), ptr(c.end_ns), ptr(c.ok), ptr(c.offsets), ptr(c.t_ns),
            ptr(c.k), ptr(c.input_tokens), ptr(c.output_tokens), ptr(c.scheduled_ns), bad));
    }

    /* ---- queries */
    result<double> stat(std::int32_t metric, std::int32_t stat) const noexcept
    {
        double v = NAN;
        std::int32_t st = llmlat_agg_stat(a_, metric, stat, &v);
        return detail::answer(st, v);
    }
    result<double> quantile(std::int32_t metric, double q) const noexcept
    {
        double v = NAN;
        std::int32_t st = llmlat_agg_quantile(a_, metric, q, &v);
        return detail::answer(st, v);
    }
    /* out[i] = the q[i]-quantile, in one pass; EINVAL when the sizes differ. */
    status quantiles(std::int32_t metric, span<const double> q, span<double> out) const noexcept
    {
        if (q.size() != out.size())
            return status(LLMLAT_EINVAL);
        return status(llmlat_agg_quantiles(a_, metric, q.data(), q.size(), out.data()));
    }
    result<double> rate(std::int32_t rate) const noexcept
    {
        double v = NAN;
        std::int32_t st = llmlat_agg_rate(a_, rate, &v);
        return detail::answer(st, v);
    }
    result<std::uint64_t> counter(std::int32_t counter) const noexcept
    {
        std::uint64_t v = 0;
        std::int32_t st = llmlat_agg_counter(a_, counter, &v);
        return detail::answer(st, v);
    }
    /* Why a's data cannot support a metric, rate or counter (kind
     * LLMLAT_KIND_*): the reason, a static sentence, or nullptr when it
     * can. The error is EINVAL only (NULL, unknown kind or id). */
    result<const char *> unavailable(std::int32_t kind, std::int32_t id) const noexcept
    {
        const char *reason = nullptr;
        std::int32_t st = llmlat_agg_unavailable(a_, kind, id, &reason);
        return detail::answer(st == LLMLAT_EUNDEFINED ? LLMLAT_OK : st, reason);
    }
    /* A metric's native-histogram buckets (llmlat_agg_buckets), into a new
     * vector (this allocates). */
    result<native_buckets> buckets(std::int32_t metric) const
    {
        native_buckets b;
        std::size_t len = 0;
        std::int32_t st = llmlat_agg_buckets(a_, metric, &b.schema, &b.zero_threshold,
                                             &b.zero_count, &b.offset, nullptr, 0, &len);
        while (st == LLMLAT_ENOSPC) {
            b.counts.resize(len);
            st = llmlat_agg_buckets(a_, metric, &b.schema, &b.zero_threshold, &b.zero_count,
                                    &b.offset, b.counts.data(), b.counts.size(), &len);
        }
        b.counts.resize(st == LLMLAT_OK ? len : 0);
        return detail::answer(st, std::move(b));
    }

    /* ---- output, into the caller's buffer (no allocation here): the C
     * buffer rules, *len the size written or, with ENOSPC, needed. */
    status serialize(span<unsigned char> buf, std::size_t &len) const noexcept
    {
        return status(llmlat_agg_serialize(a_, buf.data(), buf.size(), &len));
    }
    status report(std::int32_t format, span<char> buf, std::size_t &len) const noexcept
    {
        return status(llmlat_agg_report(a_, format, buf.data(), buf.size(), &len));
    }

    /* ---- output, streamed (llmlat_agg_report_write): the report is made
     * once and handed to sink(const char *bytes, std::size_t len) in
     * pieces. sink returns llmlat::status (or int32_t) to go on
     * (LLMLAT_OK) or stop with that status, or void to always go on. An
     * exception thrown by sink stops the report and is rethrown here, after
     * C has returned (it never crosses the C code). On an error the pieces
     * already given are a prefix of the report: discard them. */
    template <class Sink>
    status report_write(std::int32_t format, Sink &&sink) const
    {
        detail::sink_context<std::remove_reference_t<Sink>> ctx{&sink, {}};
        std::int32_t st = llmlat_agg_report_write(
            a_, format, &detail::sink_trampoline<std::remove_reference_t<Sink>>, &ctx);
        if (ctx.thrown)
            std::rethrow_exception(ctx.thrown);
        return status(st);
    }
    status report_write(std::int32_t format, llmlat_write_fn fn, void *user) const noexcept
    {
        return status(llmlat_agg_report_write(a_, format, fn, user));
    }

    /* ---- output, into a new string or vector (these allocate: without
     * exceptions, running out of memory there ends the program, as any
     * std::string does; with them, std::bad_alloc reaches the caller) */
    result<std::vector<unsigned char>> serialize() const
    {
        std::vector<unsigned char> out;
        std::size_t len = 0;
        std::int32_t st = llmlat_agg_serialize(a_, nullptr, 0, &len);
        while (st == LLMLAT_ENOSPC) {
            out.resize(len);
            st = llmlat_agg_serialize(a_, out.data(), out.size(), &len);
        }
        out.resize(st == LLMLAT_OK ? len : 0);
        return detail::answer(st, std::move(out));
    }
    /* The report, made once (streamed into the string). */
    result<std::string> report(std::int32_t format) const
    {
        std::string out;
        status st = report_write(format, [&out](const char *bytes, std::size_t len) {
            out.append(bytes, len);
        });
        if (!st.ok())
            out.clear();
        return detail::answer(st.code(), std::move(out));
    }

private:

    llmlat_agg *a_ = nullptr;
};

/* ---------------------------------------------------------------- exposition */

/* One Prometheus exposition of several aggregators in a naming scheme
 * (llmlat_expose_names: LLMLAT_NAMES_LLMLAT, _VLLM, _SGLANG, _OTEL): each
 * family once, one series per aggregator, labelled with its labels.
 * aggs are the handles (aggregator::get()). The C buffer rules. */
inline status expose(span<const llmlat_agg *const> aggs, std::int32_t format, std::int32_t names,
                     span<char> buf, std::size_t &len) noexcept
{
    return status(llmlat_expose_names(aggs.data(), aggs.size(), format, names, buf.data(),
                                      buf.size(), &len));
}
/* llmlat's own names (llmlat_expose). */
inline status expose(span<const llmlat_agg *const> aggs, std::int32_t format, span<char> buf,
                     std::size_t &len) noexcept
{
    return expose(aggs, format, LLMLAT_NAMES_LLMLAT, buf, len);
}
/* The same, streamed to sink as aggregator::report_write streams a report
 * (an exception sink throws is rethrown here, after C has returned). */
template <class Sink>
status expose_write(span<const llmlat_agg *const> aggs, std::int32_t format, std::int32_t names,
                    Sink &&sink)
{
    detail::sink_context<std::remove_reference_t<Sink>> ctx{&sink, {}};
    std::int32_t st = llmlat_expose_write_names(
        aggs.data(), aggs.size(), format, names,
        &detail::sink_trampoline<std::remove_reference_t<Sink>>, &ctx);
    if (ctx.thrown)
        std::rethrow_exception(ctx.thrown);
    return status(st);
}
template <class Sink>
status expose_write(span<const llmlat_agg *const> aggs, std::int32_t format, Sink &&sink)
{
    return expose_write(aggs, format, LLMLAT_NAMES_LLMLAT, std::forward<Sink>(sink));
}
/* The exposition, made once, into a new string (this allocates). */
inline result<std::string> expose(span<const llmlat_agg *const> aggs, std::int32_t format,
                                  std::int32_t names = LLMLAT_NAMES_LLMLAT)
{
    std::string out;
    status st = expose_write(aggs, format, names, [&out](const char *bytes, std::size_t len) {
        out.append(bytes, len);
    });
    if (!st.ok())
        out.clear();
    return detail::answer(st.code(), std::move(out));
}

/* -------------------------------------------------------------------- reader */

/* Where the last request handed over or rejected is in the input. */
struct position {
    std::uint64_t index = 0, line = 0, column = 0;
};

/* Owns one llmlat_reader: the push reader of traces and of other tools'
 * result files (one thread at a time). The host feeds bytes (feed, or
 * space + commit to read straight into the reader's buffer) and end()s
 * the input; next() and add_to() say what they found (LLMLAT_READ_*). */
class reader {
public:
    /* A reader of `input` (LLMLAT_INPUT_*); name (copied; nullptr:
     * "<input>") starts its messages. EINVAL for an unknown format, ENOMEM. */
    static result<reader> create(std::int32_t input = LLMLAT_INPUT_AUTO,
                                 const char *name = nullptr) noexcept
    {
        if (!llmlat_input_name(input))
            return status(LLMLAT_EINVAL);
        llmlat_reader *rd = llmlat_reader_new(input, name);
        if (!rd)
            return status(LLMLAT_ENOMEM);
        return reader(rd);
    }

    reader() noexcept = default;
    explicit reader(llmlat_reader *rd) noexcept : rd_(rd) {}
    ~reader() { llmlat_reader_free(rd_); }
    reader(reader &&other) noexcept : rd_(std::exchange(other.rd_, nullptr)) {}
    reader &operator=(reader &&other) noexcept
    {
        if (this != &other) {
            llmlat_reader_free(rd_);
            rd_ = std::exchange(other.rd_, nullptr);
        }
        return *this;
    }
    reader(const reader &) = delete;
    reader &operator=(const reader &) = delete;

    explicit operator bool() const noexcept { return rd_ != nullptr; }
    llmlat_reader *get() const noexcept { return rd_; }
    llmlat_reader *release() noexcept { return std::exchange(rd_, nullptr); }

    /* 1 for the first run of a file with several, 0 (default) the last. */
    status set_run(std::uint64_t run) noexcept { return status(llmlat_reader_set_run(rd_, run)); }
    status feed(const void *bytes, std::size_t len) noexcept
    {
        return status(llmlat_reader_feed(rd_, bytes, len));
    }
    status feed(span<const char> bytes) noexcept { return feed(bytes.data(), bytes.size()); }
    /* Room for at least `want` bytes, valid until the next call; commit(n)
     * feeds the n bytes written there. */
    result<span<char>> space(std::size_t want) noexcept
    {
        void *buf = nullptr;
        std::size_t cap = 0;
        std::int32_t st = llmlat_reader_space(rd_, want, &buf, &cap);
        return detail::answer(st, span<char>(static_cast<char *>(buf), st == LLMLAT_OK ? cap : 0));
    }
    status commit(std::size_t n) noexcept { return status(llmlat_reader_commit(rd_, n)); }
    status end() noexcept { return status(llmlat_reader_end(rd_)); }

    /* The next request into r, or why there is none now: LLMLAT_READ_*. */
    result<std::int32_t> next(request &r) noexcept
    {
        std::int32_t what = 0;
        std::int32_t st = llmlat_reader_next(rd_, r.get(), &what);
        return detail::answer(st, what);
    }
    /* Folds every request available into a: READ_REJECTED, MORE or END. */
    result<std::int32_t> add_to(aggregator &a) noexcept
    {
        std::int32_t what = 0;
        std::int32_t st = llmlat_reader_add_to(rd_, a.get(), &what);
        return detail::answer(st, what);
    }

    /* The last rejection's or error's "name:line:column: ..." ("" when
     * none; "" also for a reader that owns nothing); the last request's id. */
    const char *message() const noexcept { return rd_ ? llmlat_reader_message(rd_) : ""; }
    const char *request_id() const noexcept { return rd_ ? llmlat_reader_request_id(rd_) : ""; }
    result<llmlat::position> position() const noexcept
    {
        llmlat::position p;
        std::int32_t st = llmlat_reader_request_position(rd_, &p.index, &p.line, &p.column);
        return detail::answer(st, p);
    }
    /* LLMLAT_READ_COUNT_*: EUNDEFINED for RUN or RUNS not known. */
    result<std::uint64_t> counter(std::int32_t counter) const noexcept
    {
        std::uint64_t v = 0;
        std::int32_t st = llmlat_reader_counter(rd_, counter, &v);
        return detail::answer(st, v);
    }
    /* The format read: the one given, or the one detected. */
    result<std::int32_t> format() const noexcept
    {
        std::int32_t v = LLMLAT_INPUT_AUTO;
        std::int32_t st = llmlat_reader_format(rd_, &v);
        return detail::answer(st, v);
    }
    /* The benchmark duration the input gives, seconds; EUNDEFINED (NaN). */
    result<double> duration() const noexcept
    {
        double v = NAN;
        std::int32_t st = llmlat_reader_duration(rd_, &v);
        return detail::answer(st, v);
    }

private:
    llmlat_reader *rd_ = nullptr;
};

} // namespace llmlat

#endif /* LLMLAT_HPP */
