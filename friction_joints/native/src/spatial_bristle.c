/* spatial_bristle.c: the kernels of the family "spatial_bristle": spatial.bristle.BristleRSRRRSystem, the RSRRR
 * linkage of seed 002 (spatial.c's mechanics: spatial_internal.h) with one bristle state per frictional journal
 * surface (the laws of friction/bristle.py, fj_bristle_laws.h; seed 003 puts them into seed 002's joint model),
 * the reference's equations in its order.
 *
 * Surface s = (joint p, surface a of A, B, C), every one with a level mu_a0 > 0 (none without friction), in the
 * order p, then a (bristle.frictional_surfaces). It resists the joint's slip psid_p with the torque
 *
 *     t_s = N_s c_s + viscous_s,   c_s = sigma0 z + sigma1 zdot (its law at N = 1, less N = 0),   N_s = arm_a load_a,
 *
 * load_a = |F_A|, |F_B|, |f_z| (seed 002 eqs 6.1-6.2) and arm_a of eqs 5.1-5.3, and t_f,p = sum_s t_s (eq. 4).
 * The coefficients do not depend on the loads, so at a state t_f is a function of the reactions alone, which are
 * affine in t_f (eq. 2, eqs 3.1-3.8: fj_spatial_affine_map); the coupling t_f = t_f(reactions(t_f)) is solved by
 * spatial.c's Newton method (fj_spatial_coupling: the analytic Jacobian, where RSRRR._newton_coupling takes forward
 * differences; the surfaces' coefficients c as the journals' levels, their viscous torques as offsets) from
 * t_f = 0, ST_COUPLING after RSRRR.MAX_ITERATIONS, ST_NO_SOLUTION after an iterate with det(I - G) <= 0.
 * One smooth mode, no events; stiff (fj_rodas.h integrates it).
 *
 * Packed model (spatial/bristle_packing.py): fpar = [the spatial family's fpar (spatial/packing.py, no
 * stiction), one law row (FJ_BRISTLE_LAW_SIZE) per surface], ipar = the spatial family's. State y =
 * [q (4), qd (4), W_drive, W_res, W_friction, zeta = sigma0 z (n_s)]; inputs, mode and workspace: the spatial
 * family's. Record: spatial/packing.py's record_layout, then z, zdot, N, psid_s, t_s (n_s each). */
#include "fj_bristle_laws.h"
#include "fj_rodas.h"
#include "spatial_internal.h"

enum { N_JOINTS = 4, MAX_SURFACES = 3 * N_JOINTS, N_RECORD = 53, Y_ZETA = 11 }; /* 1 + 3 joints (spatial.c) */
enum { ST_LAYOUT = 9, ST_NO_SOLUTION = 10 }; /* beyond the spatial family's statuses */

/* The frictional surfaces at a state: joint, law row, arm, and the law's z, zdot, coefficient c and viscous part. */
typedef struct surfaces {
    int64_t n, joint[MAX_SURFACES], kind[MAX_SURFACES];
    const double *law[MAX_SURFACES];
    double arm[MAX_SURFACES], z[MAX_SURFACES], zdot[MAX_SURFACES], c[MAX_SURFACES], viscous[MAX_SURFACES];
} surfaces;

/* The surfaces of the packed model (bristle.frictional_surfaces, their law rows at the end of fpar); ST_LAYOUT
 * unless the model has 1 + 3 joints and one law row per surface. */
static int64_t find_surfaces(const fj_args *a, surfaces *s) {
    const int64_t *ip = a->ipar;
    s->n = 0;
    if (a->n_ipar < HEADER || ip[I_N1] + ip[I_N2] != N_JOINTS) return ST_LAYOUT;
    for (int64_t p = 0; p < N_JOINTS && ip[I_FRICTION] != 0; p++) {
        double arms[3];
        fj_spatial_arms(a->fpar, ip, p, arms);
        for (int64_t k = 0; k < 3; k++)
            if (a->fpar[ip[I_F_JOURNALS] + p * JOURNAL_WIDTH + J_MU_A + k] > 0)
                s->joint[s->n] = p, s->kind[s->n] = k, s->arm[s->n] = arms[k], s->n++;
    }
    if (a->n_fpar != ip[I_F_LOAD] + 3 + s->n * FJ_BRISTLE_LAW_SIZE) return ST_LAYOUT; /* the load block: 3 */
    for (int64_t i = 0; i < s->n; i++) s->law[i] = a->fpar + ip[I_F_LOAD] + 3 + i * FJ_BRISTLE_LAW_SIZE;
    return FJ_OK;
}

