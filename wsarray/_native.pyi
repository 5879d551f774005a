from collections.abc import Callable, Iterable
import types
from typing import Any, Literal

from wsarray import (
    Function as Function,
    WorkspaceError as WorkspaceError,
    WorkspaceMemoryError as WorkspaceMemoryError,
    ndarray as Array
)


def _ndarray_pool_counts() -> list: ...

def _set_hook(name: str, value: object) -> None: ...

class Gate:
    """
    An event whose set(), clear() and wait() a signal handler cannot break (each is one call; a handler that raises during wait() ends the wait with its exception).
    """

    set: types.MethodDescriptorType = ...

    clear: types.MethodDescriptorType = ...

    is_set: types.MethodDescriptorType = ...

    wait: types.MethodDescriptorType = ...

def _gate_after_fork() -> None:
    """
    In a forked child: the forking thread is the one signal handlers run on now.
    """

def _open_gates(*args, **kwargs) -> Any:
    """
    _open_gates(gates): set() every Gate of the list, releasing the GIL once for all the wake-ups.
    """

def _poke(fd: int) -> None:
    """
    Write one byte to a non-blocking pipe `fd` (a wake-up) without releasing the GIL; errors are ignored, fd < 0 does nothing.
    """

def defer_signals(fn: Callable[..., Any], /, *args: object) -> Any:
    """
    defer_signals(fn, *args): fn(*args), with the Python signal handlers of the main thread held back until it returns; each signal that arrived meanwhile is then handled once (a handler's exception raises here, after fn). On other threads, and nested, fn just runs.
    """

def _record_signal(signum: int, frame: object, /) -> None:
    """The signal handler while a call is deferred (defer_signals)."""

def _signals_after_fork() -> None:
    """In a forked child: put back the handlers a deferred call of the parent swapped."""

class _ScopeStack:
    """The scopes open in a context (wsarray internal)."""

def _set_bypass(on: bool, this_thread_only: bool) -> None:
    """
    Debug mode bypass_everything for the process or this thread (wsarray.memory.set_debug).
    """

def _clear_thread_bypass() -> None:
    """Drop this thread's own bypass setting."""

def _bypass_active() -> bool:
    """Whether allocations bypass workspaces on this thread now."""

def _kept_context_maps() -> int:
    """
    How many context variable maps changes made during a garbage collection keep (context_change.h).
    """

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
    location          'ram', 'mmap' (an unlinked temporary file) or 'shared' (anonymous shared memory,
                      chunks and spills alike, that another process can map: see
                      wsarray._native._shared_segment; after os.fork() the child's view of it is
                      private copy-on-write); 'shared' takes no device
    temp_file_path    directory of the 'mmap' files ($TMPDIR or /tmp if empty); must exist; only
                      with location='mmap'
    trim_after_cycles every this many cycles, pages none of them touched go back to the OS (0: never)
    device            'cpu' or 'cuda:N': wsarray.workspace(name, config) then gives a workspace of that
                      GPU's memory for CuPy arrays; without CuPy, a driver or a GPU it raises
                      wsarray.cuda.CudaUnavailableError saying which is missing

    The config only describes: memory is mapped by wsarray.workspace(name, config).
    """

    def __init__(self, *, initial_size: int | str = 0, min_size: int | str = 0, max_size: int | str = 0, overallocation_limit: float = 0.3, allocation: Literal['overallocate', 'strict'] = 'overallocate', learning: Literal['first_loop', 'over_time', 'none'] = 'first_loop', cycles_before_initialization: int = 0, spill: Literal['external', 'reallocate', 'fail'] = 'external', reset: Literal['block_left', 'end_of_buffer'] = 'block_left', location: Literal['ram', 'mmap', 'shared'] = 'ram', temp_file_path: str = '', trim_after_cycles: int = 16, device: str = 'cpu') -> None:
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
    def allocation(self) -> Literal['overallocate', 'strict']: ...

    @property
    def learning(self) -> Literal['first_loop', 'over_time', 'none']: ...

    @property
    def spill(self) -> Literal['external', 'reallocate', 'fail']: ...

    @property
    def reset(self) -> Literal['block_left', 'end_of_buffer']: ...

    @property
    def location(self) -> Literal['ram', 'mmap', 'shared']: ...

    @property
    def device(self) -> str: ...

    @property
    def _needs_device_source(self) -> bool: ...

    def __eq__(self, other: object, /) -> bool: ...

    def __repr__(self) -> str: ...

def parse_size(size: int | str) -> int:
    """Bytes in a size given as an int or a string like '64MB' or '1.5GiB'."""

def _config_with_device_source(config: WorkspaceConfig, name: str, alloc: Callable, free: Callable, alignment: int = 256) -> WorkspaceConfig:
    """
    A copy of `config` whose chunks come from alloc(size) -> address or None and go back through free(address, size); both are called without the core's mutex, from any thread (device layers).
    """

class _ThreadCleanup:
    """Ends a thread's workspaces when it exits (internal)."""

