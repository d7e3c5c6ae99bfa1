/* What families share (fj_kernel.h). */
#include "fj_kernel.h"

void fj_no_scratch(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar, int64_t *n_work,
                   int64_t *n_iwork) {
    (void)fpar, (void)n_fpar, (void)ipar, (void)n_ipar;
    *n_work = 0;
    *n_iwork = 0;
}

const char *fj_no_failure(int64_t status) {
    (void)status;
    return "unknown status";
}

void fj_single_mode_layout(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                           fj_mode_layout *layout) {
    (void)fpar, (void)n_fpar, (void)ipar, (void)n_ipar;
    layout->n_fmode = layout->n_imode = 1;
    layout->max_events = layout->n_change = 0;
}

int64_t fj_single_mode_events(const fj_args *a, int64_t *directions, int64_t *flags, int64_t *watch_all) {
    (void)a, (void)directions, (void)flags;
    *watch_all = 1;
    return 0;
}

/* The single mode is all zeros (the Python encoders' arrays of it). */
int64_t fj_single_mode_decide(const fj_args *a, double t, double *y, const double *tau, int64_t event,
                              double *fmode, int64_t *imode, int64_t *change) {
    (void)t, (void)y, (void)tau, (void)event, (void)change;
    for (int64_t i = 0; i < a->n_fmode; i++) fmode[i] = 0.0;
    for (int64_t i = 0; i < a->n_imode; i++) imode[i] = 0;
    return FJ_OK;
}

int64_t fj_no_events(const fj_args *a, double t, const double *y, const double *tau, double *g, int64_t n_out) {
    (void)a, (void)t, (void)y, (void)tau, (void)g, (void)n_out;
    return FJ_OK;
}
