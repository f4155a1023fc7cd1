"""Classic bugs: each is the reference engine with one realistic mistake, which must fail its target."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    id: str  # short kebab-case id, unique, e.g. "unbroadcast-skips-prepended-axes"
    target: str  # the catalog target it must fail: unbroadcast | backward | arith | unary | softmax | cross-entropy
    symbol: str  # the symbol that is wrong, as the catalog names it: "unbroadcast", "Tensor.__add__", ...
    bug: str  # one line: the mistake, as a reviewer would describe it
    find: str  # an exact snippet of reference/engine.py that occurs exactly ONCE in the file
    replace: str  # what it becomes


TOPO_BODY = (
    "    order: list[Tensor] = []\n"
    "    visited = {id(root)}\n"
    "    stack = [(root, iter(root._prev))]\n"
    "    while stack:\n"
    "        node, inputs = stack[-1]\n"
    "        for child in inputs:\n"
    "            if id(child) not in visited:\n"
    "                visited.add(id(child))\n"
    "                stack.append((child, iter(child._prev)))\n"
    "                break\n"
    "        else:  # all of node's inputs are placed: place node\n"
    "            stack.pop()\n"
    "            order.append(node)\n"
    "    return order\n"
)
"""The reference's whole _topological_order after its docstring: mutants that rewrite it replace all of it."""


SUM_GRAD_COMMENT = "            # (3,) against (3, 4) would line it up with the *last* axis, silently wrong.\n"
SUM_GRAD = SUM_GRAD_COMMENT + "            grad = out.grad if keepdims else np.expand_dims(out.grad, _reduced_axes(axis, self.data.ndim))\n"
"""Tensor.sum's closure restoring the reduced axes (its comment first, so that the snippet is unique)."""


