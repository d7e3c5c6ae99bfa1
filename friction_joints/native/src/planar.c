/* planar.c: the kernels of the planar family.
 *
 * planar.system.MechanismSystem: the minimal form of seed 000 Sect. 4-5 with exact stick-slip per
 * frictional contact. The Python engine (planar.model, planar.joints, planar.tree, planar.minimal,
 * planar.coupling, friction.laws, planar.system) is the reference: the kernels re-implement the
 * same equations in the same order, on the model packed by planar.packing.pack (layouts in the
 * docstring of friction_joints/planar/packing.py; the constants in planar_internal.h). The mode
 * decisions (mode_layout, mode_events, decide: MechanismSystem.events and .update, RegularisedSystem's
 * single mode) follow update branch by branch and reuse the kernels' evaluations.
 *
 * Workspace: a->work is the float matrix of planar_pack.c's WORK_FIELDS (ipar[I_WORK_ROWS] rows of
 * ipar[I_WIDTH] columns), a->iwork the int matrix of IWORK_FIELDS; a field is a block of their rows
 * (field(), ifield()), every matrix with the row stride ipar[I_WIDTH] (`ld` below). A second such pair
 * follows (second_workspace: the events away from the memo's state). A function's comment names the
 * function of the Python engine it follows, where there is one.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "box_qp.h"
#include "fj_linalg.h"
#include "planar_internal.h"
#include "planar_joints.h"

/* constants of the Python engine (the same values) */
#define COUPLED_MAX_ITERATIONS 50 /* planar.coupling.MAX_ITERATIONS */
#define COUPLED_TOLERANCE 1e-14   /* planar.coupling.TOLERANCE */
#define MAX_CONDITION_V 1e12      /* planar.minimal._D2: cond(V) beyond which the configuration is singular */
#define MAX_BOUND_ITERATIONS 50   /* planar.system.MAX_BOUND_ITERATIONS (secant of _shared_holding) */

/* decide's change report per free coordinate (planar.packing.CHANGE_*) */
enum { CHANGE_Z = 1, CHANGE_KINEMATIC };

/* Python's max(a, b) and min(a, b), as the Python engine calls them (e.g. in
 * MechanismSystem._shared_holding): b replaces a only if it compares so, so that the results match the
 * Python reference engine's bit for bit where a NaN appears (fmax / fmin would drop the NaN). */
static double py_max(double a, double b) { return b > a ? b : a; }
static double py_min(double a, double b) { return b < a ? b : a; }
static int64_t py_imax(int64_t a, int64_t b) { return b > a ? b : a; }
static int64_t py_imin(int64_t a, int64_t b) { return b < a ? b : a; }

/* ================================================================================================
 * The workspace (the fields of WORK_FIELDS and IWORK_FIELDS, their rows in ipar[I_WORK], ipar[I_IWORK])
 * ================================================================================================ */

double *fj_planar_field(const fj_args *a, int64_t field) {
    const int64_t *ip = a->ipar;
    return a->work + ip[ip[I_WORK] + 3 * field] * ip[I_WIDTH];
}

int64_t *fj_planar_ifield(const fj_args *a, int64_t field) {
    const int64_t *ip = a->ipar;
    return a->iwork + ip[ip[I_IWORK] + 3 * field] * ip[I_WIDTH];
}

static double *field(const fj_args *a, int64_t f) { return fj_planar_field(a, f); }
static int64_t *ifield(const fj_args *a, int64_t f) { return fj_planar_ifield(a, f); }

/* ================================================================================================
 * The memo of the minimal form's terms
 *
 * The workspace keeps the terms of kinematics() at the last (q, partition) and those at the last u on
 * them, those of linear_terms() at the last h and slip()'s evaluation on them: an evaluation at the same
 * arguments, bit for bit, reuses them (the events and the record at the end of a step share the last
 * right-hand side's state, the first right-hand side of the next step too, with new inputs only; a
 * Jacobian column by differences in u keeps the terms of q). Reused or recomputed, the terms are
 * the same bits: the results do not depend on the call history (an instance's restored state continues
 * bit-identically). Whatever writes the terms' fields otherwise forgets them first: place,
 * closing_jacobian, partition_map and the projection all of them, the other evaluations (evaluate,
 * stuck_mode, gauss) the slip evaluation.
 * ================================================================================================ */

/* WI_MEMO: flags (MEMO_*: the workspace holds the kinematics of the fields memo_q and WI_MEMO_PART, those
 * of memo_u on them, the terms of linear_terms() that depend on the first only, those that depend on both
 * and h (the field h), and slip()'s evaluation on them with the friction directions of the field
 * memo_direction), then the sign flag of that evaluation */
enum { MEMO_POSITION = 16, MEMO_KINEMATICS = 1, MEMO_CONFIGURATION = 2, MEMO_FORCES = 4, MEMO_SLIP = 8 };
enum { MEMO_FLAGS, MEMO_SIGN };

static void memo_forget(const fj_args *a) { ifield(a, WI_MEMO)[MEMO_FLAGS] = 0; }

/* Forget the flags `flags`. */
static void memo_drop(const fj_args *a, int64_t flags) { ifield(a, WI_MEMO)[MEMO_FLAGS] &= ~flags; }

static int memo_has(const fj_args *a, int64_t flag) { return (ifield(a, WI_MEMO)[MEMO_FLAGS] & flag) != 0; }

static void memo_keep(const fj_args *a, int64_t flag) { ifield(a, WI_MEMO)[MEMO_FLAGS] |= flag; }

/* 1 if the n values of 8 bytes (doubles or int64_t) at x and y have the same bits. */
static int same_bits(const void *x, const void *y, int64_t n) {
    const unsigned char *px = x, *py = y;
    for (int64_t i = 0; i < n; i++) {
        uint64_t vx, vy;
        memcpy(&vx, px + 8 * i, 8);
        memcpy(&vy, py + 8 * i, 8);
        if (vx != vy) return 0;
    }
    return 1;
}

/* 1 if the workspace holds the kinematics of q and the mode's partition. */
static int memo_has_position(const fj_args *a, const double *q) {
    int64_t k1 = a->ipar[I_K1], k = a->ipar[I_K];
    return memo_has(a, MEMO_POSITION) && same_bits(q, field(a, W_MEMO_Q), k1)
           && same_bits(a->imode + IM_HEADER, ifield(a, WI_MEMO_PART), k);
}

/* 1 if the workspace holds the kinematics of (q, u) and the mode's partition. */
static int memo_has_kinematics(const fj_args *a, const double *q, const double *u) {
    return memo_has_position(a, q) && memo_has(a, MEMO_KINEMATICS)
           && same_bits(u, field(a, W_MEMO_U), a->ipar[I_K]);
}

/* The kinematics of q in the workspace are those of q and the mode's partition. */
static void memo_keep_position(const fj_args *a, const double *q) {
    memcpy(field(a, W_MEMO_Q), q, (size_t)a->ipar[I_K1] * sizeof(double));
    memcpy(ifield(a, WI_MEMO_PART), a->imode + IM_HEADER, (size_t)a->ipar[I_K] * sizeof(int64_t));
    memo_keep(a, MEMO_POSITION);
}

/* The kinematics of u in the workspace are those of u (on those of memo_position). */
static void memo_keep_velocity(const fj_args *a, const double *u) {
    memcpy(field(a, W_MEMO_U), u, (size_t)a->ipar[I_K] * sizeof(double));
    memo_keep(a, MEMO_KINEMATICS);
}

/* ================================================================================================
 * Small dense linear algebra
 * ================================================================================================ */

/* Lower Cholesky factor of A (n x n, stride lda) in place (upper part untouched); returns 1 if A is not
 * positive definite. */
static int cholesky(double *A, int64_t n, int64_t lda) {
    for (int64_t j = 0; j < n; j++) {
        double s = A[j * lda + j];
        for (int64_t c = 0; c < j; c++) s -= A[j * lda + c] * A[j * lda + c];
        if (!(s > 0.0)) return 1;
        double d = sqrt(s);
        A[j * lda + j] = d;
        for (int64_t i = j + 1; i < n; i++) {
            s = A[i * lda + j];
            for (int64_t c = 0; c < j; c++) s -= A[i * lda + c] * A[j * lda + c];
            A[i * lda + j] = s / d;
        }
    }
    return 0;
}

/* b = (L L^T)^-1 b in place. */
static void cho_solve(const double *L, int64_t n, int64_t ldl, double *b) {
    for (int64_t i = 0; i < n; i++) {
        double s = b[i];
        for (int64_t j = 0; j < i; j++) s -= L[i * ldl + j] * b[j];
        b[i] = s / L[i * ldl + i];
    }
    for (int64_t i = n - 1; i >= 0; i--) {
        double s = b[i];
        for (int64_t j = i + 1; j < n; j++) s -= L[j * ldl + i] * b[j];
        b[i] = s / L[i * ldl + i];
    }
}

/* B (n x r, stride ldb) = (L L^T)^-1 B in place (every column). */
static void cho_solve_columns(const double *L, int64_t n, int64_t ldl, double *B, int64_t r, int64_t ldb) {
    for (int64_t c = 0; c < r; c++) {
        for (int64_t i = 0; i < n; i++) {
            double s = B[i * ldb + c];
            for (int64_t j = 0; j < i; j++) s -= L[i * ldl + j] * B[j * ldb + c];
            B[i * ldb + c] = s / L[i * ldl + i];
        }
        for (int64_t i = n - 1; i >= 0; i--) {
            double s = B[i * ldb + c];
            for (int64_t j = i + 1; j < n; j++) s -= L[j * ldl + i] * B[j * ldb + c];
            B[i * ldb + c] = s / L[i * ldl + i];
        }
    }
}

static void copy(double *dst, const double *src, int64_t n) {
    for (int64_t i = 0; i < n; i++) dst[i] = src[i];
}

static double norm(const double *v, int64_t n) {
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) s += v[i] * v[i];
    return sqrt(s);
}

static double dot(const double *x, const double *y, int64_t n) {
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}

/* Singular values of S (rows x cols, stride lds, overwritten) into sv (cols), unsorted: the one-sided
 * Jacobi method (Hestenes) rotates the columns of S until they are orthogonal; their norms are the
 * singular values, each to a few ulps of itself. */
