"""``python -m wsarray``: the demo (see wsarray/_demo.py)."""

from wsarray._demo import main

main()
