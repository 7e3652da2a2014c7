"""``relax.transform.ConvertLayout(desired_layouts)`` (TVM v0.18's API): rewrites the
convolution, pooling and resize2d calls named in ``desired_layouts`` ({op name: [data layout, kernel
layout]}, "default" keeping the call's own) to those layouts and carries the new layout
through the layout-agnostic ops after them (elementwise unary/binary with broadcasting,
reductions, softmax, batch/layer norm, concat, split, permute_dims, expand_dims, squeeze,
strided_slice, pooling, resize2d), so consecutive convolutions need no transposes between them;
``permute_dims`` is inserted where a value enters or leaves the converted region (a block
output, an op without a layout rule). A function pass over the dataflow blocks; a tensor's
layout is tracked as a permutation of its original axes ("ABCD" = unchanged, "ACDB" = NCHW
held as NHWC). Only axis permutations: a packed desired layout (NCHW16c) is refused."""
from ...error import TVMTypeError, TVMValueError
from ...ir.op import Op
from ..expr import (Call, Constant, DataflowBlock, DataflowVar, Function, MatchCast, SeqExpr, Tuple, TupleGetItem, Var,
                    VarBinding)
from ..struct_info import TensorStructInfo, TupleStructInfo
from .function_pass import function_pass

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_CONV_OPS = ("relax.nn.conv1d", "relax.nn.conv2d", "relax.nn.conv3d", "relax.nn.conv1d_transpose",
             "relax.nn.conv2d_transpose")
_POOL_OPS = ("relax.nn.max_pool2d", "relax.nn.avg_pool2d", "relax.nn.adaptive_avg_pool2d", "relax.image.resize2d")
_UNARY_OPS = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "erf", "exp", "floor",
              "log", "negative", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "square", "tan", "tanh",
              "clip", "astype", "logical_not", "bitwise_not", "isfinite", "isinf", "isnan", "nn.relu", "nn.gelu",
              "nn.gelu_tanh", "nn.silu", "nn.leakyrelu", "nn.relu6")
_BINARY_OPS = ("add", "subtract", "multiply", "divide", "floor_divide", "power", "mod", "floor_mod", "maximum",
               "minimum", "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and",
               "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor")
_REDUCE_OPS = ("sum", "mean", "max", "min", "prod", "variance", "std")


def _initial(ndim):
    return _LETTERS[:ndim]


def _initial_of(sinfo):
    """The unchanged layout of a value of struct info ``sinfo``: a string for a tensor of known
    rank, a tuple for a tuple, None otherwise (never converted)."""
    if isinstance(sinfo, TensorStructInfo):
        return None if sinfo.ndim < 0 else _initial(sinfo.ndim)
    if isinstance(sinfo, TupleStructInfo):
        return tuple(_initial_of(f) for f in sinfo.fields)
    return None


def _axis_to(layout, axis):
    """The position, in a tensor held in ``layout``, of its original axis ``axis``."""
    return layout.index(_LETTERS[axis % len(layout)])


def _relabel(letters, kept):
    """``letters`` (original axes of an input) as the axes of an output whose original axes
    are ``kept`` (input axes, in order)."""
    return "".join(_LETTERS[kept.index(c)] for c in letters)


def _layout_in(op_name, attr, original, desired):
    """``desired`` (e.g. NHWC) as a permutation of the axes of a tensor in ``original`` (NCHW)."""
    if not isinstance(desired, str) or not desired.isalpha() or not desired.isupper() or \
            sorted(desired) != sorted(original):
        raise TVMValueError(f"ConvertLayout: {op_name}: desired {attr} {desired!r} is not a permutation of the "
                            f"call's {attr} {original!r} (only axis permutations are supported)")
    return "".join(_LETTERS[original.index(c)] for c in desired)


def _follow(layout, ndim):
    """A lower-rank operand's layout broadcast to ``ndim`` dims (leading new axes unchanged)."""
    if len(layout) == ndim:
        return layout
    shift = ndim - len(layout)
    return _initial(shift) + "".join(chr(ord(c) + shift) for c in layout)


