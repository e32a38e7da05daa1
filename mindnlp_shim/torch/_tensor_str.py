"""torch._tensor_str: the print options `repr(tensor)` follows (torch.set_printoptions and the
`printoptions` context manager sentence-transformers uses for its model cards)."""
import contextlib
import math

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


class __PrinterOptions:
    precision = 4
    threshold = 1000.0
    edgeitems = 3
    linewidth = 80
    sci_mode = None


PRINT_OPTS = __PrinterOptions()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """As torch: a profile sets all four numbers, explicit values override it; sci_mode is always set
    (None: scientific notation only where the values need it)."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"Unknown print profile: {profile}")
        for name, value in _PROFILES[profile].items():
            setattr(PRINT_OPTS, name, value)
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            setattr(PRINT_OPTS, name, value)
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    return {name: getattr(PRINT_OPTS, name) for name in ("precision", "threshold", "edgeitems", "linewidth",
                                                          "sci_mode")}


@contextlib.contextmanager
def printoptions(**kwargs):
    """Print options for the duration of a `with` block."""
    previous = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**previous)


def numpy_options():
    """The `numpy.array2string` arguments that follow the current options."""
    threshold = PRINT_OPTS.threshold
    options = dict(precision=PRINT_OPTS.precision, edgeitems=PRINT_OPTS.edgeitems,
                   max_line_width=PRINT_OPTS.linewidth,
                   threshold=int(threshold) if math.isfinite(threshold) else 2 ** 62)
    if PRINT_OPTS.sci_mode is False:
        options["suppress_small"] = True
    elif PRINT_OPTS.sci_mode:
        digits = PRINT_OPTS.precision
        options["formatter"] = {"float_kind": lambda v: f"{v:.{digits}e}"}
    return options
