/* planar.c: the kernels of the planar family.
 *
 * hybrid.mechanism.MechanismSystem: the minimal form of seed 000 Sect. 4-5 with exact stick-slip per
 * frictional contact. The Python engine (planar.model, planar.joints, planar.tree, planar.minimal,
 * planar.coupling, friction.laws, hybrid.mechanism) is the reference: the kernels re-implement the
 * same equations in the same order, on the model packed by compiled.planar.pack (layouts in the
 * docstring of friction_joints/compiled/planar.py; the constants in planar_internal.h).
 *
 * Workspace: a->work is the float matrix of compiled.planar.WORK_FIELDS (ipar[I_WORK_ROWS] rows of
 * ipar[I_WIDTH] columns), a->iwork the int matrix of IWORK_FIELDS; a field is a block of their rows
 * (field(), ifield()), every matrix with the row stride ipar[I_WIDTH] (`ld` below). A function's comment
 * names the function of the Python engine it follows, where there is one.
 */
#include <math.h>

#include "fj_linalg.h"
#include "planar_internal.h"

/* constants of the Python engine (the same values) */
#define COUPLED_MAX_ITERATIONS 50 /* planar.coupling.MAX_ITERATIONS */
#define COUPLED_TOLERANCE 1e-14   /* planar.coupling.TOLERANCE */
#define MAX_CONDITION_V 1e12      /* planar.minimal._D2: cond(V) beyond which the configuration is singular */
#define MAX_BOUND_ITERATIONS 50   /* hybrid.mechanism.MAX_BOUND_ITERATIONS (secant of _shared_holding) */

enum { REVOLUTE, PRISMATIC, PIN_IN_SLOT };
enum { NO_LAW, COULOMB, STRIBECK, EXPONENTIAL, TANH };
/* per joint in ipar */
enum { JI_TYPE, JI_BODY_I, JI_BODY_J, JI_Z, JI_NZ, JI_S, JI_NS, JI_EDGE, JI_WIDTH };
/* per joint in fpar */
enum { JF_PI = 0, JF_PJ = 2, JF_EJ = 4, JF_THETA0 = 6, JF_R = 7, JF_EDGE = 8, JF_WIDTH = 9 };
#define LAW_WIDTH 4 /* mu_s and three parameters */
/* imode header */
enum { IM_NSTUCK, IM_NLOCK, IM_SIGN, IM_HEADER };

/* Python's max(a, b) and min(a, b), as the Python engine calls them (e.g. in
 * MechanismSystem._shared_holding): b replaces a only if it compares so, so that the results match the
 * Python reference engine's bit for bit where a NaN appears (fmax / fmin would drop the NaN). */
static double py_max(double a, double b) { return b > a ? b : a; }
static double py_min(double a, double b) { return b < a ? b : a; }

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
static void pose(const double *x, int64_t body, double *rx, double *ry, double *th) {
    if (body == 0) {
        *rx = *ry = *th = 0.0;
        return;
    }
    int64_t k = 3 * (body - 1);
    *rx = x[k];
    *ry = x[k + 1];
    *th = x[k + 2];
}

/* R(theta) p. */
static void rotate(double theta, double px, double py, double *ox, double *oy) {
    double c = cos(theta), s = sin(theta);
    *ox = c * px - s * py;
    *oy = s * px + c * py;
}

