"""``tvm.relax.analysis``: analyses of Relax IR."""
from .analysis import well_formed, well_formed_errors, struct_info_base_check, struct_info_lca
from .unused import remove_all_unused
from .struct_info_vars import (get_static_type, tir_vars_in_struct_info, definable_tir_vars_in_struct_info,
                               erase_to_well_defined, BaseCheckResult, collect_non_negative_expressions,
                               defined_symbolic_vars, free_symbolic_vars)
from .memory_usage import estimate_memory_usage
from .vars import free_vars, bound_vars, all_vars, all_global_vars
from .binding_maps import get_var2val, name_to_binding, udchain, post_order_visit, computable_at_compile_time
