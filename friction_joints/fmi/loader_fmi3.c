/* The FMI 3.0 half of the Python loader of a friction_joints FMU (Linux): the fmi3 functions.
 *
 * loader_python.c makes Python run and loads pythonfmu3's binary <id>-pythonfmu.so; this file resolves
 * its FMI 3.0 functions into a table and forwards every fmi3 call to it, as loader_fmi2.c does for
 * FMI 2.0:
 *
 * - Each instance the host sees is the loader's (Instance), holding pythonfmu3's. pythonfmu3 returns
 *   fmi3OK from a setter or exitInitializationMode whenever Python returns (an exception becomes
 *   fmi3Fatal); the slave logs every failure with fmi3Error status at the call where it happens
 *   (friction_joints/fmi/slave.py, fmi3.py), so the loader's logger (relay) notes the worst status
 *   logged during a call, and the call returns fmi3Error (fmi3Fatal) when such a message was logged.
 *   Messages of status fmi3Error and fmi3Fatal always reach the host's logger; the others pass the
 *   host's debug logging (loggingOn, fmi3SetDebugLogging) as pythonfmu3 would filter them, which is
 *   instantiated with logging on so that the loader sees every failure. A call returns the worst
 *   status logged during it when that is worse than pythonfmu3's (fmi3Warning too), and a message
 *   without a category gets the one of its status (category_of).
 * - fmi3InstantiateCoSimulation checks what pythonfmu3 would crash or hang on first: the
 *   instantiation token (FMU_TOKEN, the modelDescription's, defined when the loader is compiled) and
 *   the resources folder (loader_resources.c).
 * - The experiment: pythonfmu3 0.3.4's fmi3EnterInitializationMode drops its arguments (start and
 *   stop time, tolerance). The loader first passes them to the slave through fmi3SetFloat64 with the
 *   value references EXPERIMENT_START to EXPERIMENT_START + 2 (NaN: not defined), which
 *   friction_joints/fmi/fmi3.py (EXPERIMENT_REFERENCES) hands to the slave's setup_experiment.
 * - The FMUs are co-simulation FMUs: fmi3InstantiateModelExchange and fmi3InstantiateScheduledExecution
 *   return NULL with a message; a function that pythonfmu3's binary lacks returns fmi3Error.
 *
 * FMI 3.0 log messages are plain text (not printf formats, unlike FMI 2.0's).
 */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3Functions.h"
#include "loader_python.h"

#ifndef FMU_TOKEN
#error "compile with -DFMU_TOKEN=<the modelDescription's instantiationToken as a C string> (friction_joints/fmi/loader.py)"
#endif

/* fmi3SetFloat64 value references of startTime, stopTime and tolerance (fmi3.py: EXPERIMENT_REFERENCES) */
#define EXPERIMENT_START 268435453u /* 2^28 - 3 */