/* BristleRSRRRSystem.friction as the coupling's journals (fj_spatial_journals): joint p's surfaces' coefficients c
 * as its levels mu, their viscous torques as its offset, chi 1 (0 for a joint without a frictional surface). */
static void journals_of(const surfaces *s, fj_spatial_journals *law) {
    for (int64_t p = 0; p < N_JOINTS; p++) {
        law->joints[p] = p, law->chi[p] = 0.0, law->offset[p] = 0.0;
        for (int64_t k = 0; k < 3; k++) law->mu[p][k] = 0.0;
    }
    for (int64_t i = 0; i < s->n; i++) {
        int64_t p = s->joint[i];
        law->chi[p] = 1.0, law->mu[p][s->kind[i]] = s->c[i], law->offset[p] += s->viscous[i];
    }
}

/* t_f (4) = friction(t_f) with the journals' reactions f_O, n_O (4, 3) at it (fj_spatial_coupling: Newton's method
 * with the analytic Jacobian from t_f = 0, where RSRRR._newton_coupling takes forward differences), *iterations
 * its passes; ST_NO_SOLUTION where it fails after an iterate with det(I - G) <= 0. */
static int64_t coupling(const fj_args *a, const surfaces *s, double *t_f, double *f_O, double *n_O,
                        int64_t *iterations) {
    fj_spatial_work w;
    fj_spatial_journals law;
    int folded;
    fj_spatial_layout(&w, a->work, a->iwork, N_JOINTS, a->ipar[I_N1], NULL, NULL); /* the map of the last affine map */
    journals_of(s, &law);
    int64_t st = fj_spatial_coupling(a->fpar, a->ipar, &w, &law, NULL, t_f, f_O, n_O, iterations, &folded);
    return st && folded ? ST_NO_SOLUTION : st;
}

/* The state of motion at (y, tau) (BristleRSRRRSystem._motion): the surfaces' z, zdot, c, viscous in s, q, qd,
 * qdd, f_S, f_O, n_O, t_f into m (arrays of N_JOINTS, 3 and 3 N_JOINTS doubles), *iterations. */
typedef struct motion {
    double q[N_JOINTS], qd[N_JOINTS], qdd[N_JOINTS], f_S[3], f_O[3 * N_JOINTS], n_O[3 * N_JOINTS], t_f[N_JOINTS];
    int64_t iterations;
} motion;

static int64_t state_of_motion(const fj_args *a, const double *y, const double *tau, surfaces *s, motion *m) {
    m->iterations = 0;
    int64_t st = find_surfaces(a, s);
    if (!st) st = fj_spatial_coordinates(a, y, m->q, m->qd);
    if (st) return st;
    for (int64_t i = 0; i < s->n; i++) {
        const double *law = s->law[i];
        double v = m->qd[s->joint[i]];
        s->z[i] = y[Y_ZETA + i] / law[FJ_LAW_SIGMA0];
        s->zdot[i] = fj_bristle_zdot(law, s->z[i], v);
        s->viscous[i] = fj_bristle_force(law, s->z[i], v, 0.0, s->zdot[i]);
        s->c[i] = fj_bristle_force(law, s->z[i], v, 1.0, s->zdot[i]) - s->viscous[i]; /* seed 003, N = 1 */
    }
    double applied = tau[0] - fj_spatial_resistance(tau, a->fpar, a->ipar, y[N_JOINTS]);
    st = fj_spatial_affine_map(a, m->q, m->qd, applied);
    if (!st) st = coupling(a, s, m->t_f, m->f_O, m->n_O, &m->iterations);
    if (st) return st;
    fj_spatial_motion_at(a, m->t_f, m->qdd, m->f_S); /* f_O, n_O: the coupling's, at t_f */
    return FJ_OK;
}

