"""adam_step against one torch.optim.Adam step, in float64."""

import numpy as np
import pytest
from layers_cases import GRADED, case, cases
from layers_checks import FLOAT64, INTACT, Layer, check_intact, options, params

from autograd_drill.grader.contract import clause

pytestmark = pytest.mark.adam

LAYER = Layer("adam", "adam_step", None, ("param", "grad", "m", "v"), ("param", "m", "v"))
STEP = "One Adam step: the new ``(param, m, v)``, three new arrays of ``param``'s shape"
COUNTED = "``t`` is the number of this step, counting from 1"
MOMENTS = "``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2``"
CORRECTION = "the bias corrections ``m_hat = m / (1 - b1^t)`` and ``v_hat = v / (1 - b2^t)``"
UPDATE = "``param - lr * m_hat / (sqrt(v_hat) + eps)``"
AS_TORCH = "As one ``torch.optim.Adam([param], lr, betas, eps, weight_decay).step()`` from the state ``(t - 1, m, v)``"
DECAY = "Weight decay is torch.optim.Adam's L2 penalty, added to the gradient before the moments"


def _phrases(found):
    return [DECAY] if found.get("weight_decay") else []


CASES = params(cases("adam", GRADED), _phrases)


def torch_adam(told):
    """One torch.optim.Adam step from the state ``(t - 1, m, v)``, as ``values`` asks it."""

    def compute(torch, param, grad, m, v):
        param = param.clone().requires_grad_(True)
        param.grad = grad.clone()
        optimizer = torch.optim.Adam(
            [param], **{k: told[k] for k in ("lr", "betas", "eps", "weight_decay") if k in told}
        )
        optimizer.state[param] = {
            "step": torch.tensor(float(told["t"]) - 1.0),
            "exp_avg": m.clone(),
            "exp_avg_sq": v.clone(),
        }
        optimizer.step()
        state = optimizer.state[param]
        return param.detach(), state["exp_avg"], state["exp_avg_sq"]

    return compute


@clause(FLOAT64, STEP, COUNTED, MOMENTS, CORRECTION, UPDATE, AS_TORCH)
@pytest.mark.parametrize("index", CASES)
def test_adam(grade, index):
    found = case("adam", index)
    arrays = [np.asarray(found[name]) for name in LAYER.inputs]
    expected = grade.oracle.values(torch_adam(options(LAYER, found)), arrays)
    with grade.running("adam_step"):
        result = grade.impl.adam_step(**found)
    if not (isinstance(result, tuple | list) and len(result) == 3):
        shown = f"{len(result)} values" if isinstance(result, tuple | list) else type(result).__name__
        raise grade.fail("adam_step", f"returned {shown}, not (param, m, v)")
    for name, mine, theirs in zip(LAYER.results, result, expected, strict=True):
        if not isinstance(mine, np.ndarray | np.float64) or np.asarray(mine).dtype != np.float64:
            raise grade.fail("adam_step", f"the new {name} is {type(mine).__name__}, not a float64 ndarray")
        grade.expect("adam_step", f"the new {name}", mine, theirs)


@clause(*INTACT)
@pytest.mark.parametrize("index", CASES)
def test_adam_leaves_its_inputs_alone(grade, index):
    check_intact(grade, LAYER, case("adam", index))
