/* planar_bristle.c: the kernels of the family "planar_bristle": planar.bristle.BristleSystem, a planar
 * mechanism (the minimal form of seed 000 Sect. 4-5, planar.c's functions: planar_internal.h) with one
 * bristle state per frictional contact (the laws of friction/bristle.py, fj_bristle_laws.h; seed 003 names
 * them), the reference's equations in its order.
 *
 * Contact c (a frictional free coordinate) resists its slip sd_c = Cpp_c u (seed 000 eq. 5.5) with
 * F_c = N_c (sigma0 z + sigma1 zdot) + sigma2 sd_c (friction.bristle's frame), N_c the joint's load from the
 * reactions; F_c is affine in N_c, so the signed coefficient c_c = F_c(N=1) - F_c(N=0) takes the place of
 * -sgn(v) mu(v) in the coupled equations f = f0 + B f_mu(f) (seed 000 eq. 3.3): planar.c's coupled solve with
 * the flag STAT_BRISTLE (direction c_c / mu_s of the exact law's mu_s, the viscous part F_c(N=0) subtracted).
 * One smooth mode, no events; stiff (fj_rodas.h integrates it).
 *
 * Packed model (planar/bristle_packing.py): fpar = [the planar family's fpar (planar/packing.py, packed as
 * for RegularisedSystem: single mode, the mechanism's partition), one law row (FJ_BRISTLE_LAW_SIZE) per
 * contact in the order of ipar's contacts], ipar = the planar family's. State y = [q (k1), u (k),
 * zeta = sigma0 z (n_c), W_drive, W_friction]; mode, workspace and statuses: the planar family's
 * (RegularisedSystem's mode). Record: planar/packing.py's record_layout, then z (n_c), zdot (n_c). */
#include <string.h>

#include "fj_bristle_laws.h"
#include "fj_rodas.h"
#include "planar_internal.h"

/* The law row of contact j. */
static const double *contact_law(const fj_args *a, int64_t j) {
    return a->fpar + a->n_fpar - (a->ipar[I_NC] - j) * FJ_BRISTLE_LAW_SIZE;
}

/* BristleSystem._contacts: the linear terms at (q, u, tau), then per contact j (free coordinate c) z_j =
 * zeta_j / sigma0 and zdot_j = zdot(z_j, sd_c) (into z, zdot: n_c each; z may be NULL), the coupled solve
 * with bristle friction from f_start (fj_planar_evaluate), and udot (the fields f, f_mu, udot). */
static int64_t contacts(const fj_args *a, const double *y, const double *tau, double *z, double *zdot,
                        const double *f_start) {
    const int64_t *ip = a->ipar;
    int64_t l = ip[I_L], k1 = ip[I_K1], k = ip[I_K];
    int64_t st = fj_planar_linear_terms(a, y, y + k1, tau);
    if (st) return st;
    const int64_t *contact = ip + ip[I_CONTACTS];
    const double *sd = fj_planar_field(a, W_SD), *zeta = y + k1 + k;
    double *direction = fj_planar_field(a, W_DIRECTION), *viscous = fj_planar_field(a, W_FIXED);
    int64_t *stat = fj_planar_ifield(a, WI_STATIC);
    for (int64_t c = 0; c < l; c++) direction[c] = 0.0, viscous[c] = 0.0, stat[c] = STAT_BRISTLE;
    for (int64_t j = 0; j < ip[I_NC]; j++) {
        int64_t c = contact[j];
        const double *law = contact_law(a, j);
        double mu_s = a->fpar[ip[I_F_LAWS] + LAW_WIDTH * c]; /* the exact law's static coefficient */
        double zj = zeta[j] / law[FJ_LAW_SIGMA0];
        zdot[j] = fj_bristle_zdot(law, zj, sd[c]);
        viscous[c] = fj_bristle_force(law, zj, sd[c], 0.0, zdot[j]);
        direction[c] = (fj_bristle_force(law, zj, sd[c], 1.0, zdot[j]) - viscous[c]) / mu_s;
        if (z) z[j] = zj;
    }
    return fj_planar_evaluate(a, direction, stat, f_start);
}

/* dy/dt = [qdot, udot, sigma0 zdot, drive power, friction power f_mu . sd] (BristleSystem.rhs), the coupled
 * solve from f_start (fj_planar_evaluate). */
