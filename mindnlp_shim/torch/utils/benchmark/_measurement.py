"""torch.utils.benchmark's TaskSpec and Measurement: what was timed, and the statistics of its times.

The statistics follow torch's documented behaviour: `times` are the raw times per run, the median and the
quartiles interpolate linearly between sorted times (float64), the IQR is the 75th minus the 25th percentile,
and a measurement whose IQR is 10% (25%) of its median or more carries a warning. torch computes the estimate
of significant figures and the choice of unit on float32 tensors, so they are computed in float32 here too.
"""
import collections
import dataclasses
import textwrap
from typing import Any, Optional

import numpy as np

_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25
_MIN_CONFIDENCE_INTERVAL = 25e-9  # seconds: below this a spread is timer noise
_MAX_SIGNIFICANT_FIGURES = 4
_UNITS = (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3))


def select_unit(t):
    """The unit (ns, us, ms or s) for a time `t` in seconds, and its scale."""
    thousands = int(np.floor(np.log10(np.float32(t)) // 3))  # -3: ns, -2: us, -1: ms, anything else: s
    unit, scale = _UNITS[thousands + 3] if -3 <= thousands <= -1 else ("s", 1)
    return unit, scale


def unit_to_english(u):
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x, n):
    """`x` rounded to `n` significant figures."""
    assert n == int(n)
    magnitude = int(np.ceil(np.log10(np.abs(np.float32(x)))))
    scale = 10 ** (magnitude - n)
    return float(np.round(np.float32(x / scale)) * np.float32(scale))


def ordered_unique(elements):
    return list(dict.fromkeys(elements))


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What a Timer runs: its statements and how measurements are labelled."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: Optional[str] = None
    sub_label: Optional[str] = None
    description: Optional[str] = None
    env: Optional[str] = None
    num_threads: int = 1

    @property
    def title(self):
        suffix = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + suffix
        if "\n" not in self.stmt:
            return self.stmt + suffix
        marker = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{marker}\n" + textwrap.indent(self.stmt, "  ")

    def setup_str(self):
        if not self.setup or self.setup == "pass":
            return ""
        if "\n" in self.setup:
            return "setup:\n" + textwrap.indent(self.setup, "  ")
        return f"setup: {self.setup}"

    def summarize(self):
        parts = [p for p in (self.title, self.description or "", self.setup_str()) if p]
        return "\n".join(p + "\n" if "\n" in p else p for p in parts)


_TASKSPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """The times of one task: `raw_times` each cover `number_per_run` runs of the statement."""
    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: Optional[dict] = None

    def __post_init__(self):
        self._stats = None

    def __getattr__(self, name):
        if name in _TASKSPEC_FIELDS:  # the task's fields read through the measurement
            return getattr(self.task_spec, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    def _computed(self):
        if self._stats is None and self.raw_times:
            ordered = np.array(sorted(self.times), dtype=np.float64)
            p25, median, p75 = np.quantile(ordered, [0.25, 0.5, 0.75])
            stats = {"sorted": tuple(float(t) for t in ordered), "median": float(median),
                     "mean": float(np.mean(ordered)), "p25": float(p25), "p75": float(p75), "warnings": ()}
            self._stats = stats
            spread = (stats["p75"] - stats["p25"]) / stats["median"]
            if spread >= _IQR_GROSS_WARN_THRESHOLD:
                reason = "This suggests significant environmental influence."
            elif spread >= _IQR_WARN_THRESHOLD:
                reason = "This could indicate system fluctuation."
            else:
                reason = None
            if reason is not None:
                stats["warnings"] = (f"  WARNING: Interquartile range is {spread * 100:.1f}% of the median "
                                     f"measurement.\n           {reason}",)
        return self._stats or {"sorted": (), "median": -1.0, "mean": -1.0, "p25": -1.0, "p75": -1.0,
                               "warnings": ()}

    @property
    def median(self):
        return self._computed()["median"]

    @property
    def mean(self):
        return self._computed()["mean"]

    @property
    def iqr(self):
        stats = self._computed()
        return stats["p75"] - stats["p25"]

    @property
    def significant_figures(self):
        """A rough estimate of the trustworthy digits of the median: from the spread of the middle half of
        the times (a 90% confidence interval of their mean), between 1 and 4."""
        ordered = self._computed()["sorted"]
        n = len(ordered)
        middle = np.array(ordered[n // 4:int(np.ceil(np.float32(3 * n / 4)))], dtype=np.float32)
        spread = float(middle.std())  # (float32, as torch's estimate)
        interval = max(1.645 * spread / float(np.sqrt(np.float32(len(middle)))), _MIN_CONFIDENCE_INTERVAL)
        digits = int(np.floor(np.log10(np.float32(self.median / interval))))
        return min(max(digits, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self):
        return bool(self._computed()["warnings"])

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        return self.iqr / self.median < threshold

    @property
    def title(self):
        return self.task_spec.title

    @property
    def as_row_name(self):
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self):
        stats = self._computed()
        n = len(stats["sorted"])
        unit, scale = select_unit(stats["median"])
        lines = [object.__repr__(self).replace(f"{__name__}.", "torch.utils.benchmark.utils.common."),
                 self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{stats['median'] / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({stats['p25'] / scale:.2f} to "
                         f"{stats['p75'] / scale:.2f})")
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {threads}")
        lines.append("\n".join(stats["warnings"]))
        return "\n".join("\n".join(lines).strip().splitlines())

    @staticmethod
    def merge(measurements):
        """One measurement per task: the per-run times of each task's measurements together."""
        by_task = collections.defaultdict(list)
        for m in measurements:
            by_task[m.task_spec].extend(m.times)
        return [Measurement(number_per_run=1, raw_times=times, task_spec=task, metadata=None)
                for task, times in by_task.items()]
