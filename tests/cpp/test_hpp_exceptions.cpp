/* The opt-in exceptions of include/llmlat.hpp (LLMLAT_HPP_EXCEPTIONS):
 * llmlat::check() returns a result's value or throws llmlat::error with its
 * status; linked with a translation unit that includes the header without
 * the macro (hpp_other_tu.cpp), since the two are meant to mix. */
#define LLMLAT_HPP_EXCEPTIONS
#include "llmlat.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "check.h"

/* hpp_other_tu.cpp, without exceptions: requests completed there. */
std::uint64_t completed_in_other_tu(llmlat::aggregator &agg);

int main()
{
    auto agg = llmlat::check(llmlat::aggregator::create(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT));
    CHECK(agg);

    bool thrown = false;
    try {
        (void)llmlat::check(agg.quantile(LLMLAT_TTFT, 0.5)); /* empty: undefined */
    } catch (const llmlat::error &e) {
        thrown = true;
        CHECK(e.status().code() == LLMLAT_EUNDEFINED);
        CHECK(std::strcmp(e.what(), llmlat_strerror(LLMLAT_EUNDEFINED)) == 0);
    }
    CHECK(thrown);

    auto r = llmlat::check(llmlat::request::create());
    llmlat::check(r.start(0));
    llmlat::check(r.event(100, 1));
    thrown = false;
    try {
        llmlat::check(r.event(50, 1));
    } catch (const std::runtime_error &e) { /* llmlat::error is one */
        thrown = true;
        CHECK(std::strcmp(e.what(), llmlat_strerror(LLMLAT_EORDER)) == 0);
    }
    CHECK(thrown);
    llmlat::check(r.finish(100));
    llmlat::check(agg.add(r));
    CHECK(llmlat::check(agg.stat(LLMLAT_TTFT, LLMLAT_STAT_MEAN)) == 100e-9);
    CHECK(completed_in_other_tu(agg) == 1);

    /* a sink's exception stops the report and comes out of report_write,
     * never through the C code */
    thrown = false;
    int calls = 0;
    try {
        (void)agg.report_write(LLMLAT_FORMAT_TEXT, [&](const char *, std::size_t) {
            calls++;
            throw std::length_error("sink full");
        });
    } catch (const std::length_error &e) {
        thrown = std::strcmp(e.what(), "sink full") == 0;
    }
    CHECK(thrown && calls == 1);

    if (check_failures())
        return 1;
    std::printf("llmlat.hpp exceptions: all checks passed\n");
    return 0;
}
