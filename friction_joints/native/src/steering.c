/* steering.c: the kernels of the rack-and-pinion steering system vehicle.steering.SteeringSystem (a
 * lumped luz/tar model in the spirit of seed 001). The Python model is the reference: the kernels
 * follow its equations in the same order (its module docstring):
 *
 *   T_c = k_c (th_sw - th_p) + c_c (thd_sw - thd_p),     F_g = k_g luz(r_p th_p - x, b)   (freeplay 2 b)
 *   F_ti = k_t (x - l_a delta_i) + c_t (xd - l_a deltad_i)
 *   F_stop = -s max(0, k_stop (s x - rack_travel) + c_stop s xd) on end stop s (+1 left, -1 right), else 0
 *   Q = (tau_sw - T_c, T_c - r_p F_g, F_g - F_tL - F_tR + F_stop, l_a F_tL + M_z,L - c_w deltad_L, l_a F_tR + ...)
 *
 * (the rack's end stops are the project's addition, issue 32, not a seed's equation; the mode's stop says
 * where the rack is: 0 within the travel, s on stop s, 2 s released beyond it) and each friction element k
 * (pinion, rack, left and right king-pin) on coordinate k + 1: -d level_k in
 * slip, the holding force -Q_{k+1} while stuck (acceleration exactly 0); kinetic levels (s T_p, s F_r,
 * s mu_k r_k (|F_z,i| + |F_ti|)), static = static_factor x kinetic. The layouts of fpar, ipar, fmode,
 * imode and of the record are those of the packers in friction_joints/vehicle/steering_packing.py (its
 * module docstring).
 *
 * State y = [th_sw, th_p, x, delta_L, delta_R, their rates (5), W_driver, W_aligning, W_friction,
 * W_damping]; inputs tau = [tau_sw, M_z_left, M_z_right, F_z_left, F_z_right]. The kernels cannot fail
 * (every division is by an inertia, > 0 by the parameters) and need no scratch. The mechanics (forces,
 * accelerations, powers, the record) are shared with the family steering_bristle (steering_internal.h).
 *
 * The mode decisions (SteeringSystem.update: the stick-slip of the four elements and the end stops'
 * contact, release and clear) are decide's, branch by branch as the Python's; its change report is that of
 * vehicle.steering.mode_change (N_CHANGE integers, below), which the Python names (change_name). decide
 * fails (ST_NAN_SIGN) only where the Python raises: where it takes the sign of a NaN force.
 */
#include <math.h>
#include <stdint.h>

#include "fj_kernel.h"
#include "luz_tar.h"
#include "steering_internal.h"

#define BREAKAWAY_MARGIN 1e-9 /* vehicle.steering.BREAKAWAY_MARGIN (N.m or N) */
#define ZERO_VELOCITY 1e-9    /* vehicle.steering.ZERO_VELOCITY (rad/s or m/s) */

#define I_STOP 4 /* imode[I_STOP]: Mode.stop (0 within the travel, s on end stop s, 2 s released from it) */
#define N_MODE 5 /* entries of fmode and imode: the four directions, then Mode.stop */

/* decide's change report (vehicle.steering.mode_change): change[k] (k < 4) the change of element k, an
 * index of ELEMENT_CHANGES; change[C_STOP] the end stops' change, an index of STOP_CHANGES, and
 * change[C_SIDE] its stop (+1 left, -1 right; 0 with no change). */
enum { C_UNCHANGED, C_STICK, C_SLIP };
enum { C_NONE, C_CONTACT, C_RELEASE, C_CLEAR };
enum { C_STOP = 4, C_SIDE, N_CHANGE };

/* statuses of decide */
enum { ST_NAN_SIGN = 1, ST_BAD_EVENT };

double fj_steering_stop_spring(const double *y, const double *fpar, int64_t s) {
    return fpar[F_K_STOP] * ((double)s * y[2] - fpar[F_TRAVEL]);
}

double fj_steering_stop_push(const double *y, const double *fpar, int64_t s) {
    return fpar[F_K_STOP] * ((double)s * y[2] - fpar[F_TRAVEL]) + fpar[F_C_STOP] * (double)s * y[7];
}

