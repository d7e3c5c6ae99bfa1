/* assembly_file.c: the checks of the assemblies of mechanism files (the model.c of their native FMUs, written by
 * friction_joints/fmi/native_file.py): the checks that mechanisms/files.py (MechanismFile.build) and the classes
 * it builds (planar.Body, the joints, the friction laws) make of the values of a file's expressions, with their
 * messages, each problem "<key path> (line N): <message>" in a report that files.py's words close; and of the
 * bristle laws the file's joints name for themselves (MechanismFile.bristle_laws).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fj_assembly.h"
#include "fj_bristle_laws.h"
#include "fj_linalg.h"
#include "planar_internal.h"
#include "planar_joints.h"

enum { CHECKS = 400 }; /* bytes of one key's check messages */

double fj_file_div(int *bad, double a, double b) {
    *bad |= b == 0.0; /* Python's ZeroDivisionError */
    return a / b;
}

/* CPython's math module (and float's **): an error where a result is NaN of numbers or infinite of finite
 * arguments (a ValueError for a domain error, an OverflowError for a range error). */
static double checked(int *bad, double r, double a, double b) {
    *bad |= (isnan(r) && !isnan(a) && !isnan(b)) || (isinf(r) && isfinite(a) && isfinite(b));
    return r;
}

double fj_file_f1(int *bad, double (*f)(double), double a) { return checked(bad, f(a), a, 0.0); }

double fj_file_f2(int *bad, double (*f)(double, double), double a, double b) { return checked(bad, f(a, b), a, b); }

double fj_file_value(fj_problems *report, const char *where, int bad, double x) {
    if (bad) {
        fj_problem(report, "%scannot be evaluated (a division by zero, or a domain or range error)", where);
    } else if (!isfinite(x)) {
        char shown[40];
        fj_repr(x, shown, sizeof shown);
        fj_problem(report, "%sevaluates to %s, not a finite real number", where, shown); /* expressions.evaluate */
    } else {
        return x;
    }
    return NAN; /* files.py's num() gives NaN for an expression it cannot evaluate */
}

/* The problems of one key's checks (the ValueError of the class that files.py's attempt() catches). */
static void add(fj_problems *report, const char *where, const fj_problems *checks) {
    if (checks->count) fj_problem(report, "%s%s", where, checks->error);
}

