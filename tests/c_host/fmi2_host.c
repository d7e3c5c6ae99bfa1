/* A plain FMI 2.0 co-simulation host: no Python in it. Loads an FMU binary with dlopen
 * (LoadLibrary on Windows), instantiates it, holds a constant input, steps, and prints the outputs
 * after every step.
 *
 *   fmi2_host [OPTION...] BINARY RESOURCE_URI GUID INPUT_VR INPUT_VALUE STEP N_STEPS OUTPUT_VR...
 *
 * Options (each may be repeated where it takes a value):
 *   -p VR=VALUE   set a Real in initialization mode, after the input (a parameter)
 *   -i VR=VALUE   set an Integer in initialization mode, after the -p Reals (a parameter)
 *   -a VR=VALUE   set a Real after fmi2ExitInitializationMode, before the first step
 *   -s STOP       fmi2SetupExperiment with this stop time (start time 0); default: no stop time
 *   -q            instantiate with loggingOn = fmi2False
 *   -n ARGUMENT   pass NULL for fmi2Instantiate's ARGUMENT: resource or guid (then "-" stands for it)
 *   -c CYCLES     first instantiate and free the FMU CYCLES times, printing "cycle K RSS_KB" after each
 *   -w PERIOD     the input a triangle wave of amplitude INPUT_VALUE and this period (s) at each
 *                 communication point t (0 at t = 0, rising) instead of held
 *   -T            timing: print no rows but "timing INSTANTIATE INITIALIZE STEPS" at the end (s: the
 *                 instantiation, setup to exitInitializationMode, and the steps' loop)
 *
 * The logger aborts on a NULL category, as a host that makes a std::string of it does.
 * Values are read with strtod: "nan" and "inf" are accepted. Output: one line per communication
 * point, "t y1 y2 ..." with %.17g; exit 0 on success, 1 when a call returns a status worse than
 * fmi2Warning (its name and status are printed, and the instance is freed; fmi2Warning is printed to
 * stderr), 2 on a usage error.
 */
#ifndef _WIN32
#define _POSIX_C_SOURCE 200809L /* clock_gettime (host_common.h) */
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "host_common.h"

static void logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                   fmi2String category, fmi2String message, ...)
{
    va_list args;
    (void)env;
    if (!category) {
        fprintf(stderr, "logger called with a NULL category\n");
        abort();
    }
    va_start(args, message);
    fprintf(stderr, "[%s][status %d][%s] ", instance, (int)status, category);
    vfprintf(stderr, message, args);
    fputc('\n', stderr);
    va_end(args);
}

static fmi2FreeInstanceTYPE *free_instance;

#define CHECK(call, name)                                                  \
    do {                                                                   \
        fmi2Status s_ = (call);                                            \
        if (s_ == fmi2Warning)                                             \
            fprintf(stderr, "%s returned status 1\n", name);               \
        if (s_ > fmi2Warning) {                                            \
            printf("%s returned status %d\n", name, (int)s_);              \
            fflush(stdout);                                                \
            free_instance(c);                                              \
            return 1;                                                      \
        }                                                                  \
    } while (0)

