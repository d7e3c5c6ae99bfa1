/* bristle.c: the kernels of the family "bristle": the oscillator with bristle friction of
 * lumped/bristle.py (BristleOscillator, the reference: the same equations in the same order), a mass
 * on a belt held by a spring,
 *
 *     m a = k (x_d - x) - F,   v_r = v - v_belt,   F = F(z, v_r, N)   (fj_bristle_laws.h)
 *
 * inputs tau = [x_d (m), v_belt (m/s), F_n = N (N)], state y = [x, v, zeta, W_friction] with
 * zeta = sigma0 z. One smooth mode, no events; stiff (its integrator: an instance integrates it with RODAS,
 * fj_rodas.h).
 * fpar = [m, k, the law (FJ_BRISTLE_LAW_SIZE)] (lumped.bristle_packing); ipar unused. The record:
 * x, v, a, z, zdot, F, N, v_r, W_friction, E_kin, E_spring (BristleOscillator.record's order).
 */
#include "fj_bristle_laws.h"
#include "fj_kernel.h"
#include "fj_rodas.h"

enum { F_M, F_K, F_LAW };
enum { ST_BAD_LOAD = 1 };

/* BristleOscillator.contact and acceleration: z, zdot, F and a at (y, tau); ST_BAD_LOAD if F_n is not
 * >= 0 (the Python model raises). */
static int64_t contact(const double *fpar, const double *y, const double *tau, double *z, double *zdot, double *F,
                       double *a) {
    const double *law = fpar + F_LAW;
    double N = tau[2];
    if (!(N >= 0.0)) return ST_BAD_LOAD;
    double v_r = y[1] - tau[1];
    *z = y[2] / law[FJ_LAW_SIGMA0];
    *zdot = fj_bristle_zdot(law, *z, v_r);
    *F = fj_bristle_force(law, *z, v_r, N, *zdot);
    *a = (fpar[F_K] * (tau[0] - y[0]) - *F) / fpar[F_M];
    return FJ_OK;
}

static int64_t rhs(const fj_args *a, double t, const double *y, const double *tau, double *dy, int64_t n_out) {
    (void)t, (void)n_out;
    double z, zdot, F, acc;
    int64_t st = contact(a->fpar, y, tau, &z, &zdot, &F, &acc);
    if (st != FJ_OK) return st;
    dy[0] = y[1];
    dy[1] = acc;
    dy[2] = a->fpar[F_LAW + FJ_LAW_SIGMA0] * zdot;
    dy[3] = -F * (y[1] - tau[1]);
    return FJ_OK;
}

static int64_t record(const fj_args *a, double t, const double *y, const double *tau, double *out, int64_t n_out) {
    (void)t, (void)n_out;
    const double *fpar = a->fpar;
    double z, zdot, F, acc;
    int64_t st = contact(fpar, y, tau, &z, &zdot, &F, &acc);
    if (st != FJ_OK) return st;
    double stretch = tau[0] - y[0];
    double row[11] = {y[0], y[1], acc, z, zdot, F, tau[2], y[1] - tau[1], y[3], 0.5 * fpar[F_M] * y[1] * y[1],
                      0.5 * fpar[F_K] * stretch * stretch};
    for (int i = 0; i < 11; i++) out[i] = row[i];
    return FJ_OK;
}

static const char *message(int64_t status) {
    return status == ST_BAD_LOAD ? "the normal force F_n is outside the allowed range [0, inf)" : "unknown status";
}

/* W_friction, y[3], is read by no right-hand side. */
static void integrals(const fj_args *a, int64_t *first, int64_t *count) {
    (void)a;
    *first = 3, *count = 1;
}

const fj_family fj_family_bristle = {"bristle", rhs, fj_no_events, record, fj_no_scratch, message,
                                     fj_single_mode_layout, fj_single_mode_events, fj_single_mode_decide,
                                     &fj_rodas, integrals, NULL};
