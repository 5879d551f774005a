"""Mistakes mypy --strict must report (tests/package/test_typing.py): each line marked with the E
comment, with the pieces of mypy's message after the marker, separated by ``|``."""
import wsarray as np
from wsarray.data import BatchDirectory, PerformanceListener, WorkspaceManager
from wsarray.parallel import ParallelWrapper

# A number where a policy name is expected:
config = np.WorkspaceConfig(spill=3)  # E: "spill" | "Literal['external', 'reallocate', 'fail']"
with np.workspace("LOOP", config) as ws:
    a = np.ones(3)
    ws.destory()  # E: "destory" | maybe "destroy"
    b = a.detatch()  # E: "detatch" | maybe "detach"
# An Array where a workspace name is expected:
np.memory.destroy_workspace(a)  # E: "destroy_workspace" | "Array[ | expected "str"
with np.workspace(a):  # E: "workspace" | "Array[ | expected "str"
    pass
np.memory.set_auto_gc_window("1s")  # E: "set_auto_gc_window" | expected "int"
# A misspelt kind, policy or mode name (Literal types):
mgr = WorkspaceManager("separate")
with mgr.scope("workng_memory"):  # E: "scope" of "WorkspaceManager" | "Literal['workng_memory']"
    pass
BatchDirectory("saved", on_error="ignore")  # E: "on_error" to "BatchDirectory" | "Literal['ignore']"
ParallelWrapper(object(), workspace_mode="double")  # E: "workspace_mode" to "ParallelWrapper" | "Literal['double']"
PerformanceListener(10, progress="yes")  # E: "progress" to "PerformanceListener" | "Literal['yes']"
np.show_config(mode="dict")  # E: No overload variant of "show_config"
# Misspelt names of the namespace and of a lazily imported submodule's class:
np.zeross(3)  # E: Module has no attribute "zeross" | maybe "zeros"
np.random.default_rng(0).normall(size=3)  # E: "Generator" has no attribute "normall" | maybe "normal"
