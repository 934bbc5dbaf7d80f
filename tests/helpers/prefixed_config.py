"""A module whose settings prefix is fixed two calls down: the shape of a request to pass a new
parameter down to the value it replaces (settings/env-prefix of the own tasks)."""

CONFIG = """\
PREFIX = "APP_"


def key_of(name, prefix=PREFIX):
    if not name.startswith(prefix):
        return None
    return name[len(prefix) :].lower()


def read_env(environ):
    found = {}
    for name, value in environ.items():
        key = key_of(name)
        if key is not None:
            found[key] = value
    return found


def load(environ):
    return read_env(environ)
"""
