"""Shared fixtures: the seed mechanisms."""

import pytest

from friction_joints.mechanisms import dupont_two_mass, offset_slider_crank, slider_crank

MECHANISMS = {
    "DupontTwoMass": dupont_two_mass,
    "OffsetSliderCrank": offset_slider_crank,
    "SliderCrank": slider_crank,
}


@pytest.fixture(params=list(MECHANISMS))
def mechanism_factory(request):
    return MECHANISMS[request.param]
