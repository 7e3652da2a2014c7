"""``tvm.contrib.relay_viz``: TVM's names for the model pictures of
relax_viz -- ``RelayVisualizer(mod, relay_param=params, plotter=DotPlotter(),
parser=DotVizParser())`` and ``render('1')`` writing 1.pdf -- for Relax
modules (Tessera has no Relay IR)."""
from .relax_viz import (DotPlotter, DotVizParser, RelaxVisualizer, TermPlotter, TermVizParser, VizEdge, VizGraph,
                        VizNode, VizParser)


class RelayVisualizer(RelaxVisualizer):
    """``RelayVisualizer(relay_mod, relay_param=None, plotter=None, parser=None)``."""

    def __init__(self, relay_mod, relay_param=None, plotter=None, parser=None, **kwargs):
        super().__init__(relay_mod, relax_param=relay_param, plotter=plotter, parser=parser, **kwargs)


__all__ = ["RelayVisualizer", "DotPlotter", "DotVizParser", "TermPlotter", "TermVizParser", "VizParser",
           "VizGraph", "VizNode", "VizEdge"]
