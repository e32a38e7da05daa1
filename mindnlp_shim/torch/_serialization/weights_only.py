"""`torch.load(weights_only=True)`: an unpickler that only builds data and cannot reach outside the file.

A checkpoint's data.pkl is a program for pickle's stack machine. Restricting which globals it may name is not
enough: BUILD, SETITEM or APPEND applied to an allowed global (`torch.FloatStorage`, `torch.Size`, a dtype)
would rewrite that object for the whole process. So every opcode that calls something or changes an existing
object is checked here, following PyTorch's weights_only contract:

  GLOBAL, STACK_GLOBAL  only names on the default allow-list (`names.safe_global`) or added by the user with
                        `add_safe_globals` / `safe_globals`; names in the modules sys, os, posix, nt never
  REDUCE, NEWOBJ(_EX)   call only an allowed global (compared by identity); `torch.Tensor` itself is not
                        called (torch's legacy constructor; on MindSpore it would make a tensor without storage)
  BUILD                 only on an instance of OrderedDict (a dict state: attributes such as `_metadata`),
                        Counter, or a user-allowed class (its `__setstate__`, else pickle's default); never on a
                        class, nor on an allowed global itself (a storage class, dtype ...). BUILD of a tensor
                        (torch < 0.4's `Tensor.set_` state) is not supported on MindSpore: refused.
  SETITEM(S)            only on dict, OrderedDict, Counter;  APPEND(S) only on list;  ADDITEMS only on set
  BINPERSID             only ("storage", ...) ids
Every other opcode PyTorch's weights-only unpickler refuses is refused too (INST, OBJ, EXT1/2/4, PERSID, POP,
DUP, protocol 0/1 text opcodes, LONG4, out-of-band buffers). Accepted beyond PyTorch, because
`torch.save(..., pickle_protocol=3..5)` files of this package must load: the data-only opcodes of protocols 3-5
(FRAME, MEMOIZE, SHORT_BINUNICODE, BINUNICODE8, SHORT_BINBYTES, BINBYTES, BINBYTES8, BYTEARRAY8, FROZENSET,
EMPTY_SET + ADDITEMS) and STACK_GLOBAL / NEWOBJ_EX under the checks above.

The pure-Python `pickle._Unpickler` runs the opcodes (data.pkl holds no tensor bytes, so it is small); its
dispatch table is copied with the opcodes above replaced and everything else refused.
"""
import pickle
import pickletools
from collections import Counter, OrderedDict

import mindspore

from . import names, safe_globals
from .reader import StorageResolver
from .rebuild import rebuild_from_type_v2

# Modules whose globals are refused even when allow-listed, as torch does.
BLOCKED_MODULES = frozenset({"sys", "os", "posix", "nt"})

# The opcodes PyTorch's weights-only unpickler implements (all of protocol 2 that torch.save writes).
_TORCH_OPCODES = ("PROTO", "STOP", "MARK", "GLOBAL", "REDUCE", "NEWOBJ", "BUILD", "BINPERSID",
                  "APPEND", "APPENDS", "SETITEM", "SETITEMS", "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3",
                  "NONE", "NEWTRUE", "NEWFALSE", "EMPTY_TUPLE", "EMPTY_LIST", "EMPTY_DICT", "EMPTY_SET",
                  "BININT", "BININT1", "BININT2", "LONG1", "BINFLOAT", "BINUNICODE", "SHORT_BINSTRING",
                  "BINGET", "LONG_BINGET", "BINPUT", "LONG_BINPUT")
# Protocol 3-5 opcodes Python's pickler writes for the same kinds of data.
_LATER_PROTOCOL_OPCODES = ("FRAME", "MEMOIZE", "SHORT_BINUNICODE", "BINUNICODE8", "SHORT_BINBYTES", "BINBYTES",
                           "BINBYTES8", "BYTEARRAY8", "FROZENSET", "ADDITEMS", "STACK_GLOBAL", "NEWOBJ_EX")
