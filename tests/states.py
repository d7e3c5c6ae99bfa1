"""Random consistent states of the seed mechanisms for the tests."""

import numpy as np


def random_state(mech, rng):
    """A random consistent (q, u, tau) of a seed mechanism, avoiding dead centres."""
    k = mech.minimal.k
    if mech.name == "DupontTwoMass":
        q = rng.uniform(-1, 1, size=2)
    else:
        q = mech.assemble([rng.uniform(-np.pi, np.pi)])
    u = rng.uniform(-5, 5, size=k)
    tau = rng.uniform(-20, 20, size=mech.model.n_drives) * (10 if mech.name == "DupontTwoMass" else 1)
    return q, u, tau