static void singular_values(double *S, int64_t rows, int64_t cols, int64_t lds, double *sv) {
    for (int sweep = 0; sweep < 60; sweep++) {
        int rotated = 0;
        for (int64_t p = 0; p < cols - 1; p++)
            for (int64_t q = p + 1; q < cols; q++) {
                double alpha = 0.0, beta = 0.0, gamma = 0.0;
                for (int64_t i = 0; i < rows; i++) {
                    alpha += S[i * lds + p] * S[i * lds + p];
                    beta += S[i * lds + q] * S[i * lds + q];
                    gamma += S[i * lds + p] * S[i * lds + q];
                }
                if (gamma == 0.0 || fabs(gamma) <= 1e-15 * sqrt(alpha * beta)) continue;
                rotated = 1;
                double zeta = (beta - alpha) / (2.0 * gamma), t;
                if (fabs(zeta) > 1e150)
                    t = 0.5 / zeta;
                else
                    t = (zeta >= 0.0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
                double c = 1.0 / sqrt(1.0 + t * t);
                double s = c * t;
                for (int64_t i = 0; i < rows; i++) {
                    double sp = S[i * lds + p], sq = S[i * lds + q];
                    S[i * lds + p] = c * sp - s * sq;
                    S[i * lds + q] = s * sp + c * sq;
                }
            }
        if (!rotated) break;
    }
    for (int64_t j = 0; j < cols; j++) {
        double s = 0.0;
        for (int64_t i = 0; i < rows; i++) s += S[i * lds + j] * S[i * lds + j];
        sv[j] = sqrt(s);
    }
}

/* 2-norm condition number of the square V (n x n, stride ldv) (np.linalg.cond): closed form up to
 * 2 x 2, else from the singular values (S, sv: scratch of V's shape and size). */
static double cond2(const double *V, int64_t n, int64_t ldv, double *S, int64_t lds, double *sv) {
    if (n == 1) return V[0] != 0.0 ? 1.0 : INFINITY;
    if (n == 2) {
        double a = V[0], b = V[1], c = V[ldv], d = V[ldv + 1];
        double det = fabs(a * d - b * c);
        if (det == 0.0) return INFINITY;
        double S2 = a * a + b * b + c * c + d * d;
        double root = sqrt(py_max(S2 * S2 - 4.0 * det * det, 0.0));
        /* sigma_max^2 = (S2 + root) / 2 and sigma_min^2 = 2 det^2 / (S2 + root) */
        return (S2 + root) / (2.0 * det);
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) S[i * lds + j] = V[i * ldv + j];
    singular_values(S, n, n, lds, sv);
    double big = 0.0, small = INFINITY;
    for (int64_t j = 0; j < n; j++) {
        big = py_max(big, sv[j]);
        small = py_min(small, sv[j]);
    }
    return small > 0.0 ? big / small : INFINITY;
}

/* ================================================================================================
 * Joints (planar.joints, seed 000 Sect. 2) and the tree (planar.tree, seed 000 Sect. 4)
 * ================================================================================================ */

/* (rx, ry, theta) of `body` in x (the ground, body 0, at the origin). */
static void pose(const double *x, int64_t body, double *r) {
    if (body == 0) {
        r[0] = r[1] = r[2] = 0.0;
        return;
    }
    int64_t k = 3 * (body - 1);
    r[0] = x[k];
    r[1] = x[k + 1];
    r[2] = x[k + 2];
}

/* The type of joint j (its code checked by the packer). */
static const fj_planar_joint_type *joint_type(const fj_args *a, int64_t j) {
    return fj_planar_joint_type_of(a->ipar[a->ipar[I_JOINTS] + JI_WIDTH * j + JI_TYPE]);
}

static const double *joint_par(const fj_args *a, int64_t j) { return a->fpar + a->ipar[I_F_JOINTS] + JF_WIDTH * j; }

/* x = g(q) (seed 000 eq. 4.2; tree.JointCoordinates.g): place the bodies joint by joint. */
static int64_t place(const fj_args *a, const double *q, double *x) {
    const int64_t *ip = a->ipar;
    memo_forget(a);
    for (int64_t i = 0; i < ip[I_N]; i++) x[i] = 0.0;
    for (int64_t t = 0; t < ip[I_K1]; t++) {
        int64_t jt = ip[ip[I_TREE] + 2 * t];
        int64_t axis = ip[ip[I_TREE] + 2 * t + 1];
        int64_t ji = ip[I_JOINTS] + JI_WIDTH * jt;
        double rj[3];
        pose(x, ip[ji + JI_BODY_J], rj);
        int64_t st = joint_type(a, jt)->place(joint_par(a, jt), axis, q[t], rj, x + 3 * (ip[ji + JI_BODY_I] - 1));
        if (st) return st;
    }
    return FJ_OK;
}

/* (cos, sin) of the angle of `body` in x into rot: from rotations (n: a body's pair at its first column,
 * rotations_of) if not NULL, else computed (the ground: (1, 0)). */
static void body_rotation(const double *x, const double *rotations, int64_t body, double rot[2]) {
    int64_t k = 3 * (body - 1);
    if (body == 0)
        rot[0] = 1.0, rot[1] = 0.0; /* cos 0, sin 0 */
    else if (rotations != NULL)
        rot[0] = rotations[k], rot[1] = rotations[k + 1];
    else
        rot[0] = cos(x[k + 2]), rot[1] = sin(x[k + 2]);
}

/* The (cos, sin) of every body's angle in x into rotations (n), for body_rotation. */
static void rotations_of(const fj_args *a, const double *x, double *rotations) {
    for (int64_t k = 0; k < a->ipar[I_N]; k += 3) rotations[k] = cos(x[k + 2]), rotations[k + 1] = sin(x[k + 2]);
}

/* The frame of joint j at x (planar_joints.h); rotations: body_rotation's. */
static void frame_of(const fj_args *a, int64_t j, const double *x, const double *rotations, fj_joint_frame *fr) {
    const int64_t *ji = a->ipar + a->ipar[I_JOINTS] + JI_WIDTH * j;
    int64_t bi = ji[JI_BODY_I], bj = ji[JI_BODY_J];
    fr->par = joint_par(a, j);
    pose(x, bi, fr->ri);
    pose(x, bj, fr->rj);
    body_rotation(x, rotations, bi, fr->rot_i);
    body_rotation(x, rotations, bj, fr->rot_j);
    fj_turn(fr->rot_i, fr->par[JF_PI], fr->par[JF_PI + 1], &fr->ai[0], &fr->ai[1]);
    fj_turn(fr->rot_j, fr->par[JF_PJ], fr->par[JF_PJ + 1], &fr->aj[0], &fr->aj[1]);
    fr->ci = 3 * (bi - 1), fr->cj = 3 * (bj - 1), fr->j_moves = bj != 0;
}

/* fj_planar_jacobians with the rotations of body_rotation. */
static void jacobians_at(const fj_args *a, const double *x, const double *rotations, double *C, double *Cmu,
                         int64_t ld) {
    const int64_t *ip = a->ipar;
    int64_t n = ip[I_N];
    for (int64_t r = 0; r < ip[I_M]; r++)
        for (int64_t c = 0; c < n; c++) C[r * ld + c] = 0.0;
    for (int64_t r = 0; r < ip[I_L]; r++)
        for (int64_t c = 0; c < n; c++) Cmu[r * ld + c] = 0.0;
    for (int64_t j = 0; j < ip[I_NJ]; j++) {
        int64_t ji = ip[I_JOINTS] + JI_WIDTH * j;
        fj_joint_frame fr;
        frame_of(a, j, x, rotations, &fr);
        joint_type(a, j)->jacobians(&fr, C + ip[ji + JI_Z] * ld, Cmu + ip[ji + JI_S] * ld, ld);
    }
}

/* The columns [lo, hi) of x outside which the rows of C and C_mu that jacobians_at writes are zero (the
 * joint's bodies, from the first's to the last's): per row of C into the fields c_lo, c_hi (m), per row of
 * C_mu into mu_lo, mu_hi (l). A product with such a row summed over these columns alone has the bits of the
 * full sum (the terms left out are zeros, and a sum from +0 stays +0 when a zero is added). */
static void row_spans(const fj_args *a) {
    const int64_t *ip = a->ipar;
    int64_t *c_lo = ifield(a, WI_C_LO), *c_hi = ifield(a, WI_C_HI);
    int64_t *mu_lo = ifield(a, WI_MU_LO), *mu_hi = ifield(a, WI_MU_HI);
    for (int64_t j = 0; j < ip[I_NJ]; j++) {
        const int64_t *ji = ip + ip[I_JOINTS] + JI_WIDTH * j;
        int64_t bi = ji[JI_BODY_I], bj = ji[JI_BODY_J], first = bi, last = bi;
        if (bj != 0) first = bj < first ? bj : first, last = bj > last ? bj : last;
        for (int64_t r = ji[JI_Z]; r < ji[JI_Z] + ji[JI_NZ]; r++) c_lo[r] = 3 * (first - 1), c_hi[r] = 3 * last;
        for (int64_t r = ji[JI_S]; r < ji[JI_S] + ji[JI_NS]; r++) mu_lo[r] = 3 * (first - 1), mu_hi[r] = 3 * last;
    }
}

/* C = dPhi/dx (m, n) and C_mu = dPsi/dx (l, n) (model.constraints; seed 000 eqs 2.1-2.2). */
void fj_planar_jacobians(const fj_args *a, const double *x, double *C, double *Cmu, int64_t ld) {
    jacobians_at(a, x, NULL, C, Cmu, ld);
}

/* Point p of `body` moving with it, out (MP_WIDTH) (joints._moving_point); rot: the body's (cos, sin). */
static void moving_point(const double *x, const double *xd, int64_t body, const double rot[2], double px, double py,
                         double *out) {
    if (body == 0) {
        out[MP_AX] = px, out[MP_AY] = py, out[MP_PX] = px, out[MP_PY] = py;
        out[MP_W] = out[MP_VX] = out[MP_VY] = 0.0;
        return;
    }
    int64_t k = 3 * (body - 1);
    double ax, ay;
    fj_turn(rot, px, py, &ax, &ay);
    double w = xd[k + 2];
    out[MP_AX] = ax, out[MP_AY] = ay, out[MP_PX] = x[k] + ax, out[MP_PY] = x[k + 1] + ay;
    out[MP_W] = w, out[MP_VX] = xd[k] + w * -ay, out[MP_VY] = xd[k + 1] + w * ax;
}

/* fj_planar_xi with the rotations of body_rotation. */
static void xi_at(const fj_args *a, const double *x, const double *xd, const double *rotations, double *xi) {
    const int64_t *ip = a->ipar;
    for (int64_t j = 0; j < ip[I_NJ]; j++) {
        int64_t ji = ip[I_JOINTS] + JI_WIDTH * j, bi = ip[ji + JI_BODY_I], bj = ip[ji + JI_BODY_J];
        const double *par = joint_par(a, j);
        fj_joint_frame fr;
        fr.par = par;
        pose(x, bj, fr.rj);
        body_rotation(x, rotations, bi, fr.rot_i);
        body_rotation(x, rotations, bj, fr.rot_j);
        double pi[MP_WIDTH], pj[MP_WIDTH];
        moving_point(x, xd, bi, fr.rot_i, par[JF_PI], par[JF_PI + 1], pi);
        moving_point(x, xd, bj, fr.rot_j, par[JF_PJ], par[JF_PJ + 1], pj);
        joint_type(a, j)->xi(&fr, pi, pj, xi + ip[ji + JI_Z]);
    }
}

/* xi = -Cdot xdot (m,) (model.xi; seed 000 eq. 2.9). */
void fj_planar_xi(const fj_args *a, const double *x, const double *xd, double *xi) { xi_at(a, x, xd, NULL, xi); }

/* ================================================================================================
 * Friction (planar.joints *.friction, seed 000 eq. 2.5; friction.laws)
 * ================================================================================================ */

/* Signed coefficient -sign mu of free coordinate c (joints._law_coefficients): mu_s if static, else
 * the kinetic mu(sd) of its law; 0 without a law or with sign 0. */
static double law_coefficient(const fj_args *a, int64_t c, double sd, double sign, int stat) {
    const int64_t *ip = a->ipar;
    int64_t kind = ip[ip[I_LAWS] + c];
    if (kind == NO_LAW || sign == 0.0) return 0.0;
    return -sign * fj_friction_mu(kind, a->fpar + ip[I_F_LAWS] + LAW_WIDTH * c, sd, stat);
}

/* The signed coefficients -sign mu (l,) of the free coordinates (model.friction's, which do not depend on the
 * reactions): friction directions `direction` (l,) (its values scale the coefficient, as in _holding_trial),
 * or sgn(sd) if use_sign; stat (l,) STAT_* flags: STAT_STATIC the static coefficient mu_s. */
static void friction_coefficients(const fj_args *a, const double *sd, const double *direction, int use_sign,
                                  const int64_t *stat, double *coef) {
    for (int64_t c = 0; c < a->ipar[I_L]; c++) {
        double sign = use_sign ? fj_sign(sd[c]) : direction[c];
        coef[c] = law_coefficient(a, c, sd[c], sign, stat[c] != 0);
    }
}

/* f_mu (l,) from the ideal reactions f (m,) and df_mu/df (model.friction) with the coefficients coef (l,) of
 * friction_coefficients; stat (l,) STAT_* flags: STAT_FIXED f_mu fixed to the workspace field `fixed` with
 * zero derivative after the law (MechanismSystem._gauss's friction). J (l, m, stride ld): only the blocks
 * (s rows, z columns) of each joint are written, the rest of df_mu/df being zero. */
static void friction(const fj_args *a, const double *f, const double *coef, const int64_t *stat, double *f_mu,
                     double *J, int64_t ld) {
    const int64_t *ip = a->ipar;
    for (int64_t j = 0; j < ip[I_NJ]; j++) {
        int64_t ji = ip[I_JOINTS] + JI_WIDTH * j;
        int64_t z = ip[ji + JI_Z], s = ip[ji + JI_S], nz = ip[ji + JI_NZ], ns = ip[ji + JI_NS];
        joint_type(a, j)->friction(joint_par(a, j), ip[ji + JI_EDGE], f + z, coef + s, f_mu + s, J + s * ld + z, ld);
        for (int64_t r = s; r < s + ns; r++)
            if (stat[r] == STAT_FIXED) {
                f_mu[r] = field(a, W_FIXED)[r];
                for (int64_t i = z; i < z + nz; i++) J[r * ld + i] = 0.0;
            } else if (stat[r] == STAT_BRISTLE) {
                f_mu[r] -= field(a, W_FIXED)[r]; /* the viscous part (BristleSystem._contacts) */
            }
    }
}

/* Static friction limits (l,) of every free coordinate with the reactions f
 * (MechanismSystem._static_limits: |f_mu| with direction 1 and mu_s everywhere). */
static void static_limits(const fj_args *a, const double *f, double *limits) {
    int64_t l = a->ipar[I_L];
    double *ones = field(a, W_ONES);
    int64_t *all_static = ifield(a, WI_ALL_STATIC);
    for (int64_t c = 0; c < l; c++) ones[c] = 1.0, all_static[c] = 1;
    double *coef = field(a, W_COEF);
    friction_coefficients(a, ones, ones, 0, all_static, coef); /* mu_s: sd unused */
    friction(a, f, coef, all_static, limits, field(a, W_J), a->ipar[I_WIDTH]);
    for (int64_t c = 0; c < l; c++) limits[c] = fabs(limits[c]);
}

/* ================================================================================================
 * The coupled reaction-friction equations f = f0 + B f_mu(f) (planar.coupling, seed 000 eq. 3.3)
 * ================================================================================================ */

/* Bf = B f_mu and R = f - f0 - B f_mu (B: m x l, stride ld). */
static void residual(const double *f, const double *f0, const double *B, const double *f_mu, int64_t m, int64_t l,
                     int64_t ld, double *Bf, double *R) {
    for (int64_t i = 0; i < m; i++) {
        double s = 0.0;
        for (int64_t c = 0; c < l; c++) s += B[i * ld + c] * f_mu[c];
        Bf[i] = s;
        R[i] = f[i] - f0[i] - s;
    }
}

/* A = I - J B (l, l) and JR = J R, J = df_mu/df being nonzero only in the blocks (s rows, z columns)
 * of each joint (every matrix with stride ld). */
static void newton_matrix(const fj_args *a, const double *B, const double *J, double *A, const double *R,
                          double *JR) {
    const int64_t *ip = a->ipar;
    int64_t l = ip[I_L], ld = ip[I_WIDTH];
    for (int64_t r = 0; r < l; r++) {
        for (int64_t c = 0; c < l; c++) A[r * ld + c] = 0.0;
        A[r * ld + r] = 1.0;
    }
    for (int64_t j = 0; j < ip[I_NJ]; j++) {
        int64_t ji = ip[I_JOINTS] + JI_WIDTH * j;
        int64_t z = ip[ji + JI_Z], nz = ip[ji + JI_NZ], s = ip[ji + JI_S], ns = ip[ji + JI_NS];
        for (int64_t r = s; r < s + ns; r++) {
            double jr = 0.0;
            for (int64_t i = z; i < z + nz; i++) {
                double jac = J[r * ld + i];
                jr += jac * R[i];
                if (jac != 0.0)
                    for (int64_t c = 0; c < l; c++) A[r * ld + c] -= jac * B[i * ld + c];
            }
            JR[r] = jr;
        }
    }
}

/* Damped Newton on R(f) = f - f0 - B f_mu(f) from f_start (coupling._newton); f, f_mu: the root.
 * Returns the number of iterations, or -1 without convergence. The iterates alternate between f, f_mu and
 * the fields f2, fmu2 (the last is copied to f, f_mu at the end). */
static int64_t newton(const fj_args *a, const double *f_start, const double *f0, const double *B, const double *sd,
                      const double *direction, int use_sign, const int64_t *stat, double *f, double *f_mu) {
    int64_t m = a->ipar[I_M], l = a->ipar[I_L], ld = a->ipar[I_WIDTH];
    double *J = field(a, W_J), *J_new = field(a, W_J2), *A = field(a, W_NA);
    double *Bf = field(a, W_BF), *R = field(a, W_R), *step = field(a, W_STEP), *JR = field(a, W_JR);
    double *f_now = f, *fmu_now = f_mu, *f_new = field(a, W_F2), *fmu_new = field(a, W_FMU2);
    double *Bf_new = field(a, W_BF2), *R_new = field(a, W_R2), *swap;
    int64_t *piv = ifield(a, WI_NPIV);
    double *coef = field(a, W_COEF);
    int64_t it = 0;
    copy(f, f_start, m);
    double scale = 1.0 + norm(f0, m);
    friction_coefficients(a, sd, direction, use_sign, stat, coef);
    friction(a, f, coef, stat, f_mu, J, ld);
    residual(f, f0, B, f_mu, m, l, ld, Bf, R);
    double res = norm(R, m);
    for (; it < COUPLED_MAX_ITERATIONS + 1; it++) {
        if (res <= COUPLED_TOLERANCE * (scale + norm(Bf, m))) break;
        if (it == COUPLED_MAX_ITERATIONS) {
            it = -1;
            break;
        }
        /* step = (I - B J)^-1 R = R + B (I - J B)^-1 J R (an l x l system instead of m x m) */
        newton_matrix(a, B, J, A, R, JR);
        if (fj_lu_factor(A, l, ld, piv) == 0) {
            fj_lu_solve(A, l, ld, piv, JR);
            for (int64_t i = 0; i < m; i++) {
                double s = 0.0;
                for (int64_t c = 0; c < l; c++) s += B[i * ld + c] * JR[c];
                step[i] = R[i] + s;
            }
        } else {
            copy(step, R, m); /* the fixed-point step R where the Jacobian is singular */
        }
        double t = 1.0, res_new;
        for (;;) { /* backtracking on the residual norm */
            for (int64_t i = 0; i < m; i++) f_new[i] = f_now[i] - t * step[i];
            friction(a, f_new, coef, stat, fmu_new, J_new, ld);
            residual(f_new, f0, B, fmu_new, m, l, ld, Bf_new, R_new);
            res_new = norm(R_new, m);
            if (res_new < res || t < 1e-6) break;
            t *= 0.5;
        }
        res = res_new;
        swap = f_now, f_now = f_new, f_new = swap;
        swap = fmu_now, fmu_now = fmu_new, fmu_new = swap;
        swap = J, J = J_new, J_new = swap;
        swap = Bf, Bf = Bf_new, Bf_new = swap;
        swap = R, R = R_new, R_new = swap;
    }
    if (f_now != f) copy(f, f_now, m), copy(f_mu, fmu_now, l);
    return it;
}

/* kappa = ||B diag(L)||_2 < 1 (coupling.solve_coupled), the Lipschitz constants L scaled by lip_scale:
 * its Frobenius norm bounds it; the exact 2-norm (the largest singular value) decides where that bound
 * does not. */
static int kappa_below_one(const fj_args *a, const double *B, double lip_scale) {
    int64_t m = a->ipar[I_M], l = a->ipar[I_L], ld = a->ipar[I_WIDTH];
    const double *lip = a->fpar + a->ipar[I_F_LIP];
    double *S = field(a, W_SV);
    double frob = 0.0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t c = 0; c < l; c++) {
            double e = B[i * ld + c] * (lip[c] * lip_scale);
            frob += e * e;
        }
    if (frob < 1.0) return 1;
    for (int64_t i = 0; i < m; i++)
        for (int64_t c = 0; c < l; c++) S[i * ld + c] = B[i * ld + c] * (lip[c] * lip_scale);
    double *sv = field(a, W_SVALUES);
    singular_values(S, m, l, ld, sv);
    double kappa = 0.0;
    for (int64_t c = 0; c < l; c++) kappa = py_max(kappa, sv[c]);
    return kappa < 1.0;
}

