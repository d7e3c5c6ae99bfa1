/* fj_fmu.h: the instance of a native FMU, whatever the FMI version (C99): its variables' values and
 * checks, the engine instance (fj.h) built from the parameters, the co-simulation step, the FMU
 * state. fmi2Functions.c and fmi3Functions.c are thin layers over it that add the FMI state machine
 * (the allowed calls per state) and the host's logger, as the Reference-FMUs' cosimulation.c serves
 * their fmi2Functions.c and fmi3Functions.c.
 *
 * Semantics are the pythonfmu twin's (friction_joints/fmi/slave.py, stepping.Stepper): the same checks
 * and messages, the inputs held over a step (or the lines of their first derivatives), a change of
 * the inputs a restart of the mode decisions, the first failure kept and repeated by every later
 * step until a saved state is restored or the instance reset. Every function that fails logs a
 * message naming the function (`where`), the variable or argument and its allowed range, and
 * returns FJ_FMU_ERROR. Nothing is allocated after fj_fmu_new but the engine at initialisation (and
 * again at a restore of a state of other parameters): doStep allocates nothing.
 */
#ifndef FJ_FMU_H
#define FJ_FMU_H

#include <stddef.h>

#include "fj_fmu_model.h"

typedef enum { FJ_FMU_OK = 0, FJ_FMU_WARNING = 1, FJ_FMU_ERROR = 3 } fj_fmu_status;

/* where the instance's messages go: the FMI layer's adapter to the host's logger; category
 * "logStatusError", "logStatusWarning" or "logAll" (the modelDescription's LogCategories) */
typedef void fj_fmu_logger(void *env, fj_fmu_status status, const char *category, const char *message);

typedef struct fj_fmu fj_fmu;

/* A new instance of model with the start values; NULL on failure (a model without an assembly, no
 * memory), logged. */
fj_fmu *fj_fmu_new(const fj_fmu_model *model, fj_fmu_logger *logger, void *env);
void fj_fmu_free(fj_fmu *f);
/* Back to the start values, no engine, no failure (fmi2Reset, fmi3Reset). */
void fj_fmu_reset(fj_fmu *f);

/* Log a failure of `where` (printf format) with FJ_FMU_ERROR and keep it if it is the first; returns
 * FJ_FMU_ERROR. */
fj_fmu_status fj_fmu_fail(fj_fmu *f, const char *where, const char *format, ...);
/* Log a message of status OK (category logAll) or warning. */
void fj_fmu_log(fj_fmu *f, fj_fmu_status status, const char *format, ...);
/* The first failure's message, NULL while there is none. */
const char *fj_fmu_error(const fj_fmu *f);

/* The experiment: start time, stop time, tolerance (setupExperiment, FMI 3.0 enterInitializationMode). */
fj_fmu_status fj_fmu_setup(fj_fmu *f, const char *where, int tolerance_defined, double tolerance, double start,
                           int stop_defined, double stop);
/* A value of variable vr of type type (FJ_FMU_REAL...; Booleans 0 or 1), checked: its type, causality,
 * range, and a parameter only before initialisation. */
fj_fmu_status fj_fmu_set(fj_fmu *f, const char *where, unsigned int vr, int type, double value);
fj_fmu_status fj_fmu_get(fj_fmu *f, const char *where, unsigned int vr, int type, double *value);
/* The derivative of order `order` of input vr for the next doStep (order 1; others are not used: a
 * warning). */
fj_fmu_status fj_fmu_set_derivative(fj_fmu *f, const char *where, unsigned int vr, int order, double value);
/* The engine from the parameters, started at the start time; outputs at the start. */
fj_fmu_status fj_fmu_initialize(fj_fmu *f, const char *where);
/* Integrate from t to t + h (t: the time reached). */
fj_fmu_status fj_fmu_step(fj_fmu *f, const char *where, double t, double h);
void fj_fmu_terminate(fj_fmu *f);
/* The time: the start time before initialisation, then the end of the last completed step. */
double fj_fmu_time(const fj_fmu *f);

/* The FMU state: everything that determines the future (values, inputs held, engine state, the FMI
 * layer's state `phase`, the first failure), saved into an object the host holds (fmi2FMUstate,
 * fmi3FMUState): a flat buffer whose size grows with the engine (made at initialisation). Restoring it
 * into an instance of the same model continues bit-identically, in this process or another (serialised:
 * the buffer's bytes). `name` is the FMI version's name of the object in messages ("FMUstate"). */
typedef struct fj_fmu_saved fj_fmu_saved;
/* The state into *saved (resized, or made if *saved is NULL; freed and NULL without memory). */
fj_fmu_status fj_fmu_save(fj_fmu *f, const char *where, const char *name, int phase, fj_fmu_saved **saved);
/* Restores a saved state (checked: a state of another model fails); *phase: the FMI layer's state in it. */
fj_fmu_status fj_fmu_restore(fj_fmu *f, const char *where, const char *name, const fj_fmu_saved *saved, int *phase);
void fj_fmu_saved_free(fj_fmu_saved **saved);
fj_fmu_status fj_fmu_serialized_size(fj_fmu *f, const char *where, const char *name, const fj_fmu_saved *saved,
                                     size_t *size);
/* Its bytes into `bytes` (size at least fj_fmu_serialized_size's). */
fj_fmu_status fj_fmu_serialize(fj_fmu *f, const char *where, const char *name, const fj_fmu_saved *saved,
                               void *bytes, size_t size);
/* A saved state from serialised bytes, checked; replaces *saved (freed) only on success. */
fj_fmu_status fj_fmu_deserialize(fj_fmu *f, const char *where, const char *name, const void *bytes, size_t size,
                                 fj_fmu_saved **saved);

#endif
