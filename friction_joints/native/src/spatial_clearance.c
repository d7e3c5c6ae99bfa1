/* spatial_clearance.c: the kernels of the RSRRR linkage with a clearance joint and a flexible link
 * (spatial.clearance_system.ClearanceRSRRRSystem over spatial.clearance_rsrrr.ClearanceRSRRR). The Python
 * engine is the reference: the kernels follow its equations in the same order, on the model packed by
 * spatial/clearance_packing.py (whose module docstring describes the arrays and the mode).
 *
 * The chains (spatial.c through spatial_internal.h) hold the four joints of seed 002 at joints[], the
 * clearance coordinates (the bearing centre x, y, prismatic, and in the spatial model its tilts a, b,
 * revolute; massless links) and the sde
 * coordinates of an RFEM link (their spring-dampers are the joints' k, d). The loop is integrated in the
 * cut form, seed 002 eq. (2) on all n coordinates with Baumgarte's stabilisation of the closure. The
 * journal friction of eqs 4-7 acts on the four joints; the reaction-friction coupling on the affine map of
 * eq. (2) is solved by spatial.c's Newton method (fj_spatial_coupling), where ClearanceRSRRR iterates the fixed
 * point of RSRRR.dynamics with its forward-difference Newton fallback: the same solution within the coupling's
 * tolerance, in fewer passes (the record's iterations are this engine's).
 *
 * The clearance contact (contact.planar.PlanarClearance, after Flores et al. 2006 for seed 003's planar
 * model; contact.spatial.SpatialClearance, sliced along the bearing, for its spatial model): journal at rest
 * at the origin of its axis frame, the bearing centre r_B = (x, y) (and its axis tilted by a, b), its force
 * F_B on the x, y coordinates, its moment M_B on the tilts and on the joint's rotation. Normal force: the
 * Flores et al. (2011) law (contact.laws), friction: the regularised Coulomb law (Tanh). Modes: FREE (no contact force; the
 * event `impact` when delta rises through the mode's level) and Contact(deltad0) (`separation` when delta
 * falls through it), decided as contact.modes.contact_update.
 *
 * Stiff (the contact's stiffness on the light bearing, the sdes' on the light rigid finite elements): the
 * family's integrator is RODAS (fj_rodas.h), which took 2.5 times fewer right-hand sides than DOP853 over a
 * planar clearance run and 16 times fewer over a flexible link of four steel sdes (docs/performance.md).
 *
 * State y = [q (n), qd (n), W_drive, W_res, W_friction, W_dissipated]. Inputs tau = [tau, tau_res] (N.m).
 * Scratch: the spatial family's work (fj_spatial_layout) followed by this family's; nothing allocated. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fj_kernel.h"
#include "fj_linalg.h"
#include "fj_rodas.h"
#include "spatial_internal.h"

/* --- the packed clearance block (spatial/clearance_packing.py, same names and values) ------------ */
/* ipar, at HEADER + n (after the spatial header and parents) */
enum { CI_JOINTS = 0, CI_GAP = 4, CI_MODEL = 8, CI_BEARING = 9, CI_F = 10, CI_WIDTH = 11 };
enum { MODEL_NONE = 0, MODEL_PLANAR = 1, MODEL_SPATIAL = 2 };
/* fpar, at ipar[.. + CI_F] */
enum { CF_R_J, CF_R_B, CF_K, CF_N, CF_CHI, CF_MU, CF_V_EPS, CF_FRICTION, CF_DELTAD0_MIN, CF_L, CF_SLICES, CF_WIDTH };
/* mode: fmode = [deltad0, level], imode = [in contact] */
enum { FM_DELTAD0, FM_LEVEL };
/* the change report: the kind of update's decision */
enum { KIND_NONE = 0, KIND_IMPACT = 1, KIND_SEPARATION = 2 };
/* statuses beyond spatial.c's (spatial_internal.h) */
enum { ST_SKEW = 9, ST_NO_SOLUTION = 10 };

#define JOURNALS FJ_JOURNALS

/* This family's scratch after the spatial work. */
typedef struct cwork {
    fj_spatial_work s;
    double *Q;                                  /* (n) the contact's generalised forces */
    double *tf;                                 /* (4) the journals' friction torques */
    double *fO, *nO;                            /* (4,3) the journals' reactions */
    /* the memo: s holds the terms of the last call's (q_kept, qd_kept) if *kept (fj_spatial_kept) */
    double *q_kept, *qd_kept; /* (n) each */
    int64_t *kept;            /* (1) */
    /* the friction torques of the last rhs call, if *solved: where rhs_near starts the coupling */
    double *tf_rhs; /* (4) */
    int64_t *solved; /* (1) */
} cwork;

