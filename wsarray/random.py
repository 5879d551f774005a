"""``wsarray.random``: NumPy's random numbers, with results allocated in the current workspace.

Both APIs draw from NumPy's own generators, so a seed gives exactly NumPy's numbers:

* the legacy functions (``seed``, ``rand``, ``randn``, ``randint``, ``normal``, ``choice``,
  ``shuffle``, ...) use NumPy's global ``RandomState``, shared with ``numpy.random``;
* ``default_rng(seed)`` / ``Generator(bit_generator)`` and ``RandomState(seed)`` return
  subclasses of NumPy's classes (code that checks ``isinstance(rng, numpy.random.Generator)`` takes
  them) whose methods run through the wsarray engine (arguments unwrapped, allocations routed into
  the current workspace, arrays returned as ``wsarray.Array``).

Bit generators and ``SeedSequence`` hold no arrays and are NumPy's own classes.
"""

import sys as _sys
import warnings as _warnings
from collections.abc import Sequence as _Sequence
from typing import TYPE_CHECKING, Any

import numpy as _np
import numpy.random as _nr
import numpy.random._pickle as _nr_pickle
# NumPy's modules of the bit generator base class and the legacy RandomState: no array memory.
from numpy.random import bit_generator, mtrand

# Routed random functions: arrays from the workspace, scalars as NumPy's (``rng.integers(6)`` is
# an ``np.int64``, ``np.random.rand()`` a float), as NumPy returns them.
from ._native import Array as _Array
from ._numpy._routing import numpy_function as _F


__all__ = [
    "BitGenerator", "Generator", "MT19937", "PCG64", "PCG64DXSM", "Philox", "RandomState", "SFC64",
    "SeedSequence", "beta", "binomial", "bytes", "chisquare", "choice", "default_rng", "dirichlet",
    "exponential", "f", "gamma", "geometric", "get_bit_generator", "get_state", "gumbel",
    "hypergeometric", "laplace", "logistic", "lognormal", "logseries", "multinomial",
    "multivariate_normal", "negative_binomial", "noncentral_chisquare", "noncentral_f", "normal",
    "pareto", "permutation", "poisson", "power", "rand", "randint", "randn", "random",
    "random_integers", "random_sample", "ranf", "rayleigh", "sample", "seed", "set_bit_generator",
    "set_state", "shuffle", "standard_cauchy", "standard_exponential", "standard_gamma",
    "standard_normal", "standard_t", "triangular", "uniform", "vonmises", "wald", "weibull", "zipf",
]

BitGenerator = _nr.BitGenerator


def _plain(x):
    """A seed as NumPy's Cython code takes it: a wsarray array as its NumPy array (or scalar), a
    user's own ISeedSequence behind an adapter whose generate_state gives NumPy arrays."""
    if type(x) is _Array:
        n = _np.asarray(x)
        return n[()] if n.ndim == 0 else n
    if isinstance(x, bit_generator.ISeedSequence) and not isinstance(x, (_nr.SeedSequence, _UserSeedSequence)):
        spawnable = isinstance(x, bit_generator.ISpawnableSeedSequence)
        return (_UserSpawnableSeedSequence if spawnable else _UserSeedSequence)(x)
    return x


class _UserSeedSequence(bit_generator.ISeedSequence):
    """A user's ISeedSequence as NumPy's bit generators take it: its generate_state may return a
    wsarray array (written with ``import wsarray as np``), which NumPy's Cython code refuses.
    Other attributes are the user's object's."""

    def __init__(self, seq):
        self.wrapped = seq

    def generate_state(self, n_words, dtype=_np.uint32):
        return _np.asarray(self.wrapped.generate_state(n_words, dtype))

    def __getattr__(self, name):
        return getattr(self.wrapped, name)


class _UserSpawnableSeedSequence(_UserSeedSequence, bit_generator.ISpawnableSeedSequence):
    def spawn(self, n_children):
        # the children go to NumPy's bit generator classes (Generator.spawn): adapted as well
        return [_plain(child) for child in self.wrapped.spawn(n_children)]


