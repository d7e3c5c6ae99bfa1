/* box_qp.c: the Gauss-principle box QP of hybrid.stiction.gauss_friction (seed 001 Sect. 3-4) by the
 * bounded-variable least squares (BVLS) of Stark & Parker (1995); see box_qp.h.
 *
 * Notation: x = lambda, r = A x + b the residual, g = A^T r the gradient of ||r||^2 / 2 (= a, the slip
 * accelerations). Each variable is free, at its lower bound -bound, at its upper bound +bound, or fixed
 * at 0 (a zero bound). Optimality (Kuhn-Tucker, = Coulomb's law at zero slip, stiction.py): g_c = 0
 * where free, g_c >= 0 at the lower bound, g_c <= 0 at the upper one.
 *
 * Loop A (fj_box_qp) frees the bound variable whose gradient violates its optimality most; loop B
 * (descend) solves the least squares over the free variables with the others held, and, while that
 * solution leaves the box, steps from x towards it as far as the box allows and binds the variable that
 * stopped the step. Both start from x = 0 with every variable of positive bound free (feasible). The least
 * squares over the free columns is a Householder QR with column pivoting; a column that depends on the
 * previous ones (rank-deficient A) keeps its value, which gives a least-squares solution whatever the
 * rank, so the residual is the minimum's.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "box_qp.h"

enum { FREE = 0, LOWER = 1, UPPER = 2, FIXED = 3, KIND = 3, REJECTED = 4 };

#define GRADIENT_TOL (128.0 * DBL_EPSILON) /* a gradient below this x its rounding scale is zero */
#define RANK_TOL (16.0 * DBL_EPSILON)      /* a pivot below this x max(k, z) x the first is zero */

void fj_box_qp_work_size(int64_t k, int64_t z, int64_t *n_work, int64_t *n_iwork) {
    *n_work = FJ_BOX_QP_WORK(k, z);
    *n_iwork = FJ_BOX_QP_IWORK(z);
}

/* r = A x + b. */
static void residual(const double *A, int64_t k, int64_t z, int64_t lda, const double *b, const double *x,
                     double *r) {
    for (int64_t i = 0; i < k; i++) {
        double s = b[i];
        for (int64_t j = 0; j < z; j++) s += A[i * lda + j] * x[j];
        r[i] = s;
    }
}

/* g = A^T r. */
static void gradient(const double *A, int64_t k, int64_t z, int64_t lda, const double *r, double *g) {
    for (int64_t j = 0; j < z; j++) {
        double s = 0.0;
        for (int64_t i = 0; i < k; i++) s += A[i * lda + j] * r[i];
        g[j] = s;
    }
}

/* Householder QR with column pivoting of W (k x n, row stride n) applied to d (k) as well: on return the
 * upper triangle of W's first rank rows is R (of the permuted columns perm) and d is Q^T d; the rank
 * (pivots above RANK_TOL of the first) is returned. */
static int64_t pivoted_qr(double *W, int64_t k, int64_t n, double *d, int64_t *perm) {
    int64_t steps = k < n ? k : n, big = k > n ? k : n;
    double tol = 0.0;
    for (int64_t c = 0; c < n; c++) perm[c] = c;
    for (int64_t j = 0; j < steps; j++) {
        int64_t p = j; /* the column of largest remaining norm */
        double best = -1.0;
        for (int64_t c = j; c < n; c++) {
            double s = 0.0;
            for (int64_t i = j; i < k; i++) s += W[i * n + c] * W[i * n + c];
            if (s > best) {
                best = s;
                p = c;
            }
        }
        double norm = sqrt(best);
        if (j == 0) tol = RANK_TOL * (double)big * norm;
        if (!(norm > tol)) return j;
        if (p != j) {
            for (int64_t i = 0; i < k; i++) {
                double tmp = W[i * n + j];
                W[i * n + j] = W[i * n + p];
                W[i * n + p] = tmp;
            }
            int64_t tmp = perm[j];
            perm[j] = perm[p];
            perm[p] = tmp;
        }
        double alpha = W[j * n + j] >= 0.0 ? -norm : norm; /* H v = alpha e_j, v = w - alpha e_j */
        double v0 = W[j * n + j] - alpha;
        double vtv = v0 * v0;
        for (int64_t i = j + 1; i < k; i++) vtv += W[i * n + j] * W[i * n + j];
        for (int64_t c = j + 1; c <= n; c++) { /* the columns after j, then d (c = n) */
            double *col = c < n ? W + c : d;
            int64_t stride = c < n ? n : 1;
            double s = v0 * col[j * stride];
            for (int64_t i = j + 1; i < k; i++) s += W[i * n + j] * col[i * stride];
            double f = 2.0 * s / vtv;
            col[j * stride] -= f * v0;
            for (int64_t i = j + 1; i < k; i++) col[i * stride] -= f * W[i * n + j];
        }
        W[j * n + j] = alpha;
    }
    return steps;
}

/* zs (nf, in the order of free) = a minimiser of ||A x + b|| over the free variables, the others held at
 * x; a free column that depends on the previous pivots keeps its value x. W: k x nf scratch, d: k. */
