# Starts a helper and stops it before the script ends.
use strict;
use warnings;
use Test::More tests => 1;

# `sleep` stands in for a server
my $pid = fork() // die "fork: $!";
exec('sleep', '300') or die "exec sleep: $!" if $pid == 0;

is(250 + 199 + 1, 450, 'total');

kill('TERM', $pid);
waitpid($pid, 0);