/* The clearance contact at one instant (clearance_rsrrr.JointContact): Q_gap, Q_bearing its generalised
 * forces on the clearance coordinates (N, N.m) and on the joint's rotation (N.m); the largest penetration
 * delta (m) and its rate deltad (m/s). */
typedef struct contact {
    double Q_gap[4], Q_bearing;
    double e, delta, deltad, F, E_el, P_damping, P_friction;
} contact;

static inline int64_t n_of(const int64_t *ipar) { return ipar[I_N1] + ipar[I_N2]; }
static inline const int64_t *block(const int64_t *ipar) { return ipar + HEADER + n_of(ipar); }
static inline const double *cblock(const double *fpar, const int64_t *ipar) { return fpar + block(ipar)[CI_F]; }
static inline double max2(double a, double b) { return b > a ? b : a; }

static double *take(double *base, int64_t *used, int64_t size) {
    double *p = base ? base + *used : NULL;
    *used += size;
    return p;
}

/* The arrays of w carved from f and iw (NULL: only count into *nf, *ni). */
static void layout(cwork *w, double *f, int64_t *iw, const int64_t *ipar, int64_t *nf, int64_t *ni) {
    int64_t n = n_of(ipar), u = 0, v = 0;
    fj_spatial_layout(&w->s, f, iw, n, ipar[I_N1], &u, &v);
    w->Q = take(f, &u, n);
    w->tf = take(f, &u, JOURNALS);
    w->fO = take(f, &u, 3 * JOURNALS), w->nO = take(f, &u, 3 * JOURNALS);
    w->q_kept = take(f, &u, n), w->qd_kept = take(f, &u, n);
    w->kept = iw ? iw + v : NULL;
    v += 1;
    w->tf_rhs = take(f, &u, JOURNALS);
    w->solved = iw ? iw + v : NULL;
    v += 1;
    if (nf) *nf = u;
    if (ni) *ni = v;
}

/* Forgets the memo's terms of q (w laid out). */
static void forget(cwork *w, const int64_t *ipar) {
    fj_spatial_clear(&w->s, n_of(ipar));
    *w->kept = 0;
}

/* The arrays of a kernel call, the memo forgotten. */
static void work_of(const fj_args *a, cwork *w) {
    layout(w, a->work, a->iwork, a->ipar, NULL, NULL);
    forget(w, a->ipar);
}

/* ==================================================================================================
 * The clearance contact (contact.planar.PlanarClearance.contact with the journal at rest at the origin)
 * ================================================================================================== */

/* Tanh (friction.laws): -sgn(v) mu tanh(|v| / v_eps) F_n (N), 0 without friction. */
static double friction_force(double v, double F_n, const double *cf) {
    return cf[CF_FRICTION] != 0.0 ? -fj_sign(v) * (cf[CF_MU] * tanh(fabs(v) / cf[CF_V_EPS])) * F_n : 0.0 * v;
}