MUTANTS: tuple[Mutant, ...] = (
    # ------------------------------------------------------------------------------ unbroadcast
    Mutant(
        id="unbroadcast-skips-stretched-axes",
        target="unbroadcast",
        symbol="unbroadcast",
        bug="only sums the prepended leading axes; size-1 axes that broadcasting stretched are never summed",
        find=(
            "    # Axes of size 1 that broadcasting stretched: (3, 4) -> (1, 4).\n"
            "    for axis, size in enumerate(shape):\n"
            "        if size == 1 and grad.shape[axis] != 1:\n"
            "            grad = grad.sum(axis=axis, keepdims=True)\n"
        ),
        replace="",
    ),
    Mutant(
        id="unbroadcast-skips-prepended-axes",
        target="unbroadcast",
        symbol="unbroadcast",
        bug="only sums the stretched size-1 axes; leading axes that broadcasting prepended are never summed away",
        find=(
            "    # Leading axes that broadcasting prepended: (2, 3, 4) -> (3, 4).\n"
            "    while grad.ndim > len(shape):\n"
            "        grad = grad.sum(axis=0)\n"
        ),
        replace="",
    ),
    Mutant(
        id="unbroadcast-if-instead-of-while",
        target="unbroadcast",
        symbol="unbroadcast",
        bug="`if` instead of `while`: sums away only one prepended axis, so two or more extra leading axes remain",
        find="    while grad.ndim > len(shape):\n",
        replace="    if grad.ndim > len(shape):\n",
    ),
    Mutant(
        id="unbroadcast-prepended-from-the-end",
        target="unbroadcast",
        symbol="unbroadcast",
        bug="sums the extra axes from the wrong end (axis=-1): broadcasting prepends axes, it does not append them",
        find="        grad = grad.sum(axis=0)\n",
        replace="        grad = grad.sum(axis=-1)\n",
    ),
    Mutant(
        id="unbroadcast-stretched-sum-drops-keepdims",
        target="unbroadcast",
        symbol="unbroadcast",
        bug="sums a stretched axis without keepdims=True, so later axis indices shift (two size-1 axes break)",
        find="            grad = grad.sum(axis=axis, keepdims=True)\n",
        replace="            grad = grad.sum(axis=axis)\n",
    ),
    Mutant(
        id="unbroadcast-stretched-before-prepended",
        target="unbroadcast",
        symbol="unbroadcast",
        bug="undoes the stretched axes before dropping the prepended ones, so shape is aligned from the left",
        find=(
            "    # Leading axes that broadcasting prepended: (2, 3, 4) -> (3, 4).\n"
            "    while grad.ndim > len(shape):\n"
            "        grad = grad.sum(axis=0)\n"
            "    # Axes of size 1 that broadcasting stretched: (3, 4) -> (1, 4).\n"
            "    for axis, size in enumerate(shape):\n"
            "        if size == 1 and grad.shape[axis] != 1:\n"
            "            grad = grad.sum(axis=axis, keepdims=True)\n"
        ),
        replace=(
            "    # Axes of size 1 that broadcasting stretched: (3, 4) -> (1, 4).\n"
            "    for axis, size in enumerate(shape):\n"
            "        if size == 1 and grad.shape[axis] != 1:\n"
            "            grad = grad.sum(axis=axis, keepdims=True)\n"
            "    # Leading axes that broadcasting prepended: (2, 3, 4) -> (3, 4).\n"
            "    while grad.ndim > len(shape):\n"
            "        grad = grad.sum(axis=0)\n"
        ),
    ),
    Mutant(
        id="unbroadcast-averages-stretched-copies",
        target="unbroadcast",
        symbol="unbroadcast",
        bug="averages the copies along a stretched axis (mean) instead of summing their gradients",
        find="            grad = grad.sum(axis=axis, keepdims=True)\n",
        replace="            grad = grad.mean(axis=axis, keepdims=True)\n",
    ),
    Mutant(
        id="unbroadcast-takes-first-copy",
        target="unbroadcast",
        symbol="unbroadcast",
        bug="drops a prepended axis by indexing its first copy (grad[0]) instead of summing over all copies",
        find="        grad = grad.sum(axis=0)\n",
        replace="        grad = grad[0]\n",
    ),
    # ------------------------------------------------------------------------------ backward
    Mutant(
        id="init-keeps-integer-dtype",
        target="backward",
        symbol="Tensor.__init__",
        bug="np.array(data) without dtype=np.float64: integer inputs get an integer .data and .grad",
        find="        self.data = np.array(data, dtype=np.float64)\n",
        replace="        self.data = np.array(data)\n",
    ),
    Mutant(
        id="init-grad-none",
        target="backward",
        symbol="Tensor.__init__",
        bug="starts .grad at None as torch does, but every closure accumulates into it with +=",
        find="        self.grad = np.zeros_like(self.data)\n        self.requires_grad = requires_grad",
        replace="        self.grad = None\n        self.requires_grad = requires_grad",
    ),
    Mutant(
        id="backward-seeds-zeros",
        target="backward",
        symbol="Tensor.backward",
        bug="seeds the root's grad with zeros instead of ones, so every gradient is zero",
        find="        self.grad = np.ones_like(self.data)\n",
        replace="        self.grad = np.zeros_like(self.data)\n",
    ),
    Mutant(
        id="backward-seeds-shape-1",
        target="backward",
        symbol="Tensor.backward",
        bug="seeds the root's grad with np.ones(1) instead of ones of the root's 0-d shape",
        find="        self.grad = np.ones_like(self.data)\n",
        replace="        self.grad = np.ones(1)\n",
    ),
    Mutant(
        id="backward-forward-order",
        target="backward",
        symbol="Tensor.backward",
        bug="runs the closures in topological (forward) order instead of reversed, leaves first",
        find="            node = order.pop()  # the last in topological order: all its consumers have run\n",
        replace="            node = order.pop(0)\n",
    ),
    Mutant(
        id="backward-no-scalar-check",
        target="backward",
        symbol="Tensor.backward",
        bug="accepts a non-scalar root silently (seeds ones of its shape) instead of raising",
        find=(
            "            if self.data.size != 1:\n"
            "                raise ValueError(\n"
            '                    f"backward() needs a root with one element, got shape {self.shape}: "\n'
            '                    "reduce it first (e.g. .sum()), or pass gradient= with the root\'s shape"\n'
            "                )\n"
        ),
        replace="",
    ),
    Mutant(
        id="backward-skips-nodes-without-requires-grad",
        target="backward",
        symbol="Tensor.backward",
        bug="only runs _backward of nodes with requires_grad, but its ops never set it on their outputs",
        find="            node._backward()\n",
        replace="            if node.requires_grad:\n                node._backward()\n",
    ),
    Mutant(
        id="topo-no-visited-set",
        target="backward",
        symbol="_topological_order",
        bug="no visited set: a node reached along two paths is placed (and its closure run) twice",
        find=(
            "        for child in inputs:\n"
            "            if id(child) not in visited:\n"
            "                visited.add(id(child))\n"
            "                stack.append((child, iter(child._prev)))\n"
            "                break\n"
        ),
        replace=(
            "        for child in inputs:\n            stack.append((child, iter(child._prev)))\n            break\n"
        ),
    ),
    Mutant(
        id="topo-reversed-preorder",
        target="backward",
        symbol="_topological_order",
        bug="iterative DFS that appends a node when it is popped (pre-order) and reverses: wrong on a diamond",
        find=TOPO_BODY,
        replace=(
            "    order: list[Tensor] = []\n"
            "    visited: set[int] = set()\n"
            "    stack = [root]\n"
            "    while stack:\n"
            "        node = stack.pop()\n"
            "        if id(node) in visited:\n"
            "            continue\n"
            "        visited.add(id(node))\n"
            "        order.append(node)\n"
            "        stack.extend(node._prev)\n"
            "    return order[::-1]\n"
        ),
    ),
    Mutant(
        id="topo-forgets-root",
        target="backward",
        symbol="_topological_order",
        bug="starts the search from the root's inputs, so the root itself never lands in the order",
        find="    stack = [(root, iter(root._prev))]\n",
        replace="    stack = [(child, iter(child._prev)) for child in reversed(root._prev)]\n",
    ),
    Mutant(
        id="topo-recursive",
        target="backward",
        symbol="_topological_order",
        bug="micrograd's recursive build(): exceeds Python's recursion limit on a chain of 10,000 ops",
        find=TOPO_BODY,
        replace=(
            "    order: list[Tensor] = []\n"
            "    visited: set[int] = set()\n"
            "\n"
            "    def build(node: Tensor) -> None:\n"
            "        if id(node) not in visited:\n"
            "            visited.add(id(node))\n"
            "            for child in node._prev:\n"
            "                build(child)\n"
            "            order.append(node)\n"
            "\n"
            "    build(root)\n"
            "    return order\n"
        ),
    ),
    Mutant(
        id="topo-no-break",
        target="backward",
        symbol="_topological_order",
        bug="forgets the break after pushing a child, so the for-else pops and places the child before its inputs",
        find=("                stack.append((child, iter(child._prev)))\n                break\n"),
        replace="                stack.append((child, iter(child._prev)))\n",
    ),
    # ------------------------------------------------------------------------------ arith
    Mutant(
        id="add-assigns-instead-of-accumulating",
        target="arith",
        symbol="Tensor.__add__",
        bug="`=` instead of `+=` in the closure: x + x overwrites the first contribution with the second",
        find="            other.grad += unbroadcast(out.grad, other.shape)\n",
        replace="            other.grad = unbroadcast(out.grad, other.shape)\n",
    ),
    Mutant(
        id="add-forgets-unbroadcast",
        target="arith",
        symbol="Tensor.__add__",
        bug="adds out.grad to a broadcast operand (a bias) without unbroadcasting it to the operand's shape",
        find="            other.grad += unbroadcast(out.grad, other.shape)\n",
        replace="            other.grad += out.grad\n",
    ),
    Mutant(
        id="add-forgets-as-tensor",
        target="arith",
        symbol="Tensor.__add__",
        bug="never wraps a number or ndarray operand: it ends up in _prev, where a Tensor belongs",
        find=(
            "        other = _as_tensor(other)\n"
            '        out = Tensor(self.data + other.data, _children=(self, other), _op="+")\n'
        ),
        replace='        out = Tensor(self.data + getattr(other, "data", other), _children=(self, other), _op="+")\n',
    ),
    Mutant(
        id="add-unbroadcasts-to-wrong-shape",
        target="arith",
        symbol="Tensor.__add__",
        bug="copy-paste slip: unbroadcasts self's gradient to other.shape",
        find=(
            "            self.grad += unbroadcast(out.grad, self.shape)\n"
            "            other.grad += unbroadcast(out.grad, other.shape)\n"
        ),
        replace=(
            "            self.grad += unbroadcast(out.grad, other.shape)\n"
            "            other.grad += unbroadcast(out.grad, other.shape)\n"
        ),
    ),
    Mutant(
        id="mul-uses-own-data",
        target="arith",
        symbol="Tensor.__mul__",
        bug="scales each input's gradient by its own data instead of the other input's: d(xy)/dx = x",
        find="            self.grad += unbroadcast(out.grad * other.data, self.shape)\n",
        replace="            self.grad += unbroadcast(out.grad * self.data, self.shape)\n",
    ),
    Mutant(
        id="mul-assigns-instead-of-accumulating",
        target="arith",
        symbol="Tensor.__mul__",
        bug="`=` instead of `+=` in the closure: x * x gets x instead of 2x",
        find="            other.grad += unbroadcast(out.grad * self.data, other.shape)\n",
        replace="            other.grad = unbroadcast(out.grad * self.data, other.shape)\n",
    ),
    Mutant(
        id="mul-forgets-upstream-grad",
        target="arith",
        symbol="Tensor.__mul__",
        bug="drops out.grad (the chain rule): right only when the product feeds straight into the loss's sum",
        find=(
            "            self.grad += unbroadcast(out.grad * other.data, self.shape)\n"
            "            other.grad += unbroadcast(out.grad * self.data, other.shape)\n"
        ),
        replace=(
            "            self.grad += unbroadcast(other.data, self.shape)\n"
            "            other.grad += unbroadcast(self.data, other.shape)\n"
        ),
    ),
    Mutant(
        id="pow-keeps-exponent",
        target="arith",
        symbol="Tensor.__pow__",
        bug="power rule with x**n instead of x**(n-1): n * x**n",
        find="            self.grad += exponent * self.data ** (exponent - 1) * out.grad\n",
        replace="            self.grad += exponent * self.data**exponent * out.grad\n",
    ),
    Mutant(
        id="pow-uses-out-data",
        target="arith",
        symbol="Tensor.__pow__",
        bug="takes the power of out.data instead of the input: n * (x**n)**(n-1)",
        find="            self.grad += exponent * self.data ** (exponent - 1) * out.grad\n",
        replace="            self.grad += exponent * out.data ** (exponent - 1) * out.grad\n",
    ),
    Mutant(
        id="pow-assigns-instead-of-accumulating",
        target="arith",
        symbol="Tensor.__pow__",
        bug="`=` instead of `+=`: x**2 + x loses whichever contribution to x.grad came first",
        find="            self.grad += exponent * self.data ** (exponent - 1) * out.grad\n",
        replace="            self.grad = exponent * self.data ** (exponent - 1) * out.grad\n",
    ),
    Mutant(
        id="matmul-dot-T-breaks-batched",
        target="arith",
        symbol="Tensor.__matmul__",
        bug="transposes with .T, which reverses every axis: right for 2-D, wrong for batched operands",
        find=(
            "            grad_self = out.grad @ np.swapaxes(other.data, -1, -2)\n"
            "            grad_other = np.swapaxes(self.data, -1, -2) @ out.grad\n"
        ),
        replace="            grad_self = out.grad @ other.data.T\n            grad_other = self.data.T @ out.grad\n",
    ),
    Mutant(
        id="matmul-shared-weight-not-unbroadcast",
        target="arith",
        symbol="Tensor.__matmul__",
        bug="no unbroadcast: a 2-D weight shared across a batch does not get the sum over the batch",
        find="            other.grad += unbroadcast(grad_other, other.shape)\n",
        replace="            other.grad += grad_other\n",
    ),
    Mutant(
        id="matmul-wrong-operand-order",
        target="arith",
        symbol="Tensor.__matmul__",
        bug="multiplies the gradient on the wrong side: grad_self = B^T @ g instead of g @ B^T",
        find="            grad_self = out.grad @ np.swapaxes(other.data, -1, -2)\n",
        replace="            grad_self = np.swapaxes(other.data, -1, -2) @ out.grad\n",
    ),
    # ------------------------------------------------------------------------------ unary
    Mutant(
        id="sum-broadcasts-without-expand-dims",
        target="unary",
        symbol="Tensor.sum",
        bug="broadcasts out.grad without restoring the reduced axes, so (3,) lines up with the last axis of (3, 4)",
        find=SUM_GRAD,
        replace=SUM_GRAD_COMMENT + "            grad = out.grad\n",
    ),
    Mutant(
        id="sum-expands-even-with-keepdims",
        target="unary",
        symbol="Tensor.sum",
        bug="calls expand_dims even when keepdims=True, adding a second size-1 axis",
        find=SUM_GRAD,
        replace=SUM_GRAD_COMMENT + "            grad = np.expand_dims(out.grad, _reduced_axes(axis, self.data.ndim))\n",
    ),
    Mutant(
        id="sum-expand-dims-with-raw-axis",
        target="unary",
        symbol="Tensor.sum",
        bug="passes axis straight to np.expand_dims, which rejects axis=None (a full sum)",
        find=SUM_GRAD,
        replace=SUM_GRAD_COMMENT + "            grad = out.grad if keepdims else np.expand_dims(out.grad, axis)\n",
    ),
    Mutant(
        id="mean-divides-by-total-size",
        target="unary",
        symbol="Tensor.mean",
        bug="divides by the total number of elements instead of the number reduced into each output",
        find="        n = self.data.size // max(out.data.size, 1)\n",
        replace="        n = self.data.size\n",
    ),
    Mutant(
        id="mean-forgets-to-divide",
        target="unary",
        symbol="Tensor.mean",
        bug="backward is sum's: forgets to divide the gradient by n",
        find="            self.grad += np.broadcast_to(grad, self.shape) / n\n",
        replace="            self.grad += np.broadcast_to(grad, self.shape)\n",
    ),
    Mutant(
        id="mean-divides-by-shape-of-axis",
        target="unary",
        symbol="Tensor.mean",
        bug="takes n = shape[axis], which breaks for a tuple of axes and for axis=None",
        find="        n = self.data.size // max(out.data.size, 1)\n",
        replace="        n = self.data.shape[axis]\n",
    ),
    Mutant(
        id="exp-uses-input",
        target="unary",
        symbol="Tensor.exp",
        bug="multiplies by the input x instead of exp(x)",
        find="            self.grad += out.data * out.grad  # d exp(x) = exp(x): reuse the forward result\n",
        replace="            self.grad += self.data * out.grad\n",
    ),
    Mutant(
        id="exp-assigns-instead-of-accumulating",
        target="unary",
        symbol="Tensor.exp",
        bug="`=` instead of `+=`: x.exp() * x loses the contribution the product already added to x.grad",
        find="            self.grad += out.data * out.grad  # d exp(x) = exp(x): reuse the forward result\n",
        replace="            self.grad = out.data * out.grad\n",
    ),
    Mutant(
        id="log-multiplies-by-input",
        target="unary",
        symbol="Tensor.log",
        bug="multiplies out.grad by x instead of dividing by it",
        find="            self.grad += out.grad / self.data\n",
        replace="            self.grad += out.grad * self.data\n",
    ),
    Mutant(
        id="log-divides-by-output",
        target="unary",
        symbol="Tensor.log",
        bug="divides by log(x) (out.data) instead of x",
        find="            self.grad += out.grad / self.data\n",
        replace="            self.grad += out.grad / out.data\n",
    ),
    Mutant(
        id="log-assigns-instead-of-accumulating",
        target="unary",
        symbol="Tensor.log",
        bug="`=` instead of `+=`: x.log() * x loses the contribution the product already added to x.grad",
        find="            self.grad += out.grad / self.data\n",
        replace="            self.grad = out.grad / self.data\n",
    ),
    Mutant(
        id="relu-ge-zero",
        target="unary",
        symbol="Tensor.relu",
        bug="mask x >= 0: gradient 1 at exactly 0, where torch gives 0",
        find="            self.grad += (self.data > 0) * out.grad\n",
        replace="            self.grad += (self.data >= 0) * out.grad\n",
    ),
    Mutant(
        id="relu-forgets-upstream-grad",
        target="unary",
        symbol="Tensor.relu",
        bug="passes the bare mask (x > 0) back, dropping out.grad",
        find="            self.grad += (self.data > 0) * out.grad\n",
        replace="            self.grad += (self.data > 0) * 1.0\n",
    ),
    Mutant(
        id="sigmoid-grad-uses-input",
        target="unary",
        symbol="Tensor.sigmoid",
        bug="s(1 - s) evaluated at the input x instead of the output s: x(1 - x)",
        find="            self.grad += out.data * (1.0 - out.data) * out.grad\n",
        replace="            self.grad += self.data * (1.0 - self.data) * out.grad\n",
    ),
    Mutant(
        id="sigmoid-grad-missing-one-minus",
        target="unary",
        symbol="Tensor.sigmoid",
        bug="derivative written as s * s instead of s * (1 - s)",
        find="            self.grad += out.data * (1.0 - out.data) * out.grad\n",
        replace="            self.grad += out.data * out.data * out.grad\n",
    ),
    Mutant(
        id="tanh-grad-uses-input",
        target="unary",
        symbol="Tensor.tanh",
        bug="1 - x**2 instead of 1 - tanh(x)**2",
        find="            self.grad += (1.0 - out.data**2) * out.grad\n",
        replace="            self.grad += (1.0 - self.data**2) * out.grad\n",
    ),
    Mutant(
        id="tanh-grad-forgets-square",
        target="unary",
        symbol="Tensor.tanh",
        bug="1 - tanh(x) instead of 1 - tanh(x)**2",
        find="            self.grad += (1.0 - out.data**2) * out.grad\n",
        replace="            self.grad += (1.0 - out.data) * out.grad\n",
    ),
    # ------------------------------------------------------------------------------ softmax
    Mutant(
        id="log-softmax-no-max-shift",
        target="softmax",
        symbol="Tensor.log_softmax",
        bug="no max shift before exp: overflows to inf/nan at logits of magnitude 1000",
        find="        shifted = self.data - self.data.max(axis=axis, keepdims=True)\n",
        replace="        shifted = self.data\n",
    ),
    Mutant(
        id="log-softmax-logsumexp-without-keepdims",
        target="softmax",
        symbol="Tensor.log_softmax",
        bug="logsumexp without keepdims: (N,) against (N, K) broadcasts along the wrong axis",
        find="        logp = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))\n",
        replace="        logp = shifted - np.log(np.exp(shifted).sum(axis=axis))\n",
    ),
    Mutant(
        id="log-softmax-backward-forgets-sum",
        target="softmax",
        symbol="Tensor.log_softmax",
        bug="VJP g - softmax * g: forgets to sum g over the axis",
        find="            self.grad += out.grad - softmax * out.grad.sum(axis=axis, keepdims=True)\n",
        replace="            self.grad += out.grad - softmax * out.grad\n",
    ),
    Mutant(
        id="log-softmax-backward-last-axis",
        target="softmax",
        symbol="Tensor.log_softmax",
        bug="backward sums over axis=-1 whatever the op's axis",
        find="            self.grad += out.grad - softmax * out.grad.sum(axis=axis, keepdims=True)\n",
        replace="            self.grad += out.grad - softmax * out.grad.sum(axis=-1, keepdims=True)\n",
    ),
    Mutant(
        id="log-softmax-backward-uses-logp",
        target="softmax",
        symbol="Tensor.log_softmax",
        bug="uses the log-probabilities out.data as if they were the softmax (forgets the exp)",
        find="            softmax = np.exp(out.data)\n",
        replace="            softmax = out.data\n",
    ),
    Mutant(
        id="softmax-no-max-shift",
        target="softmax",
        symbol="Tensor.softmax",
        bug="no max shift before exp: inf / inf = nan at logits of magnitude 1000",
        find="        e = np.exp(self.data - self.data.max(axis=axis, keepdims=True))  # NOTE: shifted, as above\n",
        replace="        e = np.exp(self.data)\n",
    ),
    Mutant(
        id="softmax-backward-diagonal-only",
        target="softmax",
        symbol="Tensor.softmax",
        bug="uses only the Jacobian's diagonal s(1 - s): the -s_i s_j cross terms (the sum term) are missing",
        find="            self.grad += s * (out.grad - (out.grad * s).sum(axis=axis, keepdims=True))\n",
        replace="            self.grad += s * (1.0 - s) * out.grad\n",
    ),
    Mutant(
        id="softmax-backward-last-axis",
        target="softmax",
        symbol="Tensor.softmax",
        bug="backward sums over axis=-1 whatever the op's axis",
        find="            self.grad += s * (out.grad - (out.grad * s).sum(axis=axis, keepdims=True))\n",
        replace="            self.grad += s * (out.grad - (out.grad * s).sum(axis=-1, keepdims=True))\n",
    ),
    Mutant(
        id="reshape-backward-not-reshaped",
        target="softmax",
        symbol="Tensor.reshape",
        bug="backward adds out.grad as it is, in the output's shape, instead of reshaping it back",
        find="            self.grad += out.grad.reshape(self.shape)\n",
        replace="            self.grad += out.grad\n",
    ),
    Mutant(
        id="reshape-rejects-tuple",
        target="softmax",
        symbol="Tensor.reshape",
        bug="does not unpack reshape((2, 3)): only the reshape(2, 3) form works",
        find=(
            "        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):\n"
            "            shape = tuple(shape[0])\n"
            '        out = Tensor(self.data.reshape(shape), _children=(self,), _op="reshape")\n'
        ),
        replace='        out = Tensor(self.data.reshape(shape), _children=(self,), _op="reshape")\n',
    ),
    Mutant(
        id="reshape-assigns-instead-of-accumulating",
        target="softmax",
        symbol="Tensor.reshape",
        bug="`=` instead of `+=`: a tensor used both reshaped and as it is loses one contribution",
        find="            self.grad += out.grad.reshape(self.shape)\n",
        replace="            self.grad = out.grad.reshape(self.shape)\n",
    ),
    Mutant(
        id="transpose-backward-same-permutation",
        target="softmax",
        symbol="Tensor.transpose",
        bug="backward applies the permutation again instead of its inverse: right for a swap, wrong for a 3-cycle",
        find="            self.grad += out.grad.transpose(np.argsort(perm))\n",
        replace="            self.grad += out.grad.transpose(perm)\n",
    ),
    Mutant(
        id="transpose-negative-axes-not-normalised",
        target="softmax",
        symbol="Tensor.transpose",
        bug="keeps negative axes as given, so argsort inverts the wrong permutation for transpose(0, -1, 1)",
        find="        perm = tuple(a % ndim for a in axes) if axes else tuple(reversed(range(ndim)))\n",
        replace="        perm = tuple(axes) if axes else tuple(reversed(range(ndim)))\n",
    ),
    Mutant(
        id="transpose-default-swaps-last-two",
        target="softmax",
        symbol="Tensor.transpose",
        bug="with no axes swaps only the last two axes instead of reversing them all (.T of a 3-D tensor)",
        find="        perm = tuple(a % ndim for a in axes) if axes else tuple(reversed(range(ndim)))\n",
        replace=("        perm = tuple(a % ndim for a in axes) if axes else (*range(ndim - 2), ndim - 1, ndim - 2)\n"),
    ),
    # ------------------------------------------------------------------------------ cross-entropy
    Mutant(
        id="cross-entropy-divides-by-k",
        target="cross-entropy",
        symbol="cross_entropy",
        bug="divides by the number of classes K instead of the batch size N",
        find="    return -(logits.log_softmax(axis=-1) * one_hot).sum() / n\n",
        replace="    return -(logits.log_softmax(axis=-1) * one_hot).sum() / k\n",
    ),
    Mutant(
        id="cross-entropy-sums-instead-of-mean",
        target="cross-entropy",
        symbol="cross_entropy",
        bug="sums the per-example losses instead of averaging them over the batch",
        find="    return -(logits.log_softmax(axis=-1) * one_hot).sum() / n\n",
        replace="    return -(logits.log_softmax(axis=-1) * one_hot).sum()\n",
    ),
    Mutant(
        id="cross-entropy-mean-over-all-entries",
        target="cross-entropy",
        symbol="cross_entropy",
        bug="takes .mean() of the masked (N, K) matrix, dividing by N * K instead of N",
        find="    return -(logits.log_softmax(axis=-1) * one_hot).sum() / n\n",
        replace="    return -(logits.log_softmax(axis=-1) * one_hot).mean()\n",
    ),
    Mutant(
        id="cross-entropy-log-of-softmax",
        target="cross-entropy",
        symbol="cross_entropy",
        bug="log(softmax(x)) instead of log_softmax: softmax underflows to 0 at large logits, log(0) = -inf",
        find="    return -(logits.log_softmax(axis=-1) * one_hot).sum() / n\n",
        replace="    return -(logits.softmax(axis=-1).log() * one_hot).sum() / n\n",
    ),
    Mutant(
        id="cross-entropy-one-hot-transposed",
        target="cross-entropy",
        symbol="cross_entropy",
        bug="one_hot[labels, arange(N)]: labels index the rows, so it fails or picks wrong entries when N != K",
        find="    one_hot[np.arange(n), labels] = 1.0\n",
        replace="    one_hot[labels, np.arange(n)] = 1.0\n",
    ),
    Mutant(
        id="cross-entropy-missing-minus",
        target="cross-entropy",
        symbol="cross_entropy",
        bug="forgets the minus sign: returns the mean log-likelihood, not its negative",
        find="    return -(logits.log_softmax(axis=-1) * one_hot).sum() / n\n",
        replace="    return (logits.log_softmax(axis=-1) * one_hot).sum() / n\n",
    ),
    Mutant(
        id="cross-entropy-log-softmax-over-batch",
        target="cross-entropy",
        symbol="cross_entropy",
        bug="normalises over the batch axis (log_softmax(axis=0)) instead of over the classes",
        find="    return -(logits.log_softmax(axis=-1) * one_hot).sum() / n\n",
        replace="    return -(logits.log_softmax(axis=0) * one_hot).sum() / n\n",
    ),
    Mutant(
        id="max-grad-to-every-tie",
        target="max",
        symbol="Tensor.max",
        bug="sends the gradient to every maximal element (x == max), where torch picks the first",
        find="            mask = np.zeros_like(x)\n            np.put_along_axis(mask, first, 1.0, axis=ax)\n",
        replace="            mask = (x == top).astype(np.float64)\n",
    ),
    Mutant(
        id="max-splits-ties-evenly",
        target="max",
        symbol="Tensor.max",
        bug="splits the gradient evenly among ties, as torch.max() without dim does, not max(dim)",
        find="            mask = np.zeros_like(x)\n            np.put_along_axis(mask, first, 1.0, axis=ax)\n",
        replace="            mask = (x == top) / (x == top).sum(axis=ax, keepdims=True)\n",
    ),
    Mutant(
        id="max-grad-without-reduced-axis",
        target="max",
        symbol="Tensor.max",
        bug="multiplies the mask by out.grad without restoring the reduced axis",
        find="            self.grad += (mask * out.grad.reshape(top.shape)).reshape(self.shape)\n",
        replace="            self.grad += (mask * out.grad).reshape(self.shape)\n",
    ),
    Mutant(
        id="max-uses-argmin",
        target="max",
        symbol="Tensor.max",
        bug="np.argmin for np.argmax: the minimum, with the gradient going there",
        find="        first = np.expand_dims(np.argmax(x, axis=ax), ax)",
        replace="        first = np.expand_dims(np.argmin(x, axis=ax), ax)",
    ),
    Mutant(
        id="cotangent-ignored",
        target="cotangent",
        symbol="Tensor.backward",
        bug="seeds ones even when a cotangent is given",
        find="            self.grad = seed\n",
        replace="            self.grad = np.ones_like(self.data)\n",
    ),
    Mutant(
        id="cotangent-still-requires-one-element",
        target="cotangent",
        symbol="Tensor.backward",
        bug="refuses a non-scalar root even with a cotangent",
        find="        if gradient is None:\n            if self.data.size != 1:",
        replace="        if gradient is None or self.data.size != 1:\n            if self.data.size != 1:",
    ),
    Mutant(
        id="cotangent-broadcast-silently",
        target="cotangent",
        symbol="Tensor.backward",
        bug="broadcasts a cotangent of another shape instead of refusing it",
        find='            if seed.shape != self.shape:\n                raise ValueError(f"gradient has shape {seed.shape}, but the root has shape {self.shape}")\n            self.grad = seed\n',
        replace="            self.grad = np.broadcast_to(seed, self.shape).copy()\n",
    ),
    Mutant(
        id="numerical-grad-one-sided-eps",
        target="gradcheck",
        symbol="numerical_grad",
        bug="divides the central difference by eps, not 2 eps",
        find="            grad[i] = (plus - minus) / (2 * eps)\n",
        replace="            grad[i] = (plus - minus) / eps\n",
    ),
    Mutant(
        id="numerical-grad-no-restore",
        target="gradcheck",
        symbol="numerical_grad",
        bug="forgets to restore x[i]: every later element is measured at a shifted point",
        find="            x[i] = original  # NOTE: restore before the next element, or every later one is shifted\n",
        replace="",
    ),
    Mutant(
        id="gradcheck-always-passes",
        target="gradcheck",
        symbol="gradcheck",
        bug="reports passed=True whatever it measured",
        find="    return worst._replace(passed=bool(worst_excess <= 0))\n",
        replace="    return worst._replace(passed=True)\n",
    ),
    Mutant(
        id="gradcheck-blames-first-input",
        target="gradcheck",
        symbol="gradcheck",
        bug="keeps the worst element of the first input only",
        find="        if excess[i] > worst_excess:\n",
        replace="        if k == 0:\n",
    ),
    Mutant(
        id="free-memory-never-releases",
        target="free-memory",
        symbol="Tensor.backward",
        bug="never releases anything: the closures keep the whole graph alive",
        find="                node._backward = lambda: None\n                node._prev = ()\n",
        replace="                pass\n",
    ),
    Mutant(
        id="free-memory-keeps-prev",
        target="free-memory",
        symbol="Tensor.backward",
        bug="drops the closures but keeps _prev: the root still holds the graph",
        find="                node._backward = lambda: None\n                node._prev = ()\n",
        replace="                node._backward = lambda: None\n",
    ),
    Mutant(
        id="free-memory-holds-the-list",
        target="free-memory",
        symbol="Tensor.backward",
        bug="loops over the node list instead of popping it: nothing is freed until backward returns",
        find="        while order:\n            node = order.pop()  # the last in topological order: all its consumers have run\n",
        replace="        for node in reversed(order):\n",
    ),
    Mutant(
        id="free-memory-releases-before-running",
        target="free-memory",
        symbol="Tensor.backward",
        bug="releases the closure before calling it: no gradient flows",
        find="            node._backward()\n            if not retain_graph:\n",
        replace="            if not retain_graph:\n                node._backward = lambda: None\n            node._backward()\n            if not retain_graph:\n",
    ),
    Mutant(
        id="dual-mul-drops-a-term",
        target="forward-mode",
        symbol="Dual.__mul__",
        bug="forgets x dy in the product rule",
        find="        return Dual(self.primal * other.primal, self.tangent * other.primal + self.primal * other.tangent)\n",
        replace="        return Dual(self.primal * other.primal, self.tangent * other.primal)\n",
    ),
    Mutant(
        id="dual-matmul-drops-a-term",
        target="forward-mode",
        symbol="Dual.__matmul__",
        bug="forgets A dB",
        find="        return Dual(self.primal @ other.primal, self.tangent @ other.primal + self.primal @ other.tangent)\n",
        replace="        return Dual(self.primal @ other.primal, self.tangent @ other.primal)\n",
    ),
    Mutant(
        id="dual-tanh-of-the-input",
        target="forward-mode",
        symbol="Dual.tanh",
        bug="1 - x^2 instead of 1 - tanh(x)^2",
        find="        return Dual(t, (1.0 - t**2) * self.tangent)\n",
        replace="        return Dual(t, (1.0 - self.primal**2) * self.tangent)\n",
    ),
    Mutant(
        id="dual-log-times-x",
        target="forward-mode",
        symbol="Dual.log",
        bug="multiplies the tangent by x instead of dividing",
        find="        return Dual(np.log(self.primal), self.tangent / self.primal)\n",
        replace="        return Dual(np.log(self.primal), self.tangent * self.primal)\n",
    ),
    Mutant(
        id="hvp-forgets-the-2",
        target="forward-mode",
        symbol="hvp",
        bug="writes dL/da = a instead of 2a",
        find="    dz = (a * 2.0) * (z.primal > 0)",
        replace="    dz = a * (z.primal > 0)",
    ),
    Mutant(
        id="jvp-swaps-value-and-tangent",
        target="forward-mode",
        symbol="jvp",
        bug="returns (tangent, value)",
        find="    return out.primal, out.tangent\n",
        replace="    return out.tangent, out.primal\n",
    ),
)