/* The forwarding table: pythonfmu3's functions (NULL where its binary lacks one). */
typedef struct {
    fmi3InstantiateCoSimulationTYPE *fmi3InstantiateCoSimulation;
    fmi3FreeInstanceTYPE *fmi3FreeInstance;
    fmi3EnterInitializationModeTYPE *fmi3EnterInitializationMode;
    fmi3ExitInitializationModeTYPE *fmi3ExitInitializationMode;
    fmi3EnterEventModeTYPE *fmi3EnterEventMode;
    fmi3TerminateTYPE *fmi3Terminate;
    fmi3ResetTYPE *fmi3Reset;
    fmi3GetFloat32TYPE *fmi3GetFloat32;
    fmi3GetFloat64TYPE *fmi3GetFloat64;
    fmi3GetInt8TYPE *fmi3GetInt8;
    fmi3GetUInt8TYPE *fmi3GetUInt8;
    fmi3GetInt16TYPE *fmi3GetInt16;
    fmi3GetUInt16TYPE *fmi3GetUInt16;
    fmi3GetInt32TYPE *fmi3GetInt32;
    fmi3GetUInt32TYPE *fmi3GetUInt32;
    fmi3GetInt64TYPE *fmi3GetInt64;
    fmi3GetUInt64TYPE *fmi3GetUInt64;
    fmi3GetBooleanTYPE *fmi3GetBoolean;
    fmi3GetStringTYPE *fmi3GetString;
    fmi3GetBinaryTYPE *fmi3GetBinary;
    fmi3GetClockTYPE *fmi3GetClock;
    fmi3SetFloat32TYPE *fmi3SetFloat32;
    fmi3SetFloat64TYPE *fmi3SetFloat64;
    fmi3SetInt8TYPE *fmi3SetInt8;
    fmi3SetUInt8TYPE *fmi3SetUInt8;
    fmi3SetInt16TYPE *fmi3SetInt16;
    fmi3SetUInt16TYPE *fmi3SetUInt16;
    fmi3SetInt32TYPE *fmi3SetInt32;
    fmi3SetUInt32TYPE *fmi3SetUInt32;
    fmi3SetInt64TYPE *fmi3SetInt64;
    fmi3SetUInt64TYPE *fmi3SetUInt64;
    fmi3SetBooleanTYPE *fmi3SetBoolean;
    fmi3SetStringTYPE *fmi3SetString;
    fmi3SetBinaryTYPE *fmi3SetBinary;
    fmi3SetClockTYPE *fmi3SetClock;
    fmi3GetNumberOfVariableDependenciesTYPE *fmi3GetNumberOfVariableDependencies;
    fmi3GetVariableDependenciesTYPE *fmi3GetVariableDependencies;
    fmi3GetFMUStateTYPE *fmi3GetFMUState;
    fmi3SetFMUStateTYPE *fmi3SetFMUState;
    fmi3FreeFMUStateTYPE *fmi3FreeFMUState;
    fmi3SerializedFMUStateSizeTYPE *fmi3SerializedFMUStateSize;
    fmi3SerializeFMUStateTYPE *fmi3SerializeFMUState;
    fmi3DeserializeFMUStateTYPE *fmi3DeserializeFMUState;
    fmi3GetDirectionalDerivativeTYPE *fmi3GetDirectionalDerivative;
    fmi3GetAdjointDerivativeTYPE *fmi3GetAdjointDerivative;
    fmi3EnterConfigurationModeTYPE *fmi3EnterConfigurationMode;
    fmi3ExitConfigurationModeTYPE *fmi3ExitConfigurationMode;
    fmi3GetIntervalDecimalTYPE *fmi3GetIntervalDecimal;
    fmi3GetIntervalFractionTYPE *fmi3GetIntervalFraction;
    fmi3GetShiftDecimalTYPE *fmi3GetShiftDecimal;
    fmi3GetShiftFractionTYPE *fmi3GetShiftFraction;
    fmi3SetIntervalDecimalTYPE *fmi3SetIntervalDecimal;
    fmi3SetIntervalFractionTYPE *fmi3SetIntervalFraction;
    fmi3SetShiftDecimalTYPE *fmi3SetShiftDecimal;
    fmi3SetShiftFractionTYPE *fmi3SetShiftFraction;
    fmi3EvaluateDiscreteStatesTYPE *fmi3EvaluateDiscreteStates;
    fmi3UpdateDiscreteStatesTYPE *fmi3UpdateDiscreteStates;
    fmi3EnterContinuousTimeModeTYPE *fmi3EnterContinuousTimeMode;
    fmi3CompletedIntegratorStepTYPE *fmi3CompletedIntegratorStep;
    fmi3SetTimeTYPE *fmi3SetTime;
    fmi3SetContinuousStatesTYPE *fmi3SetContinuousStates;
    fmi3GetContinuousStateDerivativesTYPE *fmi3GetContinuousStateDerivatives;
    fmi3GetEventIndicatorsTYPE *fmi3GetEventIndicators;
    fmi3GetContinuousStatesTYPE *fmi3GetContinuousStates;
    fmi3GetNominalsOfContinuousStatesTYPE *fmi3GetNominalsOfContinuousStates;
    fmi3GetNumberOfEventIndicatorsTYPE *fmi3GetNumberOfEventIndicators;
    fmi3GetNumberOfContinuousStatesTYPE *fmi3GetNumberOfContinuousStates;
    fmi3EnterStepModeTYPE *fmi3EnterStepMode;
    fmi3GetOutputDerivativesTYPE *fmi3GetOutputDerivatives;
    fmi3DoStepTYPE *fmi3DoStep;
    fmi3ActivateModelPartitionTYPE *fmi3ActivateModelPartition;
} Table;

/* What resolve() finds out, written inside pthread_once and read after it. */
static struct {
    int ok;                   /* the table is usable */
    Table table;
    char error[MESSAGE_SIZE]; /* why not ok */
} loaded;

