"""The command line: every option documented, long runs announced."""

import argparse
import sys

import pytest


def test_every_cli_option_has_help_and_its_default(capsys):
    """--help of every command shows every option with one line of help and its default, and long
    commands say how long they take and how to run a quick version (issue 14)."""
    from robustcore import cli

    parser = cli.build_parser()
    commands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)][0].choices
    assert {"clean", "demo", "sramp", "variants", "fol", "mkl"} <= set(commands)
    for name, sub in commands.items():
        for action in sub._actions:
            if action.help == argparse.SUPPRESS or action.dest == "help":
                continue
            assert action.help, f"{name} {action.option_strings} has no help"
        text = sub.format_help()
        assert "(default:" in text
        if name == "clean":  # the library's command: its run time is in its description
            assert "Run time: about" in sub.description
            continue
        module = sys.modules[sub.get_default("command_main").__module__]
        assert getattr(module, "RUNTIME", ""), f"{name} says nothing about its run time"
        assert "about" in module.RUNTIME


def test_noise_bench_quick(tmp_path, capsys):
    """noise-bench --quick on the built-in breast_cancer set: every method once per noise setting, the CSV
    and markdown written, and the corrected model far below the uncorrected logistic regression under
    60% / 10% class-conditional flips."""
    import csv

    from robustcore import cli
    from robustcore.experiments import noise_bench

    assert cli.main(["noise-bench", "--quick", "--no-cleanlab", "--verbose", "0", "--out", str(tmp_path)]) == 0
    rows = list(csv.DictReader(open(tmp_path / "noise_bench.csv")))
    methods = [name for name, _, _ in noise_bench.ROBUSTCORE] + [name for name, _, _ in noise_bench.peers()]
    assert len(rows) == 2 * len(methods)
    assert {r["method"] for r in rows} == set(methods)
    err = {r["method"]: float(r["test_error"]) for r in rows if r["noise"].startswith("(rho+")}
    assert err[noise_bench.RECOMMENDED] < err["LogisticRegression"] - 0.1
    assert "| breast_cancer |" in (tmp_path / "noise_bench.md").read_text()
    assert "| breast_cancer |" in capsys.readouterr().out


def test_noise_bench_selection():
    """--selection noisy tunes by the plain accuracy (no scorer); corrected by noise.corrected_scorer with T
    from one estimate_transition of the noisy training set; _tuned_fit takes the scorer's best value."""
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    from robustcore import noise
    from robustcore.experiments import noise_bench

    X, y = make_classification(n_samples=600, n_features=10, random_state=0)
    yn = noise.flip_labels(2.0 * y - 1.0, {1.0: 0.6, -1.0: 0.1}, random_state=0)
    assert noise_bench.selection_scorer("noisy", X, yn, 0) is None
    scorer = noise_bench.selection_scorer("corrected", X, yn, 0)
    T = noise.estimate_transition(X, yn, random_state=0)
    model = LogisticRegression().fit(X, yn)
    assert scorer(model, X, yn) == noise.corrected_accuracy(yn, model.predict(X), T)
    make = lambda C: LogisticRegression(C=C)  # noqa: E731
    for sign, best in ((-1.0, 1e-3), (1.0, 1.0)):
        _, chosen, _ = noise_bench.tuned_fit(make, {"C": [1e-3, 1.0]}, X, yn, 0, lambda est, X, y: sign * est.C)
        assert chosen == best


def test_version_flag_prints_the_one_version(capsys):
    """``python -m robustcore --version`` prints robustcore.__version__, which is the installed metadata's
    version (pyproject.toml, the one source)."""
    from importlib.metadata import version

    import robustcore
    from robustcore.cli import main as cli_main

    with pytest.raises(SystemExit) as exc:
        cli_main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"robustcore {robustcore.__version__}"
    assert robustcore.__version__ == version("robustcore")
