"""Reading the TOML files users write (scripts, sweeps), with one clear line
on failure."""

import tomllib
from pathlib import Path

from lab.errors import UserError


def read(path, what: str) -> dict:
    """Parse `path`; `what` names it in errors ("sweep file", ...)."""
    path = Path(path)
    try:
        return tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"{what} {path} not found") from None
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{path}: not valid TOML: {e}") from None
