/* assembly_bristle.c: the assembly of the oscillator with bristle friction (family "bristle", bristle.c) from
 * the parameters of the FMU BristleOscillator: the one packer of the model (lumped/bristle_packing.py calls it).
 *
 * Parameters (the FMU's, in its order): model (1 Dahl, 2 LuGre, 3 elasto-plastic, 4 Gonthier), m, k, sigma0,
 * sigma1, sigma2, mu_c, mu_s, v_s, delta, z_ba_ratio; those a law lacks are not checked and not read (Dahl:
 * mu_s, v_s, delta, z_ba_ratio; LuGre and Gonthier: z_ba_ratio), as friction.bristle.make_law ignores them.
 * The checks are those of make_law, the laws' __post_init__ and BristleOscillatorParameters, with their
 * messages. fpar = [m, k, the law row of fj_bristle_laws.h (the fields a law lacks are 1; Dahl's mu_s is
 * mu_c)], ipar = [0], y0 = 0: at rest, x = z = 0, no work (the FMU's start).
 */
#include <math.h>
#include <stdio.h>

#include "fj_assembly.h"
#include "fj_bristle_laws.h"

static const char *const NAMES[] = {"model", "m",   "k", "sigma0", "sigma1", "sigma2", "mu_c", "mu_s", "v_s", "delta",
                                    "z_ba_ratio"};
enum { P_MODEL, P_M, P_K, P_SIGMA0, P_SIGMA1, P_SIGMA2, P_MU_C, P_MU_S, P_V_S, P_DELTA, P_Z_BA_RATIO, N_PARAM };
enum { N_FPAR = 2 + FJ_BRISTLE_LAW_SIZE };

/* friction.bristle: make_law's model, _common_problems, _Stribeck's and ElastoPlastic's checks of the law row
 * `given` (fj_bristle_laws.h's order), each field named as names[field] says, with their messages; where it has
 * none, the row packed into law: given, with the fields the law lacks 1 (Dahl: mu_s is mu_c). */
void fj_bristle_law_named(fj_problems *pr, const char *const *names, const double *given, double *law) {
    double model = given[FJ_LAW_MODEL];
    if (!(model == FJ_DAHL || model == FJ_LUGRE || model == FJ_ELASTO_PLASTIC || model == FJ_GONTHIER)) {
        char text[32]; /* the FMU's Integer as Python writes an int, else the double */
        if (model == floor(model) && fabs(model) < 1e15)
            snprintf(text, sizeof text, "%.0f", model);
        else
            fj_repr(model, text, sizeof text);
        fj_problem(pr, "%s=%s is outside the allowed range [1, 4] (1 Dahl, 2 LuGre, 3 elasto-plastic, 4 Gonthier)",
                   names[FJ_LAW_MODEL], text);
        return;
    }
    int64_t before = pr->count;
    fj_require(pr, names[FJ_LAW_SIGMA0], given[FJ_LAW_SIGMA0], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, names[FJ_LAW_SIGMA1], given[FJ_LAW_SIGMA1], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, names[FJ_LAW_SIGMA2], given[FJ_LAW_SIGMA2], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    int64_t mu_c_checked = pr->count;
    fj_require(pr, names[FJ_LAW_MU_C], given[FJ_LAW_MU_C], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    int dahl = model == FJ_DAHL;
    if (!dahl) {
        double mu_s_low = pr->count == mu_c_checked ? given[FJ_LAW_MU_C] : 0.0;
        fj_require(pr, names[FJ_LAW_MU_S], given[FJ_LAW_MU_S], FJ_CLOSED, mu_s_low, FJ_NO_BOUND, 0.0);
        fj_require(pr, names[FJ_LAW_V_S], given[FJ_LAW_V_S], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
        fj_require(pr, names[FJ_LAW_DELTA], given[FJ_LAW_DELTA], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
        if (model == FJ_ELASTO_PLASTIC)
            fj_require(pr, names[FJ_LAW_Z_BA_RATIO], given[FJ_LAW_Z_BA_RATIO], FJ_CLOSED, 0.0, FJ_OPEN, 1.0);
    }
    if (pr->count != before) return;
    for (int i = 0; i < FJ_BRISTLE_LAW_SIZE; i++) law[i] = given[i];
    if (dahl) law[FJ_LAW_MU_S] = given[FJ_LAW_MU_C], law[FJ_LAW_V_S] = law[FJ_LAW_DELTA] = 1.0; /* Dahl.mu_s */
    if (model != FJ_ELASTO_PLASTIC) law[FJ_LAW_Z_BA_RATIO] = 1.0;
}

void fj_bristle_law(fj_problems *pr, const char *model_name, const double *given, double *law) {
    const char *const names[FJ_BRISTLE_LAW_SIZE] = {model_name, "sigma0", "sigma1", "sigma2",    "mu_c",
                                                    "mu_s",     "v_s",    "delta",  "z_ba_ratio"};
    fj_bristle_law_named(pr, names, given, law);
}

int64_t fj_bristle_law_pack(const double *p, double *law, char *error, size_t n_error) {
    fj_problems pr = fj_no_problems(error, n_error);
    fj_bristle_law(&pr, "model", p, law);
    return pr.count;
}

static int64_t assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error, size_t n_error) {
    fj_problems pr = fj_no_problems(error, n_error);
    const double given[FJ_BRISTLE_LAW_SIZE] = {p[P_MODEL], p[P_SIGMA0], p[P_SIGMA1], p[P_SIGMA2], p[P_MU_C],
                                               p[P_MU_S],  p[P_V_S],    p[P_DELTA],  p[P_Z_BA_RATIO]};
    fj_bristle_law(&pr, "model", given, fpar + 2);
    fj_require(&pr, "m", p[P_M], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0); /* BristleOscillatorParameters */
    fj_require(&pr, "k", p[P_K], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    if (pr.count) return pr.count;
    fpar[0] = p[P_M], fpar[1] = p[P_K];
    ipar[0] = 0;
    for (int i = 0; i < 4; i++) y0[i] = 0.0;
    return 0;
}

/* model, family, parameters, n_fpar, n_ipar, n_y, n_tau, n_record (bristle.c), assemble */
const fj_assembly fj_assembly_BristleOscillator = {"BristleOscillator", "bristle", N_PARAM, NAMES, N_FPAR, 1, 4, 3,
                                                   11, assemble};
