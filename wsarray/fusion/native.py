"""The native block runner of a plan: NumPy's own inner loops, called from C++ without the GIL.

A plan whose steps are all ufuncs, each running on operands that already have the dtypes of the
loop NumPy picks (no casts), is handed to ``_native._fusion_run`` (src/python/fast/fusion.cpp) as a list
of strided loops and operand slots: a block then costs one C call per step. Constants are cast to
the loop's dtype here, as NumPy casts a weak Python scalar. Anything else (a cast, ``where``, a
loop NumPy would need to cast for, an object loop) returns None: the Python block path runs it.
A floating-point flag raised by a loop also returns None, after the fact, so that NumPy's own
calls redo the work and report it as NumPy does (``np.errstate``).
"""

import numpy as np

from .. import _native

__all__ = ["Native", "grid", "native_for"]


def _operand_type(plan, node, scalars):
    """What NumPy's dtype resolution sees for an operand: a dtype, or a Python type (weak scalar)."""
    if node.kind == "const":
        value = scalars.get(node.position, node.value)
        return type(value) if type(value) in (bool, int, float, complex) else np.asarray(value).dtype
    return plan.dtypes[node.index]


class Native:
    """The loops and slots of one plan for one signature (resolved once, reused every call)."""

    def __init__(self, plan, scalars):
        self.plan = plan
        self.steps = []   # (capsule, input slot keys, output node index)
        self.consts = []  # (slot key, node, loop dtype): 0-d arrays made at each call
        self.ok = False
        for node in plan.steps:
            if node.kind != "ufunc" or node.fn.nin != len(node.args):
                return
            types = tuple(_operand_type(plan, a, scalars) for a in node.args)
            try:
                loop = node.fn.resolve_dtypes(types + (None,))
            except (TypeError, ValueError):
                return
            if loop[-1] != plan.dtypes[node.index]:
                return
            if node.fn is np.power and loop[1].kind in "iu":
                return  # NumPy's integer power raises a Python error from inside its loop
            keys = []
            for a, want in zip(node.args, loop[:-1]):
                if a.kind == "const":
                    keys.append(("const", len(self.consts)))
                    self.consts.append((a, want))
                elif plan.dtypes[a.index] != want:
                    return  # NumPy would cast this operand first
                else:
                    keys.append(("node", a.index))
            try:
                _, capsule = node.fn._resolve_dtypes_and_context(loop)
                strides = tuple(0 if k[0] == "const" else d.itemsize for k, d in zip(keys, loop[:-1]))
                node.fn._get_strided_loop(capsule, fixed_strides=strides + (loop[-1].itemsize,))
            except (TypeError, ValueError, AttributeError):
                return
            self.steps.append((capsule, tuple(keys), node.index))
        self.ok = bool(self.steps)

    def _slots(self, arrays, scalars, out):
        """Slots and steps for ``_native``: inputs, constants, block temporaries, the output.
        ``arrays``: position -> 0-d array, or a (view, row stride, element stride) grid operand."""
        plan, slots, index = self.plan, [], {}
        for node in plan.nodes:
            if node.kind == "input":
                index[("node", node.index)] = len(slots)
                a = arrays[node.position]
                slots.append(("scalar", a) if isinstance(a, np.ndarray) else ("array",) + tuple(a))
        for k, (node, dtype) in enumerate(self.consts):
            index[("const", k)] = len(slots)
            slots.append(("scalar", np.asarray(scalars.get(node.position, node.value), dtype=dtype)))
        for _, _, out_index in self.steps:
            index[("node", out_index)] = len(slots)
            last = out_index == plan.elementwise_out.index and out is not None
            slots.append(("array",) + tuple(out) if last else ("temp", plan.dtypes[out_index].itemsize))
        steps = [(capsule, tuple(index[k] for k in keys), index[("node", out_index)])
                 for capsule, keys, out_index in self.steps]
        return slots, steps, index

    def run(self, arrays, scalars, out, rows, cols, block, parts):
        """Fill the grid operand ``out``. False: a flag was raised or a loop failed."""
        slots, steps, _ = self._slots(arrays, scalars, out)
        return _native._fusion_run(slots, steps, rows, cols, block, parts)

    def reduce(self, arrays, scalars, ranges, ufunc, identity, carry, block, parts):
        """Partial reductions by ``ufunc`` of the ranges (each at most one block), or None.
        ``arrays``: position -> a 1-D contiguous array of the whole length, or a 0-d array."""
        dtype = self.plan.dtypes[self.plan.elementwise_out.index]
        try:
            loop = ufunc.resolve_dtypes((dtype, dtype, None), reduction=True)
            if loop != (dtype, dtype, dtype):
                return None
            # For a reduction NumPy takes the first input in the output's place.
            _, capsule = ufunc._resolve_dtypes_and_context((dtype, dtype, None), reduction=True)
            ufunc._get_strided_loop(capsule, fixed_strides=(0, dtype.itemsize, 0))
        except (TypeError, ValueError, AttributeError):
            return None
        arrays = {k: (a if a.ndim == 0 else (a, 0, a.strides[0])) for k, a in arrays.items()}
        slots, steps, index = self._slots(arrays, scalars, None)
        partials = np.empty(len(ranges), dtype=dtype)
        ident = None if identity is None else np.asarray(identity, dtype=dtype)
        result = index[("node", self.plan.elementwise_out.index)]
        if not _native._fusion_reduce(slots, steps, result, capsule, ranges, partials, ident, carry,
                                    block, parts):
            return None
        return partials


def grid(shape, arrays, out):
    """The operands as a rows x cols grid: ``(rows, cols, operands, out operand)`` where an array
    operand is (view, row stride, element stride) and a 0-d array stays as it is; None when the
    shape does not flatten to two dimensions without copies."""
    if len(shape) <= 2:
        rows, cols = (1, shape[0] if shape else 1) if len(shape) < 2 else shape

        def operand(a):
            v = np.broadcast_to(a, shape)
            if v.ndim < 2:
                v = v.reshape(cols) if v.ndim == 1 else v.reshape(1)
                return (v, 0, v.strides[0])
            return (v, v.strides[0], v.strides[1])
    else:
        flat_ok = all(a.ndim == 0 or (a.shape == shape and a.flags.c_contiguous) for a in arrays.values())
        if not (flat_ok and out.flags.c_contiguous):
            return None
        rows, cols = 1, int(np.prod(shape))

        def operand(a):
            v = a.reshape(-1)
            return (v, 0, v.strides[0])
    ops = {k: (a if a.ndim == 0 else operand(a)) for k, a in arrays.items()}
    return rows, cols, ops, operand(out)


def native_for(plan, scalars):
    """The plan's Native runner for these scalars' types (cached on the plan), or None."""
    key = tuple(sorted((k, type(v)) for k, v in scalars.items()))
    cache = plan.__dict__.setdefault("_native", {})
    if key not in cache:
        native = Native(plan, scalars)
        cache[key] = native if native.ok else None
    return cache[key]
