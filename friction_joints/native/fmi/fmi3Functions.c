/* fmi3Functions.c: the FMI 3.0 co-simulation interface of a native FMU (C99), in the manner of the
 * Modelica Reference-FMUs' fmi3Functions.c: the state machine ("illegal call sequence" otherwise), the
 * host's logger (always with a category), the instantiation token checked, the FMU state; the model's
 * work in fj_fmu.c. Every function of fmi3Functions.h is exported; those of model exchange, scheduled
 * execution, event mode, clocks and configuration mode fail with a message (the FMU has none of them).
 *
 * The variables are the model's (value references 0 .. n - 1, Float64, Int32 and Boolean), then the
 * independent variable time (value reference n): the start time, then the end of the last completed
 * step. A call that returns fmi3Error puts the instance in the error state: getters, the FMU state
 * functions, fmi3Reset and fmi3FreeInstance remain; fmi3SetFMUState of a state saved before continues.
 * FMI 3.0 co-simulation has no input derivatives here: the inputs are held over each step.
 */
#include <stdlib.h>
#include <string.h>

#include "fj_fmu.h"
#include "fmi3Functions.h"

enum { INSTANTIATED = 1, INITIALIZATION_MODE = 2, STEP_MODE = 4, TERMINATED = 8, ERROR_STATE = 16 };
#define ANY_STATE (INSTANTIATED | INITIALIZATION_MODE | STEP_MODE | TERMINATED | ERROR_STATE)
#define SETTABLE (INSTANTIATED | INITIALIZATION_MODE | STEP_MODE)
#define GETTABLE (INITIALIZATION_MODE | STEP_MODE | TERMINATED | ERROR_STATE)

static const char *const CATEGORIES[] = {"logStatusWarning", "logStatusDiscard", "logStatusError", "logStatusFatal",
                                         "logAll"};
#define N_CATEGORIES 5
#define LOG_ALL 4

typedef struct Instance {
    fj_fmu *fmu;
    fmi3LogMessageCallback log;
    fmi3InstanceEnvironment environment;
    int state;
    int logging_on;
    int category_on[N_CATEGORIES];
} Instance;

/* ==================================================================================================
 * Logging and the state machine
 * ================================================================================================== */

static void log_message(void *env, fj_fmu_status status, const char *category, const char *message) {
    Instance *inst = env;
    if (inst->log == NULL || (status == FJ_FMU_OK && !(inst->logging_on && inst->category_on[LOG_ALL]))) return;
    inst->log(inst->environment, (fmi3Status)status, category, message);
}

static const char *state_name(int state) {
    switch (state) {
    case INSTANTIATED: return "the instantiated state";
    case INITIALIZATION_MODE: return "initialization mode";
    case STEP_MODE: return "step mode";
    case TERMINATED: return "the terminated state";
    default: return "the error state";
    }
}

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

static fmi3Status done(Instance *inst, fj_fmu_status status) {
    if (status == FJ_FMU_ERROR) inst->state = ERROR_STATE;
    return (fmi3Status)status;
}

static fj_fmu_status worse(fj_fmu_status a, fj_fmu_status b) { return a > b ? a : b; }

#define BEGIN(where, mask)                                                                                             \
    Instance *inst = (Instance *)instance;                                                                             \
    if (!allowed(inst, where, mask)) return fmi3Error

/* a function this FMU does not have (its capability flags say so): an error with a message */
#define NOT_SUPPORTED(where, why)                                                                                      \
    BEGIN(where, ANY_STATE);                                                                                           \
    return done(inst, fj_fmu_fail(inst->fmu, where, "not supported (%s)", why))

static unsigned int time_reference(void) { return (unsigned int)fj_fmu_the_model.n_variables; }

/* ==================================================================================================
 * Inquire version, logging, instantiation
 * ================================================================================================== */

const char *fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                               const fmi3String categories[]) {
    BEGIN("fmi3SetDebugLogging", ANY_STATE);
    if (nCategories > 0 && categories == NULL)
        return done(inst, fj_fmu_fail(inst->fmu, "fmi3SetDebugLogging", "categories is NULL"));
    inst->logging_on = loggingOn;
    if (nCategories == 0)
        for (int k = 0; k < N_CATEGORIES; k++) inst->category_on[k] = 1;
    for (size_t i = 0; i < nCategories; i++) {
        int k = 0;
        while (k < N_CATEGORIES && !(categories[i] && strcmp(categories[i], CATEGORIES[k]) == 0)) k++;
        if (k == N_CATEGORIES)
            return done(inst, fj_fmu_fail(inst->fmu, "fmi3SetDebugLogging", "unknown log category %s (this FMU's: "
                                                                            "logStatusWarning, logStatusDiscard, "
                                                                            "logStatusError, logStatusFatal, logAll)",
                                          categories[i] ? categories[i] : "NULL"));
        inst->category_on[k] = loggingOn;
    }
    return fmi3OK;
}

