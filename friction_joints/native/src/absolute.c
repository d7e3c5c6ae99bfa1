/* absolute.c: the kernels of the absolute-coordinate formulation (seed 000 eq. 2.9) for
 * planar.absolute_system.AbsoluteSystem. The Python engine (planar.absolute.absolute_dynamics, through
 * AbsoluteSystem) is the reference: the kernels follow its equations in the same order, on the model
 * packed by planar.packing.pack (planar/absolute_packing.py describes the arrays):
 *
 *     M xdd = h(x, xd, tau) + C^T f + C_mu^T f_mu(xd, f),    C xdd = xi(x, xd)
 *
 * State y = [x (n), xd (n)], dy = [xd, xdd]; one mode: the friction directions are sgn(sd), sd = C_mu xd
 * (no stick-slip modes, no events). As in the Python code, the augmented matrix K = [[M, -C^T], [C, 0]]
 * is factorised (bodies with zero mass whose motion the constraints fix are allowed) and solved for the
 * columns [h; xi] and [C_mu^T; 0]:
 *
 *     xdd = a0 + A f_mu,   f = f0 + B f_mu,
 *
 * then the coupled reaction-friction equations f = f0 + B f_mu(f) (seed 000 eq. 3.3) are solved by the
 * same Newton iteration as the minimal form (planar.c).
 *
 * Model arrays: those of the planar family (planar.packing.pack); these kernels use the model blocks and the
 * workspace fields C, C_mu, xi, h, f0, B, sd, f, f_mu and the scratch of the Newton iteration and of
 * kappa, never the tree or the minimal-form fields. The scratch is the planar workspace followed by the
 * augmented system `aug` ((n + m) x (n + m + 1 + l): K, then the right-hand sides, solved in place) in
 * a->work and its pivots in a->iwork. Mode arrays: empty (one mode). Record: x, xd, xdd, f, f_mu, flat.
 */
#include <math.h>

#include "fj_linalg.h"
#include "planar_internal.h"

/* codes (after those of planar.c, which the coupled solve returns) */
enum { ST_AUGMENTED_SINGULAR = 12, ST_NOT_FINITE = 13 };
#define SINGULAR_PIVOT 1e-12 /* planar.absolute: |pivot| <= 1e-12 max |pivot| is singular */

/* Python's max(a, b) and min(a, b): b replaces a only if it compares so (a NaN a is kept, a NaN b
 * passed over). The reference takes np.max / np.min of the pivots' magnitudes: the same results
 * wherever no pivot is NaN. */
static double py_max(double a, double b) { return b > a ? b : a; }
static double py_min(double a, double b) { return b < a ? b : a; }

/* The augmented system after the planar workspace: (n + m) rows of n + m + 1 + l, and its pivots. */
static double *augmented(const fj_args *a) { return a->work + a->ipar[I_WORK_ROWS] * a->ipar[I_WIDTH]; }
static int64_t *augmented_pivots(const fj_args *a) { return a->iwork + a->ipar[I_IWORK_ROWS] * a->ipar[I_WIDTH]; }

/* ================================================================================================
 * Seed 000 eq. (2.9) (planar.absolute.absolute_dynamics)
 * ================================================================================================ */

