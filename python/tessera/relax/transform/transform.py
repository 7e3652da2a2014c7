"""``tvm.relax.transform.transform``: the module TVM defines its Relax passes
in, which TVM's own tests import from; here every public name of
``tvm.relax.transform`` (one set of passes, two module paths)."""
from .. import transform as _package

globals().update({_k: getattr(_package, _k) for _k in dir(_package) if not _k.startswith("_")})
