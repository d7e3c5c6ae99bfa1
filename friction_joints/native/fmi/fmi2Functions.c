/* fmi2Functions.c: the FMI 2.0 co-simulation interface of a native FMU (C99), in the manner of the
 * Modelica Reference-FMUs' fmi2Functions.c: the state machine (the calls allowed in each state, "illegal
 * call sequence" otherwise), the host's logger (always with a category, the message never taken as a
 * format), the GUID checked, the FMU state; the model's work in fj_fmu.c.
 *
 * A call that returns fmi2Error puts the instance in the error state (FMI 2.0, 2.1.3): getters, the
 * FMU state functions, fmi2Reset and fmi2FreeInstance remain; fmi2SetFMUstate of a state saved before
 * continues from it. Only co-simulation: fmi2Instantiate refuses fmi2ModelExchange.
 */
#include <stdlib.h>
#include <string.h>

#include "fj_fmu.h"
#include "fmi2Functions.h"

/* the states of FMI 2.0 co-simulation this FMU has (it never steps asynchronously) */
enum { INSTANTIATED = 1, INITIALIZATION_MODE = 2, STEP_COMPLETE = 4, TERMINATED = 8, ERROR_STATE = 16 };
#define ANY_STATE (INSTANTIATED | INITIALIZATION_MODE | STEP_COMPLETE | TERMINATED | ERROR_STATE)
#define SETTABLE (INSTANTIATED | INITIALIZATION_MODE | STEP_COMPLETE)
#define GETTABLE (INITIALIZATION_MODE | STEP_COMPLETE | TERMINATED | ERROR_STATE)

/* the modelDescription's LogCategories (pythonfmu's, kept in the twin's description) */
static const char *const CATEGORIES[] = {"logStatusWarning", "logStatusDiscard", "logStatusError", "logStatusFatal",
                                         "logAll"};
#define N_CATEGORIES 5
#define LOG_ALL 4

typedef struct Instance {
    fj_fmu *fmu;
    fmi2CallbackLogger logger;
    fmi2ComponentEnvironment environment;
    char *name;
    int state;
    int logging_on;
    int category_on[N_CATEGORIES];
} Instance;

/* ==================================================================================================
 * Logging and the state machine
 * ================================================================================================== */

/* fj_fmu's messages to the host: errors and warnings always, the others with debug logging on */
static void log_message(void *env, fj_fmu_status status, const char *category, const char *message) {
    Instance *inst = env;
    if (status == FJ_FMU_OK && !(inst->logging_on && inst->category_on[LOG_ALL])) return;
    inst->logger(inst->environment, inst->name, (fmi2Status)status, category, "%s", message);
}

static const char *state_name(int state) {
    switch (state) {
    case INSTANTIATED: return "the instantiated state";
    case INITIALIZATION_MODE: return "initialization mode";
    case STEP_COMPLETE: return "the step-complete state";
    case TERMINATED: return "the terminated state";
    default: return "the error state";
    }
}

/* Whether `where` may be called in the instance's state (mask); logged and the error state if not. */
static int allowed(Instance *inst, const char *where, int mask) {
    if (inst == NULL) return 0;
    if (inst->state & mask) return 1;
    const char *first = fj_fmu_error(inst->fmu);
    if (inst->state == ERROR_STATE && first != NULL)
        fj_fmu_fail(inst->fmu, where, "illegal call sequence: not allowed in the error state, after: %s", first);
    else
        fj_fmu_fail(inst->fmu, where, "illegal call sequence: not allowed in %s", state_name(inst->state));
    inst->state = ERROR_STATE;
    return 0;
}

/* The status of a call: an error puts the instance in the error state. */
static fmi2Status done(Instance *inst, fj_fmu_status status) {
    if (status == FJ_FMU_ERROR) inst->state = ERROR_STATE;
    return (fmi2Status)status;
}

static fj_fmu_status worse(fj_fmu_status a, fj_fmu_status b) { return a > b ? a : b; }

#define BEGIN(where, mask)                                                                                             \
    Instance *inst = (Instance *)c;                                                                                    \
    if (!allowed(inst, where, mask)) return fmi2Error

/* ==================================================================================================
 * Common functions
 * ================================================================================================== */

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }

