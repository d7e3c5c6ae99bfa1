/* The driver of the embedded Runge-Kutta pairs (fj_rk.h): steps, error control, event location and
 * output times, shared by DOP853 and RK45 (a pair is its tableau, error norm and dense output,
 * rk_method.h).
 *
 * The methods of the Python engine's integrator (SciPy's DOP853 and RK45: their coefficients, error
 * norms and step-size control, their dense output), with event roots located by Brent's method on the
 * dense output to 4 machine epsilons (SciPy's brentq, stepping.c's fj_event_root), also where an event
 * function crosses zero and back within one step (stepping.c's fj_step_events: the rule of the Python
 * engine's hybrid.integrator.EventWatch); the output times recorded by stepping.c's fj_step_record. The step size
 * the controller proposes is returned (info), so that the next call (the next co-simulation step)
 * continues with it. min and max follow Python's semantics where a NaN may appear (py_min, py_max of
 * fj_stepping.h), so that a step whose right-hand side is not finite is rejected and shrunk as in SciPy.
 */
#include <math.h>
#include <string.h>

#include "rk_method.h"

#define SAFETY 0.9
#define MIN_FACTOR 0.2
#define MAX_FACTOR 10.0
static double rms(const double *v, const double *scale, int64_t n) {
    double acc = 0.0;
    for (int64_t i = 0; i < n; i++) acc += (v[i] / scale[i]) * (v[i] / scale[i]);
    return sqrt(acc / (double)(n > 1 ? n : 1));
}

void fj_rk_combine(const double *y, double h, const double *coefficients, const double *K, int stages, int64_t n,
                   double *out) {
    for (int64_t i = 0; i < n; i++) {
        double acc = 0.0;
        for (int j = 0; j < stages; j++) acc += coefficients[j] * K[j * n + i];
        out[i] = y[i] + h * acc;
    }
}

/* The dense output of a step from (t_old, y_old) to (t_old + h, y_new, f_new) with the stages K: its
 * coefficients F computed at the first evaluation (the pair's dense, which may evaluate right-hand
 * sides: counted in calls), the self of its fj_dense. */
typedef struct {
    const fj_rk_method *m;
    const fj_eval *s;
    double t_old, h;
    const double *y_old, *y_new, *f_new;
    double *K, *F;
    int computed;
    int64_t calls;
} interpolant;

static int64_t interpolant_at(void *self, double t, double *out) {
    interpolant *p = self;
    if (!p->computed) { /* out: the dense output's scratch until the interpolant writes it */
        int64_t status = p->m->dense(p->s, p->t_old, p->h, p->y_old, p->y_new, p->f_new, p->K, out, p->F);
        p->calls += p->m->dense_calls;
        p->computed = 1;
        if (status != FJ_OK) return status;
    }
    p->m->interpolate(t, p->t_old, p->h, p->y_old, p->F, p->s->n, out);
    return FJ_OK;
}

/* SciPy's select_initial_step (Hairer, Norsett, Wanner II.4) for an error estimator of order
 * error_order. ys, fs, scale: n of scratch each. Returns the kernel status; *h the step. */
static int64_t initial_step(const fj_eval *s, int error_order, double t, const double *y, const double *f,
                            double t_end, double max_step, double rtol, double atol, double *ys, double *fs,
                            double *scale, double *h) {
    int64_t n = s->n;
    for (int64_t i = 0; i < n; i++) scale[i] = atol + fabs(y[i]) * rtol;
    double d0 = rms(y, scale, n), d1 = rms(f, scale, n);
    double h0 = d0 < 1e-5 || d1 < 1e-5 ? 1e-6 : 0.01 * d0 / d1;
    h0 = py_min(h0, t_end - t);
    for (int64_t i = 0; i < n; i++) ys[i] = y[i] + h0 * f[i];
    int64_t status = fj_eval_rhs(s, t + h0, ys, fs);
    for (int64_t i = 0; i < n; i++) fs[i] -= f[i];
    double d2 = rms(fs, scale, n) / h0;
    double h1 = d1 <= 1e-15 && d2 <= 1e-15 ? py_max(1e-6, h0 * 1e-3)
                                           : pow(0.01 / py_max(d1, d2), 1.0 / (error_order + 1));
    *h = py_min(py_min(py_min(100.0 * h0, h1), t_end - t), max_step);
    return status;
}

