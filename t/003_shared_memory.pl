# The shared memory memprobe takes: said at server start, and refused when its settings ask for
# more than can be right.
#
# memprobe_statements' table is created whole at start (each entry reserves
# memprobe.query_text_bytes), so memprobe.max = 20000000 would have the postmaster fill ~24GB.
# Checked:
#   - a server started with the defaults logs one line with memprobe's shared memory, its
#     parts (statements, backends, sampler) adding up to the total, the statements' share growing with memprobe.max;
#   - `postgres -C shared_memory_size` (which loads the preloaded libraries and sizes shared
#     memory without starting) and a server start both refuse memprobe.max = 20000000 with
#     memprobe's message, naming the settings, and the server does not start;
#   - the same server starts again once the setting is lowered.
#
# Works with the PostgreSQL::Test modules of 15, 17 and 18.
#
# Copyright (c) 2026, The memprobe Developers; the PostgreSQL License (LICENSE)

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('shmem');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'memprobe'\n");

# the LOG line at start (which names the build): total, statements, backends and sampler in kB
sub shmem_line
{
	my ($log) = @_;
	my @m = $log =~
	  /LOG:  memprobe \S+ takes (\d+) kB of shared memory\n[^\n]*DETAIL:  Of that, memprobe_statements takes (\d+) kB, memprobe_backends (\d+) kB and the sampler (\d+) kB\./;
	return @m;
}

$node->start;
my @default = shmem_line(slurp_file($node->logfile));
is(scalar(@default), 4, 'the start logs the shared memory memprobe takes');
my $parts = $default[1] + $default[2] + $default[3];
ok($default[0] >= $parts - 2 && $default[0] <= $parts + 2, 'the total is the parts together');
# 5000 entries of about 1.2kB
ok($default[1] > 5000 && $default[1] < 10000, "memprobe_statements takes $default[1] kB by default");
$node->stop;

$node->append_conf('postgresql.conf',
	"memprobe.max = 20000\nmemprobe.history_size = 0\nmemprobe.history_min_bytes = 0\nmemprobe.sample_interval = 100ms\n");
my $log_offset = -s $node->logfile;
$node->start;
my @larger = shmem_line(substr(slurp_file($node->logfile), $log_offset));
ok(@larger && $larger[1] > 3.5 * $default[1], "memprobe.max = 20000 takes $larger[1] kB");
# no history at all (every sample would enter it): the sampler samples on, keeping none
$node->safe_psql('postgres', 'CREATE EXTENSION memprobe');
ok( $node->poll_query_until('postgres', 'SELECT count(*) > 0 FROM memprobe_samples()'),
	'with memprobe.history_size = 0 the sampler samples');
sleep 1;
is($node->safe_psql('postgres', 'SELECT count(*) FROM memprobe_history'), '0', 'and keeps no history');
# the build the LOG line names is the one memprobe_version() names
my $version = $node->safe_psql('postgres', 'SELECT memprobe_version()');
like(substr(slurp_file($node->logfile), $log_offset),
	qr/LOG:  memprobe \Q$version\E takes \d+ kB of shared memory/,
	"the start's LOG line names the build, $version");
unlike(substr(slurp_file($node->logfile), $log_offset), qr/terminated by signal/, 'nothing crashed');
$node->stop;

# a size that cannot be right: refused by postgres -C and at start
$node->append_conf('postgresql.conf', "memprobe.max = 20000000\n");
my ($stdout, $stderr);
my $ok = IPC::Run::run [ 'postgres', '-D', $node->data_dir, '-C', 'shared_memory_size' ],
  '>', \$stdout, '2>', \$stderr;
ok(!$ok, 'postgres -C shared_memory_size fails');
like($stderr,
	qr/memprobe_statements would take more than an eighth of this machine's memory\n[^\n]*DETAIL:  It would take \d+ MB of shared memory, and an eighth is \d+ MB\./,
	'with memprobe\'s message');
like($stderr, qr/memprobe\.max is 20000000 and memprobe\.query_text_bytes is 1024/,
	'naming the settings');
like($stderr, qr/HINT:  Lower memprobe\.max or memprobe\.query_text_bytes\./, 'with a hint');

$log_offset = -s $node->logfile;
my $started = $node->start(fail_ok => 1);
ok(!$started, 'the server does not start');
like(substr(slurp_file($node->logfile), $log_offset),
	qr/memprobe_statements would take more than an eighth of this machine's memory/,
	'and its log says why');

$node->append_conf('postgresql.conf', "memprobe.max = 5000\n");
$node->start;
is($node->safe_psql('postgres', 'SHOW memprobe.max'), '5000', 'it starts once lowered');
$node->stop;

done_testing();
