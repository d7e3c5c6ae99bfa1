/* assembly_planar.c: the assemblies (fj_assembly.h) of the planar mechanisms of the FMUs SliderCrank,
 * OffsetSliderCrank (seed 000 Sect. 6, Examples 2 and 1) and DupontTwoMass (seed 000 Sect. 3): the FMU's
 * parameters checked as mechanisms/slider_crank.py and dupont.py check them (their messages), the mechanism
 * described as fj_planar_model's arrays as those files build its PlanarModel and MinimalForm, packed by the
 * family's one packer (fj_planar_pack), and the initial state y0 = [q, u, W_drive, W_friction]
 * (planar.system.MechanismSystem) with q the mechanism's guess projected onto the closing constraints
 * (Mechanism.assemble: fj_planar_project).
 *
 * The slider-cranks with bristle friction (the FMUs' friction_model 1-4: SliderCrankBristle,
 * OffsetSliderCrankBristle, family "planar_bristle", planar_bristle.c): the exact assembly's parameters, then
 * the bristle laws' sigma0, sigma1, sigma2, v_s, delta, z_ba_ratio (one value for every joint); fpar = the
 * mechanism's packed as for planar.bristle.BristleSystem (planar/bristle_packing.py: its single mode), then a law
 * row per joint (fj_bristle_law, as planar.bristle.contact_laws makes it: the model friction_model, mu_c and
 * mu_s the joint's kinetic and static coefficients); y0 = [q, u, zeta = 0 (4), W_drive, W_friction].
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fj_assembly.h"
#include "fj_bristle_laws.h"
#include "fj_kernel.h"
#include "planar_internal.h"
#include "planar_joints.h"

#define PI 3.14159265358979323846
enum { MAX_BODIES = 3, MAX_JOINTS = 4, MAX_DRIVES = 2 }; /* each joint here has one free coordinate */
enum { N_BRISTLE = 6, N_CONTACTS = 4 }; /* a crank's bristle parameters (after friction_model); its contacts */

/* A mechanism as fj_planar_model's arrays (planar_internal.h), filled by the functions below. */
typedef struct mechanism {
    double bodies[MAX_BODIES][5];
    int64_t joint_types[MAX_JOINTS][3];
    double joints[MAX_JOINTS][JF_WIDTH];
    int64_t law_kinds[MAX_JOINTS];
    double laws[MAX_JOINTS][LAW_WIDTH];
    int64_t drive_bodies[MAX_DRIVES];
    double drives[MAX_DRIVES][3];
    double gravity[2];
    int64_t tree[MAX_BODIES][2];
    int64_t partition[MAX_BODIES];
    int64_t n_bodies, n_joints, n_drives, n_tree, regularised; /* regularised: packed as a single mode */
} mechanism;

/* Body i (0-based; planar.Body(name, m, J), no applied load). */
static void body(mechanism *mech, int i, double m, double J) {
    const double row[5] = {m, J, 0.0, 0.0, 0.0};
    memcpy(mech->bodies[i], row, sizeof row);
    mech->n_bodies = i + 1 > mech->n_bodies ? i + 1 : mech->n_bodies;
}

/* The next joint: type, bodies, p_i, p_j, e_j, theta_0, friction arm r, and a Coulomb law (mu_s, mu_k), or none
 * (frictional 0). */
static void joint(mechanism *mech, int64_t type, int64_t body_i, int64_t body_j, const double p_i[2],
                  const double p_j[2], const double e_j[2], double theta_0, double r, int frictional, double mu_s,
                  double mu_k) {
    int64_t j = mech->n_joints++;
    const int64_t kinds[3] = {type, body_i, body_j};
    const double row[JF_WIDTH] = {p_i[0], p_i[1], p_j[0], p_j[1], e_j[0], e_j[1], theta_0, r, 0.0};
    const double law[LAW_WIDTH] = {frictional ? mu_s : 0.0, frictional ? mu_k : 0.0, 0.0, 0.0};
    memcpy(mech->joint_types[j], kinds, sizeof kinds);
    memcpy(mech->joints[j], row, sizeof row);
    memcpy(mech->laws[j], law, sizeof law);
    mech->law_kinds[j] = frictional ? COULOMB : NO_LAW;
}

/* The next drive: generalized force (Fx, Fy, M) per unit input on body (planar.BodyLoad). */
static void drive(mechanism *mech, int64_t on, double fx, double fy, double moment) {
    int64_t i = mech->n_drives++;
    mech->drive_bodies[i] = on;
    mech->drives[i][0] = fx, mech->drives[i][1] = fy, mech->drives[i][2] = moment;
}

