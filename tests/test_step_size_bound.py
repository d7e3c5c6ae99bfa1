"""The step size the compiled integrator carries from one co-simulation step to the next stays
bounded while nothing moves (stiction: the error estimate is 0 and SciPy's controller grows the
step tenfold per step), so the first step after a breakaway can shrink. Before, it grew to inf over
about 300 held steps and the next rejected step never ended (the speed-control demo hung at 3.6 s)."""

import subprocess
import sys

RUN = """
import math
from friction_joints.mechanisms import slider_crank
from friction_joints.stepping import MechanismStepper
mech = slider_crank()
stepper = MechanismStepper(mech, mech.assemble([0.0]), [0.0], [0.0], 1e-8, 0.0, "compiled")
t, h = 0.0, 0.01
for k in range(400):  # at rest in the hanging equilibrium, stuck
    rec = stepper.step(t, h, [0.0])
    t += h
assert rec["stuck"], rec
assert math.isfinite(stepper.integrator.state.step) and stepper.integrator.state.step <= 10 * h
for k in range(50):  # a torque beyond the static limit: breakaway
    rec = stepper.step(t, h, [30.0])
    t += h
assert not rec["stuck"] and rec["u"][0] > 0, rec
print("reached", t)
"""


def test_a_breakaway_after_a_long_stiction_is_integrated():
    proc = subprocess.run([sys.executable, "-c", RUN], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "reached" in proc.stdout, proc.stdout + proc.stderr
