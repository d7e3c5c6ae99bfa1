/* hybrid.c: the instance of fj.h, the event loop and the settling of the mode decisions, in C.
 *
 * The loop of the Python engine's HybridIntegrator (hybrid/integrator.py): integrate the current mode
 * with DOP853 or RK45 (rk_driver.c; segment_method chooses), or with the family's own integrator
 * (fj_family.integrator: RODAS, rodas.c, for a stiff family), to the end or to the first located event;
 * at an event record the state before it, let the family decide the mode again and again until it no
 * longer changes (FMPy's event loop, at most FJ_MAX_EVENTS_AT_ONE_TIME passes), record the state after
 * it; more than FJ_MAX_EVENTS_AT_ONE_TIME events in a row at one time is chattering (Zeno) and an error
 * (the Python engine counts them within one advance; here they are counted over calls, as the
 * library's advance returns after each event). New inputs are a restart: the mode is decided again
 * unless every event function is at least QUIET_MARGIN from firing and the events watch every decision
 * (HybridIntegrator.restart).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fj.h"
#include "fj_rk.h"
#include "fj_kernel.h"

#define QUIET_MARGIN 1e-6   /* hybrid.integrator.QUIET_MARGIN */
#define SAME_TIME 1e-12     /* events closer than this (s) are at one time (the Zeno guard) */
#define STATE_MAGIC 7.271828e6
#define STATE_HEADER 12     /* doubles before y in a saved state */
#define MESSAGE_SIZE 256

struct fj_instance {
    const fj_family *fam;
    fj_args a;              /* packed model, current mode, scratch */
    fj_mode_layout layout;
    fj_options options;
    int64_t n_y, n_tau, n_record;
    double *fpar, *work, *scratch, *y, *fmode, *fmode_new, *forms, *forms_now, *tau, *info;
    int64_t *ipar, *iwork, *imode, *imode_new, *change, *directions, *flags;
    int64_t n_events, watch_all, input_driven; /* of the current mode */
    double t, h, forms_origin;                 /* time, next step size (0: none yet), origin of the ramps */
    int started, restart_pending;
    double last_event_t; /* the Zeno guard: time and count of the last events at one time, over calls */
    int64_t event_count;
    int64_t rhs_calls, steps, events;
    /* the last mode decision that changed the mode (fj_report) */
    double report_t;
    int64_t report_event, report_passes;
    double *report_fmodes, *report_rows;
    int64_t *report_imodes, *report_changes;
    char message[MESSAGE_SIZE];
};

static int fail(fj_instance *inst, int status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(inst->message, MESSAGE_SIZE, format, args);
    va_end(args);
    return status;
}

/* The inputs at t from the forms (fj_rk.h's rows, ramps from forms_origin). */
static void inputs_at(fj_instance *inst, double t) {
    for (int64_t i = 0; i < inst->n_tau; i++) {
        const double *row = inst->forms + 5 * i;
        inst->tau[i] = row[0] == 0.0 ? row[1] + row[2] * (t - inst->forms_origin)
                                     : row[1] + row[2] * sin(row[3] * t + row[4]);
    }
}

/* The forms with their ramps starting at t (fj_rk_advance takes the start of its call as origin). */
static const double *forms_from(fj_instance *inst, double t) {
    memcpy(inst->forms_now, inst->forms, (size_t)(5 * inst->n_tau) * sizeof(double));
    for (int64_t i = 0; i < inst->n_tau; i++) {
        double *row = inst->forms_now + 5 * i;
        if (row[0] == 0.0) row[1] += row[2] * (t - inst->forms_origin);
    }
    return inst->forms_now;
}

static void *zeroed(size_t count, size_t size, int *ok) {
    void *p = calloc(count ? count : 1, size);
    if (p == NULL) *ok = 0;
    return p;
}

void fj_instance_free(fj_instance *inst) {
    if (inst == NULL) return;
    void *blocks[] = {inst->fpar, inst->work, inst->scratch, inst->y, inst->fmode, inst->fmode_new, inst->forms,
                      inst->forms_now, inst->tau, inst->info, inst->ipar, inst->iwork, inst->imode,
                      inst->imode_new, inst->change, inst->directions, inst->flags, inst->report_fmodes,
                      inst->report_rows, inst->report_imodes, inst->report_changes};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) free(blocks[i]);
    free(inst);
}