/* x = g(q) (seed 000 eq. 4.2; tree.JointCoordinates.g): place the bodies joint by joint. */
static int64_t place(const fj_args *a, const double *q, double *x) {
    const int64_t *ip = a->ipar;
    const double *fp = a->fpar;
    for (int64_t i = 0; i < ip[I_N]; i++) x[i] = 0.0;
    for (int64_t t = 0; t < ip[I_K1]; t++) {
        int64_t jt = ip[ip[I_TREE] + 2 * t];
        int64_t axis = ip[ip[I_TREE] + 2 * t + 1];
        int64_t ji = ip[I_JOINTS] + JI_WIDTH * jt;
        int64_t jf = ip[I_F_JOINTS] + JF_WIDTH * jt;
        int64_t bi = ip[ji + JI_BODY_I], bj = ip[ji + JI_BODY_J];
        double rjx, rjy, thj, pjx, pjy, pix, piy, rix, riy, thi;
        pose(x, bj, &rjx, &rjy, &thj);
        rotate(thj, fp[jf + JF_PJ], fp[jf + JF_PJ + 1], &pjx, &pjy);
        if (ip[ji + JI_TYPE] == REVOLUTE) { /* q = theta_i, the absolute angle (seed 000 (6.4)) */
            thi = q[t];
            rotate(thi, fp[jf + JF_PI], fp[jf + JF_PI + 1], &pix, &piy);
            rix = rjx + pjx - pix;
            riy = rjy + pjy - piy;
        } else { /* prismatic: q = x or y of r_i */
            double ex, ey;
            thi = thj + fp[jf + JF_THETA0];
            rotate(thj, fp[jf + JF_EJ], fp[jf + JF_EJ + 1], &ex, &ey);
            double e_axis = axis == 0 ? ex : ey;
            if (fabs(e_axis) < 1e-12) return ST_GUIDE_AXIS;
            rotate(thi, fp[jf + JF_PI], fp[jf + JF_PI + 1], &pix, &piy);
            double bx = rjx + pjx - pix, by = rjy + pjy - piy;
            double step = (q[t] - (axis == 0 ? bx : by)) / e_axis;
            rix = bx + step * ex;
            riy = by + step * ey;
        }
        int64_t k = 3 * (bi - 1);
        x[k] = rix;
        x[k + 1] = riy;
        x[k + 2] = thi;
    }
    return FJ_OK;
}

/* C = dPhi/dx (m, n) and C_mu = dPsi/dx (l, n) (model.constraints; seed 000 eqs 2.1-2.2). */
void fj_planar_jacobians(const fj_args *a, const double *x, double *C, double *Cmu, int64_t ld) {
    const int64_t *ip = a->ipar;
    const double *fp = a->fpar;
    int64_t n = ip[I_N];
    for (int64_t r = 0; r < ip[I_M]; r++)
        for (int64_t c = 0; c < n; c++) C[r * ld + c] = 0.0;
    for (int64_t r = 0; r < ip[I_L]; r++)
        for (int64_t c = 0; c < n; c++) Cmu[r * ld + c] = 0.0;
    for (int64_t j = 0; j < ip[I_NJ]; j++) {
        int64_t ji = ip[I_JOINTS] + JI_WIDTH * j;
        int64_t jf = ip[I_F_JOINTS] + JF_WIDTH * j;
        int64_t typ = ip[ji + JI_TYPE], bi = ip[ji + JI_BODY_I], bj = ip[ji + JI_BODY_J];
        double *Cz = C + ip[ji + JI_Z] * ld, *Cz1 = Cz + ld; /* rows z and z + 1 */
        double *Ms = Cmu + ip[ji + JI_S] * ld, *Ms1 = Ms + ld; /* rows s and s + 1 */
        int64_t ci = 3 * (bi - 1), cj = 3 * (bj - 1);
        double rix, riy, thi, rjx, rjy, thj, aix, aiy, ajx, ajy;
        pose(x, bi, &rix, &riy, &thi);
        pose(x, bj, &rjx, &rjy, &thj);
        rotate(thi, fp[jf + JF_PI], fp[jf + JF_PI + 1], &aix, &aiy);
        rotate(thj, fp[jf + JF_PJ], fp[jf + JF_PJ + 1], &ajx, &ajy);
        if (typ == REVOLUTE) { /* z = d, s = theta_i - theta_j */
            Cz[ci] = 1.0, Cz[ci + 2] = -aiy;
            Cz1[ci + 1] = 1.0, Cz1[ci + 2] = aix;
            Ms[ci + 2] = 1.0;
            if (bj) {
                Cz[cj] = -1.0, Cz[cj + 2] = ajy;
                Cz1[cj + 1] = -1.0, Cz1[cj + 2] = -ajx;
                Ms[cj + 2] = -1.0;
            }
            continue;
        }
        /* prismatic and pin-in-slot: normal row n . d and sliding row e . d, e = R_j e_j, n = perp(e) */
        double dx = rix + aix - rjx - ajx, dy = riy + aiy - rjy - ajy, ex, ey;
        rotate(thj, fp[jf + JF_EJ], fp[jf + JF_EJ + 1], &ex, &ey);
        double nx = -ey, ny = ex;
        Cz[ci] = nx, Cz[ci + 1] = ny, Cz[ci + 2] = nx * -aiy + ny * aix;
        Ms[ci] = ex, Ms[ci + 1] = ey, Ms[ci + 2] = ex * -aiy + ey * aix;
        if (bj) { /* de/dtheta_j = n, dn/dtheta_j = -e: extra terms in the theta_j column */
            Cz[cj] = -nx, Cz[cj + 1] = -ny;
            Cz[cj + 2] = -(nx * -ajy + ny * ajx) - (ex * dx + ey * dy);
            Ms[cj] = -ex, Ms[cj + 1] = -ey;
            Ms[cj + 2] = -(ex * -ajy + ey * ajx) + (nx * dx + ny * dy);
        }
        if (typ == PRISMATIC) { /* lock row theta_i - theta_j - theta_0 */
            Cz1[ci + 2] = 1.0;
            if (bj) Cz1[cj + 2] = -1.0;
        } else { /* pin-in-slot: second free coordinate theta_i - theta_j */
            Ms1[ci + 2] = 1.0;
            if (bj) Ms1[cj + 2] = -1.0;
        }
    }
}

