/* fj_bristle_laws.h: the bristle friction laws (Dahl, LuGre, elasto-plastic, Gonthier) of
 * friction/bristle.py, the reference, in C (bristle_laws.c), over a packed law: a row of
 * FJ_BRISTLE_LAW_SIZE doubles
 *
 *     model (1 Dahl, 2 LuGre, 3 elasto-plastic, 4 Gonthier: friction.bristle.LAWS), sigma0 (1/m),
 *     sigma1 (s/m), sigma2 (N.s/m), mu_c, mu_s (Dahl: mu_c), v_s (m/s), delta, z_ba_ratio
 *
 * in the frame of friction/bristle.py: slip v (m/s), mean deflection z (m), load N (N),
 * F = N (sigma0 z + sigma1 zdot) + sigma2 v (Gonthier: blended, see fj_bristle_force). */
#ifndef FJ_BRISTLE_LAWS_H
#define FJ_BRISTLE_LAWS_H

enum { FJ_DAHL = 1, FJ_LUGRE = 2, FJ_ELASTO_PLASTIC = 3, FJ_GONTHIER = 4 };
enum { FJ_LAW_MODEL, FJ_LAW_SIGMA0, FJ_LAW_SIGMA1, FJ_LAW_SIGMA2, FJ_LAW_MU_C, FJ_LAW_MU_S, FJ_LAW_V_S,
       FJ_LAW_DELTA, FJ_LAW_Z_BA_RATIO, FJ_BRISTLE_LAW_SIZE };

/* mu(v): mu_c for Dahl, else the Stribeck curve mu_c + (mu_s - mu_c) exp(-|v / v_s|^delta). */
double fj_bristle_mu(const double *law, double v);
/* zdot(z, v) (m/s) of the law. */
double fj_bristle_zdot(const double *law, double z, double v);
/* F (N) of the law at deflection z, slip v, load N (zdot: fj_bristle_zdot(law, z, v)). */
double fj_bristle_force(const double *law, double z, double v, double N, double zdot);

#endif
