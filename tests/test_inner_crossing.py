"""An event function that crosses zero and back within one integrator step is found, on both engines
(issue 32, item 9: the signs at a step's ends alone do not show it).

The system: an undamped oscillator x = cos t, v = -sin t (y = [x, v], dy/dt = [v, -x]) with one event
g = s (x + 1 - dip) of direction d (s = -1 for a rising event, else 1): g dips below zero while
cos t < -1 + dip, on (pi - a, pi + a) with a = arccos(1 - dip), which DOP853 at rtol 1e-8 steps over
within one step for the dips below (shown with solve_ivp, which compares the signs at the step's ends
only). The event fires at the first crossing, pi - a, into a mode without events. The C engine runs the
same system through a family of its own (DIP_FAMILY, built here with dop853.c)."""

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

from native_build import sanitized_library

RTOL = 1e-8
DIPS = (0.01, 1e-4, 1e-6)  # how deep x + 1 dips below zero: the step's samples see the first two, the turn
#                             of the parabola through them the third, which lies between them

DIP_FAMILY = r"""
#include "fj_kernel.h"

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

const fj_family fj_family_dip = {"dip", rhs, events, record, work_size, message, mode_layout, mode_events, decide};
"""


@dataclass(frozen=True)
class DipModel(CompiledModel):
    """The CompiledModel of DipSystem: the family "dip" of a library built from DIP_FAMILY."""

    library_path: str = ""

    @cached_property
    def family(self) -> native.Family:
        return native.Family(self.family_name, native.library(self.library_path))


class DipSystem(DrivenSystem):
    """The oscillator of the module docstring; modes 0 (watching the dip) and 1 (after it, no events)."""

    def __init__(self, dip, direction, library_path=None):
        super().__init__([], 0)
        self.dip, self.direction = dip, direction
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
        return DipModel("dip", fpar, ipar, 2, str(self.library_path))

    def encode_mode(self, mode):
        return np.zeros(0), np.array([mode], dtype=np.int64)

    def decode_mode(self, fmode, imode):
        return int(imode[0])

    def change_kind(self, mode, new, event, change):
        return self.update(0.0, None, mode, event)[2]

    def decode_record(self, out):
        return {"x": float(out[0]), "v": float(out[1])}


@pytest.fixture(scope="module")
def dip_library(tmp_path_factory):
    """A library of the engine and the family "dip" (no sanitizer: it runs in this process; the test is
    skipped without a C compiler)."""
    folder = tmp_path_factory.mktemp("dip")
    (folder / "dip.c").write_text(DIP_FAMILY)
    return sanitized_library(folder, (), [*sources(), folder / "dip.c"])


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


def dip_time(engine, dip, direction, library_path=None):
    """The time at which the dip fires on the engine (HybridIntegrator or CompiledIntegrator), checked:
    it fires once, on the integrated trajectory (x there is -1 + dip to rounding), whose x is within 1e-8
    of cos t (DOP853's global error at rtol 1e-8 over half a period is about 1e-9), so at pi - a within
    1e-8 / |dx/dt| (|dx/dt| = sin a there); the rows before and after it are recorded."""
    integrator = engine(DipSystem(dip, direction, library_path), 0.0, [1.0, 0.0], rtol=RTOL, atol=RTOL / 100)
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
    """The C engine (dop853.c) fires at the dip's first crossing too, within 1e-9 s of the Python engine
    (test_compiled_engine.py's tolerance)."""
    t_compiled = dip_time(CompiledIntegrator, dip, direction, dip_library)
    assert abs(t_compiled - dip_time(HybridIntegrator, dip, direction)) < 1e-9
