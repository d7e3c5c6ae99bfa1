/* What the plain C hosts fmi2_host.c and fmi3_host.c share: the library opened and its symbols looked
 * up or exit, the "VR=VALUE" settings of their -p, -i and -a options, a clock. Value references are
 * unsigned ints and values doubles in both FMI versions. On Windows (built with mingw-w64: the native
 * FMUs' win64 binaries run under wine64 in the tests) LoadLibrary and GetProcAddress stand for dlopen
 * and dlsym. */
#ifndef HOST_COMMON_H
#define HOST_COMMON_H

#ifdef _WIN32
#include <windows.h>
#else /* (the host defines _POSIX_C_SOURCE before any include: clock_gettime) */
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>
#endif
#include <stdio.h>
#include <stdlib.h>

#define MAX_SETS 16

/* The shared library at path, or NULL with the reason on stderr. */
static void *open_library(const char *path)
{
#ifdef _WIN32
    void *lib = (void *)LoadLibraryA(path);
    if (!lib)
        fprintf(stderr, "LoadLibrary failed: error %lu\n", (unsigned long)GetLastError());
#else
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        fprintf(stderr, "dlopen failed: %s\n", dlerror());
#endif
    return lib;
}

static void *symbol(void *lib, const char *name)
{
#ifdef _WIN32
    void *f = (void *)GetProcAddress((HMODULE)lib, name);
#else
    void *f = dlsym(lib, name);
#endif
    if (!f) {
        fprintf(stderr, "missing symbol %s\n", name);
        exit(2);
    }
    return f;
}

/* A monotonic clock (s). */
static double now_seconds(void)
{
#ifdef _WIN32
    LARGE_INTEGER count, frequency;
    QueryPerformanceCounter(&count);
    QueryPerformanceFrequency(&frequency);
    return (double)count.QuadPart / (double)frequency.QuadPart;
#else
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
#endif
}

typedef struct {
    int n;
    unsigned int vr[MAX_SETS];
    double value[MAX_SETS];
} Sets;

/* "VR=VALUE" into sets; 0 on success */
static int add_set(Sets *sets, const char *text)
{
    char *end;
    if (sets->n == MAX_SETS)
        return -1;
    sets->vr[sets->n] = (unsigned int)strtoul(text, &end, 10);
    if (end == text || *end != '=')
        return -1;
    sets->value[sets->n++] = strtod(end + 1, NULL);
    return 0;
}

/* The triangle wave of period 1 and amplitude 1 at x: 0 at x = 0, rising to 1 at x = 1/4 (no libm). */
static double triangle(double x)
{
    double f = x - (double)(long long)x; /* in [0, 1) for x >= 0 */
    if (f < 0.0)
        f += 1.0;
    return f < 0.25 ? 4.0 * f : f < 0.75 ? 2.0 - 4.0 * f : 4.0 * f - 4.0;
}

/* The resident set size of this process (kB), or -1 (always on Windows). */
static long resident_kb(void)
{
#ifdef _WIN32
    return -1;
#else
    long pages = -1, resident = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = -1;
        fclose(f);
    }
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
#endif
}

#endif
