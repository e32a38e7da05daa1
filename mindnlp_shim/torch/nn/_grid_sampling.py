"""torch.nn.functional.affine_grid and grid_sample (4-D input: bilinear and nearest sampling with zeros, border and
reflection padding), composed of the shim's ops so both the input's and the grid's gradients are recorded.

grid_sample maps each grid point (x, y) in [-1, 1] to input pixel coordinates (align_corners: -1 and 1 are the
centres of the corner pixels; otherwise their outer edges), applies the padding rule to the coordinates, and
reads the neighbouring pixels with one gather per tap."""
import warnings

from ... import torch


# torch's codes for the modes, as the grid sampler kernels number them
GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}


def _base_coordinates(steps, align_corners, dtype):
    if steps <= 1:  # a single sample sits at the centre
        return torch.zeros(steps, dtype=dtype)
    line = torch.linspace(-1, 1, steps, dtype=dtype)
    if not align_corners:
        line = line * ((steps - 1) / steps)
    return line


def affine_grid(theta, size, align_corners=None):
    if align_corners is None:
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(size)
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got "
                             f"{tuple(theta.shape)}.")
        n, _, h, w = size
        xs = _base_coordinates(w, align_corners, theta.dtype).reshape(1, w).expand(h, w)
        ys = _base_coordinates(h, align_corners, theta.dtype).reshape(h, 1).expand(h, w)
        base = torch.stack([xs, ys, torch.ones_like(xs)], -1).reshape(1, h * w, 3)
        return torch.matmul(base, theta.transpose(1, 2)).reshape(n, h, w, 2)
    if len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got "
                             f"{tuple(theta.shape)}.")
        n, _, d, h, w = size
        xs = _base_coordinates(w, align_corners, theta.dtype).reshape(1, 1, w).expand(d, h, w)
        ys = _base_coordinates(h, align_corners, theta.dtype).reshape(1, h, 1).expand(d, h, w)
        zs = _base_coordinates(d, align_corners, theta.dtype).reshape(d, 1, 1).expand(d, h, w)
        base = torch.stack([xs, ys, zs, torch.ones_like(xs)], -1).reshape(1, d * h * w, 4)
        return torch.matmul(base, theta.transpose(1, 2)).reshape(n, d, h, w, 3)
    raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                              f"respectively. Got size {size}.")


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, twice_low, twice_high):
    if twice_low == twice_high:
        return torch.zeros_like(coord)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    coord = (coord - low).abs()
    extra = torch.fmod(coord, span)
    flips = torch.floor(coord / span)
    even = torch.fmod(flips, 2) == 0
    return torch.where(even, extra + low, span - extra + low)


def _clip(coord, size):
    # the bounds themselves count as clipped: no gradient there, as torch's clip_coordinates_set_grad
    return torch.where(coord <= 0, torch.zeros_like(coord),
                       torch.where(coord >= size - 1, torch.full_like(coord, size - 1), coord))


def _source_coordinate(coord, size, padding_mode, align_corners):
    coord = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        coord = _clip(coord, size)
    elif padding_mode == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align_corners else _reflect(coord, -1, 2 * size - 1)
        coord = _clip(coord, size)
    return coord


def _tap(flat, xi, yi, height, width):
    """Input values at integer coordinates (N, Ho, Wo) -> (N, C, Ho, Wo), 0 outside the input."""
    n, c = flat.shape[0], flat.shape[1]
    inside = (xi >= 0) & (xi <= width - 1) & (yi >= 0) & (yi <= height - 1)
    index = (yi.clamp(0, height - 1) * width + xi.clamp(0, width - 1)).long().reshape(n, 1, -1)
    values = flat.gather(2, index.expand(n, c, index.shape[-1])).reshape((n, c) + tuple(xi.shape[1:]))
    return values * inside.unsqueeze(1).to(flat.dtype)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired.")
        align_corners = False
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if input.dim() != 4 or mode == "bicubic":
        raise NotImplementedError(f"torch.nn.functional.grid_sample of a {input.dim()}-D input in {mode} mode is "
                                  f"not supported by mindnlp-shim (4-D input, bilinear or nearest)")
    if grid.dim() != 4 or grid.shape[-1] != 2 or grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid of shape (N, H_out, W_out, 2) with N = "
                           f"{input.shape[0]}, but got {tuple(grid.shape)}")
    n, c, height, width = input.shape
    x = _source_coordinate(grid[..., 0], width, padding_mode, align_corners)
    y = _source_coordinate(grid[..., 1], height, padding_mode, align_corners)
    flat = input.reshape(n, c, height * width)
    if mode == "nearest":
        # round half to even, as torch's nearbyint; the grid gets torch's zero gradient through a zero term
        zero_on_grid = ((x + y) * 0).unsqueeze(1)
        return _tap(flat, torch.round(x).detach(), torch.round(y).detach(), height, width) + zero_on_grid
    x0, y0 = torch.floor(x).detach(), torch.floor(y).detach()
    wx1, wy1 = (x - x0).unsqueeze(1), (y - y0).unsqueeze(1)
    wx0, wy0 = 1 - wx1, 1 - wy1
    return (_tap(flat, x0, y0, height, width) * wx0 * wy0 + _tap(flat, x0 + 1, y0, height, width) * wx1 * wy0
            + _tap(flat, x0, y0 + 1, height, width) * wx0 * wy1
            + _tap(flat, x0 + 1, y0 + 1, height, width) * wx1 * wy1)
