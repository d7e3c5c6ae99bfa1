/* fj_fmu.c: the instance of a native FMU (fj_fmu.h), over the model interface (fj_fmu_model.h), the
 * models' assemblies (fj_assembly.h) and the engine (fj.h). */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fj.h"
#include "fj_assembly.h"
#include "fj_fmu.h"

#define MESSAGE_SIZE 1024
#define TIME_MATCH 1e-9 /* a communication point within this (relative, at least 1 s) of the time reached:
                           stepping.Stepper.step */
#define STATE_MAGIC 5.318008e6
enum { /* the header of a saved state (doubles) */
    S_MAGIC, S_BYTES, S_MODEL, S_N_VARIABLES, S_N_TAU, S_PHASE, S_INITIALIZED, S_TERMINATED, S_T_START, S_HELD_T0,
    S_N_ENGINE, S_ERROR_LENGTH, S_HEADER
};

struct fj_fmu {
    const fj_fmu_model *model;
    const fj_assembly *assembly, *bristle; /* bristle: that of friction_model > 0, or NULL */
    const fj_assembly *clearance;          /* that of a clearance joint or a flexible link, or NULL */
    const fj_assembly *built;              /* the assembly of the engine */
    fj_fmu_logger *logger;
    void *env;
    int n_tau, n_record, rtol_vr; /* n_record: the record's entries the variables read; rtol_vr: the value
                                     reference of rtol, or -1 */
    int64_t n_param;      /* the parameters: those of the assembly with the most (each one's begin the next's) */
    double *values;       /* n_variables: the current values (Booleans 0 or 1) */
    double *explicit_set; /* n_variables: 1 where the host has set the variable */
    double *rates;        /* n_tau: the inputs' first derivatives for the next doStep */
    double *held_value, *held_rate; /* n_tau: the inputs held since held_t0: value + rate (t - held_t0) */
    double held_t0;
    int *input_vr;        /* n_tau: the value reference of each input */
    double *p, *built_with; /* the assembly's parameters; those (and rtol) the engine was built with */
    double *fpar, *y0, *forms, *record;
    int64_t *ipar;
    fj_instance *engine;  /* NULL before initialisation, and for a model with an update (fj_fmu_model.h) */
    double t_now;         /* the time reached by a model with an update (the engine's otherwise) */
    int initialized, terminated;
    double t_start;
    int failed;
    char error[MESSAGE_SIZE], text[MESSAGE_SIZE];
};

/* ==================================================================================================
 * Messages
 * ================================================================================================== */

typedef struct shown {
    char text[40];
} shown;

/* x as Python's repr writes it (the twin's messages) */
static shown show(double x) {
    shown s;
    fj_repr(x, s.text, sizeof s.text);
    return s;
}

/* x, a value of variable v, as the twin writes it: an Integer's without a decimal point, a Boolean's True or False */
static shown show_value(const fj_fmu_variable *v, double x) {
    shown s;
    if (v->type == FJ_FMU_BOOLEAN)
        snprintf(s.text, sizeof s.text, "%s", x != 0.0 ? "True" : "False");
    else if (v->type == FJ_FMU_INTEGER)
        snprintf(s.text, sizeof s.text, "%.0f", x);
    else
        fj_repr(x, s.text, sizeof s.text);
    return s;
}

static void emit(fj_fmu *f, fj_fmu_status status, const char *message) {
    if (f->logger == NULL) return;
    const char *category = status == FJ_FMU_ERROR ? "logStatusError" : status == FJ_FMU_WARNING ? "logStatusWarning"
                                                                                                 : "logAll";
    f->logger(f->env, status, category, message);
}

static fj_fmu_status vfail(fj_fmu *f, const char *where, const char *format, va_list args) {
    int n = snprintf(f->text, MESSAGE_SIZE, "%s: ", where);
    if (n >= 0 && n < MESSAGE_SIZE) vsnprintf(f->text + n, (size_t)(MESSAGE_SIZE - n), format, args);
    if (!f->failed) {
        memcpy(f->error, f->text, MESSAGE_SIZE);
        f->failed = 1;
    }
    emit(f, FJ_FMU_ERROR, f->text);
    return FJ_FMU_ERROR;
}

fj_fmu_status fj_fmu_fail(fj_fmu *f, const char *where, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vfail(f, where, format, args);
    va_end(args);
    return FJ_FMU_ERROR;
}

void fj_fmu_log(fj_fmu *f, fj_fmu_status status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(f->text, MESSAGE_SIZE, format, args);
    va_end(args);
    emit(f, status, f->text);
}

const char *fj_fmu_error(const fj_fmu *f) { return f->failed ? f->error : NULL; }

