/* assembly_clearance.c: the assembly (fj_assembly.h) "RSRRRClearance" of the RSRRR linkage of the FMU
 * fmu_src/RSRRRLinkage.py with a clearance joint (clearance > 0) and/or a flexible link (n_rfe > 0), family
 * "spatial_clearance" (spatial_clearance.c): spatial.clearance_rsrrr.ClearanceRSRRR of the FMU's parameters
 * (RSRRRLinkage.build, clearance_system) in the layout of spatial/clearance_packing.py's docstring, with the
 * initial state of ClearanceRSRRRSystem.initial_state.
 *
 * The rigid linkage comes from the assembly "RSRRRLinkage" (assembly_spatial.c: its checks, its packed rods and
 * journals, its initial q4, qd4); here its links are re-packed into the longer chains of seed 003
 * (clearance_rsrrr.py): before the clearance joint's link the massless links of the bearing's motion (prismatic x,
 * y; in the spatial model also the tilts a, b), and the flexible link as the rigid finite elements of
 * spatial/rfem.py (Beam.circular of the rod, its sdes' springs k of Beam.sde, dampers beta k, the rfes' masses and
 * inertias of Beam.segment). The contact law is Flores et al. (2011) (contact.laws.Flores: chi = 8 (1 - c_e) /
 * (5 c_e)) with K = k_contact or, for k_contact 0, the Hertz stiffness of the journal in its bearing
 * (contact.laws.cylinder_stiffness, Flores et al. 2006).
 *
 * Sizes: n = 4 + 2 (planar) or 4 (spatial model) + n_rfe (3 modified, 6 classical) loop coordinates. The
 * assembly's n_fpar, n_ipar, n_y, n_record are those of the largest model (n_rfe = RFE_MAX, classical, spatial);
 * fj_clearance_sizes gives those of a parameter set (the packed arrays fill the first entries).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fj_assembly.h"
#include "fj_kernel.h"
#include "fj_linalg.h"
#include "spatial_internal.h"

#define PI 3.14159265358979323846
#define N_JOINTS 4
#define RFE_MAX 10        /* the largest n_rfe (the modelDescription's maximum; the arrays are sized for it) */
#define N_MAX (N_JOINTS + 4 + 6 * RFE_MAX)
#define RIGID_FPAR (N_JOINTS * LINK_WIDTH + 2 * CHAIN_WIDTH + 4 + N_JOINTS * JOURNAL_WIDTH + 3)
#define RIGID_IPAR (HEADER + N_JOINTS)
#define RIGID_Y (2 * N_JOINTS + 3)
/* the clearance block (clearance_packing.py) */
enum { CI_JOINTS = 0, CI_GAP = 4, CI_MODEL = 8, CI_BEARING = 9, CI_F = 10, CI_WIDTH = 11 };
enum { MODEL_NONE = 0, MODEL_PLANAR = 1, MODEL_SPATIAL = 2 };
enum { CF_WIDTH = 11 };
#define FPAR_MAX (N_MAX * LINK_WIDTH + 2 * CHAIN_WIDTH + 4 + N_JOINTS * JOURNAL_WIDTH + 3 + CF_WIDTH)
#define IPAR_MAX (HEADER + N_MAX + CI_WIDTH)
#define Y_MAX (2 * N_MAX + 4)
#define RECORD_MAX (61 + 2 * N_MAX) /* clearance_packing.record_layout(n): 61 + 2 n */

/* ClearanceParameters' fixed fields (the FMU does not set them) */
#define N_SLICES 10
#define V_EPS 1e-3
#define DELTAD0_MIN 1e-3
#define BETA 1e-4
#define KAPPA 0.9

/* the parameters: RSRRRBristle's (assembly_spatial.c: RSRRRLinkage's, then the bristle laws', unused here), then
 * the clearance's and the flexible link's (fmu_src/RSRRRLinkage.py CLEARANCE_VARIABLES), then the inputs at the
 * start (the seated bearing carries the joint's reaction under them) */
static const char *const NAMES[] = {
    "friction", "stiction", "mu_scale", "mu_s_factor", "load_t0", "load_psid0", "load_c", "y0", "z0", "psi1_start",
    "psid1_start", "baumgarte", "friction_model", "clearance", "n_rfe", "sigma0", "sigma1", "sigma2", "v_s", "delta",
    "z_ba_ratio", "clearance_joint", "clearance_model", "k_contact", "E_joint", "nu_joint", "e_restitution",
    "flexible_link", "rfem", "E", "G", "tau", "tau_res"};
enum { P_FRICTION, P_STICTION, P_MODEL_OF_FRICTION = 12, P_CLEARANCE, P_N_RFE, P_JOINT = 21, P_MODEL, P_K_CONTACT,
       P_E_JOINT, P_NU_JOINT, P_E_RESTITUTION, P_FLEXIBLE, P_RFEM, P_E, P_G, P_TAU, P_TAU_RES, N_PARAM };
#define N_LINKAGE (P_N_RFE + 1) /* RSRRRLinkage's parameters come first */
#define PSI1_START 9 /* psi1_start, then psid1_start */

