"""One event-driven hybrid integrator for every model of the project.

The smooth dynamics of the current mode are integrated by SciPy's DOP853 (explicit Runge-Kutta of
order 8 with a 7th-order dense output and error control). DOP853 is chosen over RK45 because the
energy balance and event times are wanted to 1e-6 and better: at tight tolerances an 8th-order
method takes far fewer steps, and its dense output locates event roots (SciPy brentq on the
interpolant, to about 4 machine epsilons in t) without restarting steps. The right-hand side
within a mode is smooth (the mode fixes the friction directions), so a high order pays. A segment
that one step covers (a co-simulation step) is one step whatever the order, and RK45 takes it with
half the right-hand sides (``segment_method``). The solver is stepped here (SciPy's OdeSolver.step, as
solve_ivp does) so that events are looked for inside each step too, where an event function crosses
zero and back (``EventWatch``), by the same rule as the compiled engine's rk_driver.c.

A model plugs in through the ``HybridSystem`` interface: state events of the current mode
(callables with a direction, as in solve_ivp), a right-hand side, the discrete mode update at an
event, the quantities to record, and the input breakpoints (time events). After every event the
mode update repeats until nothing changes (FMPy's event loop); more than ``MAX_EVENTS_AT_ONE_TIME``
events at one instant is reported as a Zeno/chattering error rather than looped over.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..errors import FrictionJointsError
from .signals import as_signal

MAX_EVENTS_AT_ONE_TIME = 10
EPS = np.finfo(float).eps  # the tolerances of the event roots: 4 EPS (SciPy's solve_ivp)
NOT_CROSSED = np.finfo(float).tiny  # |g| given to an event function resting exactly on zero (unfired)
QUIET_MARGIN = 1e-6  # distance of every event function from firing beyond which an input change cannot switch the mode


def check_tolerances(rtol, atol):
    """ValueError naming rtol or atol where one is outside its range (0 < rtol < 1, atol > 0)."""
    if not (0 < rtol < 1):
        raise ValueError(f"rtol={rtol!r} is outside the allowed range (0, 1)")
    if not atol > 0:
        raise ValueError(f"atol={atol!r} must be positive")


@dataclass(frozen=True)
class Event:
    """A state event: ``fn(t, y)`` crosses zero in ``direction`` (-1 falling, +1 rising, 0 both).
    input_driven: fn can cross zero while the state stands still (a breakaway during stiction,
    driven by the inputs alone), so the integrator bounds its steps by ``hold_step`` meanwhile."""

    name: str
    fn: object
    direction: int = 0
    input_driven: bool = False


def segment_method(ode_method, length, step, max_step):
    """The solve_ivp method of a segment (one integration call, from the current time to the next input
    breakpoint or the end) of ``length`` (s) in a system of ``ode_method``, with ``step`` (s; None if none
    yet) carried from the last segment and the bound ``max_step`` (s). A DOP853 system integrates the
    segment with RK45 (Dormand-Prince 5(4)) when its first step covers it, i.e. the segment is no longer
    than twice the carried step (the first step ``advance`` tries) nor than max_step: a co-simulation
    step is then one step of 6 right-hand sides instead of 12. A segment whose RK45 steps had to shrink
    leaves a small step, and the next one takes DOP853, whose higher order pays over several steps. The
    C engine's rule is the same (segment_method in native/src/hybrid.c)."""
    if ode_method == "DOP853" and step and length <= 2.0 * step and length <= max_step:
        return "RK45"
    return ode_method


def unfired(g, direction):
    """An event function g resting exactly on zero has not crossed yet: moved to the side before the
    crossing. An event fires when its function passes zero, not while it stays on it (a contact held
    with zero load by a zero static limit would otherwise break away and stick again forever)."""
    return -direction * NOT_CROSSED if g == 0.0 and direction != 0 else g


