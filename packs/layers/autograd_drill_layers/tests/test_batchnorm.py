"""batchnorm_forward and batchnorm_backward against torch.nn.functional.batch_norm (training mode), in float64."""

import pytest
from layers_cases import GRADED, case, cases
from layers_checks import INTACT, SHARED, Layer, check_against_torch, check_intact, params

from autograd_drill.grader.contract import clause

pytestmark = pytest.mark.batchnorm

LAYER = Layer("batchnorm", "batchnorm_forward", "batchnorm_backward", ("x", "weight", "bias"))
TRAINING = "Batch normalisation in training mode: batch statistics per channel, then a scale and shift"
SHAPES = "``x`` is ``(N, C)`` or ``(N, C, H, W)`` (any ``(N, C, *spatial)``); channels are axis 1"
BIASED = "the *biased* variance (divided by the count, not count - 1) over every axis but axis 1"
AS_TORCH = "As ``torch.nn.functional.batch_norm(x, None, None, weight, bias, training=True, eps=eps)``"
SUMMED = "``dweight`` and ``dbias`` sum over every axis but axis 1"
EPS = "``out = (x - mean) / sqrt(var + eps) * weight + bias``"


def _phrases(found):
    return [EPS] if "eps" in found else []


CASES = params(cases("batchnorm", GRADED), _phrases)


def torch_batchnorm(x, weight, bias, eps=1e-5):
    import torch.nn.functional as F

    return F.batch_norm(x, None, None, weight, bias, training=True, eps=eps)


@clause(*SHARED, TRAINING, SHAPES, BIASED, AS_TORCH, SUMMED)
@pytest.mark.parametrize("index", CASES)
def test_batchnorm(grade, index):
    check_against_torch(grade, LAYER, case("batchnorm", index), torch_batchnorm)


@clause(*INTACT)
@pytest.mark.parametrize("index", CASES)
def test_batchnorm_leaves_its_inputs_alone(grade, index):
    check_intact(grade, LAYER, case("batchnorm", index))