static int options_valid(const fj_options *o) {
    return o->rtol > 0.0 && o->rtol < 1.0 && o->atol > 0.0 && o->max_step > 0.0 && o->hold_step > 0.0;
}

fj_instance *fj_instance_new(const char *family, const double *fpar, int64_t n_fpar, const int64_t *ipar,
                             int64_t n_ipar, int64_t n_y, int64_t n_tau, int64_t n_record, const fj_options *options,
                             char *error, size_t n_error) {
    return fj_instance_new_of(fj_family_find(family), fpar, n_fpar, ipar, n_ipar, n_y, n_tau, n_record, options,
                              error, n_error);
}

fj_instance *fj_instance_new_of(const fj_family *fam, const double *fpar, int64_t n_fpar, const int64_t *ipar,
                                int64_t n_ipar, int64_t n_y, int64_t n_tau, int64_t n_record,
                                const fj_options *options, char *error, size_t n_error) {
    const char *why = NULL;
    fj_options o = {1e-10, 1e-12, INFINITY, INFINITY};
    if (options != NULL) o = *options;
    if (fam == NULL)
        why = "unknown family";
    else if (fam->decide == NULL)
        why = "the family does not decide its modes in C";
    else if (n_fpar < 0 || n_ipar < 0 || n_y < 1 || n_tau < 0 || n_record < 0 || (n_fpar && !fpar) ||
             (n_ipar && !ipar))
        why = "bad sizes or arrays of the packed model";
    else if (!options_valid(&o))
        why = "options out of range (0 < rtol < 1, atol > 0, max_step > 0, hold_step > 0)";
    fj_instance *inst = why ? NULL : calloc(1, sizeof *inst);
    if (why == NULL && inst == NULL) why = "out of memory";
    if (why != NULL) {
        if (error != NULL && n_error > 0) snprintf(error, n_error, "fj_instance_new: %s", why);
        return NULL;
    }
    inst->fam = fam;
    inst->options = o;
    inst->n_y = n_y, inst->n_tau = n_tau, inst->n_record = n_record;
    fam->mode_layout(fpar, n_fpar, ipar, n_ipar, &inst->layout);
    fj_mode_layout L = inst->layout;
    int64_t n_work = 0, n_iwork = 0;
    fam->work_size(fpar, n_fpar, ipar, n_ipar, &n_work, &n_iwork);
    size_t d = sizeof(double), i64 = sizeof(int64_t), passes = FJ_MAX_EVENTS_AT_ONE_TIME + 1;
    int ok = 1;
    inst->fpar = zeroed((size_t)n_fpar, d, &ok);
    inst->ipar = zeroed((size_t)n_ipar, i64, &ok);
    inst->work = zeroed((size_t)n_work, d, &ok);
    inst->iwork = zeroed((size_t)n_iwork, i64, &ok);
    const fj_integrator *integrator = fam->integrator;
    int64_t n_scratch = integrator ? integrator->scratch_size(n_y, L.max_events, n_tau)
                                   : fj_rk_scratch_size(n_y, L.max_events, n_tau);
    inst->scratch = zeroed((size_t)n_scratch, d, &ok);
    inst->y = zeroed((size_t)n_y, d, &ok);
    inst->fmode = zeroed((size_t)L.n_fmode, d, &ok);
    inst->fmode_new = zeroed((size_t)L.n_fmode, d, &ok);
    inst->imode = zeroed((size_t)L.n_imode, i64, &ok);
    inst->imode_new = zeroed((size_t)L.n_imode, i64, &ok);
    inst->change = zeroed((size_t)L.n_change, i64, &ok);
    inst->directions = zeroed((size_t)L.max_events, i64, &ok);
    inst->flags = zeroed((size_t)L.max_events, i64, &ok);
    inst->forms = zeroed((size_t)(5 * n_tau), d, &ok);
    inst->forms_now = zeroed((size_t)(5 * n_tau), d, &ok);
    inst->tau = zeroed((size_t)n_tau, d, &ok);
    inst->info = zeroed((size_t)(integrator ? integrator->info_size : FJ_INFO_SIZE), d, &ok);
    inst->report_fmodes = zeroed(passes * (size_t)L.n_fmode, d, &ok);
    inst->report_imodes = zeroed(passes * (size_t)L.n_imode, i64, &ok);
    inst->report_changes = zeroed(passes * (size_t)L.n_change, i64, &ok);
    inst->report_rows = zeroed(2 * (size_t)n_record, d, &ok);
    if (!ok) {
        fj_instance_free(inst);
        if (error != NULL && n_error > 0) snprintf(error, n_error, "fj_instance_new: out of memory");
        return NULL;
    }
    if (n_fpar) memcpy(inst->fpar, fpar, (size_t)n_fpar * d);
    if (n_ipar) memcpy(inst->ipar, ipar, (size_t)n_ipar * i64);
    fj_args a = {inst->fpar, inst->ipar, NULL, NULL, n_fpar, n_ipar, 0, 0, n_y, n_tau, inst->work, inst->iwork};
    inst->a = a;
    inst->last_event_t = NAN;
    return inst;
}

