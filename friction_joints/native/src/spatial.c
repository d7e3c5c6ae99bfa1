/* spatial.c: the kernels of the spatial RSRRR linkage (seed 002), spatial.system.RSRRRSystem. The
 * Python engine (spatial.chain, spatial.dynamics, spatial.loop, spatial.reactions, spatial.journal,
 * spatial.rsrrr and spatial.system) is the reference: the kernels follow its equations in the same
 * order, on the model packed by spatial.packing.pack.
 *
 * Supported: both forms of the loop (form "cut": seed 002 eq. 2 with Baumgarte's stabilisation of the
 * closure; "minimal": coordinate partitioning, chain 2 re-assembled by Newton at every evaluation), both
 * open-chain formulations (recursive: composite rigid bodies and recursive Newton-Euler; trace: the
 * 4x4-matrix Lagrange form of seed 002 eq. 2), friction on or off, stiction on (modes +1, -1, 0) or
 * off, no load or a SpeedLoad, serial or tree chains of 1 + 3 revolute joints. The chain functions
 * (frames, dynamics, the point S, Newton-Euler) also take prismatic joints and joint spring-dampers
 * (chain.Link's joint, k, d), for the family spatial_clearance (spatial_clearance.c) through
 * spatial_internal.h.
 *
 * The reaction-friction coupling (RSRRR.dynamics): as in the Python engine, one solve of eq. (2) gives qdd
 * and the cut force as affine functions of the four friction torques (the column of a unit friction
 * torque computed directly as the linear part, not as a difference of two solves: the same up to
 * rounding) and the Newton-Euler reactions (eqs 3.1-3.8) follow as affine functions too; the coupling
 * t_f = t_f(reactions(t_f)) (eqs 4-7) on that map is then solved by Newton's method with its analytic
 * Jacobian (fj_spatial_coupling, which the families spatial_clearance and spatial_bristle call too), where the
 * Python engine iterates the fixed point: the same start (t_f = 0) and the same stopping test, so the same
 * solution within the tolerance, in 4-5 passes instead of 12-24, and also at friction levels where the fixed
 * point diverges. The record's iterations are Newton's passes.
 *
 * Inputs: tau = [tau (drive), tau_res] (N.m). Model arrays: see the docstring of
 * friction_joints/spatial/packing.py (the I_*, L_*, CH_*, LOOP_*, J_*, LOAD_* offsets of
 * spatial_internal.h follow its layout; the I_* and the status codes have the names and values of its
 * constants). Mode:
 * imode = [direction]. Matrices row-major; stacks of matrices (n, r, c) contiguous.
 *
 * Scratch: the struct work, carved from a->work / a->iwork (layout()); the kernels allocate nothing.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fj_kernel.h"
#include "fj_linalg.h"
#include "spatial_internal.h"

/* --- constants of the Python engine (the same values) -------------------------------------------- */
#define ASSEMBLE_TOL 1e-13          /* spatial.loop.CutJointLoop.assemble(tol) */
#define ASSEMBLE_MAX_ITERATIONS 50  /* spatial.loop.CutJointLoop.assemble(max_iter) */
#define J2_SINGULAR 1e-12           /* CutJointLoop._dependent_inverse: |det J2| < 1e-12 max(1, max|J2|^3) */
#define ZERO_VELOCITY 1e-9          /* rad/s: spatial.system.ZERO_VELOCITY */

/* ==================================================================================================
 * Small vectors and matrices
 * ================================================================================================== */

/* 3-vectors are a struct passed and returned by value, not double[3] out-arguments: nested expressions
 * (add(cross(om, s1), x1), ...) then read like the Python engine's vector expressions, with no
 * temporaries to name and no aliasing between input and output; at -O2 the struct stays in registers. */
typedef struct v3 {
    double x[3];
} v3;

static inline v3 mk3(double a, double b, double c) {
    v3 r;
    r.x[0] = a;
    r.x[1] = b;
    r.x[2] = c;
    return r;
}

/* (x[o], x[o + 1], x[o + 2]) */
static inline v3 vec3(const double *x, int64_t o) { return mk3(x[o], x[o + 1], x[o + 2]); }

/* row i of X (., 3) */
static inline v3 row3(const double *X, int64_t i) { return vec3(X, 3 * i); }

static inline void put3(double *X, int64_t i, v3 v) {
    X[3 * i] = v.x[0];
    X[3 * i + 1] = v.x[1];
    X[3 * i + 2] = v.x[2];
}

static inline v3 add(v3 a, v3 b) { return mk3(a.x[0] + b.x[0], a.x[1] + b.x[1], a.x[2] + b.x[2]); }

static inline v3 sub(v3 a, v3 b) { return mk3(a.x[0] - b.x[0], a.x[1] - b.x[1], a.x[2] - b.x[2]); }

static inline v3 scale(double s, v3 a) { return mk3(s * a.x[0], s * a.x[1], s * a.x[2]); }

static inline double dot3(v3 a, v3 b) { return a.x[0] * b.x[0] + a.x[1] * b.x[1] + a.x[2] * b.x[2]; }

static inline v3 cross(v3 a, v3 b) {
    return mk3(a.x[1] * b.x[2] - a.x[2] * b.x[1], a.x[2] * b.x[0] - a.x[0] * b.x[2], a.x[0] * b.x[1] - a.x[1] * b.x[0]);
}

/* The z axis of the frame X[k] (its column 2), X a stack of 4x4 frames. */
static inline v3 axis3(const double *X, int64_t k) { return mk3(X[16 * k + 2], X[16 * k + 6], X[16 * k + 10]); }

/* The origin of the frame X[k] (its column 3). */
static inline v3 origin3(const double *X, int64_t k) { return mk3(X[16 * k + 3], X[16 * k + 7], X[16 * k + 11]); }

/* F v with F the 3x3 top-left block of the row-major matrix of row width ``width`` at F. */
static inline v3 frot(const double *F, int64_t width, v3 v) {
    return mk3(F[0] * v.x[0] + F[1] * v.x[1] + F[2] * v.x[2],
               F[width] * v.x[0] + F[width + 1] * v.x[1] + F[width + 2] * v.x[2],
               F[2 * width] * v.x[0] + F[2 * width + 1] * v.x[1] + F[2 * width + 2] * v.x[2]);
}

/* X[k][:3, :3] v, X a stack of width x width matrices (4: frames, 3: rotations). */
static inline v3 rot3(const double *X, int64_t k, int64_t width, v3 v) { return frot(X + k * width * width, width, v); }

/* X[k][:3, :3]^T v. */
static inline v3 rot3_t(const double *X, int64_t k, int64_t width, v3 v) {
    const double *F = X + k * width * width;
    return mk3(F[0] * v.x[0] + F[width] * v.x[1] + F[2 * width] * v.x[2],
               F[1] * v.x[0] + F[width + 1] * v.x[1] + F[2 * width + 1] * v.x[2],
               F[2] * v.x[0] + F[width + 2] * v.x[1] + F[2 * width + 2] * v.x[2]);
}

/* Python's max(a, b) and min(a, b) (the first unless the second is greater / smaller: NaN-faithful). */
static inline double max2(double a, double b) { return b > a ? b : a; }
static inline double min2(double a, double b) { return b < a ? b : a; }

/* out = X Y (4x4). */
static void mul4(const double *X, const double *Y, double *out) {
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            out[4 * a + b] = X[4 * a] * Y[b] + X[4 * a + 1] * Y[4 + b] + X[4 * a + 2] * Y[8 + b]
                             + X[4 * a + 3] * Y[12 + b];
}

/* out = A^-1 (n x n, n <= 4; A is left untouched); returns 1 if A is singular. */
static int inverse(const double *A, int64_t n, double *out) {
    double LU[16];
    int64_t piv[4];
    for (int64_t i = 0; i < n * n; i++) LU[i] = A[i];
    if (fj_lu_factor(LU, n, n, piv)) return 1;
    for (int64_t i = 0; i < n * n; i++) out[i] = 0.0;
    for (int64_t i = 0; i < n; i++) out[i * n + i] = 1.0;
    fj_lu_solve_columns(LU, n, n, piv, out, n, n);
    return 0;
}

/* ==================================================================================================
 * The model and the scratch arrays
 * ================================================================================================== */

/* Offset of link k (chain 1's links first) in fpar (link_ because link is POSIX's link(2)). */
static inline int64_t link_(const int64_t *ipar, int64_t k) { return ipar[I_F_LINKS] + k * LINK_WIDTH; }

/* Offset of chain ch (0, 1) in fpar. */
static inline int64_t chain(const int64_t *ipar, int64_t ch) { return ipar[I_F_CHAINS] + ch * CHAIN_WIDTH; }

/* 1 if the joint of link k is prismatic (chain.Link.joint "P"), 0 if revolute. */
static inline int prismatic(const double *fpar, const int64_t *ipar, int64_t k) {
    return fpar[link_(ipar, k) + L_KIND] != 0.0;
}

/* The spring-damper force -k q - d qd of the joint of link k (chain.Chain.spring_forces). */
static inline double spring_force(const double *fpar, const int64_t *ipar, int64_t k, double q, double qd) {
    int64_t lo = link_(ipar, k);
    return -fpar[lo + L_K] * q - fpar[lo + L_D] * qd;
}

/* (first joint, number of joints) of chain ch. */
static inline void chain_range(const int64_t *ipar, int64_t ch, int64_t *first, int64_t *n) {
    *first = ch == 0 ? 0 : ipar[I_N1];
    *n = ch == 0 ? ipar[I_N1] : ipar[I_N2];
}

/* The scratch of a kernel call: fj_spatial_work of spatial_internal.h. */
typedef fj_spatial_work work;

/* work.memo: 1 if q, qd, qdd, fS, fO, nO and tf are the state of motion at the arguments in work.kept,
 * its direction, its iterations (coordinates, dynamics and holding clear it); 1 if kept also holds the
 * record's E_kin, E_pot and closure error of that state after its alpha (the mechanics of a moving mode
 * computed them at its (q, qd), with the A of the record's energy(): the same bits) */
enum { MEMO_KEPT, MEMO_DIRECTION, MEMO_ITERATIONS, MEMO_ENERGY };

/* The next `size` entries of base (NULL while only counting) */
static double *take(double *base, int64_t *used, int64_t size) {
    double *p = base ? base + *used : NULL;
    *used += size;
    return p;
}

static int64_t *itake(int64_t *base, int64_t *used, int64_t size) {
    int64_t *p = base ? base + *used : NULL;
    *used += size;
    return p;
}

/* The arrays of w carved from f and iw (NULL: only count); *nf, *ni their sizes. */
static void layout(work *w, double *f, int64_t *iw, int64_t n, int64_t n1, int64_t *nf, int64_t *ni) {
    int64_t u = 0, v = 0;
    w->T = take(f, &u, n * 16), w->M = take(f, &u, n * 16), w->S = take(f, &u, n * 6);
    w->I6 = take(f, &u, n * 36), w->comp = take(f, &u, n * 36);
    w->v6 = take(f, &u, n * 6), w->a6 = take(f, &u, n * 6), w->f6 = take(f, &u, n * 6);
    w->A = take(f, &u, n * n), w->e = take(f, &u, n), w->bias = take(f, &u, n), w->tip_bias = take(f, &u, 6);
    w->G = take(f, &u, 3 * n), w->c = take(f, &u, 3), w->Phi = take(f, &u, 3), w->Phid = take(f, &u, 3);
    w->P = take(f, &u, 6);
    w->K = take(f, &u, (n + 3) * (n + 3)), w->X = take(f, &u, (n + 3) * (n + 1));
    w->J2 = take(f, &u, 9), w->J2inv = take(f, &u, 9), w->V = take(f, &u, n * n1);
    w->qdd0 = take(f, &u, n), w->fS0 = take(f, &u, 3), w->Sq = take(f, &u, n * n), w->Sf = take(f, &u, 3 * n);
    w->Rg = take(f, &u, n * 9), w->rO = take(f, &u, n * 3), w->Rtip = take(f, &u, 18);
    w->motion = take(f, &u, n * 9), w->fO0 = take(f, &u, n * 3), w->nO0 = take(f, &u, n * 3);
    w->SfO = take(f, &u, n * n * 3), w->SnO = take(f, &u, n * n * 3);
    w->qdd = take(f, &u, n), w->fS = take(f, &u, 3), w->fO = take(f, &u, n * 3), w->nO = take(f, &u, n * 3);
    w->tf = take(f, &u, n), w->limits = take(f, &u, n), w->R4 = take(f, &u, 16);
    w->Delta = take(f, &u, n * 16), w->Ti = take(f, &u, n * 16), w->TiH = take(f, &u, n * 16);
    w->wv = take(f, &u, n), w->Mr = take(f, &u, n1 * n1), w->AV = take(f, &u, n * n1);
    w->force = take(f, &u, n * (n + 1)), w->Y = take(f, &u, n1 * (n + 1)), w->qddm = take(f, &u, n * (n + 1));
    w->res = take(f, &u, 3 * (n + 1));
    w->zero = take(f, &u, n), w->Vh = take(f, &u, n), w->col = take(f, &u, n);
    w->q = take(f, &u, n), w->qd = take(f, &u, n);
    w->piv = itake(iw, &v, n + 3), w->path = itake(iw, &v, n), w->on_path = itake(iw, &v, n);
    w->pivr = itake(iw, &v, n1);
    w->kept = take(f, &u, 2 * n + 6), w->memo = itake(iw, &v, 4), w->energy = take(f, &u, 3);
    if (nf) *nf = u;
    if (ni) *ni = v;
}

