/* The native-histogram bucket layout: its boundaries, the cell table that
 * finds a value's bucket, and a bucket's bounds and value. Only the
 * constants below, IEEE basic operations (exactly rounded everywhere) and
 * integers decide the layout, so a sketch serialized on one machine means
 * the same on another. */
#include <float.h>
#include <math.h>

#include "util/wide.h"
#include "bounded/sketch_map.h"

/* Prometheus client_golang 1.14's nativeHistogramBounds[8] (also
 * Prometheus' own exponentialBounds[8]): 2^(j/256 - 1) for j < 256 as
 * Prometheus computed them, within 5 ulps of the exact values but not
 * correctly rounded (341 of the 511 bounds of schemas 1..8 differ from
 * it). They are copied, not recomputed, because a bucket is only
 * Prometheus' bucket if its boundary is the same double. Schema s <= 8
 * takes every 2^(8-s)-th of them (Prometheus' schemas nest so);
 * tests/bounded/test_schema_bounds.py compares them with the Debian
 * package's file. */
static const double SKETCH_BOUNDS_8[256] = {
    0x1.0000000000000p-1, 0x1.00b1afa5abcbfp-1, 0x1.0163da9fb3335p-1, 0x1.02168143b0281p-1,
    0x1.02c9a3e778061p-1, 0x1.037d42e11bbccp-1, 0x1.04315e86e7f84p-1, 0x1.04e5f72f654b1p-1,
    0x1.059b0d3158574p-1, 0x1.0650a0e3c1f89p-1, 0x1.0706b29ddf6ddp-1, 0x1.07bd42b72a836p-1,
    0x1.0874518759bc8p-1, 0x1.092bdf66607e0p-1, 0x1.09e3ecac6f383p-1, 0x1.0a9c79b1f3919p-1,
    0x1.0b5586cf9890fp-1, 0x1.0c0f145e46c85p-1, 0x1.0cc922b7247f6p-1, 0x1.0d83b23395deap-1,
    0x1.0e3ec32d3d1a2p-1, 0x1.0efa55fdfa9c5p-1, 0x1.0fb66affed31ap-1, 0x1.1073028d7233dp-1,
    0x1.11301d0125b50p-1, 0x1.11edbab5e2ab5p-1, 0x1.12abdc06c31cbp-1, 0x1.136a814f204aap-1,
    0x1.1429aaea92ddfp-1, 0x1.14e95934f312dp-1, 0x1.15a98c8a58e50p-1, 0x1.166a45471c3c1p-1,
    0x1.172b83c7d517bp-1, 0x1.17ed48695bbc0p-1, 0x1.18af9388c8de9p-1, 0x1.1972658375d2fp-1,
    0x1.1a35beb6fcb75p-1, 0x1.1af99f8138a1cp-1, 0x1.1bbe084045cd3p-1, 0x1.1c82f95281c6bp-1,
    0x1.1d4873168b9aap-1, 0x1.1e0e75eb44026p-1, 0x1.1ed5022fcd91cp-1, 0x1.1f9c18438ce4cp-1,
    0x1.2063b88628cd6p-1, 0x1.212be3578a819p-1, 0x1.21f49917ddc95p-1, 0x1.22bdda27912d0p-1,
    0x1.2387a6e756238p-1, 0x1.2451ffb82140ap-1, 0x1.251ce4fb2a63ep-1, 0x1.25e85711ece74p-1,
    0x1.26b4565e27cddp-1, 0x1.2780e341ddf2ap-1, 0x1.284dfe1f56380p-1, 0x1.291ba7591bb6fp-1,
    0x1.29e9df51fdee1p-1, 0x1.2ab8a66d10f13p-1, 0x1.2b87fd0dad98fp-1, 0x1.2c57e39771b2ep-1,
    0x1.2d285a6e4030bp-1, 0x1.2df961f641589p-1, 0x1.2ecafa93e2f55p-1, 0x1.2f9d24abd886ap-1,
    0x1.306fe0a31b715p-1, 0x1.31432edeeb2fdp-1, 0x1.32170fc4cd831p-1, 0x1.32eb83ba8ea32p-1,
    0x1.33c08b26416ffp-1, 0x1.3496266e3fa2dp-1, 0x1.356c55f929ff0p-1, 0x1.36431a2de883ap-1,
    0x1.371a7373aa9cap-1, 0x1.37f26231e7549p-1, 0x1.38cae6d05d864p-1, 0x1.39a401b7140edp-1,
    0x1.3a7db34e59ff6p-1, 0x1.3b57fbfec6cf4p-1, 0x1.3c32dc313a8e3p-1, 0x1.3d0e544ede172p-1,
    0x1.3dea64c123422p-1, 0x1.3ec70df1c5175p-1, 0x1.3fa4504ac801bp-1, 0x1.40822c367a024p-1,
    0x1.4160a21f72e2ap-1, 0x1.423fb2709468ap-1, 0x1.431f5d950a896p-1, 0x1.43ffa3f84b9d4p-1,
    0x1.44e086061892dp-1, 0x1.45c2042a7d232p-1, 0x1.46a41ed1d0057p-1, 0x1.4786d668b3236p-1,
    0x1.486a2b5c13cd0p-1, 0x1.494e1e192aed2p-1, 0x1.4a32af0d7d3dep-1, 0x1.4b17dea6db7d7p-1,
    0x1.4bfdad5362a27p-1, 0x1.4ce41b817c114p-1, 0x1.4dcb299fddd0dp-1, 0x1.4eb2d81d8abfep-1,
    0x1.4f9b2769d2ca7p-1, 0x1.508417f4531efp-1, 0x1.516daa2cf6642p-1, 0x1.5257de83f4eefp-1,
    0x1.5342b569d4f81p-1, 0x1.542e2f4f6ad27p-1, 0x1.551a4ca5d920dp-1, 0x1.56070dde910d0p-1,
    0x1.56f4736b527dap-1, 0x1.57e27dbe2c4cfp-1, 0x1.58d12d497c7fcp-1, 0x1.59c0827ff07cbp-1,
    0x1.5ab07dd485429p-1, 0x1.5ba11fba87a02p-1, 0x1.5c9268a5946b6p-1, 0x1.5d84590998b92p-1,
    0x1.5e76f15ad2148p-1, 0x1.5f6a320dceb71p-1, 0x1.605e1b976dc08p-1, 0x1.6152ae6cdf6f4p-1,
    0x1.6247eb03a5584p-1, 0x1.633dd1d1929fdp-1, 0x1.6434634ccc31ep-1, 0x1.652b9febc8fb5p-1,
    0x1.6623882552224p-1, 0x1.671c1c70833f5p-1, 0x1.68155d44ca972p-1, 0x1.690f4b19e9537p-1,
    0x1.6a09e667f3bccp-1, 0x1.6b052fa75173ep-1, 0x1.6c012750bdabep-1, 0x1.6cfdcddd47645p-1,
    0x1.6dfb23c651a2ep-1, 0x1.6ef9298593ae4p-1, 0x1.6ff7df9519482p-1, 0x1.70f7466f42e85p-1,
    0x1.71f75e8ec5f73p-1, 0x1.72f8286ead089p-1, 0x1.73f9a48a58172p-1, 0x1.74fbd35d7cbfcp-1,
    0x1.75feb564267c8p-1, 0x1.77024b1ab6e09p-1, 0x1.780694fde5d3ep-1, 0x1.790b938ac1cf5p-1,
    0x1.7a11473eb0186p-1, 0x1.7b17b0976cfdap-1, 0x1.7c1ed0130c131p-1, 0x1.7d26a62ff86efp-1,
    0x1.7e2f336cf4e61p-1, 0x1.7f3878491c490p-1, 0x1.80427543e1a10p-1, 0x1.814d2add106d8p-1,
    0x1.82589994cce11p-1, 0x1.8364c1eb941f6p-1, 0x1.8471a4623c7abp-1, 0x1.857f4179f5b1fp-1,
    0x1.868d99b4492ebp-1, 0x1.879cad931a435p-1, 0x1.88ac7d98a6697p-1, 0x1.89bd0a478580dp-1,
    0x1.8ace5422aa0dbp-1, 0x1.8be05bad61778p-1, 0x1.8cf3216b5448bp-1, 0x1.8e06a5e0866d8p-1,
    0x1.8f1ae99157736p-1, 0x1.902fed0282c8ap-1, 0x1.9145b0b91ffc5p-1, 0x1.925c353aa2fe2p-1,
    0x1.93737b0cdc5e4p-1, 0x1.948b82b5f98e4p-1, 0x1.95a44cbc8520dp-1, 0x1.96bdd9a7670b1p-1,
    0x1.97d829fde4e4fp-1, 0x1.98f33e47a22a2p-1, 0x1.9a0f170ca07b8p-1, 0x1.9b2bb4d53fe0bp-1,
    0x1.9c49182a3f08fp-1, 0x1.9d674194bb8d4p-1, 0x1.9e86319e32321p-1, 0x1.9fa5e8d07f29cp-1,
    0x1.a0c667b5de564p-1, 0x1.a1e7aed8eb8bbp-1, 0x1.a309bec4a2d32p-1, 0x1.a42c980460ad7p-1,
    0x1.a5503b23e255bp-1, 0x1.a674a8af46051p-1, 0x1.a799e1330b356p-1, 0x1.a8bfe53c12e57p-1,
    0x1.a9e6b5579fdbep-1, 0x1.ab0e521356eb9p-1, 0x1.ac36bbfd3f378p-1, 0x1.ad5ff3a3c2773p-1,
    0x1.ae89f995ad3acp-1, 0x1.afb4ce622f2fep-1, 0x1.b0e07298db663p-1, 0x1.b20ce6c9a8950p-1,
    0x1.b33a2b84f15fap-1, 0x1.b468415b749b0p-1, 0x1.b59728de55938p-1, 0x1.b6c6e29f1c529p-1,
    0x1.b7f76f2fb5e45p-1, 0x1.b928cf22749e2p-1, 0x1.ba5b030a10647p-1, 0x1.bb8e0b79a6f1dp-1,
    0x1.bcc1e904bc1d0p-1, 0x1.bdf69c3f3a205p-1, 0x1.bf2c25bd71e06p-1, 0x1.c06286141b33bp-1,
    0x1.c199bdd85529ap-1, 0x1.c2d1cd9fa652ap-1, 0x1.c40ab5fffd078p-1, 0x1.c544778fafb20p-1,
    0x1.c67f12e57d149p-1, 0x1.c7ba88988c931p-1, 0x1.c8f6d9406e7b2p-1, 0x1.ca3405751c4d8p-1,
    0x1.cb720dcef9066p-1, 0x1.ccb0f2e6d1672p-1, 0x1.cdf0b555dc3f6p-1, 0x1.cf3155b5bab70p-1,
    0x1.d072d4a078979p-1, 0x1.d1b532b08c966p-1, 0x1.d2f87080d89eep-1, 0x1.d43c8eacaa1d3p-1,
    0x1.d5818dcfba486p-1, 0x1.d6c76e862e6d2p-1, 0x1.d80e316c98396p-1, 0x1.d955d71ff6074p-1,
    0x1.da9e603db3284p-1, 0x1.dbe7cd63a8313p-1, 0x1.dd321f301b45ep-1, 0x1.de7d5641c0656p-1,
    0x1.dfc97337b9b5dp-1, 0x1.e11676b197d16p-1, 0x1.e264614f5a126p-1, 0x1.e3b333b16ee0fp-1,
    0x1.e502ee78b3ff5p-1, 0x1.e653924676d75p-1, 0x1.e7a51fbc74c81p-1, 0x1.e8f7977cdb73ep-1,
    0x1.ea4afa2a490d8p-1, 0x1.eb9f4867cca6dp-1, 0x1.ecf482d8e67eep-1, 0x1.ee4aaa218850ep-1,
    0x1.efa1bee615a26p-1, 0x1.f0f9c1cb64129p-1, 0x1.f252b376bba95p-1, 0x1.f3ac948dd7272p-1,
    0x1.f50765b6e453ep-1, 0x1.f6632798844f6p-1, 0x1.f7bfdad9cbe10p-1, 0x1.f91d802243c86p-1,
    0x1.fa7c1819e90d6p-1, 0x1.fbdba3692d512p-1, 0x1.fd3c22b8f71eep-1, 0x1.fe9d96b2a23d6p-1,
};