/* A link of a chain (chain.Link): m, c, I_c (3x3), B, A (4x4 row-major), joint kind (0 R, 1 P), spring k, damper d. */
typedef struct link {
    double m, c[3], I[9], B[16], A[16];
    int prismatic;
    double k, d;
} link;

/* ==================================================================================================
 * 4x4 transforms (chain.fixed, X_TO_Z, Y_TO_Z)
 * ================================================================================================== */

static const double X_TO_Z[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0}, Y_TO_Z[9] = {0, 1, 0, 0, 0, 1, 1, 0, 0};
static const double EYE3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

/* fixed(R, p): rotation R (3x3), translation p (3). */
static void fixed(const double *R, const double *p, double *T) {
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) T[4 * a + b] = a < 3 && b < 3 ? R[3 * a + b] : (a == b ? 1.0 : 0.0);
    for (int a = 0; a < 3; a++) T[4 * a + 3] = p ? p[a] : 0.0;
}

/* The transpose of fixed(R) (its inverse). */
static void fixed_t(const double *R, double *T) {
    double Rt[9];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) Rt[3 * a + b] = R[3 * b + a];
    fixed(Rt, NULL, T);
}

static void mul4(const double *X, const double *Y, double *out) {
    double r[16];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0.0;
            for (int k = 0; k < 4; k++) s += X[4 * i + k] * Y[4 * k + j];
            r[4 * i + j] = s;
        }
    memcpy(out, r, sizeof r);
}

/* _tx(x): a translation along x. */
static void tx(double x, double *T) {
    const double p[3] = {x, 0.0, 0.0};
    fixed(EYE3, p, T);
}

static link massless(const double *B, const double *A, int prismatic) {
    link l;
    memset(&l, 0, sizeof l);
    memcpy(l.B, B, sizeof l.B), memcpy(l.A, A, sizeof l.A);
    l.prismatic = prismatic;
    return l;
}

/* The link of the packed rod row f (its m, c, I_c, A; its B replaced by B). */
static link rod_of(const double *f, const double *B) {
    link l;
    l.m = f[L_M];
    for (int i = 0; i < 3; i++) l.c[i] = f[L_C + i];
    for (int i = 0; i < 9; i++) l.I[i] = f[L_IC + i];
    memcpy(l.B, B, sizeof l.B);
    for (int i = 0; i < 16; i++) l.A[i] = f[L_A + i];
    l.prismatic = 0, l.k = l.d = 0.0;
    return l;
}

/* ==================================================================================================
 * The flexible link (spatial/rfem.py: Beam.circular, Beam.sde, Beam.segment, rfem_links)
 * ================================================================================================== */

typedef struct beam {
    double L, A, I_y, I_z, J, rho, E, G, kappa;
} beam;

/* Beam.circular: a solid round bar of diameter d. */
static beam circular(double L, double d, double rho, double E, double G, double kappa) {
    double I = PI * pow(d, 4.0) / 64.0;
    beam b = {L, PI * pow(d, 2.0) / 4.0, I, I, 2.0 * I, rho, E, G, kappa};
    return b;
}

/* Beam.sde: the kinds (1 prismatic), beam axes and stiffnesses of the sde of a segment of length l; the count
 * (3 modified: torsion and both bendings; 6 classical: stretching and both shears first). */
static int sde(const beam *b, double l, int classical, int *kinds, int *axes, double *k) {
    int n = 0;
    if (classical) {
        double shear = b->kappa * b->G * b->A / l;
        const double ks[3] = {b->E * b->A / l, shear, shear};
        for (int i = 0; i < 3; i++) kinds[n] = 1, axes[n] = i, k[n++] = ks[i];
    }
    const double kr[3] = {b->G * b->J / l, b->E * b->I_y / l, b->E * b->I_z / l};
    for (int i = 0; i < 3; i++) kinds[n] = 0, axes[n] = i, k[n++] = kr[i];
    return n;
}

/* rfem_links: the 1 + n parts links of the flexible link with joint frame B, A and beam frame `frame`, appended at
 * links[*count]. The rfe i (0 at the root) spans [starts[i], ends[i]]; the last link's frame returns to the rigid
 * link's (back = _tx(-x_n) frame^-1, so its c and I_c are turned by back^-1 = frame _tx(x_n)). */
