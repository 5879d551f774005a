"""Mistakes mypy --strict must report (tests/package/test_typing.py): each line marked with the E
comment, with the pieces of mypy's message after the marker, separated by ``|``."""
import wsarray as np

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