/* 2^(m/4096) for m < 16, correctly rounded: schemas 9..12 put bound j at
 * SKETCH_BOUNDS_8[j >> (s - 8)] times the fine step of its remainder (one
 * rounding, so within 6 ulps of 2^(j/N - 1), and schema 8's bounds
 * unchanged). */
static const double SKETCH_FINE_STEP[16] = {
    0x1.0000000000000p+0, 0x1.000b175effdc7p+0, 0x1.00162f3904052p+0, 0x1.0021478e11ce6p+0,
    0x1.002c605e2e8cfp+0, 0x1.003779a95f959p+0, 0x1.0042936faa3d8p+0, 0x1.004dadb113da0p+0,
    0x1.0058c86da1c0ap+0, 0x1.0063e3a559473p+0, 0x1.006eff583fc3dp+0, 0x1.007a1b865a8cap+0,
    0x1.0085382faef83p+0, 0x1.00905554425d4p+0, 0x1.009b72f41a12bp+0, 0x1.00a6910f3b6fdp+0,
};

/* (base - 1) / (base + 1) for base = 2^(2^-s), s = 1..12, rounded to
 * nearest: the relative error of a bucket's representative. */
static const double SKETCH_SCHEMA_ERROR[SKETCH_SCHEMA_MAX + 1] = {
    0.0,
    0.1715728752538099,     0.0864272337258898,     0.043294617499389176,
    0.02165746232622629,    0.010830001253373642,   0.005415159415902569,
    0.002707599557476328,   0.0013538022599560793,  0.0006769014401311318,
    0.00033845075883472906, 0.00016922538426351075, 8.461269273752368e-05,
};