class _Rules:
    """Per-op layout rules: ``rule(call, layouts, attrs) -> (input layouts, output layout, new attrs)``
    or None for the default (every operand in its original layout). ``layouts`` are the operands'
    current layouts; an input layout None leaves that operand alone."""

    def __init__(self, desired):
        self.desired = desired

    def find(self, name):
        short = name[len("relax."):] if name.startswith("relax.") else name
        if name in _CONV_OPS:
            return self.conv
        if name in _POOL_OPS:
            return self.pool
        if short in _UNARY_OPS:
            return self.unary
        if short in _BINARY_OPS:
            return self.binary
        if short in _REDUCE_OPS:
            return self.reduce
        return {"relax.permute_dims": self.permute_dims, "relax.concat": self.concat, "relax.split": self.split,
                "relax.expand_dims": self.expand_dims, "relax.squeeze": self.squeeze,
                "relax.strided_slice": self.strided_slice, "relax.nn.softmax": self.softmax,
                "relax.nn.log_softmax": self.softmax, "relax.nn.batch_norm": self.batch_norm,
                "relax.nn.layer_norm": self.layer_norm}.get(name)

    def conv(self, call, layouts, a):
        want = self.desired.get(call.op.name)
        if want is None:
            return None
        name = call.op.name
        data, kernel = (list(want) + ["default"])[:2]
        data = a["data_layout"] if data == "default" else data
        kernel = a["kernel_layout"] if kernel == "default" else kernel
        out = a["out_layout"] or a["data_layout"]
        ins = [_layout_in(name, "data_layout", a["data_layout"], data),
               _layout_in(name, "kernel_layout", a["kernel_layout"], kernel)]
        a.update(data_layout=data, kernel_layout=kernel, out_layout=data)
        return ins, _layout_in(name, "out_layout", out, data), a

    def pool(self, call, layouts, a):
        want = self.desired.get(call.op.name)
        cur = layouts[0]
        orig, out = a["layout"], a.get("out_layout") or a["layout"]
        if want is not None and want[0] != "default":
            cur = _layout_in(call.op.name, "layout", orig, want[0])
        if len(cur) != len(orig) or not orig.isalpha():
            return None
        a["layout"] = "".join(orig[_LETTERS.index(c)] for c in cur)
        if "out_layout" in a:
            a["out_layout"] = "".join(out[_LETTERS.index(c)] for c in cur)
        return [cur] + [None] * (len(layouts) - 1), cur, a

    @staticmethod
    def unary(call, layouts, a):
        return [layouts[0]] + [None] * (len(layouts) - 1), layouts[0], a

    @staticmethod
    def binary(call, layouts, a):
        l1, l2 = layouts
        if not isinstance(l1, str) or not isinstance(l2, str):
            return None
        if len(l1) == 0:
            return [None, l2], l2, a
        if len(l2) == 0:
            return [l1, None], l1, a
        if len(l1) <= len(l2):
            out = _follow(l1, len(l2))
            return [l1, out], out, a
        out = _follow(l2, len(l1))
        return [out, l2], out, a

    @staticmethod
    def reduce(call, layouts, a):
        cur = layouts[0]
        if a.get("axis") is None:
            return None
        axes = [a["axis"]] if isinstance(a["axis"], int) else list(a["axis"])
        new = [_axis_to(cur, x) for x in axes]
        a["axis"] = new if not isinstance(a["axis"], int) else new[0]
        if a.get("keepdims"):
            return [cur], cur, a
        dropped = {_LETTERS[x % len(cur)] for x in axes}
        kept = [c for c in _initial(len(cur)) if c not in dropped]
        return [cur], _relabel([c for c in cur if c not in dropped], kept), a

    @staticmethod
    def permute_dims(call, layouts, a):
        cur = layouts[0]
        axes = a.get("axes")
        axes = list(range(len(cur)))[::-1] if axes is None else [x % len(cur) for x in axes]
        a["axes"] = [_axis_to(cur, x) for x in axes]
        return [cur], _initial(len(cur)), a

    @staticmethod
    def concat(call, layouts, a):
        fields = layouts[0]
        if not isinstance(fields, tuple) or not fields or not all(isinstance(f, str) for f in fields):
            return None
        cur = fields[0]
        if any(len(f) != len(cur) for f in fields) or a.get("axis") is None:
            return None
        a["axis"] = _axis_to(cur, a["axis"])
        return [tuple(cur for _ in fields)], cur, a

    @staticmethod
    def split(call, layouts, a):
        cur = layouts[0]
        a["axis"] = _axis_to(cur, a["axis"])
        n = len(call.struct_info.fields)
        return [cur], tuple(cur for _ in range(n)), a

    @staticmethod
    def expand_dims(call, layouts, a):
        cur = layouts[0]
        ndim = len(cur) + len(a["axis"])
        new_pos = sorted(x % ndim for x in a["axis"])
        old_pos = [i for i in range(ndim) if i not in new_pos]
        as_out = {_LETTERS[i]: _LETTERS[p] for i, p in enumerate(old_pos)}  # input axis -> output axis
        out = list(_initial(ndim))
        for p, c in zip(old_pos, cur):
            out[p] = as_out[c]
        return [cur], "".join(out), a

    @staticmethod
    def squeeze(call, layouts, a):
        cur = layouts[0]
        if a.get("axis") is None:
            return None
        axes = [x % len(cur) for x in a["axis"]]
        a["axis"] = [_axis_to(cur, x) for x in axes]
        dropped = {_LETTERS[x] for x in axes}
        kept = [c for c in _initial(len(cur)) if c not in dropped]
        return [cur], _relabel([c for c in cur if c not in dropped], kept), a

    @staticmethod
    def strided_slice(call, layouts, a):
        cur = layouts[0]
        a["axes"] = [_axis_to(cur, x) for x in a["axes"]]
        return [cur] + [None] * (len(layouts) - 1), cur, a

    @staticmethod
    def softmax(call, layouts, a):
        cur = layouts[0]
        a["axis"] = _axis_to(cur, a["axis"])
        return [cur], cur, a

    @staticmethod
    def batch_norm(call, layouts, a):
        cur = layouts[0]
        a["axis"] = _axis_to(cur, a["axis"])
        rest = tuple(_initial_of(f) for f in call.struct_info.fields[1:])
        return [cur] + [None] * (len(layouts) - 1), (cur,) + rest, a

    @staticmethod
    def layer_norm(call, layouts, a):
        cur = layouts[0]
        a["axes"] = [_axis_to(cur, x) for x in a["axes"]]
        return [cur] + [None] * (len(layouts) - 1), cur, a


