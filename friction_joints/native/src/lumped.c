/* lumped.c: the kernels of the lumped luz/tar models of seed 001: the single mass (Sect. 2, Fig. 3,
 * lumped.single_mass.SingleMassFriction) and the two masses (Sect. 4, Fig. 5,
 * lumped.two_mass.TwoMassFriction). The Python models are the reference: the kernels follow their
 * equations in the same order. One set of kernels serves both models; ipar[I_KIND] says which. The
 * layouts of fpar, ipar, fmode, imode and of the record are those of the packers in
 * friction_joints/lumped/packing.py (its module docstring).
 *
 * Within a mode the structure is frozen: a stuck friction's luz term is not evaluated in the
 * right-hand side, its leaving the dead zone is the breakaway event. The kernels rhs, events and record
 * cannot fail (every division is by a mass, > 0 by the parameters).
 *
 * The family also decides its modes (decide: the Python models' update, branch by branch in the same
 * order; mode_events: their events(mode)). The two masses' decision selects the stuck set by the Gauss
 * principle (two_mass.gauss_static_friction) with fj_box_qp (box_qp.c) in place of scipy's BVLS, whose
 * results it equals to rounding; its scratch is that of fj_box_qp (a->work, a->iwork). decide's change
 * report is empty (n_change = 0): the kind of a decision (single_mass: stiction.direction_change,
 * two_mass.mode_change) is a function of the old and new modes alone. decide fails (a status for
 * message()) where the Python update raises.
 */
#include <math.h>
#include <stdint.h>

#include "box_qp.h"
#include "fj_kernel.h"
#include "luz_tar.h"

enum { SINGLE_MASS = 0, TWO_MASS = 1 };
/* ipar */
enum { I_KIND, I_DRY12, I_DRY20 };
/* fpar of the single mass */
enum { F_M, F_C, F_FT0, F_FT0S, F_K, F_VBELT };
/* fpar of the two masses */
enum { F2_M1, F2_M2, F2_C12, F2_C20, F2_FT012, F2_FT020, F2_FT012S, F2_FT020S };
/* imode of the two masses */
enum { IM_D12, IM_D20, IM_STUCK12, IM_STUCK20 };
/* the statuses of decide (message) */
enum { ST_NOT_FINITE = 1, ST_NOT_AT_REST = 2, ST_GAUSS_NOT_CONVERGED = 3, ST_BAD_EVENT = 4 };
/* the events of a mode: a slip reaching zero, a stiction ending */
enum { EV_SLIP_ZERO, EV_BREAKAWAY };

#define ZERO_VELOCITY 1e-9 /* m/s: single_mass.ZERO_VELOCITY, two_mass.ZERO_VELOCITY */
#define STICK_TOL 1e-12    /* two_mass update: |a_c| <= 1e-12 (1 + |F1| + |F2|) / min(M1, M2) sticks */

/* int(np.sign(x)): +1, -1 or 0; for a NaN (int() of it raises in Python) 0 and *status = ST_NOT_FINITE. */
static int64_t sign_of(double x, int64_t *status) {
    if (isnan(x)) *status = ST_NOT_FINITE;
    return (x > 0.0) - (x < 0.0);
}

/* ==================================================================================================
 * Single mass (seed 001 Sect. 2):  M zdd + C tar(v, F_T0K / C) = F - K z,  v = zd - v_belt
 * ================================================================================================== */

/* The acting force F_W = F - K z (*acting), the friction on the mass (-C tar(v, F_T0K / C) in slip,
 * -F_W while stuck: *fr) and zdd = (F_W + friction) / M (exactly 0 while stuck; returned). */
static double single_forces(const double *y, double F, const double *fpar, int64_t direction, double *acting,
                            double *fr) {
    *acting = F - fpar[F_K] * y[0];
    if (direction == 0)
        *fr = -*acting;
    else
        *fr = -fj_tar_force(fpar[F_C], y[1] - fpar[F_VBELT], fpar[F_FT0], (double)direction); /* Sect. 2 */
    return (*acting + *fr) / fpar[F_M];
}

