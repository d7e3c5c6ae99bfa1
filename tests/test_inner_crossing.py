"""An event function that crosses zero and back within one integrator step is found, on both engines
(issue 32, item 9: the signs at a step's ends alone do not show it).

The system: an undamped oscillator x = cos t, v = -sin t (y = [x, v], dy/dt = [v, -x]) with one event
g = s (x + 1 - dip) of direction d (s = -1 for a rising event, else 1): g dips below zero while
cos t < -1 + dip, on (pi - a, pi + a) with a = arccos(1 - dip), which DOP853 at rtol 1e-8 steps over
within one step for the dips below (shown with solve_ivp, which compares the signs at the step's ends
only). The event fires at the first crossing, pi - a, into a mode without events. The C engine runs the
same system through a family of its own (DIP_FAMILY, built here with the engine).

The return (RETURN_FAMILY, ReturnSystem): the same oscillator with the gap g = x + 1 - dip computed, as a
clearance joint's gap from positions and angles, from terms far larger than itself, g = (x + 1 - dip) +
(B t / 3 + 2 B t / 3) - B t: zero to about the rounding of B t (1e-13 for B = 1e3 near t = 3 s), with
either sign. Mode "fall" fires as the gap falls through zero at pi - a; mode "return" starts there, at the
root of its own event function (to the root's residual, shifted to the side before its crossing by a
level, as contact.modes does), watches the gap rise through zero, which it does at pi + a, within the
first quarter of the first step after the fall. The gap moves away from zero first: a bracket from the
step's start also holds the rounding's sign changes around it, where Brent's method lands first (the
return fired at the fall in 3 of the 8 cases below on the Python engine, 2 on the C engine; a clearance
pendulum chattered so, see test_clearance_contact.py). The bracket starts at the gap's turn
(EventWatch._bracket)."""

import json
import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from friction_joints import native
from friction_joints.native.instance import CompiledIntegrator
from friction_joints.native.model import CompiledModel
from friction_joints.hybrid.integrator import DrivenSystem, Event, HybridIntegrator
from friction_joints.native.build import sources

from native_build import run_against, sanitized_library, sanitizers

RTOL = 1e-8
DIPS = (0.01, 1e-4, 1e-6)  # how deep x + 1 dips below zero: the step's samples see the first two, the turn
#                             of the parabola through them the third, which lies between them

DIP_FAMILY = r"""
#include <math.h>
#include <stddef.h>

#include "fj_kernel.h"
#include "fj_rodas.h"

/* fpar = [dip, s, direction]; imode = [events in the mode (1 or 0)]; y = [x, v]; record: x, v */
static int64_t rhs(const fj_args *a, double t, const double *y, const double *tau, double *dy, int64_t n) {
    (void)a, (void)t, (void)tau, (void)n;
    dy[0] = y[1];
    dy[1] = -y[0];
    return FJ_OK;
}

static int64_t events(const fj_args *a, double t, const double *y, const double *tau, double *g, int64_t n) {
    (void)t, (void)tau, (void)n;
    g[0] = a->fpar[1] * (y[0] + 1.0 - a->fpar[0]);
    return FJ_OK;
}

static int64_t record(const fj_args *a, double t, const double *y, const double *tau, double *out, int64_t n) {
    (void)a, (void)t, (void)tau, (void)n;
    out[0] = y[0];
    out[1] = y[1];
    return FJ_OK;
}

static void work_size(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar, int64_t *n_work,
                      int64_t *n_iwork) {
    (void)fpar, (void)n_fpar, (void)ipar, (void)n_ipar;
    *n_work = *n_iwork = 0;
}

static const char *message(int64_t status) { return status ? "failed" : "ok"; }

static void mode_layout(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                        fj_mode_layout *layout) {
    (void)fpar, (void)n_fpar, (void)ipar, (void)n_ipar;
    layout->n_fmode = 0;
    layout->n_imode = layout->max_events = 1;
    layout->n_change = 0;
}

/* mode 0 watches the dip in the direction fpar[2]; mode 1 has no events */
static int64_t mode_events(const fj_args *a, int64_t *directions, int64_t *flags, int64_t *watch_all) {
    directions[0] = (int64_t)a->fpar[2];
    flags[0] = 0;
    *watch_all = 1;
    return a->imode[0] == 0 ? 1 : 0;
}

static int64_t decide(const fj_args *a, double t, double *y, const double *tau, int64_t event, double *fmode,
                      int64_t *imode, int64_t *change) {
    (void)t, (void)y, (void)tau, (void)fmode, (void)change;
    imode[0] = event == FJ_START ? 0 : event == 0 ? 1 : a->imode[0];
    return FJ_OK;
}

const fj_family fj_family_dip = {"dip", rhs, events, record, work_size, message, mode_layout, mode_events, decide, NULL,
                                 NULL};
/* the same integrated with RODAS (a stiff family's integrator) */
const fj_family fj_family_stiff_dip = {"stiff_dip", rhs, events, record, work_size, message, mode_layout, mode_events,
                                       decide, &fj_rodas, NULL};
"""