static pthread_once_t once = PTHREAD_ONCE_INIT;

#define RESOLVE(name) loaded.table.name = (name##TYPE *)dlsym(original->handle, #name)

static void resolve(void)
{
    const Original *original = original_binary();
    if (!original->ok) {
        snprintf(loaded.error, sizeof loaded.error, "%s", original->error);
        return;
    }
    RESOLVE(fmi3InstantiateCoSimulation);
    RESOLVE(fmi3FreeInstance);
    RESOLVE(fmi3EnterInitializationMode);
    RESOLVE(fmi3ExitInitializationMode);
    RESOLVE(fmi3EnterEventMode);
    RESOLVE(fmi3Terminate);
    RESOLVE(fmi3Reset);
    RESOLVE(fmi3GetFloat32);
    RESOLVE(fmi3GetFloat64);
    RESOLVE(fmi3GetInt8);
    RESOLVE(fmi3GetUInt8);
    RESOLVE(fmi3GetInt16);
    RESOLVE(fmi3GetUInt16);
    RESOLVE(fmi3GetInt32);
    RESOLVE(fmi3GetUInt32);
    RESOLVE(fmi3GetInt64);
    RESOLVE(fmi3GetUInt64);
    RESOLVE(fmi3GetBoolean);
    RESOLVE(fmi3GetString);
    RESOLVE(fmi3GetBinary);
    RESOLVE(fmi3GetClock);
    RESOLVE(fmi3SetFloat32);
    RESOLVE(fmi3SetFloat64);
    RESOLVE(fmi3SetInt8);
    RESOLVE(fmi3SetUInt8);
    RESOLVE(fmi3SetInt16);
    RESOLVE(fmi3SetUInt16);
    RESOLVE(fmi3SetInt32);
    RESOLVE(fmi3SetUInt32);
    RESOLVE(fmi3SetInt64);
    RESOLVE(fmi3SetUInt64);
    RESOLVE(fmi3SetBoolean);
    RESOLVE(fmi3SetString);
    RESOLVE(fmi3SetBinary);
    RESOLVE(fmi3SetClock);
    RESOLVE(fmi3GetNumberOfVariableDependencies);
    RESOLVE(fmi3GetVariableDependencies);
    RESOLVE(fmi3GetFMUState);
    RESOLVE(fmi3SetFMUState);
    RESOLVE(fmi3FreeFMUState);
    RESOLVE(fmi3SerializedFMUStateSize);
    RESOLVE(fmi3SerializeFMUState);
    RESOLVE(fmi3DeserializeFMUState);
    RESOLVE(fmi3GetDirectionalDerivative);
    RESOLVE(fmi3GetAdjointDerivative);
    RESOLVE(fmi3EnterConfigurationMode);
    RESOLVE(fmi3ExitConfigurationMode);
    RESOLVE(fmi3GetIntervalDecimal);
    RESOLVE(fmi3GetIntervalFraction);
    RESOLVE(fmi3GetShiftDecimal);
    RESOLVE(fmi3GetShiftFraction);
    RESOLVE(fmi3SetIntervalDecimal);
    RESOLVE(fmi3SetIntervalFraction);
    RESOLVE(fmi3SetShiftDecimal);
    RESOLVE(fmi3SetShiftFraction);
    RESOLVE(fmi3EvaluateDiscreteStates);
    RESOLVE(fmi3UpdateDiscreteStates);
    RESOLVE(fmi3EnterContinuousTimeMode);
    RESOLVE(fmi3CompletedIntegratorStep);
    RESOLVE(fmi3SetTime);
    RESOLVE(fmi3SetContinuousStates);
    RESOLVE(fmi3GetContinuousStateDerivatives);
    RESOLVE(fmi3GetEventIndicators);
    RESOLVE(fmi3GetContinuousStates);
    RESOLVE(fmi3GetNominalsOfContinuousStates);
    RESOLVE(fmi3GetNumberOfEventIndicators);
    RESOLVE(fmi3GetNumberOfContinuousStates);
    RESOLVE(fmi3EnterStepMode);
    RESOLVE(fmi3GetOutputDerivatives);
    RESOLVE(fmi3DoStep);
    RESOLVE(fmi3ActivateModelPartition);
    if (!loaded.table.fmi3InstantiateCoSimulation || !loaded.table.fmi3FreeInstance) {
        snprintf(loaded.error, sizeof loaded.error, "%.2048s exports no fmi3InstantiateCoSimulation/fmi3FreeInstance",
                 original->path);
        return;
    }
    loaded.ok = 1;
}

