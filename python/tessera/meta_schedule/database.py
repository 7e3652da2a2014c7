"""Tuning databases (``tvm.meta_schedule.database``): workloads (IRModules keyed by
structural hash) and tuning records (trace, run times, target, argument info).
JSONDatabase keeps them as JSON lines in ``work_dir``, appended and flushed per
record, so a killed run loses at most the record being written and a rerun resumes."""
import fcntl
import json
import os

from .. import ir as _ir
from ..error import TVMFileNotFoundError, TVMTypeError, TVMValueError
from ..tir.schedule import Schedule, Trace
from .arg_info import ArgInfo


def _module_hash(mod):
    return int(_ir.structural_hash(mod)) & 0xFFFFFFFFFFFFFFFF


class Workload:
    """An IRModule being tuned (``mod``), with its structural hash (``shash``)."""

    def __init__(self, mod, shash=None):
        if not isinstance(mod, _ir.IRModule):
            raise TVMTypeError(f"Workload(mod=...) expects an IRModule, got {type(mod).__name__}")
        self.mod = mod
        self.shash = _module_hash(mod) if shash is None else int(shash)

    def as_json(self):
        return [str(self.shash), _ir.save_json(self.mod)]

    @staticmethod
    def from_json(obj):
        shash, mod_json = obj
        return Workload(_ir.load_json(mod_json), int(shash))


class TuningRecord:
    """One measured candidate: its ``trace``, ``workload``, ``run_secs`` (None when the
    build or run failed), ``target``, ``args_info`` and ``error_msg`` (why it failed)."""

    def __init__(self, trace, workload, run_secs=None, target=None, args_info=None, error_msg=None):
        if not isinstance(trace, Trace):
            raise TVMTypeError(f"TuningRecord(trace=...) expects a tir.Trace, got {type(trace).__name__}")
        self.trace = trace
        self.workload = workload
        self.run_secs = None if run_secs is None else [float(t) for t in run_secs]
        self.target = None if target is None else str(target)
        self.args_info = list(args_info) if args_info is not None else None
        self.error_msg = error_msg

    @property
    def is_valid(self):
        return bool(self.run_secs) and all(t > 0 for t in self.run_secs)

    @property
    def mean_run_sec(self):
        return sum(self.run_secs) / len(self.run_secs) if self.is_valid else float("inf")

    @property
    def trace_key(self):
        """The trace's JSON text: records of the same candidate (a trace measured again by
        the final confirmation, tune.py) share it."""
        key = getattr(self, "_trace_key", None)
        if key is None:
            key = self._trace_key = json.dumps(self.trace.as_json(), separators=(",", ":"))
        return key

    @property
    def measure_key(self):
        """(target, trace_key): what one candidate measured on one target shares."""
        return (self.target, self.trace_key)

    def as_json(self, workload_index):
        return [workload_index, {
            "trace": self.trace.as_json(),
            "run_secs": self.run_secs,
            "target": self.target,
            "args_info": None if self.args_info is None else [a.as_json() for a in self.args_info],
            "error_msg": self.error_msg,
        }]

    @staticmethod
    def from_json(obj, workload):
        rec = obj
        args = rec.get("args_info")
        return TuningRecord(Trace.from_json(rec["trace"]), workload, rec.get("run_secs"), rec.get("target"),
                            None if args is None else [ArgInfo.from_json(a) for a in args], rec.get("error_msg"))

    def __repr__(self):
        status = f"{self.mean_run_sec * 1e3:.4f} ms" if self.is_valid else f"error: {self.error_msg}"
        return f"TuningRecord({status})"


_CURRENT = []  # the databases of enclosing ``with database:`` blocks


