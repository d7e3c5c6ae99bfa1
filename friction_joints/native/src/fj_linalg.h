/* fj_linalg.h: small dense linear algebra shared by the kernels, in place, no allocation.
 * Matrices are row-major with a leading dimension (the row stride, in elements). */
#ifndef FJ_LINALG_H
#define FJ_LINALG_H

#include <stdint.h>

/* A (n x n, row stride lda) = P L U in place with partial pivoting (as LAPACK getrf); piv (n) the row
 * swapped with row j at step j. Returns 1 if a pivot is exactly zero, else 0. */
int fj_lu_factor(double *A, int64_t n, int64_t lda, int64_t *piv);
/* b (n) = A^-1 b in place from fj_lu_factor. */
void fj_lu_solve(const double *LU, int64_t n, int64_t lda, const int64_t *piv, double *b);
/* B (n x r, row stride ldb) = A^-1 B in place, every column, from fj_lu_factor. */
void fj_lu_solve_columns(const double *LU, int64_t n, int64_t lda, const int64_t *piv, double *B, int64_t r,
                         int64_t ldb);
/* sign of v: 1, -1, 0, or v itself when v is NaN (numpy's sign). */
double fj_sign(double v);

#endif