/* f = f0 + B f_mu(f) to machine precision (coupling.solve_coupled): Newton from f_start when the map is a
 * contraction (kappa < 1: its root is unique; if that fails to converge, from f0), else Newton from every
 * sign pattern of the joint reactions, the root to be unique. */
static int64_t solve_coupled(const fj_args *a, const double *f_start, const double *f0, const double *B,
                             const double *sd, const double *direction, int use_sign, const int64_t *stat, double *f,
                             double *f_mu) {
    const int64_t *ip = a->ipar;
    /* a bristle contact's coefficient is mu_s |direction|: the Lipschitz constants scaled by the largest
     * |direction| above 1 (BristleSystem._contacts) */
    double lip_scale = 1.0;
    for (int64_t c = 0; c < ip[I_L]; c++)
        if (stat[c] == STAT_BRISTLE) lip_scale = py_max(lip_scale, fabs(direction[c]));
    if (kappa_below_one(a, B, lip_scale)) {
        if (newton(a, f_start, f0, B, sd, direction, use_sign, stat, f, f_mu) < 0
            && (f_start == f0 || newton(a, f0, f0, B, sd, direction, use_sign, stat, f, f_mu) < 0))
            return ST_NO_CONVERGENCE; /* from f_start, else from f0 */
        return FJ_OK;
    }
    int64_t m = ip[I_M], l = ip[I_L], nj = ip[I_NJ];
    double scale = 1.0 + norm(f0, m);
    double *start = field(a, W_START), *root = field(a, W_ROOT), *root_mu = field(a, W_ROOTMU);
    int64_t n_roots = 0;
    /* itertools.product((1, -1), repeat=nj): the last joint varies fastest */
    for (int64_t pattern = 0; pattern < ((int64_t)1 << nj); pattern++) {
        copy(start, f0, m);
        for (int64_t j = 0; j < nj; j++)
            if ((pattern >> (nj - 1 - j)) & 1) {
                int64_t ji = ip[I_JOINTS] + JI_WIDTH * j;
                for (int64_t i = ip[ji + JI_Z]; i < ip[ji + JI_Z] + ip[ji + JI_NZ]; i++) start[i] = -start[i];
            }
        if (newton(a, start, f0, B, sd, direction, use_sign, stat, root, root_mu) < 0) continue;
        if (n_roots == 0) {
            copy(f, root, m);
            copy(f_mu, root_mu, l);
            n_roots = 1;
            continue;
        }
        double d = 0.0;
        for (int64_t i = 0; i < m; i++) d += (root[i] - f[i]) * (root[i] - f[i]);
        if (sqrt(d) > 1e-8 * scale) return ST_INDETERMINATE; /* a second distinct root: indeterminate */
    }
    return n_roots == 1 ? FJ_OK : ST_INCONSISTENT;
}

int64_t fj_planar_solve_coupled(const fj_args *a, const double *f0, const double *B, const double *sd,
                                const double *direction, int use_sign, const int64_t *stat, double *f,
                                double *f_mu) {
    return solve_coupled(a, f0, f0, B, sd, direction, use_sign, stat, f, f_mu);
}

/* ================================================================================================
 * The minimal form (planar.minimal, seed 000 Sect. 4-5)
 * ================================================================================================ */

/* D1 = [C1; S]^-1 [0; I] (tree.velocity_maps): C1 D1 = 0, S D1 = I. S selects q from x, so D1[xq] = I
 * and D1[xo] = -A^-1 C1[:, xq] with A = C1[:, xo] (square: the tree places each body by one coordinate
 * and two constraint rows). A: LU-factorised in place (field A, pivots piv). */
static int64_t tree_map(const fj_args *a) {
    const int64_t *ip = a->ipar;
    int64_t n = ip[I_N], k1 = ip[I_K1], ld = ip[I_WIDTH], n1 = n - k1;
    const int64_t *rows1 = ip + ip[I_ROWS1], *xq = ip + ip[I_XQ], *xo = ip + ip[I_XO];
    const double *C = field(a, W_C);
    double *A = field(a, W_A), *D1 = field(a, W_D1), *col = field(a, W_D1DQ);
    int64_t *piv = ifield(a, WI_PIV);
    for (int64_t r = 0; r < n1; r++)
        for (int64_t c = 0; c < n1; c++) A[r * ld + c] = C[rows1[r] * ld + xo[c]];
    if (fj_lu_factor(A, n1, ld, piv)) return ST_TREE_SINGULAR;
    for (int64_t i = 0; i < n; i++)
        for (int64_t t = 0; t < k1; t++) D1[i * ld + t] = 0.0;
    for (int64_t t = 0; t < k1; t++) {
        D1[xq[t] * ld + t] = 1.0;
        for (int64_t r = 0; r < n1; r++) col[r] = -C[rows1[r] * ld + xq[t]];
        fj_lu_solve(A, n1, ld, piv, col);
        for (int64_t r = 0; r < n1; r++) D1[xo[r] * ld + t] = col[r];
    }
    return FJ_OK;
}

/* x = g(q), C, C_mu, D1 and C2' = C2 D1 (m2 x k1, field C2p) at q (MinimalForm.closing_jacobian;
 * seed 000 eq. 4.4). */
static int64_t closing_jacobian(const fj_args *a, const double *q) {
    const int64_t *ip = a->ipar;
    memo_forget(a);
    int64_t k1 = ip[I_K1], m2 = ip[I_M2], ld = ip[I_WIDTH];
    const int64_t *rows2 = ip + ip[I_ROWS2];
    double *x = field(a, W_X), *C = field(a, W_C);
    int64_t st = place(a, q, x);
    if (st) return st;
    double *rotations = field(a, W_ROTATIONS);
    rotations_of(a, x, rotations);
    jacobians_at(a, x, rotations, C, field(a, W_CMU), ld);
    row_spans(a);
    st = tree_map(a);
    if (st) return st;
    const double *D1 = field(a, W_D1);
    double *C2p = field(a, W_C2P);
    const int64_t *lo = ifield(a, WI_C_LO), *hi = ifield(a, WI_C_HI);
    for (int64_t r = 0; r < m2; r++)
        for (int64_t c = 0; c < k1; c++) {
            double s = 0.0;
            for (int64_t i = lo[rows2[r]]; i < hi[rows2[r]]; i++) s += C[rows2[r] * ld + i] * D1[i * ld + c];
            C2p[r * ld + c] = s;
        }
    return FJ_OK;
}

/* z = Phi(x) (m) (model.constraints; seed 000 eq. 2.1). */
static void constraint_values(const fj_args *a, const double *x, double *z) {
    const int64_t *ip = a->ipar;
    for (int64_t j = 0; j < ip[I_NJ]; j++) {
        fj_joint_frame fr;
        frame_of(a, j, x, NULL, &fr);
        joint_type(a, j)->values(&fr, z + ip[ip[I_JOINTS] + JI_WIDTH * j + JI_Z]);
    }
}

/* |Phi2'(q)| = |z[rows2]| at x = g(q) (MinimalForm.closure), phi (m2) the closing rows; z (m) scratch. */
static double closure_norm(const fj_args *a, const double *x, double *z, double *phi) {
    const int64_t *ip = a->ipar, *rows2 = ip + ip[I_ROWS2];
    constraint_values(a, x, z);
    for (int64_t r = 0; r < ip[I_M2]; r++) phi[r] = z[rows2[r]];
    return norm(phi, ip[I_M2]);
}

#define PROJECTION_TOLERANCE 1e-12 /* planar.minimal.PROJECTION_TOLERANCE */
#define PROJECTION_ITERATIONS 20   /* MinimalForm.project's max_iterations */

int64_t fj_planar_project(const fj_args *a, double *q, double *residual) {
    const int64_t *ip = a->ipar;
    int64_t k1 = ip[I_K1], k = ip[I_K], m2 = ip[I_M2], ld = ip[I_WIDTH];
    const int64_t *part = ip + ip[I_PARTITION];
    double *x = field(a, W_X), *z = field(a, W_F), *phi = field(a, W_XI2P), *V = field(a, W_V);
    int64_t *vidx = ifield(a, WI_PART), *vpiv = ifield(a, WI_VPIV), n_v = 0;
    memo_forget(a);
    *residual = 0.0;
    if (!m2) return FJ_OK;
    for (int64_t i = 0; i < k1; i++) { /* the dependent coordinates v: the others of q, ascending */
        int64_t held = 0;
        for (int64_t j = 0; j < k; j++) held |= part[j] == i;
        if (!held) vidx[n_v++] = i;
    }
    for (int64_t iteration = 0; iteration < PROJECTION_ITERATIONS; iteration++) {
        int64_t st = place(a, q, x);
        if (st) return st;
        *residual = closure_norm(a, x, z, phi);
        if (*residual <= PROJECTION_TOLERANCE * (1.0 + norm(q, k1))) return FJ_OK;
        st = closing_jacobian(a, q);
        if (st) return st;
        const double *C2p = field(a, W_C2P);
        for (int64_t r = 0; r < m2; r++)
            for (int64_t c = 0; c < m2; c++) V[r * ld + c] = C2p[r * ld + vidx[c]];
        if (fj_lu_factor(V, m2, ld, vpiv)) break; /* singular: numpy's LinAlgError */
        fj_lu_solve(V, m2, ld, vpiv, phi);
        for (int64_t r = 0; r < m2; r++) q[vidx[r]] -= phi[r]; /* q[v] -= C2'[:, v]^-1 Phi2' */
    }
    if (place(a, q, x) == FJ_OK) *residual = closure_norm(a, x, z, phi);
    return ST_NOT_ASSEMBLED;
}

/* C2' = [U, V] (seed 000 eq. 5.1) for the partition of the mode, after closing_jacobian; D2 = [I; -V^-1 U]
 * (eq. 5.2). V: LU-factorised in place (field V, pivots vpiv). */
static int64_t partition_map(const fj_args *a) {
    const int64_t *ip = a->ipar;
    int64_t k1 = ip[I_K1], k = ip[I_K], m2 = ip[I_M2], ld = ip[I_WIDTH];
    const int64_t *part = a->imode + IM_HEADER, *vidx = a->imode + IM_HEADER + k;
    double *V = field(a, W_V), *D2 = field(a, W_D2);
    int64_t *vpiv = ifield(a, WI_VPIV);
    memo_forget(a);
    for (int64_t i = 0; i < k1; i++)
        for (int64_t j = 0; j < k; j++) D2[i * ld + j] = 0.0;
    for (int64_t j = 0; j < k; j++) D2[part[j] * ld + j] = 1.0;
    if (!m2) return FJ_OK;
    const double *C2p = field(a, W_C2P);
    double *U = field(a, W_U);
    for (int64_t r = 0; r < m2; r++)
        for (int64_t c = 0; c < m2; c++) V[r * ld + c] = C2p[r * ld + vidx[c]];
    if (!(cond2(V, m2, ld, field(a, W_SV), ld, field(a, W_SVALUES)) <= MAX_CONDITION_V)) return ST_V_SINGULAR;
    fj_lu_factor(V, m2, ld, vpiv);
    for (int64_t r = 0; r < m2; r++)
        for (int64_t c = 0; c < k; c++) U[r * ld + c] = C2p[r * ld + part[c]];
    fj_lu_solve_columns(V, m2, ld, vpiv, U, k, ld);
    for (int64_t r = 0; r < m2; r++)
        for (int64_t c = 0; c < k; c++) D2[vidx[r] * ld + c] = -U[r * ld + c];
    return FJ_OK;
}

