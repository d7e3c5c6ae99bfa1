/* friction_laws.c: the friction laws of the C engine's joints (friction.laws), one function each, by
 * kind (planar_internal.h: COULOMB ... TANH). A law's parameters: mu_s, then three of its own. */
#include <math.h>

#include "planar_internal.h"
#include "planar_joints.h"

/* mu_k */
static double coulomb(const double *law, double v) {
    (void)v;
    return law[1];
}

/* mu_k + (mu_s - mu_k) exp(-(|v|/v_s)^delta) */
static double stribeck(const double *law, double v) {
    return law[1] + (law[0] - law[1]) * exp(-(pow(fabs(v) / law[2], law[3])));
}

/* seed 002 eq. (7): mu_0 (1 - exp(-k |v| / v_k)) */
static double exponential(const double *law, double v) { return law[1] * (1.0 - exp(-law[2] * fabs(v) / law[3])); }

/* mu_k tanh(|v| / v_eps) */
static double tanh_law(const double *law, double v) { return law[1] * tanh(fabs(v) / law[2]); }

double fj_friction_mu(int64_t kind, const double *law, double sd, int stat) {
    static double (*const kinetic[])(const double *, double) = {
        [COULOMB] = coulomb, [STRIBECK] = stribeck, [EXPONENTIAL] = exponential, [TANH] = tanh_law};
    return stat ? law[0] : kinetic[kind](law, sd);
}

double fj_friction_bound(int64_t kind, const double *law) { return kind == NO_LAW ? 0.0 : law[0]; }
