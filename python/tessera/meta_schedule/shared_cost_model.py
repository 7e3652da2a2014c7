"""One cost model for every task of a tuning run (tune_relax / tune_tasks / tune_tir).
SharedCostModel wraps a CostModel (XGBModel by default); ``for_task(mod, target)`` gives each
task a view that tags its measurements with the task's workload hash and target, so that
XGBModel normalizes throughput per task (what transfers between tasks is the ranking, not
the latencies).
``warm_start(database)`` trains the model on the records already in the database (every
workload, this run's or another model's) before the first search round. Each record's
trace is replayed once per run (``replayed(rec)``, cached): the warm start, the task's
set of measured modules and its search strategy's seeds all use that one replay."""
import numpy as np

from ..error import TVMTypeError
from ..target import Target
from ..tir.schedule import Schedule
from .cost_model import CostModel, XGBModel
from .. import ir as _ir
from .database import _module_hash
from .feature import candidate_features


def _kind(target):
    """"gpu" or "cpu": the features (and speeds) of the two do not mix."""
    keys = (target if isinstance(target, Target) else Target(str(target))).keys
    return "gpu" if "gpu" in list(keys) else "cpu"


def _group(shash, target):
    """A task's normalisation group: its workload and the target its latencies were measured
    on (records of one workload timed on two targets, e.g. 1 and 2 cores, are not compared)."""
    return (int(shash), None if target is None else str(target))


def _supports_groups(model):
    return isinstance(model, XGBModel)


class Replayed:
    """A database record's trace replayed on its workload as it was measured
    (postprocessing included): the module's structural hash (``shash``) and, computed on
    first use, its per-store ``features``."""

    __slots__ = ("mod", "shash", "_features")

    def __init__(self, mod):
        self.mod = mod
        self.shash = int(_ir.structural_hash(mod))
        self._features = None

    @property
    def features(self):
        if self._features is None:
            self._features = candidate_features(self.mod)
        return self._features


class ReplayCache:
    """``get(record, mod=None)``: the record's Replayed (None when its trace no longer
    replays), replaying it only the first time; ``num_replays`` counts the replays done.
    Records are keyed by identity (a Database returns the same record objects each time;
    one that does not is replayed again, never wrongly matched)."""

    def __init__(self):
        self._done = {}    # id(record) -> (record, Replayed or None); the record kept alive
        self.num_replays = 0

    def get(self, record, mod=None):
        hit = self._done.get(id(record))
        if hit is not None and hit[0] is record:
            return hit[1]
        sch = Schedule(record.workload.mod if mod is None else mod)
        self.num_replays += 1
        try:
            record.trace.apply_to_schedule(sch, remove_postproc=False)
            out = Replayed(sch.mod)
        except Exception:  # noqa: BLE001 -- a record that no longer replays is not used
            out = None
        self._done[id(record)] = (record, out)
        return out


class TaskCostModel(CostModel):
    """The view of a SharedCostModel one task's search strategy uses: ``update`` adds the
    measurements to the shared model under the task's group, ``predict`` scores with it."""

    def __init__(self, shared, group):
        self.shared = shared
        self.group = group

    @property
    def replays(self):
        return self.shared.replays

    def learnt(self, record):
        """Whether the warm start already fed ``record`` to the model."""
        return id(record) in self.shared.learnt_ids

    @property
    def model(self):
        return self.shared.model

    def update(self, *args, group=None):
        if _supports_groups(self.model):
            return self.model.update(*args, group=self.group if group is None else group)
        return self.model.update(*args)

    def predict(self, *args):
        return self.model.predict(*args)

    @property
    def trained(self):
        return bool(getattr(self.model, "trained", True))


class SharedCostModel:
    """``model``: the CostModel every task's view feeds and queries. ``warm_records`` /
    ``warm_workloads``: what ``warm_start`` trained it on (0 before)."""

    def __init__(self, model):
        if isinstance(model, (SharedCostModel, TaskCostModel)):
            model = model.model
        if not hasattr(model, "predict") or not hasattr(model, "update"):
            raise TVMTypeError(f"SharedCostModel: expected a CostModel, got {type(model).__name__}")
        self.model = model
        self.warm_records = 0
        self.warm_workloads = 0
        self.replays = ReplayCache()
        self.learnt_ids = set()   # id() of the records warm_start fed to the model

    def for_task(self, mod, target=None):
        """The view for the task whose module (IRModule with "main") is ``mod``, measured
        on ``target``: its group is (workload hash, target string), as in ``warm_start``."""
        return TaskCostModel(self, _group(_module_hash(mod), target))

    def warm_start(self, database, target=None, log=None):
        """Adds every record of ``database`` (each trace replayed on its workload, as it was
        measured, postprocessing included; failed ones as failures) to the model and fits it
        once. Records whose trace no longer replays, or measured for a GPU target when
        ``target`` (if given) is a CPU or the reverse, are skipped. ``log(msg)`` gets one
        line when something was learnt. Returns the number of records used."""
        if database is None or not _supports_groups(self.model):
            return 0
        feats, lats, groups = [], [], []
        kind = None if target is None else _kind(target)
        for rec in database.latest_records():  # a re-measured trace once, by its confirmed time
            if kind is not None and rec.target is not None and _kind(rec.target) != kind:
                continue
            replayed = self.replays.get(rec)
            if replayed is None:
                continue
            self.learnt_ids.add(id(rec))
            feats.append(replayed.features)
            lats.append(rec.mean_run_sec if rec.is_valid else None)
            groups.append(_group(rec.workload.shash, rec.target))
        for f, t, g in zip(feats, lats, groups):
            self.model.add([f], [t], g)
        self.model.fit()
        n_workloads = len({g[0] for g in groups})
        self.warm_records += len(feats)
        self.warm_workloads += n_workloads
        if feats and log is not None:
            valid = int(np.sum([t is not None for t in lats]))
            log(f"cost model warm-started on {len(feats)} records ({valid} valid) of {n_workloads} "
                f"workloads in the database; trained: {getattr(self.model, 'trained', True)}")
        return len(feats)


def shared_cost_model(cost_model, seed, database, target, who, log=None, make=None):
    """The SharedCostModel of a tuning run: ``cost_model`` is "xgb", "random", a CostModel
    (shared as given) or a SharedCostModel; warm-started from ``database``. ``make``: the
    function making a CostModel of a name (tune.make_cost_model)."""
    if make is None:
        from .tune import make_cost_model as make  # pylint: disable=import-outside-toplevel
    if not isinstance(cost_model, SharedCostModel):
        cost_model = SharedCostModel(make(cost_model, seed, who))
    cost_model.warm_start(database, target, log)
    return cost_model


__all__ = ["ReplayCache", "Replayed", "SharedCostModel", "TaskCostModel", "shared_cost_model"]
