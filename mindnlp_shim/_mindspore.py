"""Everything the shim takes from MindSpore that is private or differs between releases, in one place.

Users cannot choose their MindSpore release (their Ascend CANN stack does), and MindSpore's private names move
between releases. So no other module imports `mindspore._c_expression`, the PyNative executor, generated
primitives or gradient primitives: they import this module, which detects what the installed release offers
and gives one interface. Where a release lacks a capability, the equivalent path is chosen here; where there
is none, the function raises a `NotImplementedError` naming the release and the torch feature.

Measured per release in docs/mindspore-releases.md; the tests in tests/test_mindspore_releases.py check each
entry on the installed release.
"""
import os
import warnings

os.environ.setdefault("GLOG_v", "3")  # MindSpore's C++ logs: errors only, unless the user chose otherwise

import mindspore  # noqa: E402

# The releases the test suite runs on (each one's differences: docs/mindspore-releases.md).
OLDEST_SUPPORTED = (2, 7, 1)
NEWEST_TESTED = (2, 10, 0)


def parse_version(text):
    """`"2.7.1"` -> (2, 7, 1); a suffix such as `rc1` or `.dev20250101` on the last part is dropped."""
    parts = []
    for piece in text.split(".")[:3]:
        digits = ""
        for char in piece:
            if not char.isdigit():
                break
            digits += char
        parts.append(int(digits or 0))
    return tuple(parts + [0] * (3 - len(parts)))


def _dotted(version):
    return ".".join(map(str, version))


SUPPORTED_RANGE = f"{_dotted(OLDEST_SUPPORTED)} to {_dotted(NEWEST_TESTED)}"
VERSION_TEXT = mindspore.__version__
VERSION = parse_version(VERSION_TEXT)


# What the releases before the range lack that torch's semantics cannot do without (measured on their CPU wheels;
# docs/mindspore-releases.md)
_MISSING_BEFORE_RANGE = {
    (2, 7, 0): "a tape autograd engine for torch's backward() (run_backward: it differentiates whole functions "
               "only), tensor storages on the CPU (untyped_storage), and the addresses of views (a view's "
               "data_ptr is its base's) that in-place writes through views need",
}


def _what_is_missing(version):
    """The entry of the newest release listed that is not newer than `version` (the oldest entry below them)."""
    listed = [release for release in sorted(_MISSING_BEFORE_RANGE) if release <= version]
    return _MISSING_BEFORE_RANGE[listed[-1] if listed else min(_MISSING_BEFORE_RANGE)]


def check_version(version=VERSION, text=VERSION_TEXT):
    """Refuse a MindSpore older than the supported range; warn (and go on) for one newer than the tested range."""
    if version < OLDEST_SUPPORTED:
        raise ImportError(f"mindnlp-shim needs MindSpore {SUPPORTED_RANGE}; MindSpore {text} is installed, and "
                          f"it lacks {_what_is_missing(version)}. Install a MindSpore release in that range (the "
                          f"one your CANN stack supports).")
    if version > NEWEST_TESTED:
        warnings.warn(f"mindnlp-shim was tested with MindSpore {SUPPORTED_RANGE}; MindSpore {text} is newer and "
                      f"untested: trying it", RuntimeWarning, stacklevel=2)


check_version()

from mindspore import _c_expression as _c  # noqa: E402
from mindspore.common import _grad_function  # noqa: E402
from mindspore.common.api import _pynative_executor  # noqa: E402
from mindspore.ops import stop_gradient as _stop_gradient  # noqa: E402  (2.10 also has it as mindspore.graph.api's)

# ---- the tensor class and its C methods ------------------------------------------------------------------------
TensorPy = _c.TensorPy  # the C base class of mindspore.Tensor: isinstance against it is the fastest tensor test
DtypeType = _c.typing.Type  # the common type of MindSpore's dtype objects (torch.dtype)
is_contiguous = TensorPy.is_contiguous
untyped_storage = TensorPy.untyped_storage  # MindSpore's storage of a tensor (for a view: its base's memory)
stride = TensorPy.stride  # a list of element strides
data_ptr = TensorPy._data_ptr
from_numpy = TensorPy.from_numpy  # (Tensor.from_numpy is a Python wrapper around it)

