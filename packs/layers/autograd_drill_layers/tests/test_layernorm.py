"""layernorm_forward and layernorm_backward against torch.nn.functional.layer_norm, in float64."""

import pytest
from layers_cases import GRADED, case, cases
from layers_checks import INTACT, SHARED, Layer, check_against_torch, check_intact, params

from autograd_drill.grader.contract import clause

pytestmark = pytest.mark.layernorm

LAYER = Layer("layernorm", "layernorm_forward", "layernorm_backward", ("x", "weight", "bias"))
LAST_AXIS = "Layer normalisation over the last axis, then a per-feature scale and shift"
LEADING = "``x`` has any leading shape ``(..., D)`` (at least one axis)"
BIASED = "its *biased* variance (divided by D, not D - 1)"
AS_TORCH = "As ``torch.nn.functional.layer_norm(x, (D,), weight, bias, eps)``"
SUMMED = "``dweight`` and ``dbias`` sum over every leading axis of ``x``"
EPS = "``xhat = (x - mean) / sqrt(var + eps)``"


def _phrases(found):
    return [EPS] if "eps" in found else []


CASES = params(cases("layernorm", GRADED), _phrases)


def torch_layernorm(x, weight, bias, eps=1e-5):
    import torch.nn.functional as F

    return F.layer_norm(x, (x.shape[-1],), weight, bias, eps)


@clause(*SHARED, LAST_AXIS, LEADING, BIASED, AS_TORCH, SUMMED)
@pytest.mark.parametrize("index", CASES)
def test_layernorm(grade, index):
    check_against_torch(grade, LAYER, case("layernorm", index), torch_layernorm)


@clause(*INTACT)
@pytest.mark.parametrize("index", CASES)
def test_layernorm_leaves_its_inputs_alone(grade, index):
    check_intact(grade, LAYER, case("layernorm", index))
