"""A plan: the traced graph of a fused function for one signature, with every node's dtype.

The dtypes are NumPy's, found by running the graph once on one-element arrays of the inputs'
dtypes (and the call's scalars): the blocks later run the very same NumPy calls, so promotion,
weak Python scalars and casting rules are NumPy's by construction. ``step(node, values, out)``
is how a node runs, on samples and on blocks alike.
"""

import numpy as np

from .._array_api._impl import elementwise as _standard
from .trace import REDUCTIONS, TraceError

__all__ = ["Plan", "step"]


def step(node, values, out=None):
    """Run one (non-input, non-reduction) node on its operands' values; into ``out`` if given."""
    args = [values[a.index] for a in node.args]
    if node.kind == "ufunc":
        return node.fn(*args) if out is None else node.fn(*args, out=out)
    if node.kind == "cast":
        if out is None:
            return np.asarray(args[0]).astype(node.fn)
        np.copyto(out, args[0], casting="unsafe")
        return out
    if node.kind == "clip":
        return np.clip(*args) if out is None else np.clip(*args, out=out)
    if node.kind == "where":
        r = np.where(*args)
        if out is None:
            return r
        np.copyto(out, r, casting="unsafe")
        return out
    if node.kind == "floor_divide":  # the standard's floor division (wsarray's `//`)
        r = _standard.floor_divide(*args)
        if out is None:
            return r
        np.copyto(out, r, casting="unsafe")
        return out
    raise AssertionError(node.kind)


# ndarray.__pow__ runs these ufuncs for float and complex arrays with these exact Python scalar
# exponents (NumPy's fast_scalar_power: int 2 and -1, float 0.5), which differ from power for
# complex numbers (and sqrt for longdouble).
_SCALAR_POWERS = {(int, 2): np.square, (int, -1): np.reciprocal, (float, 0.5): np.sqrt}


def _as_numpys_scalar_power(node, dtypes):
    if node.kind != "ufunc" or node.fn is not np.power or len(node.args) != 2:
        return
    base, exponent = node.args
    if exponent.kind != "const" or exponent.position is not None or type(exponent.value) not in (int, float):
        return
    fn = _SCALAR_POWERS.get((type(exponent.value), exponent.value))
    if fn is not None and base.kind != "const" and dtypes[base.index].kind in "fc":
        node.fn, node.args = fn, (base,)


class Plan:
    """The graph for one signature: node dtypes, the output dtype, the reduction (if any)."""

    def __init__(self, nodes, output, inputs, scalars):
        """``inputs``: position -> (dtype, ndim) of the array arguments; ``scalars``: position ->
        a value of each scalar argument's type (its kind decides promotion, as in NumPy)."""
        self.nodes = nodes
        self.output = output
        self.reduction = output if output.kind == "reduce" else None
        self.elementwise_out = output.args[0] if self.reduction is not None else output
        values = {}
        self.dtypes = {}
        with np.errstate(all="ignore"):
            for node in nodes:
                if node.kind == "input":
                    dtype, ndim = inputs[node.position]
                    values[node.index] = np.ones((1,) * ndim, dtype=dtype)
                elif node.kind == "const":
                    values[node.index] = scalars.get(node.position, node.value)
                elif node.kind == "reduce":
                    fn = REDUCTIONS[node.fn]
                    values[node.index] = fn(values[node.args[0].index], axis=node.kwargs["axis"],
                                            keepdims=node.kwargs["keepdims"])
                else:
                    _as_numpys_scalar_power(node, self.dtypes)
                    try:
                        values[node.index] = step(node, values)
                    except TypeError as e:  # NumPy refuses the types: the eager call will say so
                        raise TraceError(f"NumPy refuses this step for these dtypes: {e}") from None
                self.dtypes[node.index] = np.asarray(values[node.index]).dtype
        self.out_dtype = self.dtypes[output.index]
        elementwise = self.dtypes[self.elementwise_out.index]
        if elementwise.kind not in "biufc" and elementwise != np.bool_:
            raise TraceError(f"the result dtype {elementwise} cannot be fused")
        # The nodes the blocks run, in order (inputs and constants are looked up, not run).
        self.steps = [n for n in nodes if n.kind not in ("input", "const", "reduce")]
        self.step_dtypes = [self.dtypes[n.index] for n in self.steps]