/* A schema is taken for alpha when its error is within alpha shrunk by
 * 2^-30 of itself: the bounds' few ulps and the roundings between a
 * bucket and a reported quantile (1e-15 relative) then stay inside alpha. */
#define SKETCH_ALPHA_MARGIN (1.0 / 1073741824.0)

LLMLAT_PRIVATE int32_t sketch_schema_for(double alpha)
{
    double a = alpha - alpha * SKETCH_ALPHA_MARGIN;
    int32_t s = SKETCH_SCHEMA_MIN;
    while (s < SKETCH_SCHEMA_MAX && SKETCH_SCHEMA_ERROR[s] > a)
        s++;
    return s;
}

/* Bound j of schema s, in [0.5, 1). */
static double map_bound(int32_t s, uint32_t j)
{
    if (s <= 8)
        return SKETCH_BOUNDS_8[j << (8 - s)];
    uint32_t fine = j & ((UINT32_C(1) << (s - 8)) - 1);
    return SKETCH_BOUNDS_8[j >> (s - 8)] * SKETCH_FINE_STEP[fine << (12 - s)];
}

/* The mantissa's 52 bits at the top of 64. */
static uint64_t map_mantissa(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b << 12;
}

/* Fills the cells of a layout from the thresholds of one reference
 * octave (exponent field e_ref): thr[0..n) increasing, left-aligned
 * mantissas, a value of that octave being in bucket first + #{thr <
 * its mantissa}. Every other octave repeats the pattern N indexes apart.
 * The index formula adds (E 2^(s+1) + c) / 2 = E N + c / 2 for cell c,
 * which the base takes back. Thresholds are at least 0.69 / N apart in
 * the mantissa's [0, 1) and cells 0.5 / N wide: at most one falls in a
 * cell. */
