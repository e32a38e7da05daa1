"""Allocation failures surface as torch.OutOfMemoryError naming the requested size (mindnlp_shim/torch/
_out_of_memory.py), so accelerate's find_executable_batch_size (transformers' auto_find_batch_size) retries with a
smaller batch. Each case runs in a child process whose address space is capped a little above its current size."""
import math

from shim_runner import run_shim_json, script

CHILD = script("out_of_memory_child.py")
CAP_MIB = 512


def _run(scenario):
    return run_shim_json([CHILD, scenario, str(CAP_MIB)], timeout=300)


def _assert_torch_out_of_memory(result):
    assert result["type"] == "OutOfMemoryError", result
    # torch.OutOfMemoryError is torch.cuda.OutOfMemoryError, a RuntimeError; accelerate recognises its message
    assert result["is_torch_oom"] and result["is_cuda_oom"] and result["is_runtime_error"], result
    assert result["accelerate_retries"], result
    assert " out of memory. Tried to allocate " in result["message"], result


def test_a_failed_allocation_in_a_module_forward_names_the_op_and_its_size():
    result = _run("forward")
    _assert_torch_out_of_memory(result)
    # bmm of (256, 1024, 16) and its transpose: 256 x 1024 x 1024 float32
    assert "(1073741824 bytes)" in result["message"] and "1.00 GiB" in result["message"], result
    assert "BatchMatMul, shape (256, 1024, 1024)" in result["message"], result


def test_a_failed_host_array_in_a_module_names_its_size():
    result = _run("host")
    _assert_torch_out_of_memory(result)
    assert "(6400000000 bytes)" in result["message"] and "(40000, 40000)" in result["message"], result


def test_a_failed_allocation_in_a_backward_names_its_size():
    result = _run("backward")
    _assert_torch_out_of_memory(result)
    assert "(6400000000 bytes)" in result["message"], result


def test_find_executable_batch_size_recovers_with_a_smaller_batch():
    """256 rows need 1 GiB for the product, more than the cap leaves; 128 rows fit."""
    result = _run("find_batch")
    assert result["tried"][0] == 256 and len(result["tried"]) >= 2, result
    # (the first try raised, or there would be one entry; the last one returned a number)
    assert result["tried"][-1] < 256 and math.isfinite(result["value"]), result
