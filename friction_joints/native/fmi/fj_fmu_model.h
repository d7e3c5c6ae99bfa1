/* fj_fmu_model.h: the model interface of the native FMUs (C99), in the manner of the Modelica
 * Reference-FMUs' model.h: what fmi2Functions.c and fmi3Functions.c (through fj_fmu.c) know of a model.
 *
 * A model is a table of its FMU variables, indexed by value reference (the pythonfmu twin's: 0, 1, ...
 * in the order of the slave's Var rows), and the name of its assembly (fj_assembly.h), which turns
 * the parameters into the engine's packed arrays and initial state:
 *
 *   parameters -> the assembly's parameters p (by index; rtol is the integrator's tolerance)
 *   p -> fpar, ipar, y0, the family, n_y       (fj_assembly.assemble, at exitInitializationMode; the
 *                                               bristle assembly's where friction_model > 0)
 *   inputs -> tau (by index)                   (each doStep; derivatives through fmi2SetRealInputDerivatives)
 *   record -> outputs (by index)               (fj_instance_outputs after each doStep)
 *
 * A model the engine does not run (the SpeedController's discrete PI, speed_controller.c) has an assembly
 * whose family is NULL, and an update: its state y (the assembly's n_y, from y0) is advanced once per doStep
 * of length h with the inputs held, and is its record (n_record = n_y):
 *
 *   update(fpar, tau, h, y)                    (each doStep)
 *
 * build_fmu.py --native writes the table of each FMU (model.c) from its fmu_src slave's Var rows, so
 * that the native FMU and its pythonfmu twin have one description.
 */
#ifndef FJ_FMU_MODEL_H
#define FJ_FMU_MODEL_H

#include <stdint.h>

enum { FJ_FMU_PARAMETER, FJ_FMU_INPUT, FJ_FMU_OUTPUT };   /* causality */
enum { FJ_FMU_REAL, FJ_FMU_INTEGER, FJ_FMU_BOOLEAN, FJ_FMU_STRING }; /* type (FMI 3.0: Float64, Int32, Boolean,
                                                                String); no model has String variables */

/* the index of the parameter rtol (not the assembly's: the relative tolerance of the integrator, with
 * atol = rtol / 100 in SI units, as stepping.Stepper) */
#define FJ_FMU_RTOL (-1)
/* the index of a parameter of the pythonfmu twin that the native FMU takes and does not use (the
 * bristle laws' parameters, which act only with a friction_model the assembly refuses; a clearance
 * joint's and a flexible link's, which act only with a clearance or n_rfe it refuses), and of a Real
 * output of the twin that is 0 in every model the assembly takes (a clearance joint's contact force) */
#define FJ_FMU_UNUSED (-2)

typedef struct fj_fmu_variable {
    const char *name;
    int causality, type;
    double start;                /* Booleans 0 or 1 */
    int has_min, has_max;        /* the modelDescription's bounds of a parameter or an input */
    double min, max;
    int index;   /* parameter: its index in the assembly's parameters, FJ_FMU_RTOL or FJ_FMU_UNUSED; input:
                    its index in tau; output: its index in the record or FJ_FMU_UNUSED (always 0) */
    int inertia; /* 1 for a mass or a moment of inertia (kg, kg.m2): at least one must be > 0 */
    int count;   /* output: the entries index ... index + count - 1 of the record, a Boolean true where one is
                    non-zero (a joint's contacts: stuck where one sticks); 1 for every other variable */
} fj_fmu_variable;

/* A discrete-time model's step: y (n_y) advanced over h (s) with the inputs tau held; fpar its assembly's. */
typedef void fj_fmu_update(const double *fpar, const double *tau, double h, double *y);

/* The sizes of an assembly's packed model, state and record for the parameters p (its names' order). */
typedef void fj_fmu_sizes(const double *p, int64_t *n_fpar, int64_t *n_ipar, int64_t *n_y, int64_t *n_record);

typedef struct fj_fmu_model {
    const char *name;     /* the model identifier */
    const char *token;    /* the GUID (FMI 2.0) and instantiation token (FMI 3.0) of the modelDescription */
    const char *assembly; /* the name of its assembly (fj_assembly_find) */
    int n_variables;      /* value references 0 .. n_variables - 1 (FMI 3.0: then the time) */
    const fj_fmu_variable *variables;
    /* the assembly of its bristle friction, which runs where the Integer parameter friction_model (value
     * reference friction_model_vr) is > 0, NULL if none: its parameters are those of `assembly`, in their
     * order, then its own; its inputs are the same; its record begins with the record of `assembly` (the
     * variables' indices hold in both) */
    const char *bristle_assembly;
    int friction_model_vr;
    fj_fmu_update *update; /* NULL: the engine runs the assembly's family */
    /* the assembly of its clearance joint and flexible link, which runs where the Real parameter clearance (value
     * reference clearance_vr) or the Integer n_rfe (n_rfe_vr) is > 0, NULL if none: its parameters are those of
     * `bristle_assembly` (or of `assembly`), in their order, then its own, then the inputs at the start (its last
     * n_tau: they load the seated joint); its inputs are the same; its record begins with the record of `assembly`
     * (the variables' indices hold in both; an output beyond that record reads 0 from the others); its sizes
     * (the struct's are its largest) are those clearance_sizes gives for its parameters */
    const char *clearance_assembly;
    int clearance_vr, n_rfe_vr;
    fj_fmu_sizes *clearance_sizes;
} fj_fmu_model;

/* The model of this FMU (model.c, written by build_fmu.py --native). */
extern const fj_fmu_model fj_fmu_the_model;

/* The models the engine does not run, each in its file here: speed_controller.c. */
extern const struct fj_assembly fj_assembly_SpeedController;
void fj_update_SpeedController(const double *fpar, const double *tau, double h, double *y);

#endif