RETURN_FAMILY = r"""
/* fpar = [dip, B]; imode = [0: watching the fall, 1: watching the return, 2: returned]; fmode = [level];
 * y = [x, v]; record: x, v (rhs, record, work_size and message of DIP_FAMILY, in the same source) */
static double gap(const double *fpar, double t, const double *y) {
    double B = fpar[1];
    return (y[0] + 1.0 - fpar[0]) + (B / 3.0 * t + 2.0 * B / 3.0 * t) - B * t;
}

static int64_t return_events(const fj_args *a, double t, const double *y, const double *tau, double *g,
                             int64_t n) {
    (void)tau, (void)n;
    g[0] = gap(a->fpar, t, y) - a->fmode[0];
    return FJ_OK;
}

static void return_layout(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                          fj_mode_layout *layout) {
    (void)fpar, (void)n_fpar, (void)ipar, (void)n_ipar;
    layout->n_fmode = layout->n_imode = layout->max_events = 1;
    layout->n_change = 0;
}

static int64_t return_mode_events(const fj_args *a, int64_t *directions, int64_t *flags, int64_t *watch_all) {
    directions[0] = a->imode[0] == 0 ? -1 : 1;
    flags[0] = 0;
    *watch_all = 1;
    return a->imode[0] < 2 ? 1 : 0;
}

/* the return starts on the side of zero before its crossing: its level is the fall's residual if above */
static int64_t return_decide(const fj_args *a, double t, double *y, const double *tau, int64_t event,
                             double *fmode, int64_t *imode, int64_t *change) {
    (void)tau, (void)change;
    imode[0] = event == FJ_START ? 0 : a->imode[0] + (event == 0);
    fmode[0] = event == FJ_START ? 0.0 : event != 0 ? a->fmode[0] : imode[0] == 1 ? fmax(gap(a->fpar, t, y), 0.0)
                                                                                  : 0.0;
    return FJ_OK;
}

const fj_family fj_family_return = {"return", rhs, return_events, record, work_size, message, return_layout,
                                    return_mode_events, return_decide, NULL, NULL};
"""


@dataclass(frozen=True)
class DipModel(CompiledModel):
    """The CompiledModel of DipSystem or ReturnSystem: their family of a library built from DIP_FAMILY and
    RETURN_FAMILY."""

    library_path: str = ""

    @cached_property
    def family(self) -> native.Family:
        return native.Family(self.family_name, native.library(self.library_path))


class DipSystem(DrivenSystem):
    """The oscillator of the module docstring; modes 0 (watching the dip) and 1 (after it, no events)."""

    def __init__(self, dip, direction, library_path=None, family="dip"):
        super().__init__([], 0)
        self.dip, self.direction, self.family = dip, direction, family
        self.sign = -1.0 if direction > 0 else 1.0
        self.library_path = library_path

    def g(self, t, y):
        return self.sign * (y[0] + 1.0 - self.dip)

    def events(self, mode):
        return [Event("dip", self.g, self.direction)] if mode == 0 else []

    def rhs(self, t, y, mode):
        return np.array([y[1], -y[0]])

    def update(self, t, y, mode, event):
        if mode is None:
            return y, 0, None
        return (y, 1, "dipped") if event == "dip" else (y, mode, None)

    def record(self, t, y, mode):
        return {"x": float(y[0]), "v": float(y[1])}

    def _build_compiled(self):
        if self.library_path is None:
            return None
        fpar, ipar = np.array([self.dip, self.sign, self.direction]), np.zeros(1, dtype=np.int64)
        return DipModel(self.family, fpar, ipar, 2, str(self.library_path))

    def encode_mode(self, mode):
        return np.zeros(0), np.array([mode], dtype=np.int64)

    def decode_mode(self, fmode, imode):
        return int(imode[0])

    def change_kind(self, mode, new, event, change):
        return self.update(0.0, None, mode, event)[2]

    def decode_record(self, out):
        return {"x": float(out[0]), "v": float(out[1])}


