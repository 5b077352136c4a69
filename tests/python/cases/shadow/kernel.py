# The directory also holds types.py and colorsys.py, which raise when imported: the harness must
# append this directory to sys.path, never put it in front of the standard library.
import colorsys
import types

import shadow_helper


def kernel_function(x, y):
    assert colorsys.rgb_to_hsv(1.0, 0.0, 0.0)[0] == 0.0
    assert types.SimpleNamespace is not None
    return shadow_helper.twice(x)