const char *fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[]) {
    BEGIN("fmi2SetDebugLogging", ANY_STATE);
    if (nCategories > 0 && categories == NULL)
        return done(inst, fj_fmu_fail(inst->fmu, "fmi2SetDebugLogging", "categories is NULL"));
    inst->logging_on = loggingOn != fmi2False;
    if (nCategories == 0)
        for (int k = 0; k < N_CATEGORIES; k++) inst->category_on[k] = 1;
    for (size_t i = 0; i < nCategories; i++) {
        int k = 0;
        while (k < N_CATEGORIES && !(categories[i] && strcmp(categories[i], CATEGORIES[k]) == 0)) k++;
        if (k == N_CATEGORIES)
            return done(inst, fj_fmu_fail(inst->fmu, "fmi2SetDebugLogging", "unknown log category %s (this FMU's: "
                                                                            "logStatusWarning, logStatusDiscard, "
                                                                            "logStatusError, logStatusFatal, logAll)",
                                          categories[i] ? categories[i] : "NULL"));
        inst->category_on[k] = loggingOn != fmi2False;
    }
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation, const fmi2CallbackFunctions *functions,
                              fmi2Boolean visible, fmi2Boolean loggingOn) {
    (void)fmuResourceLocation, (void)visible; /* no resources, no window */
    if (functions == NULL || functions->logger == NULL) return NULL; /* no way to say why */
    const fj_fmu_model *model = &fj_fmu_the_model;
    const char *name = instanceName ? instanceName : "";
    const char *why = NULL;
    if (instanceName == NULL || instanceName[0] == '\0')
        why = "instanceName is empty";
    else if (fmuType != fmi2CoSimulation)
        why = "this FMU has co-simulation only (fmuType fmi2ModelExchange refused)";
    else if (fmuGUID == NULL || strcmp(fmuGUID, model->token) != 0)
        why = "the GUID is not this FMU's: its modelDescription.xml and its binary are of different builds";
    Instance *inst = why ? NULL : calloc(1, sizeof *inst);
    char *copy = inst ? malloc(strlen(name) + 1) : NULL;
    if (why == NULL && (inst == NULL || copy == NULL)) why = "out of memory";
    if (why != NULL) {
        free(inst);
        free(copy);
        functions->logger(functions->componentEnvironment, name, fmi2Error, "logStatusError", "fmi2Instantiate: %s",
                          why);
        return NULL;
    }
    strcpy(copy, name);
    inst->name = copy;
    inst->logger = functions->logger;
    inst->environment = functions->componentEnvironment;
    inst->logging_on = loggingOn != fmi2False;
    for (int k = 0; k < N_CATEGORIES; k++) inst->category_on[k] = 1;
    inst->state = INSTANTIATED;
    inst->fmu = fj_fmu_new(model, log_message, inst); /* (logs why if it fails) */
    if (inst->fmu == NULL) {
        free(inst->name);
        free(inst);
        return NULL;
    }
    return inst;
}

void fmi2FreeInstance(fmi2Component c) {
    Instance *inst = (Instance *)c;
    if (inst == NULL) return;
    fj_fmu_free(inst->fmu);
    free(inst->name);
    free(inst);
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance, fmi2Real startTime,
                               fmi2Boolean stopTimeDefined, fmi2Real stopTime) {
    BEGIN("fmi2SetupExperiment", INSTANTIATED);
    return done(inst, fj_fmu_setup(inst->fmu, "fmi2SetupExperiment", toleranceDefined != fmi2False, tolerance,
                                   startTime, stopTimeDefined != fmi2False, stopTime));
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) {
    BEGIN("fmi2EnterInitializationMode", INSTANTIATED);
    inst->state = INITIALIZATION_MODE;
    return fmi2OK;
}

fmi2Status fmi2ExitInitializationMode(fmi2Component c) {
    BEGIN("fmi2ExitInitializationMode", INITIALIZATION_MODE);
    fj_fmu_status status = fj_fmu_initialize(inst->fmu, "fmi2ExitInitializationMode");
    if (status != FJ_FMU_ERROR) inst->state = STEP_COMPLETE;
    return done(inst, status);
}

fmi2Status fmi2Terminate(fmi2Component c) {
    BEGIN("fmi2Terminate", STEP_COMPLETE);
    fj_fmu_terminate(inst->fmu);
    inst->state = TERMINATED;
    return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component c) {
    BEGIN("fmi2Reset", ANY_STATE);
    fj_fmu_reset(inst->fmu);
    inst->state = INSTANTIATED;
    return fmi2OK;
}

/* ==================================================================================================
 * Variables
 * ================================================================================================== */

