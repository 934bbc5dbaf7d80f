"""A module that prints a warning and an error to stderr: the shape of a request to log one of
them instead (minimark/log-unclosed-fence of the own tasks)."""

NOISY = '''\
"""Read lines."""

import sys


def read(lines):
    out = []
    for line in lines:
        if not line.strip():
            print(f"warning: a blank line was skipped after {len(out)} lines", file=sys.stderr)
            continue
        out.append(line)
    return out


def main(argv):
    try:
        return len(read(argv))
    except TypeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
'''
LOG_IT = (
    "read() prints a warning to stderr when a blank line is skipped. Log it instead at WARNING "
    "level on a module-level logger (logging.getLogger(__name__)) and remove the print."
)
LOGGED = NOISY.replace(
    "import sys\n", "import sys\nimport logging\n\nlogger = logging.getLogger(__name__)\n"
).replace(
    'print(f"warning: a blank line was skipped after {len(out)} lines", file=sys.stderr)',
    'logger.warning(f"warning: a blank line was skipped after {len(out)} lines")',
)
NOISY_TESTS = """\
from noisy import read


def test_read():
    assert read(["a", " ", "b"]) == ["a", "b"]
"""
# What the 1.5B model wrote: the logger added, the print removed, nothing logged.
SILENT = LOGGED.replace(
    '            logger.warning(f"warning: a blank line was skipped after {len(out)} lines")\n', ""
)
