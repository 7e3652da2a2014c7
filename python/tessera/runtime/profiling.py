"""``tvm.runtime.profiling``: the report of ``VirtualMachine.profile`` -- one
row per callee of the VM (TIR kernel, VM builtin, registered function) and
argument shapes, with calls, total and mean time, share of the call, and
GFLOP/s where the kernel's FLOP count is known; plus the VM's own overhead
(the call's wall time minus its callees'). Printable as a table
(``str(report)`` / ``table()``), and as CSV and JSON."""
import csv
import io
import json


class Report:
    """A profile of one VM function call. ``calls`` holds one dict per row:
    Name, Shapes, Count, Duration (us) (total), Mean (us), Percent, GFLOPS
    (None when unknown), FLOP (None when unknown); ``total_us`` is the whole
    call's wall time, ``overhead_us`` the part spent in the VM itself."""

    COLUMNS = ["Name", "Count", "Duration (us)", "Mean (us)", "Percent", "GFLOPS", "Shapes"]

    def __init__(self, rows, total_ns, flops=None):
        flops = flops or {}
        self.total_us = total_ns / 1e3
        self.calls = []
        for name, shapes, count, ns in rows:
            flop = flops.get(name)
            secs = ns / 1e9
            self.calls.append({
                "Name": name, "Shapes": shapes, "Count": int(count), "Duration (us)": ns / 1e3,
                "Mean (us)": ns / 1e3 / max(1, count), "Percent": 100.0 * ns / total_ns if total_ns else 0.0,
                "FLOP": flop, "GFLOPS": (flop * count / secs / 1e9) if flop and secs > 0 else None,
            })
        self.overhead_us = max(0.0, self.total_us - sum(c["Duration (us)"] for c in self.calls))

    def table(self, sort=True, top=None):
        """The rows as a fixed-width text table, the longest first when ``sort``;
        ``top`` keeps that many rows. The last lines give the total and the VM's
        overhead."""
        rows = sorted(self.calls, key=lambda c: -c["Duration (us)"]) if sort else list(self.calls)
        if top is not None:
            rows = rows[:top]

        def fmt(c, col):
            v = c[col]
            if v is None:
                return "-"
            if isinstance(v, float):
                return f"{v:.2f}"
            return str(v)
        cells = [self.COLUMNS] + [[fmt(c, col) for col in self.COLUMNS] for c in rows]
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.COLUMNS) - 1)]
        lines = ["  ".join(r[i].ljust(widths[i]) if i == 0 else r[i].rjust(widths[i])
                           for i in range(len(widths))) + "  " + r[-1] for r in cells]
        lines.append(f"Total {self.total_us:.2f} us over {len(self.calls)} callee rows; "
                     f"VM overhead {self.overhead_us:.2f} us ({self.overhead_percent():.1f}%)")
        return "\n".join(lines)

    def overhead_percent(self):
        return 100.0 * self.overhead_us / self.total_us if self.total_us else 0.0

    def csv(self):
        """The rows as CSV (one header line)."""
        out = io.StringIO()
        w = csv.DictWriter(out, fieldnames=["Name", "Shapes", "Count", "Duration (us)", "Mean (us)", "Percent",
                                            "GFLOPS", "FLOP"])
        w.writeheader()
        for c in self.calls:
            w.writerow({k: ("" if v is None else v) for k, v in c.items()})
        return out.getvalue()

    def json(self):
        """The rows, the total and the overhead as a JSON string."""
        return json.dumps({"calls": self.calls, "total_us": self.total_us, "overhead_us": self.overhead_us})

    def __str__(self):
        return self.table()

    def __repr__(self):
        return f"Report({len(self.calls)} rows, total {self.total_us:.1f} us)"


__all__ = ["Report"]