/* The kinematics of q: closing_jacobian (which forgets the memo), partition_map and D = D1 D2. Without
 * closing constraints D2 selects the partition's columns: the sum of D1[i, b] D2[b, j] from +0 is then
 * 0.0 + D1[i, part[j]] (the other terms are +-0 and leave a sum that is not -0 unchanged), bit for bit. */
static int64_t position_terms(const fj_args *a, const double *q) {
    const int64_t *ip = a->ipar, *part = a->imode + IM_HEADER;
    int64_t n = ip[I_N], k1 = ip[I_K1], k = ip[I_K], ld = ip[I_WIDTH];
    int64_t st = closing_jacobian(a, q);
    if (st) return st;
    st = partition_map(a);
    if (st) return st;
    const double *D1 = field(a, W_D1), *D2 = field(a, W_D2);
    double *D = field(a, W_D);
    if (ip[I_M2] == 0) {
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < k; j++) D[i * ld + j] = 0.0 + D1[i * ld + part[j]];
        return FJ_OK;
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < k; j++) {
            double s = 0.0;
            for (int64_t b = 0; b < k1; b++) s += D1[i * ld + b] * D2[b * ld + j];
            D[i * ld + j] = s;
        }
    return FJ_OK;
}

/* The velocities of u on the kinematics of q in the workspace: qd, xd and sd. */
static void slip_velocity_terms(const fj_args *a, const double *u) {
    const int64_t *ip = a->ipar;
    int64_t n = ip[I_N], k1 = ip[I_K1], k = ip[I_K], l = ip[I_L], ld = ip[I_WIDTH];
    const double *Cmu = field(a, W_CMU), *D1 = field(a, W_D1), *D2 = field(a, W_D2);
    double *qd = field(a, W_QD), *xd = field(a, W_XD), *sd = field(a, W_SD);
    for (int64_t i = 0; i < k1; i++) { /* qdot = D2 u */
        double s = 0.0;
        for (int64_t j = 0; j < k; j++) s += D2[i * ld + j] * u[j];
        qd[i] = s;
    }
    for (int64_t i = 0; i < n; i++) { /* xdot = D1 qdot */
        double s = 0.0;
        for (int64_t j = 0; j < k1; j++) s += D1[i * ld + j] * qd[j];
        xd[i] = s;
    }
    const int64_t *mu_lo = ifield(a, WI_MU_LO), *mu_hi = ifield(a, WI_MU_HI);
    for (int64_t c = 0; c < l; c++) { /* sd = C_mu xdot (seed 000 eq. 5.5) */
        double s = 0.0;
        for (int64_t i = mu_lo[c]; i < mu_hi[c]; i++) s += Cmu[c * ld + i] * xd[i];
        sd[c] = s;
    }
}

/* The kinematics of u on those of q in the workspace: slip_velocity_terms' qd, xd and sd, then xi, nu2 and
 * gamma. */
static void velocity_terms(const fj_args *a, const double *u) {
    const int64_t *ip = a->ipar;
    int64_t n = ip[I_N], k1 = ip[I_K1], k = ip[I_K], m2 = ip[I_M2], ld = ip[I_WIDTH], n1 = n - k1;
    const int64_t *vidx = a->imode + IM_HEADER + k, *rows1 = ip + ip[I_ROWS1], *rows2 = ip + ip[I_ROWS2];
    const int64_t *xo = ip + ip[I_XO];
    const double *x = field(a, W_X), *C = field(a, W_C);
    const double *D1 = field(a, W_D1), *A = field(a, W_A), *V = field(a, W_V);
    slip_velocity_terms(a, u);
    double *xi = field(a, W_XI);
    xi_at(a, x, field(a, W_XD), field(a, W_ROTATIONS), xi);
    /* D1dot qdot = [C1; S]^-1 [xi_1; 0]: zero on xq, A^-1 xi_1 on xo */
    double *D1dq = field(a, W_D1DQ), *col = field(a, W_WV);
    for (int64_t r = 0; r < n1; r++) col[r] = xi[rows1[r]];
    fj_lu_solve(A, n1, ld, ifield(a, WI_PIV), col);
    for (int64_t i = 0; i < n; i++) D1dq[i] = 0.0;
    for (int64_t r = 0; r < n1; r++) D1dq[xo[r]] = col[r];
    double *nu2 = field(a, W_NU2);
    for (int64_t i = 0; i < k1; i++) nu2[i] = 0.0;
    if (m2) { /* nu2_v = V^-1 xi2', xi2' = xi2 - C2 D1dot qdot (the sign as in minimal.kinematics) */
        double *xi2p = field(a, W_XI2P);
        const int64_t *lo = ifield(a, WI_C_LO), *hi = ifield(a, WI_C_HI);
        for (int64_t r = 0; r < m2; r++) {
            double s = 0.0;
            for (int64_t i = lo[rows2[r]]; i < hi[rows2[r]]; i++) s += C[rows2[r] * ld + i] * D1dq[i];
            xi2p[r] = xi[rows2[r]] - s;
        }
        fj_lu_solve(V, m2, ld, ifield(a, WI_VPIV), xi2p);
        for (int64_t r = 0; r < m2; r++) nu2[vidx[r]] = xi2p[r];
    }
    double *gamma = field(a, W_GAMMA);
    for (int64_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int64_t b = 0; b < k1; b++) s += D1[i * ld + b] * nu2[b];
        gamma[i] = s + D1dq[i];
    }
}

/* The kinematics of q for the partition of the mode in the workspace (the memo's if it has them; a memo
 * of u on them forgotten). */
static int64_t position_kinematics(const fj_args *a, const double *q) {
    if (memo_has_position(a, q)) {
        memo_drop(a, MEMO_KINEMATICS | MEMO_FORCES | MEMO_SLIP);
        return FJ_OK;
    }
    int64_t st = position_terms(a, q);
    if (st) return st;
    memo_keep_position(a, q);
    return FJ_OK;
}

/* Velocity-level terms at (q, u) for the partition of the mode (MinimalForm.kinematics): x, xd, qd,
 * C, C_mu, xi, D1, D2, nu2, D = D1 D2, gamma = D1 nu2 + D1dot qdot, sd = C_mu xd (the memo's if it
 * has them: those of q alone, or all). */
static int64_t kinematics(const fj_args *a, const double *q, const double *u) {
    if (memo_has_kinematics(a, q, u)) return FJ_OK;
    int64_t st = position_kinematics(a, q);
    if (st) return st;
    velocity_terms(a, u);
    memo_keep_velocity(a, u);
    return FJ_OK;
}

/* The slip velocities sd at (q, u) for the partition of the mode (MechanismSystem._sd): those of kinematics()
 * (the memo's if it has them), else from the kinematics of q and slip_velocity_terms alone. */
static int64_t slip_velocities(const fj_args *a, const double *q, const double *u) {
    if (memo_has_kinematics(a, q, u)) return FJ_OK;
    int64_t st = position_kinematics(a, q);
    if (st) return st;
    slip_velocity_terms(a, u);
    return FJ_OK;
}

/* h = h_ext + H tau (seed 000 eq. 2.9) */
static void applied_forces(const fj_args *a, const double *tau, double *h) {
    const int64_t *ip = a->ipar;
    int64_t n = ip[I_N], nd = ip[I_ND], H0 = ip[I_F_H];
    const double *hext = a->fpar + ip[I_F_HEXT];
    for (int64_t i = 0; i < n; i++) {
        double s = hext[i];
        for (int64_t d = 0; d < nd; d++) s += a->fpar[H0 + i * nd + d] * tau[d];
        h[i] = s;
    }
}

/* The terms of the minimal form at the kinematics in the workspace that do not depend on the applied
 * forces (the first part of MinimalForm.linear_terms; seed 000 eqs 5.4-5.5): M'' = D^T M D and its
 * Cholesky factor L2, Cpp = C_mu D, Y = M''^-1 Cpp^T, W = M D Y - C_mu^T, the Cholesky factor of C C^T
 * and B = (C C^T)^-1 C W, the friction's part of f = f0 + B f_mu from C^T f = M xdd - h - C_mu^T f_mu by
 * the left inverse (C C^T)^-1 C. */
static int64_t configuration_terms(const fj_args *a) {
    const int64_t *ip = a->ipar;
    int64_t n = ip[I_N], m = ip[I_M], l = ip[I_L], k = ip[I_K], ld = ip[I_WIDTH];
    const double *mass = a->fpar + ip[I_F_MASS];
    const double *D = field(a, W_D), *C = field(a, W_C), *Cmu = field(a, W_CMU);
    double *L2 = field(a, W_L2), *Cpp = field(a, W_CPP), *Y = field(a, W_Y), *W = field(a, W_WM);
    double *CCt = field(a, W_CCT), *B = field(a, W_B);
    const int64_t *lo = ifield(a, WI_C_LO), *hi = ifield(a, WI_C_HI);
    const int64_t *mu_lo = ifield(a, WI_MU_LO), *mu_hi = ifield(a, WI_MU_HI);
    for (int64_t r = 0; r < k; r++)
        for (int64_t b = 0; b <= r; b++) { /* the lower half, all that cholesky reads */
            double s = 0.0;
            for (int64_t i = 0; i < n; i++) s += D[i * ld + r] * mass[i] * D[i * ld + b];
            L2[r * ld + b] = s;
        }
    if (cholesky(L2, k, ld)) return ST_M2_NOT_PD;
    for (int64_t c = 0; c < l; c++)
        for (int64_t r = 0; r < k; r++) {
            double s = 0.0;
            for (int64_t i = mu_lo[c]; i < mu_hi[c]; i++) s += Cmu[c * ld + i] * D[i * ld + r];
            Cpp[c * ld + r] = s;
        }
    for (int64_t b = 0; b < k; b++)
        for (int64_t c = 0; c < l; c++) Y[b * ld + c] = Cpp[c * ld + b];
    cho_solve_columns(L2, k, ld, Y, l, ld);
    for (int64_t i = 0; i < n; i++)
        for (int64_t c = 0; c < l; c++) {
            double s = 0.0;
            for (int64_t b = 0; b < k; b++) s += D[i * ld + b] * Y[b * ld + c];
            W[i * ld + c] = mass[i] * s - Cmu[c * ld + i];
        }
    for (int64_t r = 0; r < m; r++)
        for (int64_t c = 0; c < r + 1; c++) {
            double s = 0.0;
            for (int64_t i = py_imax(lo[r], lo[c]); i < py_imin(hi[r], hi[c]); i++) s += C[r * ld + i] * C[c * ld + i];
            CCt[r * ld + c] = s;
            CCt[c * ld + r] = s;
        }
    if (cholesky(CCt, m, ld)) return ST_CCT_SINGULAR;
    for (int64_t r = 0; r < m; r++)
        for (int64_t c = 0; c < l; c++) {
            double s = 0.0;
            for (int64_t i = lo[r]; i < hi[r]; i++) s += C[r * ld + i] * W[i * ld + c];
            B[r * ld + c] = s;
        }
    cho_solve_columns(CCt, m, ld, B, l, ld);
    return FJ_OK;
}

/* The terms of the applied forces h (the field h), after configuration_terms (the second part of
 * MinimalForm.linear_terms): h'' = D^T (h - M gamma) (seed 000 eq. 5.4), y0 = M''^-1 h'',
 * w = M D y0 + M gamma - h and f0 = (C C^T)^-1 C w. */
static void force_terms(const fj_args *a) {
    const int64_t *ip = a->ipar;
    int64_t n = ip[I_N], m = ip[I_M], k = ip[I_K], ld = ip[I_WIDTH];
    const double *mass = a->fpar + ip[I_F_MASS];
    const double *D = field(a, W_D), *gamma = field(a, W_GAMMA), *C = field(a, W_C), *h = field(a, W_H);
    const double *L2 = field(a, W_L2), *CCt = field(a, W_CCT);
    double *h2 = field(a, W_H2), *y0 = field(a, W_Y0), *wv = field(a, W_WV), *f0 = field(a, W_F0);
    const int64_t *lo = ifield(a, WI_C_LO), *hi = ifield(a, WI_C_HI);
    for (int64_t r = 0; r < k; r++) {
        double s = 0.0;
        for (int64_t i = 0; i < n; i++) s += D[i * ld + r] * (h[i] - mass[i] * gamma[i]);
        h2[r] = s;
    }
    copy(y0, h2, k);
    cho_solve(L2, k, ld, y0);
    for (int64_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int64_t b = 0; b < k; b++) s += D[i * ld + b] * y0[b];
        wv[i] = mass[i] * s + mass[i] * gamma[i] - h[i];
    }
    for (int64_t r = 0; r < m; r++) {
        double s = 0.0;
        for (int64_t i = lo[r]; i < hi[r]; i++) s += C[r * ld + i] * wv[i];
        f0[r] = s;
    }
    cho_solve(CCt, m, ld, f0);
}

/* The minimal form with friction unknown at (q, u, tau) (MinimalForm.linear_terms): kinematics(), then
 * configuration_terms() and force_terms() at h = h_ext + H tau, each reused from the memo where its
 * arguments are those of the terms in the workspace. */
static int64_t linear_terms(const fj_args *a, const double *q, const double *u, const double *tau) {
    int64_t st = kinematics(a, q, u);
    if (st) return st;
    if (!memo_has(a, MEMO_CONFIGURATION)) {
        memo_drop(a, MEMO_FORCES | MEMO_SLIP);
        if ((st = configuration_terms(a))) return st;
        memo_keep(a, MEMO_CONFIGURATION);
    }
    int64_t n = a->ipar[I_N];
    double *h = field(a, W_H), *h_new = field(a, W_H_NEW);
    applied_forces(a, tau, h_new);
    if (memo_has(a, MEMO_FORCES) && same_bits(h, h_new, n)) return FJ_OK;
    memo_drop(a, MEMO_FORCES | MEMO_SLIP);
    copy(h, h_new, n);
    force_terms(a);
    memo_keep(a, MEMO_FORCES);
    return FJ_OK;
}

