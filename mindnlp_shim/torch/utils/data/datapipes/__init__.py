"""torch.utils.data.datapipes: PyTorch's deprecated DataPipe library is not provided; see `iter.combinatorics`."""
