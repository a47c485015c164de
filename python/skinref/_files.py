"""Atomic file writing (internal): a temporary file in the destination's folder, created with the umask's
permissions, renamed into place, so a reader sees the old file or the new one and never a part; on any
failure the temporary file is removed and the destination is left as it was.
"""

import os
import secrets


def write_atomically(path, data):
    """Writes bytes to `path` through a temporary file in the same folder (created with the umask's
    permissions), renamed into place: a reader sees the old file or the new one, never a part."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    temporary = os.path.join(folder, ".%s.%d.%s.tmp" % (os.path.basename(path), os.getpid(), secrets.token_hex(4)))
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
