/* assembly_lumped.c: the assemblies of the lumped luz/tar models (family "lumped", lumped.c: SingleMassFriction,
 * TwoMassFriction) from their parameters: fpar and ipar as lumped.c reads them (lumped/packing.py documents
 * them), the checks of SingleMassParameters and TwoMassParameters with their messages.
 */
#include "fj_assembly.h"

enum { SINGLE_MASS = 0, TWO_MASS = 1 }; /* ipar[0], lumped.c */

/* SingleMassParameters then the initial state; fpar = M, C, FT0, FT0S, K, v_belt; ipar = [SINGLE_MASS, 0, 0];
 * y0 = [z, zd, W_drive, W_friction] (SingleMassFriction.initial_state). */
static const char *const SINGLE_NAMES[] = {"M", "C", "FT0", "FT0S", "K", "v_belt", "z_start", "zd_start"};

static int64_t single_assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error, size_t n_error) {
    fj_problems pr = fj_no_problems(error, n_error);
    fj_require(&pr, "M", p[0], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0); /* SingleMassParameters.__post_init__, in its order */
    fj_require(&pr, "C", p[1], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(&pr, "FT0", p[2], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(&pr, "K", p[4], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(&pr, "FT0S", p[3], FJ_CLOSED, p[2], FJ_NO_BOUND, 0.0);
    fj_require(&pr, "v_belt", p[5], FJ_NO_BOUND, 0.0, FJ_NO_BOUND, 0.0);
    fj_require_finite(&pr, "z_start", p[6]);
    fj_require_finite(&pr, "zd_start", p[7]);
    if (pr.count) return pr.count;
    for (int i = 0; i < 6; i++) fpar[i] = p[i];
    ipar[0] = SINGLE_MASS, ipar[1] = 0, ipar[2] = 0;
    y0[0] = p[6], y0[1] = p[7], y0[2] = 0.0, y0[3] = 0.0;
    return 0;
}

/* TwoMassParameters then the initial state; fpar = M1, M2, C12, C20, FT012, FT020, FT012S, FT020S;
 * ipar = [TWO_MASS, dry_12, dry_20] with dry_c = static level > 0 (TwoMassFriction.dry); y0 = [z1, z2,
 * zd1, zd2, W_drive, W_friction] (TwoMassFriction.initial_state). */
static const char *const TWO_NAMES[] = {"M1",       "M2",       "C12",       "C20",      "FT012",     "FT020",
                                        "FT012S",   "FT020S",   "z1_start",  "z2_start", "zd1_start", "zd2_start"};

static int64_t two_assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error, size_t n_error) {
    fj_problems pr = fj_no_problems(error, n_error);
    for (int i = 0; i < 2; i++) fj_require(&pr, TWO_NAMES[i], p[i], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    for (int i = 2; i < 6; i++) fj_require(&pr, TWO_NAMES[i], p[i], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(&pr, "FT012S", p[6], FJ_CLOSED, p[4], FJ_NO_BOUND, 0.0);
    fj_require(&pr, "FT020S", p[7], FJ_CLOSED, p[5], FJ_NO_BOUND, 0.0);
    for (int i = 8; i < 12; i++) fj_require_finite(&pr, TWO_NAMES[i], p[i]);
    if (pr.count) return pr.count;
    for (int i = 0; i < 8; i++) fpar[i] = p[i];
    ipar[0] = TWO_MASS, ipar[1] = p[6] > 0.0, ipar[2] = p[7] > 0.0;
    for (int i = 0; i < 4; i++) y0[i] = p[8 + i];
    y0[4] = 0.0, y0[5] = 0.0;
    return 0;
}

/* model, family, parameters, n_fpar, n_ipar, n_y, n_tau, n_record (lumped.c), assemble */
const fj_assembly fj_assembly_SingleMassFriction = {"SingleMassFriction", "lumped", FJ_COUNT(SINGLE_NAMES),
                                                    SINGLE_NAMES, 6, 3, 4, 1, 10, single_assemble};
const fj_assembly fj_assembly_TwoMassFriction = {"TwoMassFriction", "lumped", FJ_COUNT(TWO_NAMES), TWO_NAMES, 8, 3, 6,
                                                 2, 17, two_assemble};
