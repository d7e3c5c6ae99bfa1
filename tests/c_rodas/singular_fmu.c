/* singular_fmu.c: the model of a native FMU (fj_fmu_model.h, as build_fmu.py --native writes a model.c) whose
 * RODAS step fails with a singular matrix (tests/test_rodas.py): the stiff family rodas_linear_stiff
 * (problems.c), y' = A y from y = 0 with A = diag(4, 8, 16, 32, 64) 1e6 1/s, whose Rosenbrock matrix
 * I/(h gamma) - J (gamma = 1/4) is singular at RODAS's first step h = 1e-6 s and at each of its four halvings
 * (the differences of J are exact at y = 0). Its variables: the parameter rtol and the output y1. */
#include <stddef.h>
#include <string.h>

#include "fj_assembly.h"
#include "fj_fmu_model.h"
#include "fj_kernel.h"

enum { N = 5, N_FPAR = N * N + N + 1 }; /* fpar: A, b (unused: no input), the event's level */

extern const fj_family fj_family_rodas_linear_stiff;

static int64_t assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error, size_t n_error) {
    (void)p, (void)error, (void)n_error;
    for (int i = 0; i < N_FPAR; i++) fpar[i] = 0.0;
    for (int i = 0; i < N; i++) fpar[i * N + i] = 4e6 * (double)(1 << i), y0[i] = 0.0;
    ipar[0] = 0;
    return 0;
}

static const fj_assembly SINGULAR = {"Singular", "rodas_linear_stiff", 0, NULL, N_FPAR, 1, N, 0, N, assemble};

static const fj_fmu_variable VARIABLES[] = {
    /* name, causality, type, start, has_min, has_max, min, max, index, inertia, count */
    {"rtol", FJ_FMU_PARAMETER, FJ_FMU_REAL, 1e-8, 1, 0, 0.0, 0.0, FJ_FMU_RTOL, 0, 1},
    {"y1", FJ_FMU_OUTPUT, FJ_FMU_REAL, 0.0, 0, 0, 0.0, 0.0, 0, 0, 1},
};

const fj_fmu_model fj_fmu_the_model = {"Singular", "{singular-rosenbrock-matrix}", "Singular", 2, VARIABLES, NULL,
                                       -1, NULL, NULL, -1, -1, NULL};

const fj_family *fj_family_find(const char *name) {
    return name != NULL && strcmp(name, "rodas_linear_stiff") == 0 ? &fj_family_rodas_linear_stiff : NULL;
}

const fj_assembly *fj_assembly_find(const char *name) {
    return name != NULL && strcmp(name, "Singular") == 0 ? &SINGULAR : NULL;
}
