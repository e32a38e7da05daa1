from ... import _stand_ins

HuggingFaceStorageReader = _stand_ins.placeholder_type("torch.distributed.checkpoint.hf_storage.HuggingFaceStorageReader")
HuggingFaceStorageWriter = _stand_ins.placeholder_type("torch.distributed.checkpoint.hf_storage.HuggingFaceStorageWriter")