def crosses(g0, g1, direction) -> bool:
    """Whether an event function going from g0 to g1 crosses zero in its direction (SciPy's
    find_active_events)."""
    return (g0 <= 0.0 <= g1 and direction >= 0) or (g0 >= 0.0 >= g1 and direction <= 0)


def turn(g0, gm, g1):
    """(x, value) where the parabola through (0, g0), (1/2, gm), (1, g1) turns, if it turns inside (0, 1);
    else None."""
    c = 2.0 * (g0 - 2.0 * gm + g1)
    b = 4.0 * gm - 3.0 * g0 - g1
    if c == 0.0:
        return None
    x = -b / (2.0 * c)
    if not 0.0 < x < 1.0:
        return None
    return x, g0 + x * (b + c * x)


def near_zero(g0, gm, g1) -> bool:
    """Whether an event function sampled at the start, middle and end of an interval (g0, gm, g1) may
    cross zero inside it: the parabola through the three values comes within its own bend
    |gm - (g0 + g1) / 2| of zero on the interval (always so where g0 and g1 differ in sign).

    Why this suffices inside an accepted step: a Runge-Kutta pair accepts a step only where a
    polynomial in time (of degree 8 for DOP853, 5 for RK45) represents the solution to rtol, so along the step an event function is
    dominated by its first terms in time; two crossings within the step need the quadratic term (the
    bend) to pull the function through zero, and the cubic and higher terms are smaller than the bend
    by about the step size over the solution's time scale. A margin of one bend covers them."""
    t = turn(g0, gm, g1)
    values = (g0, g1) if t is None else (g0, g1, t[1])
    bend = abs(gm - 0.5 * (g0 + g1))
    return min(values) - bend <= 0.0 <= max(values) + bend


SAMPLES = (0.25, 0.5, 0.75)  # where in a step a possibly crossing event function is sampled on the dense output


class Step:
    """The last step of a SciPy OdeSolver (from t_old to t, reaching y), with its dense output computed
    once, where first needed (DOP853's costs 3 right-hand sides, RK45's none)."""

    def __init__(self, solver):
        self.solver = solver
        self.t_old, self.t, self.y = solver.t_old, solver.t, solver.y
        self._dense = None

    def at(self, t) -> np.ndarray:
        """The state at t within the step, from the dense output."""
        if self._dense is None:
            self._dense = self.solver.dense_output()
        return self._dense(t)


