"""What every command group of run.py shares: the parser whose errors are
one line, and the flag types every stage's commands take. Each stage
keeps its commands in its own commands module (kernels/commands.py,
buildroot/commands.py, configs/commands/, analysis/commands.py): one
register(sub) that adds its subparsers, each with its handler; run.py
puts them together."""

import argparse

from lab import inputs
from lab.errors import UserError

SECONDS = inputs.cli(inputs.seconds, "--timeout")
COUNT = inputs.cli(inputs.count, "count")


class OneLineParser(argparse.ArgumentParser):
    """argparse's errors as the contract wants them: one line, exit 2
    (argparse prints the usage above the error)."""

    def error(self, message):
        # run.py prints "run.py: " before every error: the subcommand's
        # prog ("run.py run") less that prefix, not "run.py: run.py run:".
        where = self.prog.split(" ", 1)[1] + ": " if " " in self.prog else ""
        raise UserError(f"{where}{message} (see {self.prog} --help)")


def command(sub, name: str, handler, cache: bool = False, **kwargs) -> argparse.ArgumentParser:
    """The subparser of command `name`, run by handler(args) -> exit code;
    `cache`: the command builds or runs into the cache, which run.py
    checks before anything else (a dry run only reads it)."""
    if kwargs.get("help") is argparse.SUPPRESS:
        # Internal (slurm-task): with a help, even SUPPRESS, argparse lists
        # it in --help as "==SUPPRESS=="; without one it is not listed.
        del kwargs["help"]
    else:
        # A subcommand's --help opens with what it does, as the list of
        # commands says it.
        kwargs.setdefault("description", kwargs.get("help"))
    sp = sub.add_parser(name, **kwargs)
    sp.set_defaults(handler=handler, uses_cache=cache)
    return sp


def switches(sp: argparse.ArgumentParser, *flags: tuple) -> None:
    """Each (flag, help) of `flags` an on/off switch of `sp`, off unless given."""
    for flag, help_text in flags:
        sp.add_argument(flag, action="store_true", help=help_text)
