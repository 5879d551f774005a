"""Running a plan block by block: every temporary lives in a block-sized buffer that stays in cache.

The inputs are cut into blocks of BLOCK elements; each block runs the plan's NumPy calls into
per-thread scratch buffers (``out=``), the last one straight into the output. Large inputs are
split over a few threads (NumPy releases the GIL inside its loops). Reductions over the whole
array combine per-block partial results so that the result is NumPy's, bit for bit:

* ``sum``/``mean`` of floats follow NumPy's pairwise summation: the blocks are the subtrees of
  its recursion, each summed by NumPy itself, and the partials are added up the same tree;
* ``prod`` of floats runs the blocks in order, each continuing the previous product (NumPy
  multiplies sequentially);
* ``max``/``min``/``any``/``all`` and integer sums and products do not depend on the order.

Anything else (broadcast or strided inputs with a sum, float16, a reduction with ``axis``) runs the
elementwise part block by block into one temporary and lets NumPy reduce it.
"""

import concurrent.futures
import contextlib
import os
import threading
import weakref

import numpy as np

from .native import grid, native_for
from .plan import step

__all__ = ["BLOCK", "run"]

BLOCK = 8192  # elements per block: with float64, 64 KiB per operand, a handful fit in L2
_PARALLEL_FROM = 16 * BLOCK  # below this, a thread handoff costs more than it saves
_local = threading.local()
_pool = None
_pool_lock = threading.RLock()


def _threads():
    env = os.environ.get("WSARRAY_NUM_THREADS")
    if env and env.isdigit() and int(env) >= 1:
        return int(env)
    return max(1, min(8, os.cpu_count() or 1))


def _executor():
    # Made outside the lock (making it allocates, where the collector may run code that waits for
    # another thread, which must not wait here); of two made at once, the second is shut down.
    global _pool
    if _pool is None:
        made = concurrent.futures.ThreadPoolExecutor(max(1, _threads() - 1), thread_name_prefix="wsarray-fuse")
        with _pool_lock:
            if _pool is None:
                _pool, made = made, None
        if made is not None:
            made.shutdown(wait=False)
    return _pool


class _Program:
    """A plan ready to run on this thread: its steps as (function, operand slots, output slot,
    block buffer), so that a block costs one Python call per step and no allocation."""

    __slots__ = ("ops", "inputs", "consts", "size", "last")

    def __init__(self, plan):
        self.size = len(plan.nodes)
        self.inputs = [(n.index, n.position) for n in plan.nodes if n.kind == "input"]
        self.consts = [(n.index, n.position, n.value) for n in plan.nodes if n.kind == "const"]
        self.ops = []
        for node, dtype in zip(plan.steps, plan.step_dtypes):
            buf = np.empty(BLOCK, dtype=dtype)
            if node.kind == "ufunc":
                self.ops.append((node.fn, tuple(a.index for a in node.args), node.index, buf, None))
            else:
                self.ops.append((None, tuple(a.index for a in node.args), node.index, buf, node))
        self.last = plan.elementwise_out.index


def _program(plan):
    """This thread's compiled copy of ``plan`` (block buffers are per thread), kept while the plan
    lives (a fused function keeps a bounded number of plans)."""
    progs = getattr(_local, "programs", None)
    if progs is None:
        progs = _local.programs = weakref.WeakKeyDictionary()
    prog = progs.get(plan)
    if prog is None:
        prog = progs[plan] = _Program(plan)
    return prog


def _values(prog, scalars):
    vals = [None] * prog.size
    for index, position, value in prog.consts:
        vals[index] = scalars.get(position, value)
    return vals


def _eval(prog, vals, m, out=None):
    """Run the steps on one block of m elements (inputs and constants already in ``vals``)."""
    full = m == BLOCK
    for fn, args, index, buf, node in prog.ops:
        target = out if (index == prog.last and out is not None) else (buf if full else buf[:m])
        if fn is not None:
            if len(args) == 2:
                vals[index] = fn(vals[args[0]], vals[args[1]], target)
            elif len(args) == 1:
                vals[index] = fn(vals[args[0]], target)
            else:
                vals[index] = fn(*[vals[a] for a in args], target)
        else:
            vals[index] = step(node, {a.index: vals[a.index] for a in node.args}, target)
    result = vals[prog.last]
    if out is not None and result is not out:  # the result is an input or a constant
        np.copyto(out, result, casting="unsafe")
        return out
    return result


