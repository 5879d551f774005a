"""Which samples make each batch of AsyncIterator(backend="process"): a plan fixed by the seed.

A map-style dataset (``__len__`` and ``__getitem__``) is cut into batches of ``batch_size`` indices,
in order or, with ``shuffle=True``, in a permutation drawn for each epoch from ``(seed, epoch)``;
batch k of epoch e is therefore the same in every run and in every process, which is what makes
``state_dict()`` / ``load_state_dict()`` resume exactly. An iterable dataset has no plan: each
worker iterates its own shard (``worker_info()``) and the batches are taken round robin.
"""

import numpy

STATE_VERSION = 1


class MapPlan:
    kind = "map"

    seed_given = True

    def __init__(self, length, batch_size, shuffle, seed, drop_last):
        self.length, self.batch_size, self.shuffle = length, batch_size, shuffle
        self.seed, self.drop_last = seed, drop_last
        size = batch_size or 1
        self.batches = length // size if drop_last else -(-length // size)
        self._order = (None, None)

    def indices(self, epoch, k):
        """The dataset indices of batch ``k`` (from 0) of epoch ``epoch`` (from 1)."""
        size = self.batch_size or 1
        if not self.shuffle:
            return list(range(k * size, min((k + 1) * size, self.length)))
        if self._order[0] != epoch:
            self._order = (epoch, numpy.random.default_rng([self.seed, epoch]).permutation(self.length))
        return self._order[1][k * size:(k + 1) * size].tolist()

    def state(self):
        return {"kind": "map", "length": self.length, "batch_size": self.batch_size,
                "shuffle": self.shuffle, "seed": self.seed, "drop_last": self.drop_last}


class IterablePlan:
    kind = "iterable"

    seed_given = True

    def __init__(self, workers, batch_size, seed, drop_last):
        self._order = (None, None)
        self.workers, self.batch_size, self.seed, self.drop_last = workers, batch_size, seed, drop_last
        self.batches = None

    def indices(self, epoch, k):
        return None

    def state(self):
        return {"kind": "iterable", "workers": self.workers, "batch_size": self.batch_size,
                "seed": self.seed, "drop_last": self.drop_last}


def check_state(state, plan, who):
    """The (epoch, position, exhausted) a ``state_dict()`` asks to resume at; ValueError when it
    was made for another dataset, batch size, seed, shuffling or worker count."""
    fn = f"{who}.load_state_dict()"
    if not isinstance(state, dict):
        raise TypeError(f"{fn}: state must be the dict state_dict() returned, not {type(state).__name__}")
    if state.get("version") != STATE_VERSION:
        raise ValueError(f"{fn}: state version {state.get('version')!r} is not {STATE_VERSION} "
                         "(a state_dict() of another wsarray version, or not one at all)")
    mine = plan.state()
    if not plan.seed_given and isinstance(state.get("seed"), int):
        mine["seed"] = state["seed"]  # no seed was asked for: the state's is adopted
    for key, value in mine.items():
        if state.get(key) != value:
            raise ValueError(f"{fn}: the state was saved with {key}={state.get(key)!r}, this iterator "
                             f"has {key}={value!r}: resume with the same dataset and settings")
    epoch, position = state.get("epoch"), state.get("position")
    if not isinstance(epoch, int) or epoch < 1 or not isinstance(position, int) or position < 0:
        raise ValueError(f"{fn}: epoch must be an int >= 1 and position an int >= 0, got {epoch!r}, {position!r}")
    if plan.batches is not None and position > plan.batches:
        raise ValueError(f"{fn}: position {position} is beyond the epoch's {plan.batches} batches")
    exhausted = {int(k): int(v) for k, v in state.get("exhausted", {}).items()}
    if mine["seed"] != plan.seed:
        plan.seed, plan._order = mine["seed"], (None, None)
    return epoch, position, exhausted