/* The events of the current mode: their directions and flags, and whether they watch every decision. */
static void mode_changed(fj_instance *inst) {
    inst->a.fmode = inst->fmode, inst->a.imode = inst->imode;
    inst->a.n_fmode = inst->layout.n_fmode, inst->a.n_imode = inst->layout.n_imode;
    inst->n_events = inst->fam->mode_events(&inst->a, inst->directions, inst->flags, &inst->watch_all);
    inst->input_driven = 0;
    for (int64_t k = 0; k < inst->n_events; k++)
        if (inst->flags[k] & FJ_INPUT_DRIVEN) inst->input_driven = 1;
}

static int kernel_failed(fj_instance *inst, int64_t status, const char *where, double t) {
    return fail(inst, FJ_STATUS_KERNEL_FAILED, "%s at t=%.9g (%s)", inst->fam->message(status), t, where);
}

/* The record at (t, y) in the current mode into out (n_record). */
static int record(fj_instance *inst, double t, const double *y, double *out) {
    inputs_at(inst, t);
    int64_t status = inst->fam->record(&inst->a, t, y, inst->tau, out, inst->n_record);
    return status ? kernel_failed(inst, status, "record", t) : FJ_STATUS_OK;
}

static int same_mode(const fj_instance *inst) {
    return memcmp(inst->fmode, inst->fmode_new, (size_t)inst->layout.n_fmode * sizeof(double)) == 0 &&
           memcmp(inst->imode, inst->imode_new, (size_t)inst->layout.n_imode * sizeof(int64_t)) == 0;
}

/* Decide the mode at (t, y) after `event` (an index, FJ_NO_EVENT or FJ_START) until it no longer
 * changes (HybridIntegrator._settle); the passes that changed it go to the report. */
static int settle(fj_instance *inst, double t, int64_t event) {
    const fj_mode_layout *L = &inst->layout;
    inst->report_t = t, inst->report_event = event, inst->report_passes = 0;
    memcpy(inst->report_fmodes, inst->fmode, (size_t)L->n_fmode * sizeof(double));
    memcpy(inst->report_imodes, inst->imode, (size_t)L->n_imode * sizeof(int64_t));
    inputs_at(inst, t);
    for (int pass = 0; pass < FJ_MAX_EVENTS_AT_ONE_TIME; pass++) {
        if (event == FJ_START) inst->a.fmode = NULL, inst->a.imode = NULL, inst->a.n_fmode = inst->a.n_imode = 0;
        int64_t status = inst->fam->decide(&inst->a, t, inst->y, inst->tau, event, inst->fmode_new, inst->imode_new,
                                           inst->change);
        if (status) return kernel_failed(inst, status, "mode decision", t);
        if (event != FJ_START && same_mode(inst)) return FJ_STATUS_OK;
        int64_t p = ++inst->report_passes;
        memcpy(inst->fmode, inst->fmode_new, (size_t)L->n_fmode * sizeof(double));
        memcpy(inst->imode, inst->imode_new, (size_t)L->n_imode * sizeof(int64_t));
        memcpy(inst->report_fmodes + p * L->n_fmode, inst->fmode, (size_t)L->n_fmode * sizeof(double));
        memcpy(inst->report_imodes + p * L->n_imode, inst->imode, (size_t)L->n_imode * sizeof(int64_t));
        memcpy(inst->report_changes + (p - 1) * L->n_change, inst->change, (size_t)L->n_change * sizeof(int64_t));
        mode_changed(inst);
        event = FJ_NO_EVENT;
    }
    return fail(inst, FJ_STATUS_NOT_SETTLED, "the mode does not settle at t=%.12g", t);
}