ACCEPTED_OPCODES = frozenset(_TORCH_OPCODES + _LATER_PROTOCOL_OPCODES)
_OPCODE_NAMES = {op.code.encode("latin-1")[0]: op.name for op in pickletools.opcodes}

_DICT_TYPES = (dict, OrderedDict, Counter)


def shown_name(full_name):
    """How a global is written in the advice: `eval`, not `builtins.eval`."""
    return full_name[len("builtins."):] if full_name.startswith("builtins.") else full_name


def type_name(cls):
    qualname = getattr(cls, "__qualname__", getattr(cls, "__name__", "?"))
    return shown_name(f"{getattr(cls, '__module__', '?')}.{qualname}")


def refusal(reason, allow=None):
    """The error text: what was refused, then how to load the file anyway (allow-listing `allow` where that
    would help, or weights_only=False)."""
    text = (f"Weights only load failed: {reason}\n"
            f"torch.load(weights_only=True) (the default) only allows tensors, primitive types, dicts and a few "
            f"torch and Python globals. If you trust the source of this checkpoint, ")
    if allow is not None:
        text += (f"allow the global with `torch.serialization.add_safe_globals([{allow}])` or inside the "
                 f"`with torch.serialization.safe_globals([{allow}]):` context manager, or ")
    return text + ("load with weights_only=False (which can execute arbitrary code: only do it for files from a "
                   "trusted source).")


class _Dispatch(dict):
    """Opcode byte -> handler; an opcode without an entry is refused by name."""

    def __missing__(self, code):
        name = _OPCODE_NAMES.get(code, f"0x{code:02x}")
        raise pickle.UnpicklingError(refusal(f"the checkpoint uses the pickle opcode {name}, which is not allowed."))