int64_t fj_planar_linear_terms(const fj_args *a, const double *q, const double *u, const double *tau) {
    return linear_terms(a, q, u, tau);
}

/* udot = M''^-1 (h'' + Cpp^T f_mu) (seed 000 eq. 5.4)_2 (MinimalForm.solution). */
static void udot_of(const fj_args *a, const double *f_mu, double *udot) {
    int64_t k = a->ipar[I_K], l = a->ipar[I_L], ld = a->ipar[I_WIDTH];
    const double *h2 = field(a, W_H2), *Cpp = field(a, W_CPP);
    for (int64_t r = 0; r < k; r++) {
        double s = h2[r];
        for (int64_t c = 0; c < l; c++) s += Cpp[c * ld + r] * f_mu[c];
        udot[r] = s;
    }
    cho_solve(field(a, W_L2), k, ld, udot);
}

/* MinimalForm.evaluate on the linear terms: the coupled solve (from f_start where its root is unique, NULL:
 * from f0), then udot (into the fields f, f_mu, udot). */
static int64_t evaluate(const fj_args *a, const double *direction, int use_sign, const int64_t *stat,
                        const double *f_start) {
    double *f = field(a, W_F), *f_mu = field(a, W_FMU), *f0 = field(a, W_F0);
    memo_drop(a, MEMO_SLIP);
    int64_t st = solve_coupled(a, f_start ? f_start : f0, f0, field(a, W_B), field(a, W_SD), direction, use_sign,
                               stat, f, f_mu);
    if (st) return st;
    udot_of(a, f_mu, field(a, W_UDOT));
    return FJ_OK;
}

int64_t fj_planar_evaluate(const fj_args *a, const double *direction, const int64_t *stat, const double *f_start) {
    return evaluate(a, direction, 0, stat, f_start);
}

/* ================================================================================================
 * The hybrid system (planar.system.MechanismSystem)
 * ================================================================================================ */

/* The stuck contacts of the mode (imode[IM_NSTUCK] of them), in the imode layout of
 * planar.packing.encode_mode. */
static const int64_t *mode_stuck(const fj_args *a) { return a->imode + IM_HEADER + a->ipar[I_K] + a->ipar[I_M2]; }
/* The pivot columns of the lock rows, then the others (k). */
static const int64_t *mode_piv(const fj_args *a) { return mode_stuck(a) + a->ipar[I_L]; }
/* The stuck flag of every free coordinate (l). */
static const int64_t *mode_flags(const fj_args *a) { return mode_piv(a) + a->ipar[I_K]; }

/* v with the locked combinations lock v exactly zero: the pivot components solved from the others
 * (mechanism.lock_velocity). */
static int64_t lock_velocity(const fj_args *a, double *v) {
    int64_t k = a->ipar[I_K], l = a->ipar[I_L], r = a->imode[IM_NLOCK], ld = a->ipar[I_WIDTH];
    if (r == 0) return FJ_OK;
    if (r == k) {
        for (int64_t i = 0; i < k; i++) v[i] = 0.0;
        return FJ_OK;
    }
    const int64_t *piv = mode_piv(a);
    const double *fmode = a->fmode;
    double *Rp = field(a, W_WR), *rhs = field(a, W_HOLD);
    int64_t *lpiv = ifield(a, WI_LPIV);
    for (int64_t i = 0; i < r; i++) { /* lock[i] = fmode[l + i k : l + (i + 1) k] */
        for (int64_t j = 0; j < r; j++) Rp[i * ld + j] = fmode[l + i * k + piv[j]];
        double s = 0.0;
        for (int64_t j = r; j < k; j++) s += fmode[l + i * k + piv[j]] * v[piv[j]];
        rhs[i] = s;
    }
    if (fj_lu_factor(Rp, r, ld, lpiv)) return ST_LOCK_SINGULAR;
    fj_lu_solve(Rp, r, ld, lpiv, rhs);
    for (int64_t i = 0; i < r; i++) v[piv[i]] = -rhs[i];
    return FJ_OK;
}

/* (f, f_mu, udot) in a stuck mode (MechanismSystem._stuck), into the fields f, f_mu, udot: the locked
 * accelerations are zero. Independent rows: the holding friction lambda = -W^-1 (b0 + P f_mu_slip),
 * W = P[:, S], eliminated from f = f0 + B f_mu (seed 000 Sect. 3, seed 004 Sect. 2). Shared rows: f and
 * the f_mu of the stuck contacts are indeterminate (NaN), udot = M''^-1 h'' locked. */
static int64_t stuck_mode(const fj_args *a) {
    const int64_t *ip = a->ipar;
    int64_t m = ip[I_M], l = ip[I_L], k = ip[I_K], ld = ip[I_WIDTH];
    const int64_t *stuck = mode_stuck(a);
    int64_t r = a->imode[IM_NSTUCK];
    double *f = field(a, W_F), *f_mu = field(a, W_FMU), *udot = field(a, W_UDOT);
    double *direction = field(a, W_DIRECTION);
    memo_drop(a, MEMO_SLIP);
    for (int64_t c = 0; c < l; c++) direction[c] = a->imode[IM_SIGN] == 0 ? a->fmode[c] : 0.0;
    for (int64_t j = 0; j < r; j++) direction[stuck[j]] = 0.0;
    if (r > a->imode[IM_NLOCK]) { /* shared: several joints hold one direction (seed 000 Sect. 5) */
        for (int64_t i = 0; i < m; i++) f[i] = NAN;
        for (int64_t c = 0; c < l; c++) f_mu[c] = 0.0;
        udot_of(a, f_mu, udot);
        for (int64_t j = 0; j < r; j++) f_mu[stuck[j]] = NAN;
        return lock_velocity(a, udot);
    }
    /* R udot = R M''^-1 (h'' + Cpp^T f_mu) = 0, R = Cpp[S]: P = R M''^-1 Cpp^T, b0 = R M''^-1 h''
     * (M''^-1 Cpp^T and M''^-1 h'' are the fields Y and y0 of linear_terms) */
    const double *Cpp = field(a, W_CPP), *Y = field(a, W_Y), *y0 = field(a, W_Y0);
    double *P = field(a, W_P), *W = field(a, W_WR), *b0 = field(a, W_B0);
    for (int64_t i = 0; i < r; i++) {
        double s = 0.0;
        for (int64_t b = 0; b < k; b++) s += Cpp[stuck[i] * ld + b] * y0[b];
        b0[i] = s;
        for (int64_t c = 0; c < l; c++) {
            s = 0.0;
            for (int64_t b = 0; b < k; b++) s += Cpp[stuck[i] * ld + b] * Y[b * ld + c];
            P[i * ld + c] = s;
        }
        for (int64_t j = 0; j < r; j++) W[i * ld + j] = P[i * ld + stuck[j]];
    }
    int64_t *wpiv = ifield(a, WI_WPIV);
    if (fj_lu_factor(W, r, ld, wpiv)) return ST_HOLDING_SINGULAR;
    fj_lu_solve(W, r, ld, wpiv, b0);               /* W^-1 b0 */
    fj_lu_solve_columns(W, r, ld, wpiv, P, l, ld); /* W^-1 P */
    const double *f0_all = field(a, W_F0), *B_all = field(a, W_B);
    double *f0 = field(a, W_F0S), *B = field(a, W_BS);
    for (int64_t i = 0; i < m; i++) {
        double s = 0.0;
        for (int64_t j = 0; j < r; j++) s += B_all[i * ld + stuck[j]] * b0[j];
        f0[i] = f0_all[i] - s;
        for (int64_t c = 0; c < l; c++) {
            s = 0.0;
            for (int64_t j = 0; j < r; j++) s += B_all[i * ld + stuck[j]] * P[j * ld + c];
            B[i * ld + c] = B_all[i * ld + c] - s;
        }
    }
    int64_t *stat = ifield(a, WI_STATIC);
    for (int64_t c = 0; c < l; c++) stat[c] = 0;
    int64_t st = fj_planar_solve_coupled(a, f0, B, field(a, W_SD), direction, 0, stat, f, f_mu);
    if (st) return st;
    double *hold = field(a, W_HOLD);
    for (int64_t j = 0; j < r; j++) {
        double s = 0.0;
        for (int64_t c = 0; c < l; c++) s += P[j * ld + c] * f_mu[c];
        hold[j] = -(b0[j] + s);
    }
    for (int64_t j = 0; j < r; j++) f_mu[stuck[j]] = hold[j];
    udot_of(a, f_mu, udot);
    return lock_velocity(a, udot);
}

/* The first evaluation of seed 000 Sect. 5 (MechanismSystem._holding_trial) for the stuck contacts Z
 * of the mode, locking direction g = lock[0]: the tendency a0 = g . udot with the friction of Z off.
 * Sets the fields base (directions, Z off) and trial (Z opposing the tendency) and the static flags
 * (Z). Returns the status; *a0 the tendency. */
static int64_t holding_setup(const fj_args *a, double *a0) {
    int64_t l = a->ipar[I_L], k = a->ipar[I_K], ld = a->ipar[I_WIDTH], r = a->imode[IM_NSTUCK];
    const int64_t *stuck = mode_stuck(a);
    const double *g = a->fmode + l;
    double *base = field(a, W_BASE), *trial = field(a, W_TRIAL);
    int64_t *stat = ifield(a, WI_STATIC);
    copy(base, a->fmode, l);
    for (int64_t j = 0; j < r; j++) base[stuck[j]] = 0.0;
    for (int64_t c = 0; c < l; c++) stat[c] = 0;
    *a0 = 0.0;
    int64_t st = evaluate(a, base, 0, stat, NULL);
    if (st) return st;
    *a0 = dot(g, field(a, W_UDOT), k);
    double d = *a0 >= 0 ? 1.0 : -1.0;
    copy(trial, base, l);
    const double *Cpp = field(a, W_CPP);
    for (int64_t j = 0; j < r; j++) {
        int64_t c = stuck[j];
        double s = 0.0;
        for (int64_t b = 0; b < k; b++) s += Cpp[c * ld + b] * g[b];
        trial[c] = fj_sign(s * d);
        stat[c] = 1;
    }
    return FJ_OK;
}

/* The friction of Z at alpha times its static limit, opposing the tendency (holding(alpha) of
 * MechanismSystem._holding_trial), after holding_setup. Returns the status; *a_s = g . udot. */
static int64_t holding(const fj_args *a, double alpha, double *a_s) {
    int64_t l = a->ipar[I_L], k = a->ipar[I_K], r = a->imode[IM_NSTUCK];
    const int64_t *stuck = mode_stuck(a);
    double *scaled = field(a, W_SCALED), *trial = field(a, W_TRIAL);
    copy(scaled, field(a, W_BASE), l);
    for (int64_t j = 0; j < r; j++) scaled[stuck[j]] = alpha * trial[stuck[j]];
    int64_t st = evaluate(a, scaled, 0, ifield(a, WI_STATIC), NULL);
    *a_s = dot(a->fmode + l, field(a, W_UDOT), k);
    return st;
}

/* d a_s of seed 000 Sect. 5 for the shared stiction of the mode (MechanismSystem._sect5 with
 * g = lock[0]): positive when the mechanism breaks away. Returns the status; *margin. */
static int64_t sect5_margin(const fj_args *a, double *margin) {
    double a0, a_s;
    *margin = 0.0;
    int64_t st = holding_setup(a, &a0);
    if (st) return st;
    st = holding(a, 1.0, &a_s);
    *margin = a0 != 0 ? fj_sign(a0) * a_s : -fabs(a_s) - 1.0; /* a0 = 0 sticks */
    return st;
}

/* (f, f_mu) in a shared stiction (MechanismSystem._shared_holding), into the fields f, f_mu: every
 * stuck contact at the same fraction alpha in [0, 1] of its static limit, alpha making g . udot vanish
 * (the secant method on alpha; this proportional distribution is the Python engine's modelling
 * choice). */
static int64_t shared_holding(const fj_args *a) {
    double a0, a1, a_s;
    int64_t st = holding_setup(a, &a0);
    if (st) return st;
    if (a0 == 0.0) return holding(a, 0.0, &a_s);
    st = holding(a, 1.0, &a1);
    if (st || fj_sign(a1) == fj_sign(a0)) return st; /* at breakaway: the whole static limit is needed */
    double tol = 1e-12 * py_max(fabs(a0), fabs(a1));
    double x0 = 0.0, g0 = a0, x1 = 1.0, g1 = a1;
    for (int it = 0; it < MAX_BOUND_ITERATIONS; it++) {
        double alpha = py_min(py_max(x1 - g1 * (x1 - x0) / (g1 - g0), 0.0), 1.0);
        st = holding(a, alpha, &a_s);
        if (st || fabs(a_s) <= tol || fabs(alpha - x1) <= 1e-14) return st;
        x0 = x1, g0 = g1, x1 = alpha, g1 = a_s;
    }
    return ST_SHARED_NO_SETTLE;
}

/* The slip evaluation with the mode's friction directions (or sgn(sd): RegularisedSystem), after
 * linear_terms (the memo's if it has it). */
static int64_t slip(const fj_args *a) {
    int64_t l = a->ipar[I_L];
    int64_t *stat = ifield(a, WI_STATIC), *memo = ifield(a, WI_MEMO);
    double *direction = field(a, W_DIRECTION), *kept = field(a, W_MEMO_DIRECTION);
    for (int64_t c = 0; c < l; c++) stat[c] = 0;
    copy(direction, a->fmode, l);
    int use_sign = a->imode[IM_SIGN] != 0;
    if (memo_has(a, MEMO_SLIP) && memo[MEMO_SIGN] == use_sign && same_bits(kept, direction, l))
        return FJ_OK;
    int64_t st = evaluate(a, direction, use_sign, stat, NULL);
    if (st) return st;
    copy(kept, direction, l);
    memo[MEMO_SIGN] = use_sign;
    memo_keep(a, MEMO_SLIP);
    return FJ_OK;
}

/* (H tau) . xdot. */
static double drive_power(const fj_args *a, const double *tau, const double *xd) {
    const int64_t *ip = a->ipar;
    int64_t n = ip[I_N], nd = ip[I_ND], H0 = ip[I_F_H];
    double power = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int64_t d = 0; d < nd; d++) s += a->fpar[H0 + i * nd + d] * tau[d];
        power += s * xd[i];
    }
    return power;
}

