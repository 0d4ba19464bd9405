# Skips itself where it cannot run, as TAP says: `1..0 # SKIP why`.
use strict;
use warnings;
use Test::More;

plan skip_all => 'SHOP_TAX_TABLE is not set' unless $ENV{SHOP_TAX_TABLE};
ok(-r $ENV{SHOP_TAX_TABLE}, 'the tax table is readable');
done_testing();
