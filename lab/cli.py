"""What every command group of run.py shares: the parser whose errors are
one line, and the flag types every stage's commands take. The commands
live in one place, commands/, a module per group (kernel.py, image.py,
run.py, sweep.py, analysis.py, ...): each has one register(sub) that
adds its subparsers, each with its handler; run.py puts them together."""

import argparse

from lab import inputs
from lab.errors import UserError

SECONDS = inputs.cli(inputs.seconds, "--timeout")
COUNT = inputs.cli(inputs.count, "count")


class OneLineParser(argparse.ArgumentParser):
    """argparse's errors as the contract wants them: one line, exit 2
    (argparse prints the usage above the error)."""

    def error(self, message):
        raise UserError(f"{self.prog}: {message} (see {self.prog} --help)")


def command(sub, name: str, handler, cache: bool = False, **kwargs) -> argparse.ArgumentParser:
    """The subparser of command `name`, run by handler(args) -> exit code;
    `cache`: the command builds or runs into the cache, which run.py
    checks before anything else (a dry run only reads it)."""
    sp = sub.add_parser(name, **kwargs)
    sp.set_defaults(handler=handler, uses_cache=cache)
    return sp


def switches(sp: argparse.ArgumentParser, *flags: tuple) -> None:
    """Each (flag, help) of `flags` an on/off switch of `sp`, off unless given."""
    for flag, help_text in flags:
        sp.add_argument(flag, action="store_true", help=help_text)
