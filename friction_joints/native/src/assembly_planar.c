/* assembly_planar.c: the assemblies (fj_assembly.h) of the planar mechanisms of the FMUs SliderCrank,
 * OffsetSliderCrank (seed 000 Sect. 6, Examples 2 and 1; DupontTwoMass's is assembly_dupont.c): the FMU's
 * parameters checked as mechanisms/slider_crank.py checks them (its messages), the mechanism described as
 * fj_planar_model's arrays (planar_mechanism.h) as that file builds its PlanarModel and MinimalForm, packed by the
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

#include "fj_assembly.h"
#include "fj_bristle_laws.h"
#include "fj_kernel.h"
#include "planar_joints.h"
#include "planar_mechanism.h"

#define PI 3.14159265358979323846
enum { N_BRISTLE = 6, N_CONTACTS = 4 }; /* a crank's bristle parameters (after friction_model); its contacts */

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
static void crank(fj_mechanism *mech, const double a[2], double b3, double g3, double theta_0, const double *f) {
    const double pa1[2] = {-a[0], 0.0}, pb1[2] = {a[0], 0.0}, pa2[2] = {-a[1], 0.0}, pb2[2] = {a[1], 0.0};
    const double p3[2] = {b3, 0.0}, guide[2] = {g3, 0.0};
    double r = f[0], mu_rs = f[1], mu_rk = f[2], mu_ts = f[3], mu_tk = f[4];
    fj_mechanism_joint(mech, REVOLUTE, 1, 0, pa1, FJ_ORIGIN, FJ_E_X, 0.0, r, 1, mu_rs, mu_rk); /* O */
    fj_mechanism_joint(mech, REVOLUTE, 2, 1, pa2, pb1, FJ_E_X, 0.0, r, 1, mu_rs, mu_rk);    /* A */
    fj_mechanism_joint(mech, REVOLUTE, 3, 2, p3, pb2, FJ_E_X, 0.0, r, 1, mu_rs, mu_rk);     /* B */
    fj_mechanism_joint(mech, PRISMATIC, 3, 0, guide, FJ_ORIGIN, FJ_E_X, theta_0, 0.0, 1, mu_ts, mu_tk);
    fj_mechanism_drive(mech, 1, 0.0, 0.0, 1.0);
    fj_mechanism_tree(mech, 0, 2), fj_mechanism_tree(mech, 1, 2), fj_mechanism_tree(mech, 3, 0);
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
static int64_t crank_end(const fj_assembly *self, const fj_assembly *exact, fj_mechanism *mech, const double *q,
                         const double *u, const double *f, const double *b, double *fpar, int64_t *ipar, double *y0,
                         fj_problems *pr) {
    int bristle = self != exact;
    mech->regularised = bristle;
    fj_mechanism_assemble(exact, mech, q, u, fpar, ipar, y0, pr);
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
    fj_mechanism mech = {0};
    fj_mechanism_body(&mech, 0, p[0], p[2]), fj_mechanism_body(&mech, 1, p[3], p[5]), fj_mechanism_body(&mech, 2, p[6], 0.0);
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
    fj_mechanism mech = {0};
    fj_mechanism_body(&mech, 0, p[0], p[2]), fj_mechanism_body(&mech, 1, p[3], p[5]), fj_mechanism_body(&mech, 2, p[6], p[8]);
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