def _bind(prog, vals, arrays, lo, hi):
    """Put the inputs' block [lo, hi) of their flat views (or the 0-d array) into ``vals``."""
    for index, position in prog.inputs:
        a = arrays[position]
        vals[index] = a if a.ndim == 0 else a[lo:hi]
    return vals


@contextlib.contextmanager
def numpy_errors_noted():
    """Floating-point errors the caller's ``np.errstate`` would report (warn, print, log, call) are
    only noted while blocks run: each block is a NumPy call of its own and would report them once
    per block. Yields the list of what was noted (None when nothing is reported): the caller then
    redoes the work as the function itself, which reports as NumPy does, once, in NumPy's words.
    "raise" is noted too: with other kinds reported, NumPy's order of warnings and the error is
    the function's own."""
    err = np.geterr()
    reported = [k for k, v in err.items() if v in ("warn", "print", "log", "call", "raise")]
    if not reported:
        yield None
        return
    noted = []
    with np.errstate(call=lambda kind, flag: noted.append(kind), **dict.fromkeys(reported, "call")):
        yield noted


def _parallel(jobs):
    """Run the callables, the first on this thread, and return their results in order."""
    if len(jobs) == 1:
        return [jobs[0]()]
    err, call = np.geterr(), np.geterrcall()

    def with_errstate(job):
        def run_it():
            with np.errstate(call=call, **err):  # NumPy's error state is per thread: carry the caller's
                return job()
        return run_it

    futures = [_executor().submit(with_errstate(j)) for j in jobs[1:]]
    first = jobs[0]()
    return [first] + [f.result() for f in futures]


