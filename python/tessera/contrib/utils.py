"""``tvm.contrib.utils``: a temporary directory for build artifacts
(``tempdir()``, ``TempDirectory.relpath``), removed when the object goes away
unless ``keep_for_debug`` is set. Used by tests and scripts that export and
reload libraries."""
import os
import shutil
import tempfile


class DirectoryCreatedPastAtExit(RuntimeError):
    """A TempDirectory was created while the interpreter was shutting down."""


class TempDirectory:
    """A directory created by ``tempdir()``; ``relpath(name)`` is a path inside it."""

    def __init__(self, custom_path=None, keep_for_debug=False):
        if custom_path:
            os.makedirs(custom_path, exist_ok=True)
            self.temp_dir = os.path.abspath(custom_path)
        else:
            self.temp_dir = tempfile.mkdtemp(prefix="tvm-")
        self._created_with_keep_for_debug = bool(keep_for_debug)

    def remove(self):
        """Deletes the directory and its contents (idempotent)."""
        if self.temp_dir and not self._created_with_keep_for_debug:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
            self.temp_dir = None

    @property
    def path(self):
        return self.temp_dir

    def __del__(self):
        try:
            self.remove()
        except Exception:  # pylint: disable=broad-except
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()

    def relpath(self, name):
        """The absolute path of ``name`` inside the directory."""
        return os.path.join(self.temp_dir, name)

    def listdir(self):
        """The names of the directory's entries."""
        return os.listdir(self.temp_dir)

    def __str__(self):
        return str(self.temp_dir)


def tempdir(custom_path=None, keep_for_debug=None):
    """A new ``TempDirectory`` (``custom_path``: use that directory instead of a fresh one)."""
    return TempDirectory(custom_path, bool(keep_for_debug))


__all__ = ["TempDirectory", "tempdir"]
