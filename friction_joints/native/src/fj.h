/* fj.h: the C engine's one public API (C99, libm only): an instance of a packed model, stepped in C.
 *
 * An instance holds a family's packed model (copied), its workspace and its whole state: time, the
 * continuous state y, the mode, the step size, the inputs. Everything it needs is allocated by
 * fj_instance_new; nothing is allocated afterwards, and nothing is global: several instances run at
 * once in several threads, each used by one thread at a time.
 *
 *   fj_instance *inst = fj_instance_new("lumped", fpar, n_fpar, ipar, n_ipar, n_y, n_tau, n_record,
 *                                       &options, error, sizeof error);
 *   fj_instance_start(inst, t0, y0);                 the initial mode decided (settled)
 *   fj_instance_set_inputs(inst, value, derivative); held from now on: value + derivative (t - t_now)
 *   fj_instance_step(inst, t + h);                   events and mode decisions included
 *   fj_instance_outputs(inst, out);                  the record at the current time (n_record)
 *   fj_instance_free(inst);
 *
 * Every function but fj_instance_new returns FJ_STATUS_OK or an error status; the message of the
 * last error names its cause (fj_instance_message). After an error in a step the instance keeps the
 * state it reached (the time of the failure), and set_state restores a saved one.
 */
#ifndef FJ_H
#define FJ_H

#include <stddef.h>
#include <stdint.h>

typedef struct fj_instance fj_instance;

/* the statuses of the API's functions */
enum {
    FJ_STATUS_OK = 0,
    FJ_STATUS_BAD_ARGUMENT,    /* a size, a value or a call out of order (message names it) */
    FJ_STATUS_KERNEL_FAILED,   /* a kernel or a mode decision failed (singular, not converging...) */
    FJ_STATUS_STEP_TOO_SMALL,  /* the integrator's step fell below the spacing of the numbers */
    FJ_STATUS_ZENO,            /* more than FJ_MAX_EVENTS_AT_ONE_TIME events at one time */
    FJ_STATUS_NOT_SETTLED,     /* the mode does not settle after FJ_MAX_EVENTS_AT_ONE_TIME decisions */
    FJ_STATUS_NO_MEMORY        /* fj_instance_new only */
};

/* what fj_instance_advance returns besides an error status */
enum { FJ_ADVANCED_TO_END = 0, FJ_ADVANCED_TO_EVENT = 100 };

#define FJ_MAX_EVENTS_AT_ONE_TIME 10

/* the integrator's options */
typedef struct fj_options {
    double rtol, atol;  /* the integrator's tolerances (DOP853, RK45; RODAS for a stiff family): 0 < rtol < 1,
                         * atol > 0 */
    double max_step;    /* bound on the step size (s), > 0 (INFINITY: none) */
    double hold_step;   /* bound on the step size (s) while an input-driven event is armed, > 0 */
} fj_options;

/* The instance of the family `family` over the packed model (fpar, ipar, copied), with n_y states,
 * n_tau inputs and records of n_record values; NULL on failure, with the reason in error (n_error
 * bytes, may be NULL). options NULL: rtol 1e-10, atol 1e-12, no step bounds. */
fj_instance *fj_instance_new(const char *family, const double *fpar, int64_t n_fpar, const int64_t *ipar,
                             int64_t n_ipar, int64_t n_y, int64_t n_tau, int64_t n_record, const fj_options *options,
                             char *error, size_t n_error);
/* The same for a family given by its definition (fj_kernel.h), e.g. one outside the engine's list. */
struct fj_family;
fj_instance *fj_instance_new_of(const struct fj_family *family, const double *fpar, int64_t n_fpar,
                                const int64_t *ipar, int64_t n_ipar, int64_t n_y, int64_t n_tau, int64_t n_record,
                                const fj_options *options, char *error, size_t n_error);
void fj_instance_free(fj_instance *inst);

/* The state at t0 (y0: n_y) and the initial mode decided there, with the inputs set so far (zero
 * before any). */