/* The next tree joint and its coordinate's axis (0 x, 1 y, 2 theta: planar.MinimalForm's tree). */
static void tree(mechanism *mech, int64_t j, int64_t axis) {
    int64_t t = mech->n_tree++;
    mech->tree[t][0] = j, mech->tree[t][1] = axis;
}

static const double ORIGIN[2] = {0.0, 0.0}, E_X[2] = {1.0, 0.0}, E_Y[2] = {0.0, 1.0};

/* fpar, ipar of the mechanism and y0 (fj_planar_assemble), the failure of its projection named after the model. */
static void pack_and_project(const fj_assembly *self, const mechanism *mech, const double *q_guess, const double *u,
                             double *fpar, int64_t *ipar, double *y0, fj_problems *pr) {
    const fj_planar_model d = {mech->n_bodies, mech->n_joints, mech->n_drives, mech->n_tree, mech->regularised,
                               &mech->bodies[0][0], &mech->joint_types[0][0], &mech->joints[0][0], mech->law_kinds,
                               &mech->laws[0][0], mech->drive_bodies, &mech->drives[0][0], mech->gravity,
                               &mech->tree[0][0], mech->partition};
    char where[64];
    snprintf(where, sizeof where, "%s: ", self->model);
    fj_planar_assemble(self, &d, q_guess, u, where, NULL, fpar, ipar, y0, pr);
}

/* ==================================================================================================
 * The slider-cranks of seed 000 Sect. 6 (mechanisms/slider_crank.py)
 * ================================================================================================== */

