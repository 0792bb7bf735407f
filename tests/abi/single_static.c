/* LLMLAT_STATIC: the whole library, API included, static to this file.
 * The 'single' suite checks that the archive of this file defines no
 * global symbol but single_static_run. */
#define LLMLAT_STATIC
#include "llmlat.h"

#include "scenario.h"

int single_static_run(void);

int single_static_run(void)
{
    return scenario();
}