/* (R p, r + R p, omega, velocity of the point) of point p of `body` (joints._moving_point):
 * out = [ax, ay, Px, Py, w, vx, vy]. */
static void moving_point(const double *x, const double *xd, int64_t body, double px, double py, double *out) {
    if (body == 0) {
        out[0] = px, out[1] = py, out[2] = px, out[3] = py, out[4] = out[5] = out[6] = 0.0;
        return;
    }
    int64_t k = 3 * (body - 1);
    double ax, ay;
    rotate(x[k + 2], px, py, &ax, &ay);
    double w = xd[k + 2];
    out[0] = ax, out[1] = ay, out[2] = x[k] + ax, out[3] = x[k + 1] + ay;
    out[4] = w, out[5] = xd[k] + w * -ay, out[6] = xd[k + 1] + w * ax;
}

/* xi = -Cdot xdot (m,) (model.xi; seed 000 eq. 2.9). */
void fj_planar_xi(const fj_args *a, const double *x, const double *xd, double *xi) {
    const int64_t *ip = a->ipar;
    const double *fp = a->fpar;
    for (int64_t j = 0; j < ip[I_NJ]; j++) {
        int64_t ji = ip[I_JOINTS] + JI_WIDTH * j;
        int64_t jf = ip[I_F_JOINTS] + JF_WIDTH * j;
        int64_t typ = ip[ji + JI_TYPE], bi = ip[ji + JI_BODY_I], bj = ip[ji + JI_BODY_J], z = ip[ji + JI_Z];
        double pi[7], pj[7];
        moving_point(x, xd, bi, fp[jf + JF_PI], fp[jf + JF_PI + 1], pi);
        moving_point(x, xd, bj, fp[jf + JF_PJ], fp[jf + JF_PJ + 1], pj);
        double aix = pi[0], aiy = pi[1], Pix = pi[2], Piy = pi[3], wi = pi[4], vix = pi[5], viy = pi[6];
        double ajx = pj[0], ajy = pj[1], Pjx = pj[2], Pjy = pj[3], wj = pj[4], vjx = pj[5], vjy = pj[6];
        if (typ == REVOLUTE) {
            xi[z] = aix * (wi * wi) - ajx * (wj * wj);
            xi[z + 1] = aiy * (wi * wi) - ajy * (wj * wj);
            continue;
        }
        /* z_n'' = n''.d + 2 n'.d' + n.d'' (joints.Prismatic._slide_xi) */
        double rjx, rjy, thj, ex, ey;
        pose(x, bj, &rjx, &rjy, &thj);
        rotate(thj, fp[jf + JF_EJ], fp[jf + JF_EJ + 1], &ex, &ey);
        double nx = -ey, ny = ex;
        xi[z] = ((nx * (Pix - Pjx) + ny * (Piy - Pjy)) * (wj * wj) + 2.0 * wj * (ex * (vix - vjx) + ey * (viy - vjy))
                 + (nx * (aix * (wi * wi) - ajx * (wj * wj)) + ny * (aiy * (wi * wi) - ajy * (wj * wj))));
        if (typ == PRISMATIC) xi[z + 1] = 0.0;
    }
}

/* ================================================================================================
 * Friction (planar.joints *.friction, seed 000 eq. 2.5; friction.laws)
 * ================================================================================================ */

/* Signed coefficient -sign mu of free coordinate c (joints._law_coefficients): mu_s if static, else
 * the kinetic mu(sd) of its law; 0 without a law or with sign 0. */