static const char *type_name(int type) {
    static const char *const names[] = {"Real", "Integer", "Boolean", "String"};
    return type >= FJ_FMU_REAL && type <= FJ_FMU_STRING ? names[type] : "?";
}

static const char *causality_name(int causality) {
    return causality == FJ_FMU_PARAMETER ? "parameter" : causality == FJ_FMU_INPUT ? "input" : "output";
}

/* "[low, high]" of a variable as the twin writes it (VarSlave._range) into out */
static const char *range_text(const fj_fmu_variable *v, char *out, size_t n) {
    char low[48], high[48];
    if (v->has_min)
        snprintf(low, sizeof low, "[%s", show_value(v, v->min).text);
    else
        snprintf(low, sizeof low, "(-inf");
    if (v->has_max)
        snprintf(high, sizeof high, "%s]", show_value(v, v->max).text);
    else
        snprintf(high, sizeof high, "inf)");
    snprintf(out, n, "%s, %s", low, high);
    return out;
}

/* ==================================================================================================
 * Instance
 * ================================================================================================== */

void fj_fmu_free(fj_fmu *f) {
    if (f == NULL) return;
    fj_instance_free(f->engine);
    void *blocks[] = {f->values, f->explicit_set, f->rates, f->held_value, f->held_rate, f->input_vr, f->p,
                      f->built_with, f->fpar, f->y0, f->forms, f->record, f->ipar};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) free(blocks[i]);
    free(f);
}

void fj_fmu_reset(fj_fmu *f) {
    const fj_fmu_model *m = f->model;
    for (int vr = 0; vr < m->n_variables; vr++) f->values[vr] = m->variables[vr].start, f->explicit_set[vr] = 0.0;
    for (int i = 0; i < f->n_tau; i++) {
        f->rates[i] = f->held_rate[i] = 0.0;
        f->held_value[i] = f->values[f->input_vr[i]];
    }
    f->held_t0 = f->t_start = f->t_now = 0.0;
    fj_instance_free(f->engine);
    f->engine = NULL;
    f->initialized = f->terminated = f->failed = 0;
    f->error[0] = '\0';
}

static void *block(size_t count, size_t size, int *ok) {
    void *p = calloc(count ? count : 1, size);
    if (p == NULL) *ok = 0;
    return p;
}