/* The arrays of a kernel call, with A, G and zero cleared (entries the kernels read but do not all
 * write). */
static void work_of(const fj_args *a, work *w) {
    int64_t n1 = a->ipar[I_N1], n = n1 + a->ipar[I_N2];
    layout(w, a->work, a->iwork, n, n1, NULL, NULL);
    for (int64_t i = 0; i < n * n; i++) w->A[i] = 0.0;
    for (int64_t i = 0; i < 3 * n; i++) w->G[i] = 0.0;
    for (int64_t i = 0; i < n; i++) w->zero[i] = 0.0;
}

/* The joints from the base to the last link of the chain (local indices, base first) into path;
 * returns their number (chain.path(-1)). */
static int64_t tip_path(const int64_t *ipar, int64_t first, int64_t n, int64_t *path) {
    const int64_t *par = ipar + ipar[I_PARENTS] + first;
    int64_t count = 0, i = n - 1;
    while (i >= 0) {
        count++;
        i = par[i];
    }
    i = n - 1;
    for (int64_t s = count - 1; s >= 0; s--) {
        path[s] = i;
        i = par[i];
    }
    return count;
}

/* ==================================================================================================
 * Open chains: frames, dynamics (recursive and trace), the point S
 * ================================================================================================== */

/* T (link frames) and M (joint-axis frames T(parent) B_p) of chain ch at its coordinates q (seed 002
 * eq. 1: T(p) = T(parent) B_p Z_p(q_p) A_p, Z = Rz of a revolute joint, Tz of a prismatic one;
 * chain.Chain.frames); MR 4x4 scratch. */
static void frames(const double *q, const double *fpar, const int64_t *ipar, int64_t ch, double *T, double *M,
                   double *MR) {
    int64_t first, n;
    chain_range(ipar, ch, &first, &n);
    for (int64_t p = 0; p < n; p++) {
        int64_t k = first + p, lo = link_(ipar, first + p), i = ipar[ipar[I_PARENTS] + first + p];
        double *Mk = M + 16 * k, *Tk = T + 16 * k;
        for (int a = 0; a < 4; a++) {
            if (i < 0) { /* base B */
                for (int b = 0; b < 4; b++) Mk[4 * a + b] = fpar[lo + L_MB + 4 * a + b];
            } else { /* T(parent) B */
                const double *Tp = T + 16 * (first + i) + 4 * a;
                double x0 = Tp[0], x1 = Tp[1], x2 = Tp[2], x3 = Tp[3];
                for (int b = 0; b < 4; b++) {
                    int64_t o = lo + L_B + b;
                    Mk[4 * a + b] = x0 * fpar[o] + x1 * fpar[o + 4] + x2 * fpar[o + 8] + x3 * fpar[o + 12];
                }
            }
        }
        if (prismatic(fpar, ipar, k)) {
            for (int a = 0; a < 4; a++) { /* M Tz(s) (chain.trans_z) */
                MR[4 * a] = Mk[4 * a], MR[4 * a + 1] = Mk[4 * a + 1], MR[4 * a + 2] = Mk[4 * a + 2];
                MR[4 * a + 3] = Mk[4 * a + 2] * q[p] + Mk[4 * a + 3];
            }
        } else {
            double c = cos(q[p]), s = sin(q[p]);
            for (int a = 0; a < 4; a++) { /* M Rz(psi) (chain.rot_z) */
                double x0 = Mk[4 * a], x1 = Mk[4 * a + 1];
                MR[4 * a] = x0 * c + x1 * s;
                MR[4 * a + 1] = -x0 * s + x1 * c;
                MR[4 * a + 2] = Mk[4 * a + 2];
                MR[4 * a + 3] = Mk[4 * a + 3];
            }
        }
        for (int a = 0; a < 4; a++) { /* (M Z) A */
            double x0 = MR[4 * a], x1 = MR[4 * a + 1], x2 = MR[4 * a + 2], x3 = MR[4 * a + 3];
            for (int b = 0; b < 4; b++) {
                int64_t o = lo + L_A + b;
                Tk[4 * a + b] = x0 * fpar[o] + x1 * fpar[o + 4] + x2 * fpar[o + 8] + x3 * fpar[o + 12];
            }
        }
    }
}

/* X[k] [u1; u2] for a stack X of 6x6 matrices, as two 3-vectors. */
static void mul6(const double *X, int64_t k, v3 u1, v3 u2, v3 *r1, v3 *r2) {
    double r[6];
    for (int a = 0; a < 6; a++) {
        const double *x = X + 36 * k + 6 * a;
        r[a] = x[0] * u1.x[0] + x[1] * u1.x[1] + x[2] * u1.x[2] + x[3] * u2.x[0] + x[4] * u2.x[1] + x[5] * u2.x[2];
    }
    *r1 = mk3(r[0], r[1], r[2]);
    *r2 = mk3(r[3], r[4], r[5]);
}

/* dynamics._link_terms: the joint axes S and the spatial inertias I of chain ch. */
static void link_terms(const double *fpar, const int64_t *ipar, int64_t first, int64_t n, const double *T,
                       const double *M, double *S, double *I6) {
    for (int64_t p = 0; p < n; p++) {
        int64_t k = first + p, lo = link_(ipar, first + p);
        v3 z = axis3(M, k), o = origin3(M, k);
        int slide = prismatic(fpar, ipar, k);
        v3 oz = cross(o, z); /* rotation about z through o, at the origin; or translation along z */
        for (int a = 0; a < 3; a++) {
            S[6 * k + a] = slide ? 0.0 : z.x[a];
            S[6 * k + 3 + a] = slide ? z.x[a] : oz.x[a];
        }
        double m = fpar[lo + L_M];
        v3 c = add(rot3(T, k, 4, vec3(fpar, lo + L_C)), origin3(T, k));
        const double C[3][3] = {{0.0, -c.x[2], c.x[1]}, {c.x[2], 0.0, -c.x[0]}, {-c.x[1], c.x[0], 0.0}}; /* skew(c) */
        const double *Tk = T + 16 * k, *Ic = fpar + lo + L_IC;
        double *Ik = I6 + 36 * k, IcRt[3][3]; /* I_c R^T */
        for (int a = 0; a < 3; a++)
            for (int j = 0; j < 3; j++)
                IcRt[a][j] = Ic[3 * a] * Tk[4 * j] + Ic[3 * a + 1] * Tk[4 * j + 1] + Ic[3 * a + 2] * Tk[4 * j + 2];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double ig = 0.0; /* R I_c R^T */
                for (int a = 0; a < 3; a++) ig += Tk[4 * i + a] * IcRt[a][j];
                double cc = C[i][0] * C[j][0] + C[i][1] * C[j][1] + C[i][2] * C[j][2];
                Ik[6 * i + j] = ig + m * cc; /* dynamics._spatial_inertia */
                Ik[6 * i + 3 + j] = m * C[i][j];
                Ik[6 * (3 + i) + j] = m * C[j][i];
                Ik[6 * (3 + i) + 3 + j] = i == j ? m : 0.0;
            }
    }
}

/* Chain ch's S, I6 (link_terms) and its block of A (links first .. first + n, par their parents), composite
 * rigid bodies (dynamics.recursive's mass matrix); comp, v6: scratch. */
static void mass_matrix(const double *fpar, const int64_t *ipar, int64_t first, int64_t n, int64_t nt,
                        const int64_t *par, const double *T, const double *M, double *S, double *I6, double *comp,
                        double *v6, double *A) {
    link_terms(fpar, ipar, first, n, T, M, S, I6);
    for (int64_t p = 0; p < n; p++)
        for (int a = 0; a < 36; a++) comp[36 * (first + p) + a] = I6[36 * (first + p) + a];
    for (int64_t p = n - 1; p >= 0; p--) { /* the inertia of each link with everything beyond it */
        int64_t i = par[p];
        if (i >= 0)
            for (int a = 0; a < 36; a++) comp[36 * (first + i) + a] += comp[36 * (first + p) + a];
    }
    for (int64_t j = 0; j < n; j++) { /* A_ij = S_i . composite_j S_j for the joints i supporting link j */
        int64_t kj = first + j;
        for (int a = 0; a < 6; a++) {
            double s = 0.0;
            for (int b = 0; b < 6; b++) s += comp[36 * kj + 6 * a + b] * S[6 * kj + b];
            v6[6 * kj + a] = s; /* scratch: composite_j S_j */
        }
        int64_t i = j;
        while (i >= 0) {
            double s = 0.0;
            for (int a = 0; a < 6; a++) s += S[6 * (first + i) + a] * v6[6 * kj + a];
            A[(first + i) * nt + kj] = s;
            A[kj * nt + first + i] = s;
            i = par[i];
        }
    }
}

/* The block of chain ch of A (mass matrix, composite rigid bodies) and e = -(h + g) (recursive
 * Newton-Euler with qdd = 0, gravity as a base acceleration, plus the joints' spring-damper forces):
 * dynamics.recursive, spatial vectors
 * [omega; v] at the global origin (Featherstone). S, I6, comp, v6, a6, f6: per link scratch. q_kept: S, I6 and
 * A hold those of this q (a call at the same q before): e alone. */
static void recursive(const double *q, const double *qd, const double *fpar, const int64_t *ipar, int64_t ch,
                      const double *T, const double *M, double *S, double *I6, double *comp, double *v6, double *a6,
                      double *f6, double *A, double *e, int q_kept) {
    int64_t first, n, nt = ipar[I_N1] + ipar[I_N2];
    chain_range(ipar, ch, &first, &n);
    const int64_t *par = ipar + ipar[I_PARENTS] + first;
    if (!q_kept) mass_matrix(fpar, ipar, first, n, nt, par, T, M, S, I6, comp, v6, A);
    v3 g = vec3(fpar, chain(ipar, ch) + CH_G);
    for (int64_t p = 0; p < n; p++) { /* outward: velocities, bias accelerations, forces */
        int64_t k = first + p, i = par[p];
        v3 s1 = scale(qd[p], vec3(S, 6 * k)); /* S qd */
        v3 s2 = scale(qd[p], vec3(S, 6 * k + 3));
        v3 om, vv, x1, x2;
        if (i < 0) {
            om = s1, vv = s2;
            x1 = mk3(0.0, 0.0, 0.0), x2 = scale(-1.0, g); /* gravity as the base acceleration */
        } else {
            om = add(vec3(v6, 6 * (first + i)), s1);
            vv = add(vec3(v6, 6 * (first + i) + 3), s2);
            x1 = vec3(a6, 6 * (first + i));
            x2 = vec3(a6, 6 * (first + i) + 3);
        }
        x1 = add(x1, cross(om, s1)); /* + crm(v) (S qd) */
        x2 = add(x2, add(cross(vv, s1), cross(om, s2)));
        for (int a = 0; a < 3; a++) {
            v6[6 * k + a] = om.x[a], v6[6 * k + 3 + a] = vv.x[a];
            a6[6 * k + a] = x1.x[a], a6[6 * k + 3 + a] = x2.x[a];
        }
        v3 h1, h2, f1, f2;
        mul6(I6, k, om, vv, &h1, &h2);          /* I v */
        v3 y1 = add(cross(om, h1), cross(vv, h2)); /* -crm(v)^T (I v) */
        v3 y2 = cross(om, h2);
        mul6(I6, k, x1, x2, &f1, &f2); /* I a */
        for (int a = 0; a < 3; a++) f6[6 * k + a] = f1.x[a] + y1.x[a], f6[6 * k + 3 + a] = f2.x[a] + y2.x[a];
    }
    for (int64_t p = n - 1; p >= 0; p--) { /* inward: each link passes its subtree's force to its parent */
        int64_t k = first + p, i = par[p];
        double s = 0.0;
        for (int a = 0; a < 6; a++) s += S[6 * k + a] * f6[6 * k + a];
        e[k] = spring_force(fpar, ipar, k, q[p], qd[p]) - s;
        if (i >= 0)
            for (int a = 0; a < 6; a++) f6[6 * (first + i) + a] += f6[6 * k + a];
    }
}

