"""The one error type users see.

A UserError is bad input or a missing prerequisite: run.py prints its
message as one line and exits 2. Anything else is a bug and keeps its
traceback.
"""


class UserError(Exception):
    """A problem the user can fix; the message names it and the fix."""

    exit_code = 2
