/* CHECK for the C++ tests: counts failures, prints each, never aborts. */
#ifndef LLMLAT_TEST_CPP_CHECK_H
#define LLMLAT_TEST_CPP_CHECK_H

#include <cstdio>

inline int &check_failures()
{
    static int n = 0;
    return n;
}

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            std::fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
            check_failures()++;                                                          \
        }                                                                                \
    } while (0)

#endif
