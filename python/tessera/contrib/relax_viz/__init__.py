"""``tvm.contrib.relax_viz``: pictures of Relax models. ``RelaxVisualizer(mod,
relax_param=params, plotter=DotPlotter(format="png"))`` parses each Relax
function (graph.py) and draws it with Graphviz (dot.py) or as terminal text
(term.py); given a ``vm.profile`` report it draws the fused graph whose
kernels are coloured by time (timing.py). ``relay_viz`` gives TVM's names."""
from ...error import TVMTypeError
from ...ir.module import IRModule
from .dot import DotPlotter
from .graph import VizEdge, VizGraph, VizNode, VizParser
from .term import TermPlotter
from .timing import kernel_times

DotVizParser = VizParser  # one parser serves both plotters
TermVizParser = VizParser


def fuse_for_display(mod, params=None):
    """``mod`` as relax.build sees it before lowering: ``params`` bound,
    legalized, constants folded and fused (FuseOps), so that each fused
    function and call_tir bears the name of the kernel vm.profile reports."""
    from ...ir.transform import Sequential  # pylint: disable=import-outside-toplevel
    from ...relax.transform import BindParams, LegalizeOps  # pylint: disable=import-outside-toplevel
    from ...relax.transform.fusion import AnnotateTIROpPattern, FuseOps  # pylint: disable=import-outside-toplevel
    from ...relax.transform.optimization import FoldConstant  # pylint: disable=import-outside-toplevel

    if params:
        names = {p.name_hint for p in mod["main"].params}
        mod = BindParams("main", {k: v for k, v in params.items() if k in names})(mod)
    return Sequential([LegalizeOps(), AnnotateTIROpPattern(), FoldConstant(), FuseOps()])(mod)


class RelaxVisualizer:
    """Draws the Relax functions of ``mod`` (those not made by fusion) with
    ``plotter`` (default TermPlotter); parameters named in ``relax_param`` are
    collapsed into the ops that read them. ``profile`` (a vm.profile report of
    the built model) colours each kernel by its time; ``fuse`` (default: when a
    profile is given) draws the fused graph."""

    def __init__(self, mod, relax_param=None, plotter=None, parser=None, *, profile=None, fuse=None):
        from ... import relax  # pylint: disable=import-outside-toplevel

        if isinstance(mod, relax.Function):
            mod = IRModule.from_expr(mod)
        if not isinstance(mod, IRModule):
            raise TVMTypeError(f"RelaxVisualizer expects an IRModule or relax.Function, got {type(mod).__name__}")
        if relax_param is not None and not isinstance(relax_param, dict):
            raise TVMTypeError(f"relax_param must be a dict of name -> array, got {type(relax_param).__name__}")
        times = kernel_times(profile)
        if fuse if fuse is not None else profile is not None:
            mod = fuse_for_display(mod, relax_param)
        self.plotter = plotter if plotter is not None else TermPlotter()
        parser = parser if parser is not None else VizParser()
        weights = set(relax_param or ())
        for gv, func in mod.functions_items():
            if isinstance(func, relax.Function) and "Primitive" not in func.attrs:
                self.plotter.add(parser.parse(mod, gv.name_hint, weights), times)

    def render(self, filename=None):
        """What the plotter's render returns (the file written, or the text)."""
        return self.plotter.render(filename)


__all__ = ["RelaxVisualizer", "DotPlotter", "TermPlotter", "VizParser", "DotVizParser", "TermVizParser",
           "VizGraph", "VizNode", "VizEdge", "fuse_for_display"]