fj_fmu *fj_fmu_new(const fj_fmu_model *model, fj_fmu_logger *logger, void *env) {
    fj_fmu probe = {0};
    probe.logger = logger, probe.env = env;
    const fj_assembly *a = fj_assembly_find(model->assembly), *b = NULL;
    if (a == NULL) {
        fj_fmu_fail(&probe, "instantiate", "the C engine has no assembly of the model %s", model->assembly);
        return NULL;
    }
    if (model->bristle_assembly != NULL) {
        b = fj_assembly_find(model->bristle_assembly);
        if (b == NULL || b->n_tau != a->n_tau || b->n_param < a->n_param || b->n_record < a->n_record ||
            model->friction_model_vr < 0 || model->friction_model_vr >= model->n_variables) {
            fj_fmu_fail(&probe, "instantiate", "the C engine has no bristle assembly %s that fits the model's %s",
                        model->bristle_assembly, model->assembly);
            return NULL;
        }
    }
    const fj_assembly *c = NULL;
    if (model->clearance_assembly != NULL) {
        c = fj_assembly_find(model->clearance_assembly);
        const fj_assembly *before = b != NULL ? b : a;
        if (c == NULL || c->n_tau != a->n_tau || c->n_param < before->n_param + c->n_tau ||
            c->n_record < a->n_record || model->clearance_sizes == NULL || model->clearance_vr < 0 ||
            model->clearance_vr >= model->n_variables || model->n_rfe_vr < 0 || model->n_rfe_vr >= model->n_variables) {
            fj_fmu_fail(&probe, "instantiate", "the C engine has no clearance assembly %s that fits the model's %s",
                        model->clearance_assembly, model->assembly);
            return NULL;
        }
    }
    if ((model->update == NULL) != (a->family != NULL) || (model->update != NULL && a->n_record != a->n_y)) {
        fj_fmu_fail(&probe, "instantiate", "the model %s has %s update, its assembly %s %s", model->name,
                    model->update ? "an" : "no", a->model, a->family ? "a family" : "no family (or a record that is "
                    "not its state)");
        return NULL;
    }
    fj_fmu *f = calloc(1, sizeof *f);
    if (f == NULL) {
        fj_fmu_fail(&probe, "instantiate", "out of memory");
        return NULL;
    }
    *f = probe;
    f->model = model, f->assembly = a, f->bristle = b, f->clearance = c;
    const fj_assembly *most = c != NULL ? c : b != NULL ? b : a; /* the most parameters */
    f->n_tau = (int)a->n_tau, f->n_record = (int)(c != NULL ? c->n_record : a->n_record), f->rtol_vr = -1;
    f->n_param = most->n_param;
    const fj_assembly *all[3] = {a, b, c};
    int64_t n_fpar = 0, n_ipar = 0, n_y = 0, n_record = 0; /* the largest of each */
    for (int i = 0; i < 3; i++)
        if (all[i] != NULL) {
            if (all[i]->n_fpar > n_fpar) n_fpar = all[i]->n_fpar;
            if (all[i]->n_ipar > n_ipar) n_ipar = all[i]->n_ipar;
            if (all[i]->n_y > n_y) n_y = all[i]->n_y;
            if (all[i]->n_record > n_record) n_record = all[i]->n_record;
        }
    int ok = 1;
    size_t nv = (size_t)model->n_variables, nt = (size_t)a->n_tau, d = sizeof(double);
    f->values = block(nv, d, &ok), f->explicit_set = block(nv, d, &ok);
    f->rates = block(nt, d, &ok), f->held_value = block(nt, d, &ok), f->held_rate = block(nt, d, &ok);
    f->input_vr = block(nt, sizeof(int), &ok);
    f->p = block((size_t)f->n_param, d, &ok), f->built_with = block((size_t)f->n_param + 1, d, &ok);
    f->fpar = block((size_t)n_fpar, d, &ok), f->ipar = block((size_t)n_ipar, sizeof(int64_t), &ok);
    f->y0 = block((size_t)n_y, d, &ok), f->forms = block(5 * nt, d, &ok);
    f->record = block((size_t)n_record, d, &ok);
    if (!ok) {
        fj_fmu_free(f);
        fj_fmu_fail(&probe, "instantiate", "out of memory");
        return NULL;
    }
    /* the table against the assembly: every input has its tau, every output its record entry */
    int n_inputs = 0;
    for (int vr = 0; vr < model->n_variables; vr++) {
        const fj_fmu_variable *v = &model->variables[vr];
        int bad = 0;
        if (v->causality == FJ_FMU_INPUT) {
            bad = v->type != FJ_FMU_REAL || v->index < 0 || v->index >= f->n_tau;
            if (!bad) f->input_vr[v->index] = vr, n_inputs++;
        } else if (v->causality == FJ_FMU_OUTPUT) {
            bad = v->index == FJ_FMU_UNUSED ? v->type != FJ_FMU_REAL
                                            : v->index < 0 || v->count < 1 || v->index + v->count > f->n_record ||
                                                  (v->count > 1 && v->type != FJ_FMU_BOOLEAN);
        } else if (v->index == FJ_FMU_RTOL) {
            f->rtol_vr = vr;
        } else if (v->index == FJ_FMU_UNUSED) {
            bad = 0;
        } else { /* its assembly's parameter of its name (a Boolean's value is 0 or 1) */
            bad = v->index < 0 || v->index >= f->n_param || strcmp(v->name, most->names[v->index]) != 0;
        }
        if (bad) {
            fj_fmu_fail(&probe, "instantiate", "the model's variable %s does not fit its assembly %s", v->name,
                        a->model);
            fj_fmu_free(f);
            return NULL;
        }
    }
    if (n_inputs != f->n_tau) {
        fj_fmu_fail(&probe, "instantiate", "the model has %d inputs, its assembly %s %d", n_inputs, a->model, f->n_tau);
        fj_fmu_free(f);
        return NULL;
    }
    fj_fmu_reset(f);
    return f;
}

/* ==================================================================================================
 * Variables
 * ================================================================================================== */

/* The variable vr, or NULL (logged). */
static const fj_fmu_variable *variable(fj_fmu *f, const char *where, unsigned int vr, int type) {
    if (vr >= (unsigned int)f->model->n_variables) {
        fj_fmu_fail(f, where, "no variable has the value reference %u", vr);
        return NULL;
    }
    const fj_fmu_variable *v = &f->model->variables[vr];
    if (v->type != type) {
        fj_fmu_fail(f, where, "%s (value reference %u) is a %s variable, not a %s", v->name, vr, type_name(v->type),
                    type_name(type));
        return NULL;
    }
    return v;
}

