"""torch._tensor_str: the print options `repr(tensor)` follows (torch.set_printoptions and the
`printoptions` context manager sentence-transformers uses for its model cards), and the layout of the elements
in `repr(tensor)`, torch's to the character."""
import contextlib
import math

import numpy as np

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


def elements_str(values, indent):
    """The bracketed elements of `repr(tensor)` for the NumPy array `values` (the tensor's elements; bfloat16 as
    float32), laid out as torch lays them out: `indent` is the column the first bracket stands in.

    One format serves every element (`_ElementFormat`), chosen from the elements shown; 1-D rows wrap at the line
    width; tensors of more than `threshold` elements show `edgeitems` rows at each end of each dimension."""
    summarize = values.size > PRINT_OPTS.threshold
    shown = _summarized(values) if summarize else values
    if values.dtype.kind == "c":
        formats = (_ElementFormat(shown.real), _ElementFormat(shown.imag))
    else:
        formats = (_ElementFormat(shown),)
    return _nested_str(values, indent, summarize, formats)


def _ends(n):
    """The indices shown of a dimension of length n when summarizing: `edgeitems` at each end, or all."""
    edge = PRINT_OPTS.edgeitems
    if n > 2 * edge:
        return list(range(edge)), list(range(n - edge, n))
    return list(range(n)), None


def _summarized(values):
    """The elements a summarized repr shows, as one array (the format is chosen from these)."""
    if values.ndim == 0:
        return values
    head, tail = _ends(values.shape[0])
    kept = head + (tail or [])
    if values.ndim == 1:
        return values[kept]
    return np.stack([_summarized(values[i]) for i in kept]) if kept else values


class _ElementFormat:
    """The format of every element of one real array (of a complex one: of its real or imaginary parts).

    Integers and booleans print as Python prints them. Floats print in one of three modes, decided on the finite
    nonzero elements: scientific `1.2346e+05` (precision digits) when the largest magnitude exceeds 1e8 or 1000
    times the smallest or the smallest is below 1e-4, or as `set_printoptions(sci_mode=...)` says; else integral
    values as `3.` and others fixed-point with `precision` digits. Every element is right-aligned to the widest
    of those elements. Without finite nonzero elements (zeros, nan, inf) the integral mode holds."""

    def __init__(self, values):
        self.floating = values.dtype.kind == "f"
        self.integral = True
        self.scientific = False
        self.width = 1
        flat = values.reshape(-1)
        if not self.floating:
            self.width = max((len(str(v)) for v in flat.tolist()), default=1)
            return
        with np.errstate(invalid="ignore"):
            finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size:
            magnitudes = np.abs(finite)
            smallest, largest = magnitudes.min(), magnitudes.max()
            self.integral = bool(np.all(finite == np.ceil(finite)))
            self.scientific = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4 \
                if PRINT_OPTS.sci_mode is None else PRINT_OPTS.sci_mode
            digits = PRINT_OPTS.precision
            if self.scientific:
                self.width = max(len(f"{v:.{digits}e}") for v in finite.tolist())
            elif self.integral:
                self.width = max(len(f"{v:.0f}") for v in finite.tolist()) + 1  # (and the point)
            else:
                self.width = max(len(f"{v:.{digits}f}") for v in finite.tolist())

    def __call__(self, value):
        if not self.floating:
            text = str(value)
        elif self.scientific:
            text = f"{value:.{PRINT_OPTS.precision}e}"
        elif self.integral:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = f"{value:.{PRINT_OPTS.precision}f}"
        return text.rjust(self.width)


def _element_str(value, formats):
    if len(formats) == 1:
        return formats[0](value)
    real = formats[0](value.real)
    imag = (formats[1](value.imag) + "j").lstrip()
    return real + imag if imag[0] in "+-" else real + "+" + imag


def _nested_str(values, indent, summarize, formats):
    if values.ndim == 0:
        return _element_str(values.item(), formats)
    head, tail = _ends(values.shape[0]) if summarize else (list(range(values.shape[0])), None)
    if values.ndim == 1:
        items = values.tolist()
        texts = [_element_str(items[i], formats) for i in head]
        if tail is not None:
            texts += [" ..."] + [_element_str(items[i], formats) for i in tail]
        # a complex element holds both widths, the sign or "+" between them and the "j"
        element_width = sum(f.width for f in formats) + 2 + (len(formats) - 1)
        per_line = max(1, int(math.floor((PRINT_OPTS.linewidth - indent) / element_width)))
        lines = [", ".join(texts[i:i + per_line]) for i in range(0, len(texts), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = [_nested_str(values[i], indent + 1, summarize, formats) for i in head]
    if tail is not None:
        rows += ["..."] + [_nested_str(values[i], indent + 1, summarize, formats) for i in tail]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def with_suffixes(text, suffixes, indent):
    """`text` (from "tensor(" on) closed with its suffixes ("dtype=...", "requires_grad=True" ...): each on the
    last line after ", " while that line stays within the line width (counted as torch counts it, two columns
    over), else on a line of its own, `indent` columns in."""
    parts = [text]
    line_length = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if line_length + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            line_length = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line_length += len(suffix) + 2
    return "".join(parts) + ")"