class EventWatch:
    """The state events of a mode, watched over the accepted steps of a solver: finds the first time in
    a step at which one of them crosses zero in its direction, also where its function crosses zero and
    back within the step, which the signs at the step's ends do not show (issue 32, item 9), on the
    dense output of either pair (DOP853, RK45). rk_driver.c does the same in the compiled engine.

    The rule, per accepted step [t0, t1] of length h: each event function is evaluated at the step's
    end and at its middle on the cubic Hermite interpolant of the step's ends (y and dy/dt there, known
    already: one more evaluation of the events a step, no right-hand side). An event whose function may
    cross zero inside the step (``near_zero``: always so where it changes sign between the ends) is
    sampled on the step's dense output at SAMPLES, and its first crossing is bracketed where its
    function is monotone (``_bracket``). Brent's method locates the crossing in its bracket on the
    dense output (SciPy's brentq, xtol and rtol 4 machine epsilons, as solve_ivp). The event that
    crosses first fires (the first of equals)."""

    def __init__(self, evs, t, y, f):
        self.evs = evs
        self.y, self.f, self.g = y, f, self.values(t, y)  # y, dy/dt and the event functions at the next step's start

    def value(self, k, t, y) -> float:
        ev = self.evs[k]
        return unfired(ev.fn(t, y), ev.direction)

    def values(self, t, y) -> list:
        return [self.value(k, t, y) for k in range(len(self.evs))]

    def first_crossing(self, step: Step, f):
        """(index, time) of the event that crosses zero first in the step, None if none does; f: dy/dt at
        the step's end. The next call continues from the step's end."""
        t0, h = step.t_old, step.t - step.t_old
        y0, f0, g0, g1 = self.y, self.f, self.g, self.values(step.t, step.y)
        self.y, self.f, self.g = step.y, f, g1
        y_mid = 0.5 * (y0 + step.y) + 0.125 * h * (f0 - f)  # the cubic Hermite interpolant
        gm = self.values(t0 + 0.5 * h, y_mid)
        suspects = [k for k in range(len(self.evs)) if near_zero(g0[k], gm[k], g1[k])]
        if not suspects:
            return None
        from scipy.optimize import brentq  # here: the compiled engine's runs need none of SciPy

        times = [t0, *(t0 + x * h for x in SAMPLES), step.t]
        inner = [step.at(t) for t in times[1:-1]]
        first = None
        for k in suspects:
            samples = [g0[k], *(self.value(k, t, y) for t, y in zip(times[1:-1], inner)), g1[k]]
            bracket = self._bracket(k, step, times, samples)
            if bracket is None:
                continue
            root = brentq(lambda t: self.value(k, t, step.at(t)), *bracket, xtol=4 * EPS, rtol=4 * EPS)
            if first is None or root < first[1]:
                first = (k, root)
        return first

    def _bracket(self, k, step, times, samples):
        """(t_a, t_b): a bracket of event k's first crossing in its direction on which its function is
        monotone (to its samples and the parabolas through them); None if it does not cross. Take the
        first pair of consecutive samples between which it crosses: where the parabola through that pair
        and its neighbour turns between them, the pair split at the turn (``_split``); else, where the
        samples move towards zero up to that pair and change sign there only, the whole step (a single
        crossing, the bracket before inner crossings were looked for: its root as then, to the last
        bit); else the pair. Where no pair crosses, the turn of the parabola through the inner sample
        nearest zero and its neighbours splits those three, if that parabola may cross zero.

        Why monotone: Brent's method finds a root of its bracket, the first crossing only where the
        function is monotone on it. A function that starts on zero to rounding and moves away first has
        sign changes of its rounding around the start: a mode that starts at the root of another event
        on the same function, e.g. an impact's gap right after a separation, the journal flying off and
        coming back within one step. A bracket from the start held those too, and Brent's first secant
        steps land there: the clearance pendulum's impact was found 4e-14 s after its separation, its
        approach speed still negative (a graze for the model), and again 1e-15 s later, and on (Zeno)."""
        direction = self.evs[k].direction
        last = len(times) - 1
        j = next((j for j in range(last) if crosses(samples[j], samples[j + 1], direction)), None)
        if j is None:
            j = 1 + int(np.argmin(np.abs(samples[1:-1])))  # the inner sample nearest zero
            a, m, b = samples[j - 1 : j + 2]
            t = turn(a, m, b)
            if t is None or not near_zero(a, m, b):
                return None
            t_turn = times[j - 1] + t[0] * (times[j + 1] - times[j - 1])
            return self._split(k, step, (times[j - 1], a), t_turn, (times[j + 1], b))
        i = min(j, last - 2)  # the parabola through samples i, i + 1, i + 2 spans the pair
        t = turn(*samples[i : i + 3])
        t_turn = None if t is None else times[i] + t[0] * (times[i + 2] - times[i])
        if t_turn is not None and times[j] < t_turn < times[j + 1]:
            return self._split(k, step, (times[j], samples[j]), t_turn, (times[j + 1], samples[j + 1]))
        approaching = all(abs(samples[n + 1]) <= abs(samples[n]) for n in range(j))
        changes = sum(crosses(samples[n], samples[n + 1], 0) for n in range(last))
        return (times[0], times[-1]) if approaching and changes == 1 else (times[j], times[j + 1])

    def _split(self, k, step, start, t_turn, end):
        """The first of (t_a, t_turn) and (t_turn, t_b) over which event k crosses zero in its direction,
        None if neither; start, end: (t_a, g_a), (t_b, g_b), its values at the ends."""
        direction = self.evs[k].direction
        g = self.value(k, t_turn, step.at(t_turn))
        if crosses(start[1], g, direction):
            return start[0], t_turn
        if crosses(g, end[1], direction):
            return t_turn, end[0]
        return None


