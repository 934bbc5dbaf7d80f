"""git-gpte: gpt-engineer's improve and self-heal, as a git subcommand and a GitHub Action."""

__version__ = "0.1.0"