static void refuse(fmi3InstanceEnvironment environment, fmi3LogMessageCallback log, const char *where,
                   const char *why) {
    if (log == NULL) return;
    char message[400];
    strcpy(message, where);
    strcat(message, ": ");
    strncat(message, why, sizeof message - strlen(message) - 1);
    log(environment, fmi3Error, "logStatusError", message);
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String instantiationToken,
                                          fmi3String resourcePath, fmi3Boolean visible, fmi3Boolean loggingOn,
                                          fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage) {
    (void)instanceName, (void)instantiationToken, (void)resourcePath, (void)visible, (void)loggingOn;
    refuse(instanceEnvironment, logMessage, "fmi3InstantiateModelExchange", "this FMU has co-simulation only");
    return NULL;
}

fmi3Instance fmi3InstantiateScheduledExecution(fmi3String instanceName, fmi3String instantiationToken,
                                               fmi3String resourcePath, fmi3Boolean visible, fmi3Boolean loggingOn,
                                               fmi3InstanceEnvironment instanceEnvironment,
                                               fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
                                               fmi3LockPreemptionCallback lockPreemption,
                                               fmi3UnlockPreemptionCallback unlockPreemption) {
    (void)instanceName, (void)instantiationToken, (void)resourcePath, (void)visible, (void)loggingOn;
    (void)clockUpdate, (void)lockPreemption, (void)unlockPreemption;
    refuse(instanceEnvironment, logMessage, "fmi3InstantiateScheduledExecution", "this FMU has co-simulation only");
    return NULL;
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String instanceName, fmi3String instantiationToken,
                                         fmi3String resourcePath, fmi3Boolean visible, fmi3Boolean loggingOn,
                                         fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
                                         const fmi3ValueReference requiredIntermediateVariables[],
                                         size_t nRequiredIntermediateVariables,
                                         fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
                                         fmi3IntermediateUpdateCallback intermediateUpdate) {
    (void)resourcePath, (void)visible, (void)earlyReturnAllowed, (void)requiredIntermediateVariables;
    (void)nRequiredIntermediateVariables, (void)intermediateUpdate; /* no resources, no window, no early return */
    const fj_fmu_model *model = &fj_fmu_the_model;
    const char *why = NULL;
    if (instanceName == NULL || instanceName[0] == '\0')
        why = "instanceName is empty";
    else if (instantiationToken == NULL || strcmp(instantiationToken, model->token) != 0)
        why = "the instantiation token is not this FMU's: its modelDescription.xml and its binary are of different "
              "builds";
    else if (eventModeUsed)
        why = "eventModeUsed: this FMU has no event mode (hasEventMode is false)";
    Instance *inst = why ? NULL : calloc(1, sizeof *inst);
    if (why == NULL && inst == NULL) why = "out of memory";
    if (why != NULL) {
        refuse(instanceEnvironment, logMessage, "fmi3InstantiateCoSimulation", why);
        return NULL;
    }
    inst->log = logMessage;
    inst->environment = instanceEnvironment;
    inst->logging_on = loggingOn;
    for (int k = 0; k < N_CATEGORIES; k++) inst->category_on[k] = 1;
    inst->state = INSTANTIATED;
    inst->fmu = fj_fmu_new(model, log_message, inst);
    if (inst->fmu == NULL) {
        free(inst);
        return NULL;
    }
    return inst;
}

void fmi3FreeInstance(fmi3Instance instance) {
    Instance *inst = (Instance *)instance;
    if (inst == NULL) return;
    fj_fmu_free(inst->fmu);
    free(inst);
}