# A tensor's own private attributes, read in place on hot paths (a call through this module would cost more than
# the read): its dtype and shape objects, autograd state and node. Checked here, so that a release without one
# fails at import, naming it, instead of deep inside an op.
TENSOR_ATTRIBUTES = ("_dtype", "_shape", "_requires_grad", "_is_leaf", "_grad", "_grad_node", "_version")


def _check_tensor_attributes():
    probe = mindspore.Tensor(0.0)
    missing = [name for name in TENSOR_ATTRIBUTES if not hasattr(probe, name)]
    if missing:
        raise ImportError(f"mindnlp-shim reads MindSpore tensors' {', '.join(missing)}, which MindSpore {VERSION_TEXT} "
                          f"does not have (tested: {SUPPORTED_RANGE})")


_check_tensor_attributes()

# ---- the PyNative executor: grad mode and the tape's recording flag ------------------------------------------
pynative_executor = _pynative_executor
# grad mode as the executor holds it: the C method itself (the Python method around it costs ~1 µs a call)
grad_enabled = _pynative_executor._executor.enable_grad
set_grad_enabled = _pynative_executor.set_enable_grad
grad_flag = _pynative_executor.grad_flag
set_grad_flag = _pynative_executor.set_grad_flag


def clear_executor_caches():
    """Drop the executor's per-tensor type and shape caches (after a tensor's dtype or shape changed under it);
    the grad flag and grad mode, which clearing resets, are put back."""
    recording, enabled = _pynative_executor.grad_flag(), grad_enabled()
    _pynative_executor.clear_res()
    _pynative_executor.set_grad_flag(recording)
    set_grad_enabled(enabled)


# ---- autograd: the tape engine -------------------------------------------------------------------------------
run_backward = _c.run_backward  # torch's backward()/autograd.grad over the recorded tape (2.7.1+)
FunctionBase = _grad_function._Function  # the base of custom-gradient functions (torch.autograd.Function)
# A custom Function's saved tensors as MindSpore keeps them (the C property `save_for_backward` sets)
saved_tensors_slot = _c.FunctionBase.saved_tensors
# 2.7.2+: in a custom Function's backward a saved output comes back with the Function's node (a second derivative
# flows through it), and a saved tensor written in place since the forward makes the backward raise. 2.7.1 gives
# a saved output back detached (off the graph: the second derivative silently loses its terms) and checks no
# write (the backward silently reads the new values); the shim keeps both itself there
# (torch/autograd/_function_saves.py).
FUNCTION_SAVES_TRACKED = VERSION >= (2, 7, 2)

# Saved-tensor hooks (2.7.2+): MindSpore calls them for each tensor its autograd saves, built-in ops and custom
# Functions alike; 2.7.1 has none. A custom Function's saves are packed in `_Function.apply` (its frame is the
# hook's caller), after the forward.
_SAVED_TENSORS_HOOKS = getattr(mindspore, "saved_tensors_hooks", None)
HAS_SAVED_TENSORS_HOOKS = _SAVED_TENSORS_HOOKS is not None


def saved_tensors_hooks(pack_hook, unpack_hook):
    """MindSpore's context manager that runs `pack_hook` on each tensor saved for the backward inside it and
    `unpack_hook` on the packed value when the backward reads it."""
    if _SAVED_TENSORS_HOOKS is None:
        raise NotImplementedError(f"torch.autograd.graph.saved_tensors_hooks is not supported on MindSpore "
                                  f"{VERSION_TEXT}: its autograd has saved-tensor hooks from 2.7.2 on")
    return _SAVED_TENSORS_HOOKS(pack_hook, unpack_hook)


def custom_function_packing(depth):
    """The custom Function class whose `save_for_backward` tensor is being packed, when the frame `depth` levels
    above the caller is MindSpore's custom-Function apply; None for a built-in op's save."""
    import sys

    frame = sys._getframe(depth + 1)
    if frame.f_globals.get("__name__") != _grad_function.__name__:
        return None
    return frame.f_locals.get("cls")


def node_input_dtype(node):
    """The dtype an autograd node recorded for its (first) input, or None where the release does not say (2.8's
    nodes have no `_input_metadata`)."""
    metadata = getattr(node, "_input_metadata", None)
    return None if metadata is None else metadata[0].dtype