class WeightsOnlyUnpickler(StorageResolver, pickle._Unpickler):
    """Unpickles a checkpoint's data.pkl for `torch.load(weights_only=True)` (see the module docstring)."""

    def __init__(self, file, storages, map_location=None, **pickle_load_args):
        super().__init__(file, storages, map_location, **pickle_load_args)
        self._user_globals = safe_globals.user_allowed()
        allowed = {**names.default_safe_globals(), **self._user_globals}
        # identity -> name. Held references keep every allowed object alive during the load, so no object the
        # file builds can share an id with one.
        self._allowed_ids = {}
        for name, obj in allowed.items():
            self._allowed_ids.setdefault(id(obj), name)
        self._held = list(allowed.values())
        self._user_types = {id(obj) for obj in self._user_globals.values() if isinstance(obj, type)}
        self._constructed_classes = (names.torch_global("torch.nn.parameter.Parameter"),
                                     names.torch_global("torch.device"))

    # --- globals ------------------------------------------------------------------------------------------

    def find_class(self, module, name):
        module, name = names.py3_name(module, name)
        full_name = f"{module}.{name}"
        if module in BLOCKED_MODULES:
            raise pickle.UnpicklingError(refusal(
                f"the checkpoint refers to {full_name}, whose module {module} is blocked.", shown_name(full_name)))
        obj = names.safe_global(full_name)
        if obj is None:
            obj = self._user_globals.get(full_name)
        if obj is None:
            raise pickle.UnpicklingError(refusal(
                f"Unsupported global: GLOBAL {full_name} was not an allowed global by default.",
                shown_name(full_name)))
        return obj

    def _global_name(self, obj):
        return self._allowed_ids.get(id(obj))

    def _describe(self, obj):
        name = self._global_name(obj)
        if name is not None:
            return f"the global {shown_name(name)}"
        if isinstance(obj, type):
            return f"the class {type_name(obj)}"
        return f"a {type_name(type(obj))} object"

    # --- calls --------------------------------------------------------------------------------------------

    def _check_callable(self, func, opcode):
        if self._global_name(func) is None or not callable(func):
            raise pickle.UnpicklingError(refusal(
                f"{opcode} may only call an allowed global, but the checkpoint calls {self._describe(func)}."))

    def _arguments(self, args, opcode):
        # torch's unpickler calls `func(*args)`: any iterable the checkpoint built gives the arguments
        try:
            return tuple(args)
        except TypeError:
            raise pickle.UnpicklingError(refusal(
                f"{opcode} takes a tuple of arguments, but the checkpoint gives {self._describe(args)}.")) from None

    def load_reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        self._check_callable(func, "REDUCE")
        args = self._arguments(args, "REDUCE")
        if func is mindspore.Tensor:
            raise pickle.UnpicklingError(refusal(
                "calling torch.Tensor(...) (the legacy tensor constructor) is not supported on MindSpore; "
                "tensors are loaded through torch._utils._rebuild_tensor_v2."))
        if func is rebuild_from_type_v2 and args:
            # its first two arguments are a function it calls and a type: both must be allowed globals too
            self._check_callable(args[0], "torch._tensor._rebuild_from_type_v2")
            if len(args) > 1 and self._global_name(args[1]) is None:
                raise pickle.UnpicklingError(refusal(
                    f"torch._tensor._rebuild_from_type_v2 needs an allowed tensor type, but the checkpoint gives "
                    f"{self._describe(args[1])}."))
        self.stack[-1] = func(*args)

    def _new_object(self, cls, args, kwargs, opcode):
        if not isinstance(cls, type) or self._global_name(cls) is None:
            raise pickle.UnpicklingError(refusal(
                f"{opcode} may only create an instance of an allowed class, but the checkpoint gives "
                f"{self._describe(cls)}."))
        if cls is mindspore.Tensor:
            raise pickle.UnpicklingError(refusal(
                f"{opcode} of torch.Tensor is not supported on MindSpore (it would create a tensor without "
                f"storage); tensors are loaded through torch._utils._rebuild_tensor_v2."))
        args = self._arguments(args, opcode)
        if cls in self._constructed_classes:
            # shim classes whose instance is made by the constructor (torch makes it in __new__)
            return cls(*args, **kwargs)
        return cls.__new__(cls, *args, **kwargs)

    def load_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        self.append(self._new_object(cls, args, {}, "NEWOBJ"))

    def load_newobj_ex(self):
        kwargs = self.stack.pop()
        args = self.stack.pop()
        cls = self.stack.pop()
        if type(kwargs) is not dict:
            raise pickle.UnpicklingError(refusal(f"NEWOBJ_EX takes a dict of keyword arguments, but the "
                                                 f"checkpoint gives {self._describe(kwargs)}."))
        self.append(self._new_object(cls, args, kwargs, "NEWOBJ_EX"))

    # --- changes to objects -------------------------------------------------------------------------------

    def load_build(self):
        state = self.stack.pop()
        inst = self.stack[-1]
        if isinstance(inst, type) or self._global_name(inst) is not None:
            raise pickle.UnpicklingError(refusal(
                f"BUILD may only set the state of an object the checkpoint created, but it targets "
                f"{self._describe(inst)}."))
        kind = type(inst)
        if kind is OrderedDict:
            if type(state) is not dict:  # as torch: the instance dict is updated with the state
                raise pickle.UnpicklingError(refusal(
                    f"BUILD of an OrderedDict takes a dict of attributes, but the checkpoint gives "
                    f"{self._describe(state)}."))
            inst.__dict__.update(state)
        elif kind is Counter:
            _set_attributes(inst, state)
        elif kind is mindspore.Tensor:
            raise pickle.UnpicklingError(refusal(
                "BUILD of a tensor (the tensor pickle of torch < 0.4, a `Tensor.set_` call) is not supported on "
                "MindSpore; tensors are loaded through torch._utils._rebuild_tensor_v2."))
        elif id(kind) in self._user_types:
            setstate = getattr(inst, "__setstate__", None)
            if setstate is not None:
                setstate(state)
            else:
                _set_attributes(inst, state)
        else:
            raise pickle.UnpicklingError(refusal(
                f"Can only build Tensor, Parameter, OrderedDict or types allowlisted via `add_safe_globals`, but "
                f"the checkpoint builds {self._describe(inst)}.", type_name(kind)))

    def _check_target(self, target, types, opcode, what):
        if type(target) not in types:
            raise pickle.UnpicklingError(refusal(
                f"{opcode} may only be applied to {what}, but the checkpoint applies it to "
                f"{self._describe(target)}."))

    def load_setitem(self):
        value = self.stack.pop()
        key = self.stack.pop()
        target = self.stack[-1]
        self._check_target(target, _DICT_TYPES, "SETITEM", "a dict, OrderedDict or Counter")
        target[key] = value

    def load_setitems(self):
        items = self.pop_mark()
        target = self.stack[-1]
        self._check_target(target, _DICT_TYPES, "SETITEMS", "a dict, OrderedDict or Counter")
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    def load_append(self):
        value = self.stack.pop()
        target = self.stack[-1]
        self._check_target(target, (list,), "APPEND", "a list")
        target.append(value)

    def load_appends(self):
        items = self.pop_mark()
        target = self.stack[-1]
        self._check_target(target, (list,), "APPENDS", "a list")
        target.extend(items)

    def load_additems(self):
        items = self.pop_mark()
        target = self.stack[-1]
        self._check_target(target, (set,), "ADDITEMS", "a set")
        target.update(items)

    def load_proto(self):
        # torch's weights-only unpickler takes any protocol number here (it only warns when it is not 2)
        self.proto = self.read(1)[0]

    # --- storages -----------------------------------------------------------------------------------------

    def load_binpersid(self):
        pid = self.stack.pop()
        kind = pid[0] if type(pid) is tuple and pid else None
        if isinstance(kind, bytes):
            kind = kind.decode("ascii", "replace")
        if kind != "storage":
            raise pickle.UnpicklingError(refusal(
                f"Only persistent_load of storage is allowed, but the checkpoint has the persistent id "
                f"{pid!r:.200}."))
        self.append(self.persistent_load(("storage",) + pid[1:]))

    dispatch = _Dispatch()


