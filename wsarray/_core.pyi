from typing import Literal

from wsarray import (
    Array as Array,
    Function as Function,
    WorkspaceError as WorkspaceError,
    WorkspaceMemoryError as WorkspaceMemoryError
)


class WorkspaceConfig:
    """
    Policies of a workspace (ND4J's WorkspaceConfiguration).

    WorkspaceConfig(*, initial_size=0, min_size=0, max_size=0, overallocation_limit=0.3,
                    allocation='overallocate', learning='first_loop', cycles_before_initialization=0,
                    spill='external', reset='block_left', location='ram', temp_file_path='',
                    trim_after_cycles=16, device='cpu')

    Sizes take an int (bytes) or a string: '64MB' (10**6), '1.5GiB' (2**30), '512 KiB'.

    initial_size      bytes mapped when the workspace is created (0: none until learning)
    min_size          a learned size never goes below this
    max_size          hard cap on everything the workspace maps, chunks and spills (0: no cap)
    overallocation_limit
                      extra fraction on top of a learned size (0.3: 30%); ignored when strict
    allocation        'overallocate' (learned size * (1 + overallocation_limit)) or 'strict'
    learning          'first_loop': size the workspace from its first cycle; 'over_time': after
                      cycles_before_initialization cycles; 'none': keep initial_size
    cycles_before_initialization
                      cycles measured before an 'over_time' workspace sizes itself
    spill             when the chunks are full: 'external' (serve outside, counted), 'reallocate'
                      (grow by a chunk), 'fail' (WorkspaceMemoryError)
    reset             'block_left': arrays are valid for their cycle; 'end_of_buffer': circular,
                      arrays stay valid until the workspace is destroyed
    location          'ram' or 'mmap' (an unlinked temporary file)
    temp_file_path    directory of the 'mmap' files ($TMPDIR or /tmp if empty); must exist
    trim_after_cycles every this many cycles, pages none of them touched go back to the OS (0: never)
    device            'cpu'; 'cuda:N' raises wsarray.cuda.CudaUnavailableError saying what is missing
                      (CuPy, a driver, a GPU) or that this build has no CUDA array layer yet

    The config only describes: memory is mapped by wsarray.workspace(name, config).
    """

    def __init__(self, *, initial_size: int | str = 0, min_size: int | str = 0, max_size: int | str = 0, overallocation_limit: float = 0.3, allocation: Literal['overallocate', 'strict'] = 'overallocate', learning: Literal['first_loop', 'over_time', 'none'] = 'first_loop', cycles_before_initialization: int = 0, spill: Literal['external', 'reallocate', 'fail'] = 'external', reset: Literal['block_left', 'end_of_buffer'] = 'block_left', location: Literal['ram', 'mmap'] = 'ram', temp_file_path: str = '', trim_after_cycles: int = 16, device: str = 'cpu') -> None:
        """
        WorkspaceConfig(*, initial_size=0, min_size=0, max_size=0, overallocation_limit=0.3, allocation='overallocate', learning='first_loop', cycles_before_initialization=0, spill='external', reset='block_left', location='ram', temp_file_path='', trim_after_cycles=16, device='cpu')
        """

    @property
    def initial_size(self) -> int: ...

    @property
    def min_size(self) -> int: ...

    @property
    def max_size(self) -> int: ...

    @property
    def overallocation_limit(self) -> float: ...

    @property
    def cycles_before_initialization(self) -> int: ...

    @property
    def temp_file_path(self) -> str: ...

    @property
    def trim_after_cycles(self) -> int: ...

    @property
    def allocation(self) -> str: ...

    @property
    def learning(self) -> str: ...

    @property
    def spill(self) -> str: ...

    @property
    def reset(self) -> str: ...

    @property
    def location(self) -> str: ...

    @property
    def device(self) -> str: ...

    def __eq__(self, arg: WorkspaceConfig, /) -> bool: ...

    def __repr__(self) -> str: ...

def parse_size(size: object | None) -> int:
    """Bytes in a size given as an int or a string like '64MB' or '1.5GiB'."""

class Scope:
    """
    A borrow of an enclosing open workspace, or a scope_out(): `with` it (in the context that opened the workspace).
    """

    def __enter__(self) -> object: ...

    def __exit__(self, *args) -> bool: ...

    def __repr__(self) -> str: ...

def scope_out() -> Scope:
    """
    Context manager: allocations inside bypass every workspace (arrays are detached).
    """

class Workspace:
    """
    A named workspace of the thread that created it. `with ws:` runs one cycle: arrays made inside come from its memory and become invalid when the block ends (.detach() keeps one). wsarray.workspace(name) on the same thread returns a handle equal to this one (==, hash). stats() gives its statistics; destroy() gives its memory back to the OS.
    """

    @property
    def name(self) -> str: ...

    @property
    def config(self) -> WorkspaceConfig: ...

    @property
    def generation(self) -> int: ...

    @property
    def is_open(self) -> bool: ...

    @property
    def alive(self) -> bool: ...

    def __enter__(self) -> object: ...

    def __exit__(self, *args) -> bool: ...

    def __eq__(self, other: object | None) -> object: ...

    def __hash__(self) -> int: ...

    def borrow(self) -> Scope:
        """
        Context manager: allocations inside go to this workspace, whose cycle must be open in an enclosing 'with' block of the same context.
        """

    def stats(self) -> dict:
        """
        stats() -> dict: name, capacity (bytes mapped), used (bytes in live blocks), peak_cycle_bytes (peak of the last cycle), spilled_bytes / spilled_cycle_bytes / spills (served outside the chunks), cycles, allocations, allocated_bytes, reused_bytes (served from memory used before: no fresh pages), frees, os_maps, learned_size, live_arrays, wraps (circular), chunks, trimmed_bytes (idle pages given back), zeroed_bytes, initialized (learning done), generation, open, alive.
        """

    def destroy(self) -> None:
        """Give the workspace's memory back to the OS; its arrays become invalid."""

    def __repr__(self) -> str: ...

def workspace(name: object, config: object | None = None) -> Workspace:
    """
    The workspace `name` of this thread, created with `config` on first use.
    """
