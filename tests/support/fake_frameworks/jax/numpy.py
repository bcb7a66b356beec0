"""jax.numpy of the fake jax: arrays of one repeated value."""


class Array:
    def __init__(self, shape, value):
        self.shape = tuple(shape)
        self._value = float(value)

    def block_until_ready(self):
        return self

    def __getitem__(self, index):
        index = index if isinstance(index, tuple) else (index,)
        rest = self.shape[len(index):]
        return Array(rest, self._value)

    def __float__(self):
        if self.shape not in ((), (1,)):
            raise TypeError("only length-1 arrays can be converted to Python scalars")
        return self._value

    def devices(self):
        import jax
        return set(jax.devices())


def ones(shape, dtype=None):
    return Array(tuple(shape) if isinstance(shape, (tuple, list)) else (shape,), 1.0)


def dot(a, b):
    if a.shape[-1] != b.shape[0]:
        raise TypeError("dot_general requires contracting dimensions to have the same shape")
    return Array(a.shape[:-1] + b.shape[1:], a._value * b._value * a.shape[-1])
