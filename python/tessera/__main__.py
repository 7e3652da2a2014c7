"""``python -m tessera``: the command-line tool (see tessera/cli)."""
import sys

if __name__ == "__main__":  # spawned tuning workers import this module again: they must not rerun it
    from .cli import main

    sys.exit(main())