/* --- small 3-vectors ---------------------------------------------------------------------------------- */
typedef struct vec {
    double x, y, z;
} vec;
static inline vec mk(double x, double y, double z) {
    vec r = {x, y, z};
    return r;
}
static inline vec plus(vec a, vec b) { return mk(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline vec minus(vec a, vec b) { return mk(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline vec times(double s, vec a) { return mk(s * a.x, s * a.y, s * a.z); }
static inline double dot(vec a, vec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline vec crossed(vec a, vec b) {
    return mk(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double norm3(vec a) { return sqrt(a.x * a.x + a.y * a.y + a.z * a.z); }

/* The spatial model's bearing pose in the journal's axis frame (ClearanceRSRRR.bearing_pose): centre r_B,
 * axis u_B = Rx(a) Ry(b) e_z and y_a = Rx(a) e_y. */
static void bearing_pose(const double *q, const int64_t *cb, vec *r_B, vec *u_B, vec *y_a) {
    const int64_t *g = cb + CI_GAP;
    double ca = cos(q[g[2]]), sa = sin(q[g[2]]), cb_ = cos(q[g[3]]), sb = sin(q[g[3]]);
    *r_B = mk(q[g[0]], q[g[1]], 0.0);
    *y_a = mk(0.0, ca, sa);
    *u_B = mk(sb, -sa * cb_, ca * cb_);
}

/* The station s of the spatial model (contact.spatial.SpatialClearance.eccentricity, journal at rest at the
 * origin along e_z): e = p_J - p_B, p_J, p_B; cos = u_B . e_z (> MIN_AXIS_COSINE, else ST_SKEW). */
static vec station(double s, vec r_B, vec u_B, vec *p_J, vec *p_B) {
    *p_B = plus(r_B, times(s, u_B));
    double tau = dot(*p_B, u_B) / u_B.z; /* (p_B - r_J) . u_B / (u_J . u_B) */
    *p_J = mk(0.0, 0.0, tau);
    return minus(*p_J, *p_B);
}

#define MIN_AXIS_COSINE 0.5 /* contact.spatial.MIN_AXIS_COSINE */

/* The largest penetration (m): the event function (ClearanceRSRRR.penetration; the planar |r_J - r_B| - c,
 * the spatial model's at its end slices, where |e(s)| is largest). */
static double penetration(const double *q, const double *fpar, const int64_t *ipar) {
    const int64_t *cb = block(ipar);
    const double *cf = cblock(fpar, ipar);
    double c = cf[CF_R_B] - cf[CF_R_J];
    if (cb[CI_MODEL] == MODEL_PLANAR) return fj_hypot(0.0 - q[cb[CI_GAP]], 0.0 - q[cb[CI_GAP + 1]]) - c;
    vec r_B, u_B, y_a, p_J, p_B;
    bearing_pose(q, cb, &r_B, &u_B, &y_a);
    double L = cf[CF_L], w = L / cf[CF_SLICES];
    double first = norm3(station(-0.5 * L + 0.5 * w, r_B, u_B, &p_J, &p_B));
    double last = norm3(station(-0.5 * L + w * (cf[CF_SLICES] - 0.5), r_B, u_B, &p_J, &p_B));
    return max2(first, last) - c;
}

/* The contact at (q, qd) with the impact rate deltad0 (m/s) (ClearanceRSRRR.contact, planar model). */
static contact planar_contact(const double *q, const double *qd, double deltad0, const double *fpar,
                              const int64_t *ipar) {
    const int64_t *cb = block(ipar);
    const double *cf = cblock(fpar, ipar);
    double x = q[cb[CI_GAP]], y = q[cb[CI_GAP + 1]], vx = qd[cb[CI_GAP]], vy = qd[cb[CI_GAP + 1]];
    double omega_B = qd[cb[CI_BEARING]], R_J = cf[CF_R_J], R_B = cf[CF_R_B], K = cf[CF_K], n = cf[CF_N];
    contact k;
    /* Flores et al. 2006: e = r_J - r_B, n = e / |e|, delta = |e| - c, deltad = (v_J - v_B) . n,
     * v_t = (v_J - v_B) . t + omega_J R_J - omega_B R_B, t = (-n_y, n_x) */
    double ex = 0.0 - x, ey = 0.0 - y, norm = fj_hypot(ex, ey);
    double n_x = norm > 0 ? ex / norm : 1.0, n_y = norm > 0 ? ey / norm : 0.0; /* any normal at the centre */
    double spin = 0.0 * R_J - omega_B * R_B, dv_x = 0.0 - vx, dv_y = 0.0 - vy;
    k.delta = norm - (R_B - R_J);
    k.deltad = dv_x * n_x + dv_y * n_y;
    double v_t = -dv_x * n_y + dv_y * n_x + spin;
    /* Flores et al. 2011: F_n = max(K delta^n (1 + chi deltad / deltad0), 0), delta > 0 */
    double F_el = K * pow(max2(k.delta, 0.0), n);
    double F_n = max2(F_el * (1.0 + cf[CF_CHI] * k.deltad / deltad0), 0.0);
    /* Tanh: F_t = -sgn(v_t) mu tanh(|v_t| / v_eps) F_n */
    double F_t = friction_force(v_t, F_n, cf);
    double fJx = -F_n * n_x - F_t * n_y, fJy = -F_n * n_y + F_t * n_x; /* f_J = -F_n n + F_t t */
    k.Q_gap[0] = -fJx, k.Q_gap[1] = -fJy, k.Q_bearing = -R_B * F_t; /* F_B = -f_J, M_B = -R_B F_t */
    k.e = fj_hypot(x, y);
    k.F = fj_hypot(k.Q_gap[0], k.Q_gap[1]);
    k.E_el = K * pow(max2(k.delta, 0.0), n + 1.0) / (n + 1.0);
    k.P_damping = -((F_n - F_el) * k.deltad);
    k.P_friction = (k.Q_gap[0] * vx + k.Q_gap[1] * vy + k.Q_bearing * omega_B) + F_n * k.deltad; /* Q.qd - normal */
    return k;
}

/* The spatial model's contact at (q, qd) with the impact rate deltad0 (ClearanceRSRRR.contact; contact.spatial:
 * n_slices equal slices at their midpoints, each the planar law at the point where the journal axis crosses
 * its plane, its stiffness the slice's share w / L, its normal force along m = n - u_B (n . u_J) / (u_J . u_B),
 * the friction against the tangential slip of the contact points). *k; ST_SKEW where the axes are 60 deg
 * or more apart. */
static int64_t spatial_contact(const double *q, const double *qd, double deltad0, const double *fpar,
                               const int64_t *ipar, contact *k) {
    const int64_t *cb = block(ipar);
    const double *cf = cblock(fpar, ipar);
    const int64_t *g = cb + CI_GAP;
    vec r_B, u_B, y_a;
    bearing_pose(q, cb, &r_B, &u_B, &y_a);
    if (!(u_B.z > MIN_AXIS_COSINE)) return ST_SKEW;
    /* v_B, and omega_B = ad e_x + bd Rx(a) e_y + psid u_B */
    vec v_B = mk(qd[g[0]], qd[g[1]], 0.0);
    vec omega_B = plus(plus(mk(qd[g[2]], 0.0, 0.0), times(qd[g[3]], y_a)), times(qd[cb[CI_BEARING]], u_B));
    double R_J = cf[CF_R_J], R_B = cf[CF_R_B], c = R_B - R_J, K = cf[CF_K], n_exp = cf[CF_N], L = cf[CF_L];
    int64_t slices = (int64_t)cf[CF_SLICES];
    double w = L / (double)slices, share = w / L;
    vec F_J = mk(0.0, 0.0, 0.0), M_B = mk(0.0, 0.0, 0.0);
    double E_el = 0.0, damping = 0.0, normal = 0.0;
    k->delta = -INFINITY, k->deltad = 0.0;
    for (int64_t i = 0; i < slices; i++) {
        vec p_J, p_B;
        vec e = station(-0.5 * L + w * ((double)i + 0.5), r_B, u_B, &p_J, &p_B);
        double norm = norm3(e);
        vec n = norm > 0 ? times(1.0 / norm, e) : mk(0.0, 0.0, 0.0);
        vec m = minus(n, times(n.z / u_B.z, u_B)); /* the gradient direction of delta */
        vec v_B_at_p = plus(v_B, crossed(omega_B, minus(p_J, r_B)));
        double delta = norm - c, deltad = dot(m, minus(mk(0.0, 0.0, 0.0), v_B_at_p));
        double F_el_full = K * pow(max2(delta, 0.0), n_exp);
        double F_n = share * max2(F_el_full * (1.0 + cf[CF_CHI] * deltad / deltad0), 0.0), F_el = share * F_el_full;
        vec arm_B = minus(plus(p_B, times(R_B, n)), r_B); /* Q_B - r_B */
        vec v_rel = minus(times(-1.0, v_B), crossed(omega_B, arm_B));
        vec v_t = minus(v_rel, times(dot(v_rel, n), n));
        double speed = norm3(v_t);
        double F_t = friction_force(speed, F_n, cf); /* <= 0: along -v_t */
        vec f_t = times(F_t / (speed > 0 ? speed : 1.0), v_t), f_n = times(-F_n, m);
        F_J = plus(F_J, plus(f_n, f_t));
        M_B = minus(M_B, plus(crossed(minus(p_J, r_B), f_n), crossed(arm_B, f_t)));
        E_el += w * (K * pow(max2(delta, 0.0), n_exp + 1.0) / (n_exp + 1.0));
        damping += (F_n - F_el) * deltad;
        normal += F_n * deltad;
        if (delta > k->delta) k->delta = delta, k->deltad = deltad; /* argmax: the first largest */
    }
    vec F_B = times(-1.0, F_J);
    k->Q_gap[0] = F_B.x, k->Q_gap[1] = F_B.y, k->Q_gap[2] = M_B.x, k->Q_gap[3] = dot(M_B, y_a);
    k->Q_bearing = dot(M_B, u_B);
    k->e = fj_hypot(r_B.x, r_B.y);
    k->F = norm3(F_B);
    k->E_el = E_el / L;
    k->P_damping = -damping;
    double power = k->Q_bearing * qd[cb[CI_BEARING]];
    for (int i = 0; i < 4; i++) power += k->Q_gap[i] * qd[g[i]];
    k->P_friction = power + normal;
    return FJ_OK;
}

/* The contact of the joint's model at (q, qd) with the impact rate deltad0 into *k. */
static int64_t joint_contact(const double *q, const double *qd, double deltad0, const double *fpar,
                             const int64_t *ipar, contact *k) {
    if (block(ipar)[CI_MODEL] == MODEL_SPATIAL) return spatial_contact(q, qd, deltad0, fpar, ipar, k);
    *k = planar_contact(q, qd, deltad0, fpar, ipar);
    return FJ_OK;
}

/* ==================================================================================================
 * The state of motion (RSRRR.dynamics with extra generalised forces, on the four journals)
 * ================================================================================================== */

/* status; *iterations: s.qdd (n), s.fS (3), w->fO, w->nO (4,3) and w->tf (4) at (q, qd) with the net
 * torque `applied` on the driving link and the generalised forces extra (n) or NULL; kept: what w->s holds of
 * the last call (fj_spatial_kept); start: the coupling's (NULL: t_f = 0). The coupling by Newton's method
 * (fj_spatial_coupling, where ClearanceRSRRR iterates the fixed point with its Newton fallback): ST_NO_SOLUTION
 * where it fails after an iterate with det(I - G) <= 0, as RSRRR._newton_coupling. */
static int64_t dynamics(const double *q, const double *qd, double applied, const double *extra, const double *fpar,
                        const int64_t *ipar, cwork *w, int64_t *iterations, int kept, const double *start) {
    int64_t n = n_of(ipar);
    const int64_t *J = block(ipar) + CI_JOINTS;
    fj_spatial_work *s = &w->s;
    *iterations = 0;
    int q_kept = (kept & FJ_KEPT_ALL_Q) == FJ_KEPT_ALL_Q;
    int64_t st = fj_spatial_mechanics(q, qd, fpar, ipar, s, kept);
    if (st) return st;
    for (int64_t i = 0; i < n; i++) s->e[i] += (extra ? extra[i] : 0.0) + (i == J[0] ? applied : 0.0);
    st = fj_spatial_solve_cut(0.0, fpar, ipar, s, J, JOURNALS, q_kept); /* seed 002 eq. (2), e + tau on the right */
    if (st) return st;
    fj_spatial_reaction_map(qd, fpar, ipar, s, J, JOURNALS, q_kept); /* eqs 3.1-3.8, the journals' columns */
    fj_spatial_journals law;
    fj_spatial_journals_of(fpar, ipar, J, qd, &law);
    int folded;
    st = fj_spatial_coupling(fpar, ipar, s, &law, start, w->tf, w->fO, w->nO, iterations, &folded);
    if (st) return folded ? ST_NO_SOLUTION : st;
    for (int64_t i = 0; i < n; i++) {
        double v = s->qdd0[i];
        for (int64_t k = 0; k < JOURNALS; k++) v += s->Sq[i * n + J[k]] * w->tf[k];
        s->qdd[i] = v;
    }
    for (int a = 0; a < 3; a++) {
        double v = s->fS0[a];
        for (int64_t k = 0; k < JOURNALS; k++) v += s->Sf[a * n + J[k]] * w->tf[k];
        s->fS[a] = v;
    }
    return FJ_OK;
}

static int in_contact(const fj_args *a) { return a->imode[0] != 0; }

/* ClearanceRSRRRSystem.state_of_motion: the contact *k (computed with a clearance; its forces act in
 * Contact only) and the dynamics into w (kept, start as dynamics'). */
static int64_t state_of_motion(const fj_args *a, const double *y, const double *tau, cwork *w, contact *k,
                               int64_t *iterations, int kept, const double *start) {
    const double *fpar = a->fpar;
    const int64_t *ipar = a->ipar;
    int64_t n = n_of(ipar);
    const int64_t *cb = block(ipar);
    const double *q = y, *qd = y + n;
    int touching = in_contact(a);
    const double *extra = NULL;
    if (cb[CI_MODEL] != MODEL_NONE) {
        int64_t st = joint_contact(q, qd, touching ? a->fmode[FM_DELTAD0] : 1.0, fpar, ipar, k);
        if (st) return st;
        if (touching) {
            for (int64_t i = 0; i < n; i++) w->Q[i] = 0.0;
            for (int i = 0; i < (cb[CI_MODEL] == MODEL_PLANAR ? 2 : 4); i++) w->Q[cb[CI_GAP + i]] = k->Q_gap[i];
            w->Q[cb[CI_BEARING]] = k->Q_bearing;
            extra = w->Q;
        }
    }
    double applied = tau[0] - fj_spatial_resistance(tau, fpar, ipar, y[n]);
    return dynamics(q, qd, applied, extra, fpar, ipar, w, iterations, kept, start);
}

/* -sum d qd^2 (W): the power of the sdes' dampers (ClearanceRSRRR.structural_power). */
static double structural_power(const double *qd, const double *fpar, const int64_t *ipar) {
    double s = 0.0;
    for (int64_t i = 0; i < n_of(ipar); i++) s += fpar[ipar[I_F_LINKS] + i * LINK_WIDTH + L_D] * (qd[i] * qd[i]);
    return -s;
}

/* sum k q^2 / 2 (J): the sdes' strain energy (ClearanceRSRRR.strain_energy). */
static double strain_energy(const double *q, const double *fpar, const int64_t *ipar) {
    double s = 0.0;
    for (int64_t i = 0; i < n_of(ipar); i++) s += fpar[ipar[I_F_LINKS] + i * LINK_WIDTH + L_K] * (q[i] * q[i]);
    return 0.5 * s;
}

/* ==================================================================================================
 * Kernels
 * ================================================================================================== */

/* dy/dt = [qd, qdd, drive, resistance, friction and dissipated powers] (ClearanceRSRRRSystem.rhs); all NaN
 * if an entry is not finite (contact.modes.rejectable: the error control shrinks the step). The terms of this
 * state are kept for the next call; near: the memo's terms serve a chain whose q (and qd) are theirs (bit for bit:
 * fj_spatial_kept), and the coupling starts from the last rhs call's friction torques (not near: from zero, its
 * solution kept). */
static int64_t rates(const fj_args *a, const double *y, const double *tau, double *dy, int64_t n_out, int near) {
    const double *fpar = a->fpar;
    const int64_t *ipar = a->ipar;
    int64_t n = n_of(ipar), iterations;
    const int64_t *J = block(ipar) + CI_JOINTS;
    const double *qd = y + n;
    cwork w;
    contact k;
    layout(&w, a->work, a->iwork, ipar, NULL, NULL);
    int kept = near && *w.kept ? fj_spatial_kept(ipar, y, qd, w.q_kept, w.qd_kept) : 0;
    if (!kept) forget(&w, ipar);
    *w.kept = 0; /* until this call's terms are all computed */
    if (!near) *w.solved = 0;
    int64_t st = state_of_motion(a, y, tau, &w, &k, &iterations, kept, *w.solved ? w.tf_rhs : NULL);
    if (st) return st;
    memcpy(w.q_kept, y, (size_t)n * sizeof(double));
    memcpy(w.qd_kept, qd, (size_t)n * sizeof(double));
    *w.kept = 1;
    if (!near) memcpy(w.tf_rhs, w.tf, JOURNALS * sizeof(double)), *w.solved = 1;
    double res = fj_spatial_resistance(tau, fpar, ipar, y[n]), applied = tau[0] - res;
    double P_friction = 0.0, P_damping = structural_power(qd, fpar, ipar);
    for (int64_t j = 0; j < JOURNALS; j++) P_friction += w.tf[j] * qd[J[j]];
    P_friction = -P_friction;
    if (in_contact(a)) P_friction += k.P_friction, P_damping += k.P_damping;
    for (int64_t i = 0; i < n; i++) dy[i] = qd[i], dy[n + i] = w.s.qdd[i];
    dy[2 * n] = applied * qd[0], dy[2 * n + 1] = -res * qd[0];
    dy[2 * n + 2] = P_friction, dy[2 * n + 3] = P_damping;
    int finite = 1;
    for (int64_t i = 0; i < n_out; i++) finite &= isfinite(dy[i]) != 0;
    if (!finite)
        for (int64_t i = 0; i < n_out; i++) dy[i] = NAN;
    return FJ_OK;
}

static int64_t rhs(const fj_args *a, double t, const double *y, const double *tau, double *dy, int64_t n_out) {
    (void)t;
    return rates(a, y, tau, dy, n_out, 0);
}

/* rhs (fj_family.rhs_near) next to the state of the last rhs call, cheaper: the Jacobian's velocity columns
 * (fj_rodas.h) keep q, and the terms of q alone (frames, mass matrix, closure Jacobian, the LU of eq. (2), the
 * reactions' map of unit friction torques) are those of the last call, as are the terms of the chain whose q and
 * qd a column keeps (its bias, its point's acceleration), the same numbers; the coupling's Newton
 * solve starts from the last rhs's solution, so that it ends within its tolerance in fewer passes (1.4 Newton
 * steps instead of 3.4 over the planar clearance's run, docs/performance.md). */
static int64_t rhs_near(const fj_args *a, double t, const double *y, const double *tau, double *dy, int64_t n_out) {
    (void)t;
    return rates(a, y, tau, dy, n_out, 1);
}

/* The mode's event (contact.modes.contact_events): delta - level, `impact` in FREE, `separation` in
 * contact; none without a clearance. */
static int64_t events(const fj_args *a, double t, const double *y, const double *tau, double *g, int64_t n_out) {
    (void)t, (void)tau, (void)n_out;
    if (block(a->ipar)[CI_MODEL] == MODEL_NONE) return FJ_OK;
    double level = a->fmode[FM_LEVEL];
    double delta = penetration(y, a->fpar, a->ipar);
    g[0] = level == 0.0 ? delta : delta - level;
    return FJ_OK;
}

/* ClearanceRSRRRSystem.record, flat (clearance_packing.record_layout). */
static int64_t record(const fj_args *a, double t, const double *y, const double *tau, double *out, int64_t n_out) {
    const double *fpar = a->fpar;
    const int64_t *ipar = a->ipar;
    int64_t n = n_of(ipar), iterations, o = 0;
    const int64_t *cb = block(ipar), *J = cb + CI_JOINTS;
    const double *q = y, *qd = y + n;
    double e_kin, e_pot;
    (void)t, (void)n_out;
    cwork w;
    contact k = {0};
    work_of(a, &w);
    int64_t st = state_of_motion(a, y, tau, &w, &k, &iterations, 0, NULL);
    if (st) return st;
    int touching = in_contact(a), clearance = cb[CI_MODEL] != MODEL_NONE;
    for (int64_t j = 0; j < JOURNALS; j++) out[o++] = q[J[j]];
    for (int64_t j = 0; j < JOURNALS; j++) out[o++] = qd[J[j]];
    for (int64_t j = 0; j < JOURNALS; j++) out[o++] = w.s.qdd[J[j]];
    for (int a3 = 0; a3 < 3; a3++) out[o++] = w.s.fS[a3];
    for (int64_t i = 0; i < 3 * JOURNALS; i++) out[o++] = w.fO[i];
    for (int64_t i = 0; i < 3 * JOURNALS; i++) out[o++] = w.nO[i];
    for (int64_t j = 0; j < JOURNALS; j++) out[o++] = w.tf[j];
    out[o++] = (double)iterations;
    out[o++] = 0.0; /* stuck: never */
    out[o++] = tau[0];
    out[o++] = fj_spatial_resistance(tau, fpar, ipar, y[n]);
    fj_spatial_energy(q, qd, fpar, ipar, &w.s, &e_kin, &e_pot);
    out[o++] = e_kin, out[o++] = e_pot;
    for (int i = 0; i < 3; i++) out[o++] = y[2 * n + i]; /* W_drive, W_res, W_friction */
    out[o++] = fj_spatial_closure(q, fpar, ipar, &w.s);
    /* the spatial family's record ends here (spatial.packing.record_layout), this family's entries follow */
    out[o++] = y[2 * n + 3]; /* W_dissipated */
    double E_contact = touching ? k.E_el : 0.0, E_strain = strain_energy(q, fpar, ipar);
    out[o++] = clearance ? k.e : 0.0;
    out[o++] = clearance ? k.delta : 0.0;
    out[o++] = touching ? k.F : 0.0;
    out[o++] = touching ? 1.0 : 0.0;
    out[o++] = E_contact, out[o++] = E_strain, out[o++] = E_contact + E_strain;
    for (int64_t i = 0; i < n; i++) out[o++] = q[i];
    for (int64_t i = 0; i < n; i++) out[o++] = qd[i];
    return FJ_OK;
}

static void work_size(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar, int64_t *n_work,
                      int64_t *n_iwork) {
    cwork w;
    (void)fpar, (void)n_fpar;
    *n_work = 0, *n_iwork = 0;
    if (n_ipar < HEADER) return;
    layout(&w, NULL, NULL, ipar, n_work, n_iwork);
}

static const char *message(int64_t status) {
    switch (status) {
    case ST_K_SINGULAR: return "the matrix of seed 002 eq. (2) is singular (the closure Jacobian G has lost rank)";
    case ST_COUPLING: return "the reaction-friction coupling did not converge";
    case ST_FRAME_SINGULAR: return "a joint-axis frame M_i has no inverse (trace formulation)";
    case ST_NO_SOLUTION: return FJ_SPATIAL_NO_SOLUTION;
    case ST_SKEW: return "the journal and bearing axes must be within 60 deg of each other (u_J . u_B > 0.5)";
    default: return "unknown status";
    }
}

/* ==================================================================================================
 * The mode decisions (ClearanceRSRRRSystem.update, contact.modes.contact_update)
 * ================================================================================================== */

static void mode_layout(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                        fj_mode_layout *layout) {
    (void)fpar, (void)n_fpar;
    layout->n_fmode = 2, layout->n_imode = 1;
    layout->max_events = n_ipar > HEADER && block(ipar)[CI_MODEL] != MODEL_NONE ? 1 : 0;
    layout->n_change = 1;
}

/* `impact` (rising) in FREE, `separation` (falling) in contact; they watch every decision. */
static int64_t mode_events(const fj_args *a, int64_t *directions, int64_t *flags, int64_t *watch_all) {
    *watch_all = 1;
    if (block(a->ipar)[CI_MODEL] == MODEL_NONE) return 0;
    directions[0] = in_contact(a) ? -1 : 1;
    flags[0] = 0;
    return 1;
}

/* contact_update: at the start a contact with delta > 0, else FREE; an impact with deltad > 0 starts a
 * contact at deltad0 = max(deltad, deltad0_min) and level min(delta, 0); a separation with deltad < 0 frees
 * the journal at level max(delta, 0); anything else (a graze, a time event) keeps the mode. change[0]: the
 * kind (KIND_*). */
static int64_t decide(const fj_args *a, double t, double *y, const double *tau, int64_t event, double *fmode,
                      int64_t *imode, int64_t *change) {
    const double *fpar = a->fpar;
    const int64_t *ipar = a->ipar;
    int64_t n = n_of(ipar);
    (void)t, (void)tau;
    int has_mode = event != FJ_START;
    double deltad0 = has_mode ? a->fmode[FM_DELTAD0] : 0.0, level = has_mode ? a->fmode[FM_LEVEL] : 0.0;
    int64_t touching = has_mode ? a->imode[0] : 0, kind = KIND_NONE;
    if (block(ipar)[CI_MODEL] != MODEL_NONE) {
        double d0_min = cblock(fpar, ipar)[CF_DELTAD0_MIN];
        contact k;
        int64_t st = joint_contact(y, y + n, 1.0, fpar, ipar, &k);
        if (st) return st;
        if (!has_mode) {
            if (k.delta > 0) touching = 1, deltad0 = max2(k.deltad, d0_min), level = 0.0, kind = KIND_IMPACT;
        } else if (event >= 0 && !touching && k.deltad > 0) {
            touching = 1, deltad0 = max2(k.deltad, d0_min), level = k.delta < 0.0 ? k.delta : 0.0;
            kind = KIND_IMPACT;
        } else if (event >= 0 && touching && k.deltad < 0) {
            touching = 0, deltad0 = 0.0, level = max2(k.delta, 0.0), kind = KIND_SEPARATION;
        }
    }
    fmode[FM_DELTAD0] = deltad0, fmode[FM_LEVEL] = level;
    imode[0] = touching;
    change[0] = kind;
    return FJ_OK;
}

/* The work integrals W_drive, W_res, W_friction, W_dissipated at y[2n:2n + 4], which no right-hand side reads. */
static void integrals(const fj_args *a, int64_t *first, int64_t *count) {
    *first = 2 * n_of(a->ipar), *count = 4;
}

const fj_family fj_family_spatial_clearance = {"spatial_clearance", rhs, events, record, work_size, message,
                                               mode_layout, mode_events, decide, &fj_rodas, integrals, rhs_near};