void fj_steering_forces(const double *y, const double *tau, const double *fpar, int64_t stop, double *Q,
                        double *kinetic, double *internal) {
    double th_sw = y[0], th_p = y[1], x = y[2], dL = y[3], dR = y[4];
    double w_sw = y[5], w_p = y[6], v = y[7], wL = y[8], wR = y[9];
    double r_p = fpar[F_R_P], l_a = fpar[F_L_A];
    double T_c = fpar[F_K_C] * (th_sw - th_p) + fpar[F_C_C] * (w_sw - w_p);
    /* the rack-pinion mesh with freeplay 2 b: the dead zone of luz (seed 001 Sect. 2) */
    double F_g = fpar[F_K_G] * fj_luz(r_p * th_p - x, fpar[F_B]);
    double F_tL = fpar[F_K_T] * (x - l_a * dL) + fpar[F_C_T] * (v - l_a * wL);
    double F_tR = fpar[F_K_T] * (x - l_a * dR) + fpar[F_C_T] * (v - l_a * wR);
    /* an end stop pushes only (clipped at 0: the release event fires where the clip would act) */
    double F_stop = 0.0;
    if (stop == 1 || stop == -1) {
        double push = fj_steering_stop_push(y, fpar, stop);
        F_stop = -(double)stop * (push > 0.0 ? push : 0.0);
    }
    Q[0] = tau[0] - T_c;
    Q[1] = T_c - r_p * F_g;
    Q[2] = F_g - F_tL - F_tR + F_stop;
    Q[3] = l_a * F_tL + tau[1] - fpar[F_C_W] * wL;
    Q[4] = l_a * F_tR + tau[2] - fpar[F_C_W] * wR;
    double s = fpar[F_SCALE], kingpin = fpar[F_KINGPIN];
    kinetic[0] = s * fpar[F_T_P];
    kinetic[1] = s * fpar[F_F_R];
    kinetic[2] = s * kingpin * (fabs(tau[3]) + fabs(F_tL)); /* a king-pin's friction follows its load */
    kinetic[3] = s * kingpin * (fabs(tau[4]) + fabs(F_tR));
    internal[0] = T_c;
    internal[1] = F_g;
    internal[2] = F_tL;
    internal[3] = F_tR;
    internal[4] = F_stop;
}

/* Friction of one element: the holding force -Q of its coordinate while stuck (d = 0), else the kinetic
 * level against the sliding direction d. */
static double element(int64_t d, double Q_dof, double level) {
    return d == 0 ? -Q_dof : -(double)d * level;
}

/* The friction f (4) of the elements in the mode (SteeringSystem.accelerations): element k acts on
 * coordinate k + 1; a stuck coordinate's acceleration is then exactly 0 (the luz form of seed 001 Sect. 2 per
 * element, its dead zone frozen within the mode). */
static void frictions(const int64_t *imode, const double *Q, const double *kinetic, double *f) {
    for (int k = 0; k < 4; k++) f[k] = element(imode[k], Q[k + 1], kinetic[k]);
}

void fj_steering_accelerations_of(const double *fpar, const double *Q, const double *f, double *acc) {
    acc[0] = Q[0] / fpar[F_MASSES];
    for (int i = 1; i < 5; i++) acc[i] = (Q[i] + f[i - 1]) / fpar[F_MASSES + i];
}

static double square(double v) {
    return v * v;
}

/* The damping power includes the end stops' beyond their spring's, (F_stop + k_stop luz(x, rack_travel)) xd
 * with the mode's branch of luz (x - s rack_travel at stop s). */
void fj_steering_powers(const double *fpar, const double *y, const double *tau, const double *f, double F_stop,
                        int64_t stop, double *power) {
    double w_sw = y[5], w_p = y[6], v = y[7], wL = y[8], wR = y[9], l_a = fpar[F_L_A];
    power[0] = tau[0] * w_sw;
    power[1] = tau[1] * wL + tau[2] * wR;
    power[2] = f[0] * w_p + f[1] * v + f[2] * wL + f[3] * wR;
    power[3] = -(fpar[F_C_C] * square(w_sw - w_p) + fpar[F_C_T] * (square(v - l_a * wL) + square(v - l_a * wR))
                 + fpar[F_C_W] * (square(wL) + square(wR)));
    if (stop != 0) {
        int64_t side = (stop == 1 || stop == -1) ? stop : stop / 2;
        power[3] += (F_stop + fpar[F_K_STOP] * (y[2] - (double)side * fpar[F_TRAVEL])) * v;
    }
}