class Scope:
    """
    A borrow of an enclosing open workspace, or a scope_out(): `with` it (in the context that opened the workspace).
    """

    def __enter__(self) -> Scope: ...

    def __exit__(self, *args: object) -> Literal[False]: ...

    def __repr__(self) -> str: ...

def scope_out() -> Scope:
    """
    Context manager: allocations inside bypass every workspace (arrays are detached).
    """

class _Slot:
    """A batch slot of the data pipeline's ring (wsarray.data; internal)."""

    def __init__(self, name: object, config: WorkspaceConfig, hint: object | None = None) -> None: ...

    @property
    def name(self) -> str: ...

    @property
    def is_open(self) -> bool: ...

    @property
    def alive(self) -> bool: ...

    def begin(self) -> None:
        """Open the slot's cycle (the producer, before it fills it)."""

    def fill(self) -> Scope:
        """
        Context manager: allocations inside go to the slot, whose cycle must be open.
        """

    def retire(self) -> None:
        """
        End the slot's cycle: its arrays become stale and its memory serves a later batch.
        """

    def stats(self) -> dict: ...

    def destroy(self) -> None:
        """Give the slot's memory back to the OS; its arrays become stale."""

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

    def __enter__(self) -> Workspace:
        """Begin a cycle of this workspace (the `with` block)."""

    def __exit__(self, *args: object) -> Literal[False]:
        """End the cycle: its arrays become stale."""

    def __eq__(self, other: object, /) -> bool: ...

    def __hash__(self) -> int: ...

    def borrow(self) -> Scope:
        """
        Context manager: allocations inside go to this workspace, whose cycle must be open in an enclosing 'with' block of the same context.
        """

    def stats(self) -> dict[str, Any]:
        """
        stats() -> dict: name, capacity (bytes mapped), used (bytes in live blocks), peak_cycle_bytes (peak of the last cycle), spilled_bytes / spilled_cycle_bytes / spills (served outside the chunks), cycles, allocations, allocated_bytes, reused_bytes (served from memory used before: no fresh pages), frees, os_maps, learned_size, live_arrays, wraps (circular), chunks, trimmed_bytes (idle pages given back), zeroed_bytes, initialized (learning done), generation, open, alive.
        """

    def _check_heap(self) -> str:
        """Heap invariants of every chunk ('' when consistent); for tests."""

    def destroy(self) -> None:
        """Give the workspace's memory back to the OS; its arrays become invalid."""

    def __repr__(self) -> str: ...

def _workspace_allocate(ws: Workspace, nbytes: int, zero: bool = False) -> int:
    """
    Allocate `nbytes` from the workspace without an array; returns the address.
    """

def _workspace_free(address: int) -> bool:
    """Free a block by address; False if no workspace owns it."""

def _test_owned_size(address: int) -> object:
    """
    Bytes requested for the live block at `address`, None if none (for tests).
    """

def workspace(name: str = 'WSA_DEFAULT', config: WorkspaceConfig | None = None) -> Workspace:
    """
    The workspace ``name`` of the current thread (created on first use with ``config``).

    ``with wsarray.workspace("LOOP"):`` runs one cycle: every array made inside comes from the workspace's memory and becomes invalid when the block ends; ``.detach()`` keeps a result. Calling it again with the same name on the same thread returns the same workspace; a different ``config`` for an existing name raises ``WorkspaceError``. A config with ``device="cuda:N"`` gives a workspace of that GPU's memory (its CuPy arrays come from it).
    """

def _destroy_all() -> None: ...

def _destroy(name: str) -> None: ...

def _exists(name: str) -> bool: ...

def _active(name: str) -> bool: ...

def _current() -> str | None: ...

def _statistics() -> dict[str, dict[str, Any]]: ...

def _stack() -> list[tuple[str, str | None]]: ...

def _set_spill_everything(on: bool, this_thread_only: bool) -> None:
    """Debug mode spill_everything (wsarray.memory.set_debug)."""

def _clear_thread_spill_everything() -> None:
    """This thread follows the process's spill_everything setting again."""

def _spilling_everything() -> bool:
    """Whether spill_everything applies on this thread."""

def _block_traceback(arg: int, /) -> object:
    """
    tracemalloc's frames ((filename, lineno), most recent first) of the workspace block at `address`, or None.
    """