/* dy/dt = [qd, qdd, the powers (3), sigma0 zdot] (BristleRSRRRSystem.rhs). */
static int64_t rhs(const fj_args *a, double t, const double *y, const double *tau, double *dy, int64_t n_out) {
    (void)t, (void)n_out;
    surfaces s;
    motion m;
    int64_t st = state_of_motion(a, y, tau, &s, &m);
    if (st) return st;
    fj_spatial_rates(a, y, tau, m.qd, m.qdd, m.t_f, dy);
    for (int64_t i = 0; i < s.n; i++) dy[Y_ZETA + i] = s.law[i][FJ_LAW_SIGMA0] * s.zdot[i];
    return FJ_OK;
}

/* BristleRSRRRSystem.record: RSRRRSystem.record's quantities (stuck 0), then z, zdot, N, psid_s, t_s. */
static int64_t record(const fj_args *a, double t, const double *y, const double *tau, double *out, int64_t n_out) {
    (void)t, (void)n_out;
    surfaces s;
    motion m;
    int64_t st = state_of_motion(a, y, tau, &s, &m);
    if (st) return st;
    double loads[3], *N = out + N_RECORD + 2 * s.n;
    for (int64_t i = 0; i < s.n; i++) { /* the surfaces' loads arm_a load_a (eqs 5.1-6.2) at the solution */
        int64_t p = s.joint[i];
        fj_spatial_surface_loads(a->fpar, a->ipar, p, m.f_O + 3 * p, m.n_O + 3 * p, loads);
        N[i] = s.arm[i] * loads[s.kind[i]];
    }
    fj_spatial_state state = {m.q, m.qd, m.qdd, m.f_S, m.f_O, m.n_O, m.t_f, m.iterations, 0, NULL};
    fj_spatial_record(a, y, tau, &state, out);
    for (int64_t i = 0; i < s.n; i++) {
        out[N_RECORD + i] = s.z[i];
        out[N_RECORD + s.n + i] = s.zdot[i];
        out[N_RECORD + 3 * s.n + i] = m.qd[s.joint[i]];
        out[N_RECORD + 4 * s.n + i] = N[i] * s.c[i] + s.viscous[i];
    }
    return FJ_OK;
}

static void work_size(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar, int64_t *n_work,
                      int64_t *n_iwork) {
    fj_family_spatial.work_size(fpar, n_fpar, ipar, n_ipar, n_work, n_iwork);
}

static const char *message(int64_t status) {
    switch (status) {
    case ST_NO_SOLUTION: return FJ_SPATIAL_NO_SOLUTION;
    case ST_LAYOUT:
        return "the packed model is not the RSRRR linkage (1 + 3 joints) with one bristle law row per frictional "
               "surface";
    default: return fj_family_spatial.message(status);
    }
}

/* The spatial family's single mode (no stiction: direction +1, no events). */
static void mode_layout(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                        fj_mode_layout *layout) {
    fj_family_spatial.mode_layout(fpar, n_fpar, ipar, n_ipar, layout);
}

static int64_t mode_events(const fj_args *a, int64_t *directions, int64_t *flags, int64_t *watch_all) {
    return fj_family_spatial.mode_events(a, directions, flags, watch_all);
}

static int64_t decide(const fj_args *a, double t, double *y, const double *tau, int64_t event, double *fmode,
                      int64_t *imode, int64_t *change) {
    return fj_family_spatial.decide(a, t, y, tau, event, fmode, imode, change);
}

/* The work integrals W_drive, W_res, W_friction at y[8:11], which no right-hand side reads. */
static void integrals(const fj_args *a, int64_t *first, int64_t *count) {
    (void)a;
    *first = 2 * N_JOINTS, *count = 3;
}

const fj_family fj_family_spatial_bristle = {"spatial_bristle", rhs, fj_no_events, record, work_size, message,
                                             mode_layout, mode_events, decide, &fj_rodas, integrals, NULL};