static void single_rhs(const double *y, const double *tau, const double *fpar, const int64_t *imode, double *dy) {
    double acting, fr;
    double zdd = single_forces(y, tau[0], fpar, imode[0], &acting, &fr);
    dy[0] = y[1];
    dy[1] = zdd;
    dy[2] = tau[0] * y[1];                /* drive power */
    dy[3] = fr * (y[1] - fpar[F_VBELT]);  /* friction power (stuck: zd = v_belt, none) */
}

/* The events of the mode with direction d (SingleMassFriction.events): the breakaway while stuck, the
 * slip reaching zero while slipping with a static level (none without one). Returns their number;
 * kinds (1) gets EV_BREAKAWAY or EV_SLIP_ZERO. */
static int64_t single_event_list(const double *fpar, int64_t d, int64_t *kinds) {
    if (d == 0) {
        kinds[0] = EV_BREAKAWAY;
        return 1;
    }
    if (fpar[F_FT0S] == 0.0) return 0;
    kinds[0] = EV_SLIP_ZERO;
    return 1;
}

static void single_events(const double *y, const double *tau, const double *fpar, const int64_t *imode,
                          double *g) {
    int64_t d = imode[0], kinds[1];
    if (single_event_list(fpar, d, kinds) == 0) return;
    if (kinds[0] == EV_BREAKAWAY) /* luz(F_W, F_T0S) leaves zero (seed 001 Sect. 2) */
        g[0] = fj_luz_margin(tau[0] - fpar[F_K] * y[0], fpar[F_FT0S]);
    else /* slip_zero: the slip velocity reaches zero */
        g[0] = (double)d * (y[1] - fpar[F_VBELT]);
}

static void single_record(const double *y, const double *tau, const double *fpar, const int64_t *imode,
                          double *out) {
    double acting, fr;
    double zdd = single_forces(y, tau[0], fpar, imode[0], &acting, &fr);
    out[0] = y[0];
    out[1] = y[1];
    out[2] = zdd;
    out[3] = fr;
    out[4] = tau[0];
    out[5] = imode[0] == 0 ? 1.0 : 0.0;
    out[6] = 0.5 * fpar[F_M] * (y[1] * y[1]);
    out[7] = 0.5 * fpar[F_K] * (y[0] * y[0]);
    out[8] = y[2];
    out[9] = y[3];
}

/* SingleMassFriction.update: the new direction (imode_new[0]) after the event of kind `kind` (-1: none;
 * has_mode 0 at the start, d the current direction); stuck: y[1] = v_belt exactly. */
static int64_t single_decide(const double *fpar, int has_mode, int64_t d, int64_t kind, double *y,
                             const double *tau, int64_t *imode_new) {
    double v = y[1] - fpar[F_VBELT];
    double F_W = tau[0] - fpar[F_K] * y[0];
    int64_t status = FJ_OK, next;
    if (kind == EV_BREAKAWAY) /* the located instant where luz(F_W, F_T0S) leaves zero */
        next = sign_of(F_W, &status);
    else if (kind != EV_SLIP_ZERO && fabs(v) > ZERO_VELOCITY)
        next = sign_of(v, &status);
    else if (has_mode && d != 0 && kind != EV_SLIP_ZERO)
        next = d; /* settling right after a breakaway: the new slip keeps its direction */
    else /* at v = 0: zdd = luz(F_W, F_T0S) / M decides (seed 001 Sect. 2) */
        next = sign_of(fj_luz(F_W, fpar[F_FT0S]), &status);
    if (status) return status;
    if (next == 0) y[1] = fpar[F_VBELT]; /* stuck: exactly at the surface velocity, no creep */
    imode_new[0] = next;
    return FJ_OK;
}

