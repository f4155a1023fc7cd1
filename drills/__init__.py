"""autograd-drill: re-implement a tensor autograd engine from memory, against the clock."""

__version__ = "0.1.0"


def version_line() -> str:
    """What ``drill --version`` prints (the fast path of drills/entry.py and the app alike)."""
    return f"autograd-drill {__version__}"
