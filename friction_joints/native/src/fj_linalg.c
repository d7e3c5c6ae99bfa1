/* Small dense linear algebra for the kernels (fj_linalg.h). */
#include <math.h>

#include "fj_linalg.h"

int fj_lu_factor(double *A, int64_t n, int64_t lda, int64_t *piv) {
    int singular = 0;
    for (int64_t j = 0; j < n; j++) {
        int64_t p = j;
        double big = fabs(A[j * lda + j]);
        for (int64_t i = j + 1; i < n; i++)
            if (fabs(A[i * lda + j]) > big) {
                p = i;
                big = fabs(A[i * lda + j]);
            }
        piv[j] = p;
        if (p != j)
            for (int64_t c = 0; c < n; c++) {
                double tmp = A[j * lda + c];
                A[j * lda + c] = A[p * lda + c];
                A[p * lda + c] = tmp;
            }
        if (A[j * lda + j] == 0.0) {
            singular = 1;
            continue;
        }
        for (int64_t i = j + 1; i < n; i++) {
            A[i * lda + j] /= A[j * lda + j];
            double lij = A[i * lda + j];
            if (lij != 0.0)
                for (int64_t c = j + 1; c < n; c++) A[i * lda + c] -= lij * A[j * lda + c];
        }
    }
    return singular;
}

double fj_lu_det(const double *LU, int64_t n, int64_t lda, const int64_t *piv) {
    double det = 1.0;
    for (int64_t j = 0; j < n; j++) det *= piv[j] != j ? -LU[j * lda + j] : LU[j * lda + j];
    return det;
}

void fj_lu_solve(const double *LU, int64_t n, int64_t lda, const int64_t *piv, double *b) {
    for (int64_t j = 0; j < n; j++) {
        int64_t p = piv[j];
        if (p != j) {
            double tmp = b[j];
            b[j] = b[p];
            b[p] = tmp;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        double s = b[i];
        for (int64_t j = 0; j < i; j++) s -= LU[i * lda + j] * b[j];
        b[i] = s;
    }
    for (int64_t i = n - 1; i >= 0; i--) {
        double s = b[i];
        for (int64_t j = i + 1; j < n; j++) s -= LU[i * lda + j] * b[j];
        b[i] = s / LU[i * lda + i];
    }
}

void fj_lu_solve_columns(const double *LU, int64_t n, int64_t lda, const int64_t *piv, double *B, int64_t r,
                         int64_t ldb) {
    for (int64_t j = 0; j < n; j++) {
        int64_t p = piv[j];
        if (p != j)
            for (int64_t c = 0; c < r; c++) {
                double tmp = B[j * ldb + c];
                B[j * ldb + c] = B[p * ldb + c];
                B[p * ldb + c] = tmp;
            }
    }
    for (int64_t c = 0; c < r; c++) {
        for (int64_t i = 0; i < n; i++) {
            double s = B[i * ldb + c];
            for (int64_t j = 0; j < i; j++) s -= LU[i * lda + j] * B[j * ldb + c];
            B[i * ldb + c] = s;
        }
        for (int64_t i = n - 1; i >= 0; i--) {
            double s = B[i * ldb + c];
            for (int64_t j = i + 1; j < n; j++) s -= LU[i * lda + j] * B[j * ldb + c];
            B[i * ldb + c] = s / LU[i * lda + i];
        }
    }
}

double fj_sign(double v) { return v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : (v == 0.0 ? 0.0 : v)); }

double fj_hypot(double x, double y) {
    double ax = fabs(x), ay = fabs(y);
    if (isinf(ax) || isinf(ay)) return INFINITY;
    if (isnan(ax) || isnan(ay)) return ax + ay;
    if (ax < ay) {
        double t = ax;
        ax = ay, ay = t;
    }
    if (ay <= ax * 0x1p-54) return ax + ay; /* y^2 below half an ulp of x^2 (and y = 0) */
    double scale = 1.0;                      /* by powers of 2: the squares neither overflow nor underflow */
    if (ax > 0x1p+500)
        ax *= 0x1p-600, ay *= 0x1p-600, scale = 0x1p+600;
    else if (ay < 0x1p-500)
        ax *= 0x1p+600, ay *= 0x1p+600, scale = 0x1p-600;
    double h = sqrt(ax * ax + ay * ay), t1, t2;
    /* h^2 - (ax^2 + ay^2) = t1 + t2 exactly in the terms of delta (Borges' correction), so h - that / (2 h) */
    if (h <= 2.0 * ay) {
        double delta = h - ay;
        t1 = ax * (2.0 * delta - ax);
        t2 = (delta - 2.0 * (ax - ay)) * delta;
    } else {
        double delta = h - ax;
        t1 = 2.0 * delta * (ax - 2.0 * ay);
        t2 = (4.0 * delta - ay) * ay + delta * delta;
    }
    h -= (t1 + t2) / (2.0 * h);
    return h * scale;
}
