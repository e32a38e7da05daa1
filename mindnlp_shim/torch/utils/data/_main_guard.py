"""Is the main script's top level running outside `if __name__ == "__main__":`? Workers started with 'spawn' or
'forkserver' import the main script again, so such a script would run again in every worker.

`unguarded_main_line()` walks the call stack to the frame executing the `__main__` module's top level and maps
its current line to the script's syntax tree; `reimporting_main()` is true inside a child process while
multiprocessing imports the parent's main script into it.
"""
import ast
import multiprocessing
import sys


def _is_main_guard(node):
    """`if __name__ == "__main__":` in either operand order."""
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    test = node.test
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    operands = [test.left, test.comparators[0]]
    names = [o for o in operands if isinstance(o, ast.Name) and o.id == "__name__"]
    constants = [o for o in operands if isinstance(o, ast.Constant) and o.value == "__main__"]
    return len(names) == 1 and len(constants) == 1


def _spans(node, line):
    return node.lineno <= line <= (node.end_lineno or node.lineno)


def _guarded(statements, line):
    """Whether `line` lies in the body of a main guard among these statements (or blocks nested in them)."""
    for node in statements:
        if not isinstance(node, ast.stmt) or not _spans(node, line):
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return False  # the module frame is never inside a def's body; a decorator line is top-level code
        if _is_main_guard(node) and any(_spans(child, line) for child in node.body):
            return True
        blocks = [getattr(node, field, None) or [] for field in ("body", "orelse", "finalbody")]
        blocks += [handler.body for handler in getattr(node, "handlers", None) or []]
        blocks += [case.body for case in getattr(node, "cases", None) or []]
        return any(_guarded(block, line) for block in blocks)
    return False


def _main_module_frame(main):
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "<module>" and frame.f_globals is main.__dict__:
            return frame
        frame = frame.f_back
    return None


def unguarded_main_line():
    """(path, line) of the main script's top-level statement now running outside a main guard, else None.

    None also when there is no script file to re-import (interactive sessions, notebooks, `python -c`) or
    when the main module is not on the call stack (e.g. the call comes from a thread).
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or not path or not path.endswith(".py"):
        return None
    frame = _main_module_frame(main)
    if frame is None:
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return None
    line = frame.f_lineno
    return None if _guarded(tree.body, line) else (path, line)


def reimporting_main():
    """True in a child process while multiprocessing imports the parent's main script into it."""
    return bool(getattr(multiprocessing.current_process(), "_inheriting", False))