/* K = [[M, -C^T], [C, 0]] and the right-hand sides [[h, C_mu^T], [xi, 0]] into aug (row stride ldk). */
static void augmented_system(const fj_args *a, double *aug, int64_t ldk) {
    const int64_t *ip = a->ipar;
    int64_t n = ip[I_N], m = ip[I_M], l = ip[I_L], ld = ip[I_WIDTH], nm = n + m;
    const double *mass = a->fpar + ip[I_F_MASS];
    const double *C = fj_planar_field(a, W_C), *Cmu = fj_planar_field(a, W_CMU);
    const double *xi = fj_planar_field(a, W_XI), *h = fj_planar_field(a, W_H);
    double *K = aug, *R = aug + nm;
    for (int64_t i = 0; i < nm; i++)
        for (int64_t c = 0; c < nm + 1 + l; c++) aug[i * ldk + c] = 0.0;
    for (int64_t i = 0; i < n; i++) {
        K[i * ldk + i] = mass[i];
        R[i * ldk] = h[i];
        for (int64_t c = 0; c < l; c++) R[i * ldk + 1 + c] = Cmu[c * ld + i];
    }
    for (int64_t r = 0; r < m; r++) {
        for (int64_t i = 0; i < n; i++) {
            K[i * ldk + n + r] = -C[r * ld + i];
            K[(n + r) * ldk + i] = C[r * ld + i];
        }
        R[(n + r) * ldk] = xi[r];
    }
}

/* Eq. (2.9) at (x, xd, tau): fills the fields C, C_mu, xi, h, f0, B, sd, f, f_mu of the workspace and
 * leaves in aug[:n, n + m:] the accelerations [a0, A] (xdd = a0 + A f_mu). */
static int64_t dynamics(const fj_args *a, const double *x, const double *xd, const double *tau) {
    const int64_t *ip = a->ipar;
    int64_t n = ip[I_N], m = ip[I_M], l = ip[I_L], nd = ip[I_ND], ld = ip[I_WIDTH], nm = n + m, ldk = nm + 1 + l;
    double *C = fj_planar_field(a, W_C), *Cmu = fj_planar_field(a, W_CMU);
    double *xi = fj_planar_field(a, W_XI), *h = fj_planar_field(a, W_H);
    const double *hext = a->fpar + ip[I_F_HEXT];
    fj_planar_jacobians(a, x, C, Cmu, ld);
    fj_planar_xi(a, x, xd, xi);
    for (int64_t i = 0; i < n; i++) { /* h = h_ext + H tau */
        double s = hext[i];
        for (int64_t d = 0; d < nd; d++) s += a->fpar[ip[I_F_H] + i * nd + d] * tau[d];
        h[i] = s;
    }
    double *aug = augmented(a), *K = aug, *R = aug + nm;
    int64_t *apiv = augmented_pivots(a);
    augmented_system(a, aug, ldk);
    for (int64_t i = 0; i < nm; i++) /* scipy's check_finite on K */
        for (int64_t c = 0; c < nm; c++)
            if (!isfinite(K[i * ldk + c])) return ST_NOT_FINITE;
    int singular = fj_lu_factor(K, nm, ldk, apiv);
    double big = 0.0, small = INFINITY;
    for (int64_t i = 0; i < nm; i++) {
        big = py_max(big, fabs(K[i * ldk + i]));
        small = py_min(small, fabs(K[i * ldk + i]));
    }
    if (singular || small <= SINGULAR_PIVOT * big) return ST_AUGMENTED_SINGULAR;
    fj_lu_solve_columns(K, nm, ldk, apiv, R, 1 + l, ldk);
    double *f0 = fj_planar_field(a, W_F0), *B = fj_planar_field(a, W_B);
    for (int64_t r = 0; r < m; r++) {
        f0[r] = R[(n + r) * ldk];
        for (int64_t c = 0; c < l; c++) B[r * ld + c] = R[(n + r) * ldk + 1 + c];
    }
    double *sd = fj_planar_field(a, W_SD);
    for (int64_t c = 0; c < l; c++) { /* sd = C_mu xd */
        double s = 0.0;
        for (int64_t i = 0; i < n; i++) s += Cmu[c * ld + i] * xd[i];
        sd[c] = s;
    }
    int64_t *stat = fj_planar_ifield(a, WI_STATIC);
    double *direction = fj_planar_field(a, W_DIRECTION); /* unused: the directions are sgn(sd) */
    for (int64_t c = 0; c < l; c++) stat[c] = 0, direction[c] = 0.0;
    return fj_planar_solve_coupled(a, f0, B, sd, direction, 1, stat, fj_planar_field(a, W_F),
                                   fj_planar_field(a, W_FMU));
}

