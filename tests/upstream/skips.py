"""Upstream common tests skipped under the shim, each with the reason.

Keys are test names as pytest reports them (parameterized tests match on their prefix before the
`_<index>`/`_<name>` suffix, so list the function name); a key "Class::test" limits a skip to one model's
test class. Only tests that need CUDA/accelerators, the Hugging Face hub, or torch internals that have no
MindSpore meaning belong here; failures with any other cause stay visible and are listed in
docs/upstream-status.md."""
import re

SKIPS = {
    # torch internals with no MindSpore meaning
    "test_torch_compile_for_training": "torch.compile/dynamo graph capture: the shim has no torch compiler",
    "test_torch_export": "torch.export traces torch's dispatcher; MindSpore has no torch.export",
    "test_flex_attention_with_grads": "flex_attention is compiled by torch inductor; no MindSpore meaning",
    "test_can_be_initialized_on_meta": "meta tensors here hold real zero storage; the test inspects torch's "
                                       "storage-less meta semantics",
    "test_sdpa_can_compile_dynamic": "torch.compile with dynamic shapes",
    "test_sdpa_can_dispatch_on_flash": "selects torch's flash SDPA CUDA kernel",
}


def reason_for(class_name, test_name):
    """The skip reason for a test, or None. `test_name` may carry parameterized's `_<index>[_<name>]` suffix."""
    for key, reason in SKIPS.items():
        cls, _, name = key.rpartition("::")
        if cls and cls != class_name:
            continue
        if re.fullmatch(re.escape(name) + r"(_\d+(_.*)?)?", test_name):
            return reason
    return None
