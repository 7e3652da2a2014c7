"""``relay.frontend.from_onnx(model, shape)``: the Relax ONNX importer. As in
Relay, ``freeze_params=True`` (the default) embeds the weights as constants
(``params`` is ``{}``); ``freeze_params=False`` keeps them as inputs of "main"
and splits their values off into ``params`` (name -> NDArray), for
``relay.build(mod, params=params)`` or ``GraphModule.set_input(**params)``."""
from ...error import OpNotImplemented, TVMValueError


def _relax_from_onnx():
    try:
        from ...relax.frontend.onnx import from_onnx  # pylint: disable=import-outside-toplevel
    except ImportError as err:
        raise OpNotImplemented("relay.frontend.from_onnx needs tessera.relax.frontend.onnx, which this build "
                               "does not have") from err
    return from_onnx


def from_onnx(model, shape=None, dtype="float32", opset=None, freeze_params=True, convert_config=None,
              export_node_renamed_model_path=None):
    """``(mod, params)``: the Relax module of the ONNX ``model`` (a ModelProto
    or a path), its "main" taking the graph inputs (``shape``: name -> shape)
    then, with ``freeze_params=False``, the weights, whose values ``params``
    holds by name; with ``freeze_params=True`` the weights are constants of
    the module and ``params`` is empty."""
    for name, value in (("convert_config", convert_config),
                        ("export_node_renamed_model_path", export_node_renamed_model_path)):
        if value is not None:
            raise OpNotImplemented(f"relay.frontend.from_onnx({name}=...) is not supported")
    from ...relax.frontend import detach_params  # pylint: disable=import-outside-toplevel

    if freeze_params:
        return _relax_from_onnx()(model, shape_dict=shape, dtype_dict=dtype, opset=opset,
                                  keep_params_in_input=False), {}
    mod = _relax_from_onnx()(model, shape_dict=shape, dtype_dict=dtype, opset=opset, keep_params_in_input=True)
    mod, detached = detach_params(mod)
    values = detached.get("main", [])
    main_params = list(mod["main"].params)
    num_input = mod["main"].attrs["num_input"] if "num_input" in mod["main"].attrs else None
    if num_input is not None and len(main_params) - int(num_input) != len(values):
        raise TVMValueError(f"relay.frontend.from_onnx: the ONNX importer kept {len(main_params) - int(num_input)} "
                            f"weight(s) as inputs of \"main\" but gave {len(values)} value(s) in its \"params\" "
                            "attribute")
    weights = main_params[len(main_params) - len(values):]
    return mod, {var.name_hint: value for var, value in zip(weights, values)}


__all__ = ["from_onnx"]
