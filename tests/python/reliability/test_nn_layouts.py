"""Bad layouts of the Relax nn ops and of relax.transform.ConvertLayout: unknown, repeated,
missing or packed-without-factor axis letters, a layout whose rank differs from the tensor's,
channels that disagree once the layouts are read, a packed extent that does not divide, and
ConvertLayout given an unknown op, an op without a layout rule or a bad layout string: each is
a ValueError/TypeError naming the op and attribute, never a crash (run in the subprocess
harness). The numbers of valid layouts are checked against PyTorch in
tests/python/relax/test_relax_op_nn_layout.py and test_relax_transform_convert_layout.py."""
from .harness import run_case

_CHECK = """
import tessera as tvm
from tessera import relax
nn = relax.op.nn
def var(shape):
    return relax.Var("v", relax.TensorStructInfo(shape, "float32"))
def infer(call):
    return relax.BlockBuilder().normalize(call).struct_info
def expect(kind, match, thunk):
    try:
        thunk()
    except kind as e:
        assert match in str(e), (match, str(e))
        assert isinstance(e, tvm.error.TVMError), type(e).__mro__
        return
    raise AssertionError("no error: " + match)
"""


def _run(body):
    res = run_case(_CHECK + body + "\nprint('ALL-OK')\n", timeout=120)
    assert not res.crashed and res.returncode == 0 and "ALL-OK" in res.stdout, res.describe()


def test_bad_op_layouts_are_value_errors():
    _run("""
x, w = var((1, 8, 8, 3)), var((3, 3, 3, 4))
expect(ValueError, "relax.nn.conv2d: attribute 'data_layout' = \\"NHWQ\\" is not a layout of NCHW (unknown axis 'Q'",
       lambda: infer(nn.conv2d(x, w, data_layout="NHWQ", kernel_layout="HWIO")))
expect(ValueError, "attribute 'kernel_layout' = \\"HHIO\\" is not a layout of OIHW (axis 'H' repeated",
       lambda: infer(nn.conv2d(x, w, data_layout="NHWC", kernel_layout="HHIO")))
expect(ValueError, "attribute 'out_layout' = \\"NHW\\" is not a layout of NCHW (axis 'C' missing",
       lambda: infer(nn.conv2d(x, w, data_layout="NHWC", kernel_layout="HWIO", out_layout="NHW")))
expect(ValueError, "attribute 'data_layout' = \\"NCHWc\\" is not a layout of NCHW (sub-axis c has no factor",
       lambda: infer(nn.conv2d(var((1, 1, 8, 8, 3)), w, data_layout="NCHWc")))
expect(ValueError, "attribute 'data_layout' = \\"NCHW0c\\"",
       lambda: infer(nn.conv2d(var((1, 1, 8, 8, 3)), w, data_layout="NCHW0c")))
expect(ValueError, "attribute 'data_layout' = \\"NCHW99999999999c\\"",
       lambda: infer(nn.conv2d(var((1, 1, 8, 8, 3)), w, data_layout="NCHW99999999999c")))
expect(ValueError, "operand 'data' must be 5-D (NCHW4c), got 4 dimensions",
       lambda: infer(nn.conv2d(x, w, data_layout="NCHW4c", kernel_layout="HWIO")))
# NHWC data with an OIHW-read weight: 3 channels against 3 input channels of (3, 3, 3, 4) read as OIHW -> I = 3,
# but O = 3: fine; a weight whose I disagrees once read as HWIO:
expect(ValueError, "operand 'weight' has 5 input channels per group",
       lambda: infer(nn.conv2d(x, var((3, 3, 5, 4)), data_layout="NHWC", kernel_layout="HWIO")))
expect(ValueError, "attribute 'out_layout' = \\"NCHW3c\\" packs axis C by 3, but its extent 4",
       lambda: infer(nn.conv2d(x, w, data_layout="NHWC", kernel_layout="HWIO", out_layout="NCHW3c")))
expect(ValueError, "relax.nn.max_pool2d: attribute 'layout' = \\"NHWD\\"",
       lambda: infer(nn.max_pool2d(x, 2, layout="NHWD")))
expect(ValueError, "relax.nn.adaptive_avg_pool2d: operand 'data' must be 5-D (NCHW4c)",
       lambda: infer(nn.adaptive_avg_pool2d(x, 1, layout="NCHW4c")))
expect(ValueError, "relax.nn.conv3d: attribute 'kernel_layout' = \\"OIHW\\" is not a layout of OIDHW",
       lambda: infer(nn.conv3d(var((1, 3, 4, 4, 4)), var((2, 3, 1, 1, 1)), kernel_layout="OIHW")))
""")


def test_bad_convert_layout_arguments():
    _run("""
from tessera.relax.transform import ConvertLayout
expect(ValueError, "ConvertLayout: unknown op 'relax.nn.conv9d'", lambda: ConvertLayout({"relax.nn.conv9d": ["NHWC"]}))
expect(ValueError, "op 'relax.add' has no desired-layout rule", lambda: ConvertLayout({"relax.add": ["NHWC"]}))
expect(ValueError, "layout 'NHWc' is not a permutation", lambda: ConvertLayout({"relax.nn.conv2d": ["NHWc", "OHWI"]}))
expect(ValueError, "layout 'NCHW4c' is not a permutation", lambda: ConvertLayout({"relax.nn.conv2d": ["NCHW4c"]}))
expect(ValueError, "takes [data layout] or [data layout, kernel layout]",
       lambda: ConvertLayout({"relax.nn.conv2d": ["NHWC", "OHWI", "NHWC"]}))
expect(TypeError, "must be a list of strings", lambda: ConvertLayout({"relax.nn.conv2d": "NHWC"}))
expect(TypeError, "desired_layouts must be a dict", lambda: ConvertLayout(["relax.nn.conv2d"]))
# a well-formed layout whose letters are not the call's: named at the rewrite
bb = relax.BlockBuilder()
x, w = var((1, 3, 8, 8)), var((4, 3, 3, 3))
with bb.function("main", [x, w]):
    with bb.dataflow():
        out = bb.emit_output(nn.conv2d(x, w))
    bb.emit_func_output(out)
expect(ValueError, "relax.nn.conv2d: desired data_layout 'NDHWC' is not a permutation of the call's data_layout 'NCHW'",
       lambda: ConvertLayout({"relax.nn.conv2d": ["NDHWC", "OIHW"]})(bb.get()))
expect(ValueError, "desired kernel_layout 'HWIN'",
       lambda: ConvertLayout({"relax.nn.conv2d": ["NHWC", "HWIN"]})(bb.get()))
""")