/* set or get nvr values of type (double in fj_fmu) through `convert` of each element */
#define CHECK_ARRAYS(where)                                                                                            \
    if (nvr > 0 && (vr == NULL || value == NULL))                                                                      \
    return done(inst, fj_fmu_fail(inst->fmu, where, "vr or value is NULL"))

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[]) {
    BEGIN("fmi2GetReal", GETTABLE);
    CHECK_ARRAYS("fmi2GetReal");
    fj_fmu_status status = FJ_FMU_OK;
    for (size_t i = 0; i < nvr; i++) status = worse(status, fj_fmu_get(inst->fmu, "fmi2GetReal", vr[i], FJ_FMU_REAL, &value[i]));
    return done(inst, status);
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[]) {
    BEGIN("fmi2GetInteger", GETTABLE);
    CHECK_ARRAYS("fmi2GetInteger");
    fj_fmu_status status = FJ_FMU_OK;
    for (size_t i = 0; i < nvr; i++) {
        double x = 0.0;
        status = worse(status, fj_fmu_get(inst->fmu, "fmi2GetInteger", vr[i], FJ_FMU_INTEGER, &x));
        value[i] = (fmi2Integer)x;
    }
    return done(inst, status);
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[]) {
    BEGIN("fmi2GetBoolean", GETTABLE);
    CHECK_ARRAYS("fmi2GetBoolean");
    fj_fmu_status status = FJ_FMU_OK;
    for (size_t i = 0; i < nvr; i++) {
        double x = 0.0;
        status = worse(status, fj_fmu_get(inst->fmu, "fmi2GetBoolean", vr[i], FJ_FMU_BOOLEAN, &x));
        value[i] = x != 0.0 ? fmi2True : fmi2False;
    }
    return done(inst, status);
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2String value[]) {
    BEGIN("fmi2GetString", GETTABLE);
    CHECK_ARRAYS("fmi2GetString");
    fj_fmu_status status = FJ_FMU_OK;
    for (size_t i = 0; i < nvr; i++) {
        double x;
        status = worse(status, fj_fmu_get(inst->fmu, "fmi2GetString", vr[i], FJ_FMU_STRING, &x)); /* none: fails */
        value[i] = "";
    }
    return done(inst, status);
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[]) {
    BEGIN("fmi2SetReal", SETTABLE);
    CHECK_ARRAYS("fmi2SetReal");
    fj_fmu_status status = FJ_FMU_OK;
    for (size_t i = 0; i < nvr; i++) status = worse(status, fj_fmu_set(inst->fmu, "fmi2SetReal", vr[i], FJ_FMU_REAL, value[i]));
    return done(inst, status);
}

fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer value[]) {
    BEGIN("fmi2SetInteger", SETTABLE);
    CHECK_ARRAYS("fmi2SetInteger");
    fj_fmu_status status = FJ_FMU_OK;
    for (size_t i = 0; i < nvr; i++)
        status = worse(status, fj_fmu_set(inst->fmu, "fmi2SetInteger", vr[i], FJ_FMU_INTEGER, (double)value[i]));
    return done(inst, status);
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Boolean value[]) {
    BEGIN("fmi2SetBoolean", SETTABLE);
    CHECK_ARRAYS("fmi2SetBoolean");
    fj_fmu_status status = FJ_FMU_OK;
    for (size_t i = 0; i < nvr; i++)
        status = worse(status, fj_fmu_set(inst->fmu, "fmi2SetBoolean", vr[i], FJ_FMU_BOOLEAN, value[i] ? 1.0 : 0.0));
    return done(inst, status);
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[]) {
    BEGIN("fmi2SetString", SETTABLE);
    CHECK_ARRAYS("fmi2SetString");
    fj_fmu_status status = FJ_FMU_OK;
    for (size_t i = 0; i < nvr; i++) status = worse(status, fj_fmu_set(inst->fmu, "fmi2SetString", vr[i], FJ_FMU_STRING, 0.0));
    return done(inst, status);
}

