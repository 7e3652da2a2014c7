"""``tvm.ir.GlobalInfo`` / ``tvm.ir.DummyGlobalInfo``: module-level global
infos as Python values. Tessera's IRModule does not store global infos yet
(``I.module_global_infos`` and ``IRModule.update_global_info`` are not
implemented); the values exist so code naming them imports and compares
them (every DummyGlobalInfo equals every other, as TVM's structural
equality of the fieldless node)."""


class GlobalInfo:
    """Base of module-level global infos."""

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return hash(type(self).__name__)


class DummyGlobalInfo(GlobalInfo):
    """A global info with no fields (TVM uses it in tests)."""

    def __repr__(self):
        return "DummyGlobalInfo()"


__all__ = ["GlobalInfo", "DummyGlobalInfo"]