/* xdd = a0 + A f_mu from the solved augmented system. */
static void accelerations(const fj_args *a, const double *f_mu, double *xdd) {
    int64_t n = a->ipar[I_N], m = a->ipar[I_M], l = a->ipar[I_L], nm = n + m, ldk = nm + 1 + l;
    const double *aug = augmented(a);
    for (int64_t i = 0; i < n; i++) {
        double s = aug[i * ldk + nm];
        for (int64_t c = 0; c < l; c++) s += aug[i * ldk + nm + 1 + c] * f_mu[c];
        xdd[i] = s;
    }
}

/* ================================================================================================
 * The kernels (fj_kernel.h)
 * ================================================================================================ */

/* dy/dt = [xd, xdd] (AbsoluteSystem.rhs). */
static int64_t rhs(const fj_args *a, double t, const double *y, const double *tau, double *dy, int64_t n_out) {
    (void)t, (void)n_out;
    int64_t n = a->ipar[I_N];
    int64_t st = dynamics(a, y, y + n, tau);
    if (st) return st;
    for (int64_t i = 0; i < n; i++) dy[i] = y[n + i];
    accelerations(a, fj_planar_field(a, W_FMU), dy + n);
    return FJ_OK;
}

/* x, xd, xdd, f, f_mu flat (record_layout; AbsoluteSystem.record). */
static int64_t record(const fj_args *a, double t, const double *y, const double *tau, double *out, int64_t n_out) {
    (void)t, (void)n_out;
    int64_t n = a->ipar[I_N], m = a->ipar[I_M], l = a->ipar[I_L];
    int64_t st = dynamics(a, y, y + n, tau);
    if (st) return st;
    const double *f = fj_planar_field(a, W_F), *f_mu = fj_planar_field(a, W_FMU);
    for (int64_t i = 0; i < 2 * n; i++) out[i] = y[i];
    accelerations(a, f_mu, out + 2 * n);
    for (int64_t r = 0; r < m; r++) out[3 * n + r] = f[r];
    for (int64_t c = 0; c < l; c++) out[3 * n + m + c] = f_mu[c];
    return FJ_OK;
}

/* the planar workspace, then the augmented system and its pivots */
static void work_size(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar, int64_t *n_work,
                      int64_t *n_iwork) {
    (void)fpar, (void)n_fpar, (void)n_ipar;
    int64_t nm = ipar[I_N] + ipar[I_M];
    *n_work = ipar[I_WORK_ROWS] * ipar[I_WIDTH] + nm * (nm + 1 + ipar[I_L]);
    *n_iwork = ipar[I_IWORK_ROWS] * ipar[I_WIDTH] + nm;
}

/* The text of each status (the only source of these texts; planar/absolute_packing.py has the codes): the
 * coupled solve's statuses have the planar family's texts. */
static const char *message(int64_t status) {
    switch (status) {
    case ST_NO_CONVERGENCE:
    case ST_INCONSISTENT:
    case ST_INDETERMINATE: return fj_family_planar.message(status);
    case ST_AUGMENTED_SINGULAR:
        return "the augmented matrix [[M, -C^T], [C, 0]] is singular: redundant constraints or a body with "
               "unconstrained zero mass";
    case ST_NOT_FINITE: return "the state contains a non-finite value";
    default: return "unknown status";
    }
}

/* The single mode: empty arrays, no events. */
static void mode_layout(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                        fj_mode_layout *layout) {
    (void)fpar, (void)n_fpar, (void)ipar, (void)n_ipar;
    layout->n_fmode = layout->n_imode = 0;
    layout->max_events = layout->n_change = 0;
}

const fj_family fj_family_absolute = {"absolute", rhs, fj_no_events, record, work_size, message, mode_layout,
                                     fj_single_mode_events, fj_single_mode_decide, NULL, NULL, NULL};