/* dy/dt = [rates (5), accelerations (5), driver power, aligning power, friction power, damping power]
 * (SteeringSystem.rhs, .powers). */
static int64_t rhs(const fj_args *a, double t, const double *y, const double *tau, double *dy, int64_t n_out) {
    (void)t, (void)n_out;
    const double *fpar = a->fpar;
    double Q[5], kinetic[4], internal[5], f[4];
    fj_steering_forces(y, tau, fpar, a->imode[I_STOP], Q, kinetic, internal);
    frictions(a->imode, Q, kinetic, f);
    for (int i = 0; i < 5; i++) dy[i] = y[5 + i];
    fj_steering_accelerations_of(fpar, Q, f, dy + 5);
    fj_steering_powers(fpar, y, tau, f, internal[4], a->imode[I_STOP], dy + 10);
    return FJ_OK;
}

/* For each active element in ELEMENTS order: breakaway |Q_{k+1}| - static level - margin while stuck (luz
 * of the acting force leaving its dead zone, seed 001 Sect. 2), stop d v_{k+1} while slipping; then the end
 * stops' (SteeringSystem.events): within the travel the contacts k_stop pen of the left and the right stop,
 * on stop s its release k_stop pen + c_stop pend, released from stop s its contact k_stop pen + c_stop pend
 * and its clear k_stop pen. */
static int64_t events(const fj_args *a, double t, const double *y, const double *tau, double *g, int64_t n_out) {
    (void)t, (void)n_out;
    const double *fpar = a->fpar;
    int64_t stop = a->imode[I_STOP];
    double Q[5], kinetic[4], internal[5];
    fj_steering_forces(y, tau, fpar, stop, Q, kinetic, internal);
    int64_t n = 0;
    for (int k = 0; k < 4; k++) {
        if (a->ipar[k] == 0) continue;
        int64_t d = a->imode[k];
        if (d == 0)
            g[n] = fj_luz_margin(Q[k + 1], fpar[F_STATIC] * kinetic[k]) - BREAKAWAY_MARGIN;
        else
            g[n] = (double)d * y[6 + k];
        n++;
    }
    if (stop == 0) {
        g[n++] = fj_steering_stop_spring(y, fpar, 1);
        g[n++] = fj_steering_stop_spring(y, fpar, -1);
    } else if (stop == 1 || stop == -1) {
        g[n++] = fj_steering_stop_push(y, fpar, stop);
    } else {
        g[n++] = fj_steering_stop_push(y, fpar, stop / 2);
        g[n++] = fj_steering_stop_spring(y, fpar, stop / 2);
    }
    return FJ_OK;
}

void fj_steering_record(const double *fpar, const double *y, const double *acc, const double *f,
                        const double *internal, double *out) {
    for (int i = 0; i < 10; i++) out[i] = y[i];
    for (int i = 0; i < 5; i++) out[10 + i] = acc[i];
    for (int k = 0; k < 4; k++) {
        out[15 + k] = f[k];
        out[FJ_STEERING_STUCK + k] = 0.0;
    }
    double r_p = fpar[F_R_P], b = fpar[F_B], l_a = fpar[F_L_A];
    double gap = r_p * y[1] - y[2];
    out[23] = fabs(gap) < b ? 1.0 : 0.0; /* in_freeplay (strict, as the Python record) */
    double E_kin = 0.0;
    for (int i = 0; i < 5; i++) E_kin += fpar[F_MASSES + i] * square(y[5 + i]);
    out[24] = 0.5 * E_kin;
    double th_sw = y[0], th_p = y[1], x = y[2], dL = y[3], dR = y[4];
    out[25] = 0.5 * (fpar[F_K_C] * square(th_sw - th_p) + fpar[F_K_G] * square(fj_luz(gap, b))
                     + fpar[F_K_T] * (square(x - l_a * dL) + square(x - l_a * dR))
                     + fpar[F_K_STOP] * square(fj_luz(x, fpar[F_TRAVEL])));
    for (int i = 0; i < 4; i++) out[26 + i] = y[10 + i];
    for (int i = 0; i < 5; i++) out[30 + i] = internal[i];
}

