"""What the suite itself costs, by construction (issue 26: ``python -m pytest -n auto`` within 200
CPU-s): each of pytest-xdist's workers collects every test module, so what a module does at import
is paid once per worker; what a test process does ahead of time for a grading to come is paid
whether or not that grading comes. ``python tests/cpu_report.py`` measures it (tests/conftest.py,
DRILL_TEST_CPU_LOG)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bytecode import mirror, prune
from tests.conftest import AUTO_WORKERS_ENV, COLLECT_EVERY
from tests.processes import own_temp
from tests.support import ROOT, TORCH_AT_COLLECTION
from tests.test_pack_installed import PACK, installed_site


def test_a_test_process_collects_its_cycles_rarely_and_leaves_what_the_collection_made_out() -> None:
    """The cycle collector of a test process runs at COLLECT_EVERY, not Python's 700 allocations, and
    walks none of what the collection imported (frozen): the default thresholds cost a fifth of a test
    process's CPU (tests/conftest.py)."""
    assert gc.get_threshold() == COLLECT_EVERY
    imported = vars(sys.modules[__name__])  # a module of the collection, which refers to a great deal
    assert gc.is_tracked(imported) and not any(o is imported for o in gc.get_objects()), "walked: not frozen"


FOLDERS_SEEN: list[Path] = []


@pytest.mark.parametrize("run", [1, 2])
def test_each_test_has_a_new_folder_of_its_own_for_its_user_state(run: int, tmp_path: Path, drill_home: Path) -> None:
    """tests/conftest.py's ``tmp_path`` (made without pytest's search of the base folder) is still a
    new, empty folder for each test, named after it, and the user's state (DRILL_HOME) lives there:
    the second of these two tests, run in the same process, sees nothing of the first's. Nor does the
    machine's /tmp see what the test's processes leave: their TMPDIR is an empty folder of the test's."""
    assert drill_home.parent == tmp_path and os.environ["DRILL_HOME"] == str(drill_home)
    temp = own_temp(tmp_path)
    assert os.environ["TMPDIR"] == str(temp) and temp.is_dir() and not any(temp.iterdir())
    assert tmp_path.is_dir() and sorted(tmp_path.iterdir()) == [temp], sorted(tmp_path.iterdir())
    assert tmp_path.name.startswith("test_each_test_has_a_new_fold") and tmp_path not in FOLDERS_SEEN
    FOLDERS_SEEN.append(tmp_path)
    (tmp_path / "left-by-this-test").write_text(str(run), encoding="utf-8")


def test_the_collection_imports_no_torch(request: pytest.FixtureRequest) -> None:
    """torch (2.5 CPU-s to import) is imported by the tests about live torch as they run, never by the
    collection of a module (tests/pack_layers_cases.py imported it at the top: each worker paid it)."""
    assert request.config.stash[TORCH_AT_COLLECTION] is False


def test_the_suite_refuses_to_run_where_a_pack_is_really_installed(tmp_path):
    """With the layers pack installed in the environment (its dist-info on the path, as pip would leave
    it), every view lists its drills and the built-in pack's expectations fail (48 tests did): the suite
    says so in one line and runs nothing."""
    site = installed_site(tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PACK), str(site), str(ROOT)])}
    env.pop("PYTEST_XDIST_WORKER", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/test_records.py", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 4, done.stdout + done.stderr
    assert "the drill pack(s) layers installed" in done.stderr and "pip install -e '.[dev]'" in done.stderr
    assert "passed" not in done.stdout


def test_auto_is_one_worker_more_than_the_cores_unless_the_environment_says(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-n auto`` (tests/conftest.py): pytest-xdist's count of the cores and one worker more, to fill
    the time the suite's workers wait on real processes; ``$PYTEST_XDIST_AUTO_NUM_WORKERS`` still rules."""
    if not request.config.pluginmanager.hasplugin("xdist"):
        pytest.skip("pytest-xdist is not loaded: there is no -n")
    import xdist.plugin as xdist

    monkeypatch.delenv(AUTO_WORKERS_ENV, raising=False)
    cores = xdist.pytest_xdist_auto_num_workers(request.config)
    assert request.config.hook.pytest_xdist_auto_num_workers(config=request.config) == cores + 1
    monkeypatch.setenv(AUTO_WORKERS_ENV, "5")
    assert request.config.hook.pytest_xdist_auto_num_workers(config=request.config) == 5


def test_the_bytecode_of_temporary_folders_that_are_gone_is_pruned_and_the_rest_kept(tmp_path: Path) -> None:
    """tests/bytecode.py: a run's modules under its base folder are cached once and never read again;
    the run that starts after pytest dropped that folder removes them, and nothing else."""
    temp, cache = tmp_path / "temp", tmp_path / "temp" / "cache"
    (temp / "pytest-of-me" / "pytest-9" / "t0").mkdir(parents=True)  # a run's base folder, still there
    (temp / "tmp.live" / "c" / "drills").mkdir(parents=True)  # a clone, still there
    kept = [
        mirror(temp / "pytest-of-me" / "pytest-9" / "t0", cache),
        mirror(temp / "tmp.live" / "c" / "drills", cache),
        mirror(ROOT / "drills", cache),  # outside the temporary folder
    ]
    gone = [mirror(temp / "pytest-of-me" / "pytest-7", cache), mirror(temp / "tmp.gone", cache)]
    for folder in [*kept, *gone]:
        folder.mkdir(parents=True)
        (folder / "m.cpython-311.pyc").write_bytes(b"compiled")
    assert sorted(prune(cache, temp)) == sorted(gone)
    assert all(folder.is_dir() for folder in kept) and not any(folder.exists() for folder in gone)
    assert prune(cache, temp) == [] and prune(tmp_path / "no-cache-yet", temp) == []