/* ==================================================================================================
 * Two masses (seed 001 Sect. 4): relative velocities v = G^T zd = (zd1 - zd2, zd2), friction forces
 * G [lambda_12, lambda_20] on the masses with G = [[1, 0], [-1, 1]]
 * ================================================================================================== */

/* Relative velocities (v12, v20) and kinetic frictions lambda = -C tar(v, F_T0K / C) (seed 001 Sect. 4,
 * two_mass.friction_forces; a stuck friction's value is replaced where it matters). */
static void two_state(const double *y, const double *fpar, const int64_t *imode, double *v12, double *v20,
                      double *lam12, double *lam20) {
    *v12 = y[2] - y[3];
    *v20 = y[3];
    *lam12 = -fj_tar_force(fpar[F2_C12], *v12, fpar[F2_FT012], (double)imode[IM_D12]);
    *lam20 = -fj_tar_force(fpar[F2_C20], *v20, fpar[F2_FT020], (double)imode[IM_D20]);
}

/* (zdd1, zdd2) of the mode with frozen structure (two_mass.accelerations(frozen=True)). */
static void two_accelerations(double F1, double F2, const double *fpar, const int64_t *imode, double lam12,
                              double lam20, double *a1, double *a2) {
    double M1 = fpar[F2_M1], M2 = fpar[F2_M2];
    int s12 = imode[IM_STUCK12] != 0, s20 = imode[IM_STUCK20] != 0;
    if (s12 && s20) { /* case 3: total stiction */
        *a1 = 0.0;
        *a2 = 0.0;
    } else if (s12) { /* case 1: zd1 = zd2, F2' = F2 - C20 tar(zd2, FT020 / C20); the luz term frozen at 0 */
        double F2p = F2 + lam20;
        double common = (F1 + F2p) / (M1 + M2);
        *a1 = common;
        *a2 = common;
    } else if (s20) { /* case 2: block 2 held by the base */
        *a1 = (F1 + lam12) / M1;
        *a2 = 0.0;
    } else {
        *a1 = (F1 + lam12) / M1;
        *a2 = (F2 - lam12 + lam20) / M2;
    }
}

static void two_rhs(const double *y, const double *tau, const double *fpar, const int64_t *imode, double *dy) {
    double F1 = tau[0], F2 = tau[1];
    double v12, v20, lam12, lam20, a1, a2;
    two_state(y, fpar, imode, &v12, &v20, &lam12, &lam20);
    two_accelerations(F1, F2, fpar, imode, lam12, lam20, &a1, &a2);
    double power = 0.0; /* friction power of the slipping frictions */
    if (imode[IM_STUCK12] == 0) power += lam12 * v12;
    if (imode[IM_STUCK20] == 0) power += lam20 * v20;
    dy[0] = y[2];
    dy[1] = y[3];
    dy[2] = a1;
    dy[3] = a2;
    dy[4] = F1 * y[2] + F2 * y[3];
    dy[5] = power;
}

/* The events of the mode imode (TwoMassFriction.events, in its order): slip_zero of each slipping dry
 * friction (12, then 20), then breakaway of each stuck one. Returns their number; kinds and contacts
 * (2 each) get each event's kind and friction (0: 12, 1: 20). */
static int64_t two_event_list(const int64_t *ipar, const int64_t *imode, int64_t *kinds, int64_t *contacts) {
    int64_t n = 0;
    for (int64_t c = 0; c < 2; c++)
        if (imode[IM_STUCK12 + c] == 0 && imode[IM_D12 + c] != 0 && ipar[I_DRY12 + c] != 0)
            kinds[n] = EV_SLIP_ZERO, contacts[n++] = c;
    for (int64_t c = 0; c < 2; c++)
        if (imode[IM_STUCK12 + c] != 0) kinds[n] = EV_BREAKAWAY, contacts[n++] = c;
    return n;
}

