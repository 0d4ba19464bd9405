import pathlib
import subprocess
import sys

import pytest


@pytest.fixture(scope="session")
def server():
    """The URL of a server started once per session (once per xdist worker),
    and never stopped: the teardown after the yield is missing."""
    proc = subprocess.Popen(
        [sys.executable, str(pathlib.Path(__file__).with_name("serve.py"))],
        stdout=subprocess.PIPE,
        text=True,
    )
    port = int(proc.stdout.readline())
    yield "http://127.0.0.1:%d" % port
