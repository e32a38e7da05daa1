"""The user's allow-list for `torch.load(..., weights_only=True)`: torch.serialization.add_safe_globals & co.

An entry is a class or function, allowed under its `module.qualname`, or a pair `(object, "module.name")` that
allows the object under an explicit name (for objects whose pickled name differs from where they live).
"""
_allowed = set()


def _check(entries):
    if not isinstance(entries, (list, tuple, set)):
        raise TypeError(f"expected a list of globals, got {type(entries).__name__}")
    for entry in entries:
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full path), but got tuple "
                                 f"of length: {len(entry)}")
            if not isinstance(entry[1], str):
                raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: "
                                f"{type(entry[1])}")
    return entries


def add_safe_globals(safe_globals):
    """Allow these globals in `weights_only=True` loads, until removed."""
    _allowed.update(_check(safe_globals))


def get_safe_globals():
    """The globals added with `add_safe_globals`."""
    return list(_allowed)


def clear_safe_globals():
    """Remove every global added with `add_safe_globals`."""
    _allowed.clear()


class safe_globals:
    """Context manager: allow these globals in `weights_only=True` loads inside the `with` block."""

    def __init__(self, safe_globals):
        self.safe_globals = _check(safe_globals)

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, exc_type, exc, tb):
        _allowed.difference_update(self.safe_globals)
        return False


def full_name(obj):
    return f"{getattr(obj, '__module__', None)}.{getattr(obj, '__qualname__', getattr(obj, '__name__', None))}"


def user_allowed():
    """Allowed name -> object, for the entries added by the user."""
    names = {}
    for entry in _allowed:
        if isinstance(entry, tuple):
            names[entry[1]] = entry[0]
        else:
            names[full_name(entry)] = entry
    return names