static int64_t slope(const fj_args *a, const double *y, const double *tau, double *dy, const double *f_start) {
    const int64_t *ip = a->ipar;
    int64_t l = ip[I_L], k1 = ip[I_K1], k = ip[I_K], nc = ip[I_NC];
    double *zdot = dy + k1 + k;
    int64_t st = contacts(a, y, tau, NULL, zdot, f_start);
    if (st) return st;
    for (int64_t j = 0; j < nc; j++) zdot[j] *= contact_law(a, j)[FJ_LAW_SIGMA0];
    const double *qd = fj_planar_field(a, W_QD), *udot = fj_planar_field(a, W_UDOT);
    const double *f_mu = fj_planar_field(a, W_FMU), *sd = fj_planar_field(a, W_SD);
    for (int64_t i = 0; i < k1; i++) dy[i] = qd[i];
    for (int64_t i = 0; i < k; i++) dy[k1 + i] = udot[i];
    double friction_power = 0.0;
    for (int64_t c = 0; c < l; c++) friction_power += f_mu[c] * sd[c];
    dy[k1 + k + nc] = fj_planar_drive_power(a, tau);
    dy[k1 + k + nc + 1] = friction_power;
    return FJ_OK;
}

/* slope() from f0, its reactions kept (the field f_rhs) for rhs_near. */
static int64_t rhs(const fj_args *a, double t, const double *y, const double *tau, double *dy, int64_t n_out) {
    (void)t, (void)n_out;
    int64_t st = slope(a, y, tau, dy, NULL);
    if (st == FJ_OK) memcpy(fj_planar_field(a, W_F_RHS), fj_planar_field(a, W_F), (size_t)a->ipar[I_M] * sizeof(double));
    return st;
}

/* slope() from the reactions of the last rhs (fj_family.rhs_near): next to its state, one Newton iteration
 * of the coupled solve reaches its tolerance where the three from f0 did. */
static int64_t rhs_near(const fj_args *a, double t, const double *y, const double *tau, double *dy, int64_t n_out) {
    (void)t, (void)n_out;
    return slope(a, y, tau, dy, fj_planar_field(a, W_F_RHS));
}

/* BristleSystem.record: MechanismSystem.record's quantities (stuck always false), then z and zdot. */
static int64_t record(const fj_args *a, double t, const double *y, const double *tau, double *out, int64_t n_out) {
    (void)t;
    int64_t k1 = a->ipar[I_K1], k = a->ipar[I_K], nc = a->ipar[I_NC];
    int64_t st = contacts(a, y, tau, out + n_out - 2 * nc, out + n_out - nc, NULL);
    if (st) return st;
    const double *udot = fj_planar_field(a, W_UDOT);
    for (int64_t i = 0; i < k; i++) out[3 * k1 + k + i] = udot[i]; /* udot's place (fj_planar_record_fields) */
    fj_planar_record_fields(a, y, tau, out);
    return FJ_OK;
}

/* The workspace, mode and statuses of the planar family (its RegularisedSystem mode: the mechanism's
 * partition, no events). */
static void work_size(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar, int64_t *n_work,
                      int64_t *n_iwork) {
    fj_family_planar.work_size(fpar, n_fpar, ipar, n_ipar, n_work, n_iwork);
}

static const char *message(int64_t status) { return fj_family_planar.message(status); }

static void mode_layout(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                        fj_mode_layout *layout) {
    fj_family_planar.mode_layout(fpar, n_fpar, ipar, n_ipar, layout);
}

static int64_t mode_events(const fj_args *a, int64_t *directions, int64_t *flags, int64_t *watch_all) {
    return fj_family_planar.mode_events(a, directions, flags, watch_all);
}

static int64_t decide(const fj_args *a, double t, double *y, const double *tau, int64_t event, double *fmode,
                      int64_t *imode, int64_t *change) {
    return fj_family_planar.decide(a, t, y, tau, event, fmode, imode, change);
}

/* W_drive and W_friction, the last two states, are read by no right-hand side. */
static void integrals(const fj_args *a, int64_t *first, int64_t *count) {
    *first = a->ipar[I_K1] + a->ipar[I_K] + a->ipar[I_NC], *count = 2;
}

const fj_family fj_family_planar_bristle = {"planar_bristle", rhs, fj_no_events, record, work_size, message,
                                            mode_layout, mode_events, decide, &fj_rodas, integrals, rhs_near};