fj_fmu_status fj_fmu_set(fj_fmu *f, const char *where, unsigned int vr, int type, double value) {
    const fj_fmu_variable *v = variable(f, where, vr, type);
    if (v == NULL) return FJ_FMU_ERROR;
    char range[120];
    if (v->causality == FJ_FMU_OUTPUT)
        return fj_fmu_fail(f, where, "%s (value reference %u) is an output: it cannot be set", v->name, vr);
    if (v->causality == FJ_FMU_PARAMETER && f->initialized) {
        char fixed[160] = "";
        if (type != FJ_FMU_BOOLEAN) snprintf(fixed, sizeof fixed, ", allowed range %s", range_text(v, range, sizeof range));
        return fj_fmu_fail(f, where,
                           "%s = %s refused after exitInitializationMode: %s is a parameter (variability fixed%s), "
                           "settable only before; it stays %s",
                           v->name, show_value(v, value).text, v->name, fixed, show_value(v, f->values[vr]).text);
    }
    if (type != FJ_FMU_BOOLEAN) {
        double low = v->has_min ? v->min : -DBL_MAX, high = v->has_max ? v->max : DBL_MAX;
        if (!(low <= value && value <= high)) /* NaN and infinities too */
            return fj_fmu_fail(f, where, "%s = %s is outside its allowed range %s", v->name, show_value(v, value).text,
                               range_text(v, range, sizeof range));
    }
    f->values[vr] = value;
    f->explicit_set[vr] = 1.0;
    return FJ_FMU_OK;
}

fj_fmu_status fj_fmu_get(fj_fmu *f, const char *where, unsigned int vr, int type, double *value) {
    const fj_fmu_variable *v = variable(f, where, vr, type);
    if (v == NULL) return FJ_FMU_ERROR;
    *value = f->values[vr];
    return FJ_FMU_OK;
}

fj_fmu_status fj_fmu_set_derivative(fj_fmu *f, const char *where, unsigned int vr, int order, double value) {
    if (vr >= (unsigned int)f->model->n_variables)
        return fj_fmu_fail(f, where, "no variable has the value reference %u", vr);
    const fj_fmu_variable *v = &f->model->variables[vr];
    if (v->causality != FJ_FMU_INPUT || v->type != FJ_FMU_REAL)
        return fj_fmu_fail(f, where, "%s (value reference %u) is a%s %s: only Real inputs have derivatives", v->name,
                           vr, v->causality == FJ_FMU_INPUT ? "n" : "", causality_name(v->causality));
    if (!isfinite(value))
        return fj_fmu_fail(f, where, "the derivative of %s = %s is outside its allowed range (-inf, inf)", v->name,
                           show(value).text);
    if (order == 1) {
        f->rates[v->index] = value;
        return FJ_FMU_OK;
    }
    fj_fmu_log(f, FJ_FMU_WARNING, "%s: the derivative of order %d of %s is not used (the inputs are interpolated "
                                  "linearly)", where, order, v->name);
    return FJ_FMU_WARNING;
}

/* ==================================================================================================
 * Experiment, initialisation, step
 * ================================================================================================== */

fj_fmu_status fj_fmu_setup(fj_fmu *f, const char *where, int tolerance_defined, double tolerance, double start,
                           int stop_defined, double stop) {
    if (!isfinite(start))
        return fj_fmu_fail(f, where, "startTime = %s is outside its allowed range (-inf, inf)", show(start).text);
    if (stop_defined && !(start <= stop))
        return fj_fmu_fail(f, where, "stopTime = %s is outside its allowed range [%s, inf): it is before startTime = %s",
                           show(stop).text, show(start).text, show(start).text);
    if (tolerance_defined && !(tolerance >= 0.0 && tolerance < INFINITY))
        return fj_fmu_fail(f, where, "tolerance = %s is outside its allowed range [0, inf)", show(tolerance).text);
    f->t_start = start;
    if (!tolerance_defined || tolerance == 0.0 || f->rtol_vr < 0 || f->explicit_set[f->rtol_vr] != 0.0)
        return FJ_FMU_OK; /* 0: none (some hosts say 0); an rtol the host set stands */
    /* the tighter of the host's tolerance and the FMU's default, at least rtol's minimum (VarSlave._take_tolerance) */
    const fj_fmu_variable *v = &f->model->variables[f->rtol_vr];
    double low = v->has_min ? v->min : 0.0, high = v->has_max ? v->max : INFINITY;
    double rtol = fmax(fmin(tolerance, v->start), low);
    f->values[f->rtol_vr] = rtol;
    char range[120];
    if (!(low <= tolerance && tolerance <= high)) {
        fj_fmu_log(f, FJ_FMU_WARNING, "%s: tolerance = %s is outside rtol's allowed range %s: rtol = %s", where,
                   show(tolerance).text, range_text(v, range, sizeof range), show(rtol).text);
        return FJ_FMU_WARNING;
    }
    fj_fmu_log(f, FJ_FMU_OK, "%s: rtol = %s, the tighter of the host's tolerance %s and the FMU's default %s (set "
                             "the parameter rtol to choose another)", where, show(rtol).text, show(tolerance).text,
               show(v->start).text);
    return FJ_FMU_OK;
}

/* The parameters of the assembly from the values (the clearance assembly's inputs at the start: the inputs'
 * values); rtol into *rtol. */
