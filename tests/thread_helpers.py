"""Running test code on several threads at once (shared by the thread tests)."""
import threading

from wsarray import memory


def run_threads(target, n):
    """Run target(k) for k in range(n), each on its own thread, all at once. Fails the calling test
    with every exception a thread raised, or if a thread hangs; each thread's workspaces are
    destroyed when its target returns."""
    errors = []

    def wrapped(k):
        try:
            target(k)
        except BaseException as e:  # noqa: BLE001 - reported to the main thread
            errors.append((k, e))
        finally:
            memory.destroy_all_workspaces_for_current_thread()

    threads = [threading.Thread(target=wrapped, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert not errors, errors