double fj_planar_drive_power(const fj_args *a, const double *tau) { return drive_power(a, tau, field(a, W_XD)); }

/* ================================================================================================
 * The kernels (fj_kernel.h)
 * ================================================================================================ */

/* dy/dt = [qdot, udot, drive power, friction power] in the mode (MechanismSystem.rhs). */
static int64_t rhs(const fj_args *a, double t, const double *y, const double *tau, double *dy, int64_t n_out) {
    (void)t;
    int64_t l = a->ipar[I_L], k1 = a->ipar[I_K1], k = a->ipar[I_K];
    if (a->imode[IM_NLOCK] == k) { /* frozen by its stuck contacts: u = 0 and udot = 0, no power */
        for (int64_t i = 0; i < n_out; i++) dy[i] = 0.0;
        return FJ_OK;
    }
    int64_t st = linear_terms(a, y, y + k1, tau);
    if (st) return st;
    const double *f_mu = field(a, W_FMU), *sd = field(a, W_SD);
    double friction_power = 0.0;
    if (a->imode[IM_NSTUCK]) {
        st = stuck_mode(a);
        const int64_t *flags = mode_flags(a);
        for (int64_t c = 0; c < l; c++)
            if (flags[c] == 0) friction_power += f_mu[c] * sd[c];
    } else {
        st = slip(a);
        friction_power = dot(f_mu, sd, l);
    }
    if (st) return st;
    copy(dy, field(a, W_QD), k1);
    copy(dy + k1, field(a, W_UDOT), k);
    dy[k1 + k] = drive_power(a, tau, field(a, W_XD));
    dy[k1 + k + 1] = friction_power;
    return FJ_OK;
}

/* The arguments a with the second of the two workspaces that work_size gives. */
static fj_args second_workspace(const fj_args *a) {
    fj_args b = *a;
    b.work += a->ipar[I_WORK_ROWS] * a->ipar[I_WIDTH];
    b.iwork += a->ipar[I_IWORK_ROWS] * a->ipar[I_WIDTH];
    return b;
}

/* The event functions of MechanismSystem.events(mode), in its order: slip_zero (direction_c sd_c) of
 * the slipping contacts, then the breakaway margins |lambda_c| - static limit_c of the stuck contacts,
 * or the Sect. 5 margin of a shared stiction. None in RegularisedSystem's mode. */
static int64_t events(const fj_args *in, double t, const double *y, const double *tau, double *g, int64_t n_out) {
    (void)t, (void)n_out;
    /* a state other than the memo's (the middle of a step): in the second workspace, the first keeping
     * the terms of the step's end for the record and the next step (the results are the same) */
    fj_args other = second_workspace(in);
    const fj_args *a = memo_has_kinematics(in, y, y + in->ipar[I_K1]) ? in : &other;
    const int64_t *ip = a->ipar;
    int64_t k1 = ip[I_K1], r = a->imode[IM_NSTUCK];
    if (a->imode[IM_SIGN]) return FJ_OK;
    const int64_t *stuck = mode_stuck(a), *flags = mode_flags(a), *contacts = ip + ip[I_CONTACTS];
    const double *q = y, *u = y + k1, *sd = field(a, W_SD);
    int64_t i = 0, st;
    for (int64_t j = 0; j < ip[I_NC]; j++) {
        int64_t c = contacts[j];
        if (flags[c] == 0 && a->fmode[c] != 0.0) {
            if (i == 0) { /* the velocity level only, as MechanismSystem._sd */
                st = slip_velocities(a, q, u);
                if (st) return st;
            }
            g[i] = a->fmode[c] * sd[c];
            i++;
        }
    }
    if (r == 0) return FJ_OK;
    st = linear_terms(a, q, u, tau);
    if (st) return st;
    if (r > a->imode[IM_NLOCK]) {
        double margin;
        st = sect5_margin(a, &margin);
        g[i] = margin;
        return st;
    }
    st = stuck_mode(a);
    if (st) return st;
    double *limits = field(a, W_LIMITS);
    const double *f_mu = field(a, W_FMU);
    static_limits(a, field(a, W_F), limits);
    for (int64_t j = 0; j < r; j++) {
        g[i] = fabs(f_mu[stuck[j]]) - limits[stuck[j]];
        i++;
    }
    return FJ_OK;
}

/* E_kin, E_pot, W_drive, W_friction into out (the tail of record_layout). */
static void record_energies(const fj_args *a, const double *y, double *out) {
    const int64_t *ip = a->ipar;
    int64_t n = ip[I_N];
    const double *mass = a->fpar + ip[I_F_MASS], *x = field(a, W_X), *xd = field(a, W_XD);
    double e_kin = 0.0;
    for (int64_t i = 0; i < n; i++) e_kin += xd[i] * mass[i] * xd[i];
    out[0] = 0.5 * e_kin;
    double gx = a->fpar[ip[I_F_GRAV]], gy = a->fpar[ip[I_F_GRAV] + 1];
    double e_pot = 0.0;
    for (int64_t b = 0; b < ip[I_NB]; b++) /* -sum m_i g . r_i */
        e_pot += a->fpar[ip[I_F_BODY_MASS] + b] * (x[3 * b] * gx + x[3 * b + 1] * gy);
    out[1] = -e_pot;
    out[2] = y[a->n_y - 2];
    out[3] = y[a->n_y - 1];
}

/* The recorded quantities of MechanismSystem.record, flat (record_layout). */
static int64_t record(const fj_args *a, double t, const double *y, const double *tau, double *out, int64_t n_out) {
    (void)t, (void)n_out;
    int64_t k1 = a->ipar[I_K1], k = a->ipar[I_K], r = a->imode[IM_NSTUCK];
    int64_t st = linear_terms(a, y, y + k1, tau);
    if (st) return st;
    int64_t o_udot = 3 * k1 + k; /* udot's place in the record (fj_planar_record_fields) */
    const double *udot = field(a, W_UDOT);
    if (r) {
        st = stuck_mode(a);
        copy(out + o_udot, udot, k); /* locked */
        if (st == FJ_OK && r > a->imode[IM_NLOCK]) st = shared_holding(a);
    } else {
        st = slip(a);
        copy(out + o_udot, udot, k);
    }
    if (st) return st;
    fj_planar_record_fields(a, y, tau, out);
    return FJ_OK;
}

/* the layout of record_layout: q, u, qd, qdd, udot, f, f_mu, sd, tau, stuck, stuck_contacts, E_kin, E_pot,
 * W_drive, W_friction */
void fj_planar_record_fields(const fj_args *a, const double *y, const double *tau, double *out) {
    const int64_t *ip = a->ipar;
    int64_t m = ip[I_M], l = ip[I_L], k1 = ip[I_K1], k = ip[I_K], nd = ip[I_ND], ld = ip[I_WIDTH];
    const double *q = y, *u = y + k1;
    const int64_t *flags = mode_flags(a);
    int64_t o_udot = 3 * k1 + k, o_f = o_udot + k, o_fmu = o_f + m;
    copy(out + o_f, field(a, W_F), m);
    copy(out + o_fmu, field(a, W_FMU), l);
    copy(out, q, k1);
    copy(out + k1, u, k);
    copy(out + k1 + k, field(a, W_QD), k1);
    const double *nu2 = field(a, W_NU2), *D2 = field(a, W_D2);
    for (int64_t i = 0; i < k1; i++) { /* qdd = D2 udot + nu2 (seed 000 eq. 5.2) */
        double s = nu2[i];
        for (int64_t b = 0; b < k; b++) s += D2[i * ld + b] * out[o_udot + b];
        out[2 * k1 + k + i] = s;
    }
    int64_t o = o_fmu + l;
    copy(out + o, field(a, W_SD), l);
    o += l;
    copy(out + o, tau, nd);
    o += nd;
    out[o] = a->imode[IM_NSTUCK] ? 1.0 : 0.0;
    o += 1;
    for (int64_t c = 0; c < l; c++) out[o + c] = flags[c] ? 1.0 : 0.0;
    o += l;
    record_energies(a, y, out + o);
}

/* ================================================================================================
 * The mode decisions (MechanismSystem.update, .events; RegularisedSystem.update)
 * ================================================================================================ */

#define ZERO_SLIP 1e-8       /* planar.system.ZERO_SLIP: |sd| below which a contact does not slip at an event */
#define ZERO_ROW 1e-9        /* planar.system.ZERO_ROW: |Cpp_c| below which its slip is at a kinematic zero */
#define INDEPENDENT_TOL 1e-9 /* planar.system._independent_rows's tol */
#define MAX_CONDITION 1e4    /* planar.minimal.MAX_CONDITION: cond(V) beyond which the partition is changed */

/* the events of a mode (MechanismSystem.events, in its order) */
enum { EV_SLIP_ZERO, EV_BREAKAWAY, EV_SHARED_BREAKAWAY };

/* The number of events of the mode a->fmode, a->imode: slip_zero:c of the slipping contacts, then
 * breakaway:c of the stuck ones, or the one breakaway of a shared stiction; none in RegularisedSystem's
 * mode. Event `want` (if one) sets *kind (EV_*) and *contact (-1 for the shared breakaway). */
static int64_t mode_event(const fj_args *a, int64_t want, int64_t *kind, int64_t *contact) {
    const int64_t *ip = a->ipar, *contacts = ip + ip[I_CONTACTS];
    if (a->imode[IM_SIGN]) return 0;
    const int64_t *flags = mode_flags(a), *stuck = mode_stuck(a);
    int64_t i = 0, r = a->imode[IM_NSTUCK];
    for (int64_t j = 0; j < ip[I_NC]; j++) {
        int64_t c = contacts[j];
        if (flags[c] || a->fmode[c] == 0.0) continue;
        if (i++ == want) *kind = EV_SLIP_ZERO, *contact = c;
    }
    if (r > a->imode[IM_NLOCK]) {
        if (i++ == want) *kind = EV_SHARED_BREAKAWAY, *contact = -1;
    } else
        for (int64_t j = 0; j < r; j++)
            if (i++ == want) *kind = EV_BREAKAWAY, *contact = stuck[j];
    return i;
}

/* fj_mode_events_fn: the directions and flags of the events (mode_event's order); watch_all as
 * MechanismSystem.events_watch_all: False while a contact has no direction and is not stuck in a
 * mechanism that is not frozen (RegularisedSystem's single mode: True, it never changes). */
static int64_t mode_events(const fj_args *a, int64_t *directions, int64_t *flags, int64_t *watch_all) {
    const int64_t *ip = a->ipar, *contacts = ip + ip[I_CONTACTS];
    int64_t n = mode_event(a, -1, NULL, NULL);
    for (int64_t i = 0; i < n; i++) {
        int64_t kind = EV_SLIP_ZERO, c;
        mode_event(a, i, &kind, &c);
        directions[i] = kind == EV_SLIP_ZERO ? -1 : 1;
        flags[i] = kind == EV_SLIP_ZERO ? 0 : FJ_INPUT_DRIVEN;
    }
    *watch_all = 1;
    if (a->imode[IM_SIGN] || a->imode[IM_NLOCK] == ip[I_K]) return n;
    for (int64_t j = 0; j < ip[I_NC]; j++)
        if (a->fmode[contacts[j]] == 0.0 && !mode_flags(a)[contacts[j]]) *watch_all = 0;
    return n;
}

/* ||x|| (n entries, stride inc) as the BLAS dnrm2 under scipy's LAPACK computes it (OpenBLAS on x86-64:
 * the squares summed in extended precision, eight at a time into four sums), so that the QR pivots below
 * see the column norms LAPACK sees. */
static double nrm2(const double *x, int64_t n, int64_t inc) {
    long double acc[4] = {0.0L, 0.0L, 0.0L, 0.0L};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int64_t j = 0; j < 8; j++) {
            long double v = x[(i + j) * inc];
            acc[j % 4] += v * v;
        }
    for (; i < n; i++) {
        long double v = x[i * inc];
        acc[0] += v * v;
    }
    return (double)sqrtl((acc[0] + acc[1]) + (acc[2] + acc[3]));
}

/* sqrt(x^2 + y^2) without overflow (LAPACK dlapy2). */
static double lapy2(double x, double y) {
    if (y != y) return y;
    if (x != x) return x;
    double w = py_max(fabs(x), fabs(y)), z = py_min(fabs(x), fabs(y));
    if (z == 0.0 || w > DBL_MAX) return w;
    return w * sqrt(1.0 + (z / w) * (z / w));
}

/* The elementary reflector H = I - tau [1; v] [1; v]^T with H [alpha; x] = [beta; 0] (LAPACK dlarfg):
 * x (n - 1 entries, stride inc) becomes v, *alpha beta; returns tau. */
static double householder(int64_t n, double *alpha, double *x, int64_t inc) {
    if (n <= 1) return 0.0;
    double xnorm = nrm2(x, n - 1, inc);
    if (xnorm == 0.0) return 0.0;
    double beta = -copysign(lapy2(*alpha, xnorm), *alpha);
    const double safmin = DBL_MIN / (DBL_EPSILON / 2); /* dlamch('S') / dlamch('E') */
    int knt = 0;
    if (fabs(beta) < safmin) { /* xnorm and beta may be inaccurate: scale x and recompute them */
        do {
            knt++;
            for (int64_t i = 0; i < n - 1; i++) x[i * inc] *= 1.0 / safmin;
            beta *= 1.0 / safmin;
            *alpha *= 1.0 / safmin;
        } while (fabs(beta) < safmin && knt < 20);
        xnorm = nrm2(x, n - 1, inc);
        beta = -copysign(lapy2(*alpha, xnorm), *alpha);
    }
    double tau = (beta - *alpha) / beta, scale = 1.0 / (*alpha - beta);
    for (int64_t i = 0; i < n - 1; i++) x[i * inc] *= scale;
    for (int j = 0; j < knt; j++) beta *= safmin;
    *alpha = beta;
    return tau;
}

