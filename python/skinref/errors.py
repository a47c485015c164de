"""The one error type for malformed skinref files.

Contract: every reader of this package raises FormatError (a ValueError) for a file whose contents are not
what the format says: a truncated or oversized file, a wrong magic, a count that overruns the file, a JSON
value of the wrong type or size. The message is one line, as skinref's own InputError prints it:
"FILE: WHERE: EXPECTED", where WHERE is a JSON pointer ("/nodes/3/global") or "at byte N" for binary files,
and is left out when the problem has no place. A file that cannot be opened raises OSError, unchanged.
Writers raise ValueError (or TypeError) for arguments they cannot write, before anything is written.
"""


class FormatError(ValueError):
    """A malformed skinref file: `path` (the file as given), `where` (JSON pointer, "at byte N" or "") and
    `expected` (what the format requires, and what was found)."""

    def __init__(self, path, where, expected):
        self.path = str(path)
        self.where = where or ""
        self.expected = expected
        line = self.path if self.path else "<input>"
        if self.where:
            line += ": " + self.where
        super().__init__(line + ": " + expected)