def _spans(n, parts):
    """``parts`` contiguous ranges of whole blocks covering [0, n)."""
    blocks = -(-n // BLOCK)
    parts = max(1, min(parts, blocks))
    edges = [blocks * k // parts * BLOCK for k in range(parts)] + [n]
    return [(edges[k], min(edges[k + 1], n)) for k in range(parts)]


def _elementwise(plan, arrays, scalars, out, n):
    parts = _threads() if n >= _PARALLEL_FROM else 1

    def job(lo, hi):
        def run_span():
            prog = _program(plan)
            vals = _values(prog, scalars)
            for b in range(lo, hi, BLOCK):
                e = min(b + BLOCK, hi)
                _eval(prog, _bind(prog, vals, arrays, b, e), e - b, out[b:e])
        return run_span

    _parallel([job(lo, hi) for lo, hi in _spans(n, parts)])


def _pairwise_leaves(lo, n, out, unit):
    """The subtrees of NumPy's pairwise summation of n elements at lo, down to BLOCK elements.
    NumPy splits a run of n * unit scalars (unit 2 for complex: real and imaginary parts) in two
    at half, rounded down to a multiple of 8 scalars."""
    if n <= BLOCK:
        out.append((lo, n))
        return ("leaf", len(out) - 1)
    d2 = n * unit // 2
    n2 = (d2 - d2 % 8) // unit
    return (_pairwise_leaves(lo, n2, out, unit), _pairwise_leaves(lo + n2, n - n2, out, unit))


def _combine(tree, partials):
    if tree[0] == "leaf":
        return partials[tree[1]]
    return _combine(tree[0], partials) + _combine(tree[1], partials)


_REDUCE_UFUNC = {"sum": np.add, "mean": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum,
                 "any": np.logical_or, "all": np.logical_and}


def _reduce_blocks(plan, arrays, scalars, n, name, kind):
    """The whole-array reduction ``name`` of the elementwise result, as NumPy computes it."""
    ufunc = _REDUCE_UFUNC[name]
    reduce_fn = ufunc.reduce
    parallel = n >= _PARALLEL_FROM
    native = native_for(plan, scalars)

    def partials_of(ranges, identity=None, carry=False):
        if native is not None:
            got = native.reduce(arrays, scalars, ranges, ufunc, identity, carry, BLOCK,
                                _threads() if parallel else 1)
            if got is not None:
                return list(got)
        if carry:  # sequential, as NumPy multiplies: each block continues the previous product
            acc = None
            prog = _program(plan)
            vals = _values(prog, scalars)
            for lo, m in ranges:
                block = _eval(prog, _bind(prog, vals, arrays, lo, lo + m), m)
                acc = reduce_fn(block) if acc is None else reduce_fn(block, initial=acc)
            return [acc]

        def partial(lo, hi):
            prog = _program(plan)
            return reduce_fn(_eval(prog, _bind(prog, _values(prog, scalars), arrays, lo, hi), hi - lo))

        return _run_ranges(ranges, partial, parallel)

    if name in ("sum", "mean") and kind in "fc":
        ranges = []
        tree = _pairwise_leaves(0, n, ranges, 2 if kind == "c" else 1)
        partials = partials_of(ranges, identity=0)
        total = _combine(tree, partials)
        zero = np.zeros((), dtype=np.asarray(total).dtype)[()]
        result = zero + total  # NumPy's add.reduce starts from its identity, 0
        return _mean(result, n) if name == "mean" else result
    ranges = [(lo, min(BLOCK, n - lo)) for lo in range(0, n, BLOCK)]
    if name == "prod" and kind in "fc":  # sequential, as NumPy multiplies
        return partials_of(ranges, identity=1, carry=True)[-1]
    partials = partials_of(ranges)
    result = reduce_fn(np.asarray(partials))
    return _mean(result, n) if name == "mean" else result


def _mean(total, n):
    """NumPy's mean from its sum: divided by the count as an intp (complex64 and float32 divide
    in double precision, then cast back), in the sum's type."""
    return total.dtype.type(total / np.intp(n))


def _run_ranges(ranges, partial, parallel):
    results = [None] * len(ranges)

    def job(indices):
        def run_it():
            for i in indices:
                lo, m = ranges[i]
                results[i] = partial(lo, lo + m)
        return run_it

    parts = _threads() if parallel else 1
    groups = [range(len(ranges) * k // parts, len(ranges) * (k + 1) // parts) for k in range(parts)]
    _parallel([job(g) for g in groups if len(g)])
    return results


def contiguous_inputs(arrays, shape):
    """Are all array inputs C-contiguous with the full shape (or 0-d)? Then blocks are flat slices."""
    return all(a.ndim == 0 or (a.shape == shape and a.flags.c_contiguous) for a in arrays.values())


def run(plan, arrays, scalars, shape, out):
    """Elementwise plans: fill ``out`` (an ndarray of ``shape``, any strides). Whole-array
    reductions (``out`` None): return NumPy's result. ``arrays``: position -> ndarray."""
    n = int(np.prod(shape, dtype=np.int64))
    if out is not None:
        native = native_for(plan, scalars)
        layout = grid(shape, arrays, out) if native is not None else None
        if layout is not None:
            rows, cols, ops, out_op = layout
            if native.run(ops, scalars, out_op, rows, cols, BLOCK, _threads() if n >= _PARALLEL_FROM else 1):
                return out
    if contiguous_inputs(arrays, shape) and (out is None or out.flags.c_contiguous):
        flat = {k: (a if a.ndim == 0 else a.reshape(-1)) for k, a in arrays.items()}
        if out is not None:
            _elementwise(plan, flat, scalars, out.reshape(-1), n)
            return out
        return _reduce_blocks(plan, flat, scalars, n, plan.reduction.fn, plan.dtypes[plan.elementwise_out.index].kind)
    # Broadcast or strided inputs: NumPy's buffered iterator hands out aligned blocks (the caller
    # sends whole-array reductions of such inputs through a temporary: out is never None here).
    positions = sorted(arrays)
    ops = [arrays[k] for k in positions] + [out]
    flags = [["readonly"]] * len(positions) + [["writeonly"]]
    it = np.nditer(ops, flags=["external_loop", "buffered", "zerosize_ok"], op_flags=flags,
                   buffersize=BLOCK, order="C")
    prog = _program(plan)
    vals = _values(prog, scalars)
    with it:
        for chunk in it:
            for index, position in prog.inputs:
                vals[index] = chunk[positions.index(position)]
            _eval(prog, vals, len(chunk[-1]), chunk[-1])
    return out
