"""skinref's file formats in Python: read and write what the skinref program reads and writes, as NumPy arrays
and dicts, for engine tests and plots. Pure Python 3 with NumPy; nothing else.

- skv: .skv vertex dumps, version 1 and 2 (read_skv, write_skv): world-space positions, normals, tangents.
- pose: pose dumps, "skinref-pose" JSON (read_pose, write_pose): local TRS, global matrices, palettes.
- report: compare's vertices.json (read_vertex_report): error / bound counts, histogram, worst vertex.
- manifest: the golden manifest (read_manifest, golden_output_stem): the cases and their output files.

Every reader checks its file as skinref's C++ reader does and raises FormatError (a ValueError) naming the
file, the place (a JSON pointer or a byte offset) and what was expected; a file that cannot be opened raises
OSError. Writers write atomically and raise ValueError or TypeError for arguments they cannot write. Each
module's docstring gives its contract: the dict layout, units and spaces.
"""

try:
    import numpy  # noqa: F401  (every module below needs it; say so here, once, before any of them fails)
except ImportError as error:
    import sys as _sys

    raise ImportError(
        "the skinref Python module needs NumPy, which %s (Python %d.%d) cannot import: install it with "
        "'python3 -m pip install numpy', or on Debian 'apt-get install python3-numpy' and run /usr/bin/python3"
        % (_sys.executable, _sys.version_info[0], _sys.version_info[1])
    ) from error

from .errors import FormatError
from .manifest import golden_output_stem, read_manifest
from .pose import read_pose, write_pose
from .report import read_vertex_report
from .skv import read_skv, write_skv

__all__ = ["FormatError", "golden_output_stem", "read_manifest", "read_pose", "read_skv", "read_vertex_report",
           "write_pose", "write_skv"]
