"""Ctrl-C at random points of a loop body (shared by the tests of what an interrupt may not split)."""
import random
import signal


def ctrl_c_storm(body, rounds, longest):
    """Run ``body()`` ``rounds`` times, each with a KeyboardInterrupt due after a random delay of at
    most ``longest`` seconds (from a SIGALRM handler, as Ctrl-C arrives: between two bytecodes of
    the main thread). Returns how many rounds were interrupted; the handler is put back after."""
    armed = [False]

    def handler(*_):
        if armed[0]:
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, handler)
    interrupted = 0
    try:
        for _ in range(rounds):
            try:
                armed[0] = True
                signal.setitimer(signal.ITIMER_REAL, random.uniform(1e-6, longest))
                body()
            except KeyboardInterrupt:
                interrupted += 1
            finally:
                armed[0] = False
                signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    return interrupted