/* tr(X Y^T) = sum_ab X_ab Y_ab (4x4). */
static double trace_product(const double *X, const double *Y) {
    double s = 0.0;
    for (int a = 0; a < 16; a++) s += X[a] * Y[a];
    return s;
}

/* Delta_i = M_i Q_i M_i^-1 of the joints of chain ch (local index); 1 if an M_i is singular. */
static int deltas(const double *fpar, const int64_t *ipar, int64_t first, int64_t n, const double *M,
                  double *Delta) {
    double Minv[16], MQ[16];
    for (int64_t p = 0; p < n; p++) {
        const double *Mk = M + 16 * (first + p);
        if (inverse(Mk, 4, Minv)) return 1;
        if (prismatic(fpar, ipar, first + p)) {
            for (int a = 0; a < 4; a++) { /* M Q_P: dTz/ds = Q_P Tz with Q_P[2, 3] = 1 */
                MQ[4 * a] = 0.0, MQ[4 * a + 1] = 0.0, MQ[4 * a + 2] = 0.0, MQ[4 * a + 3] = Mk[4 * a + 2];
            }
        } else {
            for (int a = 0; a < 4; a++) { /* M Q: dRz/dpsi = Q Rz with Q[0, 1] = -1, Q[1, 0] = 1 */
                MQ[4 * a] = Mk[4 * a + 1], MQ[4 * a + 1] = -Mk[4 * a], MQ[4 * a + 2] = 0.0, MQ[4 * a + 3] = 0.0;
            }
        }
        mul4(MQ, Minv, Delta + 16 * p);
    }
    return 0;
}

/* The block of chain ch of A and e by the trace formulation of seed 002 eq. (2)
 * (dynamics.lagrange_trace): A_ij = sum_p tr(T_i H T_j^T), e_k = -sum_p (h_k + g_k) with
 * T_i = Delta_i T, T_ij = Delta_min(i,j) Delta_max(i,j) T, Delta_i = M_i Q M_i^-1.
 * Delta, Ti, TiH (n,4,4), on_path (n): scratch (w). */
static int64_t lagrange_trace(const double *q, const double *qd, const double *fpar, const int64_t *ipar, int64_t ch,
                              const double *T, const double *M, double *A, double *e, double *Delta, double *Ti,
                              double *TiH, int64_t *on_path) {
    int64_t first, n, nt = ipar[I_N1] + ipar[I_N2];
    chain_range(ipar, ch, &first, &n);
    const int64_t *par = ipar + ipar[I_PARENTS] + first;
    if (deltas(fpar, ipar, first, n, M, Delta)) return ST_FRAME_SINGULAR;
    v3 g = vec3(fpar, chain(ipar, ch) + CH_G);
    double Tqq[16], DD[16], DDT[16]; /* Ti, TiH: T_i and T_i H of the links on the path */
    for (int64_t p = 0; p < n; p++) {
        int64_t k = first + p, lo = link_(ipar, first + p);
        const double *H = fpar + lo + L_H, *Tk = T + 16 * k;
        double m = fpar[lo + L_M];
        for (int64_t i = 0; i < n; i++) on_path[i] = 0;
        for (int64_t i = p; i >= 0; i = par[i]) on_path[i] = 1;
        for (int64_t i = 0; i < n; i++)
            if (on_path[i]) {
                mul4(Delta + 16 * i, Tk, Ti + 16 * i);
                mul4(Ti + 16 * i, H, TiH + 16 * i);
            }
        for (int64_t i = 0; i < n; i++)
            if (on_path[i])
                for (int64_t j = 0; j < n; j++)
                    if (on_path[j]) A[(first + i) * nt + first + j] += trace_product(TiH + 16 * i, Ti + 16 * j);
        for (int a = 0; a < 16; a++) Tqq[a] = 0.0;
        for (int64_t i = 0; i < n; i++)
            if (on_path[i])
                for (int64_t j = 0; j < n; j++)
                    if (on_path[j]) {
                        int64_t lo_ = i < j ? i : j, hi_ = i < j ? j : i;
                        mul4(Delta + 16 * lo_, Delta + 16 * hi_, DD);
                        mul4(DD, Tk, DDT);
                        double f = qd[i] * qd[j];
                        for (int a = 0; a < 16; a++) Tqq[a] += DDT[a] * f;
                    }
        const double rbar[4] = {fpar[lo + L_C], fpar[lo + L_C + 1], fpar[lo + L_C + 2], 1.0};
        for (int64_t kk = 0; kk < n; kk++)
            if (on_path[kk]) {
                double h = trace_product(TiH + 16 * kk, Tqq), gk = 0.0;
                for (int a = 0; a < 3; a++) { /* g4 = (g, 0): only the first three rows of T_k rbar */
                    const double *t = Ti + 16 * kk + 4 * a;
                    gk += g.x[a] * (t[0] * rbar[0] + t[1] * rbar[1] + t[2] * rbar[2] + t[3] * rbar[3]);
                }
                e[first + kk] -= h + (-m * gk);
            }
    }
    for (int64_t p = 0; p < n; p++) e[first + p] += spring_force(fpar, ipar, first + p, q[p], qd[p]);
    return FJ_OK;
}

/* The point S of chain ch (its last link): position into P[ch], its Jacobian times sign into the
 * columns of G, and its acceleration at qdd = 0 b (returned): dynamics.point_terms. path: scratch. */
static v3 point_terms(const double *qd, const double *fpar, const int64_t *ipar, int64_t ch, const double *T,
                      const double *M, double *G, double *P, int64_t *path, double sign) {
    int64_t first, n, nt = ipar[I_N1] + ipar[I_N2];
    chain_range(ipar, ch, &first, &n);
    int64_t count = tip_path(ipar, first, n, path);
    int64_t last = first + n - 1;
    v3 Pc = add(rot3(T, last, 4, vec3(fpar, chain(ipar, ch) + CH_RS)), origin3(T, last));
    put3(P, ch, Pc);
    v3 vP = mk3(0.0, 0.0, 0.0);
    for (int64_t s = 0; s < count; s++) { /* columns z_i x (P - o_i), or z_i of a prismatic joint */
        int64_t i = path[s];
        v3 Ji = prismatic(fpar, ipar, first + i) ? axis3(M, first + i)
                                                  : cross(axis3(M, first + i), sub(Pc, origin3(M, first + i)));
        for (int a = 0; a < 3; a++) G[a * nt + first + i] = sign * Ji.x[a];
        vP = add(vP, scale(qd[i], Ji));
    }
    v3 b = mk3(0.0, 0.0, 0.0), omega = mk3(0.0, 0.0, 0.0), v_o = mk3(0.0, 0.0, 0.0);
    v3 o_prev = origin3(M, first + path[0]);
    for (int64_t s = 0; s < count; s++) {
        int64_t i = path[s];
        v3 z = axis3(M, first + i), o = origin3(M, first + i);
        v_o = add(v_o, cross(omega, sub(o, o_prev))); /* consecutive axis points on the link between them */
        if (prismatic(fpar, ipar, first + i)) {
            b = add(b, scale(qd[i], cross(omega, z)));
            v_o = add(v_o, scale(qd[i], z)); /* the child's point at o slides along z */
        } else {
            b = add(b, scale(qd[i], add(cross(cross(omega, z), sub(Pc, o)), cross(z, sub(vP, v_o)))));
            omega = add(omega, scale(qd[i], z));
        }
        o_prev = o;
    }
    return b;
}

/* Per joint p of chain ch: R~ (frame p to its parent's) and r~_O (O^(p) in the parent's frame) of
 * A_parent B Rz(psi) (reactions._joint_geometry); and R_k of the last link (its joint frame in global
 * axes, T_k A_k^-1). */
static void ne_geometry(const double *q, const double *fpar, const int64_t *ipar, int64_t ch, const double *T,
                        double *Rg, double *rO, double *Rtip) {
    int64_t first, n;
    chain_range(ipar, ch, &first, &n);
    for (int64_t p = 0; p < n; p++) {
        int64_t k = first + p, lo = link_(ipar, first + p);
        int slide = prismatic(fpar, ipar, k);
        double c = slide ? 1.0 : cos(q[p]), s = slide ? 0.0 : sin(q[p]), dz = slide ? q[p] : 0.0;
        for (int a = 0; a < 3; a++) { /* (A_parent B) Z(q): Rz(psi), or Tz(s) */
            double x0 = fpar[lo + L_AB + 4 * a], x1 = fpar[lo + L_AB + 4 * a + 1], x2 = fpar[lo + L_AB + 4 * a + 2];
            Rg[9 * k + 3 * a] = slide ? x0 : x0 * c + x1 * s;
            Rg[9 * k + 3 * a + 1] = slide ? x1 : -x0 * s + x1 * c;
            Rg[9 * k + 3 * a + 2] = x2;
            rO[3 * k + a] = slide ? x2 * dz + fpar[lo + L_AB + 4 * a + 3] : fpar[lo + L_AB + 4 * a + 3];
        }
    }
    int64_t last = first + n - 1, la = link_(ipar, last) + L_A;
    const double *Tl = T + 16 * last;
    for (int a = 0; a < 3; a++) /* R_k = T[k][:3, :3] A_k[:3, :3]^T */
        for (int b = 0; b < 3; b++)
            Rtip[9 * ch + 3 * a + b] = Tl[4 * a] * fpar[la + 4 * b] + Tl[4 * a + 1] * fpar[la + 4 * b + 1]
                                       + Tl[4 * a + 2] * fpar[la + 4 * b + 2];
}

/* Chain ch's qd^T A qd / 2 added to *e_kin and its -sum m g . r_C to *e_pot (dynamics.energy), from its
 * frames T and its block of the recursive A. */
static void chain_energy(const double *qd, const double *fpar, const int64_t *ipar, int64_t ch, const double *T,
                         const double *A, double *e_kin, double *e_pot) {
    int64_t first, nc, n = ipar[I_N1] + ipar[I_N2];
    chain_range(ipar, ch, &first, &nc);
    v3 g = vec3(fpar, chain(ipar, ch) + CH_G);
    double s = 0.0;
    for (int64_t i = first; i < first + nc; i++) {
        double v = 0.0;
        for (int64_t j = first; j < first + nc; j++) v += A[i * n + j] * qd[j];
        s += qd[i] * v;
    }
    *e_kin += 0.5 * s;
    double pot = 0.0;
    for (int64_t k = first; k < first + nc; k++) {
        int64_t lo = link_(ipar, k);
        v3 r_C = add(rot3(T, k, 4, vec3(fpar, lo + L_C)), origin3(T, k));
        pot += fpar[lo + L_M] * dot3(g, r_C);
    }
    *e_pot += -pot;
}

/* max(|Phi_0|, |Phi_1|, |Phi_2|) */
static double closure_error(const work *w) { return max2(max2(fabs(w->Phi[0]), fabs(w->Phi[1])), fabs(w->Phi[2])); }

/* Everything at (q, qd) that eq. (2) and the reactions need: frames, A and e of both chains, G, c,
 * Phi, dPhi/dt (loop.CutJointLoop.mass_and_bias and kinematics) and the joint geometry; w->energy: the closure
 * error, and E_kin, E_pot if with_energy (else 0). kept (fj_spatial_kept; 0 for the trace formulation, which
 * computes everything): of a chain whose q is the last call's, w holds the terms of q alone (frames, S, I6, its
 * block of A, its joint geometry), and of one whose qd is too, its bias e and the acceleration b of its point S
 * (w->bias, w->tip_bias): the rest only. */