/* slip_zero d_c v_c of the slipping dry frictions (12, then 20), then the holding margins of the stuck
 * ones (two_mass.holding_margins: luz of the holding force leaving its dead zone, seed 001 Sect. 2), as
 * TwoMassFriction.events orders them (two_event_list). */
static void two_events(const double *y, const double *tau, const double *fpar, const int64_t *ipar,
                       const int64_t *imode, double *g) {
    double F1 = tau[0], F2 = tau[1];
    double v12, v20, lam12, lam20;
    two_state(y, fpar, imode, &v12, &v20, &lam12, &lam20);
    int s12 = imode[IM_STUCK12] != 0, s20 = imode[IM_STUCK20] != 0;
    double v[2] = {v12, v20};
    int64_t kinds[2], contacts[2], n = two_event_list(ipar, imode, kinds, contacts), k = 0;
    for (; k < n && kinds[k] == EV_SLIP_ZERO; k++) g[k] = (double)imode[IM_D12 + contacts[k]] * v[contacts[k]];
    double M1 = fpar[F2_M1], M2 = fpar[F2_M2];
    if (s12 && s20) { /* total stiction: lambda_12 = -F1, lambda_20 = -(F1 + F2) */
        g[k] = fj_luz_margin(F1, fpar[F2_FT012S]);
        g[k + 1] = fj_luz_margin(F1 + F2, fpar[F2_FT020S]);
    } else if (s12) {
        double F2p = F2 + lam20;
        g[k] = fj_luz_margin((M2 * F1 - M1 * F2p) / (M1 + M2), fpar[F2_FT012S]);
    } else if (s20) {
        g[k] = fj_luz_margin(F2 - lam12, fpar[F2_FT020S]);
    }
}

static void two_record(const double *y, const double *tau, const double *fpar, const int64_t *imode,
                       double *out) {
    double F1 = tau[0], F2 = tau[1];
    double M1 = fpar[F2_M1], M2 = fpar[F2_M2];
    double v12, v20, lam12, lam20, a1, a2;
    two_state(y, fpar, imode, &v12, &v20, &lam12, &lam20);
    two_accelerations(F1, F2, fpar, imode, lam12, lam20, &a1, &a2);
    int s12 = imode[IM_STUCK12] != 0, s20 = imode[IM_STUCK20] != 0;
    /* the holding friction from the accelerations of the mode: M zdd = F + G lambda, solved for the
     * stuck lambdas (TwoMassFriction.record's least squares on the stuck columns of G, exact here) */
    double r1 = M1 * a1 - F1;
    double r2 = M2 * a2 - F2;
    if (s12 && s20) { /* G^-1 = [[1, 0], [1, 1]] */
        lam12 = r1;
        lam20 = r1 + r2;
    } else if (s12) { /* column (1, -1) of G; the slipping lambda_20 acts on mass 2 through (0, 1) */
        lam12 = 0.5 * (r1 - (r2 - lam20));
    } else if (s20) { /* column (0, 1); lambda_12 acts through (1, -1) */
        lam20 = r2 + lam12;
    }
    out[0] = y[0];
    out[1] = y[1];
    out[2] = y[2];
    out[3] = y[3];
    out[4] = a1;
    out[5] = a2;
    out[6] = lam12;
    out[7] = lam20;
    out[8] = v12;
    out[9] = v20;
    out[10] = F1;
    out[11] = F2;
    out[12] = s12 ? 1.0 : 0.0;
    out[13] = s20 ? 1.0 : 0.0;
    out[14] = 0.5 * (M1 * (y[2] * y[2]) + M2 * (y[3] * y[3]));
    out[15] = y[4];
    out[16] = y[5];
}

/* two_mass.gauss_static_friction: the static friction of the frictions zero[c] != 0 at zero relative
 * velocity by the Gauss principle (seed 001 Sect. 3-4), the others slipping with their kinetic
 * friction at the directions `direction`: lam (2) and the relative accelerations acc (2). The box QP
 * (stiction.gauss_friction's lsq_linear BVLS) is fj_box_qp; work, iwork: its scratch for 2 x 2. Fails
 * where the Python raises (a non-finite right-hand side: lstsq's SVD does not converge) and where
 * fj_box_qp stops at its iteration limit (not optimal; scipy's would return silently, far past it). */
