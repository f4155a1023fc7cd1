"""attention_forward and attention_backward against torch.nn.functional.scaled_dot_product_attention, in float64."""

import numpy as np
import pytest
from layers_cases import GRADED, case, cases
from layers_checks import INTACT, SHARED, Layer, check_against_torch, check_intact, params

from autograd_drill.grader.contract import clause

pytestmark = pytest.mark.attention

LAYER = Layer("attention", "attention_forward", "attention_backward", ("q", "k", "v"))
SDPA = "Scaled dot-product attention: ``softmax(q @ k^T / sqrt(d)) @ v``, the softmax over the last axis"
SHAPES = "with the same leading shape (any number of leading axes, none included)"
SCALE = "The scale is ``1 / sqrt(d)``, d the last axis of ``q``"
AS_TORCH = "As ``torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)``"
GRADS = "``(dq, dk, dv)``, of the shapes of ``q``, ``k`` and ``v``"
CAUSAL = "``causal=True`` masks the scores above the main diagonal, aligned at the top left"
CAUSAL_SHAPES = "query ``i`` attends to keys ``j <= i`` only, also when ``Lq != Lk``"
STABLE = "scores as large as 1e4 give no overflow"


def _phrases(found):
    phrases = [CAUSAL, CAUSAL_SHAPES] if found["causal"] else []
    if np.abs(found["q"]).max() * np.abs(found["k"]).max() > 100:
        phrases.append(STABLE)
    return phrases


CASES = params(cases("attention", GRADED), _phrases)


def torch_attention(q, k, v, causal=False):
    import torch.nn.functional as F

    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


@clause(*SHARED, SDPA, SHAPES, SCALE, AS_TORCH, GRADS)
@pytest.mark.parametrize("index", CASES)
def test_attention(grade, index):
    check_against_torch(grade, LAYER, case("attention", index), torch_attention)


@clause(*INTACT)
@pytest.mark.parametrize("index", CASES)
def test_attention_leaves_its_inputs_alone(grade, index):
    check_intact(grade, LAYER, case("attention", index))