class Database:
    """The database interface; records are kept in memory in insertion order.
    ``with database:`` makes it ``Database.current()`` (read by
    relax.transform.MetaScheduleApplyDatabase when it is given no work_dir)."""

    def __enter__(self):
        _CURRENT.append(self)
        return self

    def __exit__(self, *exc):
        _CURRENT.pop()

    @staticmethod
    def current():
        """The database of the innermost ``with database:`` block, or None."""
        return _CURRENT[-1] if _CURRENT else None

    def __init__(self):
        self._workloads = []       # list of Workload, index = position
        self._by_hash = {}         # shash -> [index, ...] (structural-equal check on lookup)
        self._records = []         # list of TuningRecord
        self._record_wl = []       # workload index of each record

    # ---- workloads
    def _find_workload(self, mod):
        shash = _module_hash(mod)
        for idx in self._by_hash.get(shash, []):
            if _ir.structural_equal(self._workloads[idx].mod, mod):
                return idx
        return None

    def has_workload(self, mod):
        return self._find_workload(mod) is not None

    def commit_workload(self, mod):
        """The Workload of ``mod``, registering it when new."""
        idx = self._find_workload(mod)
        if idx is None:
            idx = self._add_workload(Workload(mod))
            self._on_new_workload(idx)
        return self._workloads[idx]

    def _add_workload(self, workload):
        self._workloads.append(workload)
        self._by_hash.setdefault(workload.shash, []).append(len(self._workloads) - 1)
        return len(self._workloads) - 1

    # ---- records
    def commit_tuning_record(self, record):
        if not isinstance(record, TuningRecord):
            raise TVMTypeError(f"commit_tuning_record expects a TuningRecord, got {type(record).__name__}")
        idx = self._index_of(record.workload)
        self._records.append(record)
        self._record_wl.append(idx)
        self._on_new_record(record, idx)

    def _index_of(self, workload):
        for i, w in enumerate(self._workloads):
            if w is workload:
                return i
        idx = self._find_workload(workload.mod)
        if idx is None:
            raise TVMValueError("commit_tuning_record: the record's workload was never committed "
                                "(call commit_workload(mod) first)")
        return idx

    def get_all_tuning_records(self):
        return list(self._records)

    def latest_records(self):
        """Every record that is its trace's latest measurement for its workload (the
        measurements a final confirmation superseded left out), in commit order."""
        latest = {}
        for r, w in zip(self._records, self._record_wl):
            latest[(w, r.measure_key)] = r
        keep = {id(r) for r in latest.values()}
        return [r for r in self._records if id(r) in keep]

    def records_of(self, mod):
        """Every record (valid or not) of the workload ``mod``, in commit order."""
        idx = self._find_workload(mod)
        return [] if idx is None else [r for r, w in zip(self._records, self._record_wl) if w == idx]

    def get_top_k(self, workload, top_k):
        """The ``top_k`` fastest valid records of ``workload``, fastest first."""
        if top_k < 0:
            raise TVMValueError(f"get_top_k(top_k={top_k}) must be non-negative")
        idx = self._index_of(workload)
        recs = [r for r in self.latest_per_trace(idx).values() if r.is_valid]
        recs.sort(key=lambda r: r.mean_run_sec)
        return recs[:top_k]

    def latest_per_trace(self, workload_idx, target=None):
        """{(target, trace_key): the latest record of that trace} for the workload at index
        ``workload_idx`` (records of ``target`` or of no target when given). A trace
        measured again (the final confirmation) is judged by its latest measurement only,
        even when that one failed."""
        out = {}
        for r, w in zip(self._records, self._record_wl):
            if w == workload_idx and (target is None or r.target is None or r.target == str(target)):
                out.pop(r.measure_key, None)
                out[r.measure_key] = r
        return out

    def confirmed_keys(self, workload_idx):
        """The measure keys (target, trace) of ``workload_idx`` measured more than once (confirmed)."""
        seen, twice = set(), set()
        for r, w in zip(self._records, self._record_wl):
            if w == workload_idx:
                (twice if r.measure_key in seen else seen).add(r.measure_key)
        return twice

    def __len__(self):
        return len(self._records)

    # ---- queries (TVM's Database.query_*)
    def query_tuning_record(self, mod, target=None, workload_name="main"):
        """The best valid record for ``mod`` (and ``target`` when given), or None. Each
        trace counts with its latest measurement; when some traces were measured more than
        once (the final confirmation re-measured them side by side), the best is chosen
        among those, so a candidate whose single fast measurement the confirmation
        contradicted, or one never confirmed, cannot win over the confirmed fastest."""
        idx = self._find_workload(mod)
        if idx is None:
            return None
        latest = self.latest_per_trace(idx, target)
        recs = [r for r in latest.values() if r.is_valid]
        confirmed = self.confirmed_keys(idx)
        recs = [r for r in recs if r.measure_key in confirmed] or recs
        return min(recs, key=lambda r: r.mean_run_sec) if recs else None

    def query_schedule(self, mod, target=None, workload_name="main"):
        """The best schedule of ``mod``: its trace replayed on a fresh Schedule, or None."""
        rec = self.query_tuning_record(mod, target, workload_name)
        if rec is None:
            return None
        sch = Schedule(mod)
        rec.trace.apply_to_schedule(sch, remove_postproc=False)
        return sch

    def query_ir_module(self, mod, target=None, workload_name="main"):
        sch = self.query_schedule(mod, target, workload_name)
        return None if sch is None else sch.mod

    def query(self, mod, target=None, *, workload_name="main", kind="schedule"):
        fns = {"schedule": self.query_schedule, "record": self.query_tuning_record,
               "ir_module": self.query_ir_module}
        if kind not in fns:
            raise TVMValueError(f"query(kind={kind!r}): expected one of {sorted(fns)}")
        return fns[kind](mod, target, workload_name)

    # hooks for persistent subclasses
    def _on_new_workload(self, idx):
        pass

    def _on_new_record(self, record, workload_idx):
        pass


