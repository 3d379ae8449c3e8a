"""The seeds in the repository (issue 46): analysis/seeds.toml holds, per
thread, the lines that hold each hardware number the study scores, and
docs/seeds.md shows them. Every seed the scorecard (or a calibration
target) cites is there, every number it takes from a seed is one of that
seed's quoted numbers or computed from them, so a typo in either fails;
and nothing in the repository points at the thread dumps outside it."""

import math
import os
import re
import subprocess
import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

from analysis import claims
from analysis.kinds import registry
from lab import calibration_targets

REPO = Path(__file__).resolve().parent.parent
SEEDS_FILE = REPO / "analysis" / "seeds.toml"
PAGE = REPO / "docs" / "seeds.md"
# The archived thread pages themselves, where this checkout has them (not
# in a clone): SEEDS_ARCHIVE, or the workspace's copy beside the checkout.
ARCHIVE = Path(os.environ.get("SEEDS_ARCHIVE", REPO.parent / "shared" / "seeds"))
SEED_ID = re.compile(r"[0-9]{3}_[0-9a-f]{16}")

# The old pointer to the dumps outside the repository, spelled in two parts
# so that this file does not match itself.
OUTSIDE = "../shared/" + "seeds"
def _seeds() -> dict:
    with open(SEEDS_FILE, "rb") as f:
        return tomllib.load(f)


def _norm(text: str) -> str:
    """Lines as the archived pages have them, without the spaces some end
    with (pipermail keeps them; the page and this file do not)."""
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def _values(seed: dict) -> dict:
    """name -> value: the quoted numbers, then the derived ones (each a
    Python expression over the names before it)."""
    names = {n["name"]: n["value"] for q in seed["quote"] for n in q["numbers"]}
    for name, expr in seed.get("derived", {}).items():
        names[name] = eval(expr, {"__builtins__": {}}, dict(names))
    return names


# A number as the scorecard prints it in a claim's `hardware` text: 5.530,
# 1.5, 10,000,000 or 10M; not the 4 of ext4 nor the 86 of x86.
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:,\d{3})*(?:\.(\d+))?)(M)?(?!\w|\.\d)")


def _printed(text: str) -> list:
    """(value, tolerance) for each number in a claim's hardware text: a
    number matches within half a unit of its last printed digit."""
    out = []
    for m in _NUMBER.finditer(text):
        scale = 1e6 if m.group(3) else 1
        decimals = len(m.group(2) or "")
        out.append((float(m.group(1).replace(",", "")) * scale, 0.5 * 10 ** -decimals * scale))
    return out


def _cited() -> list:
    """(where, seed id, [(value, tolerance)]) for every citation of a seed:
    the scorecard's claims (analysis/claims.toml, each number looked up by
    name among its seed's, and the numbers its hardware text prints), its
    pending ones, the calibration targets and the era presets."""
    out = []
    c = registry.CLAIMS
    for claim in [x for x in c.every() if isinstance(x, claims.Cited)]:
        nums = _printed(claim.hardware)
        for f in fields(claim):
            if f.name == "size":
                continue  # a workload's size in bytes (arm_base), not a hardware number
            v = getattr(claim, f.name)
            for x in (v if isinstance(v, tuple) else (v,)):
                if isinstance(x, (int, float)) and not isinstance(x, bool):
                    nums.append((x, 0.0))
        out.append((claim.id, claim.seed, nums))
    for p in c.of("pending"):
        out.append((p.what, p.seed, []))
    for m in calibration_targets.MECHANISMS.values():
        out.append((f"calibrate:{m.name}", m.seed_id, _printed(m.hardware) + [(m.target, 0.0)]))
    return out


def test_every_seed_the_scorecard_cites_is_in_the_seeds_file():
    seeds = _seeds()
    cited = {sid for _, sid, _ in _cited()} | set(claims.SETTINGS.era_preset)
    assert cited - set(seeds) == set()
    assert all(SEED_ID.fullmatch(s) for s in seeds)


