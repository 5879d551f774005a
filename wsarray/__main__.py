"""``python -m wsarray``: the demo and the environment report (``--help`` lists the options)."""
import sys

from wsarray._demo import main

sys.exit(main())
