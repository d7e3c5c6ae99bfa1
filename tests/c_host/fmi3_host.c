/* A plain FMI 3.0 co-simulation host: no Python in it. Loads an FMU binary with dlopen
 * (LoadLibrary on Windows), instantiates it, holds a constant input, steps, and prints the outputs
 * after every step.
 *
 *   fmi3_host [OPTION...] BINARY RESOURCE_PATH TOKEN INPUT_VR INPUT_VALUE STEP N_STEPS OUTPUT_VR...
 *
 * Options (each may be repeated where it takes a value):
 *   -p VR=VALUE   set a Float64 in initialization mode, after the input (a parameter)
 *   -i VR=VALUE   set an Int32 in initialization mode, after the -p Reals (a parameter)
 *   -a VR=VALUE   set a Float64 after fmi3ExitInitializationMode, before the first step
 *   -t START      start time (default 0)
 *   -s STOP       fmi3EnterInitializationMode with this stop time; default: no stop time
 *   -r TOLERANCE  fmi3EnterInitializationMode with this tolerance; default: none
 *   -q            instantiate with loggingOn = fmi3False
 *   -n ARGUMENT   pass NULL for fmi3InstantiateCoSimulation's ARGUMENT: resource or token
 *   -c CYCLES     first instantiate and free the FMU CYCLES times, printing "cycle K RSS_KB" after each
 *   -w PERIOD     the input a triangle wave of amplitude INPUT_VALUE and this period (s) at each
 *                 communication point t (0 at t = 0, rising) instead of held
 *   -T            timing: print no rows but "timing INSTANTIATE INITIALIZE STEPS" at the end (s: the
 *                 instantiation, setup to exitInitializationMode, and the steps' loop)
 *
 * The logger aborts on a NULL category, as a host that makes a std::string of it does.
 * Values are read with strtod: "nan" and "inf" are accepted. Output: one line per communication
 * point, "t y1 y2 ..." with %.17g; exit 0 on success, 1 when a call returns a status worse than
 * fmi3Warning (its name and status are printed, and the instance is freed; fmi3Warning is printed to
 * stderr), 2 on a usage error.
 */
#ifndef _WIN32
#define _POSIX_C_SOURCE 200809L /* clock_gettime (host_common.h) */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3Functions.h"
#include "host_common.h"

static void logger(fmi3InstanceEnvironment env, fmi3Status status, fmi3String category, fmi3String message)
{
    (void)env;
    if (!category) {
        fprintf(stderr, "logger called with a NULL category\n");
        abort();
    }
    fprintf(stderr, "[status %d][%s] %s\n", (int)status, category, message);
}

static fmi3FreeInstanceTYPE *free_instance;

