"""maxpool2d_forward and maxpool2d_backward against torch.nn.functional.max_pool2d, in float64."""

import numpy as np
import pytest
from layers_cases import GRADED, case, cases
from layers_checks import INTACT, SHARED, Layer, check_against_torch, check_intact, params

from autograd_drill.grader.contract import clause

pytestmark = pytest.mark.maxpool

LAYER = Layer("maxpool2d", "maxpool2d_forward", "maxpool2d_backward", ("x",))
POOL = "2-D max pooling over the last two axes of ``x`` ``(N, C, H, W)``"
PAIRS = "``kernel_size`` and ``stride`` are each an int or a pair ``(height, width)``"
SIZE = "``Ho = (H - KH) // stride_h + 1``"
AS_TORCH = "As ``torch.nn.functional.max_pool2d(x, kernel_size, stride)``"
ONE_ARRAY = "``maxpool2d_backward``, with one differentiable input, returns the one array ``dx``"
ONE_ELEMENT = "Each window's ``dout`` goes to one element"
DEFAULT_STRIDE = "``stride`` defaults to ``kernel_size`` (windows side by side)"
TIES = "on a tie the first maximal element in row-major order within the window"
OVERLAP = "Overlapping windows (``stride`` smaller than ``kernel_size``) that pick the same element add their gradients"


def _pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


def _phrases(found):
    phrases = []
    if "stride" not in found:
        phrases.append(DEFAULT_STRIDE)
    elif np.less(_pair(found["stride"]), _pair(found["kernel_size"])).any():
        phrases.append(OVERLAP)
    if len(np.unique(found["x"])) < found["x"].size:
        phrases.append(TIES)
    return phrases


CASES = params(cases("maxpool2d", GRADED), _phrases)


def torch_maxpool2d(x, kernel_size, stride=None):
    import torch.nn.functional as F

    return F.max_pool2d(x, kernel_size, stride)


@clause(*SHARED, POOL, PAIRS, SIZE, AS_TORCH, ONE_ARRAY, ONE_ELEMENT)
@pytest.mark.parametrize("index", CASES)
def test_maxpool2d(grade, index):
    check_against_torch(grade, LAYER, case("maxpool2d", index), torch_maxpool2d)


@clause(*INTACT)
@pytest.mark.parametrize("index", CASES)
def test_maxpool2d_leaves_its_inputs_alone(grade, index):
    check_intact(grade, LAYER, case("maxpool2d", index))