/* planar_internal.h */
void fj_planar_qr_pivots(double *A, int64_t m, int64_t n, int64_t lda, int64_t *jpvt, double *rdiag, double *vn1,
                         double *vn2) {
    const double tol3z = sqrt(DBL_EPSILON / 2); /* sqrt(dlamch('Epsilon')) */
    for (int64_t j = 0; j < n; j++) {
        jpvt[j] = j;
        vn1[j] = vn2[j] = nrm2(A + j, m, lda);
    }
    int64_t mn = m < n ? m : n;
    for (int64_t i = 0; i < mn; i++) {
        int64_t p = i; /* idamax */
        for (int64_t j = i + 1; j < n; j++)
            if (fabs(vn1[j]) > fabs(vn1[p])) p = j;
        if (p != i) {
            for (int64_t r = 0; r < m; r++) {
                double tmp = A[r * lda + p];
                A[r * lda + p] = A[r * lda + i];
                A[r * lda + i] = tmp;
            }
            int64_t tmp = jpvt[p];
            jpvt[p] = jpvt[i];
            jpvt[i] = tmp;
            vn1[p] = vn1[i];
            vn2[p] = vn2[i];
        }
        double tau = householder(m - i, A + i * lda + i, A + (i + 1) * lda + i, lda);
        rdiag[i] = fabs(A[i * lda + i]);
        if (tau != 0.0) /* A[i:, j] -= tau v (v^T A[i:, j]), v = [1; A[i + 1:, i]] */
            for (int64_t j = i + 1; j < n; j++) {
                double w = A[i * lda + j];
                for (int64_t r = i + 1; r < m; r++) w += A[r * lda + j] * A[r * lda + i];
                double tw = -tau * w;
                A[i * lda + j] += tw;
                for (int64_t r = i + 1; r < m; r++) A[r * lda + j] += A[r * lda + i] * tw;
            }
        for (int64_t j = i + 1; j < n; j++) {
            if (vn1[j] == 0.0) continue;
            double ratio = fabs(A[i * lda + j]) / vn1[j], temp = 1.0 - ratio * ratio;
            temp = py_max(temp, 0.0);
            double kept = vn1[j] / vn2[j];
            if (temp * (kept * kept) <= tol3z) {
                vn1[j] = vn2[j] = i < m - 1 ? nrm2(A + (i + 1) * lda + j, m - i - 1, lda) : 0.0;
            } else
                vn1[j] *= sqrt(temp);
        }
    }
}

/* fj_planar_qr_pivots with the scratch of the workspace (fields vn1, vn2). */
static void qr_pivots(const fj_args *a, double *A, int64_t m, int64_t n, int64_t lda, int64_t *jpvt, double *rdiag) {
    fj_planar_qr_pivots(A, m, n, lda, jpvt, rdiag, field(a, W_VN1), field(a, W_VN2));
}

/* Sort v (n) ascending. */
static void sort_indices(int64_t *v, int64_t n) {
    for (int64_t i = 1; i < n; i++)
        for (int64_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            int64_t tmp = v[j];
            v[j] = v[j - 1];
            v[j - 1] = tmp;
        }
}

/* Positions (into rows, ascending) of a maximal set of independent rows of Cpp[rows] (nr of them)
 * (mechanism._independent_rows: QR with column pivoting of Cpp[rows]^T, the pivots whose |R_ii| exceed
 * tol |R_00|) into out (nr); returns their number. */
static int64_t independent_rows(const fj_args *a, const int64_t *rows, int64_t nr, int64_t *out) {
    int64_t k = a->ipar[I_K], ld = a->ipar[I_WIDTH];
    if (nr == 0) return 0;
    const double *Cpp = field(a, W_CPP);
    double *R = field(a, W_QR), *rdiag = field(a, W_RDIAG);
    int64_t *piv = ifield(a, WI_QR_PIV);
    for (int64_t i = 0; i < k; i++)
        for (int64_t j = 0; j < nr; j++) R[i * ld + j] = Cpp[rows[j] * ld + i];
    qr_pivots(a, R, k, nr, ld, piv, rdiag);
    double threshold = INDEPENDENT_TOL * py_max(rdiag[0], 1e-300);
    int64_t count = 0;
    for (int64_t i = 0; i < (k < nr ? k : nr); i++) count += rdiag[i] > threshold;
    for (int64_t i = 0; i < count; i++) out[i] = piv[i];
    sort_indices(out, count);
    return count;
}

/* The partition and the dependent indices (all those of q not in it, ascending) into imode (encode_mode). */
static void write_partition(const fj_args *a, int64_t *imode, const int64_t *partition) {
    int64_t k1 = a->ipar[I_K1], k = a->ipar[I_K], o = IM_HEADER + k;
    for (int64_t j = 0; j < k; j++) imode[IM_HEADER + j] = partition[j];
    for (int64_t i = 0; i < k1; i++) {
        int in = 0;
        for (int64_t j = 0; j < k; j++) in |= partition[j] == i;
        if (!in) imode[o++] = i;
    }
}

int64_t fj_planar_initial_terms(const fj_args *a, const double *q, const double *u, const double *tau, int64_t *imode) {
    fj_args b = *a;
    b.imode = imode;
    write_partition(&b, imode, a->ipar + a->ipar[I_PARTITION]);
    return linear_terms(&b, q, u, tau);
}

/* The independent velocities at q (MinimalForm.choose_partition) into part (k): `current` while cond(V)
 * stays below MAX_CONDITION, else the columns of C2' after the m2 pivots of its QR with column pivoting,
 * ascending. If they differ from current, y's u (given in current) becomes the velocities of part
 * (MinimalForm.velocities). b: the arguments of the new mode (its imode written). */
static int64_t new_partition(const fj_args *b, int64_t *imode, double *y, const int64_t *current, int64_t *part) {
    const int64_t *ip = b->ipar;
    int64_t k1 = ip[I_K1], k = ip[I_K], m2 = ip[I_M2], ld = ip[I_WIDTH];
    const double *q = y;
    double *u = y + k1;
    int same = 1;
    if (m2 == 0) {
        for (int64_t j = 0; j < k; j++) part[j] = j, same &= current[j] == j;
    } else {
        int64_t st = closing_jacobian(b, q);
        if (st) return st;
        write_partition(b, imode, current);
        const double *C2p = field(b, W_C2P);
        const int64_t *vidx = imode + IM_HEADER + k;
        double *V = field(b, W_V), *R = field(b, W_QR);
        for (int64_t r = 0; r < m2; r++)
            for (int64_t c = 0; c < m2; c++) V[r * ld + c] = C2p[r * ld + vidx[c]];
        if (cond2(V, m2, ld, field(b, W_SV), ld, field(b, W_SVALUES)) <= MAX_CONDITION) {
            for (int64_t j = 0; j < k; j++) part[j] = current[j];
        } else {
            int64_t *piv = ifield(b, WI_QR_PIV);
            for (int64_t r = 0; r < m2; r++)
                for (int64_t c = 0; c < k1; c++) R[r * ld + c] = C2p[r * ld + c];
            qr_pivots(b, R, m2, k1, ld, piv, field(b, W_RDIAG));
            for (int64_t j = 0; j < k; j++) part[j] = piv[m2 + j];
            sort_indices(part, k);
            for (int64_t j = 0; j < k; j++) same &= part[j] == current[j];
        }
    }
    if (!same) { /* u = velocities(q, u, current)[partition] */
        write_partition(b, imode, current);
        int64_t st = closing_jacobian(b, q);
        if (!st) st = partition_map(b);
        if (st) return st;
        const double *D2 = field(b, W_D2);
        double *v = field(b, W_U_OFF);
        for (int64_t j = 0; j < k; j++) {
            double s = 0.0;
            for (int64_t i = 0; i < k; i++) s += D2[part[j] * ld + i] * u[i];
            v[j] = s;
        }
        copy(u, v, k);
    }
    write_partition(b, imode, part);
    return FJ_OK;
}

/* numpy's max of big and x: NaN once either is NaN. */
static double np_max(double big, double x) { return big != big || x > big || x != x ? (big != big ? big : x) : big; }

/* The largest |v_i| (numpy's np.abs(v).max()). */
static double max_abs(const double *v, int64_t n) {
    double big = n ? fabs(v[0]) : 0.0;
    for (int64_t i = 1; i < n; i++) big = np_max(big, fabs(v[i]));
    return big;
}

static int any_nonzero(const double *v, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (v[i] != 0.0) return 1;
    return 0;
}

/* The sign the slip of contact c takes as the mechanism moves off a kinematic zero of its row Cpp_c
 * (MechanismSystem._direction_off_zero): sd_c at q moved a little along the motion (u, or udot when at
 * rest). *stale: the linear terms of (q, u) in the workspace are overwritten (recomputed first if so). */
static int64_t direction_off_zero(const fj_args *b, const double *y, const double *tau, int64_t c, int64_t *sign,
                                  int *stale) {
    int64_t l = b->ipar[I_L], k1 = b->ipar[I_K1], k = b->ipar[I_K], ld = b->ipar[I_WIDTH];
    const double *q = y;
    double *v = field(b, W_U_OFF), *q_off = field(b, W_Q_OFF);
    int64_t st;
    if (*stale && (st = linear_terms(b, q, y + k1, tau))) return st;
    *stale = 0;
    copy(v, y + k1, k);
    *sign = 0;
    if (!any_nonzero(v, k)) { /* at rest: along udot without friction */
        double *zeros = field(b, W_DIRF);
        int64_t *stat = ifield(b, WI_STATIC);
        for (int64_t i = 0; i < l; i++) zeros[i] = 0.0, stat[i] = STAT_KINETIC;
        if ((st = evaluate(b, zeros, 0, stat, NULL))) return st;
        copy(v, field(b, W_UDOT), k);
    }
    if (!any_nonzero(v, k)) return FJ_OK;
    const double *D2 = field(b, W_D2);
    for (int64_t i = 0; i < k1; i++) { /* qdot = D2 u */
        double s = 0.0;
        for (int64_t j = 0; j < k; j++) s += D2[i * ld + j] * v[j];
        q_off[i] = s;
    }
    double eps = 1e-6 / py_max(1.0, max_abs(q_off, k1));
    for (int64_t i = 0; i < k1; i++) q_off[i] = q[i] + eps * q_off[i];
    *stale = 1;
    if ((st = kinematics(b, q_off, v))) return st;
    *sign = (int64_t)fj_sign(field(b, W_SD)[c]);
    return FJ_OK;
}

/* The Gauss-principle static friction of the contacts Z (nz) (MechanismSystem._gauss, seed 001 Sect.
 * 3-4): lambda minimising ||A lambda + b|| within the static limits (stiction.gauss_friction by box_qp.c's
 * BVLS), A = L^-1 Cpp[Z]^T, b = L^-1 (h'' + Cpp^T f_mu) with the friction of Z off, iterated with the
 * reactions on which the limits depend. base: friction directions (Z off). The slip accelerations into
 * the field accel (nz). */
static int64_t gauss(const fj_args *b, const double *base, const int64_t *Z, int64_t nz) {
    const int64_t *ip = b->ipar;
    int64_t l = ip[I_L], k = ip[I_K], ld = ip[I_WIDTH];
    const double *L = field(b, W_L2), *Cpp = field(b, W_CPP), *h2 = field(b, W_H2);
    double *A = field(b, W_GA), *gb = field(b, W_GB), *lam = field(b, W_LAM), *lam_new = field(b, W_LAM_NEW);
    double *accel = field(b, W_ACCEL), *bound = field(b, W_BOUND), *fixed = field(b, W_FIXED);
    double *f = field(b, W_F), *f_mu = field(b, W_FMU), *limits = field(b, W_LIMITS);
    int64_t *stat = ifield(b, WI_STATIC);
    memo_drop(b, MEMO_SLIP);
    for (int64_t j = 0; j < nz; j++) /* A = L^-1 Cpp[Z]^T (forward substitution) */
        for (int64_t i = 0; i < k; i++) {
            double s = Cpp[Z[j] * ld + i];
            for (int64_t r = 0; r < i; r++) s -= L[i * ld + r] * A[r * ld + j];
            A[i * ld + j] = s / L[i * ld + i];
        }
    for (int64_t c = 0; c < l; c++) stat[c] = STAT_KINETIC;
    for (int64_t j = 0; j < nz; j++) lam[j] = 0.0, stat[Z[j]] = STAT_FIXED;
    for (int it = 0; it < MAX_BOUND_ITERATIONS; it++) {
        for (int64_t j = 0; j < nz; j++) fixed[Z[j]] = lam[j]; /* f_mu[Z] = lambda, J[Z] = 0 */
        int64_t st = fj_planar_solve_coupled(b, field(b, W_F0), field(b, W_B), field(b, W_SD), base, 0, stat, f, f_mu);
        if (st) return st;
        static_limits(b, f, limits);
        for (int64_t j = 0; j < nz; j++) {
            bound[j] = limits[Z[j]];
            f_mu[Z[j]] = 0.0;
        }
        double big = bound[0]; /* bound.max() */
        for (int64_t j = 1; j < nz; j++) big = np_max(big, bound[j]);
        for (int64_t i = 0; i < k; i++) { /* b = L^-1 (h'' + Cpp^T f_mu) */
            double s = 0.0;
            for (int64_t c = 0; c < l; c++) s += Cpp[c * ld + i] * f_mu[c];
            s += h2[i];
            for (int64_t r = 0; r < i; r++) s -= L[i * ld + r] * gb[r];
            gb[i] = s / L[i * ld + i];
        }
        double *qp = field(b, W_QP);
        fj_box_qp(A, k, nz, ld, gb, bound, lam_new, accel, qp, ifield(b, WI_QPI)); /* its limit as scipy's */
        int close = 1; /* np.allclose(new, lambda, rtol=1e-13, atol=1e-13 (1 + max bound)) */
        for (int64_t j = 0; j < nz; j++)
            close &= fabs(lam_new[j] - lam[j]) <= 1e-13 * (1.0 + big) + 1e-13 * fabs(lam[j]);
        if (close) return FJ_OK;
        copy(lam, lam_new, nz);
    }
    return ST_GAUSS_NO_SETTLE;
}

/* The stuck subset of Z (nz) into new_stuck (*ns) and the friction directions (direction, l) after the
 * decision at zero slip (MechanismSystem._decide). One locked direction g (the rows of Z span it): the
 * stick test of seed 000 Sect. 5 (sect5_margin on a trial mode in the new mode's arrays, its stuck
 * contacts Z and lock row g); several: the Gauss principle (seed 001). */
