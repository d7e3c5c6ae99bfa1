/* fj_linalg.h: small dense linear algebra shared by the kernels, in place, no allocation.
 * Matrices are row-major with a leading dimension (the row stride, in elements). */
#ifndef FJ_LINALG_H
#define FJ_LINALG_H

#include <stdint.h>

/* A (n x n, row stride lda) = P L U in place with partial pivoting (as LAPACK getrf); piv (n) the row
 * swapped with row j at step j. Returns 1 if a pivot is exactly zero, else 0. */
int fj_lu_factor(double *A, int64_t n, int64_t lda, int64_t *piv);
/* det A from fj_lu_factor (the product of U's diagonal, its sign flipped at every row swap). */
double fj_lu_det(const double *LU, int64_t n, int64_t lda, const int64_t *piv);
/* b (n) = A^-1 b in place from fj_lu_factor. */
void fj_lu_solve(const double *LU, int64_t n, int64_t lda, const int64_t *piv, double *b);
/* B (n x r, row stride ldb) = A^-1 B in place, every column, from fj_lu_factor. */
void fj_lu_solve_columns(const double *LU, int64_t n, int64_t lda, const int64_t *piv, double *B, int64_t r,
                         int64_t ldb);
/* sign of v: 1, -1, 0, or v itself when v is NaN (numpy's sign). */
double fj_sign(double v);
/* sqrt(x^2 + y^2) without overflow, with the same bits on every platform, as libm's hypot has not (mingw-w64's
 * differs from glibc's in the last bit for about one pair in eight, which moves the win64 binaries' results off
 * the linux64 ones'): the root of the sum of squares with Borges' correction of its rounding (C. F. Borges, "An
 * improved algorithm for hypot(a, b)", Numer. Algorithms 2021, the correction without FMA), within 1 ulp, the
 * bits of glibc's hypot (2.35 and later) in the tests; inf if x or y is infinite (C99), else NaN with a NaN. */
double fj_hypot(double x, double y);

#endif