static void rfem_links(const beam *bm, int n, int classical, double beta, const double *B, const double *A,
                       const double *frame_R, link *links, int *count) {
    double l = bm->L / (n > 1 ? n : 1), starts[RFE_MAX + 1], ends[RFE_MAX + 1];
    starts[0] = 0.0;
    for (int i = 1; i <= n; i++) starts[i] = (i - 0.5) * l;
    for (int i = 0; i < n; i++) ends[i] = starts[i + 1];
    ends[n] = bm->L;
    double frame[16], frame_inv[16], Af[16];
    fixed(frame_R, NULL, frame), fixed_t(frame_R, frame_inv);
    mul4(A, frame, Af);
    /* (B, kind, k, A, rfe or -1) of each link */
    double Bs[1 + 6 * RFE_MAX][16], As[1 + 6 * RFE_MAX][16], ks[1 + 6 * RFE_MAX];
    int kinds[1 + 6 * RFE_MAX], rfes[1 + 6 * RFE_MAX], m = 0;
    memcpy(Bs[m], B, sizeof Bs[m]), memcpy(As[m], Af, sizeof As[m]), kinds[m] = 0, ks[m] = 0.0, rfes[m++] = 0;
    for (int i = 1; i <= n; i++) {
        int pk[6], pa[6];
        double pkk[6];
        int parts = sde(bm, l, classical, pk, pa, pkk);
        for (int j = 0; j < parts; j++) {
            const double *R = pa[j] == 0 ? X_TO_Z : pa[j] == 1 ? Y_TO_Z : EYE3; /* rfem._AXIS_TO_Z */
            double R_e[16], offset[16];
            fixed(R, NULL, R_e);
            if (j == 0)
                tx(starts[i] - starts[i - 1], offset);
            else
                fixed(EYE3, NULL, offset);
            mul4(offset, R_e, Bs[m]);
            fixed_t(R, As[m]);
            kinds[m] = pk[j], ks[m] = pkk[j], rfes[m++] = j == parts - 1 ? i : -1;
        }
    }
    for (int p = 0; p < m; p++) {
        link *out = &links[(*count)++];
        memset(out, 0, sizeof *out);
        double back[16], to_link[16], t[16];
        fixed(EYE3, NULL, back), fixed(EYE3, NULL, to_link);
        if (p == m - 1) { /* back = _tx(-x_n) frame^-1, to_link = back^-1 = frame _tx(x_n) */
            tx(-starts[n], t), mul4(t, frame_inv, back);
            tx(starts[n], t), mul4(frame, t, to_link);
        }
        if (rfes[p] >= 0) { /* Beam.segment of the rfe, turned into the link frame */
            double a = ends[rfes[p]] - starts[rfes[p]];
            double mass = bm->rho * bm->A * a, c[3] = {a / 2.0, 0.0, 0.0};
            double I[3] = {bm->rho * a * (bm->I_y + bm->I_z), bm->rho * a * bm->I_y + mass * pow(a, 2.0) / 12.0,
                           bm->rho * a * bm->I_z + mass * pow(a, 2.0) / 12.0};
            out->m = mass;
            for (int r = 0; r < 3; r++) {
                double s = 0.0;
                for (int k = 0; k < 3; k++) s += to_link[4 * r + k] * c[k];
                out->c[r] = s + to_link[4 * r + 3];
                for (int q = 0; q < 3; q++) { /* R diag(I) R^T */
                    double v = 0.0;
                    for (int k = 0; k < 3; k++) v += to_link[4 * r + k] * I[k] * to_link[4 * q + k];
                    out->I[3 * r + q] = v;
                }
            }
        }
        memcpy(out->B, Bs[p], sizeof out->B);
        mul4(As[p], back, out->A);
        out->prismatic = kinds[p], out->k = ks[p], out->d = beta * ks[p];
    }
}

/* ==================================================================================================
 * The packed links (spatial.packing.pack_links)
 * ================================================================================================== */

/* The row (LINK_WIDTH) of link l with its parent's A (NULL: a root link, on a base I). */
static void pack_link(const link *l, const double *parent_A, double *f) {
    for (int i = 0; i < LINK_WIDTH; i++) f[i] = 0.0;
    f[L_M] = l->m;
    double trace = l->I[0] + l->I[4] + l->I[8];
    for (int a = 0; a < 3; a++) {
        f[L_C + a] = l->c[a];
        double cj = 0.0;
        for (int k = 0; k < 3; k++) cj += l->A[4 * a + k] * l->c[k];
        f[L_CJ + a] = cj + l->A[4 * a + 3];
        for (int b = 0; b < 3; b++) {
            f[L_IC + 3 * a + b] = l->I[3 * a + b];
            /* H = [tr(I_c)/2 E - I_c + m c c^T, m c; m c^T, m] (Link.H, seed 002 eq. 2) */
            f[L_H + 4 * a + b] = ((a == b ? 0.5 * trace : 0.0) - l->I[3 * a + b]) + l->m * (l->c[a] * l->c[b]);
            double v = 0.0; /* I_J = R_A I_c R_A^T */
            for (int k = 0; k < 3; k++) {
                double u = 0.0;
                for (int m = 0; m < 3; m++) u += l->A[4 * a + m] * l->I[3 * m + k];
                v += u * l->A[4 * b + k];
            }
            f[L_IJ + 3 * a + b] = v;
        }
        f[L_H + 4 * a + 3] = f[L_H + 12 + a] = l->m * l->c[a];
    }
    f[L_H + 15] = l->m;
    for (int i = 0; i < 16; i++) f[L_B + i] = l->B[i], f[L_A + i] = l->A[i];
    if (parent_A)
        mul4(parent_A, l->B, f + L_AB);
    else
        for (int i = 0; i < 16; i++) f[L_AB + i] = f[L_MB + i] = l->B[i]; /* I B; base B, base = I */
    f[L_KIND] = l->prismatic, f[L_K] = l->k, f[L_D] = l->d;
}

