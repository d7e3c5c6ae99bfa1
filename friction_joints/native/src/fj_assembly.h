/* fj_assembly.h: the assembly of a model's packed arrays from its parameters, in C (C99, libm only).
 *
 * A model whose packed model (fpar, ipar: fj_kernel.h) is a function of its parameters has an assembly
 * (assembly.c: the lumped models, the vehicle, the steering system; assembly_spatial.c: the RSRRR
 * linkage): its parameters (physical ones and the initial state, by name, in a fixed order) are checked
 * as the Python model's parameter class checks them (the same messages, errors.require), then packed
 * into fpar and ipar, with the initial state y0 (a closed loop's solved in C). It is the models' one
 * packer: the Python packers (lumped/packing.py, vehicle/single_track_packing.py, spatial/packing.py) call
 * it through the binding, and the native FMUs (native/fmi) call it at initialisation, so every parameter
 * of an FMU stays tunable.
 *
 *   const fj_assembly *asm_ = fj_assembly_find("TwoMassFriction");
 *   double p[asm_->n_param] = {...};   (in the order of asm_->names)
 *   if (asm_->assemble(p, fpar, ipar, y0, error, sizeof error)) ... error names each bad parameter
 *   fj_instance_new(asm_->family, fpar, asm_->n_fpar, ipar, asm_->n_ipar, asm_->n_y, asm_->n_tau,
 *                   asm_->n_record, ...)
 */
#ifndef FJ_ASSEMBLY_H
#define FJ_ASSEMBLY_H

#include <stddef.h>
#include <stdint.h>

typedef struct fj_assembly {
    const char *model;        /* the model's name: the FMU's ("SingleMassFriction") */
    const char *family;       /* the engine's family that runs it (fj_kernel.h) */
    int64_t n_param;          /* parameters, in the order of names */
    const char *const *names; /* their names (the FMU's variable names) */
    int64_t n_fpar, n_ipar;   /* sizes of the packed model */
    int64_t n_y, n_tau, n_record; /* state, inputs, record */
    /* p (n_param) -> fpar (n_fpar), ipar (n_ipar), y0 (n_y). Returns 0, or the number of parameters
     * out of their allowed ranges, with a message naming each ("M1=0.0 is outside the allowed range
     * (0, inf); ...", the Python checks' text) in error (n_error bytes; may be NULL). */
    int64_t (*assemble)(const double *p, double *fpar, int64_t *ipar, double *y0, char *error, size_t n_error);
} fj_assembly;

/* The assembly of the model `model`, NULL for a model that has none (or a NULL name) (assemblies.c; a
 * native FMU's model.c defines it for its one model). */
const fj_assembly *fj_assembly_find(const char *model);

/* The shortest decimal text that reads back as x, as Python's repr(float) writes it ("0.0", "1e-05",
 * "2.5", "inf", "nan"), into out (n bytes). Whatever the C locale. */
void fj_repr(double x, char *out, size_t n);

#endif