class HybridSystem:
    """Interface of a model run by the hybrid integrator. ``ode_method``: the SciPy solver of its modes
    (a class of scipy.integrate: DOP853; a stiff system, e.g. with bristle friction, names an implicit
    one such as Radau or LSODA)."""

    ode_method = "DOP853"

    def events(self, mode) -> list:
        """The state events active in ``mode``."""
        raise NotImplementedError

    def rhs(self, t, y, mode) -> np.ndarray:
        """dy/dt in ``mode``."""
        raise NotImplementedError

    def update(self, t, y, mode, event):
        """Discrete update at an event (``event`` None at the start or a time event).
        Returns (y, mode, kind): kind is a short string naming what happened, or None if nothing."""
        raise NotImplementedError

    def record(self, t, y, mode) -> dict:
        """The quantities to record at (t, y, mode): name -> scalar or array."""
        raise NotImplementedError

    def breakpoints(self) -> np.ndarray:
        """Times of input discontinuities (time events)."""
        return np.zeros(0)

    def compiled(self):
        """The system's CompiledModel for the compiled engine, built once (``_build_compiled``); None
        where it has no compiled form."""
        if "_compiled_model" not in self.__dict__:
            self._compiled_model = self._build_compiled()
        return self._compiled_model

    def _build_compiled(self):
        """A new CompiledModel of this system, or None (the default: no compiled form)."""
        return None

    def _keeps_equations(self, base, names) -> bool:
        """Whether this system's class has each method of ``names`` as ``base`` defines it: a subclass that
        overrides one changes the equations that base's compiled kernels implement."""
        cls = type(self)
        return all(getattr(cls, name) is getattr(base, name) for name in names)

    def events_watch_all(self, mode) -> bool:
        """Whether the events of ``mode`` watch every decision that a change of the inputs could switch
        (a slip reaching zero, a holding force reaching its limit): then a restart at which every event
        function is far from firing keeps the mode (``HybridIntegrator.restart``). A system whose modes
        have parts no event watches returns False for those modes."""
        return True

    def begin_segment(self, t_start, t_end):
        """Called before integrating [t_start, t_end]: inputs must take their left limits at t_end."""


class DrivenSystem(HybridSystem):
    """A HybridSystem driven by n input signals (callables of t, numbers or tables, see signals)."""

    def __init__(self, inputs, n: int, names: str = "inputs"):
        self.inputs = [as_signal(i) for i in inputs]
        if len(self.inputs) != n:
            raise ValueError(f"{names} must give {n} signals, got {len(self.inputs)}")
        self.segment_end = np.inf

    def input_values(self, t) -> np.ndarray:
        """The inputs at t; at the end of the current segment, their left limits."""
        left = t >= self.segment_end
        return np.array([s(t, left) for s in self.inputs])

    def begin_segment(self, t_start, t_end):
        self.segment_end = t_end

    def breakpoints(self):
        bps = np.concatenate([s.breakpoints for s in self.inputs]) if self.inputs else np.zeros(0)
        return np.unique(bps) if bps.size else bps  # none (held inputs): numpy.ma, which unique imports, unneeded

    def input_forms(self, t_start, t_end, out=None):
        """(n, 5) array of the inputs' ``Signal.form`` on [t_start, t_end] (no breakpoint inside), a new
        one or ``out`` (n, 5) float64 filled, or None if one of them has none (a callable of time): the
        compiled engine then cannot run them."""
        forms = [s.form(t_start, t_end) for s in self.inputs]
        if None in forms:
            return None
        if out is None:
            return np.array(forms, dtype=float).reshape(len(forms), 5)
        out.reshape(-1)[:] = sum(forms, ())
        return out


