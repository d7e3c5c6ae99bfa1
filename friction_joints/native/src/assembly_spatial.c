/* assembly_spatial.c: the assemblies (fj_assembly.h) of the spatial RSRRR linkage of seed 002, family
 * "spatial" (spatial.c): its packed model (the layout of spatial/packing.py's docstring) and initial state
 * from its parameters, the one packer of the linkage.
 *
 *   "RSRRRSystem"   the parameters of spatial.system.RSRRRSystem: RSRRRParameters (lengths, rod, base of
 *                   chain 2, gravity, friction, Baumgarte, trace, the four JournalFriction), the form, the
 *                   stiction and the SpeedLoad; spatial/packing.py packs every compiled RSRRRSystem with it
 *   "RSRRRLinkage"  the parameters of the FMU fmu_src/RSRRRLinkage.py (the journals of Table 1 scaled by
 *                   mu_scale); the native FMU's. Its clearance joint (clearance > 0) and flexible link
 *                   (n_rfe > 0) run in the pythonfmu FMU only: refused; its bristle laws are RSRRRBristle's.
 *   "RSRRRBristle"  RSRRRLinkage's parameters, then the bristle laws' (sigma0, sigma1, sigma2, v_s, delta,
 *                   z_ba_ratio: FrictionModelSlave's), family "spatial_bristle" (spatial_bristle.c): the
 *                   FMU's friction_model 1-4, spatial.bristle.BristleRSRRRSystem. fpar = the linkage's, then a
 *                   law row per frictional surface (all 11 of Table 1: friction false or mu_scale 0 refused);
 *                   y0 = the linkage's, then zeta = sigma0 z (11) at each surface's steady deflection.
 *
 * The mechanism is rsrrr.RSRRR's (seed 002 Sect. 3): the driving link (1,1) about the global z axis, chain
 * 2 based at (0, -y0, z0) with the fixed transforms T~(2,1) = Trans(0, -y0, z0) P Rz, T~(2,2) = Trans(0, 0,
 * l21) X Rz, T~(2,3) = Trans(l22, 0, 0) Rz (eq. 1), solid rods of diameter d, gravity along -y. Every link's
 * A and the chains' bases are the identity, so c_J = c, I_J = I_c, A_parent B = B, base B = B, and the
 * point S in the last joint frame is r_S. The checks are those of the Python classes in the order the
 * system is built (JournalFriction, RSRRRParameters, SpeedLoad), with their messages. The initial state of
 * "RSRRRSystem" is the state given (the packer's caller has its own); the FMU's is
 * RSRRRSystem.initial_state: the loop closed by Newton from RSRRR.initial_position's guess (spatial.c's
 * closure), each angle wrapped into [-pi, pi), chain 2's rates the dependent ones. The equations the packed
 * model carries: the links' pseudo-inertias H of seed 002 eq. (2), the journals of eqs 4-7 (Table 1), the
 * Baumgarte constants of the closure (eq. 2's last row).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fj_assembly.h"
#include "fj_bristle_laws.h"
#include "fj_kernel.h"
#include "spatial_internal.h"

#define PI 3.14159265358979323846
#define N_JOINTS 4     /* RSRRR: chain 1 the driving link, chain 2 three links */
#define COUPLING_TOL 1e-12 /* N.m: RSRRR.COUPLING_TOL */
#define MAX_COUPLING 50    /* RSRRR.MAX_ITERATIONS */
#define HOLD_TOL 1e-12     /* RSRRRSystem.HOLD_TOL */
#define MAX_HOLD 100       /* RSRRRSystem.MAX_HOLD_ITERATIONS */
#define CONTINUATION_STEP 0.1 /* rad: rsrrr.CONTINUATION_STEP */
#define N_FPAR (N_JOINTS * LINK_WIDTH + 2 * CHAIN_WIDTH + 4 + N_JOINTS * JOURNAL_WIDTH + 3)
#define N_IPAR (HEADER + N_JOINTS)
#define N_Y (2 * N_JOINTS + 3) /* q, qd, W_drive, W_res, W_friction (RSRRRSystem) */
#define N_RECORD 53            /* spatial/packing.py record_size() */
#define SCRATCH 2048           /* doubles of spatial.c's scratch for 1 + 3 joints, at least (checked) */
#define ISCRATCH 64