/* ==================================================================================================
 * The assembly
 * ================================================================================================== */

typedef struct clearance_model {
    int joint, model, flexible, n_rfe, classical; /* model: MODEL_NONE (clearance 0), MODEL_PLANAR, MODEL_SPATIAL */
    double clearance;
} clearance_model;

static int64_t n_of(const clearance_model *c) {
    return N_JOINTS + (c->model == MODEL_NONE ? 0 : c->model == MODEL_PLANAR ? 2 : 4) +
           (int64_t)c->n_rfe * (c->classical ? 6 : 3);
}

/* ClearanceParameters.__post_init__ (the FMU's fields; its Var bounds hold the integers in range) and the
 * twin's refusal of stiction and friction_model (RSRRRLinkage.build). */
static void check(const double *p, fj_problems *pr) {
    fj_require(pr, "clearance", p[P_CLEARANCE], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    if (!(p[P_N_RFE] >= 0.0 && p[P_N_RFE] == floor(p[P_N_RFE])))
        fj_problem(pr, "n_rfe must be an integer >= 0, got %g", p[P_N_RFE]);
    else if (p[P_N_RFE] > RFE_MAX) /* the FMUs' declared maximum; the arrays are sized for it */
        fj_problem(pr, "n_rfe=%g is outside the allowed range [0, %d]", p[P_N_RFE], RFE_MAX);
    static const char *const integers[] = {"clearance_joint", "clearance_model", "flexible_link", "rfem"};
    static const int index[] = {P_JOINT, P_MODEL, P_FLEXIBLE, P_RFEM}, high[] = {4, 2, 4, 2};
    for (int i = 0; i < 4; i++) {
        double v = p[index[i]];
        if (!(v >= 1.0 && v <= high[i] && v == floor(v)))
            fj_problem(pr, "%s=%g is outside the allowed range [1, %d]", integers[i], v, high[i]);
    }
    if (p[P_K_CONTACT] != 0.0) fj_require(pr, "k_contact", p[P_K_CONTACT], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "E", p[P_E], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "G", p[P_G], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "E_joint", p[P_E_JOINT], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "nu_joint", p[P_NU_JOINT], FJ_CLOSED, 0.0, FJ_OPEN, 0.5);
    fj_require(pr, "e_restitution", p[P_E_RESTITUTION], FJ_OPEN, 0.0, FJ_CLOSED, 1.0);
    if (pr->count) return;
    if (p[P_STICTION] != 0.0 || p[P_MODEL_OF_FRICTION] != 0.0)
        fj_problem(pr, "stiction = %s and friction_model = %g must be false and 0 with a clearance or a flexible link "
                       "(one smooth mode, the journal friction of eqs 4-7)", p[P_STICTION] != 0.0 ? "True" : "False",
                   p[P_MODEL_OF_FRICTION]);
}

/* The packed model (clearance_packing.pack) of the rigid linkage's (rf, ri: assembly "RSRRRLinkage") with the
 * clearance and flexible link c, the FMU's parameters p. */
static void pack(const double *p, const clearance_model *c, const double *rf, const int64_t *ri, double *fpar,
                 int64_t *ipar) {
    link links[N_MAX];
    int count = 0, counts[2], joints[N_JOINTS], gap[4] = {-1, -1, -1, -1};
    const double *geometry = fj_rsrrr_geometry;
    for (int ch = 0, k = 0; ch < 2; ch++) {
        int start = count;
        for (int r = 0; r < (ch == 0 ? 1 : 3); r++, k++) {
            const double *row = rf + ri[I_F_LINKS] + k * LINK_WIDTH;
            double B[16];
            memcpy(B, row + L_B, sizeof B);
            if (k == c->joint && c->model != MODEL_NONE) { /* clearance_links(model, B), then B = I */
                double X[16], Y[16], Xt[16], Yt[16], BX[16];
                fixed(X_TO_Z, NULL, X), fixed(Y_TO_Z, NULL, Y), fixed_t(X_TO_Z, Xt), fixed_t(Y_TO_Z, Yt);
                mul4(B, X, BX);
                gap[0] = count, links[count++] = massless(BX, Xt, 1);
                gap[1] = count, links[count++] = massless(Y, Yt, 1);
                if (c->model == MODEL_SPATIAL) {
                    gap[2] = count, links[count++] = massless(X, Xt, 0);
                    gap[3] = count, links[count++] = massless(Y, Yt, 0);
                }
                fixed(EYE3, NULL, B);
            }
            joints[k] = count;
            if (k == c->flexible && c->n_rfe > 0) {
                beam bm = circular(geometry[k], geometry[FJ_RSRRR_D], geometry[FJ_RSRRR_DENSITY], p[P_E], p[P_G],
                                   KAPPA);
                double A[16];
                memcpy(A, row + L_A, sizeof A);
                rfem_links(&bm, c->n_rfe, c->classical, BETA, B, A, k == 1 ? Y_TO_Z : EYE3, links, &count);
            } else {
                links[count++] = rod_of(row, B);
            }
        }
        counts[ch] = count - start;
    }
    int64_t n = count, o = 0, offsets[6];
    offsets[0] = o;
    for (int i = 0; i < count; i++) {
        int first = i == 0 || i == counts[0];
        pack_link(&links[i], first ? NULL : links[i - 1].A, fpar + o);
        o += LINK_WIDTH;
    }
    offsets[1] = o;
    for (int ch = 0; ch < 2; ch++) { /* the chains' blocks: the rigid's, tip = A_k r_S + a of the last link */
        const double *rigid = rf + ri[I_F_CHAINS] + ch * CHAIN_WIDTH;
        double *f = fpar + o;
        const link *last = &links[ch == 0 ? counts[0] - 1 : count - 1];
        for (int i = 0; i < CHAIN_WIDTH; i++) f[i] = rigid[i];
        for (int a = 0; a < 3; a++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++) s += last->A[4 * a + k] * rigid[CH_RS + k];
            f[CH_TIP + a] = s + last->A[4 * a + 3];
        }
        o += CHAIN_WIDTH;
    }
    offsets[2] = o;
    for (int i = 0; i < 4; i++) fpar[o++] = rf[ri[I_F_LOOP] + i];
    offsets[3] = o;
    for (int i = 0; i < N_JOINTS * JOURNAL_WIDTH; i++) fpar[o++] = rf[ri[I_F_JOURNALS] + i];
    const double *journal = rf + ri[I_F_JOURNALS] + c->joint * JOURNAL_WIDTH; /* the rigid's: mu_A as given */
    if (c->model != MODEL_NONE) /* the contact replaces the journal surfaces A and B of the joint */
        for (int a = J_MU_A; a <= J_MU_B; a++) fpar[offsets[3] + c->joint * JOURNAL_WIDTH + a] = 0.0;
    offsets[4] = o;
    for (int i = 0; i < 3; i++) fpar[o++] = rf[ri[I_F_LOAD] + i];
    offsets[5] = o;
    double *cf = fpar + o;
    for (int i = 0; i < CF_WIDTH; i++) cf[i] = 0.0;
    if (c->model != MODEL_NONE) {
        double R_J = journal[J_D_A] / 2.0, R_B = R_J + c->clearance, K = p[P_K_CONTACT], e = p[P_E_RESTITUTION];
        if (K == 0.0) { /* cylinder_stiffness(R_J, R_J + clearance, E_joint, E_joint, nu_joint, nu_joint) */
            double nu = p[P_NU_JOINT], sigma = (1.0 - pow(nu, 2.0)) / p[P_E_JOINT];
            K = 4.0 / (3.0 * (sigma + sigma)) * sqrt(R_J * R_B / (R_B - R_J));
        }
        int friction = ri[I_FRICTION] != 0;
        const double block[CF_WIDTH] = {R_J, R_B, K, 1.5, 8.0 * (1.0 - e) / (5.0 * e), friction ? journal[J_MU_A] : 0.0,
                                        friction ? V_EPS : 1.0, friction, DELTAD0_MIN,
                                        c->model == MODEL_SPATIAL ? journal[J_A_BAR] : 0.0,
                                        c->model == MODEL_SPATIAL ? N_SLICES : 0.0};
        for (int i = 0; i < CF_WIDTH; i++) cf[i] = block[i];
    }
    const int64_t header[HEADER] = {counts[0], counts[1], FORM_CUT, 0, ri[I_FRICTION], 0, ri[I_LOAD],
                                    ri[I_MAX_COUPLING], ri[I_MAX_HOLD], HEADER, offsets[0], offsets[1], offsets[2],
                                    offsets[3], offsets[4]};
    for (int i = 0; i < HEADER; i++) ipar[i] = header[i];
    for (int ch = 0, i = 0; ch < 2; ch++) /* serial chains */
        for (int k = 0; k < counts[ch]; k++) ipar[HEADER + i++] = k - 1;
    int64_t *cb = ipar + HEADER + n;
    for (int i = 0; i < N_JOINTS; i++) cb[CI_JOINTS + i] = joints[i];
    for (int i = 0; i < 4; i++) cb[CI_GAP + i] = gap[i];
    cb[CI_MODEL] = c->model, cb[CI_BEARING] = joints[c->joint], cb[CI_F] = offsets[5];
}

