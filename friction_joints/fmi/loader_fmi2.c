/* The FMI 2.0 half of the Python loader of a friction_joints FMU (Linux): the fmi2 functions.
 *
 * loader_python.c makes Python run and loads pythonfmu's binary <id>-pythonfmu.so; this file resolves
 * its FMI 2.0 functions into a table and forwards every fmi2 call to it.
 *
 * Each instance the host sees is the loader's (Instance), holding pythonfmu's: its logger is the
 * loader's, which passes the messages on and notes the failures the Python slave logs, so that the
 * call where a failure happens returns fmi2Error (pythonfmu alone can only return fmi2OK or
 * fmi2Discard there); see Instance below.
 *
 * fmi2Instantiate checks what pythonfmu would crash on first: the GUID (FMU_TOKEN, the modelDescription's,
 * defined when the loader is compiled), the FMU type and the resources folder (loader_resources.c).
 */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "loader_python.h"

#ifndef FMU_TOKEN
#error "compile with -DFMU_TOKEN=<the modelDescription's guid as a C string> (friction_joints/fmi/loader.py)"
#endif

/* The forwarding table: pythonfmu's functions (NULL where its binary lacks one). */
typedef struct {
    fmi2SetDebugLoggingTYPE *fmi2SetDebugLogging;
    fmi2InstantiateTYPE *fmi2Instantiate;
    fmi2FreeInstanceTYPE *fmi2FreeInstance;
    fmi2SetupExperimentTYPE *fmi2SetupExperiment;
    fmi2EnterInitializationModeTYPE *fmi2EnterInitializationMode;
    fmi2ExitInitializationModeTYPE *fmi2ExitInitializationMode;
    fmi2TerminateTYPE *fmi2Terminate;
    fmi2ResetTYPE *fmi2Reset;
    fmi2GetRealTYPE *fmi2GetReal;
    fmi2GetIntegerTYPE *fmi2GetInteger;
    fmi2GetBooleanTYPE *fmi2GetBoolean;
    fmi2GetStringTYPE *fmi2GetString;
    fmi2SetRealTYPE *fmi2SetReal;
    fmi2SetIntegerTYPE *fmi2SetInteger;
    fmi2SetBooleanTYPE *fmi2SetBoolean;
    fmi2SetStringTYPE *fmi2SetString;
    fmi2GetFMUstateTYPE *fmi2GetFMUstate;
    fmi2SetFMUstateTYPE *fmi2SetFMUstate;
    fmi2FreeFMUstateTYPE *fmi2FreeFMUstate;
    fmi2SerializedFMUstateSizeTYPE *fmi2SerializedFMUstateSize;
    fmi2SerializeFMUstateTYPE *fmi2SerializeFMUstate;
    fmi2DeSerializeFMUstateTYPE *fmi2DeSerializeFMUstate;
    fmi2GetDirectionalDerivativeTYPE *fmi2GetDirectionalDerivative;
    fmi2EnterEventModeTYPE *fmi2EnterEventMode;
    fmi2NewDiscreteStatesTYPE *fmi2NewDiscreteStates;
    fmi2EnterContinuousTimeModeTYPE *fmi2EnterContinuousTimeMode;
    fmi2CompletedIntegratorStepTYPE *fmi2CompletedIntegratorStep;
    fmi2SetTimeTYPE *fmi2SetTime;
    fmi2SetContinuousStatesTYPE *fmi2SetContinuousStates;
    fmi2GetDerivativesTYPE *fmi2GetDerivatives;
    fmi2GetEventIndicatorsTYPE *fmi2GetEventIndicators;
    fmi2GetContinuousStatesTYPE *fmi2GetContinuousStates;
    fmi2GetNominalsOfContinuousStatesTYPE *fmi2GetNominalsOfContinuousStates;
    fmi2SetRealInputDerivativesTYPE *fmi2SetRealInputDerivatives;
    fmi2GetRealOutputDerivativesTYPE *fmi2GetRealOutputDerivatives;
    fmi2DoStepTYPE *fmi2DoStep;
    fmi2CancelStepTYPE *fmi2CancelStep;
    fmi2GetStatusTYPE *fmi2GetStatus;
    fmi2GetRealStatusTYPE *fmi2GetRealStatus;
    fmi2GetIntegerStatusTYPE *fmi2GetIntegerStatus;
    fmi2GetBooleanStatusTYPE *fmi2GetBooleanStatus;
    fmi2GetStringStatusTYPE *fmi2GetStringStatus;
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
    RESOLVE(fmi2SetDebugLogging);
    RESOLVE(fmi2Instantiate);
    RESOLVE(fmi2FreeInstance);
    RESOLVE(fmi2SetupExperiment);
    RESOLVE(fmi2EnterInitializationMode);
    RESOLVE(fmi2ExitInitializationMode);
    RESOLVE(fmi2Terminate);
    RESOLVE(fmi2Reset);
    RESOLVE(fmi2GetReal);
    RESOLVE(fmi2GetInteger);
    RESOLVE(fmi2GetBoolean);
    RESOLVE(fmi2GetString);
    RESOLVE(fmi2SetReal);
    RESOLVE(fmi2SetInteger);
    RESOLVE(fmi2SetBoolean);
    RESOLVE(fmi2SetString);
    RESOLVE(fmi2GetFMUstate);
    RESOLVE(fmi2SetFMUstate);
    RESOLVE(fmi2FreeFMUstate);
    RESOLVE(fmi2SerializedFMUstateSize);
    RESOLVE(fmi2SerializeFMUstate);
    RESOLVE(fmi2DeSerializeFMUstate);
    RESOLVE(fmi2GetDirectionalDerivative);
    RESOLVE(fmi2EnterEventMode);
    RESOLVE(fmi2NewDiscreteStates);
    RESOLVE(fmi2EnterContinuousTimeMode);
    RESOLVE(fmi2CompletedIntegratorStep);
    RESOLVE(fmi2SetTime);
    RESOLVE(fmi2SetContinuousStates);
    RESOLVE(fmi2GetDerivatives);
    RESOLVE(fmi2GetEventIndicators);
    RESOLVE(fmi2GetContinuousStates);
    RESOLVE(fmi2GetNominalsOfContinuousStates);
    RESOLVE(fmi2SetRealInputDerivatives);
    RESOLVE(fmi2GetRealOutputDerivatives);
    RESOLVE(fmi2DoStep);
    RESOLVE(fmi2CancelStep);
    RESOLVE(fmi2GetStatus);
    RESOLVE(fmi2GetRealStatus);
    RESOLVE(fmi2GetIntegerStatus);
    RESOLVE(fmi2GetBooleanStatus);
    RESOLVE(fmi2GetStringStatus);
    if (!loaded.table.fmi2Instantiate || !loaded.table.fmi2FreeInstance) {
        snprintf(loaded.error, sizeof loaded.error, "%.2048s exports no fmi2Instantiate/fmi2FreeInstance",
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

/* Call the host's logger with a message made from format; '%' is doubled, because a logger takes the
 * message as a printf format (and a host like FMPy prints it as it is). Without a logger: stderr. */
static void log_message(const fmi2CallbackFunctions *functions, fmi2String instance, fmi2Status status,
                        fmi2String category, const char *format, ...)
{
    char text[MESSAGE_SIZE], escaped[2 * MESSAGE_SIZE];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    escape_percent(escaped, sizeof escaped, text);
    if (functions && functions->logger)
        functions->logger(functions->componentEnvironment, instance ? instance : "", status,
                          category_of(category, status), escaped);
    else
        fprintf(stderr, "[%s] %s\n", instance ? instance : "", text);
}

/* ---------------------------------------------------------------------------------------------- */
/* Instances and their status                                                                     */

/* What the loader keeps of one instance; the host holds a pointer to it as its fmi2Component.
 *
 * pythonfmu cannot return fmi2Error: its fmi2SetReal/SetBoolean/ExitInitializationMode return
 * fmi2OK whenever Python returns, and fmi2DoStep returns fmi2Discard when Python's do_step returns
 * False (a Python exception becomes fmi2Fatal and destroys the Python instance). The slave logs
 * every failure with fmi2Error status at the call where it happens (friction_joints/fmi/slave.py),
 * and pythonfmu delivers the log messages of a call to the logger before the call returns. So the
 * loader gives pythonfmu a logger of its own (relay) that notes the worst status logged during
 * the current call, passes the message on to the host, and the call then returns that status
 * (fmi2Warning, fmi2Error or fmi2Fatal) when it is worse than pythonfmu's: no extra call into
 * Python, whatever the host. A message without a category (pythonfmu's own) gets the one of its
 * status (category_of).
 *
 * pythonfmu itself filters the messages by the host's loggingOn and categories (none at all with
 * loggingOn = fmi2False), which would hide the failures from the loader; it is instantiated with
 * logging on, and relay applies pythonfmu's filter to the messages below fmi2Error, while messages
 * of status fmi2Error and fmi2Fatal always reach the host (as in the FMI SDK's fmuTemplate): a
 * call that fails always says why. */
typedef struct {
    fmi2Component inner;                   /* pythonfmu's instance */
    char *name;                            /* its instance name, for the loader's own messages */
    fmi2CallbackFunctions callbacks;       /* given to pythonfmu: relay, with this Instance as environment */
    fmi2CallbackLogger host_logger;        /* the host's logger and its environment */
    fmi2ComponentEnvironment host_environment;
    fmi2Status logged;                     /* the worst status logged during the current call */
    Logging logging;                       /* the host's debug logging, as fmi2SetDebugLogging set it */
} Instance;

/* pythonfmu's logger: it calls it with a complete message and no further arguments, and so does the
 * relay with the host's logger. */
static void relay(fmi2ComponentEnvironment environment, fmi2String instanceName, fmi2Status status,
                  fmi2String category, fmi2String message, ...)
{
    Instance *instance = (Instance *)environment;
    int failure = status == fmi2Error || status == fmi2Fatal;
    category = category_of(category, status);
    if (status != fmi2Discard && status > instance->logged)
        instance->logged = status;
    if (instance->host_logger && (failure || logging_allows(&instance->logging, category))) {
        /* pythonfmu passes its text as the format: a '%' in it (a folder's name) must not reach the
         * host's printf unescaped */
        size_t size = 2 * strlen(message ? message : "") + 1;
        char *escaped = (char *)malloc(size);
        if (escaped)
            escape_percent(escaped, size, message ? message : "");
        instance->host_logger(instance->host_environment, instanceName, status, category,
                              escaped ? escaped : "(a message the loader had no memory to pass on)");
        free(escaped);
    }
}

/* The status of a call that pythonfmu's function returned as status: the worst of it and the
 * statuses logged during the call. */
static fmi2Status with_logged(const Instance *instance, fmi2Status status)
{
    return status < instance->logged ? instance->logged : status;
}

/* ---------------------------------------------------------------------------------------------- */
/* The FMI 2.0 functions                                                                          */

/* Answered here, without pythonfmu: a host may ask before any instance exists, and the answers are
 * fixed by the standard. */
FMI2_Export const char *fmi2GetTypesPlatform(void)
{
    return fmi2TypesPlatform;
}

FMI2_Export const char *fmi2GetVersion(void)
{
    return fmi2Version;
}

FMI2_Export fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                                          fmi2String fmuResourceLocation, const fmi2CallbackFunctions *functions,
                                          fmi2Boolean visible, fmi2Boolean loggingOn)
{
    const Table *t;
    Instance *instance;
    char folder[PATH_MAX], uri[PATH_MAX + 8], why[MESSAGE_SIZE];
    if (!instanceName || !*instanceName) {
        log_message(functions, "", fmi2Error, "logStatusError", "fmi2Instantiate: instanceName is %s",
                    instanceName ? "empty" : "NULL");
        return NULL;
    }
    if (!fmuGUID || strcmp(fmuGUID, FMU_TOKEN) != 0) {
        log_message(functions, instanceName, fmi2Error, "logStatusError",
                    "fmi2Instantiate: fmuGUID %s%s%s is not this FMU's GUID %s", fmuGUID ? "\"" : "",
                    fmuGUID ? fmuGUID : "NULL", fmuGUID ? "\"" : "", FMU_TOKEN);
        return NULL;
    }
    if (fmuType != fmi2CoSimulation) {
        log_message(functions, instanceName, fmi2Error, "logStatusError",
                    "fmi2Instantiate: fmuType %d: this FMU offers co-simulation only", (int)fmuType);
        return NULL;
    }
    if (resource_folder_of_uri(fmuResourceLocation, folder, sizeof folder, why, sizeof why) != 0) {
        log_message(functions, instanceName, fmi2Error, "logStatusError", "fmi2Instantiate: %s", why);
        return NULL;
    }
    snprintf(uri, sizeof uri, "file://%s", folder); /* as pythonfmu reads it: the path after file:// */
    t = table();
    if (!t) {
        log_message(functions, instanceName, fmi2Error, "logStatusError", "%s", loaded.error);
        return NULL;
    }
    if (original_binary()->notice[0])
        log_message(functions, instanceName, fmi2Warning, "logStatusWarning", "%s", original_binary()->notice);
    instance = (Instance *)calloc(1, sizeof *instance);
    if (!instance) {
        log_message(functions, instanceName, fmi2Error, "logStatusError", "the FMU's loader is out of memory");
        return NULL;
    }
    if (functions) {
        instance->callbacks = *functions; /* pythonfmu uses the logger only, never the environment otherwise */
        instance->host_logger = functions->logger;
        instance->host_environment = functions->componentEnvironment;
    }
    instance->callbacks.logger = relay;
    instance->callbacks.componentEnvironment = instance;
    instance->logging.on = loggingOn == fmi2True;
    instance->name = strdup(instanceName);
    instance->inner = t->fmi2Instantiate(instanceName, fmuType, fmuGUID, uri, &instance->callbacks, visible, fmi2True);
    if (!instance->inner) {
        log_message(functions, instanceName, fmi2Error, "logStatusError",
                    "pythonfmu's fmi2Instantiate failed (see above) with %s", original_binary()->python);
        free(instance->name);
        free(instance);
        return NULL;
    }
    return instance;
}

FMI2_Export void fmi2FreeInstance(fmi2Component c)
{
    const Table *t = table();
    Instance *instance = (Instance *)c;
    if (!instance)
        return;
    if (t) {
        t->fmi2FreeInstance(instance->inner); /* may still log through relay */
        collect_python_garbage(); /* the released instance's reference cycles, now */
    }
    logging_free(&instance->logging);
    free(instance->name);
    free(instance);
}

/* Debug logging is filtered here (see Instance); pythonfmu keeps logging everything. */
FMI2_Export fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                                           const fmi2String categories[])
{
    Instance *instance = (Instance *)c;
    if (!instance || logging_set(&instance->logging, loggingOn == fmi2True, nCategories, categories) != 0)
        return fmi2Error;
    return fmi2OK;
}

/* All the other functions return a status: forward each call to pythonfmu's instance and return
 * its status, raised to fmi2Error where the slave logged a failure during the call; fmi2Error where
 * pythonfmu's binary lacks the function (those of Model Exchange: pythonfmu makes co-simulation
 * FMUs only). In params the instance is `component`; args pass pythonfmu's as `c`. */
#define FORWARD(name, params, args)                                   \
    FMI2_Export fmi2Status name params                                \
    {                                                                 \
        const Table *t = table();                                     \
        Instance *instance = (Instance *)component;                   \
        fmi2Component c;                                              \
        fmi2Status status;                                            \
        if (!t || !t->name || !instance)                              \
            return fmi2Error;                                         \
        c = instance->inner;                                          \
        instance->logged = fmi2OK;                                    \
        status = t->name args;                                        \
        return with_logged(instance, status);                         \
    }

FORWARD(fmi2SetupExperiment, (fmi2Component component, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                              fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime),
        (c, toleranceDefined, tolerance, startTime, stopTimeDefined, stopTime))
FORWARD(fmi2EnterInitializationMode, (fmi2Component component), (c))
FORWARD(fmi2ExitInitializationMode, (fmi2Component component), (c))
FORWARD(fmi2Terminate, (fmi2Component component), (c))
FORWARD(fmi2Reset, (fmi2Component component), (c))
FORWARD(fmi2GetReal, (fmi2Component component, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[]),
        (c, vr, nvr, value))
FORWARD(fmi2GetInteger, (fmi2Component component, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[]),
        (c, vr, nvr, value))
FORWARD(fmi2GetBoolean, (fmi2Component component, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[]),
        (c, vr, nvr, value))
FORWARD(fmi2GetString, (fmi2Component component, const fmi2ValueReference vr[], size_t nvr, fmi2String value[]),
        (c, vr, nvr, value))
/* fmi2SetReal: as FORWARD, but a value reference from 2^28 on is refused (with a message). Those carry the
 * input derivatives to the slave (fmi2SetRealInputDerivatives below), and the slave would take a host's
 * for one. */
#define DERIVATIVE_ORDER_SHIFT 28
FMI2_Export fmi2Status fmi2SetReal(fmi2Component component, const fmi2ValueReference vr[], size_t nvr,
                                   const fmi2Real value[])
{
    const Table *t = table();
    Instance *instance = (Instance *)component;
    if (!t || !t->fmi2SetReal || !instance)
        return fmi2Error;
    for (size_t i = 0; vr && i < nvr; i++) {
        if (vr[i] >> DERIVATIVE_ORDER_SHIFT) {
            const fmi2CallbackFunctions host = {instance->host_logger, NULL, NULL, NULL, instance->host_environment};
            log_message(&host, instance->name, fmi2Error, "logStatusError",
                        "setReal: no variable has the value reference %u", (unsigned)vr[i]);
            return fmi2Error;
        }
    }
    instance->logged = fmi2OK;
    return with_logged(instance, t->fmi2SetReal(instance->inner, vr, nvr, value));
}
FORWARD(fmi2SetInteger,
        (fmi2Component component, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer value[]),
        (c, vr, nvr, value))
FORWARD(fmi2SetBoolean,
        (fmi2Component component, const fmi2ValueReference vr[], size_t nvr, const fmi2Boolean value[]),
        (c, vr, nvr, value))
FORWARD(fmi2SetString, (fmi2Component component, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[]),
        (c, vr, nvr, value))
FORWARD(fmi2GetFMUstate, (fmi2Component component, fmi2FMUstate *FMUstate), (c, FMUstate))
FORWARD(fmi2SetFMUstate, (fmi2Component component, fmi2FMUstate FMUstate), (c, FMUstate))
FORWARD(fmi2FreeFMUstate, (fmi2Component component, fmi2FMUstate *FMUstate), (c, FMUstate))
FORWARD(fmi2SerializedFMUstateSize, (fmi2Component component, fmi2FMUstate FMUstate, size_t *size),
        (c, FMUstate, size))
FORWARD(fmi2SerializeFMUstate,
        (fmi2Component component, fmi2FMUstate FMUstate, fmi2Byte serializedState[], size_t size),
        (c, FMUstate, serializedState, size))
FORWARD(fmi2DeSerializeFMUstate,
        (fmi2Component component, const fmi2Byte serializedState[], size_t size, fmi2FMUstate *FMUstate),
        (c, serializedState, size, FMUstate))
FORWARD(fmi2GetDirectionalDerivative,
        (fmi2Component component, const fmi2ValueReference vUnknown_ref[], size_t nUnknown,
         const fmi2ValueReference vKnown_ref[], size_t nKnown, const fmi2Real dvKnown[], fmi2Real dvUnknown[]),
        (c, vUnknown_ref, nUnknown, vKnown_ref, nKnown, dvKnown, dvUnknown))

/* Model Exchange */
FORWARD(fmi2EnterEventMode, (fmi2Component component), (c))
FORWARD(fmi2NewDiscreteStates, (fmi2Component component, fmi2EventInfo *fmi2eventInfo), (c, fmi2eventInfo))
FORWARD(fmi2EnterContinuousTimeMode, (fmi2Component component), (c))
FORWARD(fmi2CompletedIntegratorStep, (fmi2Component component, fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                      fmi2Boolean *enterEventMode, fmi2Boolean *terminateSimulation),
        (c, noSetFMUStatePriorToCurrentPoint, enterEventMode, terminateSimulation))
FORWARD(fmi2SetTime, (fmi2Component component, fmi2Real time), (c, time))
FORWARD(fmi2SetContinuousStates, (fmi2Component component, const fmi2Real x[], size_t nx), (c, x, nx))
FORWARD(fmi2GetDerivatives, (fmi2Component component, fmi2Real derivatives[], size_t nx), (c, derivatives, nx))
FORWARD(fmi2GetEventIndicators, (fmi2Component component, fmi2Real eventIndicators[], size_t ni),
        (c, eventIndicators, ni))
FORWARD(fmi2GetContinuousStates, (fmi2Component component, fmi2Real x[], size_t nx), (c, x, nx))
FORWARD(fmi2GetNominalsOfContinuousStates, (fmi2Component component, fmi2Real x_nominal[], size_t nx),
        (c, x_nominal, nx))

/* Co-Simulation */
/* Input derivatives (canInterpolateInputs): pythonfmu has no Python method for them, so they reach
 * the slave through fmi2SetReal with the order in the value reference's top bits (order << 28 | vr,
 * DERIVATIVE_ORDER_SHIFT of friction_joints/fmi/slave.py), which tells them from values. An order
 * below 1 or above 15, or a value reference of 2^28 or more, is refused here with a message. */
#define DERIVATIVES_PER_CALL 64
FMI2_Export fmi2Status fmi2SetRealInputDerivatives(fmi2Component component, const fmi2ValueReference vr[], size_t nvr,
                                                   const fmi2Integer order[], const fmi2Real value[])
{
    const Table *t = table();
    Instance *instance = (Instance *)component;
    fmi2ValueReference tagged[DERIVATIVES_PER_CALL];
    fmi2Status status = fmi2OK;
    if (!t || !t->fmi2SetReal || !instance)
        return fmi2Error;
    if (nvr > 0 && (!vr || !order || !value))
        return fmi2Error;
    for (size_t start = 0; start < nvr; start += DERIVATIVES_PER_CALL) {
        size_t n = nvr - start < DERIVATIVES_PER_CALL ? nvr - start : DERIVATIVES_PER_CALL;
        fmi2Status s;
        for (size_t i = 0; i < n; i++) {
            fmi2ValueReference r = vr[start + i];
            fmi2Integer k = order[start + i];
            if (k < 1 || k > 15 || (r >> DERIVATIVE_ORDER_SHIFT) != 0) {
                const fmi2CallbackFunctions host = {instance->host_logger, NULL, NULL, NULL,
                                                    instance->host_environment};
                log_message(&host, instance->name, fmi2Error, "logStatusError",
                            "setRealInputDerivatives: order %d of value reference %u is outside the allowed "
                            "range: orders 1 to 15 of value references below 2^28", (int)k, (unsigned)r);
                return fmi2Error;
            }
            tagged[i] = ((fmi2ValueReference)k << DERIVATIVE_ORDER_SHIFT) | r;
        }
        instance->logged = fmi2OK;
        s = with_logged(instance, t->fmi2SetReal(instance->inner, tagged, n, value + start));
        if (s > status)
            status = s;
    }
    return status;
}
FORWARD(fmi2GetRealOutputDerivatives, (fmi2Component component, const fmi2ValueReference vr[], size_t nvr,
                                       const fmi2Integer order[], fmi2Real value[]),
        (c, vr, nvr, order, value))
FORWARD(fmi2DoStep, (fmi2Component component, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
                     fmi2Boolean noSetFMUStatePriorToCurrentPoint),
        (c, currentCommunicationPoint, communicationStepSize, noSetFMUStatePriorToCurrentPoint))
FORWARD(fmi2CancelStep, (fmi2Component component), (c))
FORWARD(fmi2GetStatus, (fmi2Component component, const fmi2StatusKind s, fmi2Status *value), (c, s, value))
FORWARD(fmi2GetRealStatus, (fmi2Component component, const fmi2StatusKind s, fmi2Real *value), (c, s, value))
FORWARD(fmi2GetIntegerStatus, (fmi2Component component, const fmi2StatusKind s, fmi2Integer *value), (c, s, value))
FORWARD(fmi2GetBooleanStatus, (fmi2Component component, const fmi2StatusKind s, fmi2Boolean *value), (c, s, value))
FORWARD(fmi2GetStringStatus, (fmi2Component component, const fmi2StatusKind s, fmi2String *value), (c, s, value))