int main(int argc, char **argv)
{
    Sets init_sets = {0}, int_sets = {0}, after_sets = {0};
    double period = 0.0;
    int logging = 1, timing = 0, stop_defined = 0, a = 1, null_resource = 0, null_guid = 0, cycles = 0;
    fmi2Real stop = 0.0;

    for (; a < argc && argv[a][0] == '-' && argv[a][1] && !argv[a][2]; a++) {
        char option = argv[a][1];
        if (option == 'q') {
            logging = 0;
            continue;
        }
        if (option == 'T') {
            timing = 1;
            continue;
        }
        if (a + 1 >= argc)
            break;
        if ((option == 'p' && add_set(&init_sets, argv[a + 1]) == 0) ||
            (option == 'i' && add_set(&int_sets, argv[a + 1]) == 0) ||
            (option == 'a' && add_set(&after_sets, argv[a + 1]) == 0)) {
            a++;
            continue;
        }
        if (option == 's') {
            stop_defined = 1;
            stop = strtod(argv[++a], NULL);
            continue;
        }
        if (option == 'n' && (strcmp(argv[a + 1], "resource") == 0 || strcmp(argv[a + 1], "guid") == 0)) {
            null_resource |= strcmp(argv[++a], "resource") == 0;
            null_guid |= strcmp(argv[a], "guid") == 0;
            continue;
        }
        if (option == 'w') {
            period = strtod(argv[++a], NULL);
            continue;
        }
        if (option == 'c') {
            cycles = atoi(argv[++a]);
            continue;
        }
        fprintf(stderr, "bad option %s %s\n", argv[a], argv[a + 1]);
        return 2;
    }
    argv += a - 1;
    argc -= a - 1;
    if (argc < 9) {
        fprintf(stderr, "usage: fmi2_host [-p VR=VALUE] [-i VR=VALUE] [-a VR=VALUE] [-s STOP] [-q] [-n resource|guid] "
                        "[-c CYCLES] BINARY RESOURCE_URI GUID INPUT_VR INPUT_VALUE STEP N_STEPS OUTPUT_VR...\n");
        return 2;
    }
    void *lib = open_library(argv[1]);
    if (!lib)
        return 2;
    fmi2InstantiateTYPE *instantiate = (fmi2InstantiateTYPE *)symbol(lib, "fmi2Instantiate");
    fmi2SetupExperimentTYPE *setup = (fmi2SetupExperimentTYPE *)symbol(lib, "fmi2SetupExperiment");
    fmi2EnterInitializationModeTYPE *enter = (fmi2EnterInitializationModeTYPE *)symbol(lib, "fmi2EnterInitializationMode");
    fmi2ExitInitializationModeTYPE *exit_init = (fmi2ExitInitializationModeTYPE *)symbol(lib, "fmi2ExitInitializationMode");
    fmi2SetRealTYPE *set_real = (fmi2SetRealTYPE *)symbol(lib, "fmi2SetReal");
    fmi2SetIntegerTYPE *set_integer = (fmi2SetIntegerTYPE *)symbol(lib, "fmi2SetInteger");
    fmi2GetRealTYPE *get_real = (fmi2GetRealTYPE *)symbol(lib, "fmi2GetReal");
    fmi2DoStepTYPE *do_step = (fmi2DoStepTYPE *)symbol(lib, "fmi2DoStep");
    fmi2TerminateTYPE *terminate = (fmi2TerminateTYPE *)symbol(lib, "fmi2Terminate");
    free_instance = (fmi2FreeInstanceTYPE *)symbol(lib, "fmi2FreeInstance");

    fmi2ValueReference input_vr = (fmi2ValueReference)strtoul(argv[4], NULL, 10);
    fmi2Real amplitude = strtod(argv[5], NULL), input = period > 0.0 ? 0.0 : amplitude, h = strtod(argv[6], NULL);
    int n_steps = atoi(argv[7]), n_out = argc - 8;
    fmi2ValueReference *out_vr = calloc((size_t)n_out, sizeof *out_vr);
    fmi2Real *out = calloc((size_t)n_out, sizeof *out);
    for (int i = 0; i < n_out; i++)
        out_vr[i] = (fmi2ValueReference)strtoul(argv[8 + i], NULL, 10);

    fmi2CallbackFunctions callbacks = {logger, calloc, free, NULL, NULL};
    const char *guid = null_guid ? NULL : argv[3], *resource = null_resource ? NULL : argv[2];
    for (int k = 1; k <= cycles; k++) {
        fmi2Component cycled = instantiate("c_host", fmi2CoSimulation, guid, resource, &callbacks, fmi2False,
                                           logging ? fmi2True : fmi2False);
        if (!cycled) {
            printf("fmi2Instantiate failed\n");
            return 1;
        }
        free_instance(cycled);
        printf("cycle %d %ld\n", k, resident_kb());
    }
    double t0 = now_seconds();
    fmi2Component c = instantiate("c_host", fmi2CoSimulation, guid, resource, &callbacks, fmi2False,
                                  logging ? fmi2True : fmi2False);
    if (!c) {
        printf("fmi2Instantiate failed\n");
        return 1;
    }
    double t1 = now_seconds();
    CHECK(setup(c, fmi2False, 0.0, 0.0, stop_defined ? fmi2True : fmi2False, stop), "fmi2SetupExperiment");
    CHECK(enter(c), "fmi2EnterInitializationMode");
    CHECK(set_real(c, &input_vr, 1, &input), "fmi2SetReal");
    for (int i = 0; i < init_sets.n; i++)
        CHECK(set_real(c, &init_sets.vr[i], 1, &init_sets.value[i]), "fmi2SetReal");
    for (int i = 0; i < int_sets.n; i++) {
        fmi2Integer value = (fmi2Integer)int_sets.value[i];
        CHECK(set_integer(c, &int_sets.vr[i], 1, &value), "fmi2SetInteger");
    }
    CHECK(exit_init(c), "fmi2ExitInitializationMode");
    for (int i = 0; i < after_sets.n; i++)
        CHECK(set_real(c, &after_sets.vr[i], 1, &after_sets.value[i]), "fmi2SetReal");
    double t2 = now_seconds();
    for (int k = 0; k < n_steps; k++) {
        if (period > 0.0)
            input = amplitude * triangle((k * h) / period);
        CHECK(set_real(c, &input_vr, 1, &input), "fmi2SetReal");
        CHECK(do_step(c, k * h, h, fmi2True), "fmi2DoStep");
        CHECK(get_real(c, out_vr, (size_t)n_out, out), "fmi2GetReal");
        if (timing)
            continue;
        printf("%.17g", (k + 1) * h);
        for (int i = 0; i < n_out; i++)
            printf(" %.17g", out[i]);
        printf("\n");
        fflush(stdout);
    }
    if (timing)
        printf("timing %.9g %.9g %.9g\n", t1 - t0, t2 - t1, now_seconds() - t2);
    CHECK(terminate(c), "fmi2Terminate");
    free_instance(c);
    free(out);
    free(out_vr);
    return 0;
}