static int64_t mechanics(const double *q, const double *qd, const double *fpar, const int64_t *ipar, work *w,
                         int kept, int with_energy) {
    int64_t n = ipar[I_N1] + ipar[I_N2];
    int trace = ipar[I_TRACE] != 0;
    if (trace) kept = 0;
    if (!kept)
        for (int64_t i = 0; i < n * n; i++) w->A[i] = 0.0;
    v3 bs = mk3(0.0, 0.0, 0.0);
    w->energy[0] = w->energy[1] = 0.0;
    for (int64_t ch = 0; ch < 2; ch++) {
        int64_t first, nc;
        chain_range(ipar, ch, &first, &nc);
        const double *qc = q + first, *qdc = qd + first;
        int q_same = (kept & (FJ_KEPT_Q << 2 * ch)) != 0, same = q_same && (kept & (FJ_KEPT_QD << 2 * ch)) != 0;
        if (!q_same) frames(qc, fpar, ipar, ch, w->T, w->M, w->R4);
        if (trace) {
            for (int64_t i = first; i < first + nc; i++) w->e[i] = 0.0;
            int64_t st = lagrange_trace(qc, qdc, fpar, ipar, ch, w->T, w->M, w->A, w->e, w->Delta, w->Ti, w->TiH,
                                        w->on_path);
            if (st) return st;
        } else {
            if (!same)
                recursive(qc, qdc, fpar, ipar, ch, w->T, w->M, w->S, w->I6, w->comp, w->v6, w->a6, w->f6, w->A,
                          w->bias, q_same);
            for (int64_t i = first; i < first + nc; i++) w->e[i] = w->bias[i]; /* a caller adds forces to e */
            if (with_energy) chain_energy(qd, fpar, ipar, ch, w->T, w->A, &w->energy[0], &w->energy[1]);
        }
        v3 b = same ? row3(w->tip_bias, ch)
                    : point_terms(qdc, fpar, ipar, ch, w->T, w->M, w->G, w->P, w->path, ch == 0 ? 1.0 : -1.0);
        put3(w->tip_bias, ch, b);
        bs = sub(b, bs); /* b1, then b2 - b1 */
        if (!q_same) ne_geometry(qc, fpar, ipar, ch, w->T, w->Rg, w->rO, w->Rtip);
    }
    for (int a = 0; a < 3; a++) {
        w->c[a] = bs.x[a];
        w->Phi[a] = w->P[a] - w->P[3 + a];
        double s = 0.0;
        for (int64_t j = 0; j < n; j++) s += w->G[a * n + j] * qd[j];
        w->Phid[a] = s;
    }
    w->energy[2] = closure_error(w);
    return FJ_OK;
}

/* Frames, the points S, Phi and G at q only (for the assembly and the dependent velocities). */
static void closure_terms(const double *q, const double *fpar, const int64_t *ipar, work *w) {
    for (int64_t ch = 0; ch < 2; ch++) {
        int64_t first, nc;
        chain_range(ipar, ch, &first, &nc);
        frames(q + first, fpar, ipar, ch, w->T, w->M, w->R4);
        point_terms(w->zero + first, fpar, ipar, ch, w->T, w->M, w->G, w->P, w->path, ch == 0 ? 1.0 : -1.0);
    }
    for (int a = 0; a < 3; a++) w->Phi[a] = w->P[a] - w->P[3 + a];
}

/* ==================================================================================================
 * The loop: eq. (2) with Baumgarte, and the minimal form
 * ================================================================================================== */

/* J2inv = J2^-1 with J2 = -G[:, n1:] (loop.CutJointLoop._dependent_inverse, q_d = q2); 1 if singular. */
static int j2_inverse(const int64_t *ipar, work *w) {
    int64_t n1 = ipar[I_N1], n = n1 + ipar[I_N2];
    double *J2 = w->J2, big = 0.0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            J2[3 * a + b] = -w->G[a * n + n1 + b];
            big = max2(big, fabs(J2[3 * a + b]));
        }
    double det = (J2[0] * (J2[4] * J2[8] - J2[5] * J2[7]) - J2[1] * (J2[3] * J2[8] - J2[5] * J2[6])
                  + J2[2] * (J2[3] * J2[7] - J2[4] * J2[6]));
    if (!(fabs(det) >= J2_SINGULAR * max2(1.0, big * (big * big)))) /* the reference's big**3, as a product */
        return 1;
    return inverse(J2, 3, w->J2inv);
}

/* Joint k of the columns cols (NULL: every joint, k itself). */
static inline int64_t column(const int64_t *cols, int64_t k) { return cols ? cols[k] : k; }

/* Seed 002 eq. (2), [A -G^T; G 0] [qdd; f_S] = [e + tau; c - 2 alpha dPhi/dt - beta^2 Phi]
 * (loop.CutJointLoop.solve), as the affine map of the friction torques: qdd0, fS0 at the joint
 * torques tau = (tau0, 0, ...), and the columns Sq[:, j], Sf[:, j] of a unit friction torque (joint torque
 * -1) on the joints j of cols (n_cols of them; NULL: every joint). q_kept: the LU of the matrix and the
 * columns are the last call's, at the same q and cols (the matrix depends on q alone): qdd0, fS0 only
 * (each column of the solve is computed alone, so they are the same numbers). */
static int64_t solve_cut(double tau0, const double *fpar, const int64_t *ipar, work *w, const int64_t *cols,
                         int64_t n_cols, int q_kept) {
    int64_t n = ipar[I_N1] + ipar[I_N2], nk = n + 3, nx = n_cols + 1;
    double alpha = fpar[ipar[I_F_LOOP] + LOOP_ALPHA], beta = fpar[ipar[I_F_LOOP] + LOOP_BETA];
    double *K = w->K, *X = w->X;
    for (int64_t i = 0; i < n; i++) X[i * nx] = w->e[i] + (i == 0 ? tau0 : 0.0);
    for (int a = 0; a < 3; a++)
        X[(n + a) * nx] = w->c[a] - 2.0 * alpha * w->Phid[a] - beta * beta * w->Phi[a];
    if (q_kept) {
        fj_lu_solve_columns(K, nk, nk, w->piv, X, 1, nx);
    } else {
        for (int64_t i = 0; i < nk * nk; i++) K[i] = 0.0;
        for (int64_t i = 0; i < nk; i++)
            for (int64_t k = 1; k < nx; k++) X[i * nx + k] = 0.0;
        for (int64_t i = 0; i < n; i++) {
            for (int64_t j = 0; j < n; j++) K[i * nk + j] = w->A[i * n + j];
            for (int a = 0; a < 3; a++) {
                K[i * nk + n + a] = -w->G[a * n + i];
                K[(n + a) * nk + i] = w->G[a * n + i];
            }
        }
        for (int64_t k = 0; k < n_cols; k++) X[column(cols, k) * nx + 1 + k] = -1.0;
        if (fj_lu_factor(K, nk, nk, w->piv)) return ST_K_SINGULAR;
        fj_lu_solve_columns(K, nk, nk, w->piv, X, nx, nx);
        for (int64_t i = 0; i < n; i++)
            for (int64_t k = 0; k < n_cols; k++) w->Sq[i * n + column(cols, k)] = X[i * nx + 1 + k];
        for (int a = 0; a < 3; a++)
            for (int64_t k = 0; k < n_cols; k++) w->Sf[a * n + column(cols, k)] = X[(n + a) * nx + 1 + k];
    }
    for (int64_t i = 0; i < n; i++) w->qdd0[i] = X[i * nx];
    for (int a = 0; a < 3; a++) w->fS0[a] = X[(n + a) * nx];
    return FJ_OK;
}

/* V = [I; J2^-1 J1] and wv = [0; -J2^-1 c] of the minimal form; Mr = V^T A V. */
static void minimal_terms(const int64_t *ipar, work *w) {
    int64_t n1 = ipar[I_N1], n = n1 + ipar[I_N2];
    double *V = w->V, *J2inv = w->J2inv, *A = w->A, *G = w->G;
    for (int64_t i = 0; i < n * n1; i++) V[i] = 0.0;
    for (int64_t i = 0; i < n1; i++) V[i * n1 + i] = 1.0;
    for (int a = 0; a < 3; a++)
        for (int64_t i = 0; i < n1; i++) {
            double s = 0.0;
            for (int b = 0; b < 3; b++) s += J2inv[3 * a + b] * G[b * n + i];
            V[(n1 + a) * n1 + i] = s;
        }
    for (int64_t i = 0; i < n; i++) w->wv[i] = 0.0;
    for (int a = 0; a < 3; a++) {
        double s = 0.0;
        for (int b = 0; b < 3; b++) s += J2inv[3 * a + b] * w->c[b];
        w->wv[n1 + a] = -s;
    }
    for (int64_t i = 0; i < n; i++) /* V^T A V */
        for (int64_t j = 0; j < n1; j++) {
            double s = 0.0;
            for (int64_t k = 0; k < n; k++) s += A[i * n + k] * V[k * n1 + j];
            w->AV[i * n1 + j] = s;
        }
    for (int64_t i = 0; i < n1; i++)
        for (int64_t j = 0; j < n1; j++) {
            double s = 0.0;
            for (int64_t k = 0; k < n; k++) s += V[k * n1 + i] * w->AV[k * n1 + j];
            w->Mr[i * n1 + j] = s;
        }
}

/* The minimal form (loop.CutJointLoop.solve_minimal): qd = V qd1, qdd = V qdd1 + w with
 * V = [I; J2^-1 J1], w = [0; -J2^-1 c], V^T A V qdd1 = V^T (e + tau - A w), and f_S = J2^-T times
 * chain 2's rows of eq. (2), e2 + tau2 - A2 qdd2; as the affine map of the friction torques. */
static int64_t solve_minimal(double tau0, const int64_t *ipar, work *w) {
    int64_t n1 = ipar[I_N1], n = n1 + ipar[I_N2], nr = n + 1;
    if (j2_inverse(ipar, w)) return ST_J2_SINGULAR;
    minimal_terms(ipar, w);
    double *V = w->V, *A = w->A, *wv = w->wv, *force = w->force, *Y = w->Y, *qdd = w->qddm, *res = w->res;
    if (fj_lu_factor(w->Mr, n1, n1, w->pivr)) return ST_REDUCED_SINGULAR;
    /* right-hand sides: column 0 the applied case, column 1 + k a unit friction torque on joint k */
    for (int64_t i = 0; i < n * nr; i++) force[i] = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int64_t k = 0; k < n; k++) s += A[i * n + k] * wv[k];
        force[i * nr] = w->e[i] + (i == 0 ? tau0 : 0.0) - s;
        force[i * nr + 1 + i] = -1.0;
    }
    for (int64_t i = 0; i < n1; i++)
        for (int64_t r = 0; r < nr; r++) {
            double s = 0.0;
            for (int64_t k = 0; k < n; k++) s += V[k * n1 + i] * force[k * nr + r];
            Y[i * nr + r] = s;
        }
    fj_lu_solve_columns(w->Mr, n1, n1, w->pivr, Y, nr, nr);
    for (int64_t i = 0; i < n; i++)
        for (int64_t r = 0; r < nr; r++) {
            double s = 0.0;
            for (int64_t j = 0; j < n1; j++) s += V[i * n1 + j] * Y[j * nr + r];
            qdd[i * nr + r] = s + (r == 0 ? wv[i] : 0.0);
        }
    for (int a = 0; a < 3; a++) { /* chain 2 rows of eq. (2): A2 qdd2 + J2^T f_S = e2 + tau2 */
        int64_t i = n1 + a;
        for (int64_t r = 0; r < nr; r++) {
            double s = 0.0;
            for (int64_t k = 0; k < n; k++) s += A[i * n + k] * qdd[k * nr + r];
            if (r == 0)
                res[a * nr + r] = w->e[i] + (i == 0 ? tau0 : 0.0) - s;
            else
                res[a * nr + r] = (i == r - 1 ? -1.0 : 0.0) - s;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        w->qdd0[i] = qdd[i * nr];
        for (int64_t k = 0; k < n; k++) w->Sq[i * n + k] = qdd[i * nr + 1 + k];
    }
    for (int a = 0; a < 3; a++)
        for (int64_t r = 0; r < nr; r++) {
            double s = 0.0;
            for (int b = 0; b < 3; b++) s += w->J2inv[3 * b + a] * res[b * nr + r];
            if (r == 0)
                w->fS0[a] = s;
            else
                w->Sf[a * n + r - 1] = s;
        }
    return FJ_OK;
}


/* q (n,) closing the loop with q1 = y[:n1] fixed, by Newton on chain 2's coordinates from y[n1:n]
 * (loop.CutJointLoop.assemble). */
static int64_t assemble(const double *y, const double *fpar, const int64_t *ipar, work *w, double *q) {
    int64_t n1 = ipar[I_N1], n = n1 + ipar[I_N2];
    for (int64_t i = 0; i < n; i++) q[i] = y[i];
    for (int it = 0; it < ASSEMBLE_MAX_ITERATIONS; it++) {
        closure_terms(q, fpar, ipar, w);
        if (closure_error(w) <= ASSEMBLE_TOL) return FJ_OK;
        if (j2_inverse(ipar, w)) return ST_J2_SINGULAR;
        const double *Ji = w->J2inv, *Phi = w->Phi;
        for (int a = 0; a < 3; a++) /* dPhi/dq2 = -J2 */
            q[n1 + a] -= -(Ji[3 * a] * Phi[0] + Ji[3 * a + 1] * Phi[1] + Ji[3 * a + 2] * Phi[2]);
    }
    return ST_NOT_CLOSED;
}

/* qd (n,) = [qd1, J2^-1 J1 qd1] at q (loop.CutJointLoop.dependent_velocities). */
static int64_t dependent_velocities(const double *q, const double *qd1, const double *fpar, const int64_t *ipar,
                                    work *w, double *qd) {
    int64_t n1 = ipar[I_N1], n = n1 + ipar[I_N2];
    closure_terms(q, fpar, ipar, w);
    if (j2_inverse(ipar, w)) return ST_J2_SINGULAR;
    for (int64_t i = 0; i < n1; i++) qd[i] = qd1[i];
    for (int a = 0; a < 3; a++) {
        double s = 0.0;
        for (int64_t i = 0; i < n1; i++) {
            double v = 0.0;
            for (int b = 0; b < 3; b++) v += w->J2inv[3 * a + b] * w->G[b * n + i];
            s += v * qd1[i];
        }
        qd[n1 + a] = s;
    }
    return FJ_OK;
}

