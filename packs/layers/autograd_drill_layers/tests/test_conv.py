"""conv2d_forward and conv2d_backward against torch.nn.functional.conv2d, in float64."""

import pytest
from layers_cases import GRADED, case, cases
from layers_checks import INTACT, SHARED, Layer, check_against_torch, check_intact, params

from autograd_drill.grader.contract import clause

pytestmark = pytest.mark.conv

LAYER = Layer("conv2d", "conv2d_forward", "conv2d_backward", ("x", "weight", "bias"))
CONV = "A 2-D convolution (a cross-correlation, as in every deep-learning library), NCHW"
SHAPES = "``x`` is ``(N, C, H, W)``, ``weight`` is ``(F, C, KH, KW)``, ``bias`` is ``(F,)``"
PAIRS = "``stride`` and ``padding`` are each an int (the same for height and width) or a pair ``(height, width)``"
ZEROS = "the padding is zeros on both sides"
SIZE = "``Ho = (H + 2 * pad_h - KH) // stride_h + 1``"
ROUNDED = "rounded down: rows a stride skips at the end get a zero gradient"
AS_TORCH = "As ``torch.nn.functional.conv2d(x, weight, bias, stride, padding)``"
GRADS = "``(dx, dweight, dbias)``, of the shapes of ``x``, ``weight`` and ``bias``"


def _skips(found):
    """A stride that leaves rows or columns of the padded input unused at the end."""
    x, w = found["x"], found["weight"]
    stride, padding = found["stride"], found["padding"]
    sh, sw = (stride, stride) if isinstance(stride, int) else stride
    ph, pw = (padding, padding) if isinstance(padding, int) else padding
    return (x.shape[2] + 2 * ph - w.shape[2]) % sh or (x.shape[3] + 2 * pw - w.shape[3]) % sw


def _phrases(found):
    return [ROUNDED] if _skips(found) else []


CASES = params(cases("conv2d", GRADED), _phrases)


def torch_conv2d(x, weight, bias, stride=1, padding=0):
    import torch.nn.functional as F

    return F.conv2d(x, weight, bias, stride, padding)


@clause(*SHARED, CONV, SHAPES, PAIRS, ZEROS, SIZE, AS_TORCH, GRADS)
@pytest.mark.parametrize("index", CASES)
def test_conv2d(grade, index):
    check_against_torch(grade, LAYER, case("conv2d", index), torch_conv2d)


@clause(*INTACT)
@pytest.mark.parametrize("index", CASES)
def test_conv2d_leaves_its_inputs_alone(grade, index):
    check_intact(grade, LAYER, case("conv2d", index))
