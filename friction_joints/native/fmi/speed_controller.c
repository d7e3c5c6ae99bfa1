/* speed_controller.c: the model of the native SpeedController FMU (fj_fmu_model.h, a model the engine does not
 * run): the discrete PI speed controller with torque limit of friction_joints/control.py (PIController), the
 * same arithmetic in the same order, so that it gives its pythonfmu twin's outputs to the bit.
 *
 * The inputs are held over each communication step of length h, so the integral of the error is exact for the
 * step: I <- I + e h with e = w_ref - w; the drive torque at the end of the step is tau = sat(k_p (e + I / T_i)),
 * |tau| <= tau_max. Anti-windup by conditional integration: I is not updated where the unsaturated output
 * exceeds the limit and has the error's sign (the integral would push further into the limit).
 */
#include <math.h>

#include "fj_assembly.h"
#include "fj_fmu_model.h"
#include "fj_linalg.h"

enum { K_P, T_I, TAU_MAX, N_PARAM }; /* p and fpar: N.m.s/rad, s, N.m (the slave's parameters, in order) */
enum { W_REF, W, N_TAU };            /* the inputs (rad/s) */
enum { TAU, INTEGRAL, N_Y };         /* the state, which is the record: tau (N.m), I (rad), the outputs in order */

static const char *const NAMES[] = {"k_p", "T_i", "tau_max"};

/* PIController.__init__'s checks; fpar = p, y0 = 0 (no torque, no integral). */
static int64_t assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error, size_t n_error) {
    (void)ipar;
    fj_problems pr = fj_no_problems(error, n_error);
    fj_require(&pr, "k_p", p[K_P], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(&pr, "T_i", p[T_I], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(&pr, "tau_max", p[TAU_MAX], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    if (pr.count) return pr.count;
    for (int i = 0; i < N_PARAM; i++) fpar[i] = p[i];
    y0[TAU] = y0[INTEGRAL] = 0.0;
    return 0;
}

const fj_assembly fj_assembly_SpeedController = {"SpeedController", NULL, N_PARAM, NAMES, N_PARAM, 0, N_Y, N_TAU,
                                                 N_Y, assemble};

/* PIController.step (its inputs are finite: the FMI layer's setters refuse others). */
void fj_update_SpeedController(const double *fpar, const double *tau, double h, double *y) {
    double k_p = fpar[K_P], T_i = fpar[T_I], tau_max = fpar[TAU_MAX];
    double e = tau[W_REF] - tau[W];
    double integral = y[INTEGRAL] + e * h;
    double unsaturated = k_p * (e + integral / T_i);
    if (fabs(unsaturated) <= tau_max || fj_sign(e) != fj_sign(unsaturated)) y[INTEGRAL] = integral;
    double output = k_p * (e + y[INTEGRAL] / T_i);
    y[TAU] = output < -tau_max ? -tau_max : output > tau_max ? tau_max : output; /* numpy.clip (a NaN stays) */
}
