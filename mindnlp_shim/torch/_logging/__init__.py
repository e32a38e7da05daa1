"""torch._logging: the log settings of torch's own components (dynamo, inductor, aot, distributed, ...) and of
their artifacts (graph breaks, recompiles, guards, generated code, ...). None of those components runs under
mindnlp-shim, so they log nothing whatever the settings; set_logs checks its keywords as torch does and records
them (transformers' compile tests wrap generation in `set_logs(recompiles_verbose=True)` ... `set_logs()`)."""
from .. import _stand_ins

# the keywords torch 2.13's set_logs takes: components (a logging level) and artifacts (a bool)
_COMPONENTS = ("all", "dynamo", "aot", "autograd", "dynamic", "inductor", "distributed", "c10d", "ddp", "fsdp",
               "dtensor", "onnx", "export")
_ARTIFACTS = ("bytecode", "aot_graphs", "aot_joint_graph", "ddp_graphs", "graph", "graph_code", "graph_code_verbose",
              "graph_breaks", "side_effects", "graph_sizes", "guards", "recompiles", "recompiles_verbose",
              "trace_source", "trace_call", "trace_bytecode", "output_code", "kernel_code", "schedule", "perf_hints",
              "pre_grad_graphs", "post_grad_graphs", "ir_pre_fusion", "ir_post_fusion", "onnx_diagnostics", "fusion",
              "overlap", "cudagraphs", "sym_node", "compiled_autograd", "compiled_autograd_verbose",
              "cudagraph_static_inputs", "benchmarking", "autotuning", "incremental", "graph_region_expansion",
              "inductor_metrics", "hierarchical_compile", "compute_dependencies", "caching")
_LEVELS = (50, 40, 30, 20, 10, 0)  # logging.CRITICAL ... logging.NOTSET
_settings = {}


def set_logs(**kwargs):
    """Records the log settings of torch's components (which do not run here, so nothing is logged); `set_logs()`
    clears them. Unknown keywords raise torch's TypeError; `modules` takes a dict of module names and levels."""
    for name, value in kwargs.items():
        if name not in _COMPONENTS and name not in _ARTIFACTS and name != "modules":
            raise TypeError(f"set_logs() got an unexpected keyword argument '{name}'")
        if name in _COMPONENTS and value is not None and value not in _LEVELS:
            raise ValueError(f"Unrecognized log level for log {name}: {value}, valid level values are: "
                             f"{','.join(map(str, _LEVELS))}")
    _settings.clear()
    _settings.update({k: v for k, v in kwargs.items() if v not in (None, False)})


set_logs._compiler_setting_doc = ("recorded and without effect: the components whose logs it sets (dynamo, "
                                  "inductor, aot, ...) do not run under mindnlp-shim, so nothing is logged")


def current_settings():
    return dict(_settings)
