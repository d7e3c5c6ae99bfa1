/* fj_assembly.h: the assembly of a model's packed arrays from its parameters, in C (C99, libm only).
 *
 * A model whose packed model (fpar, ipar: fj_kernel.h) is a direct function of its parameters has an
 * assembly here: its parameters (physical ones and the initial state, by name, in a fixed order) are
 * checked as the Python model's parameter class checks them (the same messages, errors.require), then
 * packed into fpar and ipar, with the initial state y0. It is the models' one packer: the Python
 * packers (lumped/packing.py, vehicle/single_track_packing.py) call it through the binding, and the native
 * FMUs (native/fmi) call it at initialisation, so every parameter of an FMU stays tunable.
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

/* The assembly of the model `model`, NULL for a model that has none (or a NULL name): assemblies.c, every
 * assembly below; a native FMU's model.c defines it for its one assembly (so its binary holds no other). */
const fj_assembly *fj_assembly_find(const char *model);

/* The assemblies: assembly_lumped.c, assembly_vehicle.c, assembly_steering.c (the steering with either friction),
 * assembly_planar.c and assembly_dupont.c (the planar mechanisms, the slider-cranks with either friction), assembly_spatial.c (the RSRRR
 * linkage with either friction), assembly_bristle.c (the oscillator with bristle friction). */
extern const fj_assembly fj_assembly_SingleMassFriction, fj_assembly_TwoMassFriction, fj_assembly_SingleTrackVehicle,
    fj_assembly_SteeringSystem, fj_assembly_SteeringBristle;
extern const fj_assembly fj_assembly_SliderCrank, fj_assembly_OffsetSliderCrank, fj_assembly_DupontTwoMass;
extern const fj_assembly fj_assembly_SliderCrankBristle, fj_assembly_OffsetSliderCrankBristle;
extern const fj_assembly fj_assembly_RSRRRSystem, fj_assembly_RSRRRLinkage, fj_assembly_RSRRRBristle;
extern const fj_assembly fj_assembly_BristleOscillator;
/* assembly_clearance.c: the RSRRR linkage with a clearance joint and/or a flexible link (RSRRRLinkage's parameters,
 * then the clearance's and the flexible link's), family "spatial_clearance". Its sizes above are its largest; those
 * of the parameters p (its names' order) by fj_clearance_sizes. */
extern const fj_assembly fj_assembly_RSRRRClearance;
void fj_clearance_sizes(const double *p, int64_t *n_fpar, int64_t *n_ipar, int64_t *n_y, int64_t *n_record);

/* The fixed geometry of the FMU RSRRRLinkage (RSRRRParameters' defaults, seed 002 Table 1): the lengths l (m) of
 * the links (1,1), (2,1), (2,2), (2,3), then the rods' diameter d (m), density (kg/m^3) and gravity g (m/s^2). */
enum { FJ_RSRRR_D = 4, FJ_RSRRR_DENSITY, FJ_RSRRR_G, FJ_RSRRR_GEOMETRY };
extern const double fj_rsrrr_geometry[FJ_RSRRR_GEOMETRY];

/* The row (FJ_BRISTLE_LAW_SIZE, fj_bristle_laws.h) of the bristle law of parameters p in the row's order (model,
 * sigma0, sigma1, sigma2, mu_c, mu_s, v_s, delta, z_ba_ratio), checked as friction.bristle.make_law checks them
 * (assembly_bristle.c: the one packer of a law's row): the fields the law lacks are 1, Dahl's mu_s its mu_c.
 * Returns 0, or the number of problems with their messages in error (n_error bytes; may be NULL). */
int64_t fj_bristle_law_pack(const double *p, double *law, char *error, size_t n_error);

/* The shortest decimal text that reads back as x, as Python's repr(float) writes it ("0.0", "1e-05",
 * "2.5", "inf", "nan"), into out (n bytes). Whatever the C locale. */
void fj_repr(double x, char *out, size_t n);

/* The parameter checks of an assembly (errors.require, errors.check_parameters): the problems found so far,
 * counted and joined by the separator ("; " unless changed) into error (n_error bytes; may be NULL). */
typedef struct fj_problems {
    char *error;
    size_t n_error, used;
    int64_t count;
    const char *separator;
} fj_problems;
enum { FJ_NO_BOUND, FJ_CLOSED, FJ_OPEN }; /* the kinds of a bound */

/* No problem yet; error emptied. */
fj_problems fj_no_problems(char *error, size_t n_error);
/* A problem unless low <= value <= high (each bound FJ_NO_BOUND, FJ_CLOSED or FJ_OPEN), or if value is NaN or
 * infinite, with errors.require's text "name=repr(value) is outside the allowed range lo, hi". */
void fj_require(fj_problems *pr, const char *name, double value, int low_kind, double low, int high_kind,
                double high);
/* A value of no Python class (an initial state) that must be finite. */
void fj_require_finite(fj_problems *pr, const char *name, double value);
/* The parameter friction_model must be 0: the assembly has the exact friction model only; bristle: the name of
 * the model's assembly that has the bristle laws (the native FMU runs it where friction_model > 0), or NULL
 * where the native FMU has none (the bristle laws then run in the pythonfmu FMU). */
void fj_require_exact_friction(fj_problems *pr, double friction_model, const char *bristle);
/* The checks of a bristle law row `given` (fj_bristle_laws.h's order; its model the parameter model_name) as
 * friction.bristle.make_law makes them, with their messages; where it has none, the row packed into law (the
 * fields the law lacks 1, Dahl's mu_s its mu_c). assembly_bristle.c. */
void fj_bristle_law(fj_problems *pr, const char *model_name, const double *given, double *law);
/* fj_bristle_law with each field of the row named names[field] (fj_bristle_laws.h's order; names[FJ_LAW_MODEL]
 * the model's): a mechanism file's joint law, its parameters named as the file's (assembly_file.c). */
void fj_bristle_law_named(fj_problems *pr, const char *const *names, const double *given, double *law);
/* A problem in words (printf's format). */
void fj_problem(fj_problems *pr, const char *format, ...);

#define FJ_COUNT(array) ((int64_t)(sizeof array / sizeof array[0]))

#endif
