/* rk_method.h: what an embedded Runge-Kutta pair gives the driver of fj_rk.h (rk_driver.c): its tableau,
 * its error estimate and its dense output (inside the engine only). */
#ifndef FJ_RK_METHOD_H
#define FJ_RK_METHOD_H

#include "fj_rk.h"

/* rows of the stages K and of the interpolant's coefficients F that any pair uses, at most (DOP853's:
 * 12 stages, f at the new point, 3 stages of the dense output; 7 coefficients) */
#define FJ_RK_MAX_K 16
#define FJ_RK_MAX_F 7

/* out = y + h * sum_j coefficients[j] K[j] over the first `stages` stages (K: rows of n). */
void fj_rk_combine(const double *y, double h, const double *coefficients, const double *K, int stages, int64_t n,
                   double *out);

struct fj_rk_method {
    int n_stages;       /* stages of a step, the first f(t, y); row n_stages of K gets f(t + h, y_new) */
    int error_order;    /* order of the error estimator: the controller's exponent is -1 / (error_order + 1) */
    const double *a;    /* stage s is f(t + c[s] h, y + h sum_{j<s} a[s * a_stride + j] K[j]) */
    int a_stride;
    const double *b;    /* y_new = y + h sum_j b[j] K[j] (n_stages weights) */
    const double *c;
    /* The error norm of the step of size h from y to y_new with the stages K (n_stages + 1 rows). */
    double (*error_norm)(const double *y, const double *y_new, const double *K, double h, double rtol, double atol,
                         int64_t n);
    int dense_calls; /* right-hand sides the dense output evaluates */
    /* The coefficients F (FJ_RK_MAX_F x n) of the interpolant of the step from (t_old, y_old) to y_new, f_new
     * with the stages K (rows beyond n_stages: the dense output's own stages), ys: n of scratch. Returns
     * the kernel status. */
    int64_t (*dense)(const fj_eval *s, double t_old, double h, const double *y_old, const double *y_new,
                     const double *f_new, double *K, double *ys, double *F);
    /* out (n) = the interpolant at t of the step (t_old, h, y_old) with the coefficients F. */
    void (*interpolate)(double t, double t_old, double h, const double *y_old, const double *F, int64_t n,
                        double *out);
};

#endif