def test_each_seed_lists_the_claims_that_score_against_it():
    cites = {}
    for where, sid, _ in _cited():
        cites.setdefault(sid, set()).add(where)
    for sid, seed in _seeds().items():
        if seed.get("claims_pending"):
            # Declared, not scored yet: what does score against it is listed.
            assert cites.get(sid, set()) <= set(seed["claims"]), sid
        else:
            assert set(seed["claims"]) == cites.get(sid, set()), sid


def test_every_number_the_scorecard_takes_is_one_the_seed_quotes():
    seeds = _seeds()
    for where, sid, nums in _cited():
        values = list(_values(seeds[sid]).values())
        for x, tol in nums:
            assert any(math.isclose(abs(x), abs(v), rel_tol=1e-9, abs_tol=tol) for v in values), \
                f"{where}: {x} is not a number of {sid} (analysis/seeds.toml)"


def test_every_quoted_number_is_written_in_its_quote():
    for sid, seed in _seeds().items():
        for q in seed["quote"]:
            for n in q["numbers"]:
                assert re.search(r"(?<![\d.])" + re.escape(n["text"]) + r"(?!\d)", q["lines"]), \
                    (sid, n["name"])
                digits = n["text"].rstrip("%").replace(",", "")
                if re.fullmatch(r"\d+(\.\d+)?", digits):
                    assert float(digits) == n["value"], (sid, n["name"])


def test_each_seed_says_where_it_is_from():
    for sid, seed in _seeds().items():
        for key in ("subject", "author", "date", "list", "archive", "machine", "claims"):
            assert seed.get(key), (sid, key)
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", seed["date"]), sid


@pytest.mark.skipif(not ARCHIVE.is_dir(), reason="the archived thread pages are not here "
                    "(set SEEDS_ARCHIVE to check the quotes against them)")
def test_quotes_are_verbatim_from_the_archived_threads():
    seeds = _seeds()
    # Every archived page is a seed's; a seed added after the archive was
    # made (005 and 006, the arm64 threads, read from the list archives
    # through the search tools) has its quotes checked where its page is.
    archived = {p.stem for p in ARCHIVE.glob("*.txt")}
    assert archived <= set(seeds), archived - set(seeds)
    for sid, seed in seeds.items():
        if sid not in archived:
            continue
        page = _norm((ARCHIVE / f"{sid}.txt").read_text(encoding="utf-8"))
        quotes = [q["lines"] for q in seed["quote"]] + [seed.get("machine_quote", "")]
        for lines in quotes:
            assert _norm(lines) in page, (sid, lines)


def test_the_page_shows_every_seed_and_quote():
    page = _norm(PAGE.read_text(encoding="utf-8"))
    for sid, seed in _seeds().items():
        assert sid in page and seed["subject"] in page, sid
        for lines in [q["lines"] for q in seed["quote"]] + [seed.get("machine_quote", "")]:
            assert _norm(lines) in page, (sid, lines)
    assert "seeds.md" in (REPO / "mkdocs.yml").read_text()


def _repo_text_files() -> dict:
    proc = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                          cwd=REPO, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip("not a git checkout")
    out = {}
    for name in proc.stdout.splitlines():
        path = REPO / name
        if not path.is_file() or path.suffix in (".gz", ".png"):
            continue
        data = path.read_bytes()
        if b"\0" not in data:
            out[name] = data.decode("utf-8", errors="replace")
    return out


def test_nothing_points_at_the_threads_outside_the_repository():
    mentions = {name for name, text in _repo_text_files().items() if OUTSIDE in text}
    assert mentions == set()


def test_every_seed_id_in_the_repository_is_a_seed():
    seeds = set(_seeds())
    for name, text in _repo_text_files().items():
        assert set(SEED_ID.findall(text)) <= seeds, name