/* ==================================================================================================
 * Initialization, termination, reset
 * ================================================================================================== */

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined, fmi3Float64 tolerance,
                                       fmi3Float64 startTime, fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
    BEGIN("fmi3EnterInitializationMode", INSTANTIATED);
    fj_fmu_status status = fj_fmu_setup(inst->fmu, "fmi3EnterInitializationMode", toleranceDefined, tolerance,
                                        startTime, stopTimeDefined, stopTime);
    if (status != FJ_FMU_ERROR) inst->state = INITIALIZATION_MODE;
    return done(inst, status);
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
    BEGIN("fmi3ExitInitializationMode", INITIALIZATION_MODE);
    fj_fmu_status status = fj_fmu_initialize(inst->fmu, "fmi3ExitInitializationMode");
    if (status != FJ_FMU_ERROR) inst->state = STEP_MODE;
    return done(inst, status);
}

fmi3Status fmi3EnterEventMode(fmi3Instance instance) {
    NOT_SUPPORTED("fmi3EnterEventMode", "the FMU has no event mode");
}

fmi3Status fmi3Terminate(fmi3Instance instance) {
    BEGIN("fmi3Terminate", STEP_MODE);
    fj_fmu_terminate(inst->fmu);
    inst->state = TERMINATED;
    return fmi3OK;
}

fmi3Status fmi3Reset(fmi3Instance instance) {
    BEGIN("fmi3Reset", ANY_STATE);
    fj_fmu_reset(inst->fmu);
    inst->state = INSTANTIATED;
    return fmi3OK;
}

/* ==================================================================================================
 * Variables
 * ================================================================================================== */

/* the arrays of a getter or setter of scalars: vr and values not NULL, nValues = nValueReferences */
static int arrays_valid(Instance *inst, const char *where, const void *vr, size_t nvr, const void *values,
                        size_t nValues) {
    if (nvr > 0 && (vr == NULL || values == NULL)) {
        done(inst, fj_fmu_fail(inst->fmu, where, "valueReferences or values is NULL"));
        return 0;
    }
    if (nValues != nvr) {
        done(inst, fj_fmu_fail(inst->fmu, where, "nValues = %lu, expected nValueReferences = %lu (every variable is a "
                                                 "scalar)", (unsigned long)nValues, (unsigned long)nvr));
        return 0;
    }
    return 1;
}

/* a value reference given to the getter or setter of a type no variable has */
static fj_fmu_status wrong_type(Instance *inst, const char *where, fmi3ValueReference vr, const char *type) {
    const fj_fmu_model *m = &fj_fmu_the_model;
    static const char *const names[] = {"Float64", "Int32", "Boolean", "String"};
    if (vr == time_reference())
        return fj_fmu_fail(inst->fmu, where, "time (value reference %u) is a Float64 variable, not a %s", vr, type);
    if (vr >= (fmi3ValueReference)m->n_variables)
        return fj_fmu_fail(inst->fmu, where, "no variable has the value reference %u", vr);
    return fj_fmu_fail(inst->fmu, where, "%s (value reference %u) is a %s variable, not a %s", m->variables[vr].name, vr,
                       names[m->variables[vr].type], type);
}

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                          fmi3Float64 values[], size_t nValues) {
    BEGIN("fmi3GetFloat64", GETTABLE);
    if (!arrays_valid(inst, "fmi3GetFloat64", valueReferences, nValueReferences, values, nValues)) return fmi3Error;
    fj_fmu_status status = FJ_FMU_OK;
    for (size_t i = 0; i < nValueReferences; i++) {
        if (valueReferences[i] == time_reference())
            values[i] = fj_fmu_time(inst->fmu);
        else
            status = worse(status, fj_fmu_get(inst->fmu, "fmi3GetFloat64", valueReferences[i], FJ_FMU_REAL, &values[i]));
    }
    return done(inst, status);
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                          const fmi3Float64 values[], size_t nValues) {
    BEGIN("fmi3SetFloat64", SETTABLE);
    if (!arrays_valid(inst, "fmi3SetFloat64", valueReferences, nValueReferences, values, nValues)) return fmi3Error;
    fj_fmu_status status = FJ_FMU_OK;
    for (size_t i = 0; i < nValueReferences; i++) {
        if (valueReferences[i] == time_reference())
            status = worse(status, fj_fmu_fail(inst->fmu, "fmi3SetFloat64", "time (value reference %u) is the "
                                               "independent variable: it cannot be set", valueReferences[i]));
        else
            status = worse(status, fj_fmu_set(inst->fmu, "fmi3SetFloat64", valueReferences[i], FJ_FMU_REAL, values[i]));
    }
    return done(inst, status);
}

fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                        fmi3Int32 values[], size_t nValues) {
    BEGIN("fmi3GetInt32", GETTABLE);
    if (!arrays_valid(inst, "fmi3GetInt32", valueReferences, nValueReferences, values, nValues)) return fmi3Error;
    fj_fmu_status status = FJ_FMU_OK;
    for (size_t i = 0; i < nValueReferences; i++) {
        double x = 0.0;
        status = worse(status, fj_fmu_get(inst->fmu, "fmi3GetInt32", valueReferences[i], FJ_FMU_INTEGER, &x));
        values[i] = (fmi3Int32)x;
    }
    return done(inst, status);
}

fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                        const fmi3Int32 values[], size_t nValues) {
    BEGIN("fmi3SetInt32", SETTABLE);
    if (!arrays_valid(inst, "fmi3SetInt32", valueReferences, nValueReferences, values, nValues)) return fmi3Error;
    fj_fmu_status status = FJ_FMU_OK;
    for (size_t i = 0; i < nValueReferences; i++)
        status = worse(status, fj_fmu_set(inst->fmu, "fmi3SetInt32", valueReferences[i], FJ_FMU_INTEGER, values[i]));
    return done(inst, status);
}

fmi3Status fmi3GetBoolean(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                          fmi3Boolean values[], size_t nValues) {
    BEGIN("fmi3GetBoolean", GETTABLE);
    if (!arrays_valid(inst, "fmi3GetBoolean", valueReferences, nValueReferences, values, nValues)) return fmi3Error;
    fj_fmu_status status = FJ_FMU_OK;
    for (size_t i = 0; i < nValueReferences; i++) {
        double x = 0.0;
        status = worse(status, fj_fmu_get(inst->fmu, "fmi3GetBoolean", valueReferences[i], FJ_FMU_BOOLEAN, &x));
        values[i] = x != 0.0;
    }
    return done(inst, status);
}

fmi3Status fmi3SetBoolean(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                          const fmi3Boolean values[], size_t nValues) {
    BEGIN("fmi3SetBoolean", SETTABLE);
    if (!arrays_valid(inst, "fmi3SetBoolean", valueReferences, nValueReferences, values, nValues)) return fmi3Error;
    fj_fmu_status status = FJ_FMU_OK;
    for (size_t i = 0; i < nValueReferences; i++)
        status = worse(status, fj_fmu_set(inst->fmu, "fmi3SetBoolean", valueReferences[i], FJ_FMU_BOOLEAN,
                                          values[i] ? 1.0 : 0.0));
    return done(inst, status);
}