class MemoryDatabase(Database):
    """A database kept in memory only."""


class JSONDatabase(Database):
    """Records as JSON lines: ``path_workload`` (one workload per line, line number =
    workload index) and ``path_tuning_record`` (``[workload_index, record]`` per line, the
    record naming its workload's structural hash too). ``work_dir`` gives the default file
    names ``database_workload.json`` and ``database_tuning_record.json``.

    Several databases (processes) may share the files: every append holds an exclusive
    ``fcntl.flock`` on the file; a new workload is first looked up among the lines other
    writers appended since, so each workload has one index in the file. Opening only
    reads: a last line without its newline is a record still being written (or one cut
    short by a killed writer) and is skipped; the next append, under the lock, removes
    such a cut-short line. A malformed line raises ValueError naming file and line."""

    def __init__(self, path_workload=None, path_tuning_record=None, *, work_dir=None, allow_missing=True):
        super().__init__()
        if work_dir is not None:
            os.makedirs(work_dir, exist_ok=True)
            path_workload = path_workload or os.path.join(work_dir, "database_workload.json")
            path_tuning_record = path_tuning_record or os.path.join(work_dir, "database_tuning_record.json")
        if path_workload is None or path_tuning_record is None:
            raise TVMValueError("JSONDatabase needs work_dir=... or both path_workload and path_tuning_record")
        self.path_workload = path_workload
        self.path_tuning_record = path_tuning_record
        for path in (path_workload, path_tuning_record):
            if not os.path.exists(path):
                if not allow_missing:
                    raise TVMFileNotFoundError(f"JSONDatabase: {path} does not exist (allow_missing=False)")
                open(path, "a").close()
        self._workload_bytes = 0  # bytes of path_workload read so far (complete lines only)
        self._workload_lines = 0  # and their lines
        self._read_new_workloads()
        lines, _, _ = _json_lines(path_tuning_record)
        for lineno, obj in lines:
            self._load_record(lineno, obj)

    def _load_record(self, lineno, obj):
        where = f"{self.path_tuning_record}, line {lineno}"
        if not isinstance(obj, list) or len(obj) != 2:
            raise _bad_line(where, "a tuning record must be [workload_index, record]", obj)
        idx, rec = obj
        if isinstance(idx, bool) or not isinstance(idx, int):
            raise _bad_line(where, "the workload index must be an integer", idx)
        if idx >= len(self._workloads):
            self._read_new_workloads()  # a writer appended the workload after we read the file
        if not 0 <= idx < len(self._workloads):
            raise TVMValueError(f"{where}: the record refers to workload {idx}, but {self.path_workload} holds "
                                f"{len(self._workloads)}")
        if not isinstance(rec, dict) or "trace" not in rec:
            raise _bad_line(where, "the record must be a JSON object with a 'trace'", rec)
        shash = rec.get("workload_hash")
        if shash is not None and str(shash) != str(self._workloads[idx].shash):
            raise TVMValueError(f"{where}: the record was made for the workload of structural hash {shash}, but "
                                f"workload {idx} of {self.path_workload} has hash {self._workloads[idx].shash}")
        try:
            record = TuningRecord.from_json(rec, self._workloads[idx])
        except Exception as err:  # pylint: disable=broad-except
            raise TVMValueError(f"{where}: malformed tuning record: {_describe(err)}") from None
        self._records.append(record)
        self._record_wl.append(idx)

    def _read_new_workloads(self):
        """Loads the workload lines appended (by anyone) since the last read."""
        lines, self._workload_bytes, count = _json_lines(self.path_workload, self._workload_bytes,
                                                         first_lineno=self._workload_lines + 1)
        self._workload_lines += count
        for lineno, obj in lines:
            where = f"{self.path_workload}, line {lineno}"
            if not isinstance(obj, list) or len(obj) != 2 or not isinstance(obj[1], str):
                raise _bad_line(where, "a workload must be [structural_hash, module_json]", obj)
            try:
                workload = Workload.from_json(obj)
            except Exception as err:  # pylint: disable=broad-except
                raise TVMValueError(f"{where}: malformed workload: {_describe(err)}") from None
            self._add_workload(workload)

    def commit_workload(self, mod):
        """The Workload of ``mod``; a new one is appended under the file's lock after
        reading what others appended, so its index is its line in the file."""
        idx = self._find_workload(mod)
        if idx is None:
            with _locked_append(self.path_workload) as f:
                self._read_new_workloads()
                idx = self._find_workload(mod)
                if idx is None:
                    idx = self._add_workload(Workload(mod))
                    _write_line(f, self._workloads[idx].as_json())
                    f.flush()
                    self._workload_bytes = os.fstat(f.fileno()).st_size
                    self._workload_lines += 1
        return self._workloads[idx]

    def _on_new_record(self, record, workload_idx):
        obj = record.as_json(workload_idx)
        obj[1]["workload_hash"] = str(self._workloads[workload_idx].shash)
        with _locked_append(self.path_tuning_record) as f:
            _write_line(f, obj)


