"""One module per paper's experiments; each is a ``python -m robustcore <COMMAND>`` subcommand."""
