#!/usr/bin/env python3
"""inflight.py listen SOCK PIDFILE | send SOCK

listen: bind SOCK, write the pid to PIDFILE (atomically), accept one
connection and never read it, until a signal ends the process.
send: connect to SOCK and send a descriptor of $HOME/x (made 0600) with one
byte: the descriptor stays in flight in the listener's socket, held by no
process.
"""
import os
import signal
import socket
import sys


def listen(path, pidfile):
    s = socket.socket(socket.AF_UNIX)
    s.bind(path)
    s.listen(1)
    with open(pidfile + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(pidfile + ".tmp", pidfile)
    conn, _ = s.accept()
    signal.pause()


def send(path):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    f = os.open(os.path.join(os.environ["HOME"], "x"), os.O_CREAT | os.O_RDWR, 0o600)
    socket.send_fds(s, [b"F"], [f])


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "listen":
        listen(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "send":
        send(sys.argv[2])
    else:
        sys.exit("usage: inflight.py listen SOCK PIDFILE | send SOCK")