class _BlockConverter:
    """Rewrites one dataflow block into ``bb`` (ConvertLayout's forward pass)."""

    def __init__(self, bb, rules):
        self.bb = bb
        self.rules = rules
        self.layout = {}  # var -> its current layout
        self.remap = {}  # old dataflow var -> its rewritten replacement

    def layout_of(self, expr):
        if isinstance(expr, Var) and expr in self.layout:
            return self.layout[expr]
        if isinstance(expr, Tuple):
            return tuple(self.layout_of(f) for f in expr.fields)
        return _initial_of(expr.struct_info)

    def sub(self, expr):
        if isinstance(expr, Var):
            return self.remap.get(expr, expr)
        if isinstance(expr, Tuple):
            return Tuple([self.sub(f) for f in expr.fields])
        return expr

    def convert(self, expr, frm, to, emit=True):
        """``expr`` (held in layout ``frm``) in layout ``to``: permute_dims bindings emitted as needed
        (the outermost one only when ``emit``)."""
        if to is None or frm is None or frm == to:
            return expr
        if isinstance(to, tuple):
            if isinstance(expr, Tuple):
                return Tuple([self.convert(f, fl, tl) for f, fl, tl in zip(expr.fields, frm, to)])
            return Tuple([self.convert(self.bb.emit(TupleGetItem(expr, i)), fl, tl)
                          for i, (fl, tl) in enumerate(zip(frm, to))])
        from ..op import permute_dims  # pylint: disable=import-outside-toplevel
        call = permute_dims(expr, [frm.index(c) for c in to])
        return self.bb.emit(call) if emit else call

    def to_initial(self, expr):
        expr_new = self.sub(expr)
        return self.convert(expr_new, self.layout_of(expr), _initial_of(expr.struct_info))

    def visit(self, binding):
        var = binding.var
        if isinstance(binding, MatchCast):
            return self.match_cast(binding)
        value = binding.value
        out_layout = _initial_of(var.struct_info)
        if isinstance(value, Call) and isinstance(value.op, Op):
            result = self.call(value)
            if result is not None:
                new_value, out_layout = result
                return self.emit(var, new_value, out_layout)
            value = Call(value.op, [self.to_initial(x) for x in value.args], value.attrs, value.sinfo_args)
        elif isinstance(value, Call):
            value = Call(value.op, [self.to_initial(x) for x in value.args], value.attrs, value.sinfo_args)
        elif isinstance(value, Tuple) and isinstance(var, DataflowVar):
            fields = [self.sub(f) for f in value.fields]
            return self.emit(var, Tuple(fields), tuple(self.layout_of(f) for f in value.fields))
        elif isinstance(value, Tuple):
            value = Tuple([self.to_initial(f) for f in value.fields])
        elif isinstance(value, TupleGetItem) and isinstance(var, DataflowVar):
            tup = value.tuple_value
            lay = self.layout_of(tup)
            item = lay[value.index] if isinstance(lay, tuple) else None
            return self.emit(var, TupleGetItem(self.sub(tup), value.index), item or out_layout)
        elif isinstance(value, TupleGetItem):
            value = TupleGetItem(self.to_initial(value.tuple_value), value.index)
        elif isinstance(value, Var):
            value = self.to_initial(value)
        return self.emit(var, value, out_layout)

    def call(self, call):
        """(new call, its layout) by the op's rule, or None (default policy)."""
        from ..op._op_attrs import call_attrs, make_attrs  # pylint: disable=import-outside-toplevel
        rule = self.rules.find(call.op.name)
        if rule is None:
            return None
        layouts = [self.layout_of(x) for x in call.args]
        if any(l is None and isinstance(x.struct_info, TensorStructInfo) for x, l in zip(call.args, layouts)):
            return None  # a tensor of unknown rank
        first = layouts[0]
        if first is None or (isinstance(first, str) and rule != self.rules.binary and len(first) == 0):
            return None
        res = rule(call, layouts, {} if call.attrs is None else call_attrs(call))
        if res is None:
            return None
        ins, out, attrs = res
        args = []
        for x, lay, want in zip(call.args, layouts, ins + [None] * (len(layouts) - len(ins))):
            args.append(self.convert(self.sub(x), lay, want if want is not None else lay))
        attrs = None if call.attrs is None else make_attrs(call.op.name, **{k: v for k, v in attrs.items()
                                                                             if v is not None})
        return self.bb.normalize(Call(call.op, args, attrs, call.sinfo_args)), out

    def emit(self, var, value, layout):
        bb = self.bb
        if isinstance(var, DataflowVar):
            new = bb.emit(value, var.name_hint)
            self.remap[var] = new
            self.layout[new] = layout
            self.layout[var] = layout
            return
        initial = _initial_of(var.struct_info)
        value = bb.normalize(value)
        if layout is not None and layout != initial:
            tmp = bb.emit(value)
            value = bb.normalize(self.convert(tmp, layout, initial, emit=False))
        bb.emit_normalized(VarBinding(var, value))
        self.layout[var] = initial

    def match_cast(self, binding):
        var, value = binding.var, binding.value
        lay = self.layout_of(value)
        init = _initial_of(value.struct_info)
        sinfo = binding.struct_info
        if not isinstance(var, DataflowVar) or not isinstance(lay, str) or lay == init or \
                not isinstance(sinfo, TensorStructInfo) or sinfo.shape is None:
            new_value = self.to_initial(value)
            self.bb.emit_normalized(MatchCast(var, new_value, sinfo))
            self.layout[var] = _initial_of(var.struct_info)
            return
        dims = list(sinfo.shape.values)
        new_sinfo = TensorStructInfo([dims[_LETTERS.index(c)] for c in lay], sinfo.dtype)
        new = self.bb.match_cast(self.sub(value), new_sinfo, var.name_hint)
        self.remap[var] = new
        self.layout[new] = lay
        self.layout[var] = lay