int fj_instance_start(fj_instance *inst, double t0, const double *y0) {
    if (!isfinite(t0)) return fail(inst, FJ_STATUS_BAD_ARGUMENT, "the start time %g is not finite", t0);
    for (int64_t i = 0; i < inst->n_y; i++)
        if (!isfinite(y0[i])) return fail(inst, FJ_STATUS_BAD_ARGUMENT, "y0[%d] is not finite", (int)i);
    memcpy(inst->y, y0, (size_t)inst->n_y * sizeof(double));
    inst->t = inst->forms_origin = t0;
    inst->h = 0.0;
    inst->restart_pending = 0;
    inst->rhs_calls = inst->steps = inst->events = 0;
    inst->last_event_t = NAN, inst->event_count = 0;
    inst->started = 1;
    return settle(inst, t0, FJ_START);
}

static int check_started(fj_instance *inst) {
    return inst->started ? FJ_STATUS_OK
                         : fail(inst, FJ_STATUS_BAD_ARGUMENT, "the instance has not been started (fj_instance_start)");
}

/* The inputs changed at the current time (forms written): jump as fj_instance_set_input_forms. */
static int inputs_changed(fj_instance *inst, int jump) {
    inst->forms_origin = inst->t;
    inst->report_passes = 0;
    if (!inst->started || jump == 0) return FJ_STATUS_OK;
    if (jump == 1) {
        inst->restart_pending = 1;
        return FJ_STATUS_OK;
    }
    inst->restart_pending = 0;
    return settle(inst, inst->t, FJ_NO_EVENT);
}

int fj_instance_set_input_forms(fj_instance *inst, const double *forms, int jump) {
    for (int64_t i = 0; i < 5 * inst->n_tau; i++)
        if (!isfinite(forms[i])) return fail(inst, FJ_STATUS_BAD_ARGUMENT, "input %d is not finite", (int)(i / 5));
    memcpy(inst->forms, forms, (size_t)(5 * inst->n_tau) * sizeof(double));
    return inputs_changed(inst, jump);
}

int fj_instance_set_inputs(fj_instance *inst, const double *value, const double *derivative) {
    for (int64_t i = 0; i < inst->n_tau; i++) {
        if (!isfinite(value[i])) return fail(inst, FJ_STATUS_BAD_ARGUMENT, "input %d is not finite", (int)i);
        if (derivative && !isfinite(derivative[i]))
            return fail(inst, FJ_STATUS_BAD_ARGUMENT, "the derivative of input %d is not finite", (int)i);
    }
    for (int64_t i = 0; i < inst->n_tau; i++) {
        double *row = inst->forms + 5 * i;
        row[0] = 0.0, row[1] = value[i], row[2] = derivative ? derivative[i] : 0.0, row[3] = row[4] = 0.0;
    }
    return inputs_changed(inst, 1);
}

/* Whether no change of the inputs at the current state can switch the mode (HybridIntegrator._quiet). */
static int quiet(fj_instance *inst, int *status) {
    if (!inst->watch_all) return 0;
    if (inst->n_events == 0) return 1;
    double *g = inst->scratch; /* free between steps */
    inputs_at(inst, inst->t);
    int64_t st = inst->fam->events(&inst->a, inst->t, inst->y, inst->tau, g, inst->n_events);
    if (st) {
        *status = kernel_failed(inst, st, "events", inst->t);
        return 0;
    }
    for (int64_t k = 0; k < inst->n_events; k++) {
        double distance = inst->directions[k] == 0 ? fabs(g[k]) : -(double)inst->directions[k] * g[k];
        if (!(distance > QUIET_MARGIN)) return 0;
    }
    return 1;
}