/* The quantities of SteeringSystem.record, flat (vehicle.steering_packing.RECORD). */
static int64_t record(const fj_args *a, double t, const double *y, const double *tau, double *out,
                      int64_t n_out) {
    (void)t, (void)n_out;
    const double *fpar = a->fpar;
    double Q[5], kinetic[4], internal[5], acc[5], f[4];
    fj_steering_forces(y, tau, fpar, a->imode[I_STOP], Q, kinetic, internal);
    frictions(a->imode, Q, kinetic, f);
    fj_steering_accelerations_of(fpar, Q, f, acc);
    fj_steering_record(fpar, y, acc, f, internal, out);
    for (int k = 0; k < 4; k++) out[FJ_STEERING_STUCK + k] = a->imode[k] == 0 ? 1.0 : 0.0;
    return FJ_OK;
}

static const char *message(int64_t status) {
    switch (status) {
    case ST_NAN_SIGN: return "a mode decision takes the sign of a force or rate that is NaN";
    case ST_BAD_EVENT: return "the event is not one of the mode's (an index beyond its events)";
    default: return "unknown status";
    }
}

/* Mode arrays of N_MODE entries; events: one per active element (ipar), two of the end stops at most. */
static void mode_layout(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                        fj_mode_layout *layout) {
    (void)fpar, (void)n_fpar, (void)n_ipar;
    layout->n_fmode = layout->n_imode = N_MODE;
    layout->max_events = 2;
    for (int k = 0; k < 4; k++) layout->max_events += ipar[k] != 0;
    layout->n_change = N_CHANGE;
}

/* The events of SteeringSystem.events in the order of the events kernel: an active element's breakaway
 * (rising, driven by the inputs) while stuck, its stop (falling) while slipping; then the end stops'
 * (within the travel the contacts, rising; on a stop its release, falling; released from it its contact,
 * rising, and its clear, falling). Every decision an input could switch is watched (events_watch_all). */
static int64_t mode_events(const fj_args *a, int64_t *directions, int64_t *flags, int64_t *watch_all) {
    int64_t n = 0, stop = a->imode[I_STOP];
    for (int k = 0; k < 4; k++) {
        if (a->ipar[k] == 0) continue;
        int stuck = a->imode[k] == 0;
        directions[n] = stuck ? 1 : -1;
        flags[n++] = stuck ? FJ_INPUT_DRIVEN : 0;
    }
    if (stop == 0) {
        directions[n] = 1, flags[n++] = 0;
        directions[n] = 1, flags[n++] = 0;
    } else if (stop == 1 || stop == -1) {
        directions[n] = -1, flags[n++] = 0;
    } else {
        directions[n] = 1, flags[n++] = 0;
        directions[n] = -1, flags[n++] = 0;
    }
    *watch_all = 1;
    return n;
}

/* s where k_stop pen + c_stop pend > 0 < k_stop pen at stop s (the left one first), 2 s where only k_stop pen
 * > 0, else 0. */
int64_t fj_steering_stop_contact(const double *y, const double *fpar) {
    for (int64_t s = 1; s >= -1; s -= 2)
        if (fj_steering_stop_spring(y, fpar, s) > 0.0) return fj_steering_stop_push(y, fpar, s) > 0.0 ? s : 2 * s;
    return 0;
}

/* int(np.sign(x)) of the Python, which raises for NaN (*nan set). */
static int64_t sign_of(double x, int *nan) {
    if (isnan(x)) *nan = 1;
    return (x > 0.0) - (x < 0.0);
}

/* What fired, by kind: an element's breakaway or stop, or an end stop's contact, release or clear. */
enum { E_NONE, E_BREAKAWAY, E_STOP, E_CONTACT, E_RELEASE, E_CLEAR };

/* SteeringSystem.update: the new Mode after `event` (an index of SteeringSystem.events(mode), FJ_NO_EVENT
 * or FJ_START), y changed as the Python's (the rack exactly on the edge of its travel when it crossed it,
 * stuck rates exactly 0), and the change report (mode_change). */