def _is_attribute_state(state):
    """`None`, a dict of attributes, or (dict or None, dict of slot attributes or None): the states that
    pickle's default BUILD applies without `__setstate__`."""
    if isinstance(state, tuple) and len(state) == 2:
        return all(part is None or type(part) is dict for part in state)
    return state is None or type(state) is dict


def _set_attributes(inst, state):
    """Pickle's default BUILD: a dict updates the instance dict, a (dict, slots) pair also sets slot values."""
    if not _is_attribute_state(state):
        raise pickle.UnpicklingError(refusal(
            f"BUILD of a {type_name(type(inst))} takes a dict of attributes, but the checkpoint gives a "
            f"{type_name(type(state))}."))
    slots = None
    if isinstance(state, tuple):
        state, slots = state
    if state:
        inst.__dict__.update(state)
    for name, value in (slots or {}).items():
        setattr(inst, name, value)


def _fill_dispatch():
    table = WeightsOnlyUnpickler.dispatch
    own = {"REDUCE": "load_reduce", "NEWOBJ": "load_newobj", "NEWOBJ_EX": "load_newobj_ex", "BUILD": "load_build",
           "SETITEM": "load_setitem", "SETITEMS": "load_setitems", "APPEND": "load_append",
           "APPENDS": "load_appends", "ADDITEMS": "load_additems", "BINPERSID": "load_binpersid",
           "PROTO": "load_proto", "BYTEARRAY8": "load_bytearray8"}
    for name in ACCEPTED_OPCODES:
        code = getattr(pickle, name)[0]
        if name in own:
            table[code] = getattr(WeightsOnlyUnpickler, own[name])
        else:
            table[code] = pickle._Unpickler.dispatch[code]


_fill_dispatch()