static void map_fill_cells(uint64_t *bound, int64_t *base, int32_t s, int64_t e_ref,
                           int64_t first, const uint64_t *thr, uint32_t n)
{
    uint32_t cells = UINT32_C(2) << s, j = 0;
    for (uint32_t c = 0; c < cells; c++) {
        uint64_t start = (uint64_t)c << (64 - (s + 1));
        while (j < n && thr[j] < start)
            j++;
        bound[c] = j < n ? thr[j] : UINT64_MAX;
        base[c] = first + (int64_t)j - (e_ref << s) - (int64_t)(c >> 1);
    }
}

/* The integer ns thresholds of the reference octave [2^52, 2^53): RN(g /
 * 1e9) <= B, B a bucket's upper bound in seconds, exactly when g <
 * 1e9 (B + ulp(B) / 2) (never an integer here: no ties), i.e. g <= its
 * floor. B = M 2^q with M < 2^53, so that is ((2M + 1) 1e9) >> (1 - q),
 * in 128-bit integers. As B and its ulp double from one octave to the
 * next, so does the threshold: the pattern holds in every octave of
 * doubles that are integers (g < 2^53). */
static uint32_t map_ns_thresholds(const sketch_map *m, int64_t first, uint64_t *thr)
{
    uint32_t n = 0;
    for (int64_t i = first; n <= m->per_octave; i++) {
        double b = sketch_map_upper(m, i);
        int e;
        double f = frexp(b, &e); /* b = f 2^e, f in [0.5, 1) */
        uint64_t mant = (uint64_t)ldexp(f, 53);
        int shift = 1 - (e - 53); /* q = e - 53 */
        uint64_t lo, hi;
        wide_mul(2 * mant + 1, UINT64_C(1000000000), &lo, &hi);
        uint64_t g = shift >= 64 ? hi >> (shift - 64) : (lo >> shift) | (hi << (64 - shift));
        if (g >= (UINT64_C(1) << 53))
            break;
        thr[n++] = (g - (UINT64_C(1) << 52)) << 12;
    }
    return n;
}

