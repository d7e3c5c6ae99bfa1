/* The half of the FMU loader that makes Python run and loads pythonfmu's binary (loader_python.c),
 * shared by the FMI 2.0 (loader_fmi2.c) and FMI 3.0 (loader_fmi3.c) halves. */
#ifndef FRICTION_JOINTS_LOADER_PYTHON_H
#define FRICTION_JOINTS_LOADER_PYTHON_H

#include <limits.h>
#include <stddef.h>

#define MESSAGE_SIZE 4096

/* What original_binary() found out; written once, read-only afterwards. */
typedef struct {
    int ok;                    /* Python runs in this process and pythonfmu's binary is loaded */
    void *handle;              /* dlopen handle of pythonfmu's binary, <id>-pythonfmu.so */
    char path[PATH_MAX];       /* its path */
    char error[MESSAGE_SIZE];  /* why not ok: logged by every instantiation */
    char notice[MESSAGE_SIZE]; /* a warning for every instantiation (a fallback interpreter), or "" */
    char python[MESSAGE_SIZE]; /* which Python runs the FMU, for a failed instantiation */
} Original;

/* Start Python and load pythonfmu's binary beside this loader, on the first call from any thread
 * (once per loader; Python once per process). Never NULL. */
const Original *original_binary(void);

/* text with every '%' doubled into dst (cut at size): a host's logger takes a message as a printf format. */
void escape_percent(char *dst, size_t size, const char *text);

/* The host's debug logging of one instance, as its SetDebugLogging call set it. */
typedef struct {
    int on;              /* loggingOn */
    size_t n_categories; /* its categories (none: all) */
    char **categories;
} Logging;

/* Whether the host's debug logging lets a message of category through. */
int logging_allows(const Logging *logging, const char *category);

/* Set logging to on and copies of the n categories; -1 (logging unchanged) when categories is NULL
 * with n > 0, holds a NULL, or memory runs out, else 0. */
int logging_set(Logging *logging, int on, size_t n, const char *const categories[]);

/* Free the copies of the categories. */
void logging_free(Logging *logging);

/* The category of a message: category itself, or for NULL or "" the one pythonfmu derives from status
 * (logStatusWarning, logStatusDiscard, logStatusError, logStatusFatal, else logAll), so that a host
 * never gets a NULL category. status is an fmi2Status or fmi3Status (the same values). */
const char *category_of(const char *category, int status);

/* Run Python's cyclic garbage collector (gc.collect()) with the GIL taken, where Python runs: an
 * instance that pythonfmu has released holds reference cycles (its variables' getters and setters
 * refer to it), which would otherwise wait for Python's next full collection. */
void collect_python_garbage(void);

/* loader_resources.c: the resources folder a host names, resolved into folder (size at least PATH_MAX),
 * an existing folder with pythonfmu's slavemodule.txt. 0, or -1 with why in err. */

/* FMI 3.0 resourcePath (a path). */
int resource_folder(const char *path, char *folder, size_t size, char *err, size_t err_size);

/* FMI 2.0 fmuResourceLocation: file:/path, file:///path or file://localhost/path, percent-decoded. */
int resource_folder_of_uri(const char *uri, char *folder, size_t size, char *err, size_t err_size);

#endif