static int64_t gauss_static_friction(const double *fpar, double F1, double F2, const double *v,
                                     const int64_t *direction, const int *zero, double *lam, double *acc,
                                     double *work, int64_t *iwork) {
    const double G[2][2] = {{1.0, 0.0}, {-1.0, 1.0}}; /* friction forces on the masses: G lambda */
    const double F[2] = {F1, F2}, M[2] = {fpar[F2_M1], fpar[F2_M2]};
    const double C[2] = {fpar[F2_C12], fpar[F2_C20]}, FK[2] = {fpar[F2_FT012], fpar[F2_FT020]};
    const double FS[2] = {fpar[F2_FT012S], fpar[F2_FT020S]};
    double Minv_sqrt[2], A[4], b[2], bound[2], held[2], a_held[2], Glam[2], zdd[2];
    int64_t cols[2], nz = 0;
    int any_free = 0;
    for (int64_t c = 0; c < 2; c++) {
        lam[c] = zero[c] ? 0.0 : -fj_tar_force(C[c], v[c], FK[c], (double)direction[c]); /* friction_forces */
        if (zero[c]) {
            bound[nz] = FS[c];
            any_free |= FS[c] > 0.0;
            cols[nz++] = c;
        }
    }
    for (int64_t i = 0; i < 2; i++) {
        Minv_sqrt[i] = 1.0 / sqrt(M[i]);
        for (int64_t j = 0; j < nz; j++) A[i * 2 + j] = Minv_sqrt[i] * G[i][cols[j]];
        Glam[i] = G[i][0] * lam[0] + G[i][1] * lam[1];
        b[i] = Minv_sqrt[i] * (F[i] + Glam[i]);
    }
    if (any_free) {
        if (!isfinite(b[0]) || !isfinite(b[1])) return ST_NOT_FINITE;
        if (fj_box_qp(A, 2, nz, 2, b, bound, held, a_held, work, iwork) != FJ_BOX_QP_OK)
            return ST_GAUSS_NOT_CONVERGED;
        for (int64_t j = 0; j < nz; j++) lam[cols[j]] = held[j];
    }
    for (int64_t i = 0; i < 2; i++) zdd[i] = (F[i] + (G[i][0] * lam[0] + G[i][1] * lam[1])) / M[i];
    for (int64_t c = 0; c < 2; c++) acc[c] = G[0][c] * zdd[0] + G[1][c] * zdd[1]; /* G^T zdd */
    return FJ_OK;
}

/* TwoMassFriction.update: the new mode (imode_new, 4) after the event `kind` of friction `ev_c` (kind
 * -1: none) from the mode `mode` (NULL at the start); stuck relative velocities set exactly to zero in
 * y. work, iwork: gauss_static_friction's scratch. */