/* (q, qd) of the state y (RSRRRSystem._coordinates): y itself in the cut form; chain 2 assembled and
 * its rates the dependent ones in the minimal form. */
static int64_t coordinates(const double *y, const double *fpar, const int64_t *ipar, work *w, double *q,
                           double *qd) {
    int64_t n = ipar[I_N1] + ipar[I_N2];
    w->memo[MEMO_KEPT] = 0;
    if (ipar[I_FORM] == FORM_MINIMAL) {
        int64_t st = assemble(y, fpar, ipar, w, q);
        if (st) return st;
        return dependent_velocities(q, y + n, fpar, ipar, w, qd);
    }
    for (int64_t i = 0; i < n; i++) q[i] = y[i], qd[i] = y[n + i];
    return FJ_OK;
}

/* The arguments of the closure's entry points: the packed model and the scratch, no mode. */
static fj_args closure_args(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar, double *scratch,
                            int64_t *iscratch) {
    fj_args a = {fpar, ipar, NULL, NULL, n_fpar, n_ipar, 0, 0, 0, 0, scratch, iscratch};
    return a;
}

int64_t fj_spatial_close(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                         const double *q_guess, double *scratch, int64_t *iscratch, double *q) {
    fj_args a = closure_args(fpar, n_fpar, ipar, n_ipar, scratch, iscratch);
    work w;
    work_of(&a, &w);
    return assemble(q_guess, fpar, ipar, &w, q);
}

int64_t fj_spatial_dependent_velocities(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                                        const double *q, const double *qd1, double *scratch, int64_t *iscratch,
                                        double *qd) {
    fj_args a = closure_args(fpar, n_fpar, ipar, n_ipar, scratch, iscratch);
    work w;
    work_of(&a, &w);
    return dependent_velocities(q, qd1, fpar, ipar, &w, qd);
}

int64_t fj_spatial_coordinates(const fj_args *a, const double *y, double *q, double *qd) {
    work w;
    work_of(a, &w);
    return coordinates(y, a->fpar, a->ipar, &w, q, qd);
}

/* ==================================================================================================
 * Reactions (eqs 3.1-3.8) and journal friction (eqs 4-7)
 * ================================================================================================== */

/* f_O, n_O (n, 3) of chain ch in its joint frames by recursive Newton-Euler (seed 002 eqs 3.1-3.8,
 * reactions.newton_euler), with the cut force f_tip (global axes) on the last link at S. Rg, rO,
 * Rtip: the joint geometry (ne_geometry); motion (n, 9) scratch: omega, omegad, vd of each link.
 * gravity 1.0, or 0.0 (with qd = 0): the part linear in qdd and f_tip, a column of the affine map (its
 * terms in omega, zero, left out). */
static void newton_euler(const double *qd, const double *qdd, v3 f_tip, double gravity, const double *fpar,
                         const int64_t *ipar, int64_t ch, const double *Rg, const double *rO, const double *Rtip,
                         double *motion, double *f_O, double *n_O) {
    int64_t first, n;
    chain_range(ipar, ch, &first, &n);
    const int64_t *par = ipar + ipar[I_PARENTS] + first;
    const v3 zero = mk3(0.0, 0.0, 0.0);
    int64_t co = chain(ipar, ch);
    int linear = gravity == 0.0; /* a column of the linear part: qd = 0, so omega = 0 on every link */
    for (int64_t p = 0; p < n; p++) { /* outward, eqs 3.1-3.6 */
        int64_t k = first + p, i = par[p];
        v3 om, omd, vd;
        if (i < 0) { /* the base: at rest, gravity as its acceleration vd_0 = -R_base^T g */
            om = zero, omd = zero, vd = scale(gravity, vec3(fpar, co + CH_VD0));
        } else {
            om = vec3(motion, 9 * i), omd = vec3(motion, 9 * i + 3), vd = vec3(motion, 9 * i + 6);
        }
        v3 r = row3(rO, k);
        int64_t lo = link_(ipar, k);
        v3 c = vec3(fpar, lo + L_CJ), vd_C, N;
        if (prismatic(fpar, ipar, k)) { /* Craig's prismatic joint: omega, omegad the parent's, (3.3) slides */
            v3 z = mk3(0.0, 0.0, qd[p]);
            vd = rot3_t(Rg, k, 3, add(add(cross(omd, r), cross(om, cross(om, r))), vd)); /* (3.3) */
            om = rot3_t(Rg, k, 3, om), omd = rot3_t(Rg, k, 3, omd);
            vd = add(add(vd, scale(2.0, cross(om, z))), mk3(0.0, 0.0, qdd[p]));
            vd_C = add(add(cross(omd, c), cross(om, cross(om, c))), vd);                      /* (3.4) */
            N = add(frot(fpar + lo + L_IJ, 3, omd), cross(om, frot(fpar + lo + L_IJ, 3, om))); /* (3.6) */
        } else if (linear) { /* omega = 0: the terms in omega vanish */
            vd = rot3_t(Rg, k, 3, add(cross(omd, r), vd));                    /* (3.3) */
            omd = add(rot3_t(Rg, k, 3, omd), mk3(0.0, 0.0, qdd[p]));        /* (3.2) */
            vd_C = add(cross(omd, c), vd);                                    /* (3.4) */
            N = frot(fpar + lo + L_IJ, 3, omd);                               /* (3.6) */
        } else {
            v3 z = mk3(0.0, 0.0, qd[p]);
            vd = rot3_t(Rg, k, 3, add(add(cross(omd, r), cross(om, cross(om, r))), vd)); /* (3.3) */
            v3 om_prev = rot3_t(Rg, k, 3, om);
            omd = add(add(rot3_t(Rg, k, 3, omd), cross(om_prev, z)), mk3(0.0, 0.0, qdd[p])); /* (3.2), Craig's form */
            om = add(om_prev, z);                                                             /* (3.1) */
            vd_C = add(add(cross(omd, c), cross(om, cross(om, c))), vd);                      /* (3.4) */
            N = add(frot(fpar + lo + L_IJ, 3, omd), cross(om, frot(fpar + lo + L_IJ, 3, om))); /* (3.6) */
        }
        for (int a = 0; a < 3; a++)
            motion[9 * p + a] = om.x[a], motion[9 * p + 3 + a] = omd.x[a], motion[9 * p + 6 + a] = vd.x[a];
        v3 F = scale(fpar[lo + L_M], vd_C);                                                   /* (3.5) */
        put3(f_O, p, F);
        put3(n_O, p, add(N, cross(c, F)));
    }
    /* the tip force acting like a child's -f at the point S */
    v3 f_loc = scale(-1.0, rot3_t(Rtip, ch, 3, f_tip));
    v3 tip = vec3(fpar, co + CH_TIP);
    put3(f_O, n - 1, add(row3(f_O, n - 1), f_loc));
    put3(n_O, n - 1, add(row3(n_O, n - 1), cross(tip, f_loc)));
    for (int64_t p = n - 1; p >= 0; p--) { /* inward, eqs 3.7-3.8: each link passes its reaction to its parent */
        int64_t i = par[p];
        if (i >= 0) {
            v3 f_child = rot3(Rg, first + p, 3, row3(f_O, p));
            put3(f_O, i, add(row3(f_O, i), f_child)); /* (3.7) */
            v3 n_child = add(rot3(Rg, first + p, 3, row3(n_O, p)), cross(row3(rO, first + p), f_child));
            put3(n_O, i, add(row3(n_O, i), n_child)); /* (3.8) */
        }
    }
}

/* The reactions as affine functions of the friction torques: fO0, nO0 of (qdd0, fS0) and the columns
 * SfO[k], SnO[k] of (Sq[:, k], Sf[:, k]) for the joints k of cols (n_cols; NULL: every joint)
 * (RSRRR.reactions: f_S on chain 1, -f_S on chain 2). q_kept: the columns are the last call's, at the same q
 * and cols (they depend on q alone: the joint geometry, Sq and Sf at qd = 0): fO0, nO0 only. */
static void reaction_map(const double *qd, const double *fpar, const int64_t *ipar, work *w, const int64_t *cols,
                         int64_t n_cols, int q_kept) {
    int64_t n = ipar[I_N1] + ipar[I_N2];
    double *col = w->col;
    for (int64_t ch = 0; ch < 2; ch++) {
        int64_t first, nc;
        chain_range(ipar, ch, &first, &nc);
        double sgn = ch == 0 ? 1.0 : -1.0;
        v3 f0 = mk3(sgn * w->fS0[0], sgn * w->fS0[1], sgn * w->fS0[2]);
        newton_euler(qd + first, w->qdd0 + first, f0, 1.0, fpar, ipar, ch, w->Rg, w->rO, w->Rtip, w->motion,
                     w->fO0 + 3 * first, w->nO0 + 3 * first);
        for (int64_t c = 0; c < (q_kept ? 0 : n_cols); c++) {
            int64_t k = column(cols, c);
            for (int64_t i = 0; i < n; i++) col[i] = w->Sq[i * n + k];
            v3 fk = mk3(sgn * w->Sf[k], sgn * w->Sf[n + k], sgn * w->Sf[2 * n + k]);
            newton_euler(w->zero + first, col + first, fk, 0.0, fpar, ipar, ch, w->Rg, w->rO, w->Rtip, w->motion,
                         w->SfO + 3 * n * k + 3 * first, w->SnO + 3 * n * k + 3 * first);
        }
    }
}

/* f_O, n_O at the friction torques t_f, from the affine map: fO0 + sum_k SfO[k] t_f[k], the columns
 * added in the order of k (each entry's sum in that order). */
static void at(const double *t_f, int64_t n, const double *fO0, const double *nO0, const double *SfO,
               const double *SnO, double *restrict fO, double *restrict nO) {
    for (int64_t i = 0; i < 3 * n; i++) fO[i] = fO0[i], nO[i] = nO0[i];
    for (int64_t k = 0; k < n; k++) {
        const double *sf = SfO + 3 * n * k, *sn = SnO + 3 * n * k, t = t_f[k];
        for (int64_t i = 0; i < 3 * n; i++) fO[i] += sf[i] * t, nO[i] += sn[i] * t;
    }
}

/* qdd, f_S at the friction torques t_f, from the affine map. */
static void at_motion(const double *t_f, int64_t n, const double *qdd0, const double *fS0, const double *Sq,
                      const double *Sf, double *qdd, double *fS) {
    for (int64_t i = 0; i < n; i++) {
        double s = qdd0[i];
        for (int64_t k = 0; k < n; k++) s += Sq[i * n + k] * t_f[k];
        qdd[i] = s;
    }
    for (int a = 0; a < 3; a++) {
        double s = fS0[a];
        for (int64_t k = 0; k < n; k++) s += Sf[a * n + k] * t_f[k];
        fS[a] = s;
    }
}

/* The radial forces of journal j's surfaces A and B at z = -+a_bar/2, carrying f_x, f_y and the moments n_x,
 * n_y of its joint's reactions f_O, n_O (3,): F = (x_A, y_A, x_B, y_B) (N), the components of eqs 6.1-6.2. */
static void radial_forces(const double *fpar, const int64_t *ipar, int64_t j, const double *f_O, const double *n_O,
                          double *F) {
    double a_bar = fpar[ipar[I_F_JOURNALS] + j * JOURNAL_WIDTH + J_A_BAR];
    double f_nx = n_O[0] / a_bar, f_ny = n_O[1] / a_bar;
    F[0] = 0.5 * f_O[0] - f_ny, F[1] = 0.5 * f_O[1] + f_nx;
    F[2] = 0.5 * f_O[0] + f_ny, F[3] = 0.5 * f_O[1] - f_nx;
}

/* (|F_A|, |F_B|, |f_z|) from the radial forces F of radial_forces and f_z. */
static void loads_of(const double *F, double f_z, double *loads) {
    loads[0] = sqrt(F[0] * F[0] + F[1] * F[1]); /* (6.1); np.hypot in Python: the same to rounding */
    loads[1] = sqrt(F[2] * F[2] + F[3] * F[3]); /* (6.2) */
    loads[2] = fabs(f_z);
}

void fj_spatial_surface_loads(const double *fpar, const int64_t *ipar, int64_t j, const double *f_O,
                              const double *n_O, double *loads) {
    double F[4];
    radial_forces(fpar, ipar, j, f_O, n_O, F);
    loads_of(F, f_O[2], loads);
}

