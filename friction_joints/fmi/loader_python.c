/* The Python loader of a friction_joints FMU (Linux): making Python run, for FMI 2.0 and 3.0.
 *
 * pythonfmu's binary (FMI 2.0: binaries/linux64/<id>.so) links no libpython on purpose and calls
 * Py_Initialize() with neither program name nor home, and so does pythonfmu3's (FMI 3.0:
 * binaries/x86_64-linux/<id>.so), so a host without Python in it (a Modelica tool, Simulink,
 * tests/c_host/fmi2_host.c and fmi3_host.c) cannot load them: dlopen fails on _Py_NoneStruct, and with
 * libpython preloaded by hand the embedded interpreter still does not find numpy and scipy.
 *
 * install_loader() (loader.py) renames pythonfmu's binary to <id>-pythonfmu.so, puts the loader in
 * its place as <id>.so and records the interpreter the FMU was built with in <id>-python.txt beside
 * both (key=value lines: original, executable, version, libpython, shared). The loader is this file
 * with loader_fmi2.c or loader_fmi3.c, which forward the FMI functions of their version. On the first
 * instantiation (original_binary()) the loader, once per process:
 *
 *   1. uses the process's own Python if it already has one (FMPy, any Python host: Py_IsInitialized()
 *      is found in the global symbol scope) and initialises nothing (a libpython that the host has
 *      loaded without initialising it is initialised, as in step 3, rather than loading a second);
 *   2. otherwise picks an interpreter: the one named by the environment variable
 *      FRICTION_JOINTS_PYTHON (path of a python executable; no fallback when it is unusable), else the
 *      recorded one if its executable and libpython still exist, else python3 found on PATH (the
 *      override and python3 are asked for their libpython by running "<python> -S -c <QUERY>");
 *   3. dlopens that interpreter's libpython with RTLD_GLOBAL (pythonfmu's binary and numpy's
 *      extension modules resolve their Python symbols there), sets the interpreter's executable as
 *      the program name, so that CPython derives sys.prefix and site-packages from it as when that
 *      executable runs (a venv's pyvenv.cfg included), initialises Python without signal handlers
 *      with unbuffered sys.stdout/stderr and in UTF-8 mode (file names are UTF-8 whatever the host's
 *      locale: a host's empty environment would make them ASCII, and an FMU extracted into a folder
 *      with a non-ASCII name could not load), releases the GIL and never finalises the interpreter;
 *   4. dlopens pythonfmu's binary; loader_fmi2.c or loader_fmi3.c resolve its FMI functions with dlsym
 *      into a table and forward every call to it.
 *
 * Steps 1 to 3 hold a process-wide lock (lock_process): the loaders of two FMUs instantiated at the
 * same moment in two threads would otherwise initialise Python twice at once.
 *
 * When no usable Python is found, the instantiation returns NULL after a message to the host's logger
 * saying what is missing (every later instantiation repeats it).
 *
 * The loader never finalises Python: pythonfmu then never does either (it finalises only an
 * interpreter it has initialised itself), so the crashes of an embedded interpreter's finalisation
 * at the host's exit cannot occur. pythonfmu's binary still keeps a static std::shared_ptr that its
 * ELF destructor touches after the C++ runtime has destroyed it (see friction_joints/fmi/exit_guard.py);
 * the loader empties that pointer first through the binary's finalizePythonInterpreter (see
 * release_original_state).
 *
 * C99 plus POSIX and the GNU dynamic-linker extensions (dladdr, RTLD_DEFAULT); no Python headers:
 * the few Python C-API functions the loader calls are resolved with dlsym.
 */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "loader_python.h"

extern char **environ;

#define OVERRIDE_VARIABLE "FRICTION_JOINTS_PYTHON"

/* What "<python> -S -c QUERY" prints: the lines of a record file (see interpreter_record() in
 * loader.py, which writes the same keys for the recorded interpreter). libpython is LIBDIR/INSTSONAME
 * or LIBDIR/LDLIBRARY where that file exists, else the bare INSTSONAME for the dynamic linker's
 * search path. */