def _check_desired(desired_layouts):
    if not hasattr(desired_layouts, "items"):
        raise TVMTypeError(f"ConvertLayout: desired_layouts must be a dict of op name -> list of layouts, got "
                           f"{type(desired_layouts).__name__}")
    out = {}
    for name, layouts in desired_layouts.items():
        name = str(name)
        try:
            Op.get(name)
        except Exception as err:  # pylint: disable=broad-except
            raise TVMValueError(f"ConvertLayout: unknown op {name!r} in desired_layouts") from err
        if name not in _CONV_OPS + _POOL_OPS:
            raise TVMValueError(f"ConvertLayout: op {name!r} has no desired-layout rule (supported: "
                                f"{', '.join(_CONV_OPS + _POOL_OPS)})")
        if isinstance(layouts, str) or not hasattr(layouts, "__iter__"):
            raise TVMTypeError(f"ConvertLayout: the layouts of {name!r} must be a list of strings, got {layouts!r}")
        layouts = [str(x) for x in layouts]
        if not layouts or len(layouts) > 2:
            raise TVMValueError(f"ConvertLayout: {name!r} takes [data layout] or [data layout, kernel layout], "
                                f"got {layouts!r}")
        for lay in layouts:
            if lay != "default" and not (lay.isalpha() and lay.isupper() and len(set(lay)) == len(lay)):
                raise TVMValueError(f"ConvertLayout: {name!r}: layout {lay!r} is not a permutation of axis "
                                    f"letters such as NHWC (packed layouts are not supported)")
        out[name] = layouts
    return out