static int64_t two_decide(const double *fpar, const int64_t *ipar, const int64_t *mode, int64_t kind, int64_t ev_c,
                          double *y, const double *tau, int64_t *imode_new, double *work, int64_t *iwork) {
    double F1 = tau[0], F2 = tau[1];
    double v[2] = {y[2] - y[3], y[3]}, lam[2], acc[2];
    int64_t old[2] = {0, 0}, direction[2], status = FJ_OK;
    int zero[2], stuck[2] = {0, 0};
    if (mode != NULL) old[0] = mode[IM_D12], old[1] = mode[IM_D20];
    for (int64_t c = 0; c < 2; c++) direction[c] = fabs(v[c]) > ZERO_VELOCITY ? sign_of(v[c], &status) : 0;
    if (kind == EV_SLIP_ZERO) direction[ev_c] = 0; /* located zero: its residual velocity is noise */
    for (int64_t c = 0; c < 2; c++) zero[c] = direction[c] == 0 && ipar[I_DRY12 + c] != 0;
    if (mode != NULL && kind == EV_BREAKAWAY) {
        int stuck_here[2] = {mode[IM_STUCK12] != 0, mode[IM_STUCK20] != 0};
        status = gauss_static_friction(fpar, F1, F2, v, direction, stuck_here, lam, acc, work, iwork);
        if (status) return status;
        direction[ev_c] = -sign_of(lam[ev_c], &status); /* it slips against the friction that held it */
        if (status) return status;
        if (!zero[ev_c]) return ST_NOT_AT_REST; /* zero.remove(c) raises */
        zero[ev_c] = 0;
    }
    if (mode != NULL && kind != EV_SLIP_ZERO) {
        /* settling after a breakaway or at a time event: a friction just set slipping keeps its direction */
        for (int64_t c = 0; c < 2; c++)
            if (zero[c] && old[c] != 0 && mode[IM_STUCK12 + c] == 0) direction[c] = old[c], zero[c] = 0;
    }
    status = gauss_static_friction(fpar, F1, F2, v, direction, zero, lam, acc, work, iwork);
    if (status) return status;
    double M_min = fpar[F2_M2] < fpar[F2_M1] ? fpar[F2_M2] : fpar[F2_M1]; /* Python's min(M1, M2) */
    double tol = STICK_TOL * (1.0 + fabs(F1) + fabs(F2)) / M_min;
    for (int64_t c = 0; c < 2; c++) {
        if (!zero[c]) continue;
        if (fabs(acc[c]) <= tol)
            stuck[c] = 1;
        else
            direction[c] = sign_of(acc[c], &status);
    }
    if (status) return status;
    if (stuck[1]) y[3] = 0.0; /* stuck relative velocities set exactly to zero: no creep */
    if (stuck[0]) y[2] = y[3];
    imode_new[IM_D12] = direction[0], imode_new[IM_D20] = direction[1];
    imode_new[IM_STUCK12] = stuck[0], imode_new[IM_STUCK20] = stuck[1];
    return FJ_OK;
}

/* ==================================================================================================
 * Kernels
 * ================================================================================================== */

/* dy/dt in the mode: single mass [zd, zdd, F zd, friction power]; two masses [zd1, zd2, zdd1, zdd2,
 * drive power, friction power] (the Python rhs of each). */
static int64_t rhs(const fj_args *a, double t, const double *y, const double *tau, double *dy, int64_t n_out) {
    (void)t, (void)n_out;
    if (a->ipar[I_KIND] == SINGLE_MASS)
        single_rhs(y, tau, a->fpar, a->imode, dy);
    else
        two_rhs(y, tau, a->fpar, a->imode, dy);
    return FJ_OK;
}

/* The event functions of the Python events(mode), in its order. */
static int64_t events(const fj_args *a, double t, const double *y, const double *tau, double *g, int64_t n_out) {
    (void)t, (void)n_out;
    if (a->ipar[I_KIND] == SINGLE_MASS)
        single_events(y, tau, a->fpar, a->imode, g);
    else
        two_events(y, tau, a->fpar, a->ipar, a->imode, g);
    return FJ_OK;
}

/* The recorded quantities of the Python record, flat (lumped.packing.record_layout). */
static int64_t record(const fj_args *a, double t, const double *y, const double *tau, double *out,
                      int64_t n_out) {
    (void)t, (void)n_out;
    if (a->ipar[I_KIND] == SINGLE_MASS)
        single_record(y, tau, a->fpar, a->imode, out);
    else
        two_record(y, tau, a->fpar, a->imode, out);
    return FJ_OK;
}

/* The scratch of decide: none for the single mass, fj_box_qp's for 2 x 2 for the two masses (the
 * kernels rhs, events and record need none). */
