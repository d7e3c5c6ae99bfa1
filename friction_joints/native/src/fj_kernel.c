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
