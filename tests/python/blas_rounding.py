"""The tolerance of the tests that compare results computed from the same rows mapped in differently shaped
products: fused batches against ``transform``'s blocks, dense rows (a BLAS product) against CSR rows (the engine's
own loop), one row at a time against a block.

The maps' dense products call the BLAS of the installed SciPy (``blas.hpp``), which may sum a feature's terms in
an order that depends on the shape of the call (micro-kernel edges, blocking), so such features agree in their
last bits only (same seed, same machine, same build, same call: same bits, which the tests still check
exactly). A few solver passes amplify a feature's rounding by little: 1e-10 relative (float64), 1e-5 (float32,
whose features round at 6e-8).
"""

import numpy as np

#: relative tolerance by the compared arrays' dtype
RTOL = {np.dtype(np.float64): 1e-10, np.dtype(np.float32): 1e-5}


def assert_close(actual, desired):
    """actual == desired within the rounding of the maps' products: |a - d| <= rtol (|d| + max |d|), rtol by
    desired's dtype (float64 for anything else, e.g. Python floats)."""
    desired = np.asarray(desired)
    rtol = RTOL.get(desired.dtype, RTOL[np.dtype(np.float64)])
    scale = float(np.abs(desired).max()) if desired.size else 0.0
    np.testing.assert_allclose(actual, desired, rtol=rtol, atol=rtol * scale)
