"""Folders that appear complete or not at all, and disappear without ever looking complete when half gone.

A process killed mid-write (SIGKILL, power loss) leaves whatever it had written so far. The functions here give
a folder's content the same all-or-nothing rule that `torch.save` gives a file (temporary name, fsync, rename):

    publish_folder(staged, final)   fsync everything under `staged`, then rename it to `final` in one step
    retire_folder(path)             rename `path` out of sight (hide_folder) first, then delete it
    remove_stale_temp_files(folder) delete the `.<name>.<hex>.tmp` files an interrupted `torch.save` left

Renames within one file system are atomic on POSIX; fsyncing the files before the rename and the parent
folder after it makes the new name durable only together with the content it points to.
"""
import ctypes
import errno
import os
import re
import secrets
import shutil

# torch.save's temporary file beside its target: "." + target name + "." + 12 hex digits + ".tmp"
TORCH_SAVE_TEMP = re.compile(r"^\..+\.[0-9a-f]{12}\.tmp$")
RETIRED_MARK = ".retired-"

_RENAME_EXCHANGE = 2  # renameat2 flag (Linux): swap two existing paths atomically
_AT_FDCWD = -100


def fsync_path(path):
    """Flush a file's or a folder's own entry list to disk."""
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if os.path.isdir(path) else 0)
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    except OSError as error:  # some file systems cannot fsync a folder; the files themselves were flushed
        if error.errno not in (errno.EINVAL, errno.EBADF):
            raise
    finally:
        os.close(fd)


def fsync_tree(root):
    """fsync every file and folder under `root` (deepest first), then `root` itself."""
    for folder, _, files in os.walk(root, topdown=False):
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                fsync_path(path)
        fsync_path(folder)


def hidden_sibling(path, mark):
    """A name beside `path` that no `checkpoint-*` pattern matches: `.<name><mark><hex>`."""
    folder, name = os.path.split(os.path.normpath(path))
    return os.path.join(folder, f".{name}{mark}{secrets.token_hex(6)}")


def _exchange(a, b):
    """Swap two existing paths in one step (Linux renameat2); False where the system cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM):
        return False
    raise OSError(code, os.strerror(code), a, None, b)


def publish_folder(staged, final):
    """Make the fully written folder `staged` visible as `final`, durably and in one step.

    An existing `final` is swapped out atomically where the system can (Linux), otherwise retired just before
    the rename; the old content is deleted afterwards."""
    fsync_tree(staged)
    parent = os.path.dirname(os.path.abspath(final))
    if not os.path.lexists(final):
        os.rename(staged, final)
    elif _exchange(staged, final):
        retire_folder(staged)  # now holds the old content
    else:
        old = hidden_sibling(final, RETIRED_MARK)
        os.rename(final, old)
        os.rename(staged, final)
        retire_folder(old)
    fsync_path(parent)


def hide_folder(path):
    """Rename the folder `path` to a hidden sibling `.<name>.retired-<hex>`, durably; returns the new path."""
    hidden = hidden_sibling(path, RETIRED_MARK)
    os.rename(path, hidden)
    fsync_path(os.path.dirname(os.path.abspath(path)))
    return hidden


def retire_folder(path, rmtree=None):
    """Delete the folder `path` so that it never stays visible half-deleted: hide it first, then delete it. A
    crash during the deletion leaves only the hidden name, which `remove_leftovers` clears later."""
    (rmtree or shutil.rmtree)(hide_folder(path), ignore_errors=True)


def remove_stale_temp_files(folder):
    """Delete torch.save temporaries left in `folder` by a writer that was killed; returns their names."""
    removed = []
    for name, path in _entries(folder):
        if TORCH_SAVE_TEMP.match(name) and os.path.isfile(path) and not os.path.islink(path):
            os.unlink(path)
            removed.append(name)
    return removed


def _entries(folder):
    """(name, path) of each entry directly in `folder`; none if the folder is gone."""
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return []
    return [(name, os.path.join(folder, name)) for name in names]


def remove_leftovers(folder, hidden_folder_pattern):
    """Delete what interrupted writers left directly in `folder`: hidden folders whose names match
    `hidden_folder_pattern` (staged or retired ones) and torch.save temporaries. Returns the names removed."""
    removed = remove_stale_temp_files(folder)
    for name, path in _entries(folder):
        if hidden_folder_pattern.match(name) and os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(name)
    return removed