def _convert_function(func, rules):
    from ..block_builder import BlockBuilder  # pylint: disable=import-outside-toplevel
    body = func.body
    if not isinstance(body, SeqExpr) or not any(isinstance(b, DataflowBlock) for b in body.blocks):
        return func
    bb = BlockBuilder()
    bb.begin_scope(list(func.params))
    blocks = []
    for block in body.blocks:
        if not isinstance(block, DataflowBlock):
            blocks.append(block)
            continue
        bb._begin_dataflow_block()  # pylint: disable=protected-access
        conv = _BlockConverter(bb, rules)
        for binding in block.bindings:
            conv.visit(binding)
        blocks.append(bb._end_block())  # pylint: disable=protected-access
    bb.end_scope()
    return Function(func.params, SeqExpr(blocks, body.body), func.ret_struct_info, func.is_pure, func.attrs)


def ConvertLayout(desired_layouts):  # pylint: disable=invalid-name
    """The pass: ``desired_layouts`` maps an op name (relax.nn.conv1d/2d/3d, conv*_transpose,
    max_pool2d, avg_pool2d, adaptive_avg_pool2d, relax.image.resize2d) to [data layout, kernel
    layout] ("default": keep the call's)."""
    rules = _Rules(_check_desired(desired_layouts))

    @function_pass(opt_level=0, name="ConvertLayout")
    def transform(func, mod, ctx):  # pylint: disable=unused-argument
        if not isinstance(func, Function):
            return func
        return _convert_function(func, rules)

    return transform


__all__ = ["ConvertLayout"]