int fj_instance_start(fj_instance *inst, double t0, const double *y0);

/* Inputs held from the current time on: tau_i(t) = value_i + derivative_i (t - t_now) (n_tau each;
 * derivative NULL: zero). The next step first re-decides the mode where the change could switch it
 * (a restart: skipped while every event function is far from firing). Non-finite values are refused. */
int fj_instance_set_inputs(fj_instance *inst, const double *value, const double *derivative);

/* Inputs as the library's signal forms (n_tau rows of 5, fj_rk.h) from the current time on.
 * jump: 0 the inputs continue (no decision), 1 a restart (as set_inputs), 2 a jump (the mode is
 * re-decided now, as at an input breakpoint of the Python engine). */
int fj_instance_set_input_forms(fj_instance *inst, const double *forms, int jump);

/* Integrate to t_end (>= the current time), events and mode decisions included. */
int fj_instance_step(fj_instance *inst, double t_end);

/* A co-simulation step in one call: fj_instance_set_input_forms(inst, forms, jump), fj_instance_step(inst,
 * t_end), then fj_instance_outputs(inst, out); the first of them that fails ends it with its status. */
int fj_instance_step_forms(fj_instance *inst, const double *forms, int jump, double t_end, double *out);

/* As fj_instance_step, but stop right after the first event (its mode settled) and record: the rows
 * of the records at the times of grid (n_grid, increasing, within (t, t_end]) that are reached, into
 * rows (n_grid x n_record). Returns FJ_ADVANCED_TO_END, FJ_ADVANCED_TO_EVENT (fj_instance_report
 * describes it) or an error status; *n_rows: the rows written. */
int fj_instance_advance(fj_instance *inst, double t_end, const double *grid, int64_t n_grid, double *rows,
                        int64_t *n_rows);

/* The last mode decision that changed the mode (an event, a restart or a jump, or the start). */
typedef struct fj_report {
    double t;                /* its time (s) */
    int64_t event;           /* the index of the event of the mode before that fired, or FJ_NO_EVENT */
    int64_t n_passes;        /* decisions that changed the mode (the mode settles after them) */
    const double *fmodes;    /* (n_passes + 1) x n_fmode: the mode before the first and after each pass */
    const int64_t *imodes;   /* (n_passes + 1) x n_imode */
    const int64_t *changes;  /* n_passes x n_change: each pass's change report (fj_kernel.h) */
    const double *row_before, *row_after; /* n_record each: the records before and after it */
} fj_report;
int fj_instance_report(const fj_instance *inst, fj_report *report);

/* The record at the current time and state into out (n_record). */
int fj_instance_outputs(fj_instance *inst, double *out);

double fj_instance_time(const fj_instance *inst);
/* where the instance keeps its time (s): read there, it is fj_instance_time's without a call (valid until
 * fj_instance_free) */
const double *fj_instance_time_address(const fj_instance *inst);
/* the step size the integrator tries next (s; 0 before the first step) */
double fj_instance_step_size(const fj_instance *inst);
/* the continuous state (n_y) and the mode (n_fmode, n_imode of the family's layout) */
const double *fj_instance_y(const fj_instance *inst);
void fj_instance_mode(const fj_instance *inst, const double **fmode, const int64_t **imode, int64_t *n_fmode,
                      int64_t *n_imode);
/* the event counters: rhs calls, accepted steps and events since the start */
void fj_instance_counters(const fj_instance *inst, int64_t *rhs_calls, int64_t *steps, int64_t *events);

/* The whole state (time, y, mode, step size, inputs, a pending restart) as doubles: the size, a copy
 * into state (fj_instance_state_size doubles), and a restore from such a copy (checked: its size, its
 * header, finite values). A state restores exactly: the continued run is bit-identical. */
int64_t fj_instance_state_size(const fj_instance *inst);
int fj_instance_get_state(const fj_instance *inst, double *state);
int fj_instance_set_state(fj_instance *inst, const double *state);

/* The message of the last error ("" if none). */
const char *fj_instance_message(const fj_instance *inst);

#endif