/* The event that fired at (t, y) in the current mode: rows before and after, the settled mode, the
 * Zeno guard (HybridIntegrator._at_event). */
static int at_event(fj_instance *inst, double t, int64_t k) {
    double *before = inst->report_rows, *after = inst->report_rows + inst->n_record;
    int status = record(inst, t, inst->y, before);
    if (status == FJ_STATUS_OK) status = settle(inst, t, k);
    if (status != FJ_STATUS_OK) return status;
    inst->event_count = t - inst->last_event_t < SAME_TIME ? inst->event_count + 1 : 1;
    inst->last_event_t = t;
    inst->events += 1;
    if (inst->event_count > FJ_MAX_EVENTS_AT_ONE_TIME) {
        return fail(inst, FJ_STATUS_ZENO, "%d events at t=%.12g: chattering (Zeno) detected", (int)inst->event_count,
                    t);
    }
    return record(inst, t, inst->y, after);
}

/* The pair that integrates a segment (one call of the integrator, from the current time or an event
 * to the end of the step) of `length` (s), and the step size it tries first (*h: in, the step size
 * carried from the last segment, 0 if none; out, the first step). The rule of the Python engine
 * (hybrid.integrator.segment_method): Dormand-Prince 5(4) when its first step covers the segment, the
 * segment being no longer than twice the carried step size (nor than max_step), else DOP853. A short
 * segment, a co-simulation step, is then one step of 6 right-hand sides instead of one of 12; one whose
 * RK45 steps had to shrink leaves a small step size, and the next segment takes DOP853, whose higher
 * order pays over several steps. */
static const fj_rk_method *segment_method(double length, double max_step, double *h) {
    if (*h > 0.0 && length <= 2.0 * *h && length <= max_step) {
        *h = length;
        return &fj_rk_rk45;
    }
    return &fj_rk_dop853;
}

/* One call of the family's integrator from the current time to t_end or the first event (fj_stepping.h's
 * statuses, inst->info filled): the family's own (RODAS for a stiff one), from the carried step size; else the pair
 * segment_method chooses. */
static int64_t integrate(fj_instance *inst, double t_end, double max_step, const double *grid, int64_t n_grid,
                         double *rows) {
    const fj_options *o = &inst->options;
    const double *forms = forms_from(inst, inst->t);
    if (inst->fam->integrator)
        return inst->fam->integrator->advance(inst->fam, &inst->a, inst->scratch, inst->t, inst->y, t_end, inst->h,
                                              o->rtol, o->atol, max_step, forms, inst->directions, inst->n_events,
                                              grid, n_grid, rows, inst->n_record, inst->info, 0.0);
    double h = inst->h;
    const fj_rk_method *method = segment_method(t_end - inst->t, max_step, &h);
    return fj_rk_advance(method, inst->fam, &inst->a, inst->scratch, inst->t, inst->y, t_end, h, o->rtol, o->atol,
                         max_step, forms, inst->directions, inst->n_events, grid, n_grid, rows, inst->n_record,
                         inst->info, 0.0);
}