LLMLAT_PRIVATE int32_t sketch_map_init(sketch_map *m, const llmlat_alloc *al, double alpha)
{
    int32_t s = sketch_schema_for(alpha);
    uint32_t n = UINT32_C(1) << s, cells = n << 1;
    uint64_t *cell = alloc_malloc(al, 4 * (size_t)cells * sizeof *cell);
    double *value = alloc_malloc(al, n * sizeof *value);
    uint64_t *thr = alloc_malloc(al, (n + 1) * sizeof *thr);
    if (!cell || !value || !thr) {
        alloc_free(al, cell);
        alloc_free(al, value);
        alloc_free(al, thr);
        return LLMLAT_ENOMEM;
    }
    /* Bucket j of an octave covers (bound j - 1, bound j], bucket 0
     * (bound n - 1 / 2, 0.5]; the value is their harmonic mean, whose
     * relative error (hi - lo) / (hi + lo) is the same on both sides. */
    for (uint32_t j = 0; j < n; j++) {
        double lo = j ? map_bound(s, j - 1) : map_bound(s, n - 1) / 2.0;
        double hi = map_bound(s, j);
        value[j] = 2.0 * lo * hi / (lo + hi);
        thr[j] = map_mantissa(hi); /* in [1, 2): the bound 2 hi, bucket j */
    }
    *m = (sketch_map){
        .alpha = alpha,
        .error = SKETCH_SCHEMA_ERROR[s],
        .schema = s,
        .per_octave = n,
        .cell_shift = 52 - (uint32_t)(s + 1),
        .cell_mask = cells - 1,
        .width = SKETCH_OCTAVES * n + 1,
        .cell_mem = cell,
        .value = value,
    };
    /* four arrays of `cells` 64-bit words: bounds and bases of each */
    uint64_t *sb = cell, *nb = cell + 2 * cells;
    int64_t *sa = (int64_t *)(cell + cells), *na = (int64_t *)(cell + 3 * cells);
    m->cell = (sketch_cells){ sb, sa };
    m->ns_cell = (sketch_cells){ nb, na };
    /* 1.0 = 2^0 ends bucket 0 */
    map_fill_cells(sb, sa, s, 1023, 0, thr, n);
    int64_t first = sketch_map_index(m, 0x1p52 / 1e9); /* g = 2^52 ns */
    map_fill_cells(nb, na, s, 1075, first, thr, map_ns_thresholds(m, first, thr));
    alloc_free(al, thr);
    return LLMLAT_OK;
}

