"""Child process: the transformers training step on real torch (CPU, 2 threads).

Also writes the tiny checkpoints (`--make-tiny DIR` for BERT, `--make-tiny-llama DIR` for Llama), so their weights
come from torch's own initialisation with a fixed seed and every implementation loads the same file.
"""
import sys

import _common
import _hf_step


def make_tiny_checkpoint(directory, seed=0):
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(seed)
    model = BertForSequenceClassification(BertConfig(**_common.TINY_CONFIG))
    model.save_pretrained(directory)  # config.json + model.safetensors


def make_tiny_llama_checkpoint(directory, seed=0):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    LlamaForCausalLM(LlamaConfig(**_common.TINY_LLAMA_CONFIG)).save_pretrained(directory)


def body(args):
    import torch

    torch.set_num_threads(2)
    return _hf_step.measure(torch, args)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--make-tiny":
        make_tiny_checkpoint(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "--make-tiny-llama":
        make_tiny_llama_checkpoint(sys.argv[2])
    else:
        _common.run_child("torch", body)