/* ==================================================================================================
 * The initial state (ClearanceRSRRRSystem.initial_state, seated)
 * ================================================================================================== */

#define CLOSE_TOL 1e-13   /* m: CutJointLoop.assemble */
#define CLOSE_ITER 50
#define BALANCE_TOL 1e-9  /* m/s^2, rad/s^2: ClearanceRSRRRSystem._balanced */
#define BALANCE_ITER 20
#define DEP_SINGULAR 1e-12 /* CutJointLoop._dependent_inverse */

/* The scratch of the initial state: the spatial work of the clearance loop (G, Phi), the kernels' work. */
typedef struct start_work {
    fj_spatial_work s;
    double *sf, *kf;
    int64_t *si, *ki;
    fj_args args; /* the clearance family's kernels, in Contact(deltad0_min) */
    double fmode[2];
    int64_t imode[1];
} start_work;

/* G_d (3x3, the closure's Jacobian in the dependent coordinates dep) at q, LU-factored into Gd, Phi into phi;
 * 1 where it is singular (CutJointLoop._dependent_inverse's test). */
static int dependent_jacobian(const double *q, const double *fpar, const int64_t *ipar, const int64_t *dep,
                              start_work *w, double *Gd, int64_t *piv, double *phi) {
    int64_t n = ipar[I_N1] + ipar[I_N2];
    if (fj_spatial_mechanics(q, w->s.zero, fpar, ipar, &w->s, 0)) return 1;
    double big = 0.0;
    for (int a = 0; a < 3; a++) {
        phi[a] = w->s.Phi[a];
        for (int b = 0; b < 3; b++) Gd[3 * a + b] = w->s.G[a * n + dep[b]], big = fmax(big, fabs(Gd[3 * a + b]));
    }
    double LU[9];
    memcpy(LU, Gd, sizeof LU);
    if (fj_lu_factor(LU, 3, 3, piv) || !(fabs(fj_lu_det(LU, 3, 3, piv)) >= DEP_SINGULAR * fmax(1.0, big * big * big)))
        return 1;
    memcpy(Gd, LU, sizeof LU);
    return 0;
}

