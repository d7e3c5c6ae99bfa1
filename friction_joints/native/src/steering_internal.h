/* steering_internal.h: the mechanics of the steering system (steering.c, vehicle.steering.SteeringSystem),
 * shared by its two families: "steering" (the exact stick-slip elements, steering.c) and "steering_bristle"
 * (a bristle law in each element, steering_bristle.c). One copy of the forces, the accelerations, the powers
 * and the recorded quantities; the families differ in the element frictions f only.
 *
 * State y = [th_sw, th_p, x, delta_L, delta_R, their rates (5), W_driver, W_aligning, W_friction, W_damping, ...];
 * inputs tau = [tau_sw, M_z_left, M_z_right, F_z_left, F_z_right]. */
#ifndef FJ_STEERING_INTERNAL_H
#define FJ_STEERING_INTERNAL_H

#include <stdint.h>

/* fpar: the SteeringParameters in the order of vehicle.steering_packing.PARAMETERS, then mu_k r_k, then the
 * inertias (FJ_STEERING_FPAR doubles) */
enum {
    F_J_SW, F_K_C, F_C_C, F_J_P, F_R_P, F_K_G, F_B, F_M_R, F_K_T, F_C_T, F_L_A, F_J_W, F_C_W, F_T_P,
    F_F_R, F_MU_K, F_R_K, F_STATIC, F_SCALE, F_TRAVEL, F_K_STOP, F_C_STOP, F_KINGPIN, F_MASSES,
    FJ_STEERING_FPAR = F_MASSES + 5
};
/* the flat record's entries the two families share (vehicle.steering_packing.RECORD) */
enum { FJ_STEERING_STUCK = 19, FJ_STEERING_RECORD = 35 };

/* k_stop pen (N) of end stop s (+1 left, -1 right): pen = s x - rack_travel (SteeringSystem._stop_spring). */
double fj_steering_stop_spring(const double *y, const double *fpar, int64_t s);
/* k_stop pen + c_stop pend (N) of end stop s: its force while the rack is on it (SteeringSystem._stop_push). */
double fj_steering_stop_push(const double *y, const double *fpar, int64_t s);
/* Mode.stop of the state alone (SteeringSystem.stop_contact). */
int64_t fj_steering_stop_contact(const double *y, const double *fpar);
/* Q (5) the generalised forces without friction, kinetic (4) the kinetic friction levels, internal (5)
 * (T_c, F_g, F_tL, F_tR, F_stop) with the rack at its end stops as stop (Mode.stop) says
 * (SteeringSystem.forces). */
void fj_steering_forces(const double *y, const double *tau, const double *fpar, int64_t stop, double *Q,
                        double *kinetic, double *internal);
/* acc (5) from Q (5) and the element frictions f (4), element k on coordinate k + 1
 * (SteeringSystem.accelerations_of). */
void fj_steering_accelerations_of(const double *fpar, const double *Q, const double *f, double *acc);
/* power (4): the driver's, the aligning moments', the frictions' and the dampers' (W), the rates of W_driver,
 * W_aligning, W_friction, W_damping, with the end stops' force F_stop as stop (Mode.stop) says
 * (SteeringSystem.powers). */
void fj_steering_powers(const double *fpar, const double *y, const double *tau, const double *f, double F_stop,
                        int64_t stop, double *power);
/* The first FJ_STEERING_RECORD entries of the record (SteeringSystem.record, steering_packing.RECORD) with
 * the accelerations acc, frictions f and internal forces; stuck (at FJ_STEERING_STUCK) all 0. */
void fj_steering_record(const double *fpar, const double *y, const double *acc, const double *f,
                        const double *internal, double *out);

#endif
