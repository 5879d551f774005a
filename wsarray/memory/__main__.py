"""``python -m wsarray.memory view mem.json -o mem.html``: the snapshot viewer's page from a snapshot
file (JSON; a pickle only with --trust-pickle)."""

import argparse
import sys

from .history import load_snapshot
from .viewer import write_html


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m wsarray.memory", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    view = commands.add_parser("view", help="write the HTML page of a snapshot")
    view.add_argument("snapshot", help="a file written by wsarray.memory.dump_snapshot")
    view.add_argument("-o", "--output", help="the HTML file (default: the snapshot's name with .html)")
    view.add_argument("--trust-pickle", action="store_true", help="read a pickled snapshot (it can run code)")
    args = parser.parse_args(argv)
    try:
        snap = load_snapshot(args.snapshot, trust_pickle=args.trust_pickle)
    except (OSError, ValueError) as e:
        print(f"python -m wsarray.memory view: {e}", file=sys.stderr)
        return 2
    out = args.output or (args.snapshot.rsplit(".", 1)[0] + ".html")
    try:
        write_html(snap, out, title=f"wsarray memory snapshot: {args.snapshot}")
    except OSError as e:
        print(f"python -m wsarray.memory view: cannot write {out!r}: {e}", file=sys.stderr)
        return 2
    except (KeyError, TypeError, AttributeError) as e:  # a hand-made or cut file with the snapshot's kind
        print(f"python -m wsarray.memory view: {args.snapshot!r} is not a whole snapshot "
              f"({type(e).__name__}: {e})", file=sys.stderr)
        return 2
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
