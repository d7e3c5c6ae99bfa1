/* steering_bristle.c: the kernels of the family "steering_bristle": the steering system with a bristle law
 * in each of its four friction elements, vehicle.steering_bristle.SteeringBristle (the reference: the same
 * equations in the same order). The mechanics are the steering family's (steering_internal.h: seed 001's
 * luz/tar model, the rack's end stops as a function of the state, SteeringSystem.stop_contact); element k
 * (pinion, rack, left and right king-pin, on coordinate k + 1) resists its slip v_k with the bristle force
 * of seed 003 (fj_bristle_laws.h),
 *
 *     F_k = N_k (sigma0 z_k + sigma1 zdot_k) + sigma2 v_k,     f_k = -F_k on the coordinate,
 *
 * under the load N_k = its exact element's kinetic level (SteeringSystem.forces). State y = [the steering
 * family's 14, zeta (4)] with zeta_k = sigma0_k z_k; inputs: the steering family's. One smooth mode, no
 * events; stiff (its integrator: RODAS, fj_rodas.h). fpar = [the steering family's FJ_STEERING_FPAR, four law
 * rows (FJ_BRISTLE_LAW_SIZE each, ELEMENTS order)], ipar = the active flags (unused here); the layouts are
 * vehicle.steering_bristle_packing's. Record: the steering family's (stuck all 0), then N (4), z (4),
 * zdot (4). The kernels cannot fail (a load is a level, >= 0) and need no scratch.
 */
#include "fj_bristle_laws.h"
#include "fj_kernel.h"
#include "fj_rodas.h"
#include "steering_internal.h"

enum { Y_W = 10, Y_ZETA = 14 };                           /* W (4) and zeta (4) in the state */
enum { R_N = FJ_STEERING_RECORD, R_Z = R_N + 4, R_ZDOT = R_Z + 4 }; /* the record's bristle entries */

/* SteeringBristle.bristles: Q (5), the frictions f (4), the loads N (4), the deflections z (4) and their rates
 * zdot (4), internal (5) and the end stops' Mode.stop at (y, tau). */
static int64_t bristles(const double *fpar, const double *y, const double *tau, double *Q, double *f, double *N,
                        double *z, double *zdot, double *internal) {
    int64_t stop = fj_steering_stop_contact(y, fpar);
    fj_steering_forces(y, tau, fpar, stop, Q, N, internal);
    for (int k = 0; k < 4; k++) {
        const double *law = fpar + FJ_STEERING_FPAR + k * FJ_BRISTLE_LAW_SIZE;
        double v = y[6 + k]; /* the slip of element k: the rate of coordinate k + 1 */
        z[k] = y[Y_ZETA + k] / law[FJ_LAW_SIGMA0];
        zdot[k] = fj_bristle_zdot(law, z[k], v);
        f[k] = -fj_bristle_force(law, z[k], v, N[k], zdot[k]); /* seed 003: N (sigma0 z + sigma1 zdot) + sigma2 v */
    }
    return stop;
}

/* dy/dt = [rates (5), accelerations (5), the powers (4), sigma0 zdot (4)] (SteeringBristle.rhs). */
static int64_t rhs(const fj_args *a, double t, const double *y, const double *tau, double *dy, int64_t n_out) {
    (void)t, (void)n_out;
    const double *fpar = a->fpar;
    double Q[5], f[4], N[4], z[4], zdot[4], internal[5];
    int64_t stop = bristles(fpar, y, tau, Q, f, N, z, zdot, internal);
    for (int i = 0; i < 5; i++) dy[i] = y[5 + i];
    fj_steering_accelerations_of(fpar, Q, f, dy + 5);
    fj_steering_powers(fpar, y, tau, f, internal[4], stop, dy + 10);
    for (int k = 0; k < 4; k++)
        dy[Y_ZETA + k] = fpar[FJ_STEERING_FPAR + k * FJ_BRISTLE_LAW_SIZE + FJ_LAW_SIGMA0] * zdot[k];
    return FJ_OK;
}

/* SteeringBristle.record, flat (vehicle.steering_bristle_packing.RECORD). */
static int64_t record(const fj_args *a, double t, const double *y, const double *tau, double *out, int64_t n_out) {
    (void)t, (void)n_out;
    const double *fpar = a->fpar;
    double Q[5], f[4], internal[5], acc[5];
    bristles(fpar, y, tau, Q, f, out + R_N, out + R_Z, out + R_ZDOT, internal);
    fj_steering_accelerations_of(fpar, Q, f, acc);
    fj_steering_record(fpar, y, acc, f, internal, out);
    return FJ_OK;
}

/* W_driver, W_aligning, W_friction and W_damping are read by no right-hand side. */
static void integrals(const fj_args *a, int64_t *first, int64_t *count) {
    (void)a;
    *first = Y_W, *count = 4;
}

const fj_family fj_family_steering_bristle = {"steering_bristle", rhs, fj_no_events, record, fj_no_scratch,
                                              fj_no_failure, fj_single_mode_layout, fj_single_mode_events,
                                              fj_single_mode_decide, &fj_rodas, integrals, NULL};