class _NumpysClass(type):
    """isinstance(x, wsarray.random.PCG64) holds for NumPy's own PCG64 too (default_rng's, an
    unpickled one, SeedSequence from NumPy's code): these classes differ only in their constructor."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, cls.__mro__[1])

    def __subclasscheck__(cls, sub):
        return issubclass(sub, cls.__mro__[1])


# NumPy's bit generators and SeedSequence, whose constructors also take wsarray arrays as seeds
# (NumPy's Cython code requires a numpy.ndarray itself). They hold no array memory.
class SeedSequence(_nr.SeedSequence, metaclass=_NumpysClass):
    __doc__ = _nr.SeedSequence.__doc__

    def __init__(self, entropy=None, *, spawn_key=(), pool_size=4, n_children_spawned=0):
        super().__init__(_plain(entropy), spawn_key=tuple(_plain(k) for k in spawn_key), pool_size=pool_size,
                         n_children_spawned=n_children_spawned)


def _seeded(numpy_class):
    """``numpy_class`` taking wsarray arrays as its seed (NumPy's Cython class refuses them)."""

    def init(self, seed=None):
        numpy_class.__init__(self, _plain(seed))

    return _NumpysClass(numpy_class.__name__, (numpy_class,),
                        {"__doc__": numpy_class.__doc__, "__init__": init, "__module__": __name__})


MT19937 = _seeded(_nr.MT19937)
PCG64 = _seeded(_nr.PCG64)
PCG64DXSM = _seeded(_nr.PCG64DXSM)
SFC64 = _seeded(_nr.SFC64)


class Philox(_nr.Philox, metaclass=_NumpysClass):
    __doc__ = _nr.Philox.__doc__

    def __init__(self, seed=None, counter=None, key=None):
        super().__init__(_plain(seed), _plain(counter), _plain(key))


get_bit_generator = _nr.get_bit_generator  # the global RandomState's bit generator (no arrays)
set_bit_generator = _nr.set_bit_generator
# import wsarray.random.bit_generator / .mtrand, as numpy.random's.
_sys.modules[__name__ + ".bit_generator"] = bit_generator
_sys.modules[__name__ + ".mtrand"] = mtrand


# NumPy's warning for shuffling what is not a Sequence, given here so that it names the caller's line
# (NumPy's Cython code warns with stacklevel=1: the frame that called it, which would be wsarray's).
_UNTYPED = ("you are shuffling a '{}' object which is not a subclass of 'Sequence'; `shuffle` is not "
            "guaranteed to behave correctly. E.g., non-numpy array/tensor objects with view semantics "
            "may contain duplicates after shuffling.")


class _AsSequence(_Sequence):
    """A non-Sequence (a dict) seen as a Sequence: NumPy's untyped shuffle swaps its items as it
    would the object's own, without a second warning."""

    __slots__ = ("_x",)

    def __init__(self, x):
        self._x = x

    def __len__(self):
        return len(self._x)

    def __getitem__(self, i):
        return self._x[i]

    def __setitem__(self, i, value):
        self._x[i] = value


def _shuffle(numpy_shuffle, name, x, **kwargs):
    """Shuffle ``x`` in place with NumPy's ``numpy_shuffle``; called by the public wrappers only."""
    if isinstance(x, list):  # as it is: the engine would shuffle an unwrapped copy of the list
        return numpy_shuffle(x, **kwargs)
    if not isinstance(x, (_np.ndarray, _Sequence)):  # (Arrays pass as numpy.ndarray)
        len(x)  # NumPy asks first: what has no length is its TypeError, with no warning before it
        _warnings.warn(_UNTYPED.format(type(x).__name__), UserWarning, stacklevel=3)
        return numpy_shuffle(_AsSequence(x), **kwargs)
    return _F(numpy_shuffle, name)(x, **kwargs)


class _AcceptsNumpys(type):
    """isinstance(x, wsarray.random.Generator) holds for NumPy's own Generator too (an unpickled one,
    one a library made): the subclass differs only in returning wsarray arrays."""

    def __instancecheck__(cls, obj):
        return type.__instancecheck__(cls, obj) or isinstance(obj, cls._numpy_class)

    def __subclasscheck__(cls, sub):
        return type.__subclasscheck__(cls, sub) or issubclass(sub, cls._numpy_class)


def _routed_methods(numpy_class, kind, own):
    """A method for each public method of ``numpy_class`` (but those in ``own``): NumPy's, run
    through the engine (arguments unwrapped, arrays allocated in the current workspace and returned
    as wsarray arrays). Every public method of NumPy's Generator / RandomState returns numbers or
    arrays, so routing them all is exact."""

    def method(name, routed):
        def call(self, *args, **kwargs):
            return routed(self, *args, **kwargs)

        call.__name__, call.__qualname__ = name, f"{kind}.{name}"
        call.__doc__ = getattr(numpy_class, name).__doc__
        return call

    return {name: method(name, _F(getattr(numpy_class, name), f"random.{kind}.{name}"))
            for name in dir(numpy_class)
            if not name.startswith("_") and name not in own and callable(getattr(numpy_class, name))}


class _Routed:
    """Common part of Generator and RandomState (subclasses of NumPy's, so that code checking
    ``isinstance(rng, numpy.random.Generator)``, SciPy's and scikit-learn's among it, takes them)."""

    __slots__ = ()
    _kind = ""
    _numpy_class = ()

    def __reduce__(self):
        # NumPy's pickle (bit generator, state), rebuilt as this class: _ctor takes NumPy's
        # helper's arguments, so old-style pickles that name the bit generator load too.
        _, args, state = super().__reduce__()
        return (_CTORS[self._kind], args, state)

    def __setstate__(self, state):
        if isinstance(state, self._numpy_class):  # pickles of earlier wsarray versions hold NumPy's object
            self._take_state_of(state)
        elif state is not None:
            super().__setstate__(state)

    def __repr__(self):  # NumPy's text, with this object's address
        return f"{self._numpy_class.__repr__(self).split(' at 0x')[0]} at 0x{id(self):X}"


if TYPE_CHECKING:
    # To type checkers these are NumPy's classes: the same methods and signatures (results typed
    # as NumPy's arrays, as for NumPy's other names), so a misspelt method is reported.
    from numpy.random import Generator, RandomState
else:
    def _bit_generator_of(x):
        """A Generator given to Generator(): its bit generator (the same stream, shared)."""
        return x.bit_generator if isinstance(x, _nr.Generator) else x

    class Generator(_Routed, _nr.Generator, metaclass=_AcceptsNumpys):
        """``numpy.random.Generator`` whose results are wsarray arrays (same numbers as NumPy); a
        subclass of NumPy's. ``Generator(numpy_generator)`` draws from that generator's bit
        generator."""

        _kind = "Generator"
        _numpy_class = _nr.Generator

        def __new__(cls, bit_generator):
            return _nr.Generator.__new__(cls, _bit_generator_of(bit_generator))

        def __init__(self, bit_generator):
            _nr.Generator.__init__(self, _bit_generator_of(bit_generator))

        def shuffle(self, x, axis=0):
            """Shuffle ``x`` in place (a Python list as it is; see ``wsarray.random.shuffle``)."""
            return _shuffle(_nr.Generator.shuffle.__get__(self), "random.Generator.shuffle", x, axis=axis)

        def spawn(self, n_children):
            return [Generator(g) for g in _nr.Generator.spawn(self, n_children)]

        def _take_state_of(self, other):
            self.bit_generator.state = other.bit_generator.state

    def _seed_of(x):
        """A RandomState given to RandomState(): its bit generator (the same stream, shared)."""
        return x._bit_generator if isinstance(x, _nr.RandomState) else _plain(x)

    class RandomState(_Routed, _nr.RandomState, metaclass=_AcceptsNumpys):
        """``numpy.random.RandomState`` whose results are wsarray arrays (same numbers as NumPy); a
        subclass of NumPy's."""

        _kind = "RandomState"
        _numpy_class = _nr.RandomState

        def __new__(cls, seed=None):
            return _nr.RandomState.__new__(cls, _seed_of(seed))

        def __init__(self, seed=None):
            _nr.RandomState.__init__(self, _seed_of(seed))

        def shuffle(self, x):
            """Shuffle ``x`` in place (a Python list as it is; see ``wsarray.random.shuffle``)."""
            return _shuffle(_nr.RandomState.shuffle.__get__(self), "random.RandomState.shuffle", x)

        def _take_state_of(self, other):
            _nr.RandomState.__setstate__(self, other.__getstate__())

    for _cls, _own in ((Generator, ("spawn", "shuffle")), (RandomState, ("shuffle",))):
        for _name, _method in _routed_methods(_cls._numpy_class, _cls._kind, _own).items():
            setattr(_cls, _name, _method)
    del _cls, _own, _name, _method


def _generator_ctor(*args, **kwargs):
    """Unpickles a wsarray Generator (NumPy's helper's arguments: a bit generator or its name)."""
    return Generator(getattr(_nr_pickle, "__generator_ctor")(*args, **kwargs))


def _randomstate_ctor(*args, **kwargs):
    """Unpickles a wsarray RandomState (NumPy's helper's arguments)."""
    return RandomState(getattr(_nr_pickle, "__randomstate_ctor")(*args, **kwargs))


_CTORS = {"Generator": _generator_ctor, "RandomState": _randomstate_ctor}


def default_rng(seed: Any = None) -> Generator:
    """Like ``numpy.random.default_rng``; the Generator's results are wsarray arrays."""
    if type(seed) is Generator:  # (isinstance holds for NumPy's Generator too: that one is wrapped)
        return seed
    return Generator(_nr.default_rng(_plain(seed)))


beta = _F(_nr.beta, "random.beta")
binomial = _F(_nr.binomial, "random.binomial")
bytes = _F(_nr.bytes, "random.bytes")  # noqa: A001
chisquare = _F(_nr.chisquare, "random.chisquare")
choice = _F(_nr.choice, "random.choice")
dirichlet = _F(_nr.dirichlet, "random.dirichlet")
exponential = _F(_nr.exponential, "random.exponential")
f = _F(_nr.f, "random.f")
gamma = _F(_nr.gamma, "random.gamma")
geometric = _F(_nr.geometric, "random.geometric")
get_state = _F(_nr.get_state, "random.get_state")
gumbel = _F(_nr.gumbel, "random.gumbel")
hypergeometric = _F(_nr.hypergeometric, "random.hypergeometric")
laplace = _F(_nr.laplace, "random.laplace")
logistic = _F(_nr.logistic, "random.logistic")
lognormal = _F(_nr.lognormal, "random.lognormal")
logseries = _F(_nr.logseries, "random.logseries")
multinomial = _F(_nr.multinomial, "random.multinomial")
multivariate_normal = _F(_nr.multivariate_normal, "random.multivariate_normal")
negative_binomial = _F(_nr.negative_binomial, "random.negative_binomial")
noncentral_chisquare = _F(_nr.noncentral_chisquare, "random.noncentral_chisquare")
noncentral_f = _F(_nr.noncentral_f, "random.noncentral_f")
normal = _F(_nr.normal, "random.normal")
pareto = _F(_nr.pareto, "random.pareto")
permutation = _F(_nr.permutation, "random.permutation")
poisson = _F(_nr.poisson, "random.poisson")
power = _F(_nr.power, "random.power")
rand = _F(_nr.rand, "random.rand")
randint = _F(_nr.randint, "random.randint")
randn = _F(_nr.randn, "random.randn")
random = _F(_nr.random, "random.random")
random_integers = _F(_nr.random_integers, "random.random_integers")
random_sample = _F(_nr.random_sample, "random.random_sample")
ranf = _F(_nr.ranf, "random.ranf")
rayleigh = _F(_nr.rayleigh, "random.rayleigh")
sample = _F(_nr.sample, "random.sample")
seed = _F(_nr.seed, "random.seed")
set_state = _F(_nr.set_state, "random.set_state")
def shuffle(x):
    """Shuffle ``x`` in place (NumPy's global state). A Python list is shuffled as it is: the engine
    would otherwise shuffle an unwrapped copy of a list that holds wsarray arrays."""
    return _shuffle(_nr.shuffle, "random.shuffle", x)


standard_cauchy = _F(_nr.standard_cauchy, "random.standard_cauchy")
standard_exponential = _F(_nr.standard_exponential, "random.standard_exponential")
standard_gamma = _F(_nr.standard_gamma, "random.standard_gamma")
standard_normal = _F(_nr.standard_normal, "random.standard_normal")
standard_t = _F(_nr.standard_t, "random.standard_t")
triangular = _F(_nr.triangular, "random.triangular")
uniform = _F(_nr.uniform, "random.uniform")
vonmises = _F(_nr.vonmises, "random.vonmises")
wald = _F(_nr.wald, "random.wald")
weibull = _F(_nr.weibull, "random.weibull")
zipf = _F(_nr.zipf, "random.zipf")


# NumPy's names this module does not define are NumPy's own (wsarray/_numpy/fallback.py).
if not TYPE_CHECKING:  # a module __getattr__ would make every misspelt name valid to a type checker
    from ._numpy.fallback import numpy_module_getattr as _numpy_module_getattr

    __getattr__ = _numpy_module_getattr(__name__, "numpy.random")
    __path__: list = []  # NumPy's submodules import through it: import wsarray.random._x
