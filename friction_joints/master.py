"""``python -m friction_joints.master``: the command of ``friction_joints.fmi.master`` (co-simulation of an
SSP file of FMI 2.0 or 3.0 co-simulation FMUs; the FMI layer's code lives in ``fmi``)."""

import sys

from friction_joints.fmi.master import main

if __name__ == "__main__":
    sys.exit(main())