static double law_coefficient(const fj_args *a, int64_t c, double sd, double sign, int stat) {
    const int64_t *ip = a->ipar;
    const double *fp = a->fpar;
    int64_t kind = ip[ip[I_LAWS] + c];
    if (kind == NO_LAW || sign == 0.0) return 0.0;
    int64_t p = ip[I_F_LAWS] + LAW_WIDTH * c;
    double mu;
    if (stat)
        mu = fp[p];
    else if (kind == COULOMB)
        mu = fp[p + 1];
    else if (kind == STRIBECK) /* mu_k + (mu_s - mu_k) exp(-(|v|/v_s)^delta) */
        mu = fp[p + 1] + (fp[p] - fp[p + 1]) * exp(-(pow(fabs(sd) / fp[p + 2], fp[p + 3])));
    else if (kind == EXPONENTIAL) /* seed 002 eq. (7): mu_0 (1 - exp(-k |v| / v_k)) */
        mu = fp[p + 1] * (1.0 - exp(-fp[p + 2] * fabs(sd) / fp[p + 3]));
    else /* TANH: mu_k tanh(|v| / v_eps) */
        mu = fp[p + 1] * tanh(fabs(sd) / fp[p + 2]);
    return -sign * mu;
}

/* f_mu (l,) from the ideal reactions f (m,) and df_mu/df (model.friction). Friction directions:
 * `direction` (l,) (its values scale the coefficient, as in _holding_trial), or sgn(sd) if use_sign;
 * stat (l,) int flags: the static coefficient mu_s. J (l, m, stride ld): only the blocks (s rows, z
 * columns) of each joint are written, the rest of df_mu/df being zero. */
