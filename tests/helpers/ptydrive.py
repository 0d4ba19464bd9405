#!/usr/bin/env python3
r"""Drive an interactive bash in a real pseudo-terminal, as a person would.

ptydrive.py SCRIPT: SCRIPT is lines of "send TEXT" (\\n, \\x1a escapes
allowed), "expect REGEX" and "refute REGEX" (what the terminal showed up to
the last expect's match must not match REGEX).  Each expect waits for output
matching REGEX, up to 30 s (an event: bytes on the pty, not a timed sleep).
Exit 0 when every expect matched; 1 with the transcript otherwise.
"""
import os
import pty
import re
import select
import signal
import sys
import time


def unescape(text):
    """Only \\n, \\xHH and \\\\: anything else, \\$ included, stays as written."""
    def one(m):
        e = m.group(1)
        if e == "n":
            return "\n"
        if e == "\\":
            return "\\"
        return chr(int(e[1:], 16))
    return re.sub(r"\\(n|x[0-9a-fA-F]{2}|\\)", one, text).encode("latin-1")


def main():
    steps = [l.rstrip("\n").split(" ", 1) for l in open(sys.argv[1]) if l.strip()]
    pid, fd = pty.fork()
    if pid == 0:
        env = dict(os.environ, PS1="PROMPT> ", TERM="dumb")
        os.execvpe("bash", ["bash", "--norc", "--noprofile", "-i"], env)
    seen = b""
    pos = 0
    ok = True
    for kind, arg in steps:
        if kind == "send":
            os.write(fd, unescape(arg))
            continue
        if kind == "refute":
            if re.search(arg.encode(), seen[:pos]):
                ok = False
                sys.stderr.write("ptydrive: %r was shown\n--- transcript ---\n%s\n"
                                 % (arg, seen.decode(errors="replace")))
                break
            continue
        pat = re.compile(arg.encode())
        deadline = time.monotonic() + 30
        while not pat.search(seen, pos):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                ok = False
                break
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                ok = False
                break
            seen += chunk
        if not ok:
            sys.stderr.write("ptydrive: no match for %r\n--- transcript ---\n%s\n"
                             % (arg, seen.decode(errors="replace")))
            break
        pos = pat.search(seen, pos).end()
    if ok:
        try:
            os.write(fd, b"exit\n")
        except OSError:
            pass
    else:
        # whatever still runs in the terminal gets its hangup, as when a window closes
        os.kill(pid, signal.SIGKILL)
    os.close(fd)
    os.waitpid(pid, 0)
    return 0 if ok else 1


sys.exit(main())
