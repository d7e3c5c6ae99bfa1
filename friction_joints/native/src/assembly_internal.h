/* assembly_internal.h: what the files of assemblies share: the parameter checks (assembly.c defines them),
 * Python's errors.require and errors.check_parameters with their messages written by fj_repr (an assembly
 * collects the problems of its parameters in an fj_problems and returns their count), and each file's
 * lookup. */
#ifndef FJ_ASSEMBLY_INTERNAL_H
#define FJ_ASSEMBLY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "fj_assembly.h"

/* The problems found so far, "; "-joined into error (errors.check_parameters). */
typedef struct fj_problems {
    char *error;
    size_t n_error, used;
    int64_t count;
} fj_problems;

enum { FJ_NO_BOUND = 0, FJ_CLOSED = 1, FJ_OPEN = 2 }; /* a bound of fj_require */

/* No problems yet, into error (n_error bytes; may be NULL). */
fj_problems fj_no_problems(char *error, size_t n_error);

/* errors.require: a problem unless low <= value <= high (each bound FJ_NO_BOUND, FJ_CLOSED or FJ_OPEN), NaN
 * and infinite values are problems too. Its text: "name=repr(value) is outside the allowed range lo, hi"
 * with the bounds as Python's format "g" writes them. */
void fj_require(fj_problems *pr, const char *name, double value, int low_kind, double low, int high_kind,
                double high);

/* A value that is a parameter of no Python class (an initial state): finite. */
void fj_require_finite(fj_problems *pr, const char *name, double value);

/* A problem of another kind, its text by printf's format. */
void fj_problem(fj_problems *pr, const char *format, ...);

/* The lookups of the files of assemblies, one each (fj_<file>_assembly_find): the assembly of the model
 * (a name, not NULL) in that file, NULL for another. assemblies.c's fj_assembly_find asks every one; a
 * native FMU's model.c the one that holds its model's. */
const fj_assembly *fj_core_assembly_find(const char *model);    /* assembly.c: lumped, vehicle, steering */
const fj_assembly *fj_spatial_assembly_find(const char *model); /* assembly_spatial.c: the RSRRR linkage */

#endif