/* ==================================================================================================
 * FMU state
 * ================================================================================================== */

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *FMUstate) {
    BEGIN("fmi2GetFMUstate", ANY_STATE);
    return done(inst, fj_fmu_save(inst->fmu, "fmi2GetFMUstate", "FMUstate", inst->state, (fj_fmu_saved **)FMUstate));
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate) {
    BEGIN("fmi2SetFMUstate", ANY_STATE);
    int state = INSTANTIATED;
    fj_fmu_status status = fj_fmu_restore(inst->fmu, "fmi2SetFMUstate", "FMUstate", FMUstate, &state);
    if (status != FJ_FMU_ERROR) inst->state = state;
    return done(inst, status);
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *FMUstate) {
    BEGIN("fmi2FreeFMUstate", ANY_STATE);
    fj_fmu_saved_free((fj_fmu_saved **)FMUstate);
    return fmi2OK;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t *size) {
    BEGIN("fmi2SerializedFMUstateSize", ANY_STATE);
    return done(inst, fj_fmu_serialized_size(inst->fmu, "fmi2SerializedFMUstateSize", "FMUstate", FMUstate, size));
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate, fmi2Byte serializedState[], size_t size) {
    BEGIN("fmi2SerializeFMUstate", ANY_STATE);
    return done(inst, fj_fmu_serialize(inst->fmu, "fmi2SerializeFMUstate",
                                       "FMUstate", FMUstate, serializedState, size));
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[], size_t size,
                                   fmi2FMUstate *FMUstate) {
    BEGIN("fmi2DeSerializeFMUstate", ANY_STATE);
    return done(inst, fj_fmu_deserialize(inst->fmu, "fmi2DeSerializeFMUstate", "FMUstate", serializedState, size,
                                         (fj_fmu_saved **)FMUstate));
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[], size_t nUnknown,
                                        const fmi2ValueReference vKnown_ref[], size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[]) {
    (void)vUnknown_ref, (void)nUnknown, (void)vKnown_ref, (void)nKnown, (void)dvKnown, (void)dvUnknown;
    BEGIN("fmi2GetDirectionalDerivative", ANY_STATE);
    return done(inst, fj_fmu_fail(inst->fmu, "fmi2GetDirectionalDerivative", "not supported "
                                  "(providesDirectionalDerivative is false)"));
}

/* ==================================================================================================
 * Co-simulation
 * ================================================================================================== */

fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                       const fmi2Integer order[], const fmi2Real value[]) {
    BEGIN("fmi2SetRealInputDerivatives", SETTABLE);
    if (nvr > 0 && (vr == NULL || order == NULL || value == NULL))
        return done(inst, fj_fmu_fail(inst->fmu, "fmi2SetRealInputDerivatives", "vr, order or value is NULL"));
    fj_fmu_status status = FJ_FMU_OK;
    for (size_t i = 0; i < nvr; i++)
        status = worse(status, fj_fmu_set_derivative(inst->fmu, "fmi2SetRealInputDerivatives", vr[i], order[i], value[i]));
    return done(inst, status);
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                        const fmi2Integer order[], fmi2Real value[]) {
    (void)vr, (void)nvr, (void)order, (void)value;
    BEGIN("fmi2GetRealOutputDerivatives", ANY_STATE);
    return done(inst, fj_fmu_fail(inst->fmu, "fmi2GetRealOutputDerivatives", "not supported "
                                  "(maxOutputDerivativeOrder is 0)"));
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint) {
    (void)noSetFMUStatePriorToCurrentPoint;
    BEGIN("fmi2DoStep", STEP_COMPLETE);
    return done(inst, fj_fmu_step(inst->fmu, "fmi2DoStep", currentCommunicationPoint, communicationStepSize));
}

fmi2Status fmi2CancelStep(fmi2Component c) {
    BEGIN("fmi2CancelStep", 0); /* doStep never returns fmi2Pending: there is no step to cancel */
    return fmi2Error;
}

/* The statuses of an asynchronous step, which this FMU never takes: fmi2Discard ("not available"),
 * but fmi2LastSuccessfulTime (the time reached) and fmi2Terminated (false). */
#define STATUS_STATES (STEP_COMPLETE | TERMINATED | ERROR_STATE)

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status *value) {
    (void)s, (void)value;
    BEGIN("fmi2GetStatus", STATUS_STATES);
    return fmi2Discard;
}

fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real *value) {
    BEGIN("fmi2GetRealStatus", STATUS_STATES);
    if (s != fmi2LastSuccessfulTime || value == NULL) return fmi2Discard;
    *value = fj_fmu_time(inst->fmu);
    return fmi2OK;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer *value) {
    (void)s, (void)value;
    BEGIN("fmi2GetIntegerStatus", STATUS_STATES);
    return fmi2Discard;
}

fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean *value) {
    BEGIN("fmi2GetBooleanStatus", STATUS_STATES);
    if (s != fmi2Terminated || value == NULL) return fmi2Discard;
    *value = fmi2False;
    return fmi2OK;
}

fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String *value) {
    (void)s, (void)value;
    BEGIN("fmi2GetStringStatus", STATUS_STATES);
    return fmi2Discard;
}
