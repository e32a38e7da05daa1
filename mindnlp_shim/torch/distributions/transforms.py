"""torch.distributions.transforms: invertible maps y = f(x) with log|det J| for TransformedDistribution.

Each transform has a `domain` and `codomain` constraint (their `event_dim` says how many trailing dimensions
one event spans), `__call__` (x -> y), `inv` (the inverse transform), `log_abs_det_jacobian(x, y)` and, for
monotone scalar maps, `sign`."""
import math
import numbers

from ... import torch
from . import constraints
from .utils import clamp_exact, sum_rightmost

__all__ = ["Transform", "ComposeTransform", "ExpTransform", "AffineTransform", "SigmoidTransform",
           "TanhTransform", "AbsTransform", "PowerTransform", "SoftmaxTransform", "SoftplusTransform",
           "IndependentTransform", "ReshapeTransform", "identity_transform"]


class Transform:
    bijective = False
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached = None  # (x, y) of the last call when caching
        self._inv = None

    @property
    def event_dim(self):
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        inverse = self._inv
        if inverse is None:
            inverse = self._inv = _InverseTransform(self)
        return inverse

    @property
    def sign(self):
        raise NotImplementedError(f"{type(self).__name__}.sign")

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        if self._cache_size and self._cached is not None and self._cached[0] is x:
            return self._cached[1]
        y = self._call(x)
        if self._cache_size:
            self._cached = (x, y)
        return y

    def _inv_call(self, y):
        if self._cache_size and self._cached is not None and self._cached[1] is y:
            return self._cached[0]
        x = self._inverse(y)
        if self._cache_size:
            self._cached = (x, y)
        return x

    def _call(self, x):
        raise NotImplementedError(f"{type(self).__name__}._call")

    def _inverse(self, y):
        raise NotImplementedError(f"{type(self).__name__}._inverse")

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError(f"{type(self).__name__}.log_abs_det_jacobian")

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape

    def __repr__(self):
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def domain(self):
        return self._inv.codomain

    @property
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def __repr__(self):
        return f"{type(self).__name__}({self._inv!r})"


class ComposeTransform(Transform):
    """The transforms applied in order (an empty list is the identity)."""

    def __init__(self, parts, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @property
    def domain(self):
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        # a later part may need more event dimensions than the first one's domain has
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @property
    def codomain(self):
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @property
    def sign(self):
        sign = 1
        for part in self.parts:
            sign = sign * part.sign
        return sign

    @property
    def inv(self):
        inverse = self._inv
        if inverse is None:
            inverse = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = inverse
            inverse._inv = self
        return inverse

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return torch.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, x_i, y_i in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(sum_rightmost(part.log_abs_det_jacobian(x_i, y_i), event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        result = terms[0]
        for term in terms[1:]:
            result = result + term
        return result

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return f"{type(self).__name__}([{', '.join(repr(p) for p in self.parts)}])"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """`base_transform` with `reinterpreted_batch_ndims` more dimensions read as one event."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @property
    def codomain(self):
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        return self.base_transform(x)

    def _inverse(self, y):
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)


class ReshapeTransform(Transform):
    """Reshapes the rightmost `in_shape` dimensions to `out_shape` (same number of elements)."""
    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape, self.out_shape = torch.Size(in_shape), torch.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def _call(self, x):
        batch = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return x.reshape(batch + tuple(self.out_shape))

    def _inverse(self, y):
        batch = tuple(y.shape[:y.dim() - len(self.out_shape)])
        return y.reshape(batch + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        batch = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return torch.zeros(batch, dtype=x.dtype)


class ParameterFreeTransform(Transform):
    """A transform without parameters: all instances of one such class are equal (a subclass of it counts as it)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if ParameterFreeTransform in cls.__bases__:
            cls._equal_to_instances_of = cls

    def __eq__(self, other):
        return isinstance(other, self._equal_to_instances_of)

    __hash__ = object.__hash__


class ExpTransform(ParameterFreeTransform):
    """y = exp(x)."""
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = 1

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """y = x ** exponent (on positive x)."""
    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.exponent = exponent if isinstance(exponent, torch.Tensor) else torch.tensor(float(exponent))

    @property
    def sign(self):
        return self.exponent.sign()

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()


class SigmoidTransform(ParameterFreeTransform):
    """y = 1 / (1 + exp(-x)), kept inside (0, 1) by clamping to the dtype's eps."""
    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = 1

    def _call(self, x):
        finfo = torch.finfo(x.dtype)
        return clamp_exact(torch.sigmoid(x), finfo.tiny, 1.0 - finfo.eps)

    def _inverse(self, y):
        finfo = torch.finfo(y.dtype)
        y = clamp_exact(y, finfo.tiny, 1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -torch.nn.functional.softplus(-x) - torch.nn.functional.softplus(x)


class SoftplusTransform(ParameterFreeTransform):
    """y = log(1 + exp(x))."""
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = 1

    def _call(self, x):
        return torch.nn.functional.softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -torch.nn.functional.softplus(-x)


class TanhTransform(ParameterFreeTransform):
    """y = tanh(x)."""
    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = 1

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return torch.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable for large |x|
        return 2.0 * (math.log(2.0) - x - torch.nn.functional.softplus(-2.0 * x))


class AbsTransform(ParameterFreeTransform):
    """y = |x| (not injective: the inverse picks the positive root)."""
    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """y = loc + scale * x, elementwise, with `event_dim` trailing dimensions per event."""
    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @property
    def domain(self):
        return constraints.real if self._event_dim == 0 else constraints.independent(constraints.real,
                                                                                      self._event_dim)

    codomain = domain

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        scale = self.scale
        if isinstance(scale, numbers.Real):
            result = torch.full_like(x, math.log(abs(scale)))
        else:
            result = torch.abs(scale).log()
        if self._event_dim:
            result = sum_rightmost(result, self._event_dim)
            shape = tuple(x.shape[:x.dim() - self._event_dim])
            return result.expand(shape)
        return result.expand(x.shape) if tuple(result.shape) != tuple(x.shape) else result

    def forward_shape(self, shape):
        return torch.broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))

    inverse_shape = forward_shape


class SoftmaxTransform(ParameterFreeTransform):
    """Unconstrained vectors to the simplex: softmax over the last dimension (not bijective)."""
    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()
