"""``python -m git_gpte`` runs the same CLI as the ``git-gpte`` script."""

from .cli import main

if __name__ == "__main__":
    main()