def node_input_shape(node):
    """The shape an autograd node recorded for its (first) input, as a tuple, or None where the release does not
    say."""
    metadata = getattr(node, "_input_metadata", None)
    return None if metadata is None else tuple(metadata[0].shape)

# ---- data swaps and write counts -----------------------------------------------------------------------------
# a tensor takes another's storage, shape and dtype, keeping its identity and autograd node
# (2.7.x) on a recorded result that took other data: it reads that memory as the output of a pass-through Function,
# which MindSpore takes for a view made inside a custom Function (its copy into it is dropped, `VIEW_COPIES_DROPPED`)
DATA_CARRIED = "_data_carried_by_function"
if hasattr(TensorPy, "_update_data"):  # 2.8+
    update_data = TensorPy._update_data
else:  # 2.7.x: built on `assign_value_cpp`, which takes the other tensor's storage and its autograd node too
    # What MindSpore says when `assign_value_cpp` meets a leaf of the graph (a tensor that requires grad): it
    # has already taken the storage, shape, dtype and write counter, and keeps its own id and node.
    _GRAPH_INPUT_KEPT = "Can not modify tensor id of input tensor from network by assign value"

    class _CarryNode(FunctionBase):
        """A pass-through of `source`'s gradient whose output is `memory` (off the tape): the output is a new
        tensor over `memory`'s storage whose node leads to `source`'s."""

        @staticmethod
        def forward(ctx, source, memory):
            return memory

        @staticmethod
        def backward(ctx, grad):
            return grad, None

    def update_data(tensor, new):
        """`tensor` takes `new`'s storage, shape and dtype, keeping its identity and autograd node."""
        if not tensor._is_leaf:  # a recorded result: its node goes along on a pass-through over `new`'s memory
            if tuple(new._shape) != tuple(tensor._shape) or new._dtype != tensor._dtype:
                raise NotImplementedError(
                    f"giving a tensor inside the autograd graph data of another shape or dtype (torch's "
                    f"`.data = ...` or `set_()` on a non-leaf) is not supported on MindSpore {VERSION_TEXT} "
                    f"(no `_update_data`; it needs 2.8 or newer)")
            recording, enabled = _pynative_executor.grad_flag(), grad_enabled()
            _pynative_executor.set_grad_flag(True)
            set_grad_enabled(True)
            try:
                carrier = _CarryNode.apply(tensor, _stop_gradient(new))
            finally:
                set_grad_enabled(enabled)
                _pynative_executor.set_grad_flag(recording)
            TensorPy.assign_value_cpp(tensor, carrier)
            tensor.__dict__[DATA_CARRIED] = True
            return
        if new._requires_grad or not new._is_leaf:  # (the leaf takes no node from it)
            new = _stop_gradient(new)
        try:
            TensorPy.assign_value_cpp(tensor, new)
        except RuntimeError as exc:
            if _GRAPH_INPUT_KEPT not in str(exc):
                raise

# MindSpore's count of in-place writes into a storage (shared with its views), which its autograd checks for the
# tensors it saved. Its own kernels' writes count; writes through NumPy must be counted here.
write_count = TensorPy._version.__get__

# Whether a write MindSpore counts can be made through a view (2.8+). In 2.7.x MindSpore's copy into a view is
# dropped (neither written nor counted) and its other in-place kernels are out of place or missing on the CPU:
# only its copy into a tensor that is no view (a base) counts, on the counter the base shares with its views.
# So a write through a view is counted on its base there, which the view ops record (`note_view`).
VIEW_WRITES_COUNTED = hasattr(_c, "_unsafe_set_version_counter") or VERSION >= (2, 8, 0)
# The same measurement seen from the writer: MindSpore's copy into a view leaves it unchanged and raises nothing
# (2.7.x), so a copy into a tensor that may be a view is checked by its write count (a copy that lands counts).
VIEW_COPIES_DROPPED = not VIEW_WRITES_COUNTED
WRITE_COUNTER_OWNER = "_write_counter_owner"  # (2.7.x) on a view: the base whose counter it shares

