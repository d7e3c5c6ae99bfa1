/* The C engine's own communication step, called from C with no FMI and no Python (bench_compiled.py
 * builds and runs it). Reads a model from stdin:
 *
 *   family n_fpar n_ipar n_y n_tau n_record rtol atol h t_end
 *   fpar... ipar... y0... then per input: offset amplitude omega phase
 *
 * (family "explicit:<name>": the family <name> integrated with the explicit pairs even if it is stiff)
 *
 * then runs steps of h (s) to t_end with the inputs tau_i = offset + amplitude sin(omega t + phase) at the
 * start of each step, held over it (set each step, as an FMU's host does), the outputs read after each step, and prints: microseconds per step, right-hand sides per step, steps of
 * the integrator per communication step, events.
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fj.h"
#include "fj_kernel.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void) {
    char family[64];
    long n_fpar, n_ipar, n_y, n_tau, n_record;
    double rtol, atol, h, t_end;
    if (scanf("%63s %ld %ld %ld %ld %ld %lf %lf %lf %lf", family, &n_fpar, &n_ipar, &n_y, &n_tau, &n_record, &rtol,
              &atol, &h, &t_end) != 10)
        return 2;
    double *fpar = calloc((size_t)n_fpar + 1, sizeof(double)), *y0 = calloc((size_t)n_y, sizeof(double));
    double *wave = calloc(4 * (size_t)n_tau + 1, sizeof(double)), *tau = calloc((size_t)n_tau + 1, sizeof(double));
    double *out = calloc((size_t)n_record + 1, sizeof(double));
    int64_t *ipar = calloc((size_t)n_ipar + 1, sizeof(int64_t));
    for (long i = 0; i < n_fpar; i++)
        if (scanf("%lf", &fpar[i]) != 1) return 2;
    for (long i = 0; i < n_ipar; i++) {
        long long v;
        if (scanf("%lld", &v) != 1) return 2;
        ipar[i] = (int64_t)v;
    }
    for (long i = 0; i < n_y; i++)
        if (scanf("%lf", &y0[i]) != 1) return 2;
    for (long i = 0; i < 4 * n_tau; i++)
        if (scanf("%lf", &wave[i]) != 1) return 2;
    for (long i = 0; i < n_tau; i++) tau[i] = wave[4 * i] + wave[4 * i + 1] * sin(wave[4 * i + 3]);
    fj_options options = {rtol, atol, 1e300, 1e300};
    char error[256];
    int explicit_pairs = strncmp(family, "explicit:", 9) == 0;
    const fj_family *found = fj_family_find(explicit_pairs ? family + 9 : family);
    fj_family copy = {0};
    if (found != NULL) copy = *found, copy.integrator = explicit_pairs ? NULL : copy.integrator;
    fj_instance *inst = fj_instance_new_of(found ? &copy : NULL, fpar, n_fpar, ipar, n_ipar, n_y, n_tau, n_record,
                                           &options, error, sizeof error);
    if (inst == NULL) {
        fprintf(stderr, "%s\n", error);
        return 1;
    }
    int status = fj_instance_set_inputs(inst, tau, NULL);
    if (status == FJ_STATUS_OK) status = fj_instance_start(inst, 0.0, y0);
    long steps = (long)(t_end / h + 0.5);
    double start = now();
    for (long k = 0; k < steps && status == FJ_STATUS_OK; k++) {
        double t = (double)k * h;
        for (long i = 0; i < n_tau; i++) tau[i] = wave[4 * i] + wave[4 * i + 1] * sin(wave[4 * i + 2] * t + wave[4 * i + 3]);
        status = fj_instance_set_inputs(inst, tau, NULL);
        if (status == FJ_STATUS_OK) status = fj_instance_step(inst, (double)(k + 1) * h);
        if (status == FJ_STATUS_OK) status = fj_instance_outputs(inst, out);
    }
    double elapsed = now() - start;
    if (status != FJ_STATUS_OK) {
        fprintf(stderr, "%s\n", fj_instance_message(inst));
        return 1;
    }
    int64_t rhs_calls, integrator_steps, events;
    fj_instance_counters(inst, &rhs_calls, &integrator_steps, &events);
    printf("%.4f %.3f %.3f %ld\n", 1e6 * elapsed / (double)steps, (double)rhs_calls / (double)steps,
           (double)integrator_steps / (double)steps, (long)events);
    fj_instance_free(inst);
    free(fpar), free(ipar), free(y0), free(wave), free(tau), free(out);
    return 0;
}