def families_library(folder, flags, objects):
    """A library of the engine and the families "dip" and "return" built in folder with the extra flags through
    the objects' cache ``objects`` (the test is skipped without a C compiler)."""
    (folder / "dip.c").write_text(DIP_FAMILY + RETURN_FAMILY)
    return sanitized_library(folder, flags, [*sources(), folder / "dip.c"], objects=objects)


@pytest.fixture(scope="module")
def dip_library(tmp_path_factory, object_cache):
    """families_library without sanitizers (it runs in this process)."""
    return families_library(tmp_path_factory.mktemp("dip"), (), object_cache)


@pytest.mark.parametrize("dip", DIPS)
def test_the_ends_of_a_step_do_not_show_the_dip(dip):
    """The premise: solve_ivp's DOP853 (the steps of both engines) steps over the dip, its end test
    finds no event, though the event function is below zero on an interval of the step."""
    g = DipSystem(dip, -1).g
    event = lambda t, y: g(t, y)  # noqa: E731
    event.direction, event.terminal = -1, True
    sol = solve_ivp(lambda t, y: [y[1], -y[0]], (0.0, 5.0), [1.0, 0.0], method="DOP853", rtol=RTOL,
                    atol=RTOL / 100, events=event)
    assert len(sol.t_events[0]) == 0
    a = math.acos(1.0 - dip)
    assert any(t0 < math.pi - a and math.pi + a < t1 for t0, t1 in zip(sol.t[:-1], sol.t[1:]))


def dip_time(engine, dip, direction, library_path=None, family="dip"):
    """The time at which the dip fires on the engine (HybridIntegrator or CompiledIntegrator), checked:
    it fires once, on the integrated trajectory (x there is -1 + dip to rounding), whose x is within 1e-8
    of cos t (DOP853's global error at rtol 1e-8 over half a period is about 1e-9), so at pi - a within
    1e-8 / |dx/dt| (|dx/dt| = sin a there); the rows before and after it are recorded. family: the C
    engine's ("stiff_dip": integrated by RODAS)."""
    system = DipSystem(dip, direction, library_path, family)
    integrator = engine(system, 0.0, [1.0, 0.0], rtol=RTOL, atol=RTOL / 100)
    results = integrator.advance(5.0, [2.0, 5.0])
    assert [kind for _, kind in results.events] == ["dipped"]
    t_event = results.events[0][0]
    assert results.t.tolist() == [0.0, 2.0, t_event, t_event, 5.0]
    assert abs(results["x"][2] - (dip - 1.0)) < 1e-14
    a = math.acos(1.0 - dip)
    assert abs(t_event - (math.pi - a)) < 1e-8 / math.sin(a), f"the dip fired at {t_event!r}"
    return t_event


@pytest.mark.parametrize("direction", [-1, 1, 0])
@pytest.mark.parametrize("dip", DIPS)
def test_a_dip_within_one_step_fires_at_its_first_crossing(direction, dip):
    dip_time(HybridIntegrator, dip, direction)


@pytest.mark.parametrize("direction", [-1, 1, 0])
@pytest.mark.parametrize("dip", DIPS)
def test_the_compiled_engine_finds_the_dip_at_the_same_time(direction, dip, dip_library):
    """The C engine (rk_driver.c) fires at the dip's first crossing too, within 1e-9 s of the Python engine
    (test_compiled_engine.py's tolerance)."""
    t_compiled = dip_time(CompiledIntegrator, dip, direction, dip_library)
    assert abs(t_compiled - dip_time(HybridIntegrator, dip, direction)) < 1e-9


@pytest.mark.parametrize("direction", [-1, 1, 0])
@pytest.mark.parametrize("dip", DIPS)
def test_rodas_finds_the_dip_at_the_same_time(direction, dip, dip_library):
    """The C engine's stiff path (rodas.c, a family flagged stiff) shares the search inside a step
    (stepping.c's fj_step_events): it fires at the dip's first crossing too, steps of RODAS (order 4, a
    dense output of degree 3) being as long as DOP853's here (the oscillator is not stiff)."""
    t_rodas = dip_time(CompiledIntegrator, dip, direction, dip_library, "stiff_dip")
    assert abs(t_rodas - dip_time(HybridIntegrator, dip, direction)) < 1e-8 / math.sin(math.acos(1.0 - dip))