/* RSRRRSystem's parameters, as the assemblies read them. */
typedef struct rsrrr {
    double l[N_JOINTS], d, density, y0, z0, g, alpha, beta; /* RSRRRParameters */
    int friction, trace;
    double journals[N_JOINTS][JOURNAL_WIDTH]; /* each joint's JournalFriction, in the order J_* */
    int minimal, stiction, load;              /* RSRRRSystem: form "minimal", stiction, a SpeedLoad */
    double t_0, psid_0, c;                    /* SpeedLoad */
} rsrrr;

/* ==================================================================================================
 * The checks (JournalFriction, RSRRRParameters, SpeedLoad.__post_init__)
 * ================================================================================================== */

static void check_journal(const double *j, fj_problems *pr) {
    fj_require(pr, "a_bar", j[J_A_BAR], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "d_A", j[J_D_A], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "d_B", j[J_D_B], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "d_C", j[J_D_C], FJ_CLOSED, j[J_D_A], FJ_NO_BOUND, 0.0);
    fj_require(pr, "mu_A", j[J_MU_A], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "mu_B", j[J_MU_B], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "mu_C", j[J_MU_C], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "mu_s_factor", j[J_MU_S], FJ_CLOSED, 1.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "k", j[J_K], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "psid_k", j[J_PSID_K], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
}

/* Each class's problems, the first class with one ending the checks (its ValueError ends Python's
 * construction of the system). */
static void check(const rsrrr *r, fj_problems *pr) {
    static const char *const lengths[N_JOINTS] = {"l[1]", "l[2]", "l[3]", "l[4]"};
    for (int j = 0; j < N_JOINTS && !pr->count; j++) check_journal(r->journals[j], pr);
    if (pr->count) return;
    for (int i = 0; i < N_JOINTS; i++) fj_require(pr, lengths[i], r->l[i], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "d", r->d, FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "density", r->density, FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "z0", r->z0, FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require_finite(pr, "y0", r->y0);
    fj_require(pr, "g", r->g, FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "alpha", r->alpha, FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "beta", r->beta, FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    if (pr->count) return;
    if (r->load) {
        fj_require(pr, "t_0", r->t_0, FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
        fj_require_finite(pr, "psid_0", r->psid_0);
        fj_require(pr, "c", r->c, FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    }
}

/* ==================================================================================================
 * The packed model (spatial/packing.py's layout)
 * ================================================================================================== */

/* The link block (LINK_WIDTH) of a solid rod of the length along the axis (0, 1, 2: x, y, z) of its frame,
 * joined by T~ = B Rz(psi) (rsrrr.rod, chain.Link); B: rotation R (row-major 3x3) and translation p;
 * root: a link on the base. */
static void pack_rod(const rsrrr *r, double length, int axis, const double *R, const double *p, int root,
                     double *f) {
    double m = r->density * PI * (r->d * r->d) / 4.0 * length;
    double c[3] = {0.0, 0.0, 0.0}, I[3];
    c[axis] = length / 2.0;
    for (int a = 0; a < 3; a++)
        I[a] = a == axis ? m * (r->d * r->d) / 8.0 : m * (length * length) / 12.0 + m * (r->d * r->d) / 16.0;
    double trace = I[0] + I[1] + I[2];
    for (int i = 0; i < LINK_WIDTH; i++) f[i] = 0.0;
    f[L_M] = m;
    for (int a = 0; a < 3; a++) {
        f[L_C + a] = f[L_CJ + a] = c[a];
        f[L_IC + 4 * a] = f[L_IJ + 4 * a] = I[a]; /* I_c diagonal */
        for (int b = 0; b < 3; b++) f[L_B + 4 * a + b] = R[3 * a + b];
        f[L_B + 4 * a + 3] = p[a];
        for (int b = 0; b < 3; b++) /* H = [tr(I_c)/2 E - I_c + m c c^T, m c; m c^T, m] (Link.H, seed 002 eq. 2) */
            f[L_H + 4 * a + b] = ((a == b ? 0.5 * trace : 0.0) - (a == b ? I[a] : 0.0)) + m * (c[a] * c[b]);
        f[L_H + 4 * a + 3] = f[L_H + 12 + a] = m * c[a];
    }
    f[L_B + 15] = 1.0;
    f[L_H + 15] = m;
    for (int a = 0; a < 4; a++) f[L_A + 5 * a] = 1.0; /* A = I */
    for (int i = 0; i < 16; i++) {
        f[L_AB + i] = f[L_B + i];            /* A_parent B, A_parent = I */
        f[L_MB + i] = root ? f[L_B + i] : 0.0; /* base B for a root link, base = I */
    }
}

/* The chain block (CHAIN_WIDTH): base I, gravity (0, -g, 0), S at r_S = (l, 0, 0) of the last link, tip =
 * r_S, the base acceleration of the Newton-Euler recursion -gravity. */
static void pack_chain(const rsrrr *r, double l_last, double *f) {
    for (int i = 0; i < CHAIN_WIDTH; i++) f[i] = 0.0;
    for (int a = 0; a < 4; a++) f[CH_BASE + 5 * a] = 1.0;
    const double gravity[3] = {0.0, -r->g, 0.0};
    for (int a = 0; a < 3; a++) f[CH_G + a] = gravity[a], f[CH_VD0 + a] = -gravity[a];
    f[CH_RS] = f[CH_TIP] = l_last;
}

static void pack(const rsrrr *r, double *fpar, int64_t *ipar) {
    static const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    static const double P_21[9] = {0, 1, 0, 0, 0, 1, 1, 0, 0}; /* rsrrr.P_21 */
    static const double X_22[9] = {1, 0, 0, 0, 0, 1, 0, -1, 0}; /* rsrrr.X_22 */
    const double zero[3] = {0.0, 0.0, 0.0}, base2[3] = {0.0, -r->y0, r->z0};
    const double at_21[3] = {0.0, 0.0, r->l[1]}, at_22[3] = {r->l[2], 0.0, 0.0};
    int64_t links = 0, chains = N_JOINTS * LINK_WIDTH, loop = chains + 2 * CHAIN_WIDTH, journals = loop + 4,
            load = journals + N_JOINTS * JOURNAL_WIDTH;
    pack_rod(r, r->l[0], 0, I3, zero, 1, fpar + links);                        /* (1,1) */
    pack_rod(r, r->l[1], 2, P_21, base2, 1, fpar + links + LINK_WIDTH);        /* (2,1) */
    pack_rod(r, r->l[2], 0, X_22, at_21, 0, fpar + links + 2 * LINK_WIDTH);    /* (2,2) */
    pack_rod(r, r->l[3], 0, I3, at_22, 0, fpar + links + 3 * LINK_WIDTH);      /* (2,3) */
    pack_chain(r, r->l[0], fpar + chains);
    pack_chain(r, r->l[3], fpar + chains + CHAIN_WIDTH);
    fpar[loop + LOOP_ALPHA] = r->alpha, fpar[loop + LOOP_BETA] = r->beta;
    fpar[loop + LOOP_COUPLING_TOL] = COUPLING_TOL, fpar[loop + LOOP_HOLD_TOL] = HOLD_TOL;
    for (int j = 0; j < N_JOINTS; j++)
        for (int k = 0; k < JOURNAL_WIDTH; k++) fpar[journals + JOURNAL_WIDTH * j + k] = r->journals[j][k];
    fpar[load + LOAD_T0] = r->load ? r->t_0 : 0.0;
    fpar[load + LOAD_PSID0] = r->load ? r->psid_0 : 0.0;
    fpar[load + LOAD_C] = r->load ? r->c : 0.0;
    const int64_t header[HEADER] = {1, 3, r->minimal ? FORM_MINIMAL : FORM_CUT, r->trace, r->friction, r->stiction,
                                    r->load ? SPEED_LOAD : NO_LOAD, MAX_COUPLING, MAX_HOLD, HEADER, links, chains,
                                    loop, journals, load};
    for (int i = 0; i < HEADER; i++) ipar[i] = header[i];
    const int64_t parents[N_JOINTS] = {-1, -1, 0, 1}; /* chain 1: the base; chain 2: serial */
    for (int i = 0; i < N_JOINTS; i++) ipar[HEADER + i] = parents[i];
}

/* ==================================================================================================
 * The initial state (RSRRRSystem.initial_state)
 * ================================================================================================== */

/* x % m as numpy's remainder (the sign of m; +0.0 for an exact multiple). */
static double remainder_of(double x, double m) {
    double r = fmod(x, m);
    if (r == 0.0) return copysign(0.0, m);
    return (m < 0.0) != (r < 0.0) ? r + m : r;
}

/* y (N_Y): q as RSRRR.initial_position closes it, on the branch of the reference pose: closed at psi11 =
 * pi/2 from the guess [pi/2, 0, -0.7, -2.3], then followed to psi11 (modulo a turn) in steps of at most
 * CONTINUATION_STEP, each closed by Newton from the last, and wrapped by (q + pi) % 2 pi - pi; qd its
 * dependent rates of psid11, no work done; a problem naming psi1_start if the loop does not close. */
static void initial_state(double psi11, double psid11, const double *fpar, const int64_t *ipar, double *y,
                          fj_problems *pr) {
    double scratch[SCRATCH], q[N_JOINTS];
    int64_t iscratch[ISCRATCH], n_work, n_iwork;
    fj_family_spatial.work_size(fpar, N_FPAR, ipar, N_IPAR, &n_work, &n_iwork);
    if (n_work > SCRATCH || n_iwork > ISCRATCH) {
        fj_problem(pr, "the spatial family needs %lld + %lld scratch entries, the assembly has %d + %d",
                   (long long)n_work, (long long)n_iwork, SCRATCH, ISCRATCH);
        return;
    }
    double guess[N_JOINTS] = {PI / 2.0, 0.0, -0.7, -2.3};
    int64_t status = fj_spatial_close(fpar, N_FPAR, ipar, N_IPAR, guess, scratch, iscratch, q);
    double turn = remainder(psi11 - PI / 2.0, 2.0 * PI);
    int n = (int)ceil(fabs(turn) / CONTINUATION_STEP);
    for (int k = 1; k <= n && !status; k++) {
        for (int i = 0; i < N_JOINTS; i++) guess[i] = q[i];
        guess[0] = PI / 2.0 + turn * k / n;
        status = fj_spatial_close(fpar, N_FPAR, ipar, N_IPAR, guess, scratch, iscratch, q);
    }
    for (int i = 0; i < N_JOINTS && !status; i++) y[i] = remainder_of(q[i] + PI, 2.0 * PI) - PI;
    if (!status)
        status = fj_spatial_dependent_velocities(fpar, N_FPAR, ipar, N_IPAR, y, &psid11, scratch, iscratch,
                                                 y + N_JOINTS);
    if (status) {
        char shown[40];
        fj_repr(psi11, shown, sizeof shown);
        fj_problem(pr, "psi1_start=%s: no initial state, %s (chain 2 cannot reach the driving link's end S)", shown,
                   fj_family_spatial.message(status));
        return;
    }
    for (int i = 2 * N_JOINTS; i < N_Y; i++) y[i] = 0.0;
}

/* The checks and the packed model of r; the number of problems. */
static int64_t assemble_rsrrr(const rsrrr *r, fj_problems *pr, double *fpar, int64_t *ipar) {
    check(r, pr);
    if (!pr->count) pack(r, fpar, ipar);
    return pr->count;
}

/* ==================================================================================================
 * "RSRRRSystem": RSRRRParameters, the journals, the system's options
 * ================================================================================================== */

#define JOURNAL_NAMES(j)                                                                                           \
    "a_bar[" #j "]", "d_A[" #j "]", "d_B[" #j "]", "d_C[" #j "]", "mu_A[" #j "]", "mu_B[" #j "]", "mu_C[" #j "]",   \
        "k[" #j "]", "psid_k[" #j "]", "mu_s_factor[" #j "]"
/* journal j's parameters (their order is J_*'s); form: 0 cut, 1 minimal; load: 1 a SpeedLoad (t_0, psid_0,
 * c), 0 none; booleans: 0 false, else true; then the initial state as given (q, qd: RSRRRSystem's state) */
static const char *const SYSTEM_NAMES[] = {
    "l[1]", "l[2]", "l[3]", "l[4]", "d", "density", "y0", "z0", "g", "alpha", "beta", "friction", "trace",
    JOURNAL_NAMES(1), JOURNAL_NAMES(2), JOURNAL_NAMES(3), JOURNAL_NAMES(4),
    "form", "stiction", "load", "t_0", "psid_0", "c",
    "psi[1]", "psi[2]", "psi[3]", "psi[4]", "psid[1]", "psid[2]", "psid[3]", "psid[4]"};
enum { SY_L, SY_D = 4, SY_DENSITY, SY_Y0, SY_Z0, SY_G, SY_ALPHA, SY_BETA, SY_FRICTION, SY_TRACE, SY_JOURNALS,
       SY_FORM = SY_JOURNALS + N_JOINTS * JOURNAL_WIDTH, SY_STICTION, SY_LOAD, SY_T0, SY_PSID0, SY_C, SY_STATE };

static int64_t system_assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error,
                               size_t n_error) {
    fj_problems pr = fj_no_problems(error, n_error);
    if (p[SY_FORM] != 0.0 && p[SY_FORM] != 1.0) /* RSRRRSystem.__init__'s check */
        fj_problem(&pr, "form=%g must be 0 (cut) or 1 (minimal)", p[SY_FORM]);
    rsrrr r = {{p[SY_L], p[SY_L + 1], p[SY_L + 2], p[SY_L + 3]}, p[SY_D], p[SY_DENSITY], p[SY_Y0], p[SY_Z0], p[SY_G],
               p[SY_ALPHA], p[SY_BETA], p[SY_FRICTION] != 0.0, p[SY_TRACE] != 0.0, {{0.0}},
               p[SY_FORM] == 1.0, p[SY_STICTION] != 0.0, p[SY_LOAD] != 0.0, p[SY_T0], p[SY_PSID0], p[SY_C]};
    for (int j = 0; j < N_JOINTS; j++)
        for (int k = 0; k < JOURNAL_WIDTH; k++) r.journals[j][k] = p[SY_JOURNALS + JOURNAL_WIDTH * j + k];
    if (pr.count || assemble_rsrrr(&r, &pr, fpar, ipar)) return pr.count;
    for (int i = 0; i < 2 * N_JOINTS; i++) fj_require_finite(&pr, SYSTEM_NAMES[SY_STATE + i], p[SY_STATE + i]);
    for (int i = 0; i < N_Y; i++) y0[i] = i < 2 * N_JOINTS ? p[SY_STATE + i] : 0.0;
    return pr.count;
}

/* ==================================================================================================
 * "RSRRRLinkage": the FMU's parameters (fmu_src/RSRRRLinkage.py, RSRRRLinkage.build)
 * ================================================================================================== */

#define LINKAGE_LIST                                                                                         \
    "friction", "stiction", "mu_scale", "mu_s_factor", "load_t0", "load_psid0", "load_c", "y0", "z0", "psi1_start", \
        "psid1_start", "baumgarte", "friction_model", "clearance", "n_rfe"
static const char *const LINKAGE_NAMES[] = {LINKAGE_LIST};
/* RSRRRBristle's: RSRRRLinkage's, then the bristle laws' (FrictionModelSlave.BRISTLE_PARAMETERS) */
static const char *const BRISTLE_NAMES[] = {LINKAGE_LIST, "sigma0", "sigma1", "sigma2", "v_s", "delta", "z_ba_ratio"};
enum { LK_FRICTION, LK_STICTION, LK_MU_SCALE, LK_MU_S, LK_T0, LK_PSID0, LK_C, LK_Y0, LK_Z0, LK_PSI, LK_PSID,
       LK_BAUMGARTE, LK_FRICTION_MODEL, LK_CLEARANCE, LK_N_RFE, LK_SIGMA0, LK_SIGMA1, LK_SIGMA2, LK_V_S, LK_DELTA,
       LK_Z_BA_RATIO };
#define N_SURFACES 11       /* RSRRRBristle: every journal surface of Table 1 but the face C of joint (1,1) */
#define ZERO_VELOCITY 1e-9  /* rad/s: spatial.system.ZERO_VELOCITY */

/* RSRRRBristle's checks after the linkage's (RSRRRLinkage.build, then bristle.surface_laws) and its law rows
 * (fj_bristle_law: mu_c the surface's level, mu_s = mu_s_factor mu_c) after the linkage's fpar, one per
 * frictional surface (bristle.frictional_surfaces' order). */
static void bristle_laws(const rsrrr *r, const double *p, fj_problems *pr, double *rows) {
    if (p[LK_STICTION] != 0.0)
        fj_problem(pr, "stiction=True is outside its allowed range with friction_model=%g: only False (the bristles "
                       "hold the joints)", p[LK_FRICTION_MODEL]);
    int64_t n = 0;
    for (int j = 0; j < N_JOINTS && r->friction && !pr->count; j++)
        for (int a = 0; a < 3 && !pr->count; a++) {
            double mu = r->journals[j][J_MU_A + a];
            if (!(mu > 0.0)) continue;
            const double given[FJ_BRISTLE_LAW_SIZE] = {p[LK_FRICTION_MODEL], p[LK_SIGMA0], p[LK_SIGMA1], p[LK_SIGMA2],
                                                       mu, mu * r->journals[j][J_MU_S], p[LK_V_S], p[LK_DELTA],
                                                       p[LK_Z_BA_RATIO]};
            fj_bristle_law(pr, "friction_model", given, rows + n++ * FJ_BRISTLE_LAW_SIZE);
        }
    if (!pr->count && n != N_SURFACES) /* not a Python check: the native FMU's sizes are fixed */
        fj_problem(pr, "friction=%s, mu_scale=%g: the native FMU's bristle laws need friction on every journal surface "
                       "of Table 1 (friction true, mu_scale > 0); ideal joints run with friction_model 0",
                   r->friction ? "True" : "False", p[LK_MU_SCALE]);
}

/* zeta = sigma0 z (N_SURFACES) of y0 after the linkage's state: each surface's steady sliding deflection at its
 * slip (BristleRSRRRSystem.initial_state, in closed form: sigma0 z = sgn(v) times mu_c (Dahl), mu(v) (LuGre, the
 * elasto-plastic law) or mu_s (Gonthier), friction.bristle), 0 below ZERO_VELOCITY. */
static void bristle_deflections(const rsrrr *r, const double *rows, double *y0) {
    int64_t n = 0;
    for (int j = 0; j < N_JOINTS; j++)
        for (int a = 0; a < 3; a++) {
            if (!(r->journals[j][J_MU_A + a] > 0.0)) continue;
            const double *law = rows + n * FJ_BRISTLE_LAW_SIZE;
            double v = y0[N_JOINTS + j], model = law[FJ_LAW_MODEL];
            double level = model == FJ_DAHL ? law[FJ_LAW_MU_C]
                                            : model == FJ_GONTHIER ? law[FJ_LAW_MU_S] : fj_bristle_mu(law, v);
            y0[N_Y + n++] = fabs(v) > ZERO_VELOCITY ? (v > 0.0 ? level : -level) : 0.0;
        }
}

const double fj_rsrrr_geometry[FJ_RSRRR_GEOMETRY] = {0.2, 0.2, 0.1, 0.3, 0.028, 7850.0, 9.81};

/* The assembly self (RSRRRLinkage or RSRRRBristle) of the parameters p (LINKAGE_NAMES, BRISTLE_NAMES). */
static int64_t linkage_of(const fj_assembly *self, const double *p, double *fpar, int64_t *ipar, double *y0,
                          char *error, size_t n_error) {
    int bristle = self == &fj_assembly_RSRRRBristle;
    fj_problems pr = fj_no_problems(error, n_error);
    /* the defaults of RSRRRParameters, the journals of Table 1 (rsrrr.table1_journals) with mu = 0.2 mu_scale,
     * alpha = beta = baumgarte, a SpeedLoad if load_c > 0 */
    double mu = 0.2 * p[LK_MU_SCALE], mu_s = p[LK_MU_S];
    const double *g = fj_rsrrr_geometry;
    rsrrr r = {{g[0], g[1], g[2], g[3]}, g[FJ_RSRRR_D], g[FJ_RSRRR_DENSITY], p[LK_Y0], p[LK_Z0], g[FJ_RSRRR_G],
               p[LK_BAUMGARTE], p[LK_BAUMGARTE],
               p[LK_FRICTION] != 0.0, 0,
               {{0.03, 0.01, 0.01, 0.015, mu, mu, 0.0, 3.0, 0.01, mu_s},
                {0.03, 0.028, 0.028, 0.028, mu, mu, mu, 3.0, 0.01, mu_s},
                {0.03, 0.01, 0.01, 0.015, mu, mu, mu, 3.0, 0.01, mu_s},
                {0.03, 0.01, 0.01, 0.015, mu, mu, mu, 3.0, 0.01, mu_s}},
               0, p[LK_STICTION] != 0.0, p[LK_C] > 0.0, p[LK_T0], p[LK_PSID0], p[LK_C]};
    /* not Python checks: the features of seed 003 run in the pythonfmu FMU only */
    if (!bristle) fj_require_exact_friction(&pr, p[LK_FRICTION_MODEL], "RSRRRBristle");
    if (p[LK_CLEARANCE] != 0.0) {
        char shown[40];
        fj_repr(p[LK_CLEARANCE], shown, sizeof shown);
        fj_problem(&pr, "clearance=%s: the native FMU has ideal joints only (clearance 0); the clearance joint runs "
                        "in the pythonfmu FMU", shown);
    }
    if (p[LK_N_RFE] != 0.0)
        fj_problem(&pr, "n_rfe=%g: the native FMU has rigid links only (n_rfe 0); the flexible link runs in the "
                        "pythonfmu FMU", p[LK_N_RFE]);
    if (pr.count || assemble_rsrrr(&r, &pr, fpar, ipar)) return pr.count;
    if (bristle) bristle_laws(&r, p, &pr, fpar + N_FPAR);
    if (pr.count) return pr.count;
    fj_require_finite(&pr, "psi1_start", p[LK_PSI]);
    fj_require_finite(&pr, "psid1_start", p[LK_PSID]);
    if (!pr.count) initial_state(p[LK_PSI], p[LK_PSID], fpar, ipar, y0, &pr);
    if (bristle && !pr.count) bristle_deflections(&r, fpar + N_FPAR, y0);
    return pr.count;
}

static int64_t linkage_assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error,
                                size_t n_error) {
    return linkage_of(&fj_assembly_RSRRRLinkage, p, fpar, ipar, y0, error, n_error);
}

static int64_t bristle_assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error,
                                size_t n_error) {
    return linkage_of(&fj_assembly_RSRRRBristle, p, fpar, ipar, y0, error, n_error);
}

/* ==================================================================================================
 * The assemblies (fj_assembly_find, assemblies.c, finds them by name)
 * ================================================================================================== */

/* model, family, parameters, n_fpar, n_ipar, n_y, n_tau (tau, tau_res), n_record, assemble */
const fj_assembly fj_assembly_RSRRRSystem = {"RSRRRSystem", "spatial", FJ_COUNT(SYSTEM_NAMES), SYSTEM_NAMES, N_FPAR,
                                             N_IPAR, N_Y, 2, N_RECORD, system_assemble};
const fj_assembly fj_assembly_RSRRRLinkage = {"RSRRRLinkage", "spatial", FJ_COUNT(LINKAGE_NAMES), LINKAGE_NAMES, N_FPAR,
                                              N_IPAR, N_Y, 2, N_RECORD, linkage_assemble};
/* spatial_bristle.c's record: the linkage's, then z, zdot, N, psid_s, t_s per surface */
const fj_assembly fj_assembly_RSRRRBristle = {"RSRRRBristle", "spatial_bristle", FJ_COUNT(BRISTLE_NAMES),
                                              BRISTLE_NAMES, N_FPAR + N_SURFACES * FJ_BRISTLE_LAW_SIZE, N_IPAR,
                                              N_Y + N_SURFACES, 2, N_RECORD + 5 * N_SURFACES, bristle_assemble};