static void parameters(fj_fmu *f, const double *values, double *p, double *rtol) {
    *rtol = 1e-8;
    for (int vr = 0; vr < f->model->n_variables; vr++) {
        const fj_fmu_variable *v = &f->model->variables[vr];
        if (v->causality != FJ_FMU_PARAMETER) continue;
        if (v->index == FJ_FMU_RTOL)
            *rtol = values[vr];
        else if (v->index >= 0)
            p[v->index] = values[vr];
    }
    if (f->clearance != NULL) /* its last parameters: the inputs at the start */
        for (int i = 0; i < f->n_tau; i++) p[f->clearance->n_param - f->n_tau + i] = values[f->input_vr[i]];
}

/* The engine of the parameters in values, not started (f->engine replaced; a model with an update: only
 * assembled); f->y0 its initial state. */
static fj_fmu_status build_engine(fj_fmu *f, const char *where, const double *values) {
    const fj_fmu_model *m = f->model;
    const fj_assembly *a = f->clearance != NULL && (values[m->clearance_vr] > 0.0 || values[m->n_rfe_vr] > 0.0)
                               ? f->clearance
                           : f->bristle != NULL && values[m->friction_model_vr] > 0.0 ? f->bristle
                                                                                       : f->assembly;
    double rtol;
    parameters(f, values, f->p, &rtol);
    char error[MESSAGE_SIZE];
    if (a->assemble(f->p, f->fpar, f->ipar, f->y0, error, sizeof error))
        return fj_fmu_fail(f, where, "initialization failed: %s", error);
    int64_t n_fpar = a->n_fpar, n_ipar = a->n_ipar, n_y = a->n_y, n_record = a->n_record;
    if (a == f->clearance) m->clearance_sizes(f->p, &n_fpar, &n_ipar, &n_y, &n_record);
    if (f->model->update == NULL) {
        fj_options options = {rtol, rtol * 1e-2, INFINITY, INFINITY}; /* stepping.Stepper: atol = rtol / 100 */
        fj_instance *engine = fj_instance_new(a->family, f->fpar, n_fpar, f->ipar, n_ipar, n_y, a->n_tau, n_record,
                                              &options, error, sizeof error);
        if (engine == NULL) return fj_fmu_fail(f, where, "initialization failed: %s", error);
        fj_instance_free(f->engine);
        f->engine = engine;
    }
    f->built = a;
    memcpy(f->built_with, f->p, (size_t)f->n_param * sizeof(double));
    f->built_with[f->n_param] = rtol;
    return FJ_FMU_OK;
}

/* The outputs from the engine's record at its time (a model with an update: its state, in f->record). */
static fj_fmu_status publish(fj_fmu *f, const char *where) {
    if (f->model->update == NULL && fj_instance_outputs(f->engine, f->record) != FJ_STATUS_OK)
        return fj_fmu_fail(f, where, "%s", fj_instance_message(f->engine));
    for (int vr = 0; vr < f->model->n_variables; vr++) {
        const fj_fmu_variable *v = &f->model->variables[vr];
        if (v->causality != FJ_FMU_OUTPUT) continue;
        int absent = v->index == FJ_FMU_UNUSED || (v->index >= f->assembly->n_record && f->built != f->clearance);
        double x = absent ? 0.0 : f->record[v->index]; /* (beyond the assembly's record: the clearance's only) */
        for (int i = 1; i < v->count && x == 0.0; i++) x = f->record[v->index + i]; /* a Boolean of several */
        f->values[vr] = v->type == FJ_FMU_BOOLEAN ? (x != 0.0) : x;
    }
    return FJ_FMU_OK;
}

