"""Internals of `torch.save` / `torch.load` (the public API is `mindnlp_shim.torch.serialization`).

- `rebuild`        what a checkpoint's storages and tensor rebuild calls turn into on load
- `names`          the torch global names a pickle may reference, resolved to shim objects
- `safe_globals`   the user's allow-list for `weights_only=True` loading
- `writer`         the tensor-aware pickler and the zip archive writer
- `zip_archive`    the zip archive read with the checks torch's reader makes
- `locations`      storage location tags and map_location, by torch's rules
- `reader`         storage ids and the full (weights_only=False) unpickler
- `zip_checkpoint` the records of a zip checkpoint, read as torch reads them
- `weights_only`   the checked unpickler of torch.load(weights_only=True)
- `legacy`         the pre-1.6 (non-zip) file format
"""
