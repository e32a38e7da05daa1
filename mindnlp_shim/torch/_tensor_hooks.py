"""`Tensor.register_hook`: MindSpore's tape runs the hook; the handle is the shim's.

MindSpore's own handle removes its hook id unconditionally, and a second removal of an id already removed
crashed the process (SIGSEGV). That second removal is what a deep copy gave: copying a module that keeps its
hook handles (peft's OSF layers remove theirs in `__del__`) copied MindSpore's handles, and both the original and
the copy removed the same hook. As torch's: `remove()` may be called any number of times; a shallow copy of a
handle removes the same hook; a deep copy refers to a copy of the hooks, so removing through it leaves the
original tensor's hook in place (measured against real torch)."""
from mindspore import Tensor

_mindspore_register_hook = Tensor.register_hook


class TensorHookHandle:
    def __init__(self, mindspore_handle):
        self._state = {"handle": mindspore_handle}  # (shared with the handle's copies)

    def remove(self):
        handle = self._state.pop("handle", None)
        if handle is not None:
            handle.remove()

    def __copy__(self):
        copy = object.__new__(type(self))
        copy._state = self._state
        return copy

    def __deepcopy__(self, memo):
        copy = object.__new__(type(self))
        copy._state = {}  # (the deep copy's hooks are copies: the original's stays)
        return copy

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_hook(self, hook):
    """hook(grad) runs when the gradient of this tensor is computed and may return a replacement."""
    return TensorHookHandle(_mindspore_register_hook(self, hook))
