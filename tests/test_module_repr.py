"""`repr(module)` (what `print(model)` shows) is real torch's for every module class the shim provides, with
default and non-default arguments, and nested in containers; so are the reprs of finfo/iinfo."""
import pytest

import mindnlp_shim.torch as mt
from conftest import SUBPROCESS_FLAG, real_torch, subprocess_fallback

rt = real_torch()
if rt is None:
    globals()[SUBPROCESS_FLAG] = True
    test_whole_module_in_subprocess = subprocess_fallback(__file__)

# each: an expression over `nn` (torch.nn of one side) and `T` (the torch module)
MODULES = [
    "nn.AdaptiveAvgPool1d(3)", "nn.AdaptiveAvgPool2d((1, None))", "nn.AdaptiveAvgPool3d(2)",
    "nn.AdaptiveMaxPool1d(3)", "nn.AdaptiveMaxPool2d(2, return_indices=True)", "nn.AdaptiveMaxPool3d((1, 2, 3))",
    "nn.AlphaDropout(0.2)", "nn.AvgPool1d(3)", "nn.AvgPool1d(3, stride=2, padding=1, ceil_mode=True)",
    "nn.AvgPool2d(2)", "nn.AvgPool2d((2, 3), stride=1, count_include_pad=False, divisor_override=2)",
    "nn.AvgPool3d(2)", "nn.BCELoss()", "nn.BCEWithLogitsLoss(pos_weight=T.ones(2))", "nn.BatchNorm1d(4)",
    "nn.BatchNorm2d(3, momentum=None)", "nn.BatchNorm3d(2, affine=False, track_running_stats=False)",
    "nn.Bilinear(2, 3, 4)", "nn.Bilinear(2, 3, 4, bias=False)", "nn.CELU()", "nn.CELU(0.5)", "nn.CTCLoss()",
    "nn.ChannelShuffle(2)", "nn.CircularPad1d(1)", "nn.CircularPad2d((1, 2, 0, 1))", "nn.CircularPad3d(1)",
    "nn.ConstantPad1d(2, 3.5)", "nn.ConstantPad2d((1, 0, 2, 0), 0.0)", "nn.ConstantPad3d(1, -1.0)",
    "nn.Conv1d(2, 4, 5)", "nn.Conv1d(2, 4, 5, dilation=2, groups=2)", "nn.Conv1d(2, 4, 3, padding='same', bias=False)",
    "nn.Conv2d(3, 8, 3)", "nn.Conv2d(3, 8, 3, stride=2, padding=1)", "nn.Conv2d(2, 2, (1, 3), padding_mode='reflect', padding=1)",
    "nn.Conv2d(2, 2, 3, padding='same', padding_mode='circular')", "nn.ConvTranspose1d(2, 3, 2)", "nn.ConvTranspose2d(2, 3, 2, stride=2, output_padding=1)",
    "nn.ConvTranspose1d(1, 1, 2, dilation=2, groups=1, bias=False)", "nn.CosineEmbeddingLoss(margin=0.1)", "nn.CosineSimilarity()",
    "nn.CosineSimilarity(dim=0, eps=1e-6)", "nn.CrossEntropyLoss()", "nn.CrossEntropyLoss(label_smoothing=0.1)",
    "nn.Dropout()", "nn.Dropout(0.1)", "nn.Dropout(0.3, inplace=True)", "nn.Dropout1d(0.2)", "nn.Dropout2d()",
    "nn.Dropout3d(0.1)", "nn.ELU()", "nn.ELU(alpha=0.5)", "nn.ELU(inplace=True)", "nn.Embedding(10, 3)",
    "nn.Embedding(10, 3, padding_idx=0)", "nn.Embedding(10, 3, max_norm=1.0, scale_grad_by_freq=True, sparse=False)",
    "nn.EmbeddingBag(5, 2)", "nn.EmbeddingBag(5, 2, mode='sum', padding_idx=1)",
    "nn.EmbeddingBag(5, 2, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True)",
    "nn.Embedding(5, 2, norm_type=3.0, sparse=True)", "nn.FeatureAlphaDropout(0.1)",
    "nn.Flatten()", "nn.Flatten(0, 2)", "nn.Fold((4, 5), (2, 2))", "nn.GELU()", "nn.GELU(approximate='tanh')",
    "nn.GLU()", "nn.GLU(dim=1)", "nn.GRU(3, 4)", "nn.GRU(3, 4, bidirectional=True, batch_first=True)",
    "nn.GRUCell(3, 4)", "nn.GaussianNLLLoss()", "nn.GroupNorm(2, 4)", "nn.GroupNorm(2, 4, affine=False)",
    "nn.Hardshrink()", "nn.Hardshrink(0.3)", "nn.Hardsigmoid()", "nn.Hardswish()", "nn.Hardtanh()",
    "nn.Hardtanh(-2, 2)", "nn.HingeEmbeddingLoss()", "nn.HuberLoss(delta=0.5)", "nn.Identity()",
    "nn.InstanceNorm1d(3)", "nn.InstanceNorm2d(3, affine=True)", "nn.InstanceNorm3d(2, track_running_stats=True)",
    "nn.KLDivLoss(reduction='batchmean')", "nn.L1Loss()", "nn.LPPool1d(2, 3)", "nn.LPPool2d(1.5, 2, stride=1)",
    "nn.LPPool3d(2, 2)", "nn.LSTM(3, 5)", "nn.LSTM(3, 5, num_layers=2, batch_first=True, dropout=0.1)",
    "nn.LSTM(3, 5, proj_size=2)", "nn.LSTMCell(3, 4)", "nn.LSTMCell(3, 4, bias=False)", "nn.LayerNorm(8)",
    "nn.LayerNorm((2, 3), eps=1e-6, elementwise_affine=False)", "nn.LayerNorm(8, bias=False)", "nn.LeakyReLU()",
    "nn.LeakyReLU(0.2)", "nn.LeakyReLU(0.2, inplace=True)", "nn.Linear(3, 4)", "nn.Linear(3, 4, bias=False)",
    "nn.LocalResponseNorm(2)", "nn.LocalResponseNorm(3, alpha=0.1, beta=0.5, k=2.0)", "nn.LogSigmoid()",
    "nn.LogSoftmax()", "nn.LogSoftmax(dim=1)", "nn.MSELoss()", "nn.MarginRankingLoss(margin=1.0)",
    "nn.MaxPool1d(3)", "nn.MaxPool1d(3, stride=1, padding=1, dilation=2, return_indices=True, ceil_mode=True)",
    "nn.MaxPool2d(2)", "nn.MaxPool2d((3, 2), stride=(2, 1))", "nn.MaxPool3d(2)", "nn.MaxUnpool1d(2)",
    "nn.MaxUnpool2d(2, stride=1)", "nn.MaxUnpool3d(2)", "nn.Mish()", "nn.Mish(inplace=True)",
    "nn.MultiLabelMarginLoss()", "nn.MultiLabelSoftMarginLoss()", "nn.MultiMarginLoss(p=2)",
    "nn.MultiheadAttention(8, 2)", "nn.MultiheadAttention(8, 2, kdim=4, vdim=6, batch_first=True)",
    "nn.NLLLoss()", "nn.NLLLoss(ignore_index=3)", "nn.PReLU()", "nn.PReLU(3, init=0.1)",
    "nn.PairwiseDistance()", "nn.PairwiseDistance(p=1.0, keepdim=True)", "nn.PixelShuffle(2)",
    "nn.PixelUnshuffle(3)", "nn.PoissonNLLLoss()", "nn.RMSNorm(4)", "nn.RMSNorm((2, 4), eps=1e-6)",
    "nn.RMSNorm(4, elementwise_affine=False)", "nn.RNN(3, 4)", "nn.RNN(3, 4, nonlinearity='relu', bias=False)",
    "nn.RNNCell(3, 4)", "nn.RNNCell(3, 4, nonlinearity='relu')", "nn.RReLU()", "nn.RReLU(0.1, 0.3)",
    "nn.ReLU()", "nn.ReLU(inplace=True)", "nn.ReLU6()", "nn.ReLU6(inplace=True)", "nn.ReflectionPad1d(2)",
    "nn.ReflectionPad2d((1, 1, 2, 0))", "nn.ReflectionPad3d(1)", "nn.ReplicationPad1d(2)",
    "nn.ReplicationPad2d(1)", "nn.ReplicationPad3d((1, 0, 1, 0, 1, 0))", "nn.SELU()", "nn.SELU(inplace=True)",
    "nn.SiLU()", "nn.SiLU(inplace=True)", "nn.Sigmoid()", "nn.SmoothL1Loss(beta=0.5)", "nn.SoftMarginLoss()",
    "nn.Softmax()", "nn.Softmax(dim=-1)", "nn.Softmax2d()", "nn.Softmin(dim=1)", "nn.Softplus()",
    "nn.Softplus(beta=2)", "nn.Softplus(beta=2, threshold=10)", "nn.Softshrink()", "nn.Softshrink(0.2)",
    "nn.Softsign()", "nn.Tanh()", "nn.Tanhshrink()", "nn.Threshold(0.1, 20)", "nn.Threshold(0.1, 20, inplace=True)",
    "nn.TripletMarginLoss()", "nn.TripletMarginLoss(margin=0.5, p=1)", "nn.TripletMarginWithDistanceLoss()",
    "nn.Unflatten(1, (2, 2))", "nn.Unfold(2)", "nn.Unfold((2, 3), dilation=1, padding=1, stride=2)",
    "nn.Upsample(scale_factor=2)", "nn.Upsample(size=(4, 4), mode='bilinear', align_corners=True)",
    "nn.UpsamplingBilinear2d(scale_factor=2)", "nn.UpsamplingNearest2d(size=3)", "nn.ZeroPad1d(2)",
    "nn.ZeroPad2d(1)", "nn.ZeroPad2d((1, 2, 3, 4))", "nn.ZeroPad3d(1)",
    "nn.Sequential(nn.Linear(2, 2), nn.Tanh())", "nn.ModuleList([nn.Linear(1, 1), nn.Linear(1, 1), nn.ReLU()])",
    "nn.ModuleDict({'a': nn.Linear(1, 2), 'b': nn.GELU()})", "nn.ParameterList([nn.Parameter(T.zeros(2))])",
    "nn.ParameterDict({'w': nn.Parameter(T.zeros(2, 3))})",
    "nn.TransformerEncoderLayer(8, 2, 16)", "nn.TransformerDecoderLayer(8, 2, 16, norm_first=True)",
    "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, enable_nested_tensor=False)",
    "nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=8)",
]


