/* assembly.c: the parameter checks every assembly uses (fj_assembly.h: errors.require's messages, Python's
 * repr of a float). The assemblies of the models are in assembly_<family>.c (assemblies.c finds them by name),
 * so that a native FMU's binary holds only its own.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fj_assembly.h"

/* ==================================================================================================
 * Python's repr(float) and the parameter checks (errors.require, errors.check_parameters)
 * ================================================================================================== */

void fj_repr(double x, char *out, size_t n) {
    if (n == 0) return;
    if (isnan(x) || isinf(x)) {
        snprintf(out, n, "%s", isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf"));
        return;
    }
    char e_form[40];
    for (int precision = 0; precision < 17; precision++) { /* the fewest digits that read back as x */
        snprintf(e_form, sizeof e_form, "%.*e", precision, x);
        if (strtod(e_form, NULL) == x) break;
    }
    /* e_form: [-]d[.ddd]e[+-]XX; its decimal point is the locale's, so only digits are read */
    char digits[24];
    int n_digits = 0, exponent = 0;
    const char *c = e_form + (e_form[0] == '-');
    for (; *c && *c != 'e' && *c != 'E'; c++)
        if (*c >= '0' && *c <= '9' && n_digits < 23) digits[n_digits++] = *c;
    while (n_digits > 1 && digits[n_digits - 1] == '0') n_digits--; /* %.*e pads with zeros */
    digits[n_digits] = '\0';
    if (*c) exponent = atoi(c + 1);
    char text[64], *t = text;
    if (x < 0 || (x == 0 && signbit(x))) *t++ = '-';
    if (exponent < -4 || exponent >= 16) { /* d[.ddd]e[+-]XX, as float_repr_style 'short' */
        *t++ = digits[0];
        if (n_digits > 1) {
            *t++ = '.';
            memcpy(t, digits + 1, (size_t)(n_digits - 1));
            t += n_digits - 1;
        }
        snprintf(t, sizeof text - (size_t)(t - text), "e%c%02d", exponent < 0 ? '-' : '+', abs(exponent));
    } else if (exponent < 0) { /* 0.000ddd */
        t += sprintf(t, "0.");
        for (int i = 0; i < -exponent - 1; i++) *t++ = '0';
        sprintf(t, "%s", digits);
    } else { /* ddd.ddd, with ".0" for an integer */
        for (int i = 0; i <= exponent; i++) *t++ = i < n_digits ? digits[i] : '0';
        *t++ = '.';
        if (n_digits > exponent + 1) {
            memcpy(t, digits + exponent + 1, (size_t)(n_digits - exponent - 1));
            t += n_digits - exponent - 1;
        } else {
            *t++ = '0';
        }
        *t = '\0';
    }
    snprintf(out, n, "%s", text);
}

/* errors.require: a problem unless low <= value <= high (each bound FJ_NO_BOUND, FJ_CLOSED or FJ_OPEN), NaN
 * and infinite values are problems too. Its text: "name=repr(value) is outside the allowed range lo, hi"
 * with the bounds as Python's format "g" writes them. */
void fj_require(fj_problems *pr, const char *name, double value, int low_kind, double low, int high_kind,
                double high) {
    int bad = isnan(value) || isinf(value);
    if (low_kind == FJ_CLOSED) bad |= value < low;
    if (low_kind == FJ_OPEN) bad |= value <= low;
    if (high_kind == FJ_CLOSED) bad |= value > high;
    if (high_kind == FJ_OPEN) bad |= value >= high;
    if (!bad) return;
    char shown[40], lo[40], hi[40];
    fj_repr(value, shown, sizeof shown);
    if (low_kind == FJ_NO_BOUND)
        snprintf(lo, sizeof lo, "(-inf");
    else
        snprintf(lo, sizeof lo, "%c%g", low_kind == FJ_OPEN ? '(' : '[', low);
    if (high_kind == FJ_NO_BOUND)
        snprintf(hi, sizeof hi, "inf)");
    else
        snprintf(hi, sizeof hi, "%g%c", high, high_kind == FJ_OPEN ? ')' : ']');
    fj_problem(pr, "%s=%s is outside the allowed range %s, %s", name, shown, lo, hi);
}

void fj_problem(fj_problems *pr, const char *format, ...) {
    pr->count++;
    if (pr->error == NULL || pr->n_error == 0 || pr->used >= pr->n_error - 1) return;
    int written = pr->count > 1 ? snprintf(pr->error + pr->used, pr->n_error - pr->used, "%s", pr->separator) : 0;
    if (written > 0) pr->used += (size_t)written;
    if (pr->used < pr->n_error - 1) {
        va_list args;
        va_start(args, format);
        written = vsnprintf(pr->error + pr->used, pr->n_error - pr->used, format, args);
        va_end(args);
        if (written > 0) pr->used += (size_t)written;
    }
    if (pr->used >= pr->n_error) pr->used = pr->n_error - 1;
}

fj_problems fj_no_problems(char *error, size_t n_error) {
    fj_problems pr = {error, n_error, 0, 0, "; "};
    if (error != NULL && n_error > 0) error[0] = '\0';
    return pr;
}

void fj_require_finite(fj_problems *pr, const char *name, double value) {
    fj_require(pr, name, value, FJ_NO_BOUND, 0.0, FJ_NO_BOUND, 0.0);
}

void fj_require_exact_friction(fj_problems *pr, double friction_model, const char *bristle) {
    if (friction_model == 0.0) return; /* not a Python check: the exact model's assembly */
    if (bristle != NULL)
        fj_problem(pr, "friction_model=%g: this assembly has the exact friction model (0) only; the bristle laws "
                       "(1-4) are the assembly %s's", friction_model, bristle);
    else
        fj_problem(pr, "friction_model=%g: the native FMU has the exact friction model (0) only; the bristle laws "
                       "(1-4) run in the pythonfmu FMU", friction_model);
}