/* CutJointLoop.assemble: q closed by Newton on the dependent coordinates dep (chain 2's joints) in place. */
static int close_loop(double *q, const double *fpar, const int64_t *ipar, const int64_t *dep, start_work *w) {
    double Gd[9], phi[3];
    int64_t piv[3];
    for (int it = 0; it < CLOSE_ITER; it++) {
        if (fj_spatial_mechanics(q, w->s.zero, fpar, ipar, &w->s, 0)) return 1;
        if (fmax(fmax(fabs(w->s.Phi[0]), fabs(w->s.Phi[1])), fabs(w->s.Phi[2])) <= CLOSE_TOL) return 0;
        if (dependent_jacobian(q, fpar, ipar, dep, w, Gd, piv, phi)) return 1;
        fj_lu_solve(Gd, 3, 3, piv, phi);
        for (int b = 0; b < 3; b++) q[dep[b]] -= phi[b];
    }
    return 1;
}

/* qd (n) at the closed q: psid11 on the first independent coordinate, 0 on the others, the dependent ones from
 * G qd = 0 (CutJointLoop.dependent_velocities with qd_i = [psid11, 0, ...]). */
static int dependent_rates(const double *q, double psid11, const double *fpar, const int64_t *ipar,
                           const int64_t *dep, start_work *w, double *qd) {
    int64_t n = ipar[I_N1] + ipar[I_N2], first = -1;
    double Gd[9], phi[3], rhs[3] = {0.0, 0.0, 0.0};
    int64_t piv[3];
    for (int64_t i = 0; i < n; i++) qd[i] = 0.0;
    for (int64_t i = 0; i < n && first < 0; i++)
        if (i != dep[0] && i != dep[1] && i != dep[2]) first = i;
    qd[first] = psid11;
    if (dependent_jacobian(q, fpar, ipar, dep, w, Gd, piv, phi)) return 1;
    for (int a = 0; a < 3; a++) rhs[a] = -w->s.G[a * n + first] * psid11;
    fj_lu_solve(Gd, 3, 3, piv, rhs);
    for (int b = 0; b < 3; b++) qd[dep[b]] = rhs[b];
    return 0;
}

/* The accelerations of the clearance coordinates gap (n_gap) with them at z, the loop closed from q and moving at
 * the dependent rates of psid11, in contact (ClearanceRSRRRSystem._balanced's gap_accelerations); x the closed q. */
static int64_t gap_accelerations(const double *z, const double *q, double psid11, const double *tau, const double *fpar,
                             const int64_t *ipar, const int64_t *dep, const int64_t *gap, int n_gap, start_work *w,
                             double *y, double *dy, double *r) {
    int64_t n = ipar[I_N1] + ipar[I_N2];
    for (int64_t i = 0; i < 2 * n + 4; i++) y[i] = i < n ? q[i] : 0.0;
    for (int g = 0; g < n_gap; g++) y[gap[g]] = z[g];
    if (close_loop(y, fpar, ipar, dep, w)) return ST_NOT_CLOSED;
    if (dependent_rates(y, psid11, fpar, ipar, dep, w, y + n)) return ST_J2_SINGULAR;
    int64_t status = fj_family_spatial_clearance.rhs(&w->args, 0.0, y, tau, dy, 2 * n + 4);
    for (int g = 0; g < n_gap; g++) r[g] = dy[n + gap[g]];
    return status;
}