void fj_spatial_arms(const double *fpar, const int64_t *ipar, int64_t j, double *arms) {
    int64_t o = ipar[I_F_JOURNALS] + j * JOURNAL_WIDTH;
    double d_A = fpar[o + J_D_A], d_C = fpar[o + J_D_C];
    arms[0] = 0.5 * d_A, arms[1] = 0.5 * fpar[o + J_D_B];                   /* (5.1), (5.2) */
    arms[2] = (d_C * d_C + d_C * d_A + d_A * d_A) / (3.0 * (d_C + d_A)); /* (5.3), 0/0-free form */
}

/* The factors mu_a arm_a (m) of journal j's surfaces A, B, C at the levels mu (3) into c (3): those of eq. (4),
 * with the arms of eqs 5.1-5.3. */
static void surface_factors(const double *fpar, const int64_t *ipar, int64_t j, const double *mu, double *c) {
    double arms[3];
    fj_spatial_arms(fpar, ipar, j, arms);
    for (int a = 0; a < 3; a++) c[a] = mu[a] * arms[a];
}

/* Journal j under its joint's reactions: its radial forces F of radial_forces, its surface loads (|F_A|, |F_B|,
 * |f_z|) (eqs 6.1-6.2) and f_z. */
typedef struct journal_load {
    double F[4], loads[3], f_z;
} journal_load;

static journal_load journal_load_of(const double *fpar, const int64_t *ipar, int64_t j, const double *f_O,
                                    const double *n_O) {
    journal_load L;
    radial_forces(fpar, ipar, j, f_O, n_O, L.F);
    loads_of(L.F, f_O[2], L.loads);
    L.f_z = f_O[2];
    return L;
}

/* sum_a c_a load_a (N.m): eq. (4) with the factors c of surface_factors under the loads L. */
static double surface_torque(const double *c, const journal_load *L) {
    return c[0] * L->loads[0] + c[1] * L->loads[1] + c[2] * L->loads[2]; /* (4) */
}

/* The gradient of surface_torque in the joint's reactions, d/d(f_O, n_O) (6,) (m for f_O, 1 for n_O), into grad
 * (inv_a: 1 / a_bar): eq. (4) differentiated through eqs 6.1-6.2, d|F| = (F . dF) / |F| with dF_A/d(f_x, f_y,
 * n_x, n_y) = (1/2, 0, 0, -1/a_bar; 0, 1/2, 1/a_bar, 0) and F_B's the same with the moments' signs flipped,
 * d|f_z| = sgn(f_z) df_z. Where a load is zero the norm has a kink: its part of the gradient is 0 there (for
 * |f_z| numpy's sign(0) = 0; for |F_A|, |F_B| the same choice), a subgradient; the torque does not depend on
 * n_z. */
static void surface_torque_gradient(const double *c, const journal_load *L, double inv_a, double *grad) {
    const double *F = L->F;
    double gA = L->loads[0] > 0.0 ? c[0] / L->loads[0] : 0.0; /* d(c_A |F_A|) = gA F_A . dF_A */
    double gB = L->loads[1] > 0.0 ? c[1] / L->loads[1] : 0.0;
    grad[0] = 0.5 * (gA * F[0] + gB * F[2]);
    grad[1] = 0.5 * (gA * F[1] + gB * F[3]);
    grad[2] = c[2] * fj_sign(L->f_z);
    grad[3] = (gA * F[1] - gB * F[3]) * inv_a;
    grad[4] = (gB * F[2] - gA * F[0]) * inv_a;
    grad[5] = 0.0;
}

/* 1 / a_bar (1/m) of journal j. */
static double inverse_length(const double *fpar, const int64_t *ipar, int64_t j) {
    return 1.0 / fpar[ipar[I_F_JOURNALS] + j * JOURNAL_WIDTH + J_A_BAR];
}

/* t_0 (N.m) of journal j at the full friction levels mu_a0 under the reactions f_O, n_O (3,) of its joint
 * (journal._full_torque); unless grad is NULL its gradient (surface_torque_gradient) into grad (6). */
static double journal_torque(const double *fpar, const int64_t *ipar, int64_t j, const double *f_O, const double *n_O,
                             double *grad) {
    double c[3];
    surface_factors(fpar, ipar, j, fpar + ipar[I_F_JOURNALS] + j * JOURNAL_WIDTH + J_MU_A, c);
    journal_load L = journal_load_of(fpar, ipar, j, f_O, n_O);
    if (grad) surface_torque_gradient(c, &L, inverse_length(fpar, ipar, j), grad);
    return surface_torque(c, &L);
}

/* sgn(psid) (1 - exp(-k |psid| / psid_k)): eq. (7) divided by mu_a0. */
static double characteristic(const double *fpar, const int64_t *ipar, int64_t j, double psid) {
    int64_t o = ipar[I_F_JOURNALS] + j * JOURNAL_WIDTH;
    return fj_sign(psid) * -expm1(-fpar[o + J_K] * fabs(psid) / fpar[o + J_PSID_K]);
}

/* ==================================================================================================
 * The state of motion: turning (RSRRR.dynamics) and held (RSRRRSystem.holding)
 * ================================================================================================== */

/* ==================================================================================================
 * The reaction-friction coupling of the RSRRR families (fj_spatial_coupling, spatial_internal.h)
 * ================================================================================================== */

/* The coupling at a state: each journal's reactions r = (f_O, n_O) as base + slope t_f, gathered from the affine
 * map (its columns in the order of the journals), its law's factors c (surface_factors) and 1 / a_bar, and its
 * loads at the last pass. */
typedef struct coupling {
    const fj_spatial_journals *law;
    double base[FJ_JOURNALS][6], slope[FJ_JOURNALS][6][FJ_JOURNALS], c[FJ_JOURNALS][3], inv_a[FJ_JOURNALS];
    journal_load load[FJ_JOURNALS];
} coupling;

static void coupling_of(const double *fpar, const int64_t *ipar, const work *w, const fj_spatial_journals *law,
                        coupling *cp) {
    int64_t n = ipar[I_N1] + ipar[I_N2];
    const int64_t *J = law->joints;
    cp->law = law;
    for (int64_t j = 0; j < FJ_JOURNALS; j++) {
        for (int a = 0; a < 3; a++) {
            cp->base[j][a] = w->fO0[3 * J[j] + a], cp->base[j][3 + a] = w->nO0[3 * J[j] + a];
            for (int64_t k = 0; k < FJ_JOURNALS; k++) { /* the column of a unit friction torque on joint J[k] */
                cp->slope[j][a][k] = w->SfO[3 * n * J[k] + 3 * J[j] + a];
                cp->slope[j][3 + a][k] = w->SnO[3 * n * J[k] + 3 * J[j] + a];
            }
        }
        surface_factors(fpar, ipar, j, law->mu[j], cp->c[j]);
        cp->inv_a[j] = inverse_length(fpar, ipar, j);
    }
}

/* The first `parts` of journal j's reactions r = (f_O, n_O) at t_f (5: all but n_z, which no torque reads). */
static void reactions_at(const coupling *cp, int64_t j, const double *t_f, int parts, double *r) {
    for (int p = 0; p < parts; p++) {
        double v = cp->base[j][p];
        for (int64_t k = 0; k < FJ_JOURNALS; k++) v += cp->slope[j][p][k] * t_f[k];
        r[p] = v;
    }
}

/* One pass of the coupling: g = g(t_f) (4) (eqs 4-7), the journals' loads into cp->load. */
static void coupling_pass(const double *fpar, const int64_t *ipar, coupling *cp, const double *t_f, double *g) {
    const fj_spatial_journals *law = cp->law;
    for (int64_t j = 0; j < FJ_JOURNALS; j++) {
        double chi = law->chi[j], r[5];
        if (chi == 0.0) {
            g[j] = law->offset[j];
            continue;
        }
        reactions_at(cp, j, t_f, 5, r);
        cp->load[j] = journal_load_of(fpar, ipar, j, r, r + 3);
        g[j] = chi * surface_torque(cp->c[j], &cp->load[j]) + law->offset[j];
    }
}

/* The Newton step of F(t_f) = t_f - g(t_f) = 0 at t_f, where the last pass gave g and the loads, into step:
 * (I - G) step = g - t_f with G_jk = dg_j/dt_k = chi_j dt_0j/d(f_O, n_O)_j . slope_j[:, k], the chain rule
 * through the affine map; where I - G is singular (or the step is not finite) the fixed point's step g - t_f.
 * Returns 1 if det(I - G) <= 0 (0 for a singular I - G included). */
static int newton_step(const coupling *cp, const double *t_f, const double *g, double *step) {
    const fj_spatial_journals *law = cp->law;
    double jac[FJ_JOURNALS * FJ_JOURNALS], grad[6];
    int64_t piv[FJ_JOURNALS];
    for (int64_t j = 0; j < FJ_JOURNALS; j++) {
        double chi = law->chi[j];
        if (chi != 0.0) surface_torque_gradient(cp->c[j], &cp->load[j], cp->inv_a[j], grad);
        for (int64_t k = 0; k < FJ_JOURNALS; k++) {
            double d = 0.0;
            if (chi != 0.0) { /* grad . slope[:, k], n_z's part zero */
                const double(*S)[FJ_JOURNALS] = cp->slope[j];
                d = grad[0] * S[0][k] + grad[1] * S[1][k] + grad[2] * S[2][k] + grad[3] * S[3][k] + grad[4] * S[4][k];
            }
            jac[j * FJ_JOURNALS + k] = (j == k) - chi * d;
        }
        step[j] = g[j] - t_f[j];
    }
    if (fj_lu_factor(jac, FJ_JOURNALS, FJ_JOURNALS, piv)) return 1;
    int folded = fj_lu_det(jac, FJ_JOURNALS, FJ_JOURNALS, piv) <= 0.0;
    fj_lu_solve(jac, FJ_JOURNALS, FJ_JOURNALS, piv, step);
    int finite = 1;
    for (int64_t j = 0; j < FJ_JOURNALS; j++) finite &= isfinite(step[j]) != 0;
    if (!finite)
        for (int64_t j = 0; j < FJ_JOURNALS; j++) step[j] = g[j] - t_f[j];
    return folded;
}

void fj_spatial_journals_of(const double *fpar, const int64_t *ipar, const int64_t *joints, const double *qd,
                            fj_spatial_journals *law) {
    for (int64_t j = 0; j < FJ_JOURNALS; j++) {
        const double *mu = fpar + ipar[I_F_JOURNALS] + j * JOURNAL_WIDTH + J_MU_A;
        law->joints[j] = joints[j];
        law->chi[j] = ipar[I_FRICTION] != 0 ? characteristic(fpar, ipar, j, qd[joints[j]]) : 0.0; /* eq. (7) / mu_a0 */
        for (int a = 0; a < 3; a++) law->mu[j][a] = mu[a];
        law->offset[j] = 0.0;
    }
}

/* Newton's method on the coupling (spatial_internal.h): a step from an iterate whose change is below that of
 * the iterate the last step left (from), else that step halved (damped; the passes count on), so the norms'
 * kinks (a load through zero) and a far start do not make it cycle; the gradients only where a step is taken. */
int64_t fj_spatial_coupling(const double *fpar, const int64_t *ipar, const fj_spatial_work *w,
                            const fj_spatial_journals *law, const double *start, double *t_f, double *f_O,
                            double *n_O, int64_t *passes, int *folded) {
    double tol = fpar[ipar[I_F_LOOP] + LOOP_COUPLING_TOL], g[FJ_JOURNALS], from[FJ_JOURNALS], step[FJ_JOURNALS];
    double change = 0.0, biggest = 0.0, accepted = INFINITY, damping = 1.0;
    int64_t limit = ipar[I_MAX_COUPLING], it = 0;
    coupling cp;
    coupling_of(fpar, ipar, w, law, &cp);
    *folded = 0;
    for (int64_t j = 0; j < FJ_JOURNALS; j++) t_f[j] = start ? start[j] : 0.0; /* NULL: the frictionless start */
    for (int64_t pass = 1; pass <= limit; pass++) {
        it = pass;
        coupling_pass(fpar, ipar, &cp, t_f, g);
        change = 0.0, biggest = 0.0;
        for (int64_t j = 0; j < FJ_JOURNALS; j++) {
            change = max2(change, fabs(g[j] - t_f[j]));
            biggest = max2(biggest, fabs(g[j]));
        }
        if (change <= tol * (1.0 + biggest) || it == limit) break;
        if (change < accepted) { /* a Newton step from this iterate */
            accepted = change, damping = 1.0;
            *folded |= newton_step(&cp, t_f, g, step);
            for (int64_t j = 0; j < FJ_JOURNALS; j++) from[j] = t_f[j];
        } else {
            damping *= 0.5;
        }
        for (int64_t j = 0; j < FJ_JOURNALS; j++) t_f[j] = from[j] + damping * step[j];
    }
    for (int64_t j = 0; j < FJ_JOURNALS; j++) { /* the reactions at t_f */
        double r[6];
        reactions_at(&cp, j, t_f, 6, r);
        for (int a = 0; a < 3; a++) f_O[3 * j + a] = r[a], n_O[3 * j + a] = r[3 + a];
    }
    *passes = it;
    return change <= tol * (1.0 + biggest) ? FJ_OK : ST_COUPLING;
}