/* The forwarding table, loading everything on the first call (from any thread); NULL when loading
 * failed. */
static const Table *table(void)
{
    pthread_once(&once, resolve);
    return loaded.ok ? &loaded.table : NULL;
}

/* The host's logger with message, or stderr without one. */
static void log_message(fmi3LogMessageCallback logger, fmi3InstanceEnvironment environment, fmi3Status status,
                        fmi3String category, fmi3String message)
{
    if (logger)
        logger(environment, status, category_of(category, status), message);
    else
        fprintf(stderr, "%s\n", message);
}

/* ---------------------------------------------------------------------------------------------- */
/* Instances and their status (see the file's comment)                                             */

typedef struct {
    fmi3Instance inner;                        /* pythonfmu3's instance */
    fmi3LogMessageCallback host_logger;        /* the host's logger and its environment */
    fmi3InstanceEnvironment host_environment;
    fmi3Status logged;                         /* the worst status logged during the current call */
    Logging logging;                           /* the host's debug logging */
} Instance;

/* pythonfmu3's logger, with this Instance as environment. */
static void relay(fmi3InstanceEnvironment environment, fmi3Status status, fmi3String category, fmi3String message)
{
    Instance *instance = (Instance *)environment;
    int failure = status == fmi3Error || status == fmi3Fatal;
    category = category_of(category, status);
    if (status != fmi3Discard && status > instance->logged)
        instance->logged = status;
    if (instance->host_logger && (failure || logging_allows(&instance->logging, category)))
        instance->host_logger(instance->host_environment, status, category, message);
}

/* The status of a call that pythonfmu3's function returned as status: the worst of it and the
 * statuses logged during the call. */
static fmi3Status with_logged(const Instance *instance, fmi3Status status)
{
    return status < instance->logged ? instance->logged : status;
}

/* ---------------------------------------------------------------------------------------------- */
/* The FMI 3.0 functions                                                                          */

FMI3_Export const char *fmi3GetVersion(void)
{
    return fmi3Version;
}

FMI3_Export fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
    const fmi3ValueReference requiredIntermediateVariables[], size_t nRequiredIntermediateVariables,
    fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
    fmi3IntermediateUpdateCallback intermediateUpdate)
{
    const Table *t;
    Instance *instance;
    char text[2 * MESSAGE_SIZE], folder[PATH_MAX + 1], why[MESSAGE_SIZE];
    if (!instanceName || !*instanceName) {
        snprintf(text, sizeof text, "fmi3InstantiateCoSimulation: instanceName is %s", instanceName ? "empty" : "NULL");
        log_message(logMessage, instanceEnvironment, fmi3Error, "logStatusError", text);
        return NULL;
    }
    if (!instantiationToken || strcmp(instantiationToken, FMU_TOKEN) != 0) {
        snprintf(text, sizeof text, "fmi3InstantiateCoSimulation: instantiationToken %s%.1024s%s is not this FMU's "
                 "token %s", instantiationToken ? "\"" : "", instantiationToken ? instantiationToken : "NULL",
                 instantiationToken ? "\"" : "", FMU_TOKEN);
        log_message(logMessage, instanceEnvironment, fmi3Error, "logStatusError", text);
        return NULL;
    }
    if (resource_folder(resourcePath, folder, sizeof folder - 1, why, sizeof why) != 0) {
        snprintf(text, sizeof text, "fmi3InstantiateCoSimulation: %s", why);
        log_message(logMessage, instanceEnvironment, fmi3Error, "logStatusError", text);
        return NULL;
    }
    strcat(folder, "/"); /* FMI 3.0: a resourcePath ends with a separator */
    t = table();
    if (!t) {
        log_message(logMessage, instanceEnvironment, fmi3Error, "logStatusError", loaded.error);
        return NULL;
    }
    if (original_binary()->notice[0])
        log_message(logMessage, instanceEnvironment, fmi3Warning, "logStatusWarning", original_binary()->notice);
    instance = (Instance *)calloc(1, sizeof *instance);
    if (!instance) {
        log_message(logMessage, instanceEnvironment, fmi3Error, "logStatusError", "the FMU's loader is out of memory");
        return NULL;
    }
    instance->host_logger = logMessage;
    instance->host_environment = instanceEnvironment;
    instance->logging.on = loggingOn;
    instance->inner = t->fmi3InstantiateCoSimulation(instanceName, instantiationToken, folder, visible, fmi3True,
                                                     eventModeUsed, earlyReturnAllowed, requiredIntermediateVariables,
                                                     nRequiredIntermediateVariables, instance, relay,
                                                     intermediateUpdate);
    if (!instance->inner) {
        snprintf(text, sizeof text, "pythonfmu3's fmi3InstantiateCoSimulation failed (see above) with %s",
                 original_binary()->python);
        log_message(logMessage, instanceEnvironment, fmi3Error, "logStatusError", text);
        free(instance);
        return NULL;
    }
    return instance;
}