class ReturnSystem(DipSystem):
    """The return of the module docstring: modes (0, 0) watching the fall, (1, level) the return, (2, 0)
    after it. B (s^-1): the size of the terms of the gap (module docstring)."""

    def __init__(self, dip, B, library_path=None):
        super().__init__(dip, -1, library_path)
        self.B = B

    def gap(self, t, y):
        B = self.B
        return (y[0] + 1.0 - self.dip) + (B / 3.0 * t + 2.0 * B / 3.0 * t) - B * t

    def events(self, mode):
        if mode[0] == 0:
            return [Event("fall", self.gap, -1)]
        return [Event("return", lambda t, y: self.gap(t, y) - mode[1], 1)] if mode[0] == 1 else []

    def update(self, t, y, mode, event):
        if mode is None:
            return y, (0, 0.0), None
        if event == "fall":
            return y, (1, max(self.gap(t, y), 0.0)), "fell"
        return (y, (2, 0.0), "returned") if event == "return" else (y, mode, None)

    def _build_compiled(self):
        if self.library_path is None:
            return None
        return DipModel("return", np.array([self.dip, self.B]), np.zeros(1, dtype=np.int64), 2,
                        str(self.library_path))

    def encode_mode(self, mode):
        return np.array([mode[1]]), np.array([mode[0]], dtype=np.int64)

    def decode_mode(self, fmode, imode):
        return int(imode[0]), float(fmode[0])

    def change_kind(self, mode, new, event, change):
        return {"fall": "fell", "return": "returned"}.get(event) if mode is not None else None


def return_times(engine, dip, B, library_path=None):
    """(fall, return) times on the engine, checked: each fires once, within 1e-8 / sin a of pi -+ a (as
    dip_time)."""
    integrator = engine(ReturnSystem(dip, B, library_path), 0.0, [1.0, 0.0], rtol=RTOL, atol=RTOL / 100)
    results = integrator.advance(5.0)
    assert [kind for _, kind in results.events] == ["fell", "returned"]
    (t_fall, _), (t_return, _) = results.events
    a = math.acos(1.0 - dip)
    for t, expected in ((t_fall, math.pi - a), (t_return, math.pi + a)):
        assert abs(t - expected) < 1e-8 / math.sin(a), f"fell at {t_fall!r}, returned at {t_return!r}"
    return t_fall, t_return


RETURNS = [(dip, B) for dip in (1e-3, 1e-4, 1e-5, 1e-6) for B in (10.0, 1e3)]


@pytest.mark.parametrize("dip, B", RETURNS)
def test_a_return_from_the_root_of_the_same_function_fires_where_it_returns(dip, B):
    return_times(HybridIntegrator, dip, B)


@pytest.mark.parametrize("dip, B", RETURNS)
def test_the_compiled_engine_finds_the_return_at_the_same_time(dip, B, dip_library):
    """Within 1e-9 s of the Python engine's times, 1e-9 / sin a for the return (the engines restart after
    the fall with different step sizes: their x differ by their global errors, about 1e-11, which the
    return's slope sin a turns into time)."""
    (fall, back), (fall_ref, back_ref) = return_times(CompiledIntegrator, dip, B, dip_library), return_times(
        HybridIntegrator, dip, B)
    assert abs(fall - fall_ref) < 1e-9
    assert abs(back - back_ref) < 1e-9 / math.sin(math.acos(1.0 - dip))


SANITIZED = """
import json, sys
from test_inner_crossing import compiled_times
print(json.dumps(compiled_times(sys.argv[1])))
"""


def compiled_times(library_path) -> list:
    """The dip's and the return's times of every case above on the C engine built as library_path."""
    times = [dip_time(CompiledIntegrator, dip, d, library_path, family) for dip in DIPS for d in (-1, 1, 0)
             for family in ("dip", "stiff_dip")]
    return times + [t for dip, B in RETURNS for t in return_times(CompiledIntegrator, dip, B, library_path)]


@pytest.mark.slow
def test_the_inner_crossings_under_sanitizers(tmp_path, dip_library, object_cache):
    """stepping.c's search inside a step (the samples, the brackets split at a turn; rk_driver.c's and
    rodas.c's) on a build with
    sanitizers() (tests/native_build.py) at -O0 (as conftest's sanitized_engine: it compiles in a quarter of
    -O2's time and checks the same): the same times as the -O2 build without them."""
    library = families_library(tmp_path, (*sanitizers(), "-O0"), object_cache)
    assert json.loads(run_against(library, SANITIZED)) == compiled_times(dip_library)
