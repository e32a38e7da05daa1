"""torch.utils.benchmark.Compare: measurements laid out as torch's tables.

One table per label: a column per description, a row per (threads, env, sub_label or stmt), rows grouped under
"N threads:" separators, medians in the unit of the table's fastest median. Measurements of one task are merged
first. `trim_significant_figures()` rounds each median to its estimated significant figures,
`highlight_warnings()` marks high-variance ones with "(! XX%)", `colorize()` shades each cell against the best
median of its column (or of its row).
"""
import enum

import numpy as np

from ._measurement import Measurement, ordered_unique, select_unit, trim_sigfig, unit_to_english

BEST, GOOD, BAD, VERY_BAD = "\033[92m", "\033[34m", "\033[2m\033[91m", "\033[31m"
BOLD, TERMINATE = "\033[1m", "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _shade(text, value, best):
    if value <= best * 1.01 or value <= best + 100e-9:
        return BEST + BOLD + text + TERMINATE * 2
    if value <= best * 1.1:
        return GOOD + BOLD + text + TERMINATE * 2
    if value >= best * 5:
        return VERY_BAD + BOLD + text + TERMINATE * 2
    if value >= best * 2:
        return BAD + text + TERMINATE * 2
    return text


def _leading_digits(value):
    return int(np.ceil(np.log10(np.float32(value))))


class _Table:
    def __init__(self, results, colorize, trim, highlight):
        self.results, self.colorize, self.trim, self.highlight = results, colorize, trim, highlight
        self.label = results[0].label
        self.unit, self.scale = select_unit(min(r.median for r in results))
        row_key = lambda m: (m.num_threads, m.env, m.as_row_name)  # noqa: E731
        self.row_keys = sorted(ordered_unique(row_key(m) for m in results), key=lambda k: k[:2])
        self.column_keys = ordered_unique(m.description for m in results)
        self.grid = [[None] * len(self.column_keys) for _ in self.row_keys]
        rows, cols = {k: i for i, k in enumerate(self.row_keys)}, {k: j for j, k in enumerate(self.column_keys)}
        for m in results:
            self.grid[rows[row_key(m)]][cols[m.description]] = m
        # rows are grouped by thread count; each group starts a separator line
        self.group_of_row, group, previous = [], -1, object()
        for threads, _, _ in self.row_keys:
            if threads != previous:
                group, previous = group + 1, threads
            self.group_of_row.append(group)
        self.formats = [self._column_format(j) for j in range(len(self.column_keys))]

    def _column_format(self, j):
        cells = [row[j] for row in self.grid if row[j] is not None]
        highlight = self.highlight and any(m.has_warnings for m in cells)
        digits = [_leading_digits(m.median / self.scale) for m in cells]
        unit_digits = max(digits)
        decimals = min(max(m.significant_figures - d, 0) for d, m in zip(digits, cells)) if self.trim else 1
        width = unit_digits + decimals + (1 if decimals else 0)
        return "{:>%d.%df}{:>%d}" % (width, decimals, 7 if highlight else 0), highlight

    def _cell(self, j, m):
        if m is None:  # a blank as wide as the number 1 would be
            return " " * len(self._number(j, 1, 1, None))
        spread = m.iqr / m.median if m.has_warnings else None
        return self._number(j, m.median / self.scale, m.significant_figures, spread)

    def _number(self, j, value, significant_figures, spread):
        template, highlight = self.formats[j]
        if self.trim:
            value = trim_sigfig(value, significant_figures)
        return template.format(value, f" (! {spread * 100:.0f}%)" if highlight and spread is not None else "")

    def render(self):
        envs = {m.env for m in self.results}
        show_env = len(envs) > 1
        env_width = max(len(e) for e in envs) if show_env else 0
        text_rows, previous_env, previous_group = [[""] + list(self.column_keys)], "", -1
        for i, (key, row) in enumerate(zip(self.row_keys, self.grid)):
            if self.group_of_row[i] != previous_group:
                previous_env, previous_group = "", self.group_of_row[i]
            first = next(m for m in row if m is not None)
            env = f"({first.env})" if show_env and key[1] != previous_env else ""
            previous_env = key[1]
            text_rows.append(["  " + env.ljust(env_width + 4) + first.as_row_name] +
                             [self._cell(j, m) for j, m in enumerate(row)])
        columns = max(len(r) for r in text_rows)
        for r in text_rows:
            r.extend([""] * (columns - len(r)))
        widths = [max(len(cell) for cell in column) for column in zip(*text_rows)]
        lines = ["  |  ".join(cell.center(w) for cell, w in zip(text_rows[0], widths))]
        overall = len(lines[0])
        previous_group = -1
        for i, (cells, row) in enumerate(zip(text_rows[1:], self.grid)):
            if self.group_of_row[i] != previous_group:
                previous_group = self.group_of_row[i]
                lines.append(f"{self.row_keys[i][0]} threads: ".ljust(overall, "-"))
            lines.append("  |  ".join(self._finished_row(i, cells, row, widths)))
        warned = self.highlight and any(m.has_warnings for m in self.results)
        title = f" {self.label or ''} ".center(overall - 2, "-")
        note = "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n" if warned else ""
        return (f"[{title}]\n" + "\n".join(lines) +
                f"\n\nTimes are in {unit_to_english(self.unit)}s ({self.unit}).\n{note}")

    def _finished_row(self, i, cells, row, widths):
        if self.colorize is Colorize.ROWWISE:
            best = [min(m.median for m in row if m is not None)] * len(row)
        elif self.colorize is Colorize.COLUMNWISE:
            group = self.group_of_row[i]
            best = []
            for j in range(len(row)):
                medians = [r[j].median for k, r in enumerate(self.grid)
                           if self.group_of_row[k] == group and r[j] is not None]
                best.append(min(medians) if medians else None)
        else:
            best = [None] * len(row)
        out = [cells[0].ljust(widths[0])]
        for cell, width, m, b in zip(cells[1:], widths[1:], row, best):
            cell = cell.center(width)
            if b is not None and m is not None:
                cell = _shade(cell, m.median, b)
            out.append(cell)
        return out


class Compare:
    """Tables of measurements: `Compare(results).print()`."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self):
        return "\n".join(self._render())

    def extend_results(self, results):
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        self._highlight_warnings = True

    def print(self):
        print(str(self))

    def _render(self):
        by_label = {}
        for m in Measurement.merge(self._results):
            by_label.setdefault(m.label, []).append(m)
        return [_Table(group, self._colorize, self._trim_significant_figures, self._highlight_warnings).render()
                for group in by_label.values()]