static void work_size(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar, int64_t *n_work,
                      int64_t *n_iwork) {
    (void)fpar, (void)n_fpar, (void)n_ipar;
    int two = ipar[I_KIND] == TWO_MASS;
    *n_work = two ? FJ_BOX_QP_WORK(2, 2) : 0;
    *n_iwork = two ? FJ_BOX_QP_IWORK(2) : 0;
}

/* The text of each status of decide (rhs, events and record cannot fail). */
static const char *message(int64_t status) {
    switch (status) {
    case ST_NOT_FINITE: return "a non-finite force or velocity decides the mode";
    case ST_NOT_AT_REST:
        return "a breakaway of a friction that is not at zero relative velocity (|v| > 1e-9 m/s) or has no "
               "static friction";
    case ST_GAUSS_NOT_CONVERGED: return "the Gauss principle's bounded least squares did not converge";
    case ST_BAD_EVENT: return "the event is not one of the mode's events";
    default: return "unknown status";
    }
}

/* Modes (lumped.packing.encode_single, encode_two): single mass imode = fmode = [direction] (at most
 * one event); two masses imode = fmode = [d12, d20, stuck12, stuck20] (at most two events: a friction
 * either slips or sticks). No change report (the kind follows from the old and new modes). */
static void mode_layout(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                        fj_mode_layout *layout) {
    (void)fpar, (void)n_fpar, (void)n_ipar;
    int two = ipar[I_KIND] == TWO_MASS;
    layout->n_fmode = layout->n_imode = two ? 4 : 1;
    layout->max_events = two ? 2 : 1;
    layout->n_change = 0;
}

/* The events of the mode: breakaways rise and are input driven, slips reaching zero fall; they watch
 * every decision (HybridSystem.events_watch_all, which neither model overrides). */
static int64_t mode_events(const fj_args *a, int64_t *directions, int64_t *flags, int64_t *watch_all) {
    int64_t kinds[2], contacts[2], n;
    if (a->ipar[I_KIND] == SINGLE_MASS)
        n = single_event_list(a->fpar, a->imode[0], kinds);
    else
        n = two_event_list(a->ipar, a->imode, kinds, contacts);
    for (int64_t k = 0; k < n; k++) {
        directions[k] = kinds[k] == EV_BREAKAWAY ? 1 : -1;
        flags[k] = kinds[k] == EV_BREAKAWAY ? FJ_INPUT_DRIVEN : 0;
    }
    *watch_all = 1;
    return n;
}

/* The Python update of the model (single_decide, two_decide); fmode = imode as floats. */
static int64_t decide(const fj_args *a, double t, double *y, const double *tau, int64_t event, double *fmode,
                      int64_t *imode, int64_t *change) {
    (void)t, (void)change;
    int single = a->ipar[I_KIND] == SINGLE_MASS;
    int has_mode = event != FJ_START;
    int64_t kinds[2], contacts[2] = {-1, -1}, n = 0, kind = -1, status, n_mode = single ? 1 : 4;
    if (has_mode && a->imode == NULL) return ST_BAD_EVENT;
    if (has_mode && single)
        n = single_event_list(a->fpar, a->imode[0], kinds);
    else if (has_mode)
        n = two_event_list(a->ipar, a->imode, kinds, contacts);
    if (event >= n || event < FJ_START) return ST_BAD_EVENT;
    if (event >= 0) kind = kinds[event];
    if (single)
        status = single_decide(a->fpar, has_mode, has_mode ? a->imode[0] : 0, kind, y, tau, imode);
    else
        status = two_decide(a->fpar, a->ipar, has_mode ? a->imode : NULL, kind, event >= 0 ? contacts[event] : -1, y,
                            tau, imode, a->work, a->iwork);
    if (status) return status;
    for (int64_t i = 0; i < n_mode; i++) fmode[i] = (double)imode[i];
    return FJ_OK;
}

const fj_family fj_family_lumped = {"lumped", rhs, events, record, work_size, message, mode_layout, mode_events,
                                    decide, NULL, NULL, NULL};