if hasattr(_c, "_unsafe_set_version_counter"):  # 2.10+: set directly
    _set_write_counts = _c._unsafe_set_version_counter

    def count_writes(tensors):
        """Add one write to the counter of each tensor's storage."""
        _set_write_counts(tensors, [write_count(t) + 1 for t in tensors])

    def set_write_counts(tensors, counts):
        """Set the write counter of each tensor (one that took another tensor's counter along with its node)."""
        _set_write_counts(tensors, list(counts))
elif VIEW_WRITES_COUNTED:  # 2.8-2.9: a copy of nothing into an empty view of the storage counts one write
    # for every view of it
    def count_writes(tensors):
        """Add one write to the counter of each tensor's storage, by a write MindSpore counts itself."""
        recording = _pynative_executor.grad_flag()
        _pynative_executor.set_grad_flag(False)  # a counted write, not an op for the tape
        try:
            for tensor in tensors:
                empty = _as_strided(tensor, (0,), (1,), 0)
                _ms_copy(empty, empty)
        finally:
            _pynative_executor.set_grad_flag(recording)
else:  # 2.7.x: a copy of the base onto itself (one pass over its memory) counts one write for every view of it
    def note_view(source, view):
        """Record on `view`, a view op's result over `source`'s memory, the base whose counter it shares: `source`'s
        own base, or `source`. A strong reference, as torch's `view._base`: a write through the view must reach the
        counter of a base that a backward saved, also after the base's last other reference is gone."""
        view.__dict__[WRITE_COUNTER_OWNER] = source.__dict__.get(WRITE_COUNTER_OWNER, source)

    def _counting_candidates(tensor):
        """The tensors whose counted copy may count a write into `tensor`, nearest first: the base recorded on it,
        itself, and the same for the bases MindSpore's own indexing recorded (`parent_tensor_`) of each."""
        pending, tried = [tensor], 0
        while pending and tried < 16:
            current = pending.pop(0)
            owner = current.__dict__.get(WRITE_COUNTER_OWNER)
            for candidate in (current,) if owner is None else (owner, current):
                tried += 1
                yield candidate
                if candidate.parent_tensor_ is not None:
                    pending.append(candidate.parent_tensor_)

    def _count_write(tensor):
        before = write_count(tensor)
        memory = untyped_storage(tensor).data_ptr()
        for candidate in _counting_candidates(tensor):
            if candidate is tensor or untyped_storage(candidate).data_ptr() == memory:  # (not a copy's source)
                _ms_copy(candidate, candidate)
                if write_count(tensor) != before:
                    return

    def count_writes(tensors):
        """Add one write to the counter of each tensor's storage, by a write MindSpore counts itself: a copy onto
        itself of the tensor, or of the base a view op recorded on it. Not reached: a view that MindSpore made
        alone (no view op of the shim recorded its base, nor MindSpore's indexing) of a base no longer referenced
        from Python; its write stays uncounted. (A backward that saved such a view saved a copy of it; MindSpore
        copies a view an op saves.)"""
        recording = _pynative_executor.grad_flag()
        _pynative_executor.set_grad_flag(False)  # a counted write, not an op for the tape
        try:
            for tensor in tensors:
                _count_write(tensor)
        finally:
            _pynative_executor.set_grad_flag(recording)

if not hasattr(_c, "_unsafe_set_version_counter"):
    def set_write_counts(tensors, counts):
        """Raise the write counter of each tensor to the count given, one counted write at a time."""
        for tensor, count in zip(tensors, counts):
            for _ in range(count - write_count(tensor)):
                count_writes([tensor])


_ms_copy = mindspore.Tensor.copy_  # MindSpore's own (the shim binds torch's copy_ over it later)

# ---- kernel bugs of a release that the shim works around where it calls the kernel ---------------------------
# MaskedFill's backward multiplies the incoming gradient by the mask's complement (2.8): a NaN gradient at a
# filled position stays NaN, where torch's (and 2.9+'s) gives exactly 0.
MASKED_FILL_BACKWARD_MULTIPLIES = VERSION < (2, 9, 0)
# A storage moved into shared memory (`_share_fd_cpu_`) takes the views of it along in 2.9+; in 2.8 the views stay
# on the old memory and no longer see writes through the base.
SHARING_MOVES_VIEWS = VERSION >= (2, 9, 0)
# Storages in shared memory (`is_shared`, `_share_fd_cpu_`): 2.8+. A 2.7.x storage has neither: no storage is in
# shared memory there, and none can be moved into it.
SHARED_MEMORY_STORAGES = hasattr(untyped_storage(mindspore.Tensor(0.0)), "is_shared")