/* ClearanceRSRRRSystem.initial_state(psi11, psid11), seated, into y (2n + 4): the rigid linkage's q4 at the joints
 * (rigid_y: its state; ClearanceRSRRR.initial_position), every other coordinate zero; with a clearance the bearing
 * pressed against the journal where the rigid joint's reaction pushes it (rf: the rigid model, the joint's journal
 * surfaces A, B without friction as ClearanceRSRRR.rigid), by the depth whose contact force balances it, the loop
 * closed, then the bearing moved (Newton, forward-difference Jacobian) to where its coordinates start without
 * acceleration; the rates: psid11 and the closure's. tau: the inputs at the start. A problem if that fails. */
static void initial_state(const clearance_model *c, const double *fpar, const int64_t *ipar, double *rf,
                          const int64_t *ri, const double *rigid_y, double psi11, double psid11, const double *tau,
                          double *y, fj_problems *pr) {
    int64_t n = n_of(c), nw, niw, n_rigid_w, n_rigid_iw, n_fpar, n_ipar, n_y;
    const int64_t *cb = ipar + HEADER + n, *J = cb + CI_JOINTS, *gap = cb + CI_GAP;
    const int64_t dep[3] = {J[1], J[2], J[3]};
    int n_gap = c->model == MODEL_NONE ? 0 : c->model == MODEL_PLANAR ? 2 : 4;
    double *q = NULL;
    start_work w;
    memset(&w, 0, sizeof w);
    fj_spatial_layout(&w.s, NULL, NULL, n, ipar[I_N1], &nw, &niw);
    n_fpar = ipar[HEADER + n + CI_F] + CF_WIDTH, n_ipar = HEADER + n + CI_WIDTH, n_y = 2 * n + 4;
    int64_t kw, kiw;
    fj_family_spatial_clearance.work_size(fpar, n_fpar, ipar, n_ipar, &kw, &kiw);
    fj_family_spatial.work_size(rf, RIGID_FPAR, ri, RIGID_IPAR, &n_rigid_w, &n_rigid_iw);
    w.sf = calloc((size_t)(nw + kw + n_rigid_w + 4 * n_y + 2 * RECORD_MAX + 1), sizeof(double));
    w.si = calloc((size_t)(niw + kiw + n_rigid_iw + 1), sizeof(int64_t));
    int failed = w.sf == NULL || w.si == NULL;
    int64_t status = 0;
    if (!failed) {
        fj_spatial_layout(&w.s, w.sf, w.si, n, ipar[I_N1], &nw, &niw);
        fj_spatial_clear(&w.s, n);
        w.kf = w.sf + nw, w.ki = w.si + niw;
        w.fmode[0] = DELTAD0_MIN, w.fmode[1] = 0.0, w.imode[0] = 1; /* Contact(deltad0_min) */
        fj_args args = {fpar, ipar, w.fmode, w.imode, n_fpar, n_ipar, 2, 1, n_y, 2, w.kf, w.ki};
        w.args = args;
        q = w.kf + kw + n_rigid_w;
        for (int64_t i = 0; i < n_y; i++) y[i] = 0.0;
        for (int j = 0; j < N_JOINTS; j++) y[J[j]] = rigid_y[j];
        if (n_gap) {
            /* the reaction of the rigid joint on the bearing's link (its record's f_O[j]), into the journal frame */
            double rigid_state[RIGID_Y], *rec = q + 4 * n_y, fmode = 1.0;
            int64_t imode = 1;
            for (int i = 0; i < RIGID_Y; i++) rigid_state[i] = i < 2 * N_JOINTS ? rigid_y[i] : 0.0;
            fj_args ra = {rf,      ri, &fmode,    &imode,           RIGID_FPAR, RIGID_IPAR,
                          1,       1,  RIGID_Y,   2,                w.kf + kw,  w.si + niw + kiw};
            rf[ri[I_F_JOURNALS] + c->joint * JOURNAL_WIDTH + J_MU_A] = 0.0;
            rf[ri[I_F_JOURNALS] + c->joint * JOURNAL_WIDTH + J_MU_B] = 0.0;
            status = fj_family_spatial.record(&ra, 0.0, rigid_state, tau, rec, fj_assembly_RSRRRLinkage.n_record);
            const double *f_O = rec + 15 + 3 * c->joint; /* record: q, qd, qdd (4 each), f_S (3), f_O (4, 3) */
            double psi = rigid_y[c->joint], cs = cos(psi), sn = sin(psi);
            double f[2] = {cs * f_O[0] - sn * f_O[1], sn * f_O[0] + cs * f_O[1]}, load = hypot(f[0], f[1]);
            const double *cf = fpar + cb[CI_F];
            double depth = pow(load / cf[2], 1.0 / cf[3]), clear = cf[1] - cf[0];
            for (int g = 0; g < 2; g++) y[gap[g]] = -(clear + depth) * f[g] / load; /* F_B = F_n (r_J - r_B) / |e| */
            if (!status && close_loop(y, fpar, ipar, dep, &w)) status = ST_NOT_CLOSED;
            /* _balanced: Newton on the clearance coordinates z; a failure of its evaluations ends the start (in
             * Python an exception), a Newton that does not converge keeps the closed q */
            double z[4], r[4], r2[4], h[4], Jm[16], *x = q, *dy = q + n_y, *trial = q + 2 * n_y;
            int64_t piv[4];
            int converged = 0;
            for (int g = 0; g < n_gap; g++) z[g] = y[gap[g]], h[g] = g < 2 ? 1e-3 * clear : 1e-3 * clear / 0.01;
            for (int it = 0; it < BALANCE_ITER && !status && !converged; it++) {
                status = gap_accelerations(z, y, psid11, tau, fpar, ipar, dep, gap, n_gap, &w, x, dy, r);
                double worst = 0.0;
                for (int g = 0; g < n_gap; g++) worst = fmax(worst, fabs(r[g]));
                converged = !status && worst <= BALANCE_TOL;
                for (int k = 0; k < n_gap && !status && !converged; k++) {
                    double zk[4];
                    for (int g = 0; g < n_gap; g++) zk[g] = z[g] + (g == k ? h[k] : 0.0);
                    status = gap_accelerations(zk, y, psid11, tau, fpar, ipar, dep, gap, n_gap, &w, trial, dy, r2);
                    for (int g = 0; g < n_gap; g++) Jm[n_gap * g + k] = (r2[g] - r[g]) / h[k];
                }
                if (status || converged) break;
                if (fj_lu_factor(Jm, n_gap, n_gap, piv)) status = ST_K_SINGULAR;
                fj_lu_solve(Jm, n_gap, n_gap, piv, r);
                for (int g = 0; g < n_gap; g++) z[g] -= r[g];
            }
            if (converged) memcpy(y, x, (size_t)n * sizeof(double)); /* else the closed, unbalanced q */
        }
        if (!status && dependent_rates(y, psid11, fpar, ipar, dep, &w, y + n)) status = ST_J2_SINGULAR;
        for (int i = 0; i < 4; i++) y[2 * n + i] = 0.0;
    }
    free(w.sf), free(w.si);
    if (failed) fj_problem(pr, "no initial state: out of memory");
    if (status) {
        char shown[40];
        fj_repr(psi11, shown, sizeof shown);
        fj_problem(pr, "psi1_start=%s: no initial state with the clearance joint seated, %s", shown,
                   status == ST_NOT_CLOSED || status == ST_J2_SINGULAR ? fj_family_spatial.message(status)
                                                                       : fj_family_spatial_clearance.message(status));
    }
}

