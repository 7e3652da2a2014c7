"""The Relax graph rewrites return a new module and leave their input as it
was: its text, and the signatures (struct info) its GlobalVars carry.
RemoveUnusedParameters, RemoveUnusedOutputs and ExpandTupleArguments used to
update the input module's GlobalVar of the function they rewrote."""
import pytest

import tessera as tvm
from tessera import relax

SOURCE = '''
@I.ir_module
class Mod:
    @R.function
    def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")):
        cls = Mod
        t = (a, b)
        r = cls.pair(t)
        s = r[0]
        u = cls.unused_param(s, b)
        with R.dataflow():
            v = R.exp(u)
            w = R.exp(u)
            x = v
            y = R.add(w, x)
            R.output(y)
        return y

    @R.function(private=True)
    def pair(t: R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32"))) -> R.Tuple(
        R.Tensor((4,), "float32"), R.Tensor((4,), "float32")
    ):
        p = t[0]
        q = t[1]
        return (p, q)

    @R.function(private=True)
    def unused_param(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        c = R.exp(a)
        return c
'''

PASSES = ["RemoveUnusedParameters", "RemoveUnusedOutputs", "ExpandTupleArguments", "EliminateCommonSubexpr",
          "CanonicalizeBindings", "FoldConstant", "ConvertToDataflow", "LambdaLift", "DeadCodeElimination"]


def _signatures(mod):
    out = {}
    for gv in mod.get_global_vars():
        try:
            out[gv.name_hint] = str(gv.struct_info)
        except ValueError:  # a GlobalVar the parser left without struct info
            out[gv.name_hint] = None
    return out


@pytest.mark.parametrize("name", PASSES)
def test_pass_leaves_its_input_module_unchanged(name):
    mod = tvm.script.from_source(SOURCE)
    text, signatures = mod.script(), _signatures(mod)
    after = getattr(relax.transform, name)()(mod)
    assert mod.script() == text
    # (A GlobalVar the parser left without struct info may get it filled in.)
    after_signatures = _signatures(mod)
    assert {k: v for k, v in after_signatures.items() if signatures[k] is not None} == \
        {k: v for k, v in signatures.items() if v is not None}
    assert relax.analysis.well_formed(after)