static const char QUERY[] =
    "import os, sys, sysconfig\n"
    "v = sysconfig.get_config_var\n"
    "d = v('LIBDIR') or ''\n"
    "names = [n for n in (v('INSTSONAME'), v('LDLIBRARY')) if n]\n"
    "lib = next((os.path.join(d, n) for n in names if os.path.exists(os.path.join(d, n))),\n"
    "           names[0] if names else '')\n"
    "print('executable=' + sys.executable)\n"
    "print('version=%d.%d' % sys.version_info[:2])\n"
    "print('libpython=' + lib)\n"
    "print('shared=%d' % bool(v('Py_ENABLE_SHARED')))\n";

/* One Python interpreter: from the record file or from QUERY's answer. */
typedef struct {
    char executable[PATH_MAX];
    char version[32];
    char libpython[PATH_MAX];
    int shared; /* 1, 0, or -1 when not stated */
} Interpreter;

/* Everything load_once() finds out. It is written only inside pthread_once and read only after
 * pthread_once has returned, which orders the accesses between threads. */
static Original state;
static void (*finalize)(void); /* pythonfmu's finalizePythonInterpreter, or NULL */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* ---------------------------------------------------------------------------------------------- */
/* Small helpers                                                                                  */

static void copy(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* snprintf for messages, which may be cut short at the buffer's size */
static void say(char *dst, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));
static void say(char *dst, size_t size, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(dst, size, format, args);
    va_end(args);
}

