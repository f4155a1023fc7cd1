"""The ``layers`` pack "installed" in this test process, as tests/test_pack_installed.py installs it for
a child: packs/layers and a throwaway ``autograd_drill_layers-VERSION.dist-info`` on ``sys.path`` (so
importlib.metadata finds its entry point), and on PYTHONPATH, with torch made unimportable, for the
children a grading starts. The merged catalog and the packs found are forgotten on the way in and out
(drills/targets.py ``clear``), so the tests around see the built-in pack alone again."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from autograd_drill import targets
from tests.support import without_torch
from tests.test_pack_installed import PACK, installed_site


@contextmanager
def layers_here(folder: Path) -> Iterator[Path]:
    """The layers pack installed while in the block (``folder`` holds its dist-info and the fake torch);
    the site folder."""
    site = installed_site(folder / "site")
    base = without_torch(folder / "no-torch")
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(site))
        patch.syspath_prepend(str(PACK))
        patch.setenv("PYTHONPATH", ":".join([str(PACK), str(site), base["PYTHONPATH"]]))
        targets.clear()
        try:
            yield site
        finally:
            targets.clear()
    targets.clear()