fj_fmu_status fj_fmu_initialize(fj_fmu *f, const char *where) {
    if (f->failed) return fj_fmu_fail(f, where, "not initialized, an earlier call failed: %s", f->error);
    if (f->initialized) return FJ_FMU_OK;
    /* every mass and moment of inertia 0: M'' (or M) singular, a message naming no parameter otherwise
     * (MechanismSlave.exit_initialization_mode) */
    char names[MESSAGE_SIZE] = "";
    size_t used = 0;
    int n_inertia = 0, any = 0;
    for (int vr = 0; vr < f->model->n_variables; vr++) {
        const fj_fmu_variable *v = &f->model->variables[vr];
        if (v->causality != FJ_FMU_PARAMETER || !v->inertia) continue;
        any |= f->values[vr] != 0.0;
        int n = snprintf(names + used, sizeof names - used, "%s%s", n_inertia++ ? ", " : "", v->name);
        if (n > 0 && used + (size_t)n < sizeof names) used += (size_t)n;
    }
    if (n_inertia && !any)
        return fj_fmu_fail(f, where, "initialization failed: %s = 0: every mass and moment of inertia is 0, the model "
                                     "has no inertia (allowed: at least one of them > 0)", names);
    if (build_engine(f, where, f->values) != FJ_FMU_OK) return FJ_FMU_ERROR;
    for (int i = 0; i < f->n_tau; i++) { /* stepping.Stepper: the inputs held from the start */
        double *row = f->forms + 5 * i;
        f->held_value[i] = f->values[f->input_vr[i]], f->held_rate[i] = 0.0;
        row[0] = 0.0, row[1] = f->held_value[i], row[2] = row[3] = row[4] = 0.0;
    }
    f->held_t0 = f->t_now = f->t_start;
    if (f->model->update != NULL) {
        memcpy(f->record, f->y0, (size_t)f->assembly->n_y * sizeof(double));
    } else if (fj_instance_set_input_forms(f->engine, f->forms, 0) != FJ_STATUS_OK ||
               fj_instance_start(f->engine, f->t_start, f->y0) != FJ_STATUS_OK) {
        return fj_fmu_fail(f, where, "initialization failed: %s", fj_instance_message(f->engine));
    }
    if (publish(f, where) != FJ_FMU_OK) return FJ_FMU_ERROR;
    f->initialized = 1;
    if (f->model->update != NULL)
        fj_fmu_log(f, FJ_FMU_OK, "%s: native FMU %s: a discrete-time model, updated once per step", where,
                   f->model->name);
    else
        fj_fmu_log(f, FJ_FMU_OK, "%s: native FMU %s: the C engine's family %s, rtol = %s", where, f->model->name,
                   f->built->family, show(f->built_with[f->n_param]).text);
    return FJ_FMU_OK;
}

double fj_fmu_time(const fj_fmu *f) {
    if (!f->initialized) return f->t_start;
    return f->engine != NULL ? fj_instance_time(f->engine) : f->t_now;
}

/* A failure of the step from t: "fmi2DoStep at t=0.5: ..." (the twin's "doStep at t=0.5: ..."). */
static fj_fmu_status step_fail(fj_fmu *f, const char *function, double t, const char *format, ...) {
    char where[80];
    snprintf(where, sizeof where, "%s at t=%s", function, show(t).text);
    va_list args;
    va_start(args, format);
    vfail(f, where, format, args);
    va_end(args);
    return FJ_FMU_ERROR;
}

fj_fmu_status fj_fmu_step(fj_fmu *f, const char *where, double t, double h) {
    if (f->failed) return step_fail(f, where, t, "not stepped, an earlier call failed: %s", f->error);
    if (!f->initialized || (f->engine == NULL && f->model->update == NULL))
        return step_fail(f, where, t, "called before exitInitializationMode");
    if (!isfinite(t))
        return step_fail(f, where, t, "currentCommunicationPoint = %s is outside its allowed range (-inf, inf)",
                           show(t).text);
    if (!(h > 0.0 && h < INFINITY))
        return step_fail(f, where, t, "communicationStepSize = %s is outside its allowed range (0, inf)", show(h).text);
    double now = fj_fmu_time(f);
    if (fabs(t - now) > TIME_MATCH * fmax(1.0, fabs(t)))
        return step_fail(f, where, t, "communication point t = %s does not match the model time %s", show(t).text,
                           show(now).text);
    /* the inputs held from t (or on the lines of their derivatives); a change is a restart (Stepper.step) */
    int changed = 0;
    for (int i = 0; i < f->n_tau; i++) {
        double v = f->values[f->input_vr[i]], r = f->rates[i];
        double held = f->held_rate[i] != 0.0 ? f->held_value[i] + f->held_rate[i] * (t - f->held_t0) : f->held_value[i];
        changed |= held != v || f->held_rate[i] != r;
        f->held_value[i] = v, f->held_rate[i] = r;
        double *row = f->forms + 5 * i; /* Held.form at the time reached */
        row[0] = 0.0, row[1] = r != 0.0 ? v + r * (now - t) : v, row[2] = r, row[3] = row[4] = 0.0;
        f->rates[i] = 0.0; /* the derivatives hold for this step only */
    }
    f->held_t0 = t;
    if (f->model->update != NULL) { /* the inputs held (their derivatives are not used: canInterpolateInputs false) */
        f->model->update(f->fpar, f->held_value, h, f->record);
        f->t_now = t + h;
        return publish(f, where);
    }
    if (fj_instance_set_input_forms(f->engine, f->forms, changed ? 1 : 0) != FJ_STATUS_OK ||
        fj_instance_step(f->engine, t + h) != FJ_STATUS_OK)
        return step_fail(f, where, t, "%s", fj_instance_message(f->engine));
    if (publish(f, where) != FJ_FMU_OK) return FJ_FMU_ERROR; /* (cannot fail after a step) */
    return FJ_FMU_OK;
}

void fj_fmu_terminate(fj_fmu *f) { f->terminated = 1; }