/* The loop of fj_instance_step (stop 0) and fj_instance_advance (stop 1). */
static int run(fj_instance *inst, double t_end, const double *grid, int64_t n_grid, double *rows, int64_t *n_rows,
               int stop) {
    int status = check_started(inst);
    if (n_rows) *n_rows = 0;
    if (status) return status;
    if (!(t_end >= inst->t))
        return fail(inst, FJ_STATUS_BAD_ARGUMENT, "cannot integrate backwards to t_end=%.17g", t_end);
    inst->report_passes = 0;
    if (inst->restart_pending) {
        inst->restart_pending = 0;
        if (!quiet(inst, &status)) {
            if (status == FJ_STATUS_OK) status = settle(inst, inst->t, FJ_NO_EVENT);
            if (status != FJ_STATUS_OK) return status;
            if (stop && inst->report_passes) return FJ_ADVANCED_TO_EVENT;
        } else if (status != FJ_STATUS_OK) {
            return status;
        }
    }
    int64_t i_grid = 0, written = 0;
    while (inst->t < t_end) {
        while (i_grid < n_grid && grid[i_grid] <= inst->t) i_grid++; /* times of an event: its rows stand */
        double max_step = inst->options.max_step;
        if (inst->input_driven && inst->options.hold_step < max_step) max_step = inst->options.hold_step;
        int64_t result = integrate(inst, t_end, max_step, grid + i_grid, n_grid - i_grid,
                                   rows + written * inst->n_record);
        double *info = inst->info;
        inst->rhs_calls += (int64_t)info[FJ_INFO_RHS_CALLS];
        inst->steps += (int64_t)info[FJ_INFO_STEPS];
        written += (int64_t)info[FJ_INFO_RECORDS], i_grid += (int64_t)info[FJ_INFO_RECORDS];
        if (n_rows) *n_rows = written;
        /* an event at the call's start (a second event function crossing at the time of the last event) ends a
         * call that made no step: the carried step size stands, so that the next segment's pair does not hang
         * on which of two simultaneous events was found first (a rounding) */
        if (!(result == FJ_EVENT && info[FJ_INFO_T] == inst->t)) inst->h = info[FJ_INFO_H];
        inst->t = info[FJ_INFO_T];
        if (result == FJ_KERNEL_FAILED)
            return kernel_failed(inst, (int64_t)info[FJ_INFO_KERNEL_STATUS], "integration", inst->t);
        if (result == FJ_STEP_TOO_SMALL)
            return fail(inst, FJ_STATUS_STEP_TOO_SMALL,
                        "integration failed at t=%.9g: required step size is less than spacing between numbers",
                        inst->t);
        if (result != FJ_REACHED_END && result != FJ_EVENT) /* a status of the family's own integrator */
            return fail(inst, FJ_STATUS_KERNEL_FAILED, "integration failed at t=%.9g: %s", inst->t,
                        inst->fam->integrator ? inst->fam->integrator->message(result) : "unknown status");
        if (result == FJ_EVENT) {
            status = at_event(inst, inst->t, (int64_t)info[FJ_INFO_EVENT]);
            if (status != FJ_STATUS_OK) return status;
            if (stop) return FJ_ADVANCED_TO_EVENT;
        }
    }
    return FJ_ADVANCED_TO_END;
}

int fj_instance_step(fj_instance *inst, double t_end) { return run(inst, t_end, NULL, 0, NULL, NULL, 0); }

int fj_instance_advance(fj_instance *inst, double t_end, const double *grid, int64_t n_grid, double *rows,
                        int64_t *n_rows) {
    return run(inst, t_end, grid, n_grid, rows, n_rows, 1);
}

int fj_instance_report(const fj_instance *inst, fj_report *report) {
    report->t = inst->report_t;
    report->event = inst->report_event;
    report->n_passes = inst->report_passes;
    report->fmodes = inst->report_fmodes;
    report->imodes = inst->report_imodes;
    report->changes = inst->report_changes;
    report->row_before = inst->report_rows;
    report->row_after = inst->report_rows + inst->n_record;
    return FJ_STATUS_OK;
}

int fj_instance_outputs(fj_instance *inst, double *out) {
    int status = check_started(inst);
    return status ? status : record(inst, inst->t, inst->y, out);
}

int fj_instance_step_forms(fj_instance *inst, const double *forms, int jump, double t_end, double *out) {
    int status = fj_instance_set_input_forms(inst, forms, jump);
    if (status == FJ_STATUS_OK) status = fj_instance_step(inst, t_end);
    return status == FJ_STATUS_OK ? fj_instance_outputs(inst, out) : status;
}

double fj_instance_time(const fj_instance *inst) { return inst->t; }