void fj_file_body(fj_problems *report, const char *where, const char *name, const double *body) {
    char text[CHECKS], key[4][80];
    fj_problems checks = fj_no_problems(text, sizeof text);
    static const char *const fields[] = {"m", "J", "force_x", "force_y"};
    for (int i = 0; i < 4; i++) snprintf(key[i], sizeof key[i], "%s.%s", name, fields[i]);
    fj_require(&checks, key[0], body[0], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0); /* planar.Body */
    fj_require(&checks, key[1], body[1], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require_finite(&checks, key[2], body[2]);
    fj_require_finite(&checks, key[3], body[3]);
    snprintf(key[0], sizeof key[0], "%s.moment", name);
    fj_require_finite(&checks, key[0], body[4]);
    add(report, where, &checks);
}

void fj_file_law(fj_problems *report, const char *where, int64_t kind, const double *law) {
    char text[CHECKS];
    fj_problems checks = fj_no_problems(text, sizeof text);
    double mu_s = law[0], a = law[1];
    switch (kind) { /* friction.laws: the __post_init__ of each law; law = [mu_s, then the law's own] */
    case COULOMB:
    case STRIBECK:
        fj_require(&checks, "mu_s", mu_s, FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
        fj_require(&checks, "mu_k", a, FJ_CLOSED, 0.0, mu_s >= 0 ? FJ_CLOSED : FJ_NO_BOUND, mu_s);
        if (kind == STRIBECK) {
            fj_require(&checks, "v_s", law[2], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
            fj_require(&checks, "delta", law[3], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
        }
        break;
    case EXPONENTIAL: /* [mu_s, mu_0, k, v_k] */
        fj_require(&checks, "mu_0", a, FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
        fj_require(&checks, "k", law[2], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
        fj_require(&checks, "v_k", law[3], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
        fj_require(&checks, "mu_s", mu_s, FJ_CLOSED, a >= 0 ? a : 0.0, FJ_NO_BOUND, 0.0);
        break;
    case TANH: /* [mu_s, mu_k, v_eps] */
        fj_require(&checks, "mu_k", a, FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
        fj_require(&checks, "v_eps", law[2], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
        fj_require(&checks, "mu_s", mu_s, FJ_CLOSED, a >= 0 ? a : 0.0, FJ_NO_BOUND, 0.0);
        break;
    default: break;
    }
    add(report, where, &checks);
}

/* Prismatic's e_j: a problem unless finite and non-zero, else made a unit vector. */
static void unit_guide(fj_problems *checks, double *e) {
    double norm = fj_hypot(e[0], e[1]);
    if (isfinite(norm) && norm != 0.0) {
        e[0] /= norm, e[1] /= norm;
        return;
    }
    char x[40], y[40];
    fj_repr(e[0], x, sizeof x), fj_repr(e[1], y, sizeof y);
    fj_problem(checks, "e_j=(%s, %s) must be a finite non-zero direction", x, y);
}

void fj_file_joint(fj_problems *report, const char *where, int64_t type, double *joint, int r_open, int has_edge) {
    char text[CHECKS];
    fj_problems checks = fj_no_problems(text, sizeof text);
    if (type == PRISMATIC) { /* planar.Prismatic */
        unit_guide(&checks, joint + JF_EJ);
        if (has_edge) fj_require(&checks, "edge_length", joint[JF_EDGE], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    } else { /* planar.Revolute, PinInSlot: the arm r; the pin's slot is a Prismatic once r is valid */
        fj_require(&checks, "r", joint[JF_R], r_open ? FJ_OPEN : FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
        if (type == PIN_IN_SLOT && !checks.count) unit_guide(&checks, joint + JF_EJ);
    }
    add(report, where, &checks);
}

void fj_file_direction(fj_problems *report, const char *where, double *direction) {
    double norm = fj_hypot(direction[0], direction[1]);
    if (norm > 0.0) {
        direction[0] /= norm, direction[1] /= norm;
        return;
    }
    fj_problem(report, "%smust be a non-zero direction", where);
}

void fj_file_own_law(fj_problems *report, const char *where, const char *prefix, const double *given, double *law) {
    static const char *const fields[FJ_BRISTLE_LAW_SIZE] = {"model", "sigma0", "sigma1", "sigma2",    "mu_c",
                                                            "mu_s",  "v_s",    "delta",  "z_ba_ratio"};
    char named[FJ_BRISTLE_LAW_SIZE][160], text[CHECKS];
    const char *names[FJ_BRISTLE_LAW_SIZE];
    for (int i = 0; i < FJ_BRISTLE_LAW_SIZE; i++) { /* mu_c and mu_s come from the joint's friction law */
        int own = i != FJ_LAW_MU_C && i != FJ_LAW_MU_S;
        snprintf(named[i], sizeof named[i], "%s%s", own ? prefix : "", fields[i]);
        names[i] = named[i];
    }
    fj_problems checks = fj_no_problems(text, sizeof text);
    fj_bristle_law_named(&checks, names, given, law);
    if (checks.count)
        fj_problem(report, "%s%s%s", where, text,
                   strstr(text, "mu_c=") || strstr(text, "mu_s=")
                       ? " (mu_c and mu_s: the kinetic and static coefficients of its friction law)"
                       : "");
}

int64_t fj_file_report(const fj_problems *report, const char *file, fj_problems *pr) {
    if (report->count == 1)
        fj_problem(pr, "%s: %s", file, report->error);
    else if (report->count > 1)
        fj_problem(pr, "%s: %lld problems:\n  %s", file, (long long)report->count, report->error);
    return pr->count;
}