#define CHECK(call, name)                                                  \
    do {                                                                   \
        fmi3Status s_ = (call);                                            \
        if (s_ == fmi3Warning)                                             \
            fprintf(stderr, "%s returned status 1\n", name);               \
        if (s_ > fmi3Warning) {                                            \
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
    int logging = 1, timing = 0, stop_defined = 0, tolerance_defined = 0, a = 1, null_resource = 0, null_token = 0, cycles = 0;
    fmi3Float64 start = 0.0, stop = 0.0, tolerance = 0.0;

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
        if (option == 'n' && (strcmp(argv[a + 1], "resource") == 0 || strcmp(argv[a + 1], "token") == 0)) {
            null_resource |= strcmp(argv[++a], "resource") == 0;
            null_token |= strcmp(argv[a], "token") == 0;
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
        if (option == 't' || option == 's' || option == 'r') {
            fmi3Float64 value = strtod(argv[++a], NULL);
            if (option == 't')
                start = value;
            else if (option == 's')
                stop_defined = 1, stop = value;
            else
                tolerance_defined = 1, tolerance = value;
            continue;
        }
        fprintf(stderr, "bad option %s %s\n", argv[a], argv[a + 1]);
        return 2;
    }
    argv += a - 1;
    argc -= a - 1;
    if (argc < 9) {
        fprintf(stderr, "usage: fmi3_host [-p VR=VALUE] [-i VR=VALUE] [-a VR=VALUE] [-t START] [-s STOP] [-r TOLERANCE] "
                        "[-q] [-n resource|token] [-c CYCLES] BINARY RESOURCE_PATH TOKEN INPUT_VR INPUT_VALUE STEP N_STEPS "
                        "OUTPUT_VR...\n");
        return 2;
    }
    void *lib = open_library(argv[1]);
    if (!lib)
        return 2;
    fmi3InstantiateCoSimulationTYPE *instantiate =
        (fmi3InstantiateCoSimulationTYPE *)symbol(lib, "fmi3InstantiateCoSimulation");
    fmi3EnterInitializationModeTYPE *enter = (fmi3EnterInitializationModeTYPE *)symbol(lib, "fmi3EnterInitializationMode");
    fmi3ExitInitializationModeTYPE *exit_init = (fmi3ExitInitializationModeTYPE *)symbol(lib, "fmi3ExitInitializationMode");
    fmi3SetFloat64TYPE *set_float = (fmi3SetFloat64TYPE *)symbol(lib, "fmi3SetFloat64");
    fmi3SetInt32TYPE *set_int = (fmi3SetInt32TYPE *)symbol(lib, "fmi3SetInt32");
    fmi3GetFloat64TYPE *get_float = (fmi3GetFloat64TYPE *)symbol(lib, "fmi3GetFloat64");
    fmi3DoStepTYPE *do_step = (fmi3DoStepTYPE *)symbol(lib, "fmi3DoStep");
    fmi3TerminateTYPE *terminate = (fmi3TerminateTYPE *)symbol(lib, "fmi3Terminate");
    free_instance = (fmi3FreeInstanceTYPE *)symbol(lib, "fmi3FreeInstance");

    fmi3ValueReference input_vr = (fmi3ValueReference)strtoul(argv[4], NULL, 10);
    fmi3Float64 amplitude = strtod(argv[5], NULL), input = period > 0.0 ? 0.0 : amplitude, h = strtod(argv[6], NULL);
    int n_steps = atoi(argv[7]), n_out = argc - 8;
    fmi3ValueReference *out_vr = calloc((size_t)n_out, sizeof *out_vr);
    fmi3Float64 *out = calloc((size_t)n_out, sizeof *out);
    for (int i = 0; i < n_out; i++)
        out_vr[i] = (fmi3ValueReference)strtoul(argv[8 + i], NULL, 10);

    const char *token = null_token ? NULL : argv[3], *resource = null_resource ? NULL : argv[2];
    for (int k = 1; k <= cycles; k++) {
        fmi3Instance cycled = instantiate("c_host", token, resource, fmi3False, logging ? fmi3True : fmi3False,
                                          fmi3False, fmi3False, NULL, 0, NULL, logger, NULL);
        if (!cycled) {
            printf("fmi3InstantiateCoSimulation failed\n");
            return 1;
        }
        free_instance(cycled);
        printf("cycle %d %ld\n", k, resident_kb());
    }
    double t0 = now_seconds();
    fmi3Instance c = instantiate("c_host", token, resource, fmi3False, logging ? fmi3True : fmi3False, fmi3False,
                                 fmi3False, NULL, 0, NULL, logger, NULL);
    if (!c) {
        printf("fmi3InstantiateCoSimulation failed\n");
        return 1;
    }
    double t1 = now_seconds();
    CHECK(enter(c, tolerance_defined, tolerance, start, stop_defined, stop), "fmi3EnterInitializationMode");
    CHECK(set_float(c, &input_vr, 1, &input, 1), "fmi3SetFloat64");
    for (int i = 0; i < init_sets.n; i++)
        CHECK(set_float(c, &init_sets.vr[i], 1, &init_sets.value[i], 1), "fmi3SetFloat64");
    for (int i = 0; i < int_sets.n; i++) {
        fmi3Int32 value = (fmi3Int32)int_sets.value[i];
        CHECK(set_int(c, &int_sets.vr[i], 1, &value, 1), "fmi3SetInt32");
    }
    CHECK(exit_init(c), "fmi3ExitInitializationMode");
    for (int i = 0; i < after_sets.n; i++)
        CHECK(set_float(c, &after_sets.vr[i], 1, &after_sets.value[i], 1), "fmi3SetFloat64");
    double t2 = now_seconds();
    for (int k = 0; k < n_steps; k++) {
        fmi3Boolean event = fmi3False, terminate_now = fmi3False, early = fmi3False;
        fmi3Float64 reached = 0.0;
        if (period > 0.0)
            input = amplitude * triangle((start + k * h) / period);
        CHECK(set_float(c, &input_vr, 1, &input, 1), "fmi3SetFloat64");
        CHECK(do_step(c, start + k * h, h, fmi3True, &event, &terminate_now, &early, &reached), "fmi3DoStep");
        CHECK(get_float(c, out_vr, (size_t)n_out, out, (size_t)n_out), "fmi3GetFloat64");
        if (timing)
            continue;
        printf("%.17g", start + (k + 1) * h);
        for (int i = 0; i < n_out; i++)
            printf(" %.17g", out[i]);
        printf("\n");
        fflush(stdout);
    }
    if (timing)
        printf("timing %.9g %.9g %.9g\n", t1 - t0, t2 - t1, now_seconds() - t2);
    CHECK(terminate(c), "fmi3Terminate");
    free_instance(c);
    free(out);
    free(out_vr);
    return 0;
}
