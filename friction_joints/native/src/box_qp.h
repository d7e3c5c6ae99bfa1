/* box_qp.h: the static friction of several contacts at zero slip by the Gauss principle (seed 001
 * Sect. 3-4), the box-constrained least squares of hybrid.stiction.gauss_friction:
 *
 *   lambda = argmin ||A lambda + b||   subject to   -bound <= lambda <= bound,
 *   a = A^T (A lambda + b)             (the slip accelerations; unique even where lambda is not)
 *
 * solved by the bounded-variable least squares of Stark & Parker (BVLS, Computational Statistics 10,
 * 1995), the method of scipy's lsq_linear(method="bvls") that gauss_friction calls. C99, no allocation:
 * the caller gives the scratch (sizes below). */
#ifndef FJ_BOX_QP_H
#define FJ_BOX_QP_H

#include <stdint.h>

/* Scratch of fj_box_qp for A of k rows and z columns: doubles and integers. */
#define FJ_BOX_QP_WORK(k, z) ((k) * (z) + 2 * (k) + 3 * (z))
#define FJ_BOX_QP_IWORK(z) (3 * (z))

/* Status of fj_box_qp. */
#define FJ_BOX_QP_OK 0
#define FJ_BOX_QP_MAX_ITER 1 /* no optimum within the iteration limit: lambda is feasible, not optimal */

/* The same sizes as the macros (for callers through an FFI). */
void fj_box_qp_work_size(int64_t k, int64_t z, int64_t *n_work, int64_t *n_iwork);

/* lambda (z) minimising ||A lambda + b|| within |lambda_c| <= bound_c, and a (z) = A^T (A lambda + b).
 * A: k x z, row-major with row stride lda (>= z); b (k); bound (z): non-negative static limits (a zero
 * bound fixes lambda_c = 0 exactly). A column of A that depends on the others (rank-deficient A, e.g.
 * k < z) keeps a value of a least-squares solution; the residual A lambda + b and a are unique.
 * work: FJ_BOX_QP_WORK(k, z) doubles; iwork: FJ_BOX_QP_IWORK(z) integers. Returns FJ_BOX_QP_OK or
 * FJ_BOX_QP_MAX_ITER. */
int fj_box_qp(const double *A, int64_t k, int64_t z, int64_t lda, const double *b, const double *bound,
              double *lambda, double *a, double *work, int64_t *iwork);

#endif