static void free_least_squares(const double *A, int64_t k, int64_t z, int64_t lda, const double *b,
                               const double *x, const int64_t *state, const int64_t *free, int64_t nf, double *W,
                               double *d, int64_t *perm, double *zs) {
    for (int64_t i = 0; i < k; i++) {
        double s = b[i];
        for (int64_t j = 0; j < z; j++)
            if ((state[j] & KIND) != FREE) s += A[i * lda + j] * x[j];
        d[i] = -s;
        for (int64_t c = 0; c < nf; c++) W[i * nf + c] = A[i * lda + free[c]];
    }
    int64_t rank = pivoted_qr(W, k, nf, d, perm);
    for (int64_t i = rank - 1; i >= 0; i--) { /* R11 z_B = (Q^T d)_1 - R12 x_held, in d[0:rank] */
        double s = d[i];
        for (int64_t c = i + 1; c < nf; c++) s -= W[i * nf + c] * (c < rank ? d[c] : x[free[perm[c]]]);
        d[i] = s / W[i * nf + i];
    }
    for (int64_t c = 0; c < nf; c++) zs[perm[c]] = c < rank ? d[c] : x[free[perm[c]]];
}

/* The free variables in free (returned: their number). */
static int64_t free_list(const int64_t *state, int64_t z, int64_t *free) {
    int64_t nf = 0;
    for (int64_t j = 0; j < z; j++)
        if ((state[j] & KIND) == FREE) free[nf++] = j;
    return nf;
}

/* Loop B: from a feasible x, the least squares over the free variables, stepping towards it and binding
 * the variable that stops the step until it is feasible. entering: the variable loop A just freed (from
 * its bound), or -1; if its least-squares value does not move it into the box (a rounding-level
 * gradient), x is left unchanged and 0 returned, else 1. */
static int descend(const double *A, int64_t k, int64_t z, int64_t lda, const double *b, const double *bound,
                   double *x, int64_t *state, int64_t *free, int64_t *perm, double *W, double *d, double *zs,
                   int64_t entering, int64_t entering_from) {
    for (int first = 1;; first = 0) {
        int64_t nf = free_list(state, z, free);
        if (nf == 0) return 1;
        free_least_squares(A, k, z, lda, b, x, state, free, nf, W, d, perm, zs);
        int64_t stop = -1;
        double alpha = 1.0;
        for (int64_t c = 0; c < nf; c++) {
            int64_t j = free[c];
            if (first && j == entering && (entering_from == LOWER ? !(zs[c] > x[j]) : !(zs[c] < x[j]))) {
                return 0; /* Stark & Parker: the entering variable must move into the box */
            }
            double edge = zs[c] > bound[j] ? bound[j] : zs[c] < -bound[j] ? -bound[j] : zs[c];
            if (edge != zs[c]) { /* leaves the box: the fraction of the step that reaches its edge */
                double frac = (edge - x[j]) / (zs[c] - x[j]);
                if (stop < 0 || frac < alpha) {
                    alpha = frac;
                    stop = c;
                }
            }
        }
        if (stop < 0) {
            for (int64_t c = 0; c < nf; c++) x[free[c]] = zs[c];
            return 1;
        }
        if (!(alpha > 0.0)) alpha = 0.0;
        for (int64_t c = 0; c < nf; c++) {
            int64_t j = free[c];
            x[j] += alpha * (zs[c] - x[j]);
            if (c == stop || x[j] <= -bound[j] || x[j] >= bound[j]) { /* bind it */
                int upper = c == stop ? zs[c] > bound[j] : x[j] >= bound[j];
                x[j] = upper ? bound[j] : -bound[j];
                state[j] = upper ? UPPER : LOWER;
            }
        }
    }
}

int fj_box_qp(const double *A, int64_t k, int64_t z, int64_t lda, const double *b, const double *bound,
              double *lambda, double *a, double *work, int64_t *iwork) {
    double *W = work, *d = W + k * z, *r = d + k, *zs = r + k, *g = zs + z, *threshold = g + z;
    int64_t *state = iwork, *free = state + z, *perm = free + z;
    double scale = 0.0; /* a bound of |A| |x| + |b|: the rounding scale of r */
    for (int64_t i = 0; i < k; i++) scale += b[i] * b[i];
    scale = sqrt(scale);
    for (int64_t j = 0; j < z; j++) {
        double s = 0.0;
        for (int64_t i = 0; i < k; i++) s += A[i * lda + j] * A[i * lda + j];
        threshold[j] = sqrt(s);
        lambda[j] = 0.0;
        state[j] = bound[j] > 0.0 ? FREE : FIXED; /* a zero bound fixes lambda_j = 0 */
        if (state[j] == FREE) scale += threshold[j] * bound[j];
    }
    for (int64_t j = 0; j < z; j++) threshold[j] *= GRADIENT_TOL * scale;
    int status = FJ_BOX_QP_MAX_ITER;
    descend(A, k, z, lda, b, bound, lambda, state, free, perm, W, d, zs, -1, FREE);
    for (int64_t iter = 0; iter < 10 * z + 20; iter++) { /* loop A */
        residual(A, k, z, lda, b, lambda, r);
        gradient(A, k, z, lda, r, g);
        int64_t t = -1; /* the bound variable whose gradient points into the box most */
        double most = 0.0;
        for (int64_t j = 0; j < z; j++) {
            double into = state[j] == LOWER ? -g[j] : state[j] == UPPER ? g[j] : 0.0;
            if (into > threshold[j] && into > most) {
                most = into;
                t = j;
            }
        }
        if (t < 0) {
            status = FJ_BOX_QP_OK;
            break;
        }
        int64_t from = state[t];
        state[t] = FREE;
        if (descend(A, k, z, lda, b, bound, lambda, state, free, perm, W, d, zs, t, from)) {
            for (int64_t j = 0; j < z; j++) state[j] &= KIND; /* progress: every bound variable may enter */
        } else {
            state[t] = from | REJECTED;
        }
    }
    residual(A, k, z, lda, b, lambda, r);
    gradient(A, k, z, lda, r, a);
    return status;
}
