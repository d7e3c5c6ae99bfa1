"""Helpers shared by the kernels of the compiled engine: the decorator of their helper functions,
the sign function, and LU factorisation and solves written out for the small matrices of these
models (in place, no allocation)."""

from numba import njit

#: The decorator of the helpers: division by zero gives inf or nan (error_model numpy) instead of
#: raising inside a kernel; compiled without numba's runtime (_nrt), so that passing arrays and
#: taking views of the workspace costs no reference counting (with it, the atomic increments and
#: decrements took half the time of a right-hand side): the helpers allocate nothing and return no
#: array, the kernels allocate the workspace. Not cached on their own: the cached kernels contain
#: them (a third of the cache's size, and the same compile and load times).
jit = njit(error_model="numpy", _nrt=False)


@jit
def _lu_factor(A, piv):
    """A = P L U in place (partial pivoting, as LAPACK getrf); returns 1 if a pivot is exactly zero."""
    n = A.shape[0]
    singular = 0
    for j in range(n):
        p, big = j, abs(A[j, j])
        for i in range(j + 1, n):
            if abs(A[i, j]) > big:
                p, big = i, abs(A[i, j])
        piv[j] = p
        if p != j:
            for c in range(n):
                A[j, c], A[p, c] = A[p, c], A[j, c]
        if A[j, j] == 0.0:
            singular = 1
            continue
        for i in range(j + 1, n):
            A[i, j] /= A[j, j]
            lij = A[i, j]
            if lij != 0.0:
                for c in range(j + 1, n):
                    A[i, c] -= lij * A[j, c]
    return singular


@jit
def _lu_solve(LU, piv, b):
    """b = A^-1 b in place from _lu_factor."""
    n = LU.shape[0]
    for j in range(n):
        p = piv[j]
        if p != j:
            b[j], b[p] = b[p], b[j]
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= LU[i, j] * b[j]
        b[i] = s
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= LU[i, j] * b[j]
        b[i] = s / LU[i, i]


@jit
def _lu_solve_columns(LU, piv, B):
    """B = A^-1 B in place (every column) from _lu_factor."""
    n, r = LU.shape[0], B.shape[1]
    for j in range(n):
        p = piv[j]
        if p != j:
            for c in range(r):
                B[j, c], B[p, c] = B[p, c], B[j, c]
    for c in range(r):
        for i in range(n):
            s = B[i, c]
            for j in range(i):
                s -= LU[i, j] * B[j, c]
            B[i, c] = s
        for i in range(n - 1, -1, -1):
            s = B[i, c]
            for j in range(i + 1, n):
                s -= LU[i, j] * B[j, c]
            B[i, c] = s / LU[i, i]


@jit
def _sign(v):
    return 1.0 if v > 0.0 else (-1.0 if v < 0.0 else (0.0 if v == 0.0 else v))
