"""torch.cuda.amp: the deprecated spellings of torch.amp."""


def autocast(enabled=True, dtype=None, cache_enabled=True):
    from ..amp import autocast as _autocast

    import mindspore

    return _autocast("cuda", dtype=dtype or mindspore.float16, enabled=enabled, cache_enabled=cache_enabled)


def GradScaler(*args, **kwargs):
    from ..amp import GradScaler as _GradScaler

    return _GradScaler("cuda", *args, **kwargs)
