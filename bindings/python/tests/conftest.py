"""The tests' library, temp dirs and skips.

The library: CORDON_LIBRARY, else this tree's build/libcordon.so (run
`make` first). The package: the installed one when it is importable and
CORDON_TEST_INSTALLED=1 (tests/bindings/run tests a pip install that
way), else src/ of these bindings.

Where confinement cannot be applied here a test skips with the reason;
CORDON_MUST_WORK=1 turns a skip into a failure.
"""
import os
import shutil
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", "..", ".."))

if os.environ.get("CORDON_TEST_INSTALLED") != "1":
    sys.path.insert(0, os.path.join(HERE, "..", "src"))
if not os.environ.get("CORDON_LIBRARY"):
    built = os.path.join(TOP, os.environ.get("CORDON_BUILD", "build"), "libcordon.so")
    if os.path.exists(built):
        os.environ["CORDON_LIBRARY"] = built

import cordon  # noqa: E402


def skip(why):
    if os.environ.get("CORDON_MUST_WORK") == "1":
        pytest.fail("%s (CORDON_MUST_WORK=1: a skip is a failure)" % why)
    pytest.skip(why)


@pytest.fixture(scope="session", autouse=True)
def library():
    try:
        return cordon.load_library()
    except cordon.LibraryNotFoundError as e:
        skip("libcordon not loadable: %s" % e)


class Dirs:
    """A temp dir of the test's own: ws (the workspace), outside, state."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="cordon-py.")
        for d in ("ws", "outside", "state"):
            os.mkdir(os.path.join(self.root, d))
        self.ws = os.path.join(self.root, "ws")
        self.outside = os.path.join(self.root, "outside")
        self.state = os.path.join(self.root, "state")

    def run(self, **options):
        """A Run with the tests' workspace and state dir and no tool caches
        (nothing granted in the real home)."""
        options.setdefault("workspace", self.ws)
        options.setdefault("state_dir", self.state)
        options.setdefault("caches", [])
        return cordon.Run(**options)

    def confined(self, **options):
        """A required run, begun, its first command settled; skips where
        confinement is unavailable."""
        run = self.run(mode="required", **options)
        try:
            run.begin()
            done = run.run(["true"])
        except cordon.UnavailableError as e:
            skip("confinement unavailable: %s" % e.message)
        assert done.returncode == 0
        assert run.applied
        return run


@pytest.fixture
def t():
    d = Dirs()
    yield d
    shutil.rmtree(d.root, ignore_errors=True)