def _describe(err):
    return f"{type(err).__name__}: {err}"


def _bad_line(where, what, value):
    text = json.dumps(value)
    return TVMValueError(f"{where}: {what}, got {text[:80] + '...' if len(text) > 80 else text}")


def _json_lines(path, start=0, first_lineno=1):
    """The parsed complete lines of ``path`` from byte ``start`` as (line number, object),
    the byte offset after the last complete line and the number of lines read (blank
    lines are skipped). A last line without its newline is
    being written (or was cut short by a killed writer): skipped, the file left as is."""
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read()
    end = data.rfind(b"\n") + 1
    out = []
    lines = data[:end].split(b"\n")[:-1]
    for offset, raw in enumerate(lines):
        lineno = first_lineno + offset
        if not raw.strip():
            continue
        try:
            out.append((lineno, json.loads(raw)))
        except ValueError:
            raise TVMValueError(f"{path}, line {lineno}: not valid JSON: {raw[:80]!r}") from None
    return out, start + end, len(lines)


class _locked_append:  # pylint: disable=invalid-name
    """``with _locked_append(path) as f``: ``f`` open for appending under an exclusive
    flock; a last line left without its newline by a killed writer is removed first (no
    live writer can be mid-line while the lock is held)."""

    def __init__(self, path):
        self.path = path
        self.file = None

    def __enter__(self):
        self.file = open(self.path, "a+b")  # pylint: disable=consider-using-with
        fcntl.flock(self.file.fileno(), fcntl.LOCK_EX)
        size = os.fstat(self.file.fileno()).st_size
        if size:
            self.file.seek(max(0, size - 65536))
            tail = self.file.read()
            if not tail.endswith(b"\n"):
                self.file.seek(0)
                data = self.file.read()
                self.file.truncate(data.rfind(b"\n") + 1)
        return self.file

    def __exit__(self, *exc):
        try:
            self.file.flush()
            os.fsync(self.file.fileno())
        finally:
            fcntl.flock(self.file.fileno(), fcntl.LOCK_UN)
            self.file.close()


def _write_line(f, obj):
    f.write((json.dumps(obj, separators=(",", ":")) + "\n").encode())


def create(kind="json", *args, **kwargs):
    """``create("json", work_dir=...)`` or ``create("memory")``."""
    if kind == "json":
        return JSONDatabase(*args, **kwargs)
    if kind == "memory":
        return MemoryDatabase(*args, **kwargs)
    raise TVMValueError(f"database.create(kind={kind!r}): expected 'json' or 'memory'")


__all__ = ["Database", "JSONDatabase", "MemoryDatabase", "TuningRecord", "Workload", "create"]
