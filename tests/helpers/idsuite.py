#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A suite that changes ids, as CPython's own test_os and test_subprocess do
(test_chown_without_permission, test_user, test_group, test_extra_groups): an
ordinary user's change to another id must fail with PermissionError (EPERM or
EACCES), never another OSError; its own ids must work.  Run as an ordinary user;
as root every test is skipped, as CPython's are.  Needs a file to chown: argv[1]
is a directory to make it in."""
import errno
import os
import subprocess
import sys
import unittest

WORK = sys.argv.pop(1) if len(sys.argv) > 1 else "."
OTHER = 65534 if os.geteuid() != 65534 else 65533


@unittest.skipIf(os.geteuid() == 0, "an ordinary user's suite")
class IdSuite(unittest.TestCase):
    def setUp(self):
        self.path = os.path.join(WORK, "idsuite.%d" % os.getpid())
        with open(self.path, "w"):
            pass
        self.addCleanup(os.unlink, self.path)

    def test_chown_without_permission(self):
        gid = os.stat(self.path).st_gid
        for uid in (0, 1, OTHER):
            with self.subTest(uid=uid), self.assertRaises(PermissionError):
                os.chown(self.path, uid, gid)

    def test_chown_to_other_group(self):
        with self.assertRaises(PermissionError):
            os.chown(self.path, -1, OTHER)

    def test_chown_own(self):
        os.chown(self.path, os.getuid(), os.getgid())
        os.chown(self.path, -1, -1)
        fd = os.open(self.path, os.O_RDONLY)
        try:
            os.fchown(fd, os.getuid(), -1)
        finally:
            os.close(fd)
        os.lchown(self.path, -1, os.getgid())

    def test_setuid_family(self):
        calls = [
            (os.setuid, (OTHER,)),
            (os.setgid, (OTHER,)),
            (os.setreuid, (-1, OTHER)),
            (os.setregid, (OTHER, -1)),
            (os.setresuid, (-1, -1, OTHER)),
            (os.setresgid, (-1, OTHER, -1)),
        ]
        for fn, args in calls:
            with self.subTest(call=fn.__name__), self.assertRaises(PermissionError):
                fn(*args)

    def test_setuid_own(self):
        os.setuid(os.getuid())
        os.setgid(os.getgid())
        os.setresuid(-1, -1, -1)
        os.setresgid(-1, os.getgid(), -1)

    def _child(self, **kw):
        try:
            out = subprocess.check_output(
                [sys.executable, "-c", "import os; print(os.getuid(), os.getgid())"], **kw
            )
        except PermissionError:
            return None
        except OSError as e:
            # CPython's tests accept EACCES/EPERM only: anything else is an error
            if e.errno not in (errno.EACCES, errno.EPERM):
                raise
            return None
        return [int(x) for x in out.split()]

    def test_subprocess_user(self):
        for close_fds in (False, True):
            with self.subTest(close_fds=close_fds):
                self.assertIsNone(self._child(user=OTHER, close_fds=close_fds))
                self.assertEqual(self._child(user=os.getuid(), close_fds=close_fds)[0],
                                 os.getuid())

    def test_subprocess_group(self):
        for close_fds in (False, True):
            with self.subTest(close_fds=close_fds):
                self.assertIsNone(self._child(group=OTHER, close_fds=close_fds))
                self.assertEqual(self._child(group=os.getgid(), close_fds=close_fds)[1],
                                 os.getgid())

    def test_subprocess_extra_groups(self):
        self.assertIsNone(self._child(extra_groups=[OTHER]))


if __name__ == "__main__":
    unittest.main(verbosity=2)
