"""Bad wall-clock budgets (max_time_s) of tune_tir / tune_relax are refused up front,
naming the parameter, before any task is prepared or measured."""
import math

import pytest

import tessera as tvm
from tessera import meta_schedule as ms

from ms_helpers import matmul_module


@pytest.mark.parametrize("value, exc", [(0, ValueError), (-1.5, ValueError), (math.nan, ValueError),
                                        ("10", TypeError), (True, TypeError)])
def test_bad_max_time_is_refused(tmp_path, value, exc):
    with pytest.raises(exc, match="max_time_s") as info:
        ms.tune_tir(matmul_module(16), "llvm --num-cores=1", str(tmp_path), 4, max_time_s=value)
    assert isinstance(info.value, tvm.error.TVMError)
    assert not any(p.name.endswith(".json") for p in tmp_path.iterdir())
    with pytest.raises(exc, match="max_time_s"):
        ms.relax_integration.tune_relax(tvm.IRModule(), None, "llvm --num-cores=1", str(tmp_path), 4,
                                        max_time_s=value)
