/* What the two translation units of the single-header test share. */
#ifndef LLMLAT_TEST_SINGLE_TU_H
#define LLMLAT_TEST_SINGLE_TU_H

#ifdef __cplusplus
extern "C" {
#endif

/* Defined in single_impl.c, beside the implementation; 0 when good. */
int single_impl_side(void);

#ifdef __cplusplus
}
#endif

#endif