LLMLAT_PRIVATE void sketch_map_free(sketch_map *m, const llmlat_alloc *al)
{
    alloc_free(al, m->cell_mem);
    alloc_free(al, m->value);
    m->cell_mem = NULL;
    m->value = NULL;
}

LLMLAT_PRIVATE size_t sketch_map_memory(const sketch_map *m)
{
    return ((size_t)m->per_octave << 3) * sizeof *m->cell_mem +
           m->per_octave * sizeof *m->value;
}

LLMLAT_PRIVATE int64_t sketch_map_index_any(const sketch_map *m, double x)
{
    if (x >= DBL_MIN)
        return sketch_map_index(m, x);
    /* a subnormal, scaled up by 2^128 exactly */
    return sketch_map_index(m, x * 0x1p128) - ((int64_t)128 << m->schema);
}

LLMLAT_PRIVATE int64_t sketch_schema_index(int32_t schema, double x)
{
    int exp;
    double frac = frexp(x, &exp); /* exact: x = frac 2^exp, frac in [0.5, 1) */
    uint32_t lo = 0, hi = UINT32_C(1) << schema; /* the first bound >= frac */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (map_bound(schema, mid) < frac)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (int64_t)(exp - 1) * ((int64_t)1 << schema) + lo;
}

/* x 2^e, exactly: a power of two built from its bits where it is normal
 * (no libm call on the query path). */
static double map_times_pow2(double x, int64_t e)
{
    if (e < -1022 || e > 1023)
        return ldexp(x, (int)(e < -2000 ? -2000 : e > 2000 ? 2000 : e));
    uint64_t bits = (uint64_t)(e + 1023) << 52;
    double scale;
    memcpy(&scale, &bits, sizeof scale);
    return x * scale;
}

/* index = q N + j with 0 <= j < N: values of bucket j scaled by 2^(q+1).
 * Indexes stay above -1200 N (the smallest subnormal's), so the biased
 * shift is of a non-negative number. */
static void map_split_index(int32_t schema, int64_t index, int64_t *q, uint32_t *j)
{
    uint64_t biased = (uint64_t)(index + ((int64_t)2048 << schema));
    *j = (uint32_t)(biased & ((UINT64_C(1) << schema) - 1));
    *q = (int64_t)(biased >> schema) - 2048;
}

LLMLAT_PRIVATE double sketch_schema_upper(int32_t schema, int64_t index)
{
    int64_t q;
    uint32_t j;
    map_split_index(schema, index, &q, &j);
    return map_times_pow2(map_bound(schema, j), q + 1);
}

LLMLAT_PRIVATE double sketch_map_upper(const sketch_map *m, int64_t index)
{
    return sketch_schema_upper(m->schema, index);
}

LLMLAT_PRIVATE double sketch_map_value(const sketch_map *m, int64_t index)
{
    int64_t q;
    uint32_t j;
    map_split_index(m->schema, index, &q, &j);
    return map_times_pow2(m->value[j], q + 1);
}
