"""`tvm.meta_schedule` — not implemented yet in Tessera (see the open issues).

The package exists so that `from tessera import meta_schedule` works in code that also
uses the parts that are delivered; any attribute access raises
NotImplementedError naming what is missing.
"""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(f"tessera.meta_schedule.{name} is not implemented yet")
