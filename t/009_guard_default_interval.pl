# The README's worked example as written, at the default sample interval: the guard is not
# outrun.  The server runs in the 1 GB memory cgroup of t/005 (MEMPROBE_TEST_CGROUP; skipped
# without one) with memprobe.min_available_memory = 300MB and memprobe.sample_interval left at its
# default (1s); pgbench -S runs beside each runaway.  Two runaways, five runs each:
#
#   - the README's hash aggregate (work_mem = 8GB, GROUP BY over generate_series), ~500MB a second;
#   - an array_agg of 1000-byte texts, faster still;
#
# each: fails with 53200, no OOM kill, no process killed, no restart, pgbench's exit status 0.
# The guard samples faster as the headroom shrinks or a process grows fast (guard.c,
# plan_next_step); at a fixed 1s interval the array_agg outran it (OOM kill and restart).
#
# Works with the PostgreSQL::Test modules of 15, 17 and 18.
#
# Copyright (c) 2026, The memprobe Developers; the PostgreSQL License (LICENSE)

use strict;
use warnings;
use lib 't';
use MemprobeCgroup;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my ($cgroup, $limit) = cgroup_or_skip();
note "cgroup $cgroup, memory limit $limit bytes";

my $node = PostgreSQL::Test::Cluster->new('guard_default_interval');
$node->init;
$node->append_conf(
	'postgresql.conf', q{
shared_preload_libraries = 'memprobe'
memprobe.min_available_memory = 300MB
shared_buffers = 64MB
max_connections = 20
max_parallel_workers_per_gather = 0
autovacuum = off
jit = off
log_statement = none
});
$node->start;
enter_cgroup($node);
$node->safe_psql('postgres', 'CREATE EXTENSION memprobe');
is($node->safe_psql('postgres', 'SHOW memprobe.sample_interval'), '1s', 'the default interval');
$node->command_ok(
	[ 'pgbench', '-i', '-q', '-s', '1', '-h', $node->host, '-p', $node->port, 'postgres' ],
	'pgbench -i');

my %runaways = (
	'hash aggregate' => [
		q{SET work_mem = '8GB'},
		'SELECT count(*) FROM (SELECT g, count(*) FROM generate_series(1, 67108864) g GROUP BY g) s'
	],
	'array_agg' => [ q{SELECT 1}, q{SELECT length(array_agg(repeat('x', 1000))::text) FROM generate_series(1, 4000000)} ]);

foreach my $what (sort keys %runaways)
{
	my ($set, $sql) = @{ $runaways{$what} };
	for my $run (1 .. 5)
	{
		my $oom_before = cgroup_counters()->{oom_kill};
		my $log_offset = -s $node->logfile;
		my $bench_out = '';
		my $bench = IPC::Run::start(
			[ 'pgbench', '-n', '-S', '-c', '4', '-T', '5', '-h', $node->host, '-p', $node->port, 'postgres' ],
			'>', \$bench_out, '2>', \$bench_out);
		usleep(500_000);
		my ($o, $e) = ('', '');
		IPC::Run::run(
			[ 'psql', '-XAtq', '-v', 'VERBOSITY=verbose', '-d', $node->connstr('postgres'), '-c', $set, '-c', $sql ],
			'>', \$o, '2>', \$e, IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
		$bench->finish;
		my $bench_status = $? >> 8;
		my $oom_after = cgroup_counters()->{oom_kill};
		my $log = slurp_file($node->logfile, $log_offset);
		note "$what, run $run: $e";
		like($e, qr/ERROR:  53200: canceling statement due to memprobe\.min_available_memory/,
			"$what, run $run: fails with the guard's 53200");
		is($oom_after - $oom_before, 0, "$what, run $run: no OOM kill")
		  if defined $oom_before && defined $oom_after;
		unlike($log, qr/terminated by signal 9|all server processes terminated/,
			"$what, run $run: no process killed, no restart");
		is($bench_status, 0, "$what, run $run: pgbench -S beside it completes");
		# the memory given back before the next run
		usleep(500_000);
	}
}

$node->stop;
done_testing();