/* snprintf for paths: 0 when the whole path fitted */
static int join(char *dst, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));
static int join(char *dst, size_t size, const char *format, ...)
{
    va_list args;
    int n;
    va_start(args, format);
    n = vsnprintf(dst, size, format, args);
    va_end(args);
    return (n >= 0 && (size_t)n < size) ? 0 : -1;
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_executable(const char *path)
{
    return is_file(path) && access(path, X_OK) == 0;
}

/* Parse "key=value" lines (blank lines and lines starting with '#' are skipped) into an
 * Interpreter; original (may be NULL) receives the value of "original". */
static void parse_record(char *text, Interpreter *ip, char *original, size_t original_size)
{
    char *line = text;
    while (line && *line) {
        char *next = strchr(line, '\n');
        char *eq;
        if (next)
            *next++ = '\0';
        line[strcspn(line, "\r")] = '\0';
        eq = strchr(line, '=');
        if (line[0] != '#' && eq) {
            const char *value = eq + 1;
            *eq = '\0';
            if (strcmp(line, "executable") == 0)
                copy(ip->executable, sizeof ip->executable, value);
            else if (strcmp(line, "version") == 0)
                copy(ip->version, sizeof ip->version, value);
            else if (strcmp(line, "libpython") == 0)
                copy(ip->libpython, sizeof ip->libpython, value);
            else if (strcmp(line, "shared") == 0)
                ip->shared = atoi(value) != 0;
            else if (strcmp(line, "original") == 0 && original)
                copy(original, original_size, value);
        }
        line = next;
    }
}

static int read_text(const char *path, char *buffer, size_t size)
{
    FILE *f = fopen(path, "re"); /* "e": close-on-exec */
    size_t n;
    if (!f)
        return -1;
    n = fread(buffer, 1, size - 1, f);
    buffer[n] = '\0';
    fclose(f);
    return 0;
}

/* The first executable file called name in the directories of PATH (the system's default path when
 * PATH is not set, as for execvp); 0 when there is none. */
static int find_on_path(const char *name, char *out, size_t size, char *searched, size_t searched_size)
{
    const char *path = getenv("PATH");
    char fallback[PATH_MAX];
    if (!path) {
        size_t n = confstr(_CS_PATH, fallback, sizeof fallback);
        path = (n > 0 && n <= sizeof fallback) ? fallback : "/usr/local/bin:/usr/bin:/bin";
    }
    copy(searched, searched_size, path);
    while (*path) {
        size_t len = strcspn(path, ":");
        if (len > 0 && len < PATH_MAX) {
            if (join(out, size, "%.*s/%s", (int)len, path, name) == 0 && is_executable(out))
                return 1;
        }
        path += len;
        if (*path == ':')
            path++;
    }
    return 0;
}

/* Run "<python> -S -c QUERY" and parse its answer; on failure, why in err. -S skips the site module:
 * the answer comes from sys and sysconfig alone, quickly, whatever the site-packages hold. */
static int query_interpreter(const char *python, Interpreter *ip, char *err, size_t err_size)
{
    char output[4 * PATH_MAX];
    size_t used = 0;
    int fds[2], status = 0, rc;
    pid_t pid;
    posix_spawn_file_actions_t actions;
    char *argv[5];

    memset(ip, 0, sizeof *ip);
    ip->shared = -1;
    if (!is_executable(python)) {
        say(err, err_size, "%s is not an executable file", python);
        return -1;
    }
    if (pipe2(fds, O_CLOEXEC) != 0) { /* close-on-exec: no other child of the host inherits them */
        say(err, err_size, "cannot run %s: pipe: %s", python, strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[1]);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    argv[0] = (char *)python;
    argv[1] = "-S";
    argv[2] = "-c";
    argv[3] = (char *)QUERY;
    argv[4] = NULL;
    rc = posix_spawn(&pid, python, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (rc != 0) {
        say(err, err_size, "cannot run %s: %s", python, strerror(rc));
        close(fds[0]);
        return -1;
    }
    for (;;) {
        ssize_t n = read(fds[0], output + used, sizeof output - 1 - used);
        if (n > 0 && (used += (size_t)n) < sizeof output - 1)
            continue;
        if (n < 0 && errno == EINTR)
            continue;
        break;
    }
    output[used] = '\0';
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    /* (a host that ignores SIGCHLD makes waitpid fail with ECHILD: the answer itself then decides) */
    parse_record(output, ip, NULL, 0);
    if (!ip->executable[0] || ip->shared < 0 || (WIFEXITED(status) && WEXITSTATUS(status) != 0)) {
        say(err, err_size, "%s did not answer the loader's query about its libpython", python);
        return -1;
    }
    return 0;
}

/* Whether ip can be embedded; if not, why in err. */
static int embeddable(const Interpreter *ip, char *err, size_t err_size)
{
    if (ip->shared == 0) {
        say(err, err_size,
            "Python %s at %s is built without a shared libpython (Py_ENABLE_SHARED = 0) and cannot be "
            "embedded into a host process; use a Python built with --enable-shared (e.g. your "
            "distribution's python3 with its libpython3.x package)",
            ip->version, ip->executable);
        return 0;
    }
    if (!ip->libpython[0]) {
        say(err, err_size, "Python %s at %s names no libpython", ip->version, ip->executable);
        return 0;
    }
    return 1;
}

/* ---------------------------------------------------------------------------------------------- */
/* Python                                                                                         */

/* A libpython that the process already has in its global symbol scope: the executable itself (any
 * Python host, FMPy), a library loaded with RTLD_GLOBAL (another FMU's loader). */
static int (*process_python(void))(void)
{
    return (int (*)(void))dlsym(RTLD_DEFAULT, "Py_IsInitialized");
}

/* Initialise the Python of library lib (a dlopen handle or RTLD_DEFAULT) with program_name, unless it
 * is initialised already. Returns 0, or -1 with the reason in err. */
static int initialise_python(void *lib, const char *program_name, const char *version, char *err,
                             size_t err_size)
{
    int (*is_initialized)(void) = (int (*)(void))dlsym(lib, "Py_IsInitialized");
    void *(*save_thread)(void) = (void *(*)(void))dlsym(lib, "PyEval_SaveThread");
    wchar_t *(*decode_locale)(const char *, size_t *) =
        (wchar_t * (*)(const char *, size_t *)) dlsym(lib, "Py_DecodeLocale");
    void (*set_program_name)(const wchar_t *) = (void (*)(const wchar_t *))dlsym(lib, "Py_SetProgramName");
    void (*initialize_ex)(int) = (void (*)(int))dlsym(lib, "Py_InitializeEx");
    const char *home = getenv("PYTHONHOME");

    if (!is_initialized || !save_thread) {
        say(err, err_size, "the libpython of Python %s lacks Py_IsInitialized or PyEval_SaveThread", version);
        return -1;
    }
    if (is_initialized())
        return 0;

    /* Py_Initialize aborts the whole process when it finds no standard library. A PYTHONHOME
     * inherited by the host (set for some other Python) is the likely cause: refuse it instead. */
    if (home && *home && strcmp(version, "?") != 0) {
        char probe[PATH_MAX];
        if (join(probe, sizeof probe, "%.*s/lib/python%s/os.py", (int)strcspn(home, ":"), home, version) != 0 ||
            !is_file(probe)) {
            say(err, err_size,
                "PYTHONHOME=%s holds no standard library of Python %s (no %s): unset PYTHONHOME for "
                "this host",
                home, version, probe);
            return -1;
        }
    }

    if (set_program_name && decode_locale && initialize_ex) {
        /* Python 3.8 to 3.15 (Py_SetProgramName is deprecated since 3.11, scheduled for removal in
         * 3.16). The program name must stay valid while Python runs, which is forever: never freed. */
        int *unbuffered = (int *)dlsym(lib, "Py_UnbufferedStdioFlag");
        int *utf8 = (int *)dlsym(lib, "Py_UTF8Mode");
        if (program_name) {
            wchar_t *name = decode_locale(program_name, NULL);
            if (!name) {
                say(err, err_size, "cannot decode the path %s", program_name);
                return -1;
            }
            set_program_name(name);
        }
        if (unbuffered)
            *unbuffered = 1; /* nothing is lost in Python's buffers: Python is never finalised */
        if (utf8)
            *utf8 = 1;
        initialize_ex(0);    /* 0: install no signal handlers in the host */
    } else {
        /* Python 3.14 and later: the PEP 741 configuration API, options given by name. */
        void *(*create)(void) = (void *(*)(void))dlsym(lib, "PyInitConfig_Create");
        void (*release)(void *) = (void (*)(void *))dlsym(lib, "PyInitConfig_Free");
        int (*set_int)(void *, const char *, int64_t) =
            (int (*)(void *, const char *, int64_t))dlsym(lib, "PyInitConfig_SetInt");
        int (*set_str)(void *, const char *, const char *) =
            (int (*)(void *, const char *, const char *))dlsym(lib, "PyInitConfig_SetStr");
        int (*get_error)(void *, const char **) = (int (*)(void *, const char **))dlsym(lib, "PyInitConfig_GetError");
        int (*initialize)(void *) = (int (*)(void *))dlsym(lib, "Py_InitializeFromInitConfig");
        void *config;
        const char *message = NULL;
        if (!create || !release || !set_int || !set_str || !get_error || !initialize) {
            say(err, err_size,
                "the libpython of Python %s has neither Py_SetProgramName nor PyInitConfig_Create", version);
            return -1;
        }
        config = create(); /* defaults of the isolated configuration; made like the legacy one below */
        if (!config) {
            say(err, err_size, "PyInitConfig_Create failed (out of memory)");
            return -1;
        }
        if ((program_name && set_str(config, "program_name", program_name) < 0) ||
            set_int(config, "isolated", 0) < 0 || set_int(config, "use_environment", 1) < 0 ||
            set_int(config, "install_signal_handlers", 0) < 0 || set_int(config, "buffered_stdio", 0) < 0 || set_int(config, "utf8_mode", 1) < 0 ||
            initialize(config) < 0) {
            get_error(config, &message);
            say(err, err_size, "Python %s could not be initialised: %s", version, message ? message : "?");
            release(config);
            return -1;
        }
        release(config);
    }
    if (!is_initialized()) {
        say(err, err_size, "Python %s could not be initialised", version);
        return -1;
    }
    /* Py_Initialize leaves this thread holding the GIL: release it for every thread of the host
     * (pythonfmu takes it with PyGILState_Ensure in each call). The thread state is never restored. */
    save_thread();
    return 0;
}

/* Choose an interpreter (override, recorded, python3 on PATH). Returns 0 with *ip, or -1 with the
 * reason in state.error. */
static int choose_interpreter(const Interpreter *recorded, const char *record_path, Interpreter *ip)
{
    const char *override = getenv(OVERRIDE_VARIABLE);
    char why[MESSAGE_SIZE], python3[PATH_MAX], searched[PATH_MAX];

    if (override && *override) {
        if (query_interpreter(override, ip, why, sizeof why) != 0) {
            say(state.error, sizeof state.error, "%s=%s names no usable Python: %s", OVERRIDE_VARIABLE,
                override, why);
            return -1;
        }
        if (!embeddable(ip, why, sizeof why)) {
            say(state.error, sizeof state.error, "%s=%s: %s", OVERRIDE_VARIABLE, override, why);
            return -1;
        }
        return 0;
    }

    /* the recorded interpreter, when it is still there (a bare libpython name is left to dlopen) */
    if (recorded->executable[0] && is_executable(recorded->executable) && embeddable(recorded, why, sizeof why) &&
        (!strchr(recorded->libpython, '/') || is_file(recorded->libpython))) {
        *ip = *recorded;
        return 0;
    }
    if (recorded->executable[0])
        say(why, sizeof why, "the Python this FMU was built with (%s %s, libpython %s) is not on this machine",
            recorded->executable, recorded->version, recorded->libpython);
    else
        say(why, sizeof why, "the FMU's interpreter record %s is missing or names no Python", record_path);

    if (!find_on_path("python3", python3, sizeof python3, searched, sizeof searched)) {
        say(state.error, sizeof state.error,
            "no Python to run this FMU: %s, and there is no python3 on PATH (%s); set %s to the path of a "
            "python executable (a Python with a shared libpython, numpy and scipy)",
            why, searched, OVERRIDE_VARIABLE);
        return -1;
    }
    {
        char why_not[MESSAGE_SIZE];
        if (query_interpreter(python3, ip, why_not, sizeof why_not) != 0 || !embeddable(ip, why_not, sizeof why_not)) {
            say(state.error, sizeof state.error,
                "no Python to run this FMU: %s, and python3 on PATH (%s) is not usable: %s; set %s to the "
                "path of a python executable",
                why, python3, why_not, OVERRIDE_VARIABLE);
            return -1;
        }
    }
    say(state.notice, sizeof state.notice, "%s: running it with python3 from PATH, %s (Python %s)", why,
        ip->executable, ip->version);
    return 0;
}

/* Release pythonfmu's static interpreter state while the C++ runtime has not yet destroyed it.
 *
 * Registered with atexit() right after pythonfmu's binary has been loaded, so it runs before that
 * binary's static destructors (atexit handlers run in reverse order of registration) and before its
 * ELF destructor (run by the dynamic linker after all atexit handlers). Without it the ELF
 * destructor would assign to the already destroyed std::shared_ptr and release its control block a
 * second time. glibc attaches an atexit handler of a shared object to that object: when the host
 * unloads the loader, the handler runs at dlclose. pythonfmu's own interpreter state is trivial here
 * (Python was initialised before it, so it never finalises), and instances still alive keep their
 * own reference to it. */
static void release_original_state(void)
{
    if (finalize)
        finalize();
}

/* A process-wide lock for starting Python. pthread_once serialises the threads entering one loader,
 * but two FMUs (or two extracted copies of one) have a loader each, with statics of their own, and
 * Python must not be initialised by both at once. The lock is an abstract Unix socket address named
 * after the process: bind() succeeds for one socket at a time, close() releases it (as does the
 * process's end). Returns the socket, or -1 where sockets are not allowed (then nothing is locked). */
static int lock_process(void)
{
    struct sockaddr_un address;
    struct timespec pause = {0, 1000000}; /* 1 ms */
    socklen_t size;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), n;
    if (fd < 0)
        return -1;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX; /* sun_path[0] = '\0': the abstract namespace, no file */
    n = snprintf(address.sun_path + 1, sizeof address.sun_path - 1, "friction_joints-fmu-python-%ld", (long)getpid());
    size = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    while (bind(fd, (struct sockaddr *)&address, size) != 0) {
        if (errno != EADDRINUSE) {
            close(fd);
            return -1;
        }
        nanosleep(&pause, NULL);
    }
    return fd;
}

static void unlock_process(int fd)
{
    if (fd >= 0)
        close(fd);
}

/* Make Python run in this process (see the file's comment); 0, or -1 with the reason in state.error. */
static int start_python(const Interpreter *recorded, const char *record_path)
{
    Interpreter ip;
    int (*is_initialized)(void) = process_python();

    if (is_initialized && is_initialized()) {
        /* a Python host (or another FMU's loader was first): its interpreter runs the FMU */
        copy(state.python, sizeof state.python, "the Python already running in this process");
    } else if (is_initialized) {
        /* a host with a libpython of its own that it has not initialised: loading a second libpython
         * would give two interpreters in one process, so this one is initialised (with the chosen
         * interpreter's executable as program name only if the versions agree) */
        const char *(*get_version)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "Py_GetVersion");
        const char *version = get_version ? get_version() : "?";
        char running[32];
        const char *program = NULL;
        /* "3.11.7 (main, ...)" -> "3.11" */
        say(running, sizeof running, "%.*s", (int)strcspn(version, " "), version);
        if (strchr(running, '.') && strchr(strchr(running, '.') + 1, '.'))
            *strchr(strchr(running, '.') + 1, '.') = '\0';
        if (choose_interpreter(recorded, record_path, &ip) == 0 && strcmp(running, ip.version) == 0)
            program = ip.executable;
        state.error[0] = state.notice[0] = '\0';
        if (initialise_python(RTLD_DEFAULT, program, running, state.error, sizeof state.error) != 0)
            return -1;
        say(state.python, sizeof state.python, "the libpython (Python %s) the host process had loaded", running);
    } else {
        void *lib;
        if (choose_interpreter(recorded, record_path, &ip) != 0)
            return -1;
        lib = dlopen(ip.libpython, RTLD_NOW | RTLD_GLOBAL);
        if (!lib) {
            say(state.error, sizeof state.error, "cannot load the libpython of Python %s at %s: %s", ip.version,
                ip.executable, dlerror());
            return -1;
        }
        /* never dlclosed: Python is never finalised */
        if (initialise_python(lib, ip.executable, ip.version, state.error, sizeof state.error) != 0)
            return -1;
        say(state.python, sizeof state.python, "Python %s at %s (libpython %s)", ip.version, ip.executable,
            ip.libpython);
    }
    return 0;
}

static void load_once(void)
{
    Dl_info self;
    char path[PATH_MAX], folder[PATH_MAX], stem[PATH_MAX], record_path[PATH_MAX], original[PATH_MAX];
    char text[4 * PATH_MAX];
    Interpreter recorded;
    void *original_handle;
    char *slash;
    size_t len;
    int lock, started;

    memset(&recorded, 0, sizeof recorded);
    recorded.shared = -1;

    /* where this loader is: its folder holds the record and pythonfmu's binary */
    if (!dladdr((void *)&load_once, &self) || !self.dli_fname) {
        copy(state.error, sizeof state.error, "the FMU's loader cannot find its own file (dladdr failed)");
        return;
    }
    if (!realpath(self.dli_fname, path))
        copy(path, sizeof path, self.dli_fname);
    slash = strrchr(path, '/');
    copy(folder, sizeof folder, slash ? path : ".");
    if (slash)
        folder[slash - path] = '\0';
    copy(stem, sizeof stem, slash ? slash + 1 : path);
    len = strlen(stem);
    if (len > 3 && strcmp(stem + len - 3, ".so") == 0)
        stem[len - 3] = '\0';
    if (join(record_path, sizeof record_path, "%s/%s-python.txt", folder, stem) != 0 ||
        join(original, sizeof original, "%s-pythonfmu.so", stem) != 0) {
        say(state.error, sizeof state.error, "the path of the FMU's loader is too long: %s", path);
        return;
    }
    if (read_text(record_path, text, sizeof text) == 0)
        parse_record(text, &recorded, original, sizeof original);

    lock = lock_process();
    started = start_python(&recorded, record_path);
    unlock_process(lock);
    if (started != 0)
        return;

    /* pythonfmu's binary: never unloaded (nor could it be: its STB_GNU_UNIQUE C++ symbols make glibc
     * keep it loaded) */
    if (join(path, sizeof path, "%s/%s", folder, original) != 0) {
        say(state.error, sizeof state.error, "the path of the FMU's pythonfmu binary is too long");
        return;
    }
    original_handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!original_handle) {
        say(state.error, sizeof state.error, "cannot load the FMU's pythonfmu binary %s: %s", path, dlerror());
        return;
    }
    state.handle = original_handle;
    copy(state.path, sizeof state.path, path);
    finalize = (void (*)(void))dlsym(original_handle, "finalizePythonInterpreter");
    if (finalize)
        atexit(release_original_state);
    state.ok = 1;
}