/* The affine map of qdd, f_S and the reactions in the friction torques at (q, qd) with the net torque
 * ``applied`` on the driving link (eq. 2 in the form of ipar, eqs 3.1-3.8), into w. */
static int64_t affine_map(const double *q, const double *qd, double applied, const double *fpar, const int64_t *ipar,
                          work *w) {
    int64_t n = ipar[I_N1] + ipar[I_N2];
    w->memo[MEMO_KEPT] = 0;
    int64_t st = mechanics(q, qd, fpar, ipar, w, 0, 1);
    if (st) return st;
    st = ipar[I_FORM] == FORM_MINIMAL ? solve_minimal(applied, ipar, w)
                                        : solve_cut(applied, fpar, ipar, w, NULL, n, 0);
    if (st) return st;
    reaction_map(qd, fpar, ipar, w, NULL, n, 0);
    return FJ_OK;
}

/* status; *iterations: qdd, f_S, f_O, n_O and t_f at (q, qd) with the net torque ``applied`` on the
 * driving link, the reaction-friction coupling t_f = g(t_f) (eqs 4-7 on the affine map) solved by Newton's
 * method (fj_spatial_coupling) from the frictionless t_f = 0, with the fixed point's stopping test (RSRRR.dynamics;
 * the Python engine iterates the fixed point, which diverges once the journals' coefficients reach about
 * 0.5-1). *iterations: the passes (evaluations of g); ST_COUPLING after RSRRR.MAX_ITERATIONS passes. */
static int64_t dynamics(const double *q, const double *qd, double applied, const double *fpar, const int64_t *ipar,
                        work *w, int64_t *iterations) {
    *iterations = 0;
    int64_t st = affine_map(q, qd, applied, fpar, ipar, w);
    if (st) return st;
    const int64_t joints[FJ_JOURNALS] = {0, 1, 2, 3};
    fj_spatial_journals law;
    fj_spatial_journals_of(fpar, ipar, joints, qd, &law);
    int folded;
    st = fj_spatial_coupling(fpar, ipar, w, &law, NULL, w->tf, w->fO, w->nO, iterations, &folded);
    at_motion(w->tf, FJ_JOURNALS, w->qdd0, w->fS0, w->Sq, w->Sf, w->qdd, w->fS);
    return st;
}

/* The SpeedLoad's resistance max(0, t_0 + c (psid - psid_0)) (N.m), 0 without a load. */
static double load(const double *fpar, const int64_t *ipar, double psid) {
    if (ipar[I_LOAD] == NO_LOAD) return 0.0;
    int64_t o = ipar[I_F_LOAD];
    return max2(0.0, fpar[o + LOAD_T0] + fpar[o + LOAD_C] * (psid - fpar[o + LOAD_PSID0]));
}

/* RSRRRSystem.resistance: tau_res plus the load's (N.m). */
static double resistance(const double *tau, const double *fpar, const int64_t *ipar, double psid) {
    return tau[1] + load(fpar, ipar, psid);
}

int64_t fj_spatial_affine_map(const fj_args *a, const double *q, const double *qd, double applied) {
    work w;
    work_of(a, &w);
    return affine_map(q, qd, applied, a->fpar, a->ipar, &w);
}

void fj_spatial_motion_at(const fj_args *a, const double *t_f, double *qdd, double *f_S) {
    int64_t n1 = a->ipar[I_N1], n = n1 + a->ipar[I_N2];
    work w;
    layout(&w, a->work, a->iwork, n, n1, NULL, NULL); /* the map of the last fj_spatial_affine_map */
    at_motion(t_f, n, w.qdd0, w.fS0, w.Sq, w.Sf, qdd, f_S);
}

/* RSRRRSystem._rest_terms at rest at q: the mechanics at qd = 0 and J2^-1 into w, V = dq/dpsi11 into
 * w->Vh, *applied the net torque on the driving link (the resistance at psid11 = 0) and *Q = V^T (e +
 * applied) (N.m), the generalised force on psi11 the friction must hold (its sign the breakaway
 * direction). */
static int64_t rest_terms(const double *tau, const double *q, const double *fpar, const int64_t *ipar, work *w,
                          double *applied, double *Q) {
    int64_t n1 = ipar[I_N1], n = n1 + ipar[I_N2];
    *applied = tau[0] - resistance(tau, fpar, ipar, 0.0), *Q = 0.0;
    int64_t st = mechanics(q, w->zero, fpar, ipar, w, 0, 1);
    if (st) return st;
    if (j2_inverse(ipar, w)) return ST_J2_SINGULAR;
    double *V = w->Vh;
    V[0] = 1.0;
    for (int a = 0; a < 3; a++) {
        double s = 0.0;
        for (int b = 0; b < 3; b++) s += w->J2inv[3 * a + b] * w->G[b * n];
        V[n1 + a] = s;
    }
    double sum = 0.0;
    for (int64_t i = 0; i < n; i++) sum += V[i] * (w->e[i] + (i == 0 ? *applied : 0.0));
    *Q = sum;
    return FJ_OK;
}

/* status, *iterations, *alpha of the held state at rest at q (RSRRRSystem.holding), and *Q of
 * rest_terms: t_f are the holding torques alpha mu_s t_0 sgn(V Q), every joint at the same fraction alpha
 * of its static limit, iterated with the reactions (on the affine map of the cut form's eq. 2 at
 * qd = 0); qdd, f_S, f_O, n_O are those of the holding torques of the last pass but one, as in Python. */
static int64_t holding(const double *tau, const double *q, const double *fpar, const int64_t *ipar, work *w,
                       int64_t *iterations, double *alpha_out, double *Q_out) {
    int64_t n = ipar[I_N1] + ipar[I_N2];
    double applied, Q;
    w->memo[MEMO_KEPT] = 0;
    *iterations = 0, *alpha_out = 0.0;
    int64_t st = rest_terms(tau, q, fpar, ipar, w, &applied, &Q);
    *Q_out = Q;
    if (st) return st;
    const double *V = w->Vh;
    st = solve_cut(applied, fpar, ipar, w, NULL, n, 0);
    if (st) return st;
    reaction_map(w->zero, fpar, ipar, w, NULL, n, 0);
    double tol = fpar[ipar[I_F_LOOP] + LOOP_HOLD_TOL];
    double *t_hold = w->tf, *limits = w->limits;
    for (int64_t j = 0; j < n; j++) t_hold[j] = 0.0;
    double alpha = 0.0, new_alpha = 0.0;
    for (int64_t it = 0; it < ipar[I_MAX_HOLD]; it++) {
        at(t_hold, n, w->fO0, w->nO0, w->SfO, w->SnO, w->fO, w->nO);
        at_motion(t_hold, n, w->qdd0, w->fS0, w->Sq, w->Sf, w->qdd, w->fS);
        double capacity = 0.0;
        for (int64_t j = 0; j < n; j++) {
            int64_t o = ipar[I_F_JOURNALS] + j * JOURNAL_WIDTH;
            limits[j] = fpar[o + J_MU_S] * journal_torque(fpar, ipar, j, w->fO + 3 * j, w->nO + 3 * j, NULL);
            capacity += fabs(V[j]) * limits[j];
        }
        if (capacity > 0)
            new_alpha = fabs(Q) / capacity;
        else
            new_alpha = Q == 0 ? 0.0 : INFINITY;
        double share = min2(new_alpha, 1.0);
        for (int64_t j = 0; j < n; j++) t_hold[j] = share * limits[j] * fj_sign(V[j] * Q);
        if (fabs(new_alpha - alpha) <= tol * max2(1.0, new_alpha) || !isfinite(new_alpha)) {
            *iterations = it + 1, *alpha_out = new_alpha;
            return FJ_OK;
        }
        alpha = new_alpha;
    }
    *iterations = ipar[I_MAX_HOLD], *alpha_out = new_alpha;
    return ST_HOLDING;
}

/* status, *iterations, *alpha: RSRRRSystem.state_of_motion into q, qd and w (qdd, fS, fO, nO, tf). */
static int64_t state_of_motion(const double *y, const double *tau, const double *fpar, const int64_t *ipar,
                               int64_t direction, work *w, double *q, double *qd, int64_t *iterations,
                               double *alpha) {
    *iterations = 0, *alpha = 0.0;
    int64_t st = coordinates(y, fpar, ipar, w, q, qd);
    if (st) return st;
    if (direction == 0) {
        double Q;
        for (int64_t i = 0; i < ipar[I_N1] + ipar[I_N2]; i++) qd[i] = 0.0;
        return holding(tau, q, fpar, ipar, w, iterations, alpha, &Q);
    }
    double applied = tau[0] - resistance(tau, fpar, ipar, y[ipar[I_N1] + ipar[I_N2]]);
    st = dynamics(q, qd, applied, fpar, ipar, w, iterations);
    *alpha = NAN;
    return st;
}

/* state_of_motion at (y, tau) in the mode of a into w (w->q, w->qd, ...), the memo's if it is that of
 * these arguments: the record after a step's last right-hand side (the state and inputs of its end)
 * reuses it, bit for bit (the results do not depend on the call history). */
static int64_t motion(const fj_args *a, const double *y, const double *tau, work *w, int64_t *iterations,
                      double *alpha) {
    int64_t n = a->ipar[I_N1] + a->ipar[I_N2], direction = a->imode[0];
    double *kept = w->kept;
    int64_t *memo = w->memo;
    if (memo[MEMO_KEPT] && memo[MEMO_DIRECTION] == direction
        && memcmp(kept, y, (size_t)(2 * n) * sizeof(double)) == 0
        && memcmp(kept + 2 * n, tau, 2 * sizeof(double)) == 0) {
        *iterations = memo[MEMO_ITERATIONS], *alpha = kept[2 * n + 2];
        return FJ_OK;
    }
    int64_t st = state_of_motion(y, tau, a->fpar, a->ipar, direction, w, w->q, w->qd, iterations, alpha);
    if (st) return st;
    memcpy(kept, y, (size_t)(2 * n) * sizeof(double));
    memcpy(kept + 2 * n, tau, 2 * sizeof(double));
    kept[2 * n + 2] = *alpha;
    for (int i = 0; i < 3; i++) kept[2 * n + 3 + i] = w->energy[i];
    memo[MEMO_DIRECTION] = direction, memo[MEMO_ITERATIONS] = *iterations, memo[MEMO_KEPT] = 1;
    memo[MEMO_ENERGY] = direction != 0 && a->ipar[I_TRACE] == 0;
    return FJ_OK;
}

/* ==================================================================================================
 * Kernels
 * ================================================================================================== */

void fj_spatial_rates(const fj_args *a, const double *y, const double *tau, const double *qd, const double *qdd,
                      const double *t_f, double *dy) {
    int64_t n = a->ipar[I_N1] + a->ipar[I_N2];
    double res = resistance(tau, a->fpar, a->ipar, y[n]);
    double applied = tau[0] - res;
    double friction_power = 0.0;
    for (int64_t j = 0; j < n; j++) {
        dy[j] = qd[j];
        dy[n + j] = qdd[j];
        friction_power += -t_f[j] * qd[j];
    }
    dy[2 * n] = applied * qd[0];
    dy[2 * n + 1] = -res * qd[0];
    dy[2 * n + 2] = friction_power;
}

/* dy/dt = [qd, qdd, drive power, resistance power, friction power] (RSRRRSystem.rhs). */
static int64_t rhs(const fj_args *a, double t, const double *y, const double *tau, double *dy, int64_t n_out) {
    int64_t iterations;
    double alpha;
    (void)t;
    if (a->imode[0] == 0) { /* stuck: nothing moves, no work is done */
        for (int64_t i = 0; i < n_out; i++) dy[i] = 0.0;
        return FJ_OK;
    }
    work w;
    work_of(a, &w);
    int64_t st = motion(a, y, tau, &w, &iterations, &alpha);
    if (st) return st;
    fj_spatial_rates(a, y, tau, w.qd, w.qdd, w.tf, dy);
    return FJ_OK;
}

/* RSRRRSystem.events(mode): none without stiction; turning: 'stop' direction psid11; stuck:
 * 'breakaway' alpha - 1 of the holding torques. */
