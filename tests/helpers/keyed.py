"""A class whose methods all normalize the key they are given before looking it up: the shape
of a request for a new method that must do the same (settings/get-list of the own tasks)."""

KEYED = '''\
def normalize(key):
    return key.strip().lower()


class Table:
    def __init__(self, values=None):
        self._values = {normalize(k): v for k, v in (values or {}).items()}

    def __contains__(self, key):
        return normalize(key) in self._values

    def get(self, key, default=None):
        key = normalize(key)
        return self._values.get(key, default)

    def source(self, key):
        """Where the value of key came from."""
        key = normalize(key)
        return "table" if key in self._values else None
'''
# What the model wrote for "add get_list": the key looked up as given.
GET_LIST = '''\
    def get_list(self, key, sep=","):
        """The value split on sep."""
        if key not in self._values:
            return []
        return [item.strip() for item in self._values[key].split(sep)]
'''
