"""Exceptions of the library.

Bad input raises ``ValueError`` naming the parameter and its allowed range; misuse raises
``RuntimeError``; physical impossibility raises one of the named exceptions below, which the FMU
layer turns into an FMI error with a logged message.
"""


class FrictionJointsError(RuntimeError):
    """Base class of the physical failures of a model at a state."""


class ConvergenceError(FrictionJointsError):
    """The coupled reaction-friction equations did not converge."""


class InconsistentFrictionError(FrictionJointsError):
    """The reaction-friction equations have no solution (Painleve-type inconsistency)."""


class IndeterminateFrictionError(FrictionJointsError):
    """The reaction-friction equations have several solutions (Painleve-type indeterminacy)."""


class SingularConfigurationError(FrictionJointsError):
    """The constraints are singular or cannot be satisfied (dead centre, unassemblable geometry)."""


def check_parameters(problems):
    """Raise one ``ValueError`` listing every problem, if any.

    problems: list of str, each naming a parameter, its value and the allowed range.
    """
    if problems:
        raise ValueError("; ".join(problems))


def require(problems, name, value, low=None, high=None, *, low_open=False, high_open=False):
    """Append a message to ``problems`` unless ``low <= value <= high`` (bounds optional, open if asked)."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        problems.append(f"{name} must be a real number, got {value!r}")
        return
    bad = value != value  # NaN
    if low is not None:
        bad |= value <= low if low_open else value < low
    if high is not None:
        bad |= value >= high if high_open else value > high
    if bad or value in (float("inf"), float("-inf")):
        lo = "(-inf" if low is None else ("(" if low_open else "[") + f"{low:g}"
        hi = "inf)" if high is None else f"{high:g}" + (")" if high_open else "]")
        problems.append(f"{name}={value!r} is outside the allowed range {lo}, {hi}")