static int64_t events(const fj_args *a, double t, const double *y, const double *tau, double *g, int64_t n_out) {
    const double *fpar = a->fpar;
    const int64_t *ipar = a->ipar;
    int64_t iterations;
    double alpha, Q;
    (void)t, (void)n_out;
    if (ipar[I_STICTION] == 0) return FJ_OK;
    int64_t n = ipar[I_N1] + ipar[I_N2];
    if (a->imode[0] != 0) {
        g[0] = (double)a->imode[0] * y[n];
        return FJ_OK;
    }
    work w;
    work_of(a, &w);
    int64_t st = coordinates(y, fpar, ipar, &w, w.q, w.qd);
    if (st) return st;
    st = holding(tau, w.q, fpar, ipar, &w, &iterations, &alpha, &Q);
    g[0] = alpha - 1.0;
    return st;
}

/* (E_kin, E_pot) in J (dynamics.energy of both chains): qd^T A qd / 2 with the recursive A, and
 * -sum m g . r_C. */
static void energy(const double *q, const double *qd, const double *fpar, const int64_t *ipar, work *w,
                   double *e_kin, double *e_pot) {
    int64_t n = ipar[I_N1] + ipar[I_N2];
    for (int64_t i = 0; i < n * n; i++) w->A[i] = 0.0;
    *e_kin = 0.0, *e_pot = 0.0;
    for (int64_t ch = 0; ch < 2; ch++) {
        int64_t first, nc;
        chain_range(ipar, ch, &first, &nc);
        frames(q + first, fpar, ipar, ch, w->T, w->M, w->R4);
        recursive(q + first, w->zero + first, fpar, ipar, ch, w->T, w->M, w->S, w->I6, w->comp, w->v6, w->a6, w->f6,
                  w->A, w->e, 0);
        chain_energy(qd, fpar, ipar, ch, w->T, w->A, e_kin, e_pot);
    }
}

void fj_spatial_record(const fj_args *a, const double *y, const double *tau, const fj_spatial_state *s,
                       double *out) {
    const double *fpar = a->fpar;
    const int64_t *ipar = a->ipar;
    int64_t n = ipar[I_N1] + ipar[I_N2];
    double e_kin, e_pot;
    work w;
    layout(&w, a->work, a->iwork, n, ipar[I_N1], NULL, NULL); /* energy and closure_terms write what they read */
    int64_t o = 0;
    const double *blocks[4] = {s->q, s->qd, s->qdd, s->f_S};
    const int64_t sizes[4] = {n, n, n, 3};
    for (int b = 0; b < 4; b++)
        for (int64_t i = 0; i < sizes[b]; i++) out[o++] = blocks[b][i];
    for (int64_t i = 0; i < 3 * n; i++) out[o++] = s->f_O[i];
    for (int64_t i = 0; i < 3 * n; i++) out[o++] = s->n_O[i];
    for (int64_t i = 0; i < n; i++) out[o++] = s->t_f[i];
    out[o] = (double)s->iterations;
    out[o + 1] = s->stuck ? 1.0 : 0.0;
    out[o + 2] = tau[0];
    out[o + 3] = resistance(tau, fpar, ipar, y[n]);
    out[o + 6] = y[2 * n], out[o + 7] = y[2 * n + 1], out[o + 8] = y[2 * n + 2];
    if (s->energy) { /* E_kin, E_pot and the closure error of the state's mechanics */
        out[o + 4] = s->energy[0], out[o + 5] = s->energy[1], out[o + 9] = s->energy[2];
        return;
    }
    energy(s->q, s->qd, fpar, ipar, &w, &e_kin, &e_pot);
    out[o + 4] = e_kin, out[o + 5] = e_pot;
    closure_terms(s->q, fpar, ipar, &w);
    out[o + 9] = closure_error(&w);
}

/* The recorded quantities of RSRRRSystem.record, flat (spatial.record_layout). */
static int64_t record(const fj_args *a, double t, const double *y, const double *tau, double *out, int64_t n_out) {
    int64_t iterations;
    double alpha;
    (void)t, (void)n_out;
    work w;
    work_of(a, &w);
    int64_t st = motion(a, y, tau, &w, &iterations, &alpha);
    if (st) return st;
    int64_t n = a->ipar[I_N1] + a->ipar[I_N2];
    fj_spatial_state s = {w.q, w.qd, w.qdd, w.fS, w.fO, w.nO, w.tf, iterations, a->imode[0] == 0,
                          w.memo[MEMO_ENERGY] ? w.kept + 2 * n + 3 : NULL}; /* the right-hand side's, or none */
    fj_spatial_record(a, y, tau, &s, out);
    return FJ_OK;
}

/* The scratch of the kernels for this packed model (layout()). */
static void work_size(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar, int64_t *n_work,
                      int64_t *n_iwork) {
    work w;
    (void)fpar, (void)n_fpar;
    *n_work = 0, *n_iwork = 0;
    if (n_ipar < HEADER) return;
    layout(&w, NULL, NULL, ipar[I_N1] + ipar[I_N2], ipar[I_N1], n_work, n_iwork);
}

/* The text of each status (the only source of these texts; spatial/packing.py has the codes). */
static const char *message(int64_t status) {
    switch (status) {
    case ST_K_SINGULAR: return "the matrix of seed 002 eq. (2) is singular (the closure Jacobian G has lost rank)";
    case ST_J2_SINGULAR: return "chain 2 is singular at S: its Jacobian J2 has no inverse";
    case ST_REDUCED_SINGULAR: return "the reduced mass matrix V^T A V of the minimal form is singular";
    case ST_NOT_CLOSED: return "the loop does not close: Newton on chain 2's coordinates did not converge";
    case ST_COUPLING: return "the reaction-friction coupling did not converge";
    case ST_HOLDING: return "the holding torques did not converge";
    case ST_FRAME_SINGULAR: return "a joint-axis frame M_i has no inverse (trace formulation)";
    case ST_NO_DIRECTION:
        return "the breakaway direction is undefined: the generalised force Q on psi(1,1) is not a number";
    default: return "unknown status";
    }
}

/* ==================================================================================================
 * The mode decisions (RSRRRSystem.update)
 * ================================================================================================== */

/* The mode arrays [direction] (fmode, imode); the events: none without stiction, one per mode with it;
 * no change report (the kind is direction_change(mode, new), the modes' alone: RSRRRSystem.change_kind). */
static void mode_layout(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                        fj_mode_layout *layout) {
    (void)fpar, (void)n_fpar;
    layout->n_fmode = layout->n_imode = 1;
    layout->max_events = n_ipar >= HEADER && ipar[I_STICTION] != 0 ? 1 : 0;
    layout->n_change = 0;
}

/* RSRRRSystem.events(mode): none without stiction; stuck: 'breakaway' (rising, input-driven); turning:
 * 'stop' (falling). They watch every decision (HybridSystem.events_watch_all). */
static int64_t mode_events(const fj_args *a, int64_t *directions, int64_t *flags, int64_t *watch_all) {
    *watch_all = 1;
    if (a->ipar[I_STICTION] == 0) return 0;
    int stuck = a->imode[0] == 0;
    directions[0] = stuck ? 1 : -1;
    flags[0] = stuck ? FJ_INPUT_DRIVEN : 0;
    return 1;
}

/* int(np.sign(Q)) into *direction: ST_NO_DIRECTION where Python's int() of a NaN raises. */
static int64_t direction_of(double Q, int64_t *direction) {
    if (isnan(Q)) return ST_NO_DIRECTION;
    *direction = Q > 0.0 ? 1 : (Q < 0.0 ? -1 : 0);
    return FJ_OK;
}

/* RSRRRSystem.update, branch by branch: the new direction (+1, -1 turning, 0 stuck) after `event` (the
 * mode's only event: 'breakaway' of a stuck mode, 'stop' of a turning one), at a time event or a
 * settling pass (FJ_NO_EVENT) or at the start (FJ_START: no mode). Stuck: y's rates (y[n:2n]) exactly
 * 0. Without stiction the mode is always +1. change: none (mode_layout). */
static int64_t decide(const fj_args *a, double t, double *y, const double *tau, int64_t event, double *fmode,
                      int64_t *imode, int64_t *change) {
    const double *fpar = a->fpar;
    const int64_t *ipar = a->ipar;
    int64_t n = ipar[I_N1] + ipar[I_N2], direction = 1, st = FJ_OK, iterations;
    double applied, Q, alpha;
    (void)t, (void)change;
    if (ipar[I_STICTION] != 0) {
        int has_mode = event != FJ_START;
        int64_t was = has_mode ? a->imode[0] : 0;
        int breakaway = event >= 0 && was == 0, stop = event >= 0 && was != 0;
        double psid = y[n];
        work w;
        work_of(a, &w);
        if (breakaway) {
            st = coordinates(y, fpar, ipar, &w, w.q, w.qd);
            if (!st) st = rest_terms(tau, w.q, fpar, ipar, &w, &applied, &Q);
            if (!st) st = direction_of(Q, &direction);
        } else if (!stop && fabs(psid) > ZERO_VELOCITY) {
            direction = psid > 0.0 ? 1 : -1;
        } else if (has_mode && was != 0 && !stop) {
            direction = was; /* right after a breakaway the new motion keeps its direction */
        } else { /* at rest: stick while the joints can hold */
            st = coordinates(y, fpar, ipar, &w, w.q, w.qd);
            if (!st) st = holding(tau, w.q, fpar, ipar, &w, &iterations, &alpha, &Q);
            if (!st) {
                if (alpha <= 1.0)
                    direction = 0;
                else
                    st = direction_of(Q, &direction);
            }
        }
        if (st) return st;
        if (direction == 0)
            for (int64_t i = n; i < 2 * n; i++) y[i] = 0.0; /* stuck: exactly at rest, no creep */
    }
    fmode[0] = (double)direction;
    imode[0] = direction;
    return FJ_OK;
}

const fj_family fj_family_spatial = {"spatial", rhs, events, record, work_size, message, mode_layout, mode_events,
                                     decide, NULL, NULL, NULL};

/* ==================================================================================================
 * The chain functions for other families (spatial_internal.h)
 * ================================================================================================== */

void fj_spatial_layout(fj_spatial_work *w, double *f, int64_t *iw, int64_t n, int64_t n1, int64_t *nf, int64_t *ni) {
    layout(w, f, iw, n, n1, nf, ni);
}

void fj_spatial_clear(fj_spatial_work *w, int64_t n) {
    for (int64_t i = 0; i < n * n; i++) w->A[i] = 0.0;
    for (int64_t i = 0; i < 3 * n; i++) w->G[i] = 0.0;
    for (int64_t i = 0; i < n; i++) w->zero[i] = 0.0;
    w->memo[MEMO_KEPT] = 0;
}

int fj_spatial_kept(const int64_t *ipar, const double *q, const double *qd, const double *q_last,
                    const double *qd_last) {
    int kept = 0;
    for (int64_t ch = 0; ch < 2; ch++) {
        int64_t first, nc;
        chain_range(ipar, ch, &first, &nc);
        size_t size = (size_t)nc * sizeof(double);
        if (memcmp(q + first, q_last + first, size) != 0) continue;
        kept |= FJ_KEPT_Q << 2 * ch;
        if (memcmp(qd + first, qd_last + first, size) == 0) kept |= FJ_KEPT_QD << 2 * ch;
    }
    return kept;
}

int64_t fj_spatial_mechanics(const double *q, const double *qd, const double *fpar, const int64_t *ipar,
                             fj_spatial_work *w, int kept) {
    return mechanics(q, qd, fpar, ipar, w, kept, 0);
}

int64_t fj_spatial_solve_cut(double tau0, const double *fpar, const int64_t *ipar, fj_spatial_work *w,
                             const int64_t *cols, int64_t n_cols, int q_kept) {
    return solve_cut(tau0, fpar, ipar, w, cols, n_cols, q_kept);
}

void fj_spatial_reaction_map(const double *qd, const double *fpar, const int64_t *ipar, fj_spatial_work *w,
                             const int64_t *cols, int64_t n_cols, int q_kept) {
    reaction_map(qd, fpar, ipar, w, cols, n_cols, q_kept);
}

double fj_spatial_journal_torque(const double *fpar, const int64_t *ipar, int64_t j, const double *f_O,
                                 const double *n_O, double *grad) {
    return journal_torque(fpar, ipar, j, f_O, n_O, grad);
}

void fj_spatial_energy(const double *q, const double *qd, const double *fpar, const int64_t *ipar,
                       fj_spatial_work *w, double *e_kin, double *e_pot) {
    energy(q, qd, fpar, ipar, w, e_kin, e_pot);
}

double fj_spatial_closure(const double *q, const double *fpar, const int64_t *ipar, fj_spatial_work *w) {
    closure_terms(q, fpar, ipar, w);
    return closure_error(w);
}

double fj_spatial_resistance(const double *tau, const double *fpar, const int64_t *ipar, double psid) {
    return resistance(tau, fpar, ipar, psid);
}