class RecordRow(Mapping):
    """A record of the compiled engine kept as its flat row (n_record,) at time t (s): the dict of
    ``system.decode_record(row)`` with 't', made on first access. ``Results`` reads a series of such rows
    column by column where the system can (``record_columns``), without a dict per row."""

    __slots__ = ("row", "t", "system", "_record")

    def __init__(self, row, t, system):
        self.row, self.t, self.system, self._record = row, float(t), system, None

    def _decoded(self) -> dict:
        if self._record is None:
            self._record = self.system.decode_record(self.row)
            self._record["t"] = self.t
        return self._record

    def __getitem__(self, key):
        return self._decoded()[key]

    def __iter__(self):
        return iter(self._decoded())

    def __len__(self):
        return len(self._decoded())

    def __reduce__(self):  # copied and pickled as its dict (the system it decodes with holds C pointers)
        return dict, (self._decoded(),)


@dataclass
class Results:
    """Recorded time series (``series[name]`` arrays stacked over time) and the event list.

    Each event is (time, kind); the state is recorded just before and just after every event, so
    ``t`` may repeat at event times. ``rows``: one mapping per recorded time (a dict, or a RecordRow).
    """

    rows: list = field(default_factory=list)
    events: list = field(default_factory=list)

    def __getitem__(self, name):
        rows = self.rows
        if rows and all(type(r) is RecordRow for r in rows):  # the compiled engine's: column by column
            if name == "t":
                return np.array([r.t for r in rows])
            system = rows[0].system
            columns = getattr(system, "record_columns", None)
            if columns is not None and all(r.system is system for r in rows):
                return columns(np.array([r.row for r in rows]), name)
        return np.array([r[name] for r in rows])

    @property
    def t(self):
        return self["t"]

    def event_times(self, kind=None):
        return np.array([t for t, k in self.events if kind is None or k == kind])

    def rows_at(self, times) -> np.ndarray:
        """Index of the first row recorded at each of ``times`` (s; recorded times up to rounding):
        at an event or input jump, the row before it, as a co-simulation step reports it."""
        return np.searchsorted(self.t, np.asarray(times, float) * (1 - 1e-12))


@dataclass
class IntegratorState:
    """Everything needed to resume: time, continuous state, mode and the last step size."""

    t: float
    y: np.ndarray
    mode: object
    step: float | None