/* ==================================================================================================
 * FMU state
 * ================================================================================================== */

/* A number of the model (its token's FNV-1a hash): a state is restored only into its model. */
static double model_number(const fj_fmu_model *m) {
    uint32_t h = 2166136261u;
    for (const char *c = m->token; *c; c++) h = (h ^ (uint32_t)(unsigned char)*c) * 16777619u;
    return (double)h;
}

static size_t error_bytes(size_t length) { return (length + 1 + 7) / 8 * 8; } /* with its NUL, whole doubles */

static size_t doubles_of(const fj_fmu *f, int64_t n_engine) {
    return S_HEADER + 2 * (size_t)f->model->n_variables + 3 * (size_t)f->n_tau + (size_t)n_engine;
}

/* The doubles of the engine's state in a saved state: 0 before initialisation; a model with an update: its
 * state and the time reached. */
static int64_t engine_size(const fj_fmu *f) {
    if (!f->initialized) return 0;
    if (f->model->update != NULL) return f->assembly->n_y + 1;
    return f->engine != NULL ? fj_instance_state_size(f->engine) : 0;
}

static size_t state_size(const fj_fmu *f) {
    int64_t n_engine = engine_size(f);
    return doubles_of(f, n_engine) * sizeof(double) + error_bytes(f->failed ? strlen(f->error) : 0);
}

static void get_state(const fj_fmu *f, int phase, void *buffer) {
    size_t nv = (size_t)f->model->n_variables, nt = (size_t)f->n_tau, d = sizeof(double);
    int64_t n_engine = engine_size(f);
    size_t length = f->failed ? strlen(f->error) : 0;
    double header[S_HEADER] = {STATE_MAGIC, (double)state_size(f), model_number(f->model), (double)nv,
                               (double)nt, (double)phase, f->initialized, f->terminated, f->t_start, f->held_t0,
                               (double)n_engine, (double)length};
    double *s = buffer;
    memcpy(s, header, sizeof header);
    s += S_HEADER;
    memcpy(s, f->values, nv * d), s += nv;
    memcpy(s, f->explicit_set, nv * d), s += nv;
    memcpy(s, f->rates, nt * d), s += nt;
    memcpy(s, f->held_value, nt * d), s += nt;
    memcpy(s, f->held_rate, nt * d), s += nt;
    if (f->model->update != NULL && n_engine) {
        memcpy(s, f->record, (size_t)(n_engine - 1) * d);
        s[n_engine - 1] = f->t_now;
    } else if (n_engine) {
        fj_instance_get_state(f->engine, s);
    }
    s += n_engine;
    char *text = (char *)s;
    memset(text, 0, error_bytes(length));
    if (length) memcpy(text, f->error, length);
}

static fj_fmu_status check_state(fj_fmu *f, const char *where, const void *buffer, size_t size) {
    double header[S_HEADER];
    if (buffer == NULL || size < sizeof header)
        return fj_fmu_fail(f, where, "not a state of this FMU (%lu bytes)", (unsigned long)(buffer ? size : 0));
    memcpy(header, buffer, sizeof header);
    int64_t n_engine = (int64_t)header[S_N_ENGINE];
    double length = header[S_ERROR_LENGTH];
    if (header[S_MAGIC] != STATE_MAGIC || header[S_MODEL] != model_number(f->model) ||
        header[S_N_VARIABLES] != (double)f->model->n_variables || header[S_N_TAU] != (double)f->n_tau ||
        !(n_engine >= 0 && n_engine < (1 << 24)) || !(length >= 0 && length < MESSAGE_SIZE) ||
        header[S_BYTES] != (double)size ||
        size != doubles_of(f, n_engine) * sizeof(double) + error_bytes((size_t)length))
        return fj_fmu_fail(f, where, "not a state of this FMU (a state of another model, or damaged: %lu bytes)", (unsigned long)size);
    if (n_engine && !header[S_INITIALIZED])
        return fj_fmu_fail(f, where, "not a state of this FMU (damaged header)");
    return FJ_FMU_OK;
}