/* _links: m_i >= 0, a_i > 0, J_i >= 0 of the n links whose (m, a, J) are p[3 i ...]. */
static void check_links(fj_problems *pr, const double *p, int n) {
    static const char *const names[][3] = {{"m1", "a1", "J1"}, {"m2", "a2", "J2"}, {"m3", "a3", "J3"}};
    for (int i = 0; i < n; i++) {
        fj_require(pr, names[i][0], p[3 * i], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
        fj_require(pr, names[i][1], p[3 * i + 1], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
        fj_require(pr, names[i][2], p[3 * i + 2], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    }
}

/* g, then _laws: r > 0, each static coefficient >= 0 and its kinetic one in [0, static]; then the FMU's
 * friction_model and initial state (p: r, mu_rs, mu_rk, mu_ts, mu_tk, g, q1_start, u_start, friction_model).
 * bristle: in the exact assembly, the crank's bristle assembly (friction_model must be 0: it runs the others);
 * NULL in the bristle assembly (crank_laws checks friction_model). */
static void check_crank(fj_problems *pr, const double *p, const fj_assembly *bristle) {
    fj_require_finite(pr, "g", p[5]);
    fj_require(pr, "r", p[0], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "mu_rs", p[1], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "mu_rk", p[2], FJ_CLOSED, 0.0, FJ_CLOSED, p[1]);
    fj_require(pr, "mu_ts", p[3], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "mu_tk", p[4], FJ_CLOSED, 0.0, FJ_CLOSED, p[3]);
    if (bristle != NULL) fj_require_exact_friction(pr, p[8], bristle->model);
    fj_require_finite(pr, "q1_start", p[6]);
    fj_require_finite(pr, "u_start", p[7]);
}

/* The three revolute joints O, A, B with Coulomb friction (mu_rs, mu_rk) and arm r, the prismatic guide of
 * body 3 with (mu_ts, mu_tk) (seed 000 Figs. 5, 7): link i of half length a_i has its joints at (-a_i, 0)
 * and (a_i, 0); B is at (b3, 0) of body 3, the guide's point at (g3, 0) with theta_3 = theta_0. Drive: tau on
 * link 1 (eq. 6.1). Tree O, A, guide: q = [theta_1, theta_2, x_3], u = q_1 (eq. 6.4). */
static void crank(mechanism *mech, const double a[2], double b3, double g3, double theta_0, const double *f) {
    const double pa1[2] = {-a[0], 0.0}, pb1[2] = {a[0], 0.0}, pa2[2] = {-a[1], 0.0}, pb2[2] = {a[1], 0.0};
    const double p3[2] = {b3, 0.0}, guide[2] = {g3, 0.0};
    double r = f[0], mu_rs = f[1], mu_rk = f[2], mu_ts = f[3], mu_tk = f[4];
    joint(mech, REVOLUTE, 1, 0, pa1, ORIGIN, E_X, 0.0, r, 1, mu_rs, mu_rk); /* O */
    joint(mech, REVOLUTE, 2, 1, pa2, pb1, E_X, 0.0, r, 1, mu_rs, mu_rk);    /* A */
    joint(mech, REVOLUTE, 3, 2, p3, pb2, E_X, 0.0, r, 1, mu_rs, mu_rk);     /* B */
    joint(mech, PRISMATIC, 3, 0, guide, ORIGIN, E_X, theta_0, 0.0, 1, mu_ts, mu_tk);
    drive(mech, 1, 0.0, 0.0, 1.0);
    tree(mech, 0, 2), tree(mech, 1, 2), tree(mech, 3, 0);
    mech->partition[0] = 0;
}

/* q from the crank angle q1 (the guide's closing constraint, seed 000 (6.6)): 2 a1 sin q1 + 2 a2 sin q2 =
 * 2 c, x3 = 2 a1 cos q1 + 2 a2 cos q2; a problem if the links cannot reach (the guess of slider_crank.py). */
static int crank_guess(const fj_assembly *self, double a1, double a2, double c, double q1, double *q,
                       fj_problems *pr) {
    q[0] = q1;
    q[1] = asin((c - a1 * sin(q1)) / a2);
    q[2] = 2 * a1 * cos(q1) + 2 * a2 * cos(q[1]);
    if (isfinite(q[1]) && isfinite(q[2])) return 1;
    char shown[40];
    fj_repr(q1, shown, sizeof shown);
    fj_problem(pr, "%s cannot be assembled at th1 = [%s]: check the link lengths", self->model, shown);
    return 0;
}

/* The law rows of the crank's contacts O, A, B, guide (fj_bristle_laws.h, into laws: N_CONTACTS rows) as
 * planar.bristle.contact_laws makes them (make_law per contact, in order, raising at the first contact's
 * problems): the model friction_model, mu_c and mu_s the kinetic and static coefficients of the joint (mu_rk,
 * mu_rs; the guide's mu_tk, mu_ts), the bristle parameters b (sigma0, sigma1, sigma2, v_s, delta, z_ba_ratio).
 * f: as check_crank's p. */
static void crank_laws(fj_problems *pr, const double *f, const double *b, double *laws) {
    for (int j = 0; j < N_CONTACTS && pr->count == 0; j++) {
        int guide = j == N_CONTACTS - 1;
        const double given[FJ_BRISTLE_LAW_SIZE] = {f[8], b[0], b[1], b[2], f[guide ? 4 : 2], f[guide ? 3 : 1],
                                                   b[3], b[4], b[5]};
        fj_bristle_law(pr, "friction_model", given, laws + j * FJ_BRISTLE_LAW_SIZE);
    }
}

/* The end of a crank's assembly self (the exact one, or its bristle one) of its checked mechanism, q and u:
 * packed and projected as the exact assembly `exact` does it (its sizes and messages: the same build), and for
 * the bristle assembly packed as a single mode (planar/bristle_packing.py), then the law rows of f (check_crank's
 * p) and b (crank_laws) after the mechanism's fpar and y0's zeta 0 before the works. */
static int64_t crank_end(const fj_assembly *self, const fj_assembly *exact, mechanism *mech, const double *q,
                         const double *u, const double *f, const double *b, double *fpar, int64_t *ipar, double *y0,
                         fj_problems *pr) {
    int bristle = self != exact;
    mech->regularised = bristle;
    pack_and_project(exact, mech, q, u, fpar, ipar, y0, pr);
    if (!bristle || pr->count) return pr->count;
    crank_laws(pr, f, b, fpar + exact->n_fpar);
    for (int64_t i = exact->n_y - 2; i < self->n_y; i++) y0[i] = 0.0; /* zeta, W_drive, W_friction */
    return pr->count;
}

/* SliderCrank (slider_crank(m, a, J, r, mu_rs, mu_rk, mu_ts, mu_tk, g, m3=m3), fmu_src/SliderCrank.py):
 * crank OA, rod AB, a slider of mass m3 at B on the x axis, gravity +x. The exact assembly's parameters are
 * the first FJ_COUNT(SLIDER_NAMES) - N_BRISTLE. */
static const char *const SLIDER_NAMES[] = {"m1",       "a1",      "J1",    "m2",     "a2",     "J2",
                                           "m3",       "r",       "mu_rs", "mu_rk",  "mu_ts",  "mu_tk",
                                           "g",        "q1_start", "u_start", "friction_model", "sigma0", "sigma1",
                                           "sigma2",   "v_s",     "delta", "z_ba_ratio"};

/* The assembly self (SliderCrank or SliderCrankBristle) of the parameters p (SLIDER_NAMES). */
static int64_t slider_crank_of(const fj_assembly *self, const double *p, double *fpar, int64_t *ipar, double *y0,
                               char *error, size_t n_error) {
    const fj_assembly *exact = &fj_assembly_SliderCrank;
    fj_problems pr = fj_no_problems(error, n_error);
    fj_require(&pr, "m3", p[6], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    check_links(&pr, p, 2);
    check_crank(&pr, p + 7, self == exact ? &fj_assembly_SliderCrankBristle : NULL);
    double q[3];
    if (pr.count || !crank_guess(exact, p[1], p[4], 0.0, p[13], q, &pr)) return pr.count;
    mechanism mech = {0};
    body(&mech, 0, p[0], p[2]), body(&mech, 1, p[3], p[5]), body(&mech, 2, p[6], 0.0);
    mech.gravity[0] = p[12], mech.gravity[1] = 0.0;
    crank(&mech, (const double[2]){p[1], p[4]}, 0.0, 0.0, 0.0, p + 7);
    return crank_end(self, exact, &mech, q, p + 14, p + 7, p + 16, fpar, ipar, y0, &pr);
}

static int64_t slider_assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error,
                               size_t n_error) {
    return slider_crank_of(&fj_assembly_SliderCrank, p, fpar, ipar, y0, error, n_error);
}

static int64_t slider_bristle_assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error,
                                       size_t n_error) {
    return slider_crank_of(&fj_assembly_SliderCrankBristle, p, fpar, ipar, y0, error, n_error);
}

/* OffsetSliderCrank (offset_slider_crank(m, a, J, r, mu_rs, mu_rk, mu_ts, mu_tk, g)): link 3 hangs from B,
 * kept at theta_3 = -pi/2 by the guide on the x axis 2 a3 below B, gravity -y. The exact assembly's parameters
 * are the first FJ_COUNT(OFFSET_NAMES) - N_BRISTLE. */
static const char *const OFFSET_NAMES[] = {"m1", "a1", "J1",    "m2",    "a2",    "J2",    "m3", "a3",       "J3",
                                           "r",  "mu_rs", "mu_rk", "mu_ts", "mu_tk", "g", "q1_start", "u_start",
                                           "friction_model", "sigma0", "sigma1", "sigma2", "v_s", "delta",
                                           "z_ba_ratio"};

/* The assembly self (OffsetSliderCrank or OffsetSliderCrankBristle) of the parameters p (OFFSET_NAMES). */
static int64_t offset_crank_of(const fj_assembly *self, const double *p, double *fpar, int64_t *ipar, double *y0,
                               char *error, size_t n_error) {
    const fj_assembly *exact = &fj_assembly_OffsetSliderCrank;
    fj_problems pr = fj_no_problems(error, n_error);
    check_links(&pr, p, 3);
    check_crank(&pr, p + 9, self == exact ? &fj_assembly_OffsetSliderCrankBristle : NULL);
    double q[3];
    if (pr.count || !crank_guess(exact, p[1], p[4], p[7], p[15], q, &pr)) return pr.count;
    mechanism mech = {0};
    body(&mech, 0, p[0], p[2]), body(&mech, 1, p[3], p[5]), body(&mech, 2, p[6], p[8]);
    mech.gravity[0] = 0.0, mech.gravity[1] = -p[14];
    crank(&mech, (const double[2]){p[1], p[4]}, -p[7], p[7], -PI / 2, p + 9);
    return crank_end(self, exact, &mech, q, p + 16, p + 9, p + 18, fpar, ipar, y0, &pr);
}

static int64_t offset_assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error,
                               size_t n_error) {
    return offset_crank_of(&fj_assembly_OffsetSliderCrank, p, fpar, ipar, y0, error, n_error);
}

static int64_t offset_bristle_assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error,
                                       size_t n_error) {
    return offset_crank_of(&fj_assembly_OffsetSliderCrankBristle, p, fpar, ipar, y0, error, n_error);
}

