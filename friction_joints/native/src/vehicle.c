/* vehicle.c: the kernels of the single-track (bicycle) vehicle vehicle.single_track.SingleTrackVehicle
 * (linear tyres, one mode, no events). The Python model is the reference: the kernels follow its
 * equations in the same order (its module docstring):
 *
 *   m (v_y' + u r) = F_yf + F_yr,   I_z r' = a F_yf - b F_yr,   F_yf = C_f alpha_f,  F_yr = C_r alpha_r,
 *   alpha_f = delta - (v_y + a r) / u,  alpha_r = -(v_y - b r) / u,  delta = (delta_L + delta_R) / 2,
 *
 * with sigma > 0 the axle forces as lagged states, F_y' = (u / sigma) (C alpha - F_y). The layouts of
 * fpar, ipar and of the record are those of the packer in friction_joints/vehicle/single_track_packing.py (its
 * module docstring); the single mode has fmode = [0.0], imode = [0]. State y = [v_y, r, psi, F_yf,
 * F_yr]; inputs tau = [delta_left, delta_right]. The kernels cannot fail (u, m, I_z > 0 and sigma > 0
 * where divided by) and need no scratch.
 */
#include <stdint.h>

#include "fj_kernel.h"

/* fpar: the VehicleParameters in the order of vehicle.single_track_packing.PARAMETERS, then the static front wheel load */
enum { F_M, F_I_Z, F_A, F_B, F_C_F, F_C_R, F_T_P, F_T_C, F_H, F_T, F_U, F_SIGMA, F_WHEEL_LOAD };
enum { I_RELAXED }; /* ipar */

/* (C_f alpha_f, C_r alpha_r) (N): the axle forces without relaxation. */
static void steady_forces(const double *y, const double *tau, const double *fpar, double *S_f, double *S_r) {
    double u = fpar[F_U];
    double delta = 0.5 * (tau[0] + tau[1]);
    double alpha_f = delta - (y[0] + fpar[F_A] * y[1]) / u;
    double alpha_r = -(y[0] - fpar[F_B] * y[1]) / u;
    *S_f = fpar[F_C_F] * alpha_f;
    *S_r = fpar[F_C_R] * alpha_r;
}

/* (F_yf, F_yr) (N): the relaxed states when sigma > 0, else the steady forces. */
static void tyre_forces(const double *y, const double *tau, const double *fpar, const int64_t *ipar, double *F_f,
                        double *F_r) {
    if (ipar[I_RELAXED] != 0) {
        *F_f = y[3];
        *F_r = y[4];
    } else {
        steady_forces(y, tau, fpar, F_f, F_r);
    }
}

/* dy/dt = [v_y', r', psi' = r, F_yf', F_yr'] (SingleTrackVehicle.rhs). */
static int64_t rhs(const fj_args *a, double t, const double *y, const double *tau, double *dy, int64_t n_out) {
    (void)t, (void)n_out;
    const double *fpar = a->fpar;
    double F_f, F_r;
    tyre_forces(y, tau, fpar, a->ipar, &F_f, &F_r);
    dy[0] = (F_f + F_r) / fpar[F_M] - fpar[F_U] * y[1];
    dy[1] = (fpar[F_A] * F_f - fpar[F_B] * F_r) / fpar[F_I_Z];
    dy[2] = y[1];
    if (a->ipar[I_RELAXED] != 0) { /* first-order lag with time constant sigma / u */
        double S_f, S_r;
        steady_forces(y, tau, fpar, &S_f, &S_r);
        double rate = fpar[F_U] / fpar[F_SIGMA];
        dy[3] = rate * (S_f - F_f);
        dy[4] = rate * (S_r - F_r);
    } else {
        dy[3] = 0.0;
        dy[4] = 0.0;
    }
    return FJ_OK;
}

/* The quantities of SingleTrackVehicle.record, flat (vehicle.single_track_packing.RECORD). */
static int64_t record(const fj_args *a, double t, const double *y, const double *tau, double *out,
                      int64_t n_out) {
    (void)t, (void)n_out;
    const double *fpar = a->fpar;
    double F_f, F_r;
    tyre_forces(y, tau, fpar, a->ipar, &F_f, &F_r);
    double a_y = (F_f + F_r) / fpar[F_M];
    double M_z = -(fpar[F_T_P] + fpar[F_T_C]) * F_f / 2.0; /* aligning moment of each front wheel */
    /* lateral load transfer, the front axle's share by its static load */
    double dF = fpar[F_M] * a_y * fpar[F_H] * fpar[F_B] / ((fpar[F_A] + fpar[F_B]) * fpar[F_T]);
    out[0] = y[0];
    out[1] = y[1];
    out[2] = y[2];
    out[3] = a_y;
    out[4] = F_f;
    out[5] = F_r;
    out[6] = M_z;
    out[7] = M_z;
    out[8] = fpar[F_WHEEL_LOAD] - dF;
    out[9] = fpar[F_WHEEL_LOAD] + dF;
    return FJ_OK;
}

/* No scratch, and the kernels cannot fail (every status is unknown). */
/* The single mode: one zero in each array, no events. */
static void mode_layout(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                        fj_mode_layout *layout) {
    (void)fpar, (void)n_fpar, (void)ipar, (void)n_ipar;
    layout->n_fmode = layout->n_imode = 1;
    layout->max_events = layout->n_change = 0;
}

const fj_family fj_family_vehicle = {"vehicle", rhs, fj_no_events, record, fj_no_scratch, fj_no_failure, mode_layout,
                                     fj_single_mode_events, fj_single_mode_decide, NULL, NULL, NULL};