/* The getters and setters of the types no variable has: every value reference is an error. */
#define NO_VARIABLES(function, mask, type, values_type)                                                                \
    fmi3Status function(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,   \
                        values_type values[], size_t nValues) {                                                        \
        BEGIN(#function, mask);                                                                                        \
        if (!arrays_valid(inst, #function, valueReferences, nValueReferences, values, nValues)) return fmi3Error;     \
        fj_fmu_status status = FJ_FMU_OK;                                                                              \
        for (size_t i = 0; i < nValueReferences; i++)                                                                  \
            status = worse(status, wrong_type(inst, #function, valueReferences[i], type));                           \
        return done(inst, status);                                                                                     \
    }

NO_VARIABLES(fmi3GetFloat32, GETTABLE, "Float32", fmi3Float32)
NO_VARIABLES(fmi3GetInt8, GETTABLE, "Int8", fmi3Int8)
NO_VARIABLES(fmi3GetUInt8, GETTABLE, "UInt8", fmi3UInt8)
NO_VARIABLES(fmi3GetInt16, GETTABLE, "Int16", fmi3Int16)
NO_VARIABLES(fmi3GetUInt16, GETTABLE, "UInt16", fmi3UInt16)
NO_VARIABLES(fmi3GetUInt32, GETTABLE, "UInt32", fmi3UInt32)
NO_VARIABLES(fmi3GetInt64, GETTABLE, "Int64", fmi3Int64)
NO_VARIABLES(fmi3GetUInt64, GETTABLE, "UInt64", fmi3UInt64)
NO_VARIABLES(fmi3GetString, GETTABLE, "String", fmi3String)
NO_VARIABLES(fmi3SetFloat32, SETTABLE, "Float32", const fmi3Float32)
NO_VARIABLES(fmi3SetInt8, SETTABLE, "Int8", const fmi3Int8)
NO_VARIABLES(fmi3SetUInt8, SETTABLE, "UInt8", const fmi3UInt8)
NO_VARIABLES(fmi3SetInt16, SETTABLE, "Int16", const fmi3Int16)
NO_VARIABLES(fmi3SetUInt16, SETTABLE, "UInt16", const fmi3UInt16)
NO_VARIABLES(fmi3SetUInt32, SETTABLE, "UInt32", const fmi3UInt32)
NO_VARIABLES(fmi3SetInt64, SETTABLE, "Int64", const fmi3Int64)
NO_VARIABLES(fmi3SetUInt64, SETTABLE, "UInt64", const fmi3UInt64)
NO_VARIABLES(fmi3SetString, SETTABLE, "String", const fmi3String)

fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                         size_t valueSizes[], fmi3Binary values[], size_t nValues) {
    BEGIN("fmi3GetBinary", GETTABLE);
    (void)valueSizes;
    if (!arrays_valid(inst, "fmi3GetBinary", valueReferences, nValueReferences, values, nValues)) return fmi3Error;
    fj_fmu_status status = FJ_FMU_OK;
    for (size_t i = 0; i < nValueReferences; i++)
        status = worse(status, wrong_type(inst, "fmi3GetBinary", valueReferences[i], "Binary"));
    return done(inst, status);
}

fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                         const size_t valueSizes[], const fmi3Binary values[], size_t nValues) {
    BEGIN("fmi3SetBinary", SETTABLE);
    (void)valueSizes;
    if (!arrays_valid(inst, "fmi3SetBinary", valueReferences, nValueReferences, values, nValues)) return fmi3Error;
    fj_fmu_status status = FJ_FMU_OK;
    for (size_t i = 0; i < nValueReferences; i++)
        status = worse(status, wrong_type(inst, "fmi3SetBinary", valueReferences[i], "Binary"));
    return done(inst, status);
}

fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                        fmi3Clock values[]) {
    (void)valueReferences, (void)nValueReferences, (void)values;
    NOT_SUPPORTED("fmi3GetClock", "the FMU has no clocks");
}

fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[], size_t nValueReferences,
                        const fmi3Clock values[]) {
    (void)valueReferences, (void)nValueReferences, (void)values;
    NOT_SUPPORTED("fmi3SetClock", "the FMU has no clocks");
}

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance, fmi3ValueReference valueReference,
                                               size_t *nDependencies) {
    (void)valueReference, (void)nDependencies;
    NOT_SUPPORTED("fmi3GetNumberOfVariableDependencies", "providesPerElementDependencies is false; the dependencies "
                                                         "are in the modelDescription");
}

fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                       size_t elementIndicesOfDependent[], fmi3ValueReference independents[],
                                       size_t elementIndicesOfIndependents[], fmi3DependencyKind dependencyKinds[],
                                       size_t nDependencies) {
    (void)dependent, (void)elementIndicesOfDependent, (void)independents, (void)elementIndicesOfIndependents;
    (void)dependencyKinds, (void)nDependencies;
    NOT_SUPPORTED("fmi3GetVariableDependencies", "providesPerElementDependencies is false; the dependencies are in the "
                                                 "modelDescription");
}

/* ==================================================================================================
 * FMU state
 * ================================================================================================== */

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *FMUState) {
    BEGIN("fmi3GetFMUState", ANY_STATE);
    return done(inst, fj_fmu_save(inst->fmu, "fmi3GetFMUState", "FMUState", inst->state, (fj_fmu_saved **)FMUState));
}

fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState) {
    BEGIN("fmi3SetFMUState", ANY_STATE);
    int state = INSTANTIATED;
    fj_fmu_status status = fj_fmu_restore(inst->fmu, "fmi3SetFMUState", "FMUState", FMUState, &state);
    if (status != FJ_FMU_ERROR) inst->state = state;
    return done(inst, status);
}

fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *FMUState) {
    BEGIN("fmi3FreeFMUState", ANY_STATE);
    fj_fmu_saved_free((fj_fmu_saved **)FMUState);
    return fmi3OK;
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState, size_t *size) {
    BEGIN("fmi3SerializedFMUStateSize", ANY_STATE);
    return done(inst, fj_fmu_serialized_size(inst->fmu, "fmi3SerializedFMUStateSize", "FMUState", FMUState, size));
}

fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState, fmi3Byte serializedState[],
                                 size_t size) {
    BEGIN("fmi3SerializeFMUState", ANY_STATE);
    return done(inst, fj_fmu_serialize(inst->fmu, "fmi3SerializeFMUState",
                                       "FMUState", FMUState, serializedState, size));
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[], size_t size,
                                   fmi3FMUState *FMUState) {
    BEGIN("fmi3DeserializeFMUState", ANY_STATE);
    return done(inst, fj_fmu_deserialize(inst->fmu, "fmi3DeserializeFMUState", "FMUState", serializedState, size,
                                         (fj_fmu_saved **)FMUState));
}

/* ==================================================================================================
 * What this FMU does not have: derivatives, configuration mode, clocks, event mode, model exchange
 * ================================================================================================== */

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[], size_t nUnknowns,
                                        const fmi3ValueReference knowns[], size_t nKnowns, const fmi3Float64 seed[],
                                        size_t nSeed, fmi3Float64 sensitivity[], size_t nSensitivity) {
    (void)unknowns, (void)nUnknowns, (void)knowns, (void)nKnowns, (void)seed, (void)nSeed, (void)sensitivity;
    (void)nSensitivity;
    NOT_SUPPORTED("fmi3GetDirectionalDerivative", "providesDirectionalDerivatives is false");
}

fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[], size_t nUnknowns,
                                    const fmi3ValueReference knowns[], size_t nKnowns, const fmi3Float64 seed[],
                                    size_t nSeed, fmi3Float64 sensitivity[], size_t nSensitivity) {
    (void)unknowns, (void)nUnknowns, (void)knowns, (void)nKnowns, (void)seed, (void)nSeed, (void)sensitivity;
    (void)nSensitivity;
    NOT_SUPPORTED("fmi3GetAdjointDerivative", "providesAdjointDerivatives is false");
}

fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance) {
    NOT_SUPPORTED("fmi3EnterConfigurationMode", "the FMU has no structural parameters");
}

fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance) {
    NOT_SUPPORTED("fmi3ExitConfigurationMode", "the FMU has no structural parameters");
}

fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                  size_t nValueReferences, fmi3Float64 intervals[], fmi3IntervalQualifier qualifiers[]) {
    (void)valueReferences, (void)nValueReferences, (void)intervals, (void)qualifiers;
    NOT_SUPPORTED("fmi3GetIntervalDecimal", "the FMU has no clocks");
}

fmi3Status fmi3GetIntervalFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                   size_t nValueReferences, fmi3UInt64 counters[], fmi3UInt64 resolutions[],
                                   fmi3IntervalQualifier qualifiers[]) {
    (void)valueReferences, (void)nValueReferences, (void)counters, (void)resolutions, (void)qualifiers;
    NOT_SUPPORTED("fmi3GetIntervalFraction", "the FMU has no clocks");
}

fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                               size_t nValueReferences, fmi3Float64 shifts[]) {
    (void)valueReferences, (void)nValueReferences, (void)shifts;
    NOT_SUPPORTED("fmi3GetShiftDecimal", "the FMU has no clocks");
}

fmi3Status fmi3GetShiftFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                size_t nValueReferences, fmi3UInt64 counters[], fmi3UInt64 resolutions[]) {
    (void)valueReferences, (void)nValueReferences, (void)counters, (void)resolutions;
    NOT_SUPPORTED("fmi3GetShiftFraction", "the FMU has no clocks");
}

fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                  size_t nValueReferences, const fmi3Float64 intervals[]) {
    (void)valueReferences, (void)nValueReferences, (void)intervals;
    NOT_SUPPORTED("fmi3SetIntervalDecimal", "the FMU has no clocks");
}

fmi3Status fmi3SetIntervalFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                   size_t nValueReferences, const fmi3UInt64 counters[],
                                   const fmi3UInt64 resolutions[]) {
    (void)valueReferences, (void)nValueReferences, (void)counters, (void)resolutions;
    NOT_SUPPORTED("fmi3SetIntervalFraction", "the FMU has no clocks");
}

fmi3Status fmi3SetShiftDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                               size_t nValueReferences, const fmi3Float64 shifts[]) {
    (void)valueReferences, (void)nValueReferences, (void)shifts;
    NOT_SUPPORTED("fmi3SetShiftDecimal", "the FMU has no clocks");
}

fmi3Status fmi3SetShiftFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                size_t nValueReferences, const fmi3UInt64 counters[], const fmi3UInt64 resolutions[]) {
    (void)valueReferences, (void)nValueReferences, (void)counters, (void)resolutions;
    NOT_SUPPORTED("fmi3SetShiftFraction", "the FMU has no clocks");
}

fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance) {
    NOT_SUPPORTED("fmi3EvaluateDiscreteStates", "the FMU has no event mode");
}

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean *discreteStatesNeedUpdate,
                                    fmi3Boolean *terminateSimulation, fmi3Boolean *nominalsOfContinuousStatesChanged,
                                    fmi3Boolean *valuesOfContinuousStatesChanged, fmi3Boolean *nextEventTimeDefined,
                                    fmi3Float64 *nextEventTime) {
    (void)discreteStatesNeedUpdate, (void)terminateSimulation, (void)nominalsOfContinuousStatesChanged;
    (void)valuesOfContinuousStatesChanged, (void)nextEventTimeDefined, (void)nextEventTime;
    NOT_SUPPORTED("fmi3UpdateDiscreteStates", "the FMU has no event mode");
}

#define MODEL_EXCHANGE "the FMU has co-simulation only"

fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance) {
    NOT_SUPPORTED("fmi3EnterContinuousTimeMode", MODEL_EXCHANGE);
}

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean *enterEventMode, fmi3Boolean *terminateSimulation) {
    (void)noSetFMUStatePriorToCurrentPoint, (void)enterEventMode, (void)terminateSimulation;
    NOT_SUPPORTED("fmi3CompletedIntegratorStep", MODEL_EXCHANGE);
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time) {
    (void)time;
    NOT_SUPPORTED("fmi3SetTime", MODEL_EXCHANGE);
}

fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                   size_t nContinuousStates) {
    (void)continuousStates, (void)nContinuousStates;
    NOT_SUPPORTED("fmi3SetContinuousStates", MODEL_EXCHANGE);
}

fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                             size_t nContinuousStates) {
    (void)derivatives, (void)nContinuousStates;
    NOT_SUPPORTED("fmi3GetContinuousStateDerivatives", MODEL_EXCHANGE);
}

fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[], size_t nEventIndicators) {
    (void)eventIndicators, (void)nEventIndicators;
    NOT_SUPPORTED("fmi3GetEventIndicators", MODEL_EXCHANGE);
}

fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[], size_t nContinuousStates) {
    (void)continuousStates, (void)nContinuousStates;
    NOT_SUPPORTED("fmi3GetContinuousStates", MODEL_EXCHANGE);
}

fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[],
                                             size_t nContinuousStates) {
    (void)nominals, (void)nContinuousStates;
    NOT_SUPPORTED("fmi3GetNominalsOfContinuousStates", MODEL_EXCHANGE);
}

fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators) {
    (void)nEventIndicators;
    NOT_SUPPORTED("fmi3GetNumberOfEventIndicators", MODEL_EXCHANGE);
}

fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates) {
    (void)nContinuousStates;
    NOT_SUPPORTED("fmi3GetNumberOfContinuousStates", MODEL_EXCHANGE);
}

fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime) {
    (void)clockReference, (void)activationTime;
    NOT_SUPPORTED("fmi3ActivateModelPartition", "the FMU has no scheduled execution");
}

/* ==================================================================================================
 * Co-simulation
 * ================================================================================================== */

fmi3Status fmi3EnterStepMode(fmi3Instance instance) {
    NOT_SUPPORTED("fmi3EnterStepMode", "the FMU has no event mode: it is in step mode after initialization");
}

fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Int32 orders[], fmi3Float64 values[],
                                    size_t nValues) {
    (void)valueReferences, (void)nValueReferences, (void)orders, (void)values, (void)nValues;
    NOT_SUPPORTED("fmi3GetOutputDerivatives", "maxOutputDerivativeOrder is 0");
}

fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint, fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint, fmi3Boolean *eventHandlingNeeded,
                      fmi3Boolean *terminateSimulation, fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime) {
    (void)noSetFMUStatePriorToCurrentPoint;
    BEGIN("fmi3DoStep", STEP_MODE);
    fj_fmu_status status = fj_fmu_step(inst->fmu, "fmi3DoStep", currentCommunicationPoint, communicationStepSize);
    if (eventHandlingNeeded) *eventHandlingNeeded = fmi3False;
    if (terminateSimulation) *terminateSimulation = fmi3False;
    if (earlyReturn) *earlyReturn = fmi3False;
    if (lastSuccessfulTime) *lastSuccessfulTime = fj_fmu_time(inst->fmu);
    return done(inst, status);
}