/* Model Exchange and Scheduled Execution: not offered (the modelDescription declares co-simulation). */
static fmi3Instance not_offered(fmi3InstanceEnvironment environment, fmi3LogMessageCallback logMessage,
                                const char *interface)
{
    char text[256];
    snprintf(text, sizeof text, "this FMU offers co-simulation only, not %s", interface);
    log_message(logMessage, environment, fmi3Error, "logStatusError", text);
    return NULL;
}

FMI3_Export fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String instantiationToken,
                                                      fmi3String resourcePath, fmi3Boolean visible,
                                                      fmi3Boolean loggingOn,
                                                      fmi3InstanceEnvironment instanceEnvironment,
                                                      fmi3LogMessageCallback logMessage)
{
    (void)instanceName, (void)instantiationToken, (void)resourcePath, (void)visible, (void)loggingOn;
    return not_offered(instanceEnvironment, logMessage, "model exchange");
}

FMI3_Export fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
    fmi3ClockUpdateCallback clockUpdate, fmi3LockPreemptionCallback lockPreemption,
    fmi3UnlockPreemptionCallback unlockPreemption)
{
    (void)instanceName, (void)instantiationToken, (void)resourcePath, (void)visible, (void)loggingOn;
    (void)clockUpdate, (void)lockPreemption, (void)unlockPreemption;
    return not_offered(instanceEnvironment, logMessage, "scheduled execution");
}

FMI3_Export void fmi3FreeInstance(fmi3Instance instance)
{
    const Table *t = table();
    Instance *self = (Instance *)instance;
    if (!self)
        return;
    if (t) {
        t->fmi3FreeInstance(self->inner); /* may still log through relay */
        collect_python_garbage(); /* the released instance's reference cycles, now */
    }
    logging_free(&self->logging);
    free(self);
}

/* Debug logging is filtered here (see Instance); pythonfmu3 keeps logging everything. */
FMI3_Export fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                                           const fmi3String categories[])
{
    Instance *self = (Instance *)instance;
    if (!self || logging_set(&self->logging, loggingOn, nCategories, categories) != 0)
        return fmi3Error;
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                                   fmi3Float64 tolerance, fmi3Float64 startTime,
                                                   fmi3Boolean stopTimeDefined, fmi3Float64 stopTime)
{
    const Table *t = table();
    Instance *self = (Instance *)instance;
    const fmi3ValueReference references[3] = {EXPERIMENT_START, EXPERIMENT_START + 1, EXPERIMENT_START + 2};
    const fmi3Float64 values[3] = {startTime, stopTimeDefined ? stopTime : NAN, toleranceDefined ? tolerance : NAN};
    fmi3Status passed, entered;
    if (!t || !t->fmi3SetFloat64 || !t->fmi3EnterInitializationMode || !self)
        return fmi3Error;
    self->logged = fmi3OK;
    passed = t->fmi3SetFloat64(self->inner, references, 3, values, 3);
    entered = t->fmi3EnterInitializationMode(self->inner, toleranceDefined, tolerance, startTime, stopTimeDefined,
                                             stopTime);
    return with_logged(self, passed > entered ? passed : entered);
}

/* All the other functions return a status: forward each call to pythonfmu3's instance and return its
 * status, raised to fmi3Error where the slave logged a failure during the call; fmi3Error where
 * pythonfmu3's binary lacks the function. */
