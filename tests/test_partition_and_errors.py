"""Coordinate partitioning switches near singular V; bad input gives clear errors."""

import numpy as np
import pytest

from friction_joints.errors import SingularConfigurationError
from friction_joints.mechanisms import dupont_two_mass, offset_slider_crank, slider_crank
from friction_joints.planar import absolute_dynamics


def test_partition_is_kept_while_well_conditioned_and_changed_near_singular_V():
    mech = slider_crank(a=(0.5, 0.4))  # crank longer than rod: the crank rocks, V singular at its limits
    q = mech.assemble([0.3])
    assert mech.minimal.choose_partition(q, current=(0,)) == (0,)
    # near sin th1 = a2 / a1 the rod is vertical (cos th2 = 0) and V for u = qd1 is singular
    q = mech.assemble([np.arcsin(0.8) - 1e-9])
    assert abs(np.cos(q[1])) < 1e-3
    new = mech.minimal.choose_partition(q, current=(0,))
    assert new != (0,)
    # with the new partition the minimal form still agrees with the absolute formulation
    sol = mech.minimal.evaluate(q, [0.7], [2.0], new)
    ab = absolute_dynamics(mech.model, sol.x, sol.xd, [2.0])
    np.testing.assert_allclose(ab.xdd, sol.xdd, rtol=1e-8, atol=1e-8 * np.abs(sol.xdd).max())
    np.testing.assert_allclose(ab.f, sol.f, rtol=1e-8, atol=1e-8 * np.abs(sol.f).max())


def test_projection_restores_the_closing_constraints():
    mech = slider_crank()
    q = mech.assemble([0.9]) + np.array([0.0, 1e-3, -2e-3])
    p = mech.minimal.project(q, mech.partition)
    assert p[0] == q[0] and np.max(np.abs(mech.minimal.closure(p))) < 1e-12


def test_unassemblable_geometry_raises():
    mech = slider_crank(a=(0.5, 0.2))  # crank longer than rod: B cannot reach the axis at 90 degrees
    with pytest.raises(SingularConfigurationError, match="cannot be assembled"):
        mech.assemble([np.pi / 2])


@pytest.mark.parametrize("make, name", [
    (lambda: slider_crank(m=(-1.0, 4.0)), "m1"),
    (lambda: slider_crank(a=(0.25, 0.0)), "a2"),
    (lambda: offset_slider_crank(mu_rk=0.2, mu_rs=0.1), "mu_rk"),
    (lambda: offset_slider_crank(r=0.0), "r"),
    (lambda: dupont_two_mass(mu_k=0.6), "mu_k"),
    (lambda: dupont_two_mass(m1=0.0), "m1"),
])
def test_bad_mechanism_parameters_name_the_parameter(make, name):
    with pytest.raises(ValueError, match=name):
        make()


def test_bad_shapes_are_reported():
    mech = slider_crank()
    q = mech.assemble([0.2])
    with pytest.raises(ValueError, match="tau"):
        mech.minimal.evaluate(q, [0.0], [1.0, 2.0], mech.partition)
    with pytest.raises(ValueError, match="u must"):
        mech.minimal.evaluate(q, [0.0, 1.0], [1.0], mech.partition)
    with pytest.raises(ValueError, match="partition"):
        mech.minimal.evaluate(q, [0.0], [1.0], (5,))
    with pytest.raises(ValueError, match="x must"):
        absolute_dynamics(mech.model, np.zeros(3), np.zeros(9), [0.0])
