/* planar_assemble.c: the packed model and initial state of a planar mechanism described as fj_planar_model's
 * arrays, for the mechanism assemblies (fj_assembly.h): those of the shipped mechanism FMUs (assembly_planar.c, assembly_dupont.c)
 * and those of mechanism files (the model.c of their native FMUs, friction_joints/fmi/native_file.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fj_assembly.h"
#include "fj_kernel.h"
#include "planar_internal.h"

/* The checks at the initial state y0 (fj_planar_assemble's motion_where). */
static void check_initial_state(const fj_args *a, const double *y0, const char *where, const char *motion_where,
                                fj_problems *pr) {
    int64_t k1 = a->ipar[I_K1], k = a->ipar[I_K];
    double *tau = calloc((size_t)(a->n_tau > 0 ? a->n_tau : 1), sizeof *tau);
    int64_t *imode = calloc((size_t)(IM_HEADER + k1), sizeof *imode);
    if (tau == NULL || imode == NULL) {
        fj_problem(pr, "out of memory (the initial state's checks)");
    } else {
        int64_t status = fj_planar_initial_terms(a, y0, y0 + k1, tau, imode);
        if (status == ST_V_SINGULAR) { /* MinimalForm.velocities' SingularConfigurationError */
            char held[200] = "";
            size_t used = 0;
            for (int64_t j = 0; j < k && used < sizeof held; j++) {
                int n = snprintf(held + used, sizeof held - used, j ? ", %lld" : "%lld",
                                 (long long)a->ipar[a->ipar[I_PARTITION] + j]);
                used += n > 0 ? (size_t)n : 0;
            }
            fj_problem(pr, "%sV is singular for the partition u = q[[%s]] (a dead-centre configuration)", where, held);
        } else if (status) { /* MinimalForm.evaluate's FrictionJointsError */
            fj_problem(pr, "%s%s", motion_where, fj_family_planar.message(status));
        }
    }
    free(tau);
    free(imode);
}

void fj_planar_assemble(const fj_assembly *self, const fj_planar_model *d, const double *q_guess, const double *u,
                        const char *where, const char *motion_where, double *fpar, int64_t *ipar, double *y0,
                        fj_problems *pr) {
    int64_t n_fpar = self->n_fpar, n_ipar = self->n_ipar;
    char error[200];
    if (fj_planar_pack(d, fpar, &n_fpar, ipar, &n_ipar, error, sizeof error)) {
        fj_problem(pr, "%s (the assembly of %s)", error, self->model);
        return;
    }
    int64_t k1 = ipar[I_K1], k = ipar[I_K], n_work = ipar[I_WORK_ROWS] * ipar[I_WIDTH];
    memcpy(y0, q_guess, (size_t)k1 * sizeof *y0);
    memcpy(y0 + k1, u, (size_t)k * sizeof *y0);
    y0[k1 + k] = y0[k1 + k + 1] = 0.0; /* W_drive, W_friction */
    double *work = calloc((size_t)n_work, sizeof *work); /* at initialisation only, not in a step */
    int64_t *iwork = calloc((size_t)(ipar[I_IWORK_ROWS] * ipar[I_WIDTH]), sizeof *iwork);
    if (work == NULL || iwork == NULL) {
        fj_problem(pr, "out of memory (the assembly of %s)", self->model);
    } else {
        fj_args a = {fpar, ipar, NULL, NULL, n_fpar, n_ipar, 0, 0, self->n_y, self->n_tau, work, iwork};
        double residual;
        if (fj_planar_project(&a, y0, &residual)) { /* MinimalForm.project's SingularConfigurationError */
            char q[400] = "", shown[40];
            size_t used = 0;
            for (int64_t i = 0; i < k1 && used < sizeof q; i++) {
                fj_repr(y0[i], shown, sizeof shown);
                int n = snprintf(q + used, sizeof q - used, i ? " %s" : "%s", shown);
                used += n > 0 ? (size_t)n : 0;
            }
            fj_problem(pr, "%sthe closing constraints cannot be satisfied near q = [%s] (unassemblable geometry or "
                           "dead centre); residual %.3g", where, q, residual);
        } else if (motion_where != NULL) {
            check_initial_state(&a, y0, where, motion_where, pr);
        }
    }
    free(work);
    free(iwork);
}