def _build(T, expression):
    T.manual_seed(0)
    return eval(expression, {"nn": T.nn, "T": T})


@pytest.mark.parametrize("expression", MODULES)
def test_module_repr_is_torchs(expression):
    assert repr(_build(mt, expression)) == repr(_build(rt, expression))


@pytest.mark.parametrize("expression", ["T.finfo(T.float32)", "T.finfo(T.float16)", "T.finfo(T.bfloat16)",
                                        "T.finfo(T.float64)", "T.iinfo(T.int32)", "T.iinfo(T.int64)",
                                        "T.iinfo(T.uint8)", "T.iinfo(T.int8)", "T.finfo()"])
def test_finfo_and_iinfo_reprs_are_torchs(expression):
    assert repr(eval(expression, {"T": mt})) == repr(eval(expression, {"T": rt}))


@pytest.mark.parametrize("expression", [
    "T.optim.AdamW(m.parameters(), lr=1e-3)", "T.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)",
    "T.optim.Adam([{'params': [m.weight]}, {'params': [m.bias], 'lr': 0.1}])", "T.optim.RMSprop(m.parameters())"])
def test_optimizer_repr_is_torchs(expression):
    reprs = []
    for T in (mt, rt):
        T.manual_seed(0)
        reprs.append(repr(eval(expression, {"T": T, "m": T.nn.Linear(2, 2)})))
    assert reprs[0] == reprs[1]