static int all_zero(const double *v, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (v[i] != 0.0) return 0;
    return 1;
}

int64_t fj_rk_scratch_size(int64_t n_y, int64_t n_events, int64_t n_tau) {
    return (FJ_RK_MAX_K + FJ_RK_MAX_F + 5) * n_y + (4 + FJ_EVENT_SAMPLES) * n_events + n_tau;
}

int64_t fj_rk_advance(const fj_rk_method *m, const fj_family *fam, fj_args *a, double *scratch, double t,
                      double *y, double t_end, double h_abs, double rtol, double atol, double max_step,
                      const double *forms, const int64_t *directions, int64_t n_events, const double *grid,
                      int64_t n_grid, double *records, int64_t n_record, double *info, double quiet) {
    int64_t n = a->n_y;
    double *K = scratch, *F = K + FJ_RK_MAX_K * n, *f = F + FJ_RK_MAX_F * n, *y_new = f + n, *f_new = y_new + n;
    double *ys = f_new + n;
    double *scale = ys + n, *g_old = scale + n, *g_new = g_old + n_events, *g_scratch = g_new + n_events;
    double *g_mid = g_scratch + n_events, *g_samples = g_mid + n_events; /* FJ_EVENT_SAMPLES rows of n_events */
    fj_eval s = {fam, a, forms, t, g_samples + FJ_EVENT_SAMPLES * n_events, n};
    int held = fj_inputs_held(&s);
    info[FJ_INFO_EVENT] = -1.0;
    info[FJ_INFO_RECORDS] = info[FJ_INFO_KERNEL_STATUS] = info[FJ_INFO_STEPS] = 0.0;
    int64_t calls = 1, st = fj_eval_rhs(&s, t, y, f);
    if (st == FJ_OK && n_events) st = fj_eval_events(&s, t, y, g_old, n_events);
    if (st == FJ_OK && quiet > 0.0 && !fj_events_quiet(g_old, directions, n_events, quiet)) {
        info[FJ_INFO_T] = t;
        info[FJ_INFO_H] = h_abs;
        info[FJ_INFO_RHS_CALLS] = (double)calls;
        return FJ_NOT_QUIET;
    }
    if (st == FJ_OK && !(h_abs > 0.0) && t_end > t) { /* no step size yet (or NaN) */
        st = initial_step(&s, m->error_order, t, y, f, t_end, max_step, rtol, atol, ys, f_new, scale, &h_abs);
        calls += 1;
    }
    fj_grid out = {grid, n_grid, 0, records, n_record, 0};
    int64_t steps = 0, status = FJ_REACHED_END;
    double exponent = -1.0 / (m->error_order + 1);
    double t_new = t, h = 0.0;
    while (st == FJ_OK && t < t_end) {
        double min_step = 10.0 * fabs(nextafter(t, INFINITY) - t);
        h_abs = py_max(py_min(h_abs, max_step), min_step);
        int rejected = 0, rest = 0;
        for (;;) { /* one accepted step (SciPy's RungeKutta._step_impl) */
            if (h_abs < min_step) {
                status = FJ_STEP_TOO_SMALL;
                break;
            }
            t_new = py_min(t + h_abs, t_end);
            h = t_new - t;
            /* as SciPy: a step cut at t_end continues from its length (else a step size grown without
             * bound while the error was 0, e.g. in stiction, could never shrink again) */
            h_abs = h;
            memcpy(K, f, (size_t)n * sizeof(double));
            int stage = 1;
            for (; stage < m->n_stages && st == FJ_OK; stage++) {
                fj_rk_combine(y, h, m->a + stage * m->a_stride, K, stage, n, ys);
                st = fj_eval_rhs(&s, t + m->c[stage] * h, ys, K + stage * n);
                if (stage == 1 && held && st == FJ_OK && all_zero(K, 2 * n)) break;
            }
            if (st != FJ_OK) break;
            rest = stage == 1;
            if (rest) {
                /* At rest under held inputs: f and the first stage are zero, so every later stage and y_new
                 * are at the first stage's point y + h * 0 (ys), and no family's right-hand side depends on t
                 * but through the inputs: the stages and f_new are the first stage, bit for bit what
                 * evaluating them gives, without the evaluations. */
                for (int j = 2; j <= m->n_stages; j++) memcpy(K + j * n, K + n, (size_t)n * sizeof(double));
                memcpy(y_new, ys, (size_t)n * sizeof(double));
                memcpy(f_new, K + n, (size_t)n * sizeof(double));
                calls += 1;
            } else {
                fj_rk_combine(y, h, m->b, K, m->n_stages, n, y_new);
                st = fj_eval_rhs(&s, t_new, y_new, f_new);
                calls += m->n_stages;
                if (st != FJ_OK) break;
                memcpy(K + m->n_stages * n, f_new, (size_t)n * sizeof(double));
            }
            double error = m->error_norm(y, y_new, K, h, rtol, atol, n);
            if (error < 1.0) {
                double factor = error == 0.0 ? MAX_FACTOR : py_min(MAX_FACTOR, SAFETY * pow(error, exponent));
                if (rejected) factor = py_min(1.0, factor);
                h_abs *= factor;
                break;
            }
            /* SciPy's max(MIN_FACTOR, ...), which gives MIN_FACTOR for a NaN error (a right-hand side
             * not finite at a stage): the step shrinks instead of never ending */
            double shrink = SAFETY * pow(error, exponent);
            h_abs *= shrink > MIN_FACTOR ? shrink : MIN_FACTOR;
            rejected = 1;
        }
        if (st != FJ_OK || status != FJ_REACHED_END) break;
        steps += 1;
        double t_stop = t_new;
        int64_t fired = -1;
        interpolant step = {m, &s, t, h, y, y_new, f_new, K, F, 0, 0};
        fj_dense d = {interpolant_at, &step, t, t_new, y_new};
        if (n_events) { /* the first crossing in the step (stepping.c, hybrid.integrator.EventWatch) */
            st = fj_eval_events(&s, t_new, y_new, g_new, n_events);
            if (st == FJ_OK) { /* the events at the step's middle on the cubic Hermite interpolant of its ends */
                for (int64_t i = 0; i < n; i++) ys[i] = 0.5 * (y[i] + y_new[i]) + 0.125 * h * (f[i] - f_new[i]);
                if (rest) /* the middle is y_new, bit for bit, and no event function depends on t */
                    memcpy(g_mid, g_new, (size_t)n_events * sizeof(double));
                else
                    st = fj_eval_events(&s, t + 0.5 * h, ys, g_mid, n_events);
            }
            if (st == FJ_OK)
                st = fj_step_events(&s, &d, g_old, g_new, g_mid, directions, n_events, ys, g_scratch, g_samples, &fired,
                                    &t_stop);
        }
        if (st == FJ_OK) st = fj_step_record(&s, &d, fired, t_stop, &out, ys);
        calls += step.calls;
        if (st != FJ_OK) break;
        if (fired >= 0) {
            status = fj_stop_at_event(&s, &d, fired, t_stop, &t, y, ys, info);
            break;
        }
        t = t_new;
        memcpy(y, y_new, (size_t)n * sizeof(double));
        memcpy(f, f_new, (size_t)n * sizeof(double));
        memcpy(g_old, g_new, (size_t)n_events * sizeof(double));
    }
    if (st != FJ_OK) status = FJ_KERNEL_FAILED;
    fj_advance_info(info, t, h_abs, steps, out.n_rec, calls, st);
    return status;
}
