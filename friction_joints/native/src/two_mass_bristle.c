/* two_mass_bristle.c: the kernels of the family "two_mass_bristle": the two stacked blocks of seed 001
 * Sect. 4 (block 1 on block 2 on a fixed base) with bristle friction in both contacts, lumped/bristle.py's
 * TwoMassBristle (the reference: the same equations in the same order),
 *
 *     M1 zdd1 = F1 - F12,   M2 zdd2 = F2 + F12 - F20,
 *     F12 = F(z12, v12, N12) on v12 = zd1 - zd2,   F20 = F(z20, v20, N20) on v20 = zd2   (fj_bristle_laws.h)
 *
 * inputs tau = [F1, F2] (N), state y = [z1, z2, zd1, zd2, zeta12, zeta20, W_friction] with zeta = sigma0 z.
 * One smooth mode, no events; stiff (its integrator: RODAS, fj_rodas.h).
 * fpar = [M1, M2, N12, N20, law12, law20 (FJ_BRISTLE_LAW_SIZE each)] (lumped.bristle_packing); ipar unused.
 * The record: z1, z2, zd1, zd2, z12, z20, F12, F20, v12, v20, W_friction (TwoMassBristle.record's order).
 */
#include "fj_bristle_laws.h"
#include "fj_kernel.h"
#include "fj_rodas.h"

enum { F_M1, F_M2, F_N12, F_N20, F_LAW12, F_LAW20 = F_LAW12 + FJ_BRISTLE_LAW_SIZE };

/* One contact (lumped.bristle.bristle_contact): z, zdot and F of the law at the scaled deflection zeta, slip v
 * and load N. */
typedef struct {
    double z, zdot, F;
} contact;

static contact contact_of(const double *law, double zeta, double v, double N) {
    contact c;
    c.z = zeta / law[FJ_LAW_SIGMA0];
    c.zdot = fj_bristle_zdot(law, c.z, v);
    c.F = fj_bristle_force(law, c.z, v, N, c.zdot);
    return c;
}

/* TwoMassBristle.contacts: the contacts 12 and 20 and their slips v = (v12, v20) at y. */
static void contacts(const double *fpar, const double *y, contact *c12, contact *c20, double v[2]) {
    v[0] = y[2] - y[3], v[1] = y[3];
    *c12 = contact_of(fpar + F_LAW12, y[4], v[0], fpar[F_N12]);
    *c20 = contact_of(fpar + F_LAW20, y[5], v[1], fpar[F_N20]);
}

static int64_t rhs(const fj_args *a, double t, const double *y, const double *tau, double *dy, int64_t n_out) {
    (void)t, (void)n_out;
    const double *fpar = a->fpar;
    contact c12, c20;
    double v[2];
    contacts(fpar, y, &c12, &c20, v);
    dy[0] = y[2];
    dy[1] = y[3];
    dy[2] = (tau[0] - c12.F) / fpar[F_M1];
    dy[3] = (tau[1] + c12.F - c20.F) / fpar[F_M2];
    dy[4] = fpar[F_LAW12 + FJ_LAW_SIGMA0] * c12.zdot;
    dy[5] = fpar[F_LAW20 + FJ_LAW_SIGMA0] * c20.zdot;
    dy[6] = -c12.F * v[0] - c20.F * v[1];
    return FJ_OK;
}

static int64_t record(const fj_args *a, double t, const double *y, const double *tau, double *out, int64_t n_out) {
    (void)t, (void)tau, (void)n_out;
    contact c12, c20;
    double v[2];
    contacts(a->fpar, y, &c12, &c20, v);
    double row[11] = {y[0], y[1], y[2], y[3], c12.z, c20.z, c12.F, c20.F, v[0], v[1], y[6]};
    for (int i = 0; i < 11; i++) out[i] = row[i];
    return FJ_OK;
}

/* W_friction, y[6], is read by no right-hand side. */
static void integrals(const fj_args *a, int64_t *first, int64_t *count) {
    (void)a;
    *first = 6, *count = 1;
}

const fj_family fj_family_two_mass_bristle = {"two_mass_bristle", rhs, fj_no_events, record, fj_no_scratch,
                                              fj_no_failure, fj_single_mode_layout, fj_single_mode_events,
                                              fj_single_mode_decide, &fj_rodas, integrals, NULL};
