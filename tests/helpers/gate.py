"""A decorator that raises when a call is refused: the shape of a request for a new flag that
returns a value instead (ratelimit/decorator-no-raise of the own tasks)."""

GATE = """\
class Refused(Exception):
    pass


def guarded(check, name=None):
    def decorator(func):
        def wrapper(*args):
            if not check(*args):
                raise Refused(name or func.__name__)
            return func(*args)

        return wrapper

    return decorator
"""
GATE_TESTS = """\
import pytest

from gate import Refused, guarded


def test_refused():
    @guarded(lambda x: x > 0)
    def double(x):
        return 2 * x

    assert double(2) == 4
    with pytest.raises(Refused):
        double(-1)
"""
SWITCH = (
    "Add a parameter strict=True to guarded. When it is False, a refused call returns None "
    "instead of raising Refused, and the function is not called."
)
# The fix: the flag added last, and the raise in the wrapper guarded by it.
GUARD = "                if not strict:\n                    return None\n"
SWITCHED = GATE.replace(
    "def guarded(check, name=None):", "def guarded(check, name=None, strict=True):"
).replace("                raise Refused", GUARD + "                raise Refused")
