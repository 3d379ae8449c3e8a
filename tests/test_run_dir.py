"""The run directory's rule for records an uncommitted checkout made
(configs/runs.py): a clean checkout runs them again, an uncommitted one
reuses them, so nothing published can come from code no commit holds."""

import pytest

from configs import runs
from lab import cache


class _Keeps:
    """A backend that stands by every record it is shown (the real ones
    re-check a guest clock or a gem5 build; that is not what is tested)."""

    @staticmethod
    def revalidate(record, _run_dir):
        return record


def _store(key, lab_version):
    record = {"key": key, "provenance": {"uaccess_lab": lab_version}}
    cache.write_json_atomic(runs.run_dir(key) / "record.json", record)
    return record


@pytest.fixture
def checkout(monkeypatch, tmp_path):
    monkeypatch.setenv("UACCESS_CACHE", str(tmp_path / "cache"))
    runs._dirty_checkout.cache_clear()
    yield lambda version: monkeypatch.setattr(runs, "_checkout_version", lambda: version)
    runs._dirty_checkout.cache_clear()


def test_a_clean_checkout_runs_again_what_an_uncommitted_one_made(checkout):
    checkout("0f0c772")
    _store("k-dirty", "416bcd4-dirty")
    clean = _store("k-clean", "416bcd4")
    assert runs.finished("k-dirty", _Keeps) is None
    assert runs.finished("k-clean", _Keeps) == clean
    # and in_run_dir then executes it, replacing the old record whole
    made = runs.in_run_dir("k-dirty", False, "p", lambda work: {"provenance": {
        "uaccess_lab": "0f0c772"}}, _Keeps)
    assert made["provenance"]["uaccess_lab"] == "0f0c772"
    assert runs.stored("k-dirty")["provenance"]["uaccess_lab"] == "0f0c772"


def test_an_uncommitted_checkout_reuses_its_own_kind(checkout):
    checkout("0f0c772-dirty")
    dirty = _store("k-dirty", "416bcd4-dirty")
    assert runs.finished("k-dirty", _Keeps) == dirty