static fj_fmu_status set_state(fj_fmu *f, const char *where, const void *buffer, size_t size, int *phase) {
    if (check_state(f, where, buffer, size) != FJ_FMU_OK) return FJ_FMU_ERROR;
    size_t nv = (size_t)f->model->n_variables, nt = (size_t)f->n_tau, d = sizeof(double);
    const double *header = buffer, *s = header + S_HEADER;
    const double *values = s;
    int64_t n_engine = (int64_t)header[S_N_ENGINE];
    if (n_engine) { /* the engine of the state's parameters: built again where they are not the current engine's */
        const double *engine_state = s + 2 * nv + 3 * nt;
        double rtol;
        parameters(f, values, f->p, &rtol);
        int same = f->engine != NULL && rtol == f->built_with[f->n_param] &&
                   memcmp(f->p, f->built_with, (size_t)f->n_param * d) == 0;
        if (!same && build_engine(f, where, values) != FJ_FMU_OK) return FJ_FMU_ERROR;
        if (f->model->update != NULL) {
            if (n_engine != f->assembly->n_y + 1) return fj_fmu_fail(f, where, "not a state of this FMU (its size)");
            memcpy(f->record, engine_state, (size_t)(n_engine - 1) * d);
            f->t_now = engine_state[n_engine - 1];
        } else if (fj_instance_state_size(f->engine) != n_engine ||
                   fj_instance_set_state(f->engine, engine_state) != FJ_STATUS_OK)
            return fj_fmu_fail(f, where, "not a state of this FMU: %s", fj_instance_message(f->engine));
    } else {
        fj_instance_free(f->engine);
        f->engine = NULL;
    }
    memcpy(f->values, values, nv * d), s += nv;
    memcpy(f->explicit_set, s, nv * d), s += nv;
    memcpy(f->rates, s, nt * d), s += nt;
    memcpy(f->held_value, s, nt * d), s += nt;
    memcpy(f->held_rate, s, nt * d), s += nt;
    s += n_engine;
    *phase = (int)header[S_PHASE];
    f->initialized = header[S_INITIALIZED] != 0.0, f->terminated = header[S_TERMINATED] != 0.0;
    f->t_start = header[S_T_START], f->held_t0 = header[S_HELD_T0];
    size_t length = (size_t)header[S_ERROR_LENGTH];
    f->failed = length > 0;
    memcpy(f->error, s, length);
    f->error[length] = '\0';
    return FJ_FMU_OK;
}

struct fj_fmu_saved {
    size_t size;   /* bytes of data */
    double data[]; /* get_state's buffer */
};

/* *saved resized to size bytes of data (made if NULL); NULL without memory (*saved freed) */
static fj_fmu_saved *saved_of_size(fj_fmu_saved **saved, size_t size) {
    fj_fmu_saved *s = realloc(*saved, sizeof(fj_fmu_saved) + size);
    if (s == NULL) free(*saved);
    *saved = s;
    if (s) s->size = size;
    return s;
}

fj_fmu_status fj_fmu_save(fj_fmu *f, const char *where, const char *name, int phase, fj_fmu_saved **saved) {
    if (saved == NULL) return fj_fmu_fail(f, where, "%s is NULL", name);
    if (saved_of_size(saved, state_size(f)) == NULL) return fj_fmu_fail(f, where, "out of memory");
    get_state(f, phase, (*saved)->data);
    return FJ_FMU_OK;
}

fj_fmu_status fj_fmu_restore(fj_fmu *f, const char *where, const char *name, const fj_fmu_saved *saved, int *phase) {
    if (saved == NULL) return fj_fmu_fail(f, where, "%s is NULL", name);
    return set_state(f, where, saved->data, saved->size, phase);
}

void fj_fmu_saved_free(fj_fmu_saved **saved) {
    if (saved == NULL) return;
    free(*saved);
    *saved = NULL;
}

fj_fmu_status fj_fmu_serialized_size(fj_fmu *f, const char *where, const char *name, const fj_fmu_saved *saved,
                                     size_t *size) {
    if (saved == NULL || size == NULL) return fj_fmu_fail(f, where, "%s or size is NULL", name);
    *size = saved->size;
    return FJ_FMU_OK;
}

fj_fmu_status fj_fmu_serialize(fj_fmu *f, const char *where, const char *name, const fj_fmu_saved *saved,
                               void *bytes, size_t size) {
    if (saved == NULL || bytes == NULL) return fj_fmu_fail(f, where, "%s or serializedState is NULL", name);
    if (size < saved->size)
        return fj_fmu_fail(f, where, "size = %lu is smaller than the state's %lu bytes (the serialized size)",
                           (unsigned long)size, (unsigned long)saved->size);
    memcpy(bytes, saved->data, saved->size);
    return FJ_FMU_OK;
}

fj_fmu_status fj_fmu_deserialize(fj_fmu *f, const char *where, const char *name, const void *bytes, size_t size,
                                 fj_fmu_saved **saved) {
    if (bytes == NULL || saved == NULL) return fj_fmu_fail(f, where, "serializedState or %s is NULL", name);
    fj_fmu_saved *copy = NULL;
    if (saved_of_size(&copy, size) == NULL) return fj_fmu_fail(f, where, "out of memory");
    memcpy(copy->data, bytes, size);
    if (check_state(f, where, copy->data, size) != FJ_FMU_OK) {
        free(copy);
        return FJ_FMU_ERROR;
    }
    free(*saved);
    *saved = copy;
    return FJ_FMU_OK;
}