#define FORWARD(name, ...)                                   \
    const Table *t = table();                                \
    Instance *self = (Instance *)instance;                   \
    if (!t || !t->name || !self)                             \
        return fmi3Error;                                    \
    self->logged = fmi3OK;                                   \
    return with_logged(self, t->name(self->inner, __VA_ARGS__))

#define FORWARD0(name)                                       \
    const Table *t = table();                                \
    Instance *self = (Instance *)instance;                   \
    if (!t || !t->name || !self)                             \
        return fmi3Error;                                    \
    self->logged = fmi3OK;                                   \
    return with_logged(self, t->name(self->inner))

FMI3_Export fmi3Status fmi3ExitInitializationMode(fmi3Instance instance)
{
    FORWARD0(fmi3ExitInitializationMode);
}

FMI3_Export fmi3Status fmi3EnterEventMode(fmi3Instance instance)
{
    FORWARD0(fmi3EnterEventMode);
}

FMI3_Export fmi3Status fmi3Terminate(fmi3Instance instance)
{
    FORWARD0(fmi3Terminate);
}

FMI3_Export fmi3Status fmi3Reset(fmi3Instance instance)
{
    FORWARD0(fmi3Reset);
}

FMI3_Export fmi3Status fmi3GetFloat32(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, fmi3Float32 values[], size_t nValues)
{
    FORWARD(fmi3GetFloat32, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, fmi3Float64 values[], size_t nValues)
{
    FORWARD(fmi3GetFloat64, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3GetInt8(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                   size_t nValueReferences, fmi3Int8 values[], size_t nValues)
{
    FORWARD(fmi3GetInt8, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3GetUInt8(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, fmi3UInt8 values[], size_t nValues)
{
    FORWARD(fmi3GetUInt8, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3GetInt16(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, fmi3Int16 values[], size_t nValues)
{
    FORWARD(fmi3GetInt16, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3GetUInt16(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, fmi3UInt16 values[], size_t nValues)
{
    FORWARD(fmi3GetUInt16, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, fmi3Int32 values[], size_t nValues)
{
    FORWARD(fmi3GetInt32, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3GetUInt32(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, fmi3UInt32 values[], size_t nValues)
{
    FORWARD(fmi3GetUInt32, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3GetInt64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, fmi3Int64 values[], size_t nValues)
{
    FORWARD(fmi3GetInt64, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3GetUInt64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, fmi3UInt64 values[], size_t nValues)
{
    FORWARD(fmi3GetUInt64, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3GetBoolean(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, fmi3Boolean values[], size_t nValues)
{
    FORWARD(fmi3GetBoolean, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3GetString(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, fmi3String values[], size_t nValues)
{
    FORWARD(fmi3GetString, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, size_t valueSizes[], fmi3Binary values[],
                                     size_t nValues)
{
    FORWARD(fmi3GetBinary, valueReferences, nValueReferences, valueSizes, values, nValues);
}

FMI3_Export fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, fmi3Clock values[])
{
    FORWARD(fmi3GetClock, valueReferences, nValueReferences, values);
}

FMI3_Export fmi3Status fmi3SetFloat32(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, const fmi3Float32 values[], size_t nValues)
{
    FORWARD(fmi3SetFloat32, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, const fmi3Float64 values[], size_t nValues)
{
    FORWARD(fmi3SetFloat64, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3SetInt8(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                   size_t nValueReferences, const fmi3Int8 values[], size_t nValues)
{
    FORWARD(fmi3SetInt8, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3SetUInt8(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3UInt8 values[], size_t nValues)
{
    FORWARD(fmi3SetUInt8, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3SetInt16(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Int16 values[], size_t nValues)
{
    FORWARD(fmi3SetInt16, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3SetUInt16(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, const fmi3UInt16 values[], size_t nValues)
{
    FORWARD(fmi3SetUInt16, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Int32 values[], size_t nValues)
{
    FORWARD(fmi3SetInt32, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3SetUInt32(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, const fmi3UInt32 values[], size_t nValues)
{
    FORWARD(fmi3SetUInt32, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3SetInt64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Int64 values[], size_t nValues)
{
    FORWARD(fmi3SetInt64, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3SetUInt64(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, const fmi3UInt64 values[], size_t nValues)
{
    FORWARD(fmi3SetUInt64, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3SetBoolean(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                      size_t nValueReferences, const fmi3Boolean values[], size_t nValues)
{
    FORWARD(fmi3SetBoolean, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3SetString(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, const fmi3String values[], size_t nValues)
{
    FORWARD(fmi3SetString, valueReferences, nValueReferences, values, nValues);
}

FMI3_Export fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                     size_t nValueReferences, const size_t valueSizes[], const fmi3Binary values[],
                                     size_t nValues)
{
    FORWARD(fmi3SetBinary, valueReferences, nValueReferences, valueSizes, values, nValues);
}

FMI3_Export fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Clock values[])
{
    FORWARD(fmi3SetClock, valueReferences, nValueReferences, values);
}

FMI3_Export fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance, fmi3ValueReference valueReference,
                                                           size_t* nDependencies)
{
    FORWARD(fmi3GetNumberOfVariableDependencies, valueReference, nDependencies);
}

FMI3_Export fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                                   size_t elementIndicesOfDependent[],
                                                   fmi3ValueReference independents[],
                                                   size_t elementIndicesOfIndependents[],
                                                   fmi3DependencyKind dependencyKinds[], size_t nDependencies)
{
    FORWARD(fmi3GetVariableDependencies,
            dependent, elementIndicesOfDependent, independents, elementIndicesOfIndependents, dependencyKinds,
            nDependencies);
}

FMI3_Export fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState* FMUState)
{
    FORWARD(fmi3GetFMUState, FMUState);
}

FMI3_Export fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState FMUState)
{
    FORWARD(fmi3SetFMUState, FMUState);
}

FMI3_Export fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState* FMUState)
{
    FORWARD(fmi3FreeFMUState, FMUState);
}

FMI3_Export fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState FMUState, size_t* size)
{
    FORWARD(fmi3SerializedFMUStateSize, FMUState, size);
}

FMI3_Export fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState FMUState, fmi3Byte serializedState[],
                                             size_t size)
{
    FORWARD(fmi3SerializeFMUState, FMUState, serializedState, size);
}

FMI3_Export fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[], size_t size,
                                               fmi3FMUState* FMUState)
{
    FORWARD(fmi3DeserializeFMUState, serializedState, size, FMUState);
}

FMI3_Export fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[],
                                                    size_t nUnknowns, const fmi3ValueReference knowns[],
                                                    size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                                    fmi3Float64 sensitivity[], size_t nSensitivity)
{
    FORWARD(fmi3GetDirectionalDerivative,
            unknowns, nUnknowns, knowns, nKnowns, seed, nSeed, sensitivity, nSensitivity);
}

FMI3_Export fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[],
                                                size_t nUnknowns, const fmi3ValueReference knowns[], size_t nKnowns,
                                                const fmi3Float64 seed[], size_t nSeed, fmi3Float64 sensitivity[],
                                                size_t nSensitivity)
{
    FORWARD(fmi3GetAdjointDerivative, unknowns, nUnknowns, knowns, nKnowns, seed, nSeed, sensitivity, nSensitivity);
}

FMI3_Export fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance)
{
    FORWARD0(fmi3EnterConfigurationMode);
}

FMI3_Export fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance)
{
    FORWARD0(fmi3ExitConfigurationMode);
}

FMI3_Export fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                              size_t nValueReferences, fmi3Float64 intervals[],
                                              fmi3IntervalQualifier qualifiers[])
{
    FORWARD(fmi3GetIntervalDecimal, valueReferences, nValueReferences, intervals, qualifiers);
}

FMI3_Export fmi3Status fmi3GetIntervalFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                               size_t nValueReferences, fmi3UInt64 counters[],
                                               fmi3UInt64 resolutions[], fmi3IntervalQualifier qualifiers[])
{
    FORWARD(fmi3GetIntervalFraction, valueReferences, nValueReferences, counters, resolutions, qualifiers);
}

FMI3_Export fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                           size_t nValueReferences, fmi3Float64 shifts[])
{
    FORWARD(fmi3GetShiftDecimal, valueReferences, nValueReferences, shifts);
}

FMI3_Export fmi3Status fmi3GetShiftFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                            size_t nValueReferences, fmi3UInt64 counters[], fmi3UInt64 resolutions[])
{
    FORWARD(fmi3GetShiftFraction, valueReferences, nValueReferences, counters, resolutions);
}

FMI3_Export fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                              size_t nValueReferences, const fmi3Float64 intervals[])
{
    FORWARD(fmi3SetIntervalDecimal, valueReferences, nValueReferences, intervals);
}

FMI3_Export fmi3Status fmi3SetIntervalFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                               size_t nValueReferences, const fmi3UInt64 counters[],
                                               const fmi3UInt64 resolutions[])
{
    FORWARD(fmi3SetIntervalFraction, valueReferences, nValueReferences, counters, resolutions);
}

FMI3_Export fmi3Status fmi3SetShiftDecimal(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                           size_t nValueReferences, const fmi3Float64 shifts[])
{
    FORWARD(fmi3SetShiftDecimal, valueReferences, nValueReferences, shifts);
}

FMI3_Export fmi3Status fmi3SetShiftFraction(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                            size_t nValueReferences, const fmi3UInt64 counters[],
                                            const fmi3UInt64 resolutions[])
{
    FORWARD(fmi3SetShiftFraction, valueReferences, nValueReferences, counters, resolutions);
}

FMI3_Export fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance)
{
    FORWARD0(fmi3EvaluateDiscreteStates);
}

FMI3_Export fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean* discreteStatesNeedUpdate,
                                                fmi3Boolean* terminateSimulation,
                                                fmi3Boolean* nominalsOfContinuousStatesChanged,
                                                fmi3Boolean* valuesOfContinuousStatesChanged,
                                                fmi3Boolean* nextEventTimeDefined, fmi3Float64* nextEventTime)
{
    FORWARD(fmi3UpdateDiscreteStates,
            discreteStatesNeedUpdate, terminateSimulation, nominalsOfContinuousStatesChanged,
            valuesOfContinuousStatesChanged, nextEventTimeDefined, nextEventTime);
}

FMI3_Export fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance)
{
    FORWARD0(fmi3EnterContinuousTimeMode);
}

FMI3_Export fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance,
                                                   fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                                   fmi3Boolean* enterEventMode, fmi3Boolean* terminateSimulation)
{
    FORWARD(fmi3CompletedIntegratorStep, noSetFMUStatePriorToCurrentPoint, enterEventMode, terminateSimulation);
}

FMI3_Export fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time)
{
    FORWARD(fmi3SetTime, time);
}

FMI3_Export fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                               size_t nContinuousStates)
{
    FORWARD(fmi3SetContinuousStates, continuousStates, nContinuousStates);
}

FMI3_Export fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                                         size_t nContinuousStates)
{
    FORWARD(fmi3GetContinuousStateDerivatives, derivatives, nContinuousStates);
}

FMI3_Export fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[],
                                              size_t nEventIndicators)
{
    FORWARD(fmi3GetEventIndicators, eventIndicators, nEventIndicators);
}

FMI3_Export fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[],
                                               size_t nContinuousStates)
{
    FORWARD(fmi3GetContinuousStates, continuousStates, nContinuousStates);
}

FMI3_Export fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[],
                                                         size_t nContinuousStates)
{
    FORWARD(fmi3GetNominalsOfContinuousStates, nominals, nContinuousStates);
}

FMI3_Export fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t* nEventIndicators)
{
    FORWARD(fmi3GetNumberOfEventIndicators, nEventIndicators);
}

FMI3_Export fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t* nContinuousStates)
{
    FORWARD(fmi3GetNumberOfContinuousStates, nContinuousStates);
}

FMI3_Export fmi3Status fmi3EnterStepMode(fmi3Instance instance)
{
    FORWARD0(fmi3EnterStepMode);
}

FMI3_Export fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, const fmi3ValueReference valueReferences[],
                                                size_t nValueReferences, const fmi3Int32 orders[],
                                                fmi3Float64 values[], size_t nValues)
{
    FORWARD(fmi3GetOutputDerivatives, valueReferences, nValueReferences, orders, values, nValues);
}

FMI3_Export fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                                  fmi3Float64 communicationStepSize, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                  fmi3Boolean* eventHandlingNeeded, fmi3Boolean* terminateSimulation,
                                  fmi3Boolean* earlyReturn, fmi3Float64* lastSuccessfulTime)
{
    FORWARD(fmi3DoStep,
            currentCommunicationPoint, communicationStepSize, noSetFMUStatePriorToCurrentPoint, eventHandlingNeeded,
            terminateSimulation, earlyReturn, lastSuccessfulTime);
}

FMI3_Export fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                                  fmi3Float64 activationTime)
{
    FORWARD(fmi3ActivateModelPartition, clockReference, activationTime);
}