static void friction(const fj_args *a, const double *f, const double *sd, const double *direction, int use_sign,
                     const int64_t *stat, double *f_mu, double *J, int64_t ld) {
    const int64_t *ip = a->ipar;
    const double *fp = a->fpar;
    for (int64_t j = 0; j < ip[I_NJ]; j++) {
        int64_t ji = ip[I_JOINTS] + JI_WIDTH * j;
        int64_t jf = ip[I_F_JOINTS] + JF_WIDTH * j;
        int64_t typ = ip[ji + JI_TYPE], z = ip[ji + JI_Z], s = ip[ji + JI_S];
        double *Js = J + s * ld;
        double sign0 = use_sign ? fj_sign(sd[s]) : direction[s];
        double coef = law_coefficient(a, s, sd[s], sign0, stat[s] != 0);
        if (typ == REVOLUTE) { /* f_mu = -sgn mu r |f| (eq. 2.5 row 1) */
            double r = fp[jf + JF_R];
            double nrm = hypot(f[z], f[z + 1]);
            f_mu[s] = coef * r * nrm;
            if (nrm != 0.0) {
                Js[z] = coef * r * f[z] / nrm;
                Js[z + 1] = coef * r * f[z + 1] / nrm;
            } else {
                Js[z] = 0.0;
                Js[z + 1] = 0.0;
            }
        } else if (typ == PRISMATIC) {  /* f_mu = -sgn mu N (eq. 2.5 row 2) */
            if (ip[ji + JI_EDGE] == 0) { /* N = |f_n| */
                f_mu[s] = coef * fabs(f[z]);
                Js[z] = coef * fj_sign(f[z]);
                Js[z + 1] = 0.0;
            } else { /* two edges at -+L/2 carry the lock moment: N = |f_n/2 + f_th/L| + |f_n/2 - f_th/L| */
                double L = fp[jf + JF_EDGE];
                double pa = f[z] / 2 + f[z + 1] / L, pb = f[z] / 2 - f[z + 1] / L;
                f_mu[s] = coef * (fabs(pa) + fabs(pb));
                Js[z] = coef * (fj_sign(pa) * 0.5 + fj_sign(pb) * 0.5);
                Js[z + 1] = coef * (fj_sign(pa) * (1 / L) + fj_sign(pb) * (-1 / L));
            }
        } else { /* pin-in-slot (eq. 2.5 rows 3-4): pin load sqrt(f^2 + f_mu1^2) = |f| sqrt(1 + c_t^2) */
            double sign1 = use_sign ? fj_sign(sd[s + 1]) : direction[s + 1];
            double c_r = law_coefficient(a, s + 1, sd[s + 1], sign1, stat[s + 1] != 0);
            double fn = f[z];
            double factor = fp[jf + JF_R] * sqrt(1.0 + coef * coef);
            f_mu[s] = coef * fabs(fn);
            f_mu[s + 1] = c_r * factor * fabs(fn);
            Js[z] = coef * fj_sign(fn);
            Js[ld + z] = c_r * factor * fj_sign(fn);
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
    /* mu_s: sd unused */
    friction(a, f, ones, ones, 0, all_static, limits, field(a, W_J), a->ipar[I_WIDTH]);
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
 * Returns the number of iterations, or -1 without convergence. */
static int64_t newton(const fj_args *a, const double *f_start, const double *f0, const double *B, const double *sd,
                      const double *direction, int use_sign, const int64_t *stat, double *f, double *f_mu) {
    int64_t m = a->ipar[I_M], l = a->ipar[I_L], ld = a->ipar[I_WIDTH];
    double *J = field(a, W_J), *J_new = field(a, W_J2), *A = field(a, W_NA);
    double *Bf = field(a, W_BF), *R = field(a, W_R), *step = field(a, W_STEP), *JR = field(a, W_JR);
    double *f_new = field(a, W_F2), *fmu_new = field(a, W_FMU2);
    double *Bf_new = field(a, W_BF2), *R_new = field(a, W_R2), *swap;
    int64_t *piv = ifield(a, WI_NPIV);
    copy(f, f_start, m);
    double scale = 1.0 + norm(f0, m);
    friction(a, f, sd, direction, use_sign, stat, f_mu, J, ld);
    residual(f, f0, B, f_mu, m, l, ld, Bf, R);
    for (int64_t it = 0; it < COUPLED_MAX_ITERATIONS + 1; it++) {
        double res = norm(R, m);
        if (res <= COUPLED_TOLERANCE * (scale + norm(Bf, m))) return it;
        if (it == COUPLED_MAX_ITERATIONS) return -1;
        /* step = (I - B J)^-1 R = R + B (I - J B)^-1 J R (an l x l system instead of m x m) */
        newton_matrix(a, B, J, A, R, JR);
        copy(step, R, m);
        if (fj_lu_factor(A, l, ld, piv) == 0) {
            fj_lu_solve(A, l, ld, piv, JR);
            for (int64_t i = 0; i < m; i++) {
                double s = 0.0;
                for (int64_t c = 0; c < l; c++) s += B[i * ld + c] * JR[c];
                step[i] += s;
            }
        }
        /* else: the fixed-point step R where the Jacobian is singular */
        double t = 1.0;
        for (;;) { /* backtracking on the residual norm */
            for (int64_t i = 0; i < m; i++) f_new[i] = f[i] - t * step[i];
            friction(a, f_new, sd, direction, use_sign, stat, fmu_new, J_new, ld);
            residual(f_new, f0, B, fmu_new, m, l, ld, Bf_new, R_new);
            if (norm(R_new, m) < res || t < 1e-6) break;
            t *= 0.5;
        }
        copy(f, f_new, m);
        copy(f_mu, fmu_new, l);
        swap = J, J = J_new, J_new = swap;
        swap = Bf, Bf = Bf_new, Bf_new = swap;
        swap = R, R = R_new, R_new = swap;
    }
    return -1;
}

/* kappa = ||B diag(L)||_2 < 1 (coupling.solve_coupled): its Frobenius norm bounds it; the exact
 * 2-norm (the largest singular value) decides where that bound does not. */
static int kappa_below_one(const fj_args *a, const double *B) {
    int64_t m = a->ipar[I_M], l = a->ipar[I_L], ld = a->ipar[I_WIDTH];
    const double *lip = a->fpar + a->ipar[I_F_LIP];
    double *S = field(a, W_SV);
    double frob = 0.0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t c = 0; c < l; c++) {
            S[i * ld + c] = B[i * ld + c] * lip[c];
            frob += S[i * ld + c] * S[i * ld + c];
        }
    if (frob < 1.0) return 1;
    double *sv = field(a, W_SVALUES);
    singular_values(S, m, l, ld, sv);
    double kappa = 0.0;
    for (int64_t c = 0; c < l; c++) kappa = py_max(kappa, sv[c]);
    return kappa < 1.0;
}

/* f = f0 + B f_mu(f) to machine precision (coupling.solve_coupled): Newton from f0 when the map is a
 * contraction (kappa < 1), else Newton from every sign pattern of the joint reactions, the root to be
 * unique. */
int64_t fj_planar_solve_coupled(const fj_args *a, const double *f0, const double *B, const double *sd,
                                const double *direction, int use_sign, const int64_t *stat, double *f,
                                double *f_mu) {
    const int64_t *ip = a->ipar;
    if (kappa_below_one(a, B)) {
        if (newton(a, f0, f0, B, sd, direction, use_sign, stat, f, f_mu) < 0) return ST_NO_CONVERGENCE;
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
    int64_t n = ip[I_N], k1 = ip[I_K1], m2 = ip[I_M2], ld = ip[I_WIDTH];
    const int64_t *rows2 = ip + ip[I_ROWS2];
    double *x = field(a, W_X), *C = field(a, W_C);
    int64_t st = place(a, q, x);
    if (st) return st;
    fj_planar_jacobians(a, x, C, field(a, W_CMU), ld);
    st = tree_map(a);
    if (st) return st;
    const double *D1 = field(a, W_D1);
    double *C2p = field(a, W_C2P);
    for (int64_t r = 0; r < m2; r++)
        for (int64_t c = 0; c < k1; c++) {
            double s = 0.0;
            for (int64_t i = 0; i < n; i++) s += C[rows2[r] * ld + i] * D1[i * ld + c];
            C2p[r * ld + c] = s;
        }
    return FJ_OK;
}

/* C2' = [U, V] (seed 000 eq. 5.1) for the partition of the mode, after closing_jacobian; D2 = [I; -V^-1 U]
 * (eq. 5.2). V: LU-factorised in place (field V, pivots vpiv). */
static int64_t partition_map(const fj_args *a) {
    const int64_t *ip = a->ipar;
    int64_t k1 = ip[I_K1], k = ip[I_K], m2 = ip[I_M2], ld = ip[I_WIDTH];
    const int64_t *part = a->imode + IM_HEADER, *vidx = a->imode + IM_HEADER + k;
    double *V = field(a, W_V), *D2 = field(a, W_D2);
    int64_t *vpiv = ifield(a, WI_VPIV);
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

/* Velocity-level terms at (q, u) for the partition of the mode (MinimalForm.kinematics): x, xd, qd,
 * C, C_mu, xi, D1, D2, nu2, D = D1 D2, gamma = D1 nu2 + D1dot qdot, sd = C_mu xd. */
static int64_t kinematics(const fj_args *a, const double *q, const double *u) {
    const int64_t *ip = a->ipar;
    int64_t n = ip[I_N], k1 = ip[I_K1], k = ip[I_K], m2 = ip[I_M2], l = ip[I_L], ld = ip[I_WIDTH], n1 = n - k1;
    const int64_t *vidx = a->imode + IM_HEADER + k, *rows1 = ip + ip[I_ROWS1], *rows2 = ip + ip[I_ROWS2];
    const int64_t *xo = ip + ip[I_XO];
    const double *x = field(a, W_X), *C = field(a, W_C), *Cmu = field(a, W_CMU);
    int64_t st = closing_jacobian(a, q);
    if (st) return st;
    st = partition_map(a);
    if (st) return st;
    const double *D1 = field(a, W_D1), *D2 = field(a, W_D2), *A = field(a, W_A), *V = field(a, W_V);
    double *qd = field(a, W_QD), *xd = field(a, W_XD);
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
    double *xi = field(a, W_XI);
    fj_planar_xi(a, x, xd, xi);
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
        for (int64_t r = 0; r < m2; r++) {
            double s = 0.0;
            for (int64_t i = 0; i < n; i++) s += C[rows2[r] * ld + i] * D1dq[i];
            xi2p[r] = xi[rows2[r]] - s;
        }
        fj_lu_solve(V, m2, ld, ifield(a, WI_VPIV), xi2p);
        for (int64_t r = 0; r < m2; r++) nu2[vidx[r]] = xi2p[r];
    }
    double *D = field(a, W_D), *gamma = field(a, W_GAMMA);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < k; j++) {
            double s = 0.0;
            for (int64_t b = 0; b < k1; b++) s += D1[i * ld + b] * D2[b * ld + j];
            D[i * ld + j] = s;
        }
        double s = 0.0;
        for (int64_t b = 0; b < k1; b++) s += D1[i * ld + b] * nu2[b];
        gamma[i] = s + D1dq[i];
    }
    double *sd = field(a, W_SD);
    for (int64_t c = 0; c < l; c++) { /* sd = C_mu xdot (seed 000 eq. 5.5) */
        double s = 0.0;
        for (int64_t i = 0; i < n; i++) s += Cmu[c * ld + i] * xd[i];
        sd[c] = s;
    }
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

/* w = M D M''^-1 h'' + M gamma - h and W = M D M''^-1 Cpp^T - C_mu^T;
 * f0 = (C C^T)^-1 C w and B = (C C^T)^-1 C W (the second half of MinimalForm.linear_terms). */
static int64_t reactions(const fj_args *a) {
    const int64_t *ip = a->ipar;
    int64_t n = ip[I_N], m = ip[I_M], l = ip[I_L], k = ip[I_K], ld = ip[I_WIDTH];
    const double *mass = a->fpar + ip[I_F_MASS];
    const double *D = field(a, W_D), *gamma = field(a, W_GAMMA), *C = field(a, W_C), *Cmu = field(a, W_CMU);
    const double *h = field(a, W_H), *L2 = field(a, W_L2), *h2 = field(a, W_H2), *Cpp = field(a, W_CPP);
    double *y0 = field(a, W_Y0), *Y = field(a, W_Y), *wv = field(a, W_WV), *W = field(a, W_WM), *CCt = field(a, W_CCT);
    copy(y0, h2, k);
    cho_solve(L2, k, ld, y0);
    for (int64_t b = 0; b < k; b++)
        for (int64_t c = 0; c < l; c++) Y[b * ld + c] = Cpp[c * ld + b];
    cho_solve_columns(L2, k, ld, Y, l, ld);
    for (int64_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int64_t b = 0; b < k; b++) s += D[i * ld + b] * y0[b];
        wv[i] = mass[i] * s + mass[i] * gamma[i] - h[i];
        for (int64_t c = 0; c < l; c++) {
            s = 0.0;
            for (int64_t b = 0; b < k; b++) s += D[i * ld + b] * Y[b * ld + c];
            W[i * ld + c] = mass[i] * s - Cmu[c * ld + i];
        }
    }
    for (int64_t r = 0; r < m; r++)
        for (int64_t c = 0; c < r + 1; c++) {
            double s = 0.0;
            for (int64_t i = 0; i < n; i++) s += C[r * ld + i] * C[c * ld + i];
            CCt[r * ld + c] = s;
            CCt[c * ld + r] = s;
        }
    if (cholesky(CCt, m, ld)) return ST_CCT_SINGULAR;
    double *f0 = field(a, W_F0), *B = field(a, W_B);
    for (int64_t r = 0; r < m; r++) {
        double s = 0.0;
        for (int64_t i = 0; i < n; i++) s += C[r * ld + i] * wv[i];
        f0[r] = s;
        for (int64_t c = 0; c < l; c++) {
            s = 0.0;
            for (int64_t i = 0; i < n; i++) s += C[r * ld + i] * W[i * ld + c];
            B[r * ld + c] = s;
        }
    }
    cho_solve(CCt, m, ld, f0);
    cho_solve_columns(CCt, m, ld, B, l, ld);
    return FJ_OK;
}

/* The minimal form with friction unknown (MinimalForm.linear_terms): M'' = D^T M D, h'' = D^T (h - M
 * gamma) (seed 000 eq. 5.4) and the Cholesky factor of M'', Cpp = C_mu D (eq. 5.5), and f0, B with
 * f = f0 + B f_mu from C^T f = M xdd - h - C_mu^T f_mu by the left inverse (C C^T)^-1 C. */
static int64_t linear_terms(const fj_args *a, const double *q, const double *u, const double *tau) {
    int64_t st = kinematics(a, q, u);
    if (st) return st;
    const int64_t *ip = a->ipar;
    int64_t n = ip[I_N], l = ip[I_L], k = ip[I_K], ld = ip[I_WIDTH];
    const double *mass = a->fpar + ip[I_F_MASS];
    const double *D = field(a, W_D), *gamma = field(a, W_GAMMA), *Cmu = field(a, W_CMU);
    double *h = field(a, W_H), *L2 = field(a, W_L2), *h2 = field(a, W_H2), *Cpp = field(a, W_CPP);
    applied_forces(a, tau, h);
    for (int64_t r = 0; r < k; r++) {
        for (int64_t b = 0; b < k; b++) {
            double s = 0.0;
            for (int64_t i = 0; i < n; i++) s += D[i * ld + r] * mass[i] * D[i * ld + b];
            L2[r * ld + b] = s;
        }
        double s = 0.0;
        for (int64_t i = 0; i < n; i++) s += D[i * ld + r] * (h[i] - mass[i] * gamma[i]);
        h2[r] = s;
    }
    if (cholesky(L2, k, ld)) return ST_M2_NOT_PD;
    for (int64_t c = 0; c < l; c++)
        for (int64_t r = 0; r < k; r++) {
            double s = 0.0;
            for (int64_t i = 0; i < n; i++) s += Cmu[c * ld + i] * D[i * ld + r];
            Cpp[c * ld + r] = s;
        }
    return reactions(a);
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

/* MinimalForm.evaluate on the linear terms: the coupled solve, then udot (into the fields f, f_mu,
 * udot). */
static int64_t evaluate(const fj_args *a, const double *direction, int use_sign, const int64_t *stat) {
    double *f = field(a, W_F), *f_mu = field(a, W_FMU);
    int64_t st = fj_planar_solve_coupled(a, field(a, W_F0), field(a, W_B), field(a, W_SD), direction, use_sign,
                                         stat, f, f_mu);
    if (st) return st;
    udot_of(a, f_mu, field(a, W_UDOT));
    return FJ_OK;
}

/* ================================================================================================
 * The hybrid system (hybrid.mechanism.MechanismSystem)
 * ================================================================================================ */

/* The stuck contacts of the mode (imode[IM_NSTUCK] of them), in the imode layout of
 * compiled.planar.encode_mode. */
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
    int64_t st = evaluate(a, base, 0, stat);
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
    int64_t st = evaluate(a, scaled, 0, ifield(a, WI_STATIC));
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

/* The slip evaluation with the mode's friction directions (or sgn(sd): RegularisedSystem). */
static int64_t slip(const fj_args *a) {
    int64_t l = a->ipar[I_L];
    int64_t *stat = ifield(a, WI_STATIC);
    double *direction = field(a, W_DIRECTION);
    for (int64_t c = 0; c < l; c++) stat[c] = 0;
    copy(direction, a->fmode, l);
    return evaluate(a, direction, a->imode[IM_SIGN] != 0, stat);
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

/* The event functions of MechanismSystem.events(mode), in its order: slip_zero (direction_c sd_c) of
 * the slipping contacts, then the breakaway margins |lambda_c| - static limit_c of the stuck contacts,
 * or the Sect. 5 margin of a shared stiction. None in RegularisedSystem's mode. */
static int64_t events(const fj_args *a, double t, const double *y, const double *tau, double *g, int64_t n_out) {
    (void)t, (void)n_out;
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
                st = kinematics(a, q, u);
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
    const int64_t *ip = a->ipar;
    int64_t m = ip[I_M], l = ip[I_L], k1 = ip[I_K1], k = ip[I_K], nd = ip[I_ND], ld = ip[I_WIDTH];
    int64_t r = a->imode[IM_NSTUCK];
    const double *q = y, *u = y + k1;
    int64_t st = linear_terms(a, q, u, tau);
    if (st) return st;
    const int64_t *flags = mode_flags(a);
    /* the layout of record_layout: q, u, qd, qdd, udot, f, f_mu, sd, tau, stuck, stuck_contacts,
     * E_kin, E_pot, W_drive, W_friction */
    int64_t o_udot = 3 * k1 + k, o_f = o_udot + k, o_fmu = o_f + m;
    const double *f = field(a, W_F), *f_mu = field(a, W_FMU), *udot = field(a, W_UDOT);
    if (r) {
        st = stuck_mode(a);
        copy(out + o_udot, udot, k); /* locked */
        if (st == FJ_OK && r > a->imode[IM_NLOCK]) st = shared_holding(a);
    } else {
        st = slip(a);
        copy(out + o_udot, udot, k);
    }
    if (st) return st;
    copy(out + o_f, f, m);
    copy(out + o_fmu, f_mu, l);
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
    out[o] = r ? 1.0 : 0.0;
    o += 1;
    for (int64_t c = 0; c < l; c++) out[o + c] = flags[c] ? 1.0 : 0.0;
    o += l;
    record_energies(a, y, out + o);
    return FJ_OK;
}

/* one float and one int matrix of ipar[I_WIDTH] columns (compiled.planar.WORK_FIELDS, IWORK_FIELDS) */
static void work_size(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar, int64_t *n_work,
                      int64_t *n_iwork) {
    (void)fpar, (void)n_fpar, (void)n_ipar;
    *n_work = ipar[I_WORK_ROWS] * ipar[I_WIDTH];
    *n_iwork = ipar[I_IWORK_ROWS] * ipar[I_WIDTH];
}

/* The text of each status (the only source of these texts; compiled/planar.py has the codes). */
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
    default: return "unknown status";
    }
}

const fj_family fj_family_planar = {"planar", rhs, events, record, work_size, message, NULL, NULL, NULL};
