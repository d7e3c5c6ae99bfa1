/* What the plain C hosts fmi2_host.c and fmi3_host.c share: symbols looked up or exit, and the
 * "VR=VALUE" settings of their -p and -a options. Value references are unsigned ints and values
 * doubles in both FMI versions. */
#ifndef HOST_COMMON_H
#define HOST_COMMON_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_SETS 16

static void *symbol(void *lib, const char *name)
{
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "missing symbol %s\n", name);
        exit(2);
    }
    return f;
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

/* The resident set size of this process (kB), or -1. */
static long resident_kb(void)
{
    long pages = -1, resident = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = -1;
        fclose(f);
    }
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

#endif