static int64_t decide(const fj_args *a, double t, double *y, const double *tau, int64_t event, double *fmode,
                      int64_t *imode, int64_t *change) {
    (void)t;
    const double *fpar = a->fpar;
    const int64_t *ipar = a->ipar, *mode = a->imode; /* mode: NULL at the start */
    /* the event that fired: its kind, its element (fired_k) or its stop (fired_s) */
    int fired = E_NONE, fired_k = -1;
    int64_t fired_s = 0;
    if (event >= 0) {
        if (mode == NULL) return ST_BAD_EVENT;
        int64_t n = 0, was_stop = mode[I_STOP];
        for (int k = 0; k < 4 && fired == E_NONE; k++) {
            if (ipar[k] == 0) continue;
            if (n++ == event) fired = mode[k] == 0 ? E_BREAKAWAY : E_STOP, fired_k = k;
        }
        if (fired == E_NONE) {
            int64_t j = event - n; /* the end stops' events (SteeringSystem.events) */
            if (was_stop == 0 && j < 2)
                fired = E_CONTACT, fired_s = j == 0 ? 1 : -1;
            else if ((was_stop == 1 || was_stop == -1) && j == 0)
                fired = E_RELEASE, fired_s = was_stop;
            else if ((was_stop == 2 || was_stop == -2) && j < 2)
                fired = j == 0 ? E_CONTACT : E_CLEAR, fired_s = was_stop / 2;
            else
                return ST_BAD_EVENT;
        }
    } else if (event != FJ_NO_EVENT && event != FJ_START) {
        return ST_BAD_EVENT;
    }
    if (event == FJ_START) mode = NULL;
    int64_t was_stop = mode == NULL ? 0 : mode[I_STOP];

    /* where the rack is */
    int64_t stop;
    if (mode == NULL)
        stop = fj_steering_stop_contact(y, fpar);
    else if (fired == E_CONTACT)
        stop = fired_s;
    else if (fired == E_RELEASE) /* beyond the travel still (else c_stop = 0) */
        stop = fj_steering_stop_spring(y, fpar, was_stop) > 0.0 ? 2 * was_stop : 0;
    else if (fired == E_CLEAR)
        stop = 0;
    else /* the stop changes only at its own events (its functions depend on the state alone) */
        stop = was_stop;
    if (fired >= E_CONTACT && (stop == 0 || was_stop == 0)) /* crossed the edge of the travel, pen = 0: */
        y[2] = (double)fired_s * fpar[F_TRAVEL]; /* exactly on it, so that the next crossing starts at 0 */

    double Q[5], kinetic[4], internal[5];
    fj_steering_forces(y, tau, fpar, stop, Q, kinetic, internal);
    int nan = 0;
    for (int k = 0; k < 4; k++) {
        double v = y[6 + k], Qk = Q[k + 1], level = fpar[F_STATIC] * kinetic[k];
        int64_t was = mode == NULL ? 0 : mode[k], d;
        int its_stop = fired == E_STOP && fired_k == k;
        if (ipar[k] == 0)
            d = 1;
        else if (fired == E_BREAKAWAY && fired_k == k)
            d = sign_of(Qk, &nan);
        else if (fabs(v) > ZERO_VELOCITY && !its_stop)
            d = sign_of(v, &nan);
        else if (was != 0 && !its_stop && v * (double)was >= 0.0)
            d = was; /* right after a breakaway: the new slip keeps its direction */
        else /* at v = 0: acceleration luz(Q, static) / mass decides (seed 001 Sect. 2) */
            d = sign_of(fj_luz(Qk, level), &nan);
        imode[k] = d;
        change[k] = (mode != NULL && d == was) ? C_UNCHANGED : d == 0 ? C_STICK : C_SLIP;
    }
    if (nan) return ST_NAN_SIGN;
    imode[I_STOP] = stop;
    for (int i = 0; i < N_MODE; i++) fmode[i] = (double)imode[i];
    for (int k = 0; k < 4; k++)
        if (imode[k] == 0) y[6 + k] = 0.0; /* stuck: exactly at rest, no creep */

    /* the end stops' change (mode_change) */
    if (stop == was_stop)
        change[C_STOP] = C_NONE, change[C_SIDE] = 0;
    else if (stop == 1 || stop == -1)
        change[C_STOP] = C_CONTACT, change[C_SIDE] = stop;
    else if (was_stop == 1 || was_stop == -1 || stop != 0) /* pushed before (or, at the start, beyond unpushed) */
        change[C_STOP] = C_RELEASE, change[C_SIDE] = was_stop != 0 ? was_stop : stop / 2;
    else
        change[C_STOP] = C_CLEAR, change[C_SIDE] = was_stop / 2;
    return FJ_OK;
}

/* No scratch; the kernels cannot fail, decide fails where the Python raises. */
const fj_family fj_family_steering = {"steering", rhs, events, record, fj_no_scratch, message, mode_layout,
                                      mode_events, decide, NULL, NULL, NULL};