static int64_t assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error, size_t n_error) {
    fj_problems pr = fj_no_problems(error, n_error);
    double rigid_p[N_LINKAGE], rf[RIGID_FPAR], rigid_y[RIGID_Y];
    int64_t ri[RIGID_IPAR];
    for (int i = 0; i < N_LINKAGE; i++) rigid_p[i] = p[i];
    rigid_p[P_CLEARANCE] = rigid_p[P_N_RFE] = 0.0, rigid_p[P_MODEL_OF_FRICTION] = 0.0, rigid_p[P_STICTION] = 0.0;
    if (fj_assembly_RSRRRLinkage.assemble(rigid_p, rf, ri, rigid_y, error, n_error)) return 1;
    check(p, &pr);
    if (pr.count) return pr.count;
    clearance_model c = {(int)p[P_JOINT] - 1, p[P_CLEARANCE] > 0.0 ? (int)p[P_MODEL] : MODEL_NONE,
                         (int)p[P_FLEXIBLE] - 1, (int)p[P_N_RFE], p[P_RFEM] == 2.0, p[P_CLEARANCE]};
    if (c.model == MODEL_NONE && c.n_rfe == 0)
        fj_problem(&pr, "clearance=0.0 and n_rfe=0: the ideal rigid linkage is the assembly RSRRRLinkage's");
    if (pr.count) return pr.count;
    pack(p, &c, rf, ri, fpar, ipar);
    initial_state(&c, fpar, ipar, rf, ri, rigid_y, p[PSI1_START], p[PSI1_START + 1], p + P_TAU, y0, &pr);
    return pr.count;
}

void fj_clearance_sizes(const double *p, int64_t *n_fpar, int64_t *n_ipar, int64_t *n_y, int64_t *n_record) {
    clearance_model c = {0, p[P_CLEARANCE] > 0.0 ? (int)p[P_MODEL] : MODEL_NONE, 0, (int)p[P_N_RFE],
                         p[P_RFEM] == 2.0, 0.0};
    int64_t n = n_of(&c);
    *n_fpar = n * LINK_WIDTH + 2 * CHAIN_WIDTH + 4 + N_JOINTS * JOURNAL_WIDTH + 3 + CF_WIDTH;
    *n_ipar = HEADER + n + CI_WIDTH, *n_y = 2 * n + 4, *n_record = 61 + 2 * n;
}

/* model, family, parameters, n_fpar, n_ipar, n_y, n_tau, n_record (the largest), assemble */
const fj_assembly fj_assembly_RSRRRClearance = {"RSRRRClearance", "spatial_clearance", N_PARAM, NAMES, FPAR_MAX,
                                                IPAR_MAX, Y_MAX, 2, RECORD_MAX, assemble};
