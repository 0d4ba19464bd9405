# Starts a helper and forgets it: nothing kills or waits for it when the
# script ends.
use strict;
use warnings;
use Test::More tests => 1;

# `sleep` stands in for a server
my $pid = fork() // die "fork: $!";
exec('sleep', '300') or die "exec sleep: $!" if $pid == 0;

my ($have, $take) = (3, 5);
is($take > $have ? 0 : $have - $take, 0, 'never below zero');
