"""What every command group of run.py shares: the parser whose errors are
one line, and the flag types every stage's commands take. The commands
live in one place, commands/, a module per group (kernel.py, image.py,
run.py, sweep.py, analysis.py, ...): each has one register(sub) that
adds its subparsers, each with its handler; run.py puts them together."""

import argparse

from lab import inputs, text
from lab.errors import UserError

SECONDS = inputs.cli(inputs.seconds, "--timeout")
COUNT = inputs.cli(inputs.count, "count")


class WholeWords(argparse.HelpFormatter):
    """argparse's help with its lines broken only at spaces (lab/text.py):
    argparse's own textwrap breaks at hyphens, so a variant's name came out
    as "namei-bytewise-" over "bytecmp", and a URL in two halves."""

    def _split_lines(self, help_text, width):
        return text.wrap(" ".join(help_text.split()), width)

    def _fill_text(self, help_text, width, indent):
        return "\n".join(text.wrap(" ".join(help_text.split()), width, indent))


class WholeWordsRaw(WholeWords):
    """The description as written, line by line (run.py's examples); a line
    wider than the terminal is broken at spaces, its rest indented under it."""

    def _fill_text(self, help_text, width, indent):
        return "\n".join(part for line in help_text.splitlines()
                         for part in text.wrap_line(indent + line, width))


class OneLineParser(argparse.ArgumentParser):
    """argparse's errors as the contract wants them: one line, exit 2
    (argparse prints the usage above the error); its help in whole words
    (WholeWords) unless told another formatter."""

    def __init__(self, *args, formatter_class=WholeWords, **kwargs):
        super().__init__(*args, formatter_class=formatter_class, **kwargs)

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


# The namespace attribute that holds the dests of the backend flags the
# command line gave (refuse_others reads it).
GIVEN = "backend_flags_given"


class _Given:
    """Mixed into a backend flag's action: argparse calls an action only
    for a flag on the command line, so the flag is marked given whatever
    its value. A flag given at its default value (--cache classic-l1l2)
    is still given: compared with its default it would pass as absent."""

    def __call__(self, parser, namespace, values, option_string=None):
        super().__call__(parser, namespace, values, option_string)
        setattr(namespace, GIVEN, set(getattr(namespace, GIVEN, ())) | {self.dest})


_GIVEN_KINDS = {}


def _marked(action: argparse.Action) -> None:
    """`action` reports itself given when argparse calls it."""
    kind = type(action)
    if not issubclass(kind, _Given):
        if kind not in _GIVEN_KINDS:
            _GIVEN_KINDS[kind] = type("Given" + kind.__name__, (_Given, kind), {})
        action.__class__ = _GIVEN_KINDS[kind]


def backend_flags(sp: argparse.ArgumentParser, group, backend: str, owner: str) -> None:
    """Every flag of argument `group` is `backend`'s alone (`owner`: how
    the error names it, "gem5 (--backend gem5)"): given to another
    backend, refuse_others names it, before anything is built."""
    owned = dict(sp.get_default("backend_flags") or {})
    for action in group._group_actions:
        _marked(action)
        owned[action.dest] = (action.option_strings[0], backend, owner)
    sp.set_defaults(backend_flags=owned)


def refuse_others(args, backend: str) -> None:
    """One line naming the first flag the command line gave that another
    backend owns, whatever its value."""
    given = getattr(args, GIVEN, ())
    for dest, (flag, owner, said) in (getattr(args, "backend_flags", None) or {}).items():
        inputs.only_for(owner != backend and dest in given, flag, said,
                        f"the {backend} backend does not read it: add --backend {owner} "
                        f"or leave {flag} out")
