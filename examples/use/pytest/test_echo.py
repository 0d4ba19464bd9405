import urllib.request

import pytest


@pytest.mark.parametrize("path", ["/", "/a", "/b/c", "/d?e=f"])
def test_echo(server, path):
    with urllib.request.urlopen(server + path) as r:
        assert r.read().decode() == path