def _array_block_traceback(arg: object, /) -> object:
    """
    tracemalloc's frames of a wsarray.Array's block (see _block_traceback), or None.
    """

def _trace_chunk_maps(on: bool) -> None:
    """
    Whether tracemalloc traces: workspace chunk maps are queued for it (TRACEMALLOC_CHUNK_DOMAIN) only then.
    """

def _report_chunk_maps() -> None:
    """Hand the queued chunk maps and releases to tracemalloc now."""

def _record_blocks(frames: int) -> None:
    """
    Record each new workspace block with this many Python frames (0: stop; at most 16).
    """

def _recording_blocks() -> int:
    """Frames new blocks record (0: not recording)."""

def _recorded_blocks() -> list:
    """
    The live recorded workspace blocks: a list of (address, bytes, workspace, cycle, dtype str
    or None, shape or None, frames ((filename, lineno), innermost first)).
    """

def _numpy_allocation_counts() -> tuple:
    """
    (into workspaces, outside) NumPy data allocations of this thread through wsarray's handler.
    """

def _zombie_bytes() -> int: ...

def _shared_segment(array: object) -> tuple[int, int, int]:
    """
    _shared_segment(array) -> (fd, offset, length): the shared memory holding an array of a
    WorkspaceConfig(location='shared') workspace (its chunk or spill): its file descriptor, the
    offset of the array's first data byte in it, and its size. Another process maps it with
    mmap.mmap(fd, length) (pass the fd to it: subprocess's pass_fds, socket.send_fds) and sees
    and writes the same bytes. The fd belongs to the workspace: it stays open while the array
    (any live array in that memory) does and is closed when the memory is given back;
    os.dup() it to keep it longer, or to hand it to a child made by fork() (os.fork(),
    multiprocessing's 'fork', subprocess with preexec_fn or user=): there the child closes its
    copy of the workspace's own fd and its view of the memory becomes private copy-on-write.
    ValueError for memory not in a shared workspace (or a forked child's private view of one);
    WorkspaceError for a stale array.
    """

def _add_cycle_listener(listener: Callable[[dict[str, Any]], object]) -> None: ...

def _remove_cycle_listener(listener: object) -> None: ...

def _cycle_listeners() -> list[Callable[[dict[str, Any]], object]]: ...

def _set_gc_window(ms: int) -> None: ...

_MAX_GC_WINDOW_MS: int = 9223372036853

def _get_gc_window() -> int: ...

def _gc_collections() -> int: ...

def _collect() -> int: ...

def _build_info() -> dict:
    """Facts about this build (wsarray.show_config() prints them)."""

def _array_pool_counts() -> list: ...

def _set_operator(name: str, func: object) -> None: ...

class _ArrayIterator:
    def __iter__(self, /):
        """Implement iter(self)."""

    def __next__(self, /):
        """Implement next(self)."""

class _BoundMethod:
    def __call__(self, *args, **kwargs) -> object: ...

    def __getattr__(self, arg: str, /) -> object: ...

    def __repr__(self) -> str: ...

    def __eq__(self, other: object | None) -> object: ...

    def __hash__(self) -> int: ...

def _set_subclass_side(name: str, value: object) -> None:
    """
    What a subclass of wsarray.ndarray inherits under `name` instead of numpy.ndarray's attribute.
    """

def _set_ufunc_class(cls: object, functions: Iterable) -> None: ...

class _CycleToken:
    """The workspace cycle a device array's block belongs to."""

    @property
    def valid(self) -> bool:
        """
        The block is usable now (its cycle is open, or the workspace is circular).
        """

    @property
    def in_scope(self) -> bool: ...

    @property
    def workspace(self) -> str: ...

    @property
    def generation(self) -> int: ...

    def check(self, fn: str) -> None:
        """
        Raise the host's WorkspaceError naming wsarray.<fn>() if the cycle has ended.
        """

def _cycle_token(address: int) -> object:
    """
    The cycle of the workspace block at `address` now (None: no workspace owns it).
    """

def _set_device_dispatch(type: object, hook: object) -> None:
    """
    Route namespace calls with an operand of `type`, or a device= other than 'cpu', to hook(name, func, args, kwargs) (NotImplemented: go on as on the host).
    """

def _fusion_run(slots: list, steps: list, rows: int, cols: int, block: int, parts: int) -> bool:
    """
    Run a fused plan block by block (wsarray/fusion/native.py); False: redo it through NumPy.
    """

def _fusion_reduce(slots: list, steps: list, result_slot: int, reduce: object, ranges: list, partials: object, identity: object | None, carry: bool, block: int, parts: int) -> bool:
    """
    Partial reductions of a fused plan's blocks (wsarray/fusion/native.py).
    """
