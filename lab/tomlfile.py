"""Reading the TOML files users write (scripts, sweeps, presets, profiles),
with one clear line on failure (lab/inputs.py checks the file itself)."""

import tomllib

from lab import inputs
from lab.errors import UserError


def read(path, what: str) -> dict:
    """Parse `path`; `what` names it in errors ("sweep file", ...)."""
    text = inputs.text_file(path, what)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{path}: not valid TOML: {e}") from None
    except RecursionError:
        raise UserError(f"{path}: arrays or tables nested too deeply to be meant") from None
