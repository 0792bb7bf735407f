/* For test_schema_bounds.py: reads lines "ALPHA X" (X a C99 hex float)
 * and prints, for each, the schema, the bucket index of X by the map's
 * cells, by the map-less search, and the bucket's upper bound (hex). */
#include <stdio.h>
#include <stdlib.h>

#include "bounded/sketch_map.h"

int main(void)
{
    llmlat_alloc al = alloc_current();
    char line[256];
    double alpha_now = -1;
    sketch_map m;
    while (fgets(line, sizeof line, stdin)) {
        char *end;
        double alpha = strtod(line, &end), x = strtod(end, NULL);
        if (alpha != alpha_now) {
            if (alpha_now > 0)
                sketch_map_free(&m, &al);
            if (sketch_map_init(&m, &al, alpha) != LLMLAT_OK)
                return 1;
            alpha_now = alpha;
        }
        int64_t i = sketch_map_index_any(&m, x);
        printf("%d %lld %lld %a\n", m.schema, (long long)i,
               (long long)sketch_schema_index(m.schema, x), sketch_map_upper(&m, i));
    }
    return 0;
}