const Original *original_binary(void)
{
    pthread_once(&once, load_once);
    return &state;
}

void escape_percent(char *dst, size_t size, const char *text)
{
    size_t j = 0;
    for (size_t i = 0; text[i] && j + 2 < size; i++) {
        if (text[i] == '%')
            dst[j++] = '%';
        dst[j++] = text[i];
    }
    dst[j] = '\0';
}

int logging_allows(const Logging *logging, const char *category)
{
    if (!logging->on)
        return 0;
    if (logging->n_categories == 0)
        return 1;
    for (size_t i = 0; i < logging->n_categories; i++)
        if (strcmp(logging->categories[i], category ? category : "") == 0)
            return 1;
    return 0;
}

int logging_set(Logging *logging, int on, size_t n, const char *const categories[])
{
    char **copies = NULL;
    if (n > 0) {
        if (!categories || !(copies = (char **)calloc(n, sizeof *copies)))
            return -1;
        for (size_t i = 0; i < n; i++) {
            if (!categories[i] || !(copies[i] = strdup(categories[i]))) {
                for (size_t j = 0; j < i; j++)
                    free(copies[j]);
                free(copies);
                return -1;
            }
        }
    }
    logging_free(logging);
    logging->on = on;
    logging->categories = copies;
    logging->n_categories = n;
    return 0;
}

void logging_free(Logging *logging)
{
    for (size_t i = 0; i < logging->n_categories; i++)
        free(logging->categories[i]);
    free(logging->categories);
    logging->categories = NULL;
    logging->n_categories = 0;
}

const char *category_of(const char *category, int status)
{
    static const char *const by_status[] = {"logAll", "logStatusWarning", "logStatusDiscard", "logStatusError",
                                            "logStatusFatal"};
    if (category && *category)
        return category;
    return status >= 0 && status < 5 ? by_status[status] : "logAll";
}

void collect_python_garbage(void)
{
    int (*ensure)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "PyGILState_Ensure");
    void (*release)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "PyGILState_Release");
    ssize_t (*collect)(void) = (ssize_t (*)(void))dlsym(RTLD_DEFAULT, "PyGC_Collect");
    int (*is_initialized)(void) = process_python();
    int gil;
    if (!ensure || !release || !collect || !is_initialized || !is_initialized())
        return;
    gil = ensure();
    collect();
    release(gil);
}
