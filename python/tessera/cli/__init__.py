"""The ``tessera`` command line (``python -m tessera``, or the ``tessera``
console script): compile, run, tune, show, bench and profile models, one
module per subcommand (cmd_*.py). A user's mistake (missing file, bad
shape, unknown input, an error Tessera raises about the model) is one line
on stderr and exit status 1; no argument ever goes through a shell."""
import argparse
import importlib
import sys

from .common import CLIError

COMMANDS = ("compile", "run", "tune", "show", "bench", "profile")


def _parser():
    parser = argparse.ArgumentParser(prog="tessera", description="Tessera: compile and run ML models on the CPU.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        module = importlib.import_module(f"{__name__}.cmd_{name}")
        cmd = sub.add_parser(name, help=module.HELP, description=module.HELP[0].upper() + module.HELP[1:] + ".")
        module.add_arguments(cmd)
        cmd.set_defaults(handler=module.run)
    return parser


def _one_line(err):
    text = " ".join(line.strip() for line in str(err).splitlines() if line.strip())
    return text or type(err).__name__


def main(argv=None):
    """Runs the command line ``argv`` (default: sys.argv[1:]); returns the exit status."""
    from ..error import TVMError  # pylint: disable=import-outside-toplevel

    args = _parser().parse_args(argv)
    try:
        return args.handler(args)
    except BrokenPipeError:  # `tessera run ... | head`: the reader has gone; nothing to report
        sys.stderr.close()
        return 141
    except (CLIError, TVMError, OSError) as err:
        print(f"tessera {args.command}: error: {_one_line(err)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"tessera {args.command}: interrupted", file=sys.stderr)
        return 130


__all__ = ["main", "CLIError"]