const double *fj_instance_time_address(const fj_instance *inst) { return &inst->t; }

double fj_instance_step_size(const fj_instance *inst) { return inst->h; }

const double *fj_instance_y(const fj_instance *inst) { return inst->y; }

void fj_instance_mode(const fj_instance *inst, const double **fmode, const int64_t **imode, int64_t *n_fmode,
                      int64_t *n_imode) {
    *fmode = inst->fmode, *imode = inst->imode;
    *n_fmode = inst->layout.n_fmode, *n_imode = inst->layout.n_imode;
}

void fj_instance_counters(const fj_instance *inst, int64_t *rhs_calls, int64_t *steps, int64_t *events) {
    *rhs_calls = inst->rhs_calls, *steps = inst->steps, *events = inst->events;
}

/* Saved state: [magic, n_y, n_fmode, n_imode, n_tau, t, h, forms_origin, started, restart_pending,
 * events, steps | y | fmode | imode | forms]. */
int64_t fj_instance_state_size(const fj_instance *inst) {
    return STATE_HEADER + inst->n_y + inst->layout.n_fmode + inst->layout.n_imode + 5 * inst->n_tau;
}

int fj_instance_get_state(const fj_instance *inst, double *state) {
    double header[STATE_HEADER] = {STATE_MAGIC, (double)inst->n_y, (double)inst->layout.n_fmode,
                                   (double)inst->layout.n_imode, (double)inst->n_tau, inst->t, inst->h,
                                   inst->forms_origin, inst->started, inst->restart_pending, (double)inst->events,
                                   (double)inst->steps};
    memcpy(state, header, sizeof header);
    double *p = state + STATE_HEADER;
    memcpy(p, inst->y, (size_t)inst->n_y * sizeof(double));
    p += inst->n_y;
    memcpy(p, inst->fmode, (size_t)inst->layout.n_fmode * sizeof(double));
    p += inst->layout.n_fmode;
    for (int64_t i = 0; i < inst->layout.n_imode; i++) *p++ = (double)inst->imode[i];
    memcpy(p, inst->forms, (size_t)(5 * inst->n_tau) * sizeof(double));
    return FJ_STATUS_OK;
}

int fj_instance_set_state(fj_instance *inst, const double *state) {
    if (state[0] != STATE_MAGIC || state[1] != (double)inst->n_y || state[2] != (double)inst->layout.n_fmode ||
        state[3] != (double)inst->layout.n_imode || state[4] != (double)inst->n_tau)
        return fail(inst, FJ_STATUS_BAD_ARGUMENT, "the state is not one of this model (%d doubles expected)",
                    (int)fj_instance_state_size(inst));
    int64_t n = fj_instance_state_size(inst);
    for (int64_t i = STATE_HEADER; i < n; i++)
        if (!isfinite(state[i])) return fail(inst, FJ_STATUS_BAD_ARGUMENT, "the state's entry %d is not finite", (int)i);
    if (!isfinite(state[5]) || !(state[6] >= 0.0) || !(state[8] == 1.0))
        return fail(inst, FJ_STATUS_BAD_ARGUMENT, "the state's header is not valid");
    inst->t = state[5], inst->h = state[6], inst->forms_origin = state[7];
    inst->started = 1, inst->restart_pending = state[9] != 0.0;
    inst->events = (int64_t)state[10], inst->steps = (int64_t)state[11];
    const double *p = state + STATE_HEADER;
    memcpy(inst->y, p, (size_t)inst->n_y * sizeof(double));
    p += inst->n_y;
    memcpy(inst->fmode, p, (size_t)inst->layout.n_fmode * sizeof(double));
    p += inst->layout.n_fmode;
    for (int64_t i = 0; i < inst->layout.n_imode; i++) inst->imode[i] = (int64_t)*p++;
    memcpy(inst->forms, p, (size_t)(5 * inst->n_tau) * sizeof(double));
    inst->report_passes = 0;
    inst->last_event_t = NAN, inst->event_count = 0;
    mode_changed(inst);
    return FJ_STATUS_OK;
}

const char *fj_instance_message(const fj_instance *inst) { return inst->message; }
