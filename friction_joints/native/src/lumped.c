/* lumped.c: the kernels of the lumped luz/tar models of seed 001: the single mass (Sect. 2, Fig. 3,
 * lumped.single_mass.SingleMassFriction) and the two masses (Sect. 4, Fig. 5,
 * lumped.two_mass.TwoMassFriction). The Python models are the reference: the kernels follow their
 * equations in the same order. One set of kernels serves both models; ipar[I_KIND] says which. The
 * layouts of fpar, ipar, fmode, imode and of the record are those of the packers in
 * friction_joints/compiled/lumped.py (its module docstring).
 *
 * Within a mode the structure is frozen: a stuck friction's luz term is not evaluated in the
 * right-hand side, its leaving the dead zone is the breakaway event. The kernels cannot fail (every
 * division is by a mass, > 0 by the parameters) and need no scratch.
 */
#include <stdint.h>

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

static void single_events(const double *y, const double *tau, const double *fpar, const int64_t *imode,
                          double *g) {
    int64_t d = imode[0];
    if (d == 0) /* breakaway: luz(F_W, F_T0S) leaves zero (seed 001 Sect. 2) */
        g[0] = fj_luz_margin(tau[0] - fpar[F_K] * y[0], fpar[F_FT0S]);
    else if (fpar[F_FT0S] != 0.0) /* slip_zero: the slip velocity reaches zero */
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

/* slip_zero d_c v_c of the slipping dry frictions (12, then 20), then the holding margins of the stuck
 * ones (two_mass.holding_margins: luz of the holding force leaving its dead zone, seed 001 Sect. 2), as
 * TwoMassFriction.events orders them. */
static void two_events(const double *y, const double *tau, const double *fpar, const int64_t *ipar,
                       const int64_t *imode, double *g) {
    double F1 = tau[0], F2 = tau[1];
    double v12, v20, lam12, lam20;
    two_state(y, fpar, imode, &v12, &v20, &lam12, &lam20);
    int s12 = imode[IM_STUCK12] != 0, s20 = imode[IM_STUCK20] != 0;
    int64_t k = 0;
    if (!s12 && imode[IM_D12] != 0 && ipar[I_DRY12] != 0) g[k++] = (double)imode[IM_D12] * v12;
    if (!s20 && imode[IM_D20] != 0 && ipar[I_DRY20] != 0) g[k++] = (double)imode[IM_D20] * v20;
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

/* The recorded quantities of the Python record, flat (compiled.lumped.record_layout). */
static int64_t record(const fj_args *a, double t, const double *y, const double *tau, double *out,
                      int64_t n_out) {
    (void)t, (void)n_out;
    if (a->ipar[I_KIND] == SINGLE_MASS)
        single_record(y, tau, a->fpar, a->imode, out);
    else
        two_record(y, tau, a->fpar, a->imode, out);
    return FJ_OK;
}

/* No scratch, and the kernels cannot fail (every status is unknown). */
const fj_family fj_family_lumped = {"lumped", rhs, events, record, fj_no_scratch, fj_no_failure, NULL, NULL, NULL};
