"""Command line: ``python -m robustcore [command] ...``.

With no command it runs the main demo (SGD with hinge, logistic, Smooth Ramp and Reversed Gompertz
losses on a built-in dataset with 0/20/40% flipped labels). Every module in
``robustcore.experiments`` that defines COMMAND, HELP, add_arguments(parser) and main(args)
becomes a subcommand.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys


def _version():
    from . import __version__

    return __version__


def _experiment_modules():
    from . import experiments

    mods = []
    for info in sorted(pkgutil.iter_modules(experiments.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{experiments.__name__}.{info.name}")
        if all(hasattr(mod, a) for a in ("COMMAND", "HELP", "add_arguments", "main")):
            mods.append(mod)
    return mods


#: one line of help for the options every reproduction shares (a command's own help wins)
COMMON_HELP = {
    "data_home": "the benchmark data folder; None: $ROBUSTCORE_DATA, else shared/data beside the checkout",
    "out": "folder for the tables, CSV / JSON results and plots (created if missing)",
    "verbose": "0: quiet; 1: one line per finished run and progress bars",
    "seed": "base random seed: the same seed gives the same numbers",
}


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Every option's default in --help, and descriptions printed as written (they hold run times)."""


def build_parser():
    """The parser of ``python -m robustcore``: ``--version`` and one subcommand per experiment module.

    Returns
    -------
    parser : argparse.ArgumentParser

    Examples
    --------
    >>> from robustcore import cli
    >>> args = cli.build_parser().parse_args(["demo", "--dataset", "breast_cancer"])
    >>> args.command, args.dataset
    ('demo', 'breast_cancer')
    """
    parser = argparse.ArgumentParser(
        prog="python -m robustcore",
        description="robustcore: robust classifiers for noisy labels. Without a command, runs the demo.",
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"robustcore {_version()}",
                        help="print the installed version (robustcore.__version__) and exit")
    sub = parser.add_subparsers(dest="command")
    for mod in _experiment_modules():
        description = mod.HELP + ("\n\n" + mod.RUNTIME if getattr(mod, "RUNTIME", None) else "")
        p = sub.add_parser(mod.COMMAND, help=mod.HELP, description=description, formatter_class=_HelpFormatter)
        mod.add_arguments(p)
        for action in p._actions:
            if action.help is None and action.dest in COMMON_HELP:
                action.help = COMMON_HELP[action.dest]
        p.set_defaults(command_main=mod.main)
    return parser


def main(argv=None):
    """Run ``python -m robustcore [command] ...``; without a command, the demo.

    Parameters
    ----------
    argv : list of str, default=None
        The arguments; None is ``sys.argv[1:]``.

    Returns
    -------
    status : int
        0 on success, 2 for bad arguments or missing data, 130 after Ctrl-C.

    Examples
    --------
    >>> import contextlib, io
    >>> from robustcore import cli
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stdout(out):
    ...     try:
    ...         cli.main(["--version"])
    ...     except SystemExit as exit:
    ...         status = exit.code
    ...
    >>> status, out.getvalue().startswith("robustcore ")
    (0, True)
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    if not argv:
        argv = ["demo"]
    args = parser.parse_args(argv)
    if getattr(args, "command_main", None) is None:
        parser.print_help()
        return 2
    runtime = getattr(sys.modules.get(args.command_main.__module__), "RUNTIME", None)
    if runtime and args.command != "demo" and getattr(args, "verbose", 1):
        print(f"{parser.prog} {args.command}: {runtime}", file=sys.stderr)
    try:
        return args.command_main(args) or 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (ValueError, TypeError, FileNotFoundError) as exc:  # bad arguments or missing data: no traceback
        parser.exit(2, f"{parser.prog} {args.command}: error: {exc}\n")
