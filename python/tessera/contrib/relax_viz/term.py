"""TermPlotter: a VizGraph as text for a terminal, one line per node in
definition order (``%id = op(inputs)  shape dtype``), fused functions as
indented groups, and with kernel times a time column and a bar."""
from .timing import per_call, slowest_in, time_text, total_of

_BAR = 20


class TermPlotter:
    """``render(filename=None)`` returns the text; prints it when no
    ``filename`` is given, else writes it there."""

    def __init__(self):
        self._graphs = []

    def add(self, graph, times):
        self._graphs.append((graph, times))

    @staticmethod
    def _lines(graph, times):
        slowest = slowest_in(graph, times)
        total = total_of(times)

        def timing(kernel):
            if kernel not in times:
                return ""
            bar = "#" * max(1, round(_BAR * per_call(times, kernel) / slowest))
            return f"  {time_text(times, kernel, total)} {bar}"

        names = {}
        lines = [f"fn {graph.name}"]
        current = None
        incoming = {}
        for edge in graph.edges:
            incoming.setdefault(edge.dst, []).append(edge.src)
        for node in graph.nodes:
            if node.cluster != current:
                current = node.cluster
                if current is not None:
                    kernel = graph.cluster_kernel[current]
                    lines.append(f"  [{kernel}]{timing(kernel)}")
            indent = "    " if node.cluster else "  "
            names[node.id] = node.label if node.kind == "input" else f"%{node.id[1:]}"
            args = [names.get(s, s) for s in incoming.get(node.id, [])] + [f"+{c.split(' ')[0]}"
                                                                          for c in node.collapsed]
            if node.kind == "input":
                lines.append(f"{indent}input {node.label}: {node.detail}")
            elif node.kind == "output":
                lines.append(f"{indent}output {', '.join(args)}: {node.detail}")
            else:
                lines.append(f"{indent}{names[node.id]} = {node.label}({', '.join(args)}): {node.detail}"
                             f"{timing(node.kernel)}")
        return lines

    def text(self):
        return "\n".join(line for graph, times in self._graphs for line in self._lines(graph, times))

    def render(self, filename=None):
        text = self.text()
        if filename is None:
            print(text)
        else:
            with open(filename, "w", encoding="utf-8") as f:
                f.write(text + "\n")
        return text


__all__ = ["TermPlotter"]
