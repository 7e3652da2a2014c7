"""``tvm.relax.analysis``: analyses of Relax IR."""
from .analysis import well_formed, well_formed_errors, struct_info_base_check, struct_info_lca, get_var2val
from .unused import remove_all_unused
from .memory_usage import estimate_memory_usage