def storage_is_shared(tensor):
    """Whether `tensor`'s storage (that of its base and every view of it) is in shared memory."""
    return SHARED_MEMORY_STORAGES and bool(untyped_storage(tensor).is_shared())

# A bfloat16 Zeros kernel on the CPU (2.8+; 2.7.x has none: a float32 zero cast to bfloat16 is the same zero).
ZEROS_HAS_BFLOAT16 = VERSION >= (2, 8, 0)


def zeros(shape, dtype):
    """`mindspore.ops.zeros`, on every release for every dtype the shim uses."""
    if dtype == mindspore.bfloat16 and not ZEROS_HAS_BFLOAT16:
        return mindspore.ops.zeros(shape, mindspore.float32).astype(dtype)
    return mindspore.ops.zeros(shape, dtype)


# ---- process settings ----------------------------------------------------------------------------------------


def disable_multi_thread():
    """Turn off MindSpore's asynchronous dispatch pipeline threads (eager ops run on the calling thread)."""
    _c.disable_multi_thread()


def launch_blocking():
    """Kernel errors raised at the op that caused them, not at a later sync point."""
    mindspore.runtime.launch_blocking()


def set_cpu_kernel_threads(count):
    """The CPU kernels' thread count; False if it was already set (MindSpore allows it once)."""
    try:
        mindspore.device_context.cpu.op_tuning.threads_num(count)
    except RuntimeError:
        return False
    return True


def fork_handlers():
    """MindSpore's (before, after_in_parent, after_in_child) fork handlers, or None."""
    fork_utils = getattr(_c, "fork_utils", None)
    if fork_utils is None:
        return None
    return fork_utils.prepare_before_fork, fork_utils.parent_at_fork, fork_utils.child_at_fork


def device_count(target):
    """The number of devices of a target ("GPU", "Ascend") MindSpore sees: `device_context.<target>.device_count`
    (2.5+; present in 2.8-2.10), else `hal.device_count`, which MindSpore's docs mark for removal. (From the
    docs; no GPU or Ascend device has run this here.)"""
    context = getattr(getattr(mindspore, "device_context", None), target.lower(), None)
    if context is not None and hasattr(context, "device_count"):
        return context.device_count()
    return mindspore.hal.device_count(target)


# ---- primitives the shim calls below their Python layer ------------------------------------------------------


def layer_norm_grad(begin_norm_axis, begin_params_axis):
    """MindSpore's LayerNormGrad primitive (the fused backward of its LayerNorm kernel)."""
    from mindspore.ops.operations import _grad_ops

    return _grad_ops.LayerNormGrad(begin_norm_axis, begin_params_axis)


def as_strided(input, size, stride, storage_offset):
    """MindSpore's as_strided view kernel."""
    return _as_strided(input, size, stride, storage_offset)


from mindspore.ops.auto_generate.gen_ops_def import as_strided as _as_strided  # noqa: E402
from mindspore.ops.auto_generate import gen_ops_prim as _prims  # noqa: E402

# the view kernels' C entry points and their primitives (see torch/_ops/view_kernels.py)
view_kernels = {name: getattr(_prims, name) for name in (
    "expand_dims_op", "narrow_view_op", "pyboost_expand_dims", "pyboost_narrow_view", "pyboost_reshape",
    "pyboost_transpose", "reshape_op", "transpose_op")}

# MindSpore's dtype view (the same memory read as another dtype of the same element size), the only way to
# make a float8 tensor from bytes and read its bytes back (NumPy has no float8 type); 2.7.1 lacks it.
try:
    from mindspore.ops.auto_generate import view_dtype as _view_dtype
except ImportError:  # (MindSpore < 2.8)
    _view_dtype = None
FLOAT8_BYTES_VIEWED = _view_dtype is not None


def view_dtype(input, dtype):
    """`input`'s memory read as `dtype` (same element size), sharing it; None where the release lacks it."""
    return _view_dtype(input, dtype)
