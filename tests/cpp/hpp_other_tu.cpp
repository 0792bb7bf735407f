/* A translation unit that includes llmlat.hpp without LLMLAT_HPP_EXCEPTIONS,
 * linked with test_hpp_exceptions.cpp, which defines it. */
#include "llmlat.hpp"

std::uint64_t completed_in_other_tu(llmlat::aggregator &agg);

std::uint64_t completed_in_other_tu(llmlat::aggregator &agg)
{
    return agg.counter(LLMLAT_COUNT_COMPLETED).value_or(0);
}