/* ==================================================================================================
 * Dupont's two-mass system (seed 000 Sect. 3, Fig. 4; mechanisms/dupont.py)
 * ================================================================================================== */

/* dupont_two_mass(m1, m2, mu_s, mu_k): m1 slides in a slot of m2 along x with Coulomb friction, m2 on a
 * frictionless guide along y; F1 on m1 along x, F2 on m2 along y; no gravity. Tree: the guide (y2), the
 * slot (x1): q = u = [y2, x1], y0 from x_start, xd_start (fmu_src/DupontTwoMass.py). */
static const char *const DUPONT_NAMES[] = {"m1", "m2", "mu_s", "mu_k", "x_start", "xd_start"};

static int64_t dupont_assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error,
                               size_t n_error) {
    fj_problems pr = fj_no_problems(error, n_error);
    fj_require(&pr, "m1", p[0], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(&pr, "m2", p[1], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    if (pr.count) return pr.count; /* dupont_two_mass checks the masses before the law */
    fj_require(&pr, "mu_s", p[2], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0); /* Coulomb.__post_init__ */
    fj_require(&pr, "mu_k", p[3], FJ_CLOSED, 0.0, p[2] >= 0.0 ? FJ_CLOSED : FJ_NO_BOUND, p[2]);
    fj_require_finite(&pr, "x_start", p[4]);
    fj_require_finite(&pr, "xd_start", p[5]);
    if (pr.count) return pr.count;
    mechanism mech = {0};
    body(&mech, 0, p[0], 0.0), body(&mech, 1, p[1], 0.0);
    joint(&mech, PRISMATIC, 1, 2, ORIGIN, ORIGIN, E_X, 0.0, 0.0, 1, p[2], p[3]); /* the slot */
    joint(&mech, PRISMATIC, 2, 0, ORIGIN, ORIGIN, E_Y, 0.0, 0.0, 0, 0.0, 0.0);   /* the guide */
    drive(&mech, 1, 1.0, 0.0, 0.0), drive(&mech, 2, 0.0, 1.0, 0.0);
    tree(&mech, 1, 1), tree(&mech, 0, 0);
    mech.partition[0] = 0, mech.partition[1] = 1;
    const double q[2] = {0.0, p[4]}, u[2] = {0.0, p[5]};
    pack_and_project(&fj_assembly_DupontTwoMass, &mech, q, u, fpar, ipar, y0, &pr);
    return pr.count;
}

/* ==================================================================================================
 * The assemblies (fj_assembly_find, assemblies.c, finds them by name)
 * ================================================================================================== */

/* model, family, parameters, n_fpar, n_ipar (fj_planar_pack's sizes of the mechanism), n_y = k1 + k + 2, n_tau,
 * n_record (planar.packing.record_layout: 3 k1 + 2 k + m + 3 l + n_tau + 5), assemble; the bristle assemblies:
 * n_fpar + N_CONTACTS law rows, n_y + N_CONTACTS (zeta), n_record + 2 N_CONTACTS (z, zdot: planar_bristle.c) */
enum { CRANK_FPAR = 88, CRANK_IPAR = 418, CRANK_Y = 6, CRANK_RECORD = 37 };
enum {
    CRANK_BRISTLE_FPAR = CRANK_FPAR + N_CONTACTS * FJ_BRISTLE_LAW_SIZE,
    CRANK_BRISTLE_Y = CRANK_Y + N_CONTACTS,
    CRANK_BRISTLE_RECORD = CRANK_RECORD + 2 * N_CONTACTS
};
const fj_assembly fj_assembly_SliderCrank = {"SliderCrank", "planar", FJ_COUNT(SLIDER_NAMES) - N_BRISTLE, SLIDER_NAMES,
                                             CRANK_FPAR, CRANK_IPAR, CRANK_Y, 1, CRANK_RECORD, slider_assemble};
const fj_assembly fj_assembly_SliderCrankBristle = {
    "SliderCrankBristle", "planar_bristle", FJ_COUNT(SLIDER_NAMES), SLIDER_NAMES, CRANK_BRISTLE_FPAR, CRANK_IPAR,
    CRANK_BRISTLE_Y,      1,                CRANK_BRISTLE_RECORD,   slider_bristle_assemble};
const fj_assembly fj_assembly_OffsetSliderCrank = {"OffsetSliderCrank", "planar", FJ_COUNT(OFFSET_NAMES) - N_BRISTLE,
                                                   OFFSET_NAMES, CRANK_FPAR, CRANK_IPAR, CRANK_Y, 1, CRANK_RECORD,
                                                   offset_assemble};
const fj_assembly fj_assembly_OffsetSliderCrankBristle = {
    "OffsetSliderCrankBristle", "planar_bristle", FJ_COUNT(OFFSET_NAMES), OFFSET_NAMES, CRANK_BRISTLE_FPAR,
    CRANK_IPAR,                 CRANK_BRISTLE_Y,  1,                      CRANK_BRISTLE_RECORD, offset_bristle_assemble};
const fj_assembly fj_assembly_DupontTwoMass = {"DupontTwoMass", "planar", FJ_COUNT(DUPONT_NAMES), DUPONT_NAMES, 56, 389,
                                               6, 2, 27, dupont_assemble};
