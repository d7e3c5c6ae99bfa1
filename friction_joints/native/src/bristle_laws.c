/* The bristle friction laws (fj_bristle_laws.h), each as friction/bristle.py states it. */
#include <math.h>

#include "fj_bristle_laws.h"
#include "fj_linalg.h"

#define PI 3.14159265358979323846

/* exp(-|v / v_s|^delta), the decay of the Stribeck curve and Gonthier's blend s(v) (delta = 2, the
 * default, by a product: pow is the costliest part of a right-hand side) */
static double decay(const double *law, double v) {
    double x = fabs(v) / law[FJ_LAW_V_S];
    return exp(-(law[FJ_LAW_DELTA] == 2.0 ? x * x : pow(x, law[FJ_LAW_DELTA])));
}

static double stribeck(const double *law, double v) { /* laws.Stribeck.coefficient */
    return law[FJ_LAW_MU_C] + (law[FJ_LAW_MU_S] - law[FJ_LAW_MU_C]) * decay(law, v);
}

double fj_bristle_mu(const double *law, double v) {
    return law[FJ_LAW_MODEL] == FJ_DAHL ? law[FJ_LAW_MU_C] : stribeck(law, v);
}

/* alpha(z, v) of the elasto-plastic law (Dupont, Armstrong, Hayward 2002; ElastoPlastic.alpha): 0 up to
 * z_ba, a half sine up to z_ss(v) = mu(v) / sigma0, then 1; 0 where sgn z != sgn v. */
static double alpha(const double *law, double z, double v) {
    double sigma0 = law[FJ_LAW_SIGMA0];
    double z_ba = law[FJ_LAW_Z_BA_RATIO] * law[FJ_LAW_MU_C] / sigma0, z_ss = fj_bristle_mu(law, v) / sigma0;
    double a;
    if (fabs(z) <= z_ba)
        a = 0.0;
    else if (fabs(z) >= z_ss)
        a = 1.0;
    else
        a = 0.5 * sin(PI * (fabs(z) - 0.5 * (z_ss + z_ba)) / (z_ss - z_ba)) + 0.5;
    return fj_sign(z) == fj_sign(v) ? a : 0.0;
}

double fj_bristle_zdot(const double *law, double z, double v) {
    double sigma0 = law[FJ_LAW_SIGMA0];
    switch ((int)law[FJ_LAW_MODEL]) {
    case FJ_DAHL: return v * (1.0 - sigma0 * z * fj_sign(v) / law[FJ_LAW_MU_C]);
    case FJ_ELASTO_PLASTIC: return v - alpha(law, z, v) * sigma0 * fabs(v) * z / fj_bristle_mu(law, v);
    case FJ_GONTHIER: return v - sigma0 * fabs(v) * z / law[FJ_LAW_MU_S];
    default: return v - sigma0 * fabs(v) * z / fj_bristle_mu(law, v); /* LuGre */
    }
}

double fj_bristle_force(const double *law, double z, double v, double N, double zdot) {
    double bristle = law[FJ_LAW_SIGMA0] * z + law[FJ_LAW_SIGMA1] * zdot;
    if (law[FJ_LAW_MODEL] == FJ_GONTHIER) { /* Gonthier.force: s(v) blends the bristle into mu_c sgn v */
        double s = decay(law, v);
        return N * (s * bristle + (1.0 - s) * law[FJ_LAW_MU_C] * fj_sign(v)) + law[FJ_LAW_SIGMA2] * v;
    }
    return N * bristle + law[FJ_LAW_SIGMA2] * v;
}
