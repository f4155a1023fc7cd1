"""autograd-drill: re-implement a tensor autograd engine from memory, against the clock."""

__version__ = "0.1.0"