static int64_t decide_at_zero(const fj_args *b, double *fmode, int64_t *imode, int64_t *direction, const int64_t *Z,
                              int64_t nz, int64_t *new_stuck, int64_t *ns) {
    const int64_t *ip = b->ipar;
    int64_t l = ip[I_L], k = ip[I_K], ld = ip[I_WIDTH];
    double *dirf = field(b, W_DIRF);
    *ns = 0;
    for (int64_t j = 0; j < nz; j++) direction[Z[j]] = 0;
    if (nz == 0) return FJ_OK;
    for (int64_t c = 0; c < l; c++) dirf[c] = (double)direction[c];
    int64_t *rows = ifield(b, WI_ROWS);
    int64_t st;
    if (independent_rows(b, Z, nz, rows) == 1) { /* one locked direction: seed 000 Sect. 5 */
        const double *g = field(b, W_CPP) + Z[rows[0]] * ld;
        double g_norm = norm(g, k), margin;
        copy(fmode, dirf, l);
        for (int64_t i = 0; i < k; i++) fmode[l + i] = g[i] / g_norm;
        imode[IM_NSTUCK] = nz;
        for (int64_t j = 0; j < nz; j++) imode[IM_HEADER + k + ip[I_M2] + j] = Z[j];
        if ((st = sect5_margin(b, &margin))) return st;
        if (margin > 0) { /* motion continues (a reversal passes straight through) */
            const double *trial = field(b, W_TRIAL);
            for (int64_t c = 0; c < l; c++) direction[c] = (int64_t)trial[c];
        } else {
            for (int64_t j = 0; j < nz; j++) new_stuck[j] = Z[j];
            *ns = nz;
        }
        return FJ_OK;
    }
    if ((st = gauss(b, dirf, Z, nz))) return st; /* several directions: the Gauss principle (seed 001) */
    const double *accel = field(b, W_ACCEL);
    double tol = 1e-9 * (1.0 + max_abs(accel, nz));
    for (int64_t j = 0; j < nz; j++) {
        if (fabs(accel[j]) <= tol) {
            direction[Z[j]] = 0;
            new_stuck[(*ns)++] = Z[j];
        } else
            direction[Z[j]] = (int64_t)fj_sign(accel[j]);
    }
    return FJ_OK;
}

/* The new mode's arrays as encode_mode gives them (its partition already in imode): directions, the
 * stuck contacts (ns) and their flags, the lock rows Cpp[stuck[rows]] (n_lock) and their QR pivots
 * (lock_velocity's). */
static void encode_decision(const fj_args *b, double *fmode, int64_t *imode, const int64_t *direction,
                            const int64_t *stuck, int64_t ns, const int64_t *rows, int64_t n_lock) {
    const int64_t *ip = b->ipar;
    int64_t l = ip[I_L], k = ip[I_K], ld = ip[I_WIDTH], o = IM_HEADER + k + ip[I_M2];
    const double *Cpp = field(b, W_CPP);
    for (int64_t c = 0; c < l; c++) fmode[c] = (double)direction[c];
    for (int64_t i = 0; i < k * k; i++) fmode[l + i] = 0.0;
    for (int64_t r = 0; r < n_lock; r++) copy(fmode + l + r * k, Cpp + stuck[rows[r]] * ld, k);
    imode[IM_NSTUCK] = ns, imode[IM_NLOCK] = n_lock, imode[IM_SIGN] = 0;
    for (int64_t i = o; i < o + 2 * l + k; i++) imode[i] = 0;
    for (int64_t j = 0; j < ns; j++) imode[o + j] = stuck[j], imode[o + l + k + stuck[j]] = 1;
    if (n_lock) {
        double *R = field(b, W_QR);
        for (int64_t r = 0; r < n_lock; r++) copy(R + r * ld, fmode + l + r * k, k);
        qr_pivots(b, R, n_lock, k, ld, imode + o + l, field(b, W_RDIAG));
    }
}

/* Position of c in list (n), or -1. */
static int64_t find(const int64_t *list, int64_t n, int64_t c) {
    for (int64_t i = 0; i < n; i++)
        if (list[i] == c) return i;
    return -1;
}

/* Remove list[i] (n entries; returns n - 1). */
static int64_t drop(int64_t *list, int64_t n, int64_t i) {
    for (int64_t j = i; j < n - 1; j++) list[j] = list[j + 1];
    return n - 1;
}

/* fj_decide_fn: MechanismSystem.update (RegularisedSystem.update: its single mode). The change report
 * (l): CHANGE_Z (1) for the contacts of Z, CHANGE_KINEMATIC (2) for those at a kinematic zero, which with
 * the event and the two modes name the kind (MechanismSystem._kind); the shared stiction's breakaway is
 * its own kind. The new mode is built in fmode, imode, which also hold the trial modes of the Sect. 5
 * test on the way (the arguments b). */
static int64_t decide(const fj_args *a, double t, double *y, const double *tau, int64_t event, double *fmode,
                      int64_t *imode, int64_t *change) {
    (void)t;
    const int64_t *ip = a->ipar, *contacts = ip + ip[I_CONTACTS];
    int64_t l = ip[I_L], k1 = ip[I_K1], k = ip[I_K], nc = ip[I_NC], ld = ip[I_WIDTH];
    fj_args b = *a;
    b.fmode = fmode, b.imode = imode;
    b.n_fmode = l + k * k, b.n_imode = IM_HEADER + 2 * k + ip[I_M2] + 2 * l;
    for (int64_t i = 0; i < b.n_fmode; i++) fmode[i] = 0.0;
    for (int64_t i = 0; i < b.n_imode; i++) imode[i] = 0;
    for (int64_t c = 0; c < l; c++) change[c] = 0;
    int has_mode = event != FJ_START;
    const int64_t *current = has_mode ? a->imode + IM_HEADER : ip + ip[I_PARTITION]; /* the partition u is in */
    if (ip[I_REGULARISED]) { /* RegularisedSystem: Mode(None, (), (), mechanism's partition) */
        write_partition(a, imode, ip + ip[I_PARTITION]);
        imode[IM_SIGN] = 1;
        return FJ_OK;
    }
    int64_t kind = -1, event_contact = -1, st;
    if (event >= 0) mode_event(a, event, &kind, &event_contact);
    int64_t *part = ifield(a, WI_PART);
    if ((st = new_partition(&b, imode, y, current, part))) return st;
    const double *q = y, *u = y + k1;
    int64_t *direction = ifield(a, WI_DIR), *old = ifield(a, WI_OLD), *stuck = ifield(a, WI_STUCK);
    int64_t n_stuck = has_mode ? a->imode[IM_NSTUCK] : 0;
    for (int64_t c = 0; c < l; c++) old[c] = has_mode ? (int64_t)a->fmode[c] : 0;
    for (int64_t j = 0; j < n_stuck; j++) stuck[j] = mode_stuck(a)[j];
    if (kind == EV_SHARED_BREAKAWAY) { /* shared stiction ends: the located event is itself the decision */
        copy(fmode, a->fmode, l + k); /* the mode's directions and lock[0], its stuck contacts */
        imode[IM_NSTUCK] = n_stuck;
        for (int64_t j = 0; j < n_stuck; j++) imode[IM_HEADER + k + ip[I_M2] + j] = stuck[j];
        double margin;
        if ((st = linear_terms(&b, q, u, tau)) || (st = sect5_margin(&b, &margin))) return st;
        const double *trial = field(a, W_TRIAL);
        for (int64_t c = 0; c < l; c++) direction[c] = (int64_t)trial[c];
        encode_decision(&b, fmode, imode, direction, stuck, 0, NULL, 0);
        return FJ_OK;
    }
    if ((st = linear_terms(&b, q, u, tau))) return st;
    const double *sd = field(a, W_SD), *Cpp = field(a, W_CPP);
    double *row_scale = field(a, W_ROW_SCALE);
    int64_t *zero = ifield(a, WI_ZERO), *Z = ifield(a, WI_Z), *kinematic = ifield(a, WI_KINEMATIC);
    int64_t n_zero = 0, nz = 0, n_kin = 0;
    for (int64_t c = 0; c < l; c++) {
        row_scale[c] = norm(Cpp + c * ld, k);
        direction[c] = ip[ip[I_LAWS] + c] != NO_LAW ? (int64_t)fj_sign(sd[c]) : 0;
    }
    for (int64_t j = 0; j < nc; j++)
        if (fabs(sd[contacts[j]]) <= ZERO_SLIP * (1.0 + row_scale[contacts[j]])) zero[n_zero++] = contacts[j];
    if (kind == EV_BREAKAWAY) { /* the contact slips against its holding force (MechanismSystem._stuck) */
        int64_t c = event_contact, i = find(zero, n_zero, c);
        if ((st = linear_terms(a, q, u, tau)) || (st = stuck_mode(a))) return st;
        direction[c] = -(int64_t)fj_sign(field(a, W_FMU)[c]);
        n_stuck = drop(stuck, n_stuck, find(stuck, n_stuck, c));
        if (i < 0) return ST_BREAKAWAY_SLIPPING;
        n_zero = drop(zero, n_zero, i);
        if ((st = linear_terms(&b, q, u, tau))) return st;
    }
    if (has_mode && kind != EV_SLIP_ZERO) {
        /* settling after a change or at a time event: a slipping contact that has just been given a
         * direction keeps it; the stuck and undecided contacts are decided again */
        int64_t n = 0;
        for (int64_t i = 0; i < n_zero; i++) {
            int64_t c = zero[i];
            direction[c] = old[c];
            if (find(stuck, n_stuck, c) >= 0 || old[c] == 0) zero[n++] = c;
        }
        n_zero = n;
    }
    for (int64_t i = 0; i < n_zero; i++) {
        int64_t c = zero[i];
        if (row_scale[c] <= ZERO_ROW)
            kinematic[n_kin++] = c;
        else
            Z[nz++] = c;
    }
    int stale = 0;
    /* friction reverses as the joint passes a kinematic zero of its slip: the sign its slip takes past the
     * zero, not -old (a contact reversed at an event just before may still be within ZERO_SLIP of it) */
    for (int64_t i = 0; i < n_kin; i++)
        if ((st = direction_off_zero(&b, y, tau, kinematic[i], direction + kinematic[i], &stale))) return st;
    if (stale && (st = linear_terms(&b, q, u, tau))) return st;
    int64_t *new_stuck = ifield(a, WI_NEW_STUCK), *rows = ifield(a, WI_ROWS), ns;
    if ((st = decide_at_zero(&b, fmode, imode, direction, Z, nz, new_stuck, &ns))) return st;
    int64_t n_lock = independent_rows(&b, new_stuck, ns, rows);
    if (n_lock == k) /* the stuck contacts freeze the mechanism: nothing slips, nothing reverses */
        for (int64_t i = 0; i < n_kin; i++) direction[kinematic[i]] = 0;
    encode_decision(&b, fmode, imode, direction, new_stuck, ns, rows, n_lock);
    if (ns && (st = lock_velocity(&b, y + k1))) return st; /* the locked velocities exactly zero */
    int slipping = 0;
    for (int64_t j = 0; j < nc; j++) slipping |= direction[contacts[j]] != 0 && row_scale[contacts[j]] > ZERO_ROW;
    if (ns > n_lock && (n_lock > 1 || slipping)) return ST_DEPENDENT_STUCK;
    for (int64_t i = 0; i < nz; i++) change[Z[i]] = CHANGE_Z;
    for (int64_t i = 0; i < n_kin; i++) change[kinematic[i]] = CHANGE_KINEMATIC;
    return FJ_OK;
}

/* fj_mode_layout_fn: fmode [direction (l), lock rows (k x k)], imode (encode_mode's), at most one event
 * per contact, the change report (l). */
static void mode_layout(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                        fj_mode_layout *layout) {
    (void)fpar, (void)n_fpar, (void)n_ipar;
    int64_t l = ipar[I_L], k = ipar[I_K];
    layout->n_fmode = l + k * k;
    layout->n_imode = IM_HEADER + 2 * k + ipar[I_M2] + 2 * l;
    layout->max_events = ipar[I_NC];
    layout->n_change = l;
}

/* two float and two int matrices of ipar[I_WIDTH] columns (planar_pack.c's WORK_FIELDS, IWORK_FIELDS) */
static void work_size(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar, int64_t *n_work,
                      int64_t *n_iwork) {
    (void)fpar, (void)n_fpar, (void)n_ipar;
    *n_work = 2 * ipar[I_WORK_ROWS] * ipar[I_WIDTH]; /* two: events() may use a second (second_workspace) */
    *n_iwork = 2 * ipar[I_IWORK_ROWS] * ipar[I_WIDTH];
}

/* The text of each status (the only source of these texts; planar/packing.py has the codes). */
static const char *message(int64_t status) {
    switch (status) {
    case ST_GUIDE_AXIS: return "a prismatic tree joint cannot use its coordinate: the guide is perpendicular to it";
    case ST_TREE_SINGULAR: return "the tree map [C1; S] is singular";
    case ST_V_SINGULAR: return "V is singular for the partition (a dead-centre configuration)";
    case ST_M2_NOT_PD: return "the reduced mass matrix M'' is not positive definite";
    case ST_CCT_SINGULAR: return "C C^T is singular (dependent constraint rows)";
    case ST_NO_CONVERGENCE: return "reaction-friction iteration did not converge";
    case ST_INCONSISTENT: return "the reaction-friction equations have no solution (Painleve inconsistency)";
    case ST_INDETERMINATE: return "the reaction-friction equations have several solutions (Painleve indeterminacy)";
    case ST_HOLDING_SINGULAR: return "the holding friction of the stuck contacts is singular (W = P[:, S])";
    case ST_LOCK_SINGULAR: return "the locked rows are singular on their pivot columns";
    case ST_SHARED_NO_SETTLE: return "the shared holding friction does not settle";
    case ST_GAUSS_NO_SETTLE: return "the static friction of the contacts at zero slip does not settle with its reactions";
    case ST_DEPENDENT_STUCK:
        return "contacts stick with dependent slip rows while others move: their holding forces are indeterminate "
               "(not supported)";
    case ST_BREAKAWAY_SLIPPING: return "the contact breaking away is not at zero slip";
    case ST_NOT_ASSEMBLED:
        return "the closing constraints cannot be satisfied (unassemblable geometry or dead centre)";
    default: return "unknown status";
    }
}

const fj_family fj_family_planar = {"planar", rhs, events, record, work_size, message, mode_layout, mode_events,
                                   decide, NULL, NULL, NULL};