class HybridIntegrator:
    """Integrates a HybridSystem from (t0, y0), advancing to requested times and resuming from there.

    rtol, atol: error tolerances of DOP853 (and RK45, see segment_method); max_step: optional bound on
    the step size (s); hold_step: bound on the step size (s) while an input-driven event is armed (the
    state may stand still then, and unbounded steps could step over a crossing caused by the inputs
    alone).
    """

    engine = "python"

    def __init__(self, system: HybridSystem, t0: float, y0, *, rtol=1e-10, atol=1e-12, max_step=np.inf,
                 hold_step=np.inf):
        check_tolerances(rtol, atol)
        self.system = system
        self.rtol, self.atol, self.max_step, self.hold_step = rtol, atol, max_step, hold_step
        self.results = Results()
        self._last_event = (None, 0)  # (time, events at that time) of the current advance: the Zeno guard
        y0 = np.array(y0, dtype=float)
        y, mode, kind = self._settle(float(t0), y0, None, None)
        self.state = IntegratorState(float(t0), y, mode, None)
        self._record(float(t0), y, mode)
        if kind:
            self.results.events.append((float(t0), kind))

    @property
    def time(self) -> float:
        """The time reached (s)."""
        return self.state.t

    # --- state save/restore (FMU get/set state) ---------------------------------------------------
    def get_state(self) -> IntegratorState:
        s = self.state
        return IntegratorState(s.t, s.y.copy(), s.mode, s.step)

    def set_state(self, state: IntegratorState):
        self.state = IntegratorState(state.t, state.y.copy(), state.mode, state.step)

    def _quiet(self, s) -> bool:
        """Every event function of the mode at the state s is at least QUIET_MARGIN from firing in its
        direction (with the inputs as they are now), and the events watch every decision of the mode:
        then no change of the inputs at s can switch the mode."""
        if not self.system.events_watch_all(s.mode):
            return False
        evs = self.system.events(s.mode)
        g = np.array([ev.fn(s.t, s.y) for ev in evs], dtype=float)
        d = np.array([ev.direction for ev in evs], dtype=float)
        return bool(np.all(np.where(d == 0, np.abs(g), -d * g) > QUIET_MARGIN))

    def restart(self):
        """Re-decide the mode at the current time after the inputs changed there (a time event); the
        update is skipped when it cannot change the mode (``_quiet``), which keeps co-simulation steps cheap."""
        s = self.state
        if not self._quiet(s):
            self.state, _ = self._redecide(s)

    def _redecide(self, s):
        """(state, kinds): the mode re-decided at the state s (the inputs changed at s.t), as an event
        of those kinds (None if the mode stayed)."""
        y, mode, kind = self._settle(s.t, s.y, s.mode, None)
        if kind:
            self.results.events.append((s.t, kind))
        return IntegratorState(s.t, np.array(y, dtype=float), mode, s.step), kind

    def _input_jump(self, s) -> IntegratorState:
        """The state after the time event at an input breakpoint s.t (the inputs jump there): the
        mode re-decided, the state recorded after it when the mode changed."""
        self.system.begin_segment(s.t, np.inf)
        s, kind = self._redecide(s)
        if kind:
            self._record(s.t, s.y, s.mode)
        return s

    def _at_event(self, t_ev, y_ev, mode, name, step) -> IntegratorState:
        """The state after the event ``name`` of ``mode`` fired at t_ev (s) with the state y_ev there,
        recorded before and after it; step: the next step size. More than MAX_EVENTS_AT_ONE_TIME
        events at one time in an advance raise (chattering)."""
        self._record(t_ev, y_ev, mode)
        y_new, new_mode, kind = self._settle(t_ev, y_ev, mode, name)
        last_t, count = self._last_event
        count = count + 1 if last_t is not None and t_ev - last_t < 1e-12 else 1
        self._last_event = (t_ev, count)
        if count > MAX_EVENTS_AT_ONE_TIME:
            raise FrictionJointsError(f"{count} events at t={t_ev:.12g}: chattering (Zeno) detected")
        self.results.events.append((t_ev, kind or name))
        s = IntegratorState(t_ev, np.array(y_new, dtype=float), new_mode, step)
        self._record(t_ev, s.y, new_mode)
        return s

    # --- integration ------------------------------------------------------------------------------
    def advance_to(self, t_end: float) -> dict:
        """Integrate to t_end without recording rows; returns the record at t_end (a co-simulation step)."""
        self.advance(t_end)
        s = self.state
        return self.record_row(s.t, s.y, s.mode)

    def advance(self, t_end: float, t_eval=None):
        """Integrate to t_end, recording at the times ``t_eval`` (within (t, t_end]) and at events."""
        s = self.state
        if t_end < s.t:
            raise RuntimeError(f"cannot integrate backwards from t={s.t} to t_end={t_end}")
        grid = np.asarray([] if t_eval is None else t_eval, dtype=float)
        grid = np.unique(grid[(grid > s.t) & (grid <= t_end)])  # a time is recorded once
        bps = self.system.breakpoints()
        self._last_event = (None, 0)
        while s.t < t_end:
            upcoming = bps[(bps > s.t) & (bps < t_end)]
            seg_end = float(upcoming[0]) if len(upcoming) else t_end
            evs = self.system.events(s.mode)
            self.system.begin_segment(s.t, seg_end)
            max_step = min(self.max_step, self.hold_step) if any(ev.input_driven for ev in evs) else self.max_step
            seg_grid = grid[(grid > s.t) & (grid <= seg_end)]
            t_stop, y_stop, fired, step = self._segment(s, seg_end, evs, max_step, seg_grid)
            if fired is not None:
                s = self._at_event(t_stop, y_stop, s.mode, evs[fired].name, step)
            else:
                s = IntegratorState(seg_end, y_stop, s.mode, step)
                if seg_end < t_end:
                    s = self._input_jump(s)
            self.state = s
        return self.results

    def _segment(self, s, seg_end, evs, max_step, grid):
        """Integrate the mode of the state s from s.t towards seg_end (no input breakpoint before it) with
        SciPy's solver of ``segment_method``, step by step, until seg_end or the first event of evs;
        records the rows at the times of grid (within (s.t, seg_end]) before where it stops. Returns
        (t, y, fired, step): the time and state it stopped at, the index in evs of the event that fired
        there (None at seg_end), and the first step size of the next segment."""
        import scipy.integrate  # here: the compiled engine's runs need none of scipy.integrate

        method = segment_method(self.system.ode_method, seg_end - s.t, s.step, max_step)
        # an implicit/multistep method (a stiff system's) picks its own first step: the last one,
        # carried over an input jump, made LSODA fail its corrector on stiff bristles
        first_step = min(2.0 * s.step, seg_end - s.t) if s.step and method in ("DOP853", "RK45", "RK23") else None
        fun = lambda t, y: self.system.rhs(t, y, s.mode)  # noqa: E731
        solver = getattr(scipy.integrate, method)(fun, s.t, s.y, seg_end, rtol=self.rtol, atol=self.atol,
                                                  max_step=max_step, first_step=first_step)
        # dy/dt at the solver's time: Runge-Kutta methods and Radau keep it, the multistep ones do not
        slope = lambda: solver.f if hasattr(solver, "f") else fun(solver.t, solver.y)  # noqa: E731
        watch = EventWatch(evs, s.t, s.y, slope()) if evs else None
        steps = []  # the lengths of the steps taken (the last one up to the event)
        while solver.status == "running":
            message = solver.step()
            if solver.status == "failed":
                raise FrictionJointsError(f"integration failed at t={solver.t:.9g}: {message}")
            t_old, t_new, y_new = solver.t_old, solver.t, solver.y
            step = Step(solver)
            fired = watch.first_crossing(step, slope()) if watch else None
            t_stop = fired[1] if fired else t_new
            for t in grid[(grid > t_old) & ((grid < t_stop) | (fired is None) & (grid == t_stop))]:
                self._record(t, y_new if t == t_new else step.at(t), s.mode)
            # next first step: twice the larger of the last two steps (the last is often cut short by
            # the end; DOP853 grows its steps by up to 10x, and rejects a step that is too long); an
            # event at the segment's start (a second one at the last event's time) leaves the step as it was
            steps = [*steps[-1:], t_stop - t_old]
            if fired:
                return t_stop, step.at(t_stop), fired[0], max(steps) if t_stop > s.t else s.step
        return seg_end, solver.y, None, max(steps) if steps else s.step

    def _settle(self, t, y, mode, event):
        """Repeat the discrete update until the mode no longer changes; returns (y, mode, kinds)."""
        kinds = []
        for _ in range(MAX_EVENTS_AT_ONE_TIME):
            y, new_mode, kind = self.system.update(t, y, mode, event)
            if kind:
                kinds.append(kind)
            if new_mode == mode:
                break
            mode, event = new_mode, None
        else:
            raise FrictionJointsError(f"the mode does not settle at t={t:.12g}: {kinds}")
        return y, mode, "+".join(kinds) or None

    def record_row(self, t, y, mode) -> dict:
        """The quantities the system records at (t, y, mode)."""
        return self.system.record(t, y, mode)

    def _record(self, t, y, mode):
        row = self.record_row(t, y, mode)
        row["t"] = t
        self.results.rows.append(row)
