# A server that runs out of memory: the harness, and what happens without memprobe's guard.
#
# The server runs in a memory cgroup (MEMPROBE_TEST_CGROUP: a directory this user may move
# processes into, with a memory limit between 512MB and 4GB; scripts/test makes one of 1 GB with
# scripts/memory-cgroup; without it the test is skipped).  The postmaster and all its children
# are moved there after start, so every process the postmaster forks later is in it too, and only
# the server is limited (memory touched before the move, like the postmaster's at start, stays
# charged where it was).  run_scenario() then runs a select-only pgbench and a bystander session
# in the middle of a statement while another session runs a runaway statement (a hash aggregate
# over generate_series with work_mem = 8GB), and returns what it observed: the runaway session's
# error and SQLSTATE, the server log's lines about the crash, the bystander's error, pgbench's
# clients and transactions, and the cgroup's OOM counters.
#
# Baseline (guard off, the default): the kernel's OOM killer kills the runaway backend with
# SIGKILL (the group's OOM counter counts it); the postmaster logs "terminated by signal 9:
# Killed", terminates every other session (the bystander and pgbench's clients lose their
# connections), reinitializes and runs crash recovery; afterwards the server answers again and
# all its processes are still in the group.
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
use Time::HiRes qw(time usleep);

my ($cgroup, $limit) = cgroup_or_skip();
note "cgroup $cgroup, memory limit $limit bytes, vm.overcommit_memory "
  . (slurp_file('/proc/sys/vm/overcommit_memory') =~ /(\d+)/)[0];

my $pgbench_clients = 4;
my $pgbench_seconds = 25;

my $node = PostgreSQL::Test::Cluster->new('oom');
$node->init;
$node->append_conf(
	'postgresql.conf', q{
shared_preload_libraries = 'memprobe'
shared_buffers = 128MB
max_connections = 20
# the runaway statement runs in one process; nothing else runs on its own
max_parallel_workers_per_gather = 0
jit = off
autovacuum = off
# pgbench's tens of thousands of statements a second would fill the log
log_statement = none
# the default, said because the test relies on it: the server comes back after the crash
restart_after_crash = on
});
$node->start;
enter_cgroup($node);
$node->safe_psql('postgres', 'CREATE EXTENSION memprobe');
$node->command_ok(
	[ 'pgbench', '-i', '-q', '-s', '1', '-h', $node->host, '-p', $node->port, 'postgres' ],
	'pgbench -i');

# --- baseline: no guard

my $base = run_scenario($node, {});

like(
	$base->{runaway_error},
	qr/server closed the connection unexpectedly|connection to server was lost/,
	'baseline: the runaway session lost its connection');
is($base->{runaway_sqlstate}, undef, 'baseline: and got no SQLSTATE from the server');
ok($base->{killed},
	'baseline: the server log says the runaway backend was terminated by signal 9: Killed');
is($base->{killed_pid}, $base->{runaway_pid},
	'baseline: the process killed is the runaway backend');
ok($base->{reinitialized},
	'baseline: the postmaster terminated the other sessions and reinitialized');
ok($base->{recovered}, 'baseline: and ran crash recovery');
# (the crash message, SQLSTATE 57P02, is sent best-effort: a lost connection is what is sure)
like(
	$base->{bystander_error},
	qr/terminating connection because of crash of another server process|server closed the connection unexpectedly/,
	'baseline: the bystander session was terminated');
is($base->{pgbench_aborted}, $pgbench_clients, 'baseline: every pgbench client aborted');
isnt($base->{pgbench_exit}, 0, 'baseline: pgbench fails');
SKIP:
{
	skip 'the cgroup counts no OOM kills (memory.oom_control or memory.events)', 1
	  unless defined $base->{oom_kill};
	cmp_ok($base->{oom_kill}, '>=', 1, 'baseline: the cgroup counts an OOM kill');
}
SKIP:
{
	skip 'the cgroup keeps no peak', 1 unless defined $base->{peak};
	cmp_ok($base->{peak}, '>=', 0.9 * $limit, 'baseline: the group\'s memory reached its limit');
}

# the crash report names the process the kernel killed
like(
	$base->{log},
	qr/memprobe sampled process $base->{runaway_pid} \(client backend\) holding the most memory before the server restarted/,
	'baseline: the crash report names the runaway backend');

# --- the crash report at 100ms samples, OOM after OOM: a sample can come after the kernel freed
# the victim's memory and before the postmaster noticed (it once named the autovacuum launcher)

$node->append_conf('postgresql.conf', "memprobe.sample_interval = '100ms'\n");
$node->restart;
enter_cgroup($node);
my $named = 0;
my $kills = 4;
foreach my $i (1 .. $kills)
{
	my $log_offset = -s $node->logfile;
	my $rows = int($limit / 16);
	my $sql = qq{
SET work_mem = '8GB';
SELECT 'runaway pid ' || pg_backend_pid();
SELECT count(*) FROM (SELECT g, count(*) FROM generate_series(1, $rows) g GROUP BY g) s;
};
	my ($out, $err) = ('', '');
	IPC::Run::run([ 'psql', '-XAtq', '-d', $node->connstr('postgres'), '-f', '-' ],
		'<', \$sql, '>', \$out, '2>', \$err,
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	my ($pid) = $out =~ /runaway pid (\d+)/;
	$node->wait_for_log(qr/all server processes terminated; reinitializing/, $log_offset);
	$node->poll_query_until('postgres', 'SELECT 1', '1')
	  or die 'the server does not answer after the OOM kill';
	wait_for_crash_report($log_offset);
	my $log = slurp_file($node->logfile, $log_offset);
	my ($killed) = $log =~ /(?:server process|client backend) \(PID (\d+)\) was terminated by signal 9/;
	my ($reported) = $log =~ /memprobe sampled process (\d+) \([^)]*\) holding the most memory before the server restarted/;
	note "OOM kill $i: runaway $pid, killed " . ($killed // 'none') . ', reported ' . ($reported // 'none');
	$named++ if defined $killed && defined $reported && $killed == $pid && $reported == $pid;
}
is($named, $kills, "the crash report names the killed runaway backend after each of $kills OOM kills at 100ms samples");

# --- guard on: memprobe.min_available_memory, the same runaway statement

# The runaway grows by ~500MB a second here: sampled every 100ms, it gains ~50MB between two
# samples, well inside 300MB of headroom.
my $guard = run_scenario(
	$node,
	{
		'memprobe.min_available_memory' => '300MB',
		'memprobe.sample_interval' => '100ms',
	});
note "guard on: the runaway statement ended after $guard->{runaway_seconds} s: $guard->{runaway_error}";
is($guard->{runaway_sqlstate}, '53200', 'guard: the runaway statement fails with SQLSTATE 53200');
is($guard->{runaway_error}, 'canceling statement due to memprobe.min_available_memory',
	'guard: with the guard\'s message');
like(
	$guard->{log},
	qr/ERROR:  canceling statement due to memprobe\.min_available_memory\n[^\n]*DETAIL:  The server's available memory, [\d.]+ MB, fell below the minimum of 300(?:\.\d+)? MB, and this process held the most memory/,
	'guard: and its figures');
ok(!$guard->{killed}, 'guard: no process was terminated by signal 9');
ok(!$guard->{reinitialized}, 'guard: the postmaster did not reinitialize');
like(
	$guard->{log},
	qr/LOG:  memprobe is canceling the statement of process $guard->{runaway_pid} due to memprobe\.min_available_memory\n[^\n]*DETAIL:  The server's available memory, [\d.]+ MB, fell below the minimum of [\d.]+ MB, and the statement held the most memory, [\d.]+ MB\.  Its query id is -?\d+\./,
	'guard: the server log names the process and the query id');
# (the harness cancels the bystander's pg_sleep itself once the runaway statement has ended)
like($guard->{bystander_error}, qr/canceling statement due to user request/,
	'guard: the bystander session kept its connection until the harness cancelled its sleep');
is($guard->{pgbench_aborted}, 0, 'guard: no pgbench client aborted');
is($guard->{pgbench_exit}, 0, 'guard: pgbench completed');
cmp_ok($guard->{pgbench_transactions}, '>', 0, 'guard: and processed transactions');
SKIP:
{
	skip 'the cgroup counts no OOM kills (memory.oom_control or memory.events)', 1
	  unless defined $guard->{oom_kill};
	is($guard->{oom_kill}, 0, 'guard: the cgroup counts no OOM kill');
}
# the failed execution is counted, with the memory the sampler saw
is( $node->safe_psql('postgres',
		q{SELECT failed_calls > 0 AND failed_max_private_bytes > 300 * 1024 * 1024 FROM memprobe_statements
		   WHERE query LIKE 'SELECT count(*) FROM (SELECT g, count(*) FROM generate_series%'}),
	't',
	'guard: memprobe_statements counts the cancelled execution with its memory');

# memprobe_guard (counting since the restart for the settings) counted the cancel, and saw the
# memory the cgroup left
is( $node->safe_psql('postgres',
		q{SELECT cancels_min_available_memory >= 1, cancels_backend_memory_limit = 0,
		         last_cancel_at IS NOT NULL, min_available_memory_bytes = 300 * 1024 * 1024,
		         available_source IN ('cgroup v1', 'cgroup v2'), available_bytes <= }
		  . $limit
		  . q{ FROM memprobe_guard}),
	't|t|t|t|t|t',
	'guard: memprobe_guard counts the cancel and shows the cgroup\'s available memory');

# --- after the scenarios: the server is up, in the group, and its data intact

is($node->safe_psql('postgres', 'SELECT count(*) FROM pgbench_accounts'),
	'100000', 'the server answers queries afterwards');
ok(all_in_cgroup($node), 'every server process is in the cgroup afterwards');

$node->stop;
done_testing();


# After a crash restart: the sampler, started again once the server accepts connections, logs
# its crash report a moment later (CI on 15: 0.27 s after "ready to accept connections", after
# the log had been read).  Waits up to 10 s for it, if the server restarted since log_offset.
sub wait_for_crash_report
{
	my ($log_offset) = @_;
	for (my $i = 0; $i < 100; $i++)
	{
		my $log = slurp_file($node->logfile, $log_offset);
		return if $log !~ /all server processes terminated; reinitializing/;
		return if $log =~ /memprobe sampled process \d+ \([^)]*\) holding the most memory before the server restarted/;
		usleep(100_000);
	}
	note 'no crash report from memprobe within 10 s of the restart';
}

# run_scenario(node, settings[, runaway]): with settings (a hash of postgresql.conf settings; the
# server restarts for them when there are any), runs pgbench -S and a bystander session while a
# runaway statement (runaway: SQL of one statement; by default a hash aggregate over more rows
# than the group's limit can hold) takes memory until something stops it, waits until the server
# answers again, and returns a hash of what it observed: runaway_error, runaway_sqlstate (undef
# if the server sent none), runaway_pid, runaway_seconds (until the statement ended), killed (the
# log says "terminated by signal 9"), killed_pid, reinitialized, recovered, down_seconds (from the
# statement's end until the server answered), bystander_error, pgbench_clients, pgbench_aborted,
# pgbench_transactions, pgbench_exit, oom_kill (kills the cgroup counted meanwhile), failcnt
# (times it hit its limit meanwhile), peak (the group's highest usage so far), and log (the
# server log meanwhile).
sub run_scenario
{
	my ($node, $settings, $runaway) = @_;
	my %r;

	if (%$settings)
	{
		$node->append_conf('postgresql.conf',
			join('', map { "$_ = '$settings->{$_}'\n" } sort keys %$settings));
		$node->restart;
		enter_cgroup($node);
	}
	my $log_offset = -s $node->logfile;
	my $before = cgroup_counters();

	# a session in the middle of a statement when the runaway one runs (pg_sleep ends on a cancel)
	my ($by_out, $by_err) = ('', '');
	my $bystander = IPC::Run::start(
		[
			'psql', '-XAtq', '-v', 'VERBOSITY=verbose', '-d',
			$node->connstr('postgres') . ' application_name=oom_bystander',
			'-c', 'SELECT pg_sleep(300)'
		],
		'>', \$by_out, '2>', \$by_err);

	my ($pgb_out, $pgb_err) = ('', '');
	my $pgbench;
	{
		local $ENV{PGAPPNAME} = 'oom_pgbench';
		$pgbench = IPC::Run::start(
			[
				'pgbench', '-n', '-S', '-c', $pgbench_clients, '-j', '2',
				'-T', $pgbench_seconds, '-h', $node->host, '-p', $node->port, 'postgres'
			],
			'>', \$pgb_out, '2>', \$pgb_err);
	}
	$node->poll_query_until('postgres',
		"SELECT count(*) = $pgbench_clients + 1 FROM pg_stat_activity WHERE application_name IN ('oom_pgbench', 'oom_bystander')"
	)
	  or die "pgbench and the bystander did not connect:\n"
	  . $node->safe_psql('postgres', 'SELECT application_name, state, query FROM pg_stat_activity')
	  . "\npgbench: $pgb_err $pgb_out\nbystander: $by_err";
	# pgbench has run a while
	usleep(1_000_000);

	# by default more rows than the group's limit can hold: over 40 bytes each in the function
	# scan's tuplestore alone (work_mem keeps it in memory), which fills at several hundred MB a
	# second, before the hash table
	my $rows = int($limit / 16);
	$runaway //=
	  "SELECT count(*) FROM (SELECT g, count(*) FROM generate_series(1, $rows) g GROUP BY g) s";
	my $runaway_sql = qq{
\\set VERBOSITY verbose
SET work_mem = '8GB';
SELECT 'runaway pid ' || pg_backend_pid();
$runaway;
};
	my ($ra_out, $ra_err) = ('', '');
	my $start = time;
	my $ok = IPC::Run::run(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-f', '-' ],
		'<', \$runaway_sql, '>', \$ra_out, '2>', \$ra_err,
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	$r{runaway_seconds} = sprintf('%.1f', time - $start);
	($r{runaway_pid}) = $ra_out =~ /runaway pid (\d+)/;
	($r{runaway_error}, $r{runaway_sqlstate}) = first_error($ra_err);
	note "runaway statement: ended after $r{runaway_seconds} s, "
	  . ($ok ? 'succeeded' : 'failed') . ", stderr:\n$ra_err";

	my $end = time;
	# A backend the kernel killed: its client can see the connection go before the postmaster
	# has reaped it, and a first connection then still gets in, to be refused a moment later
	# ("in recovery mode"); so wait for the postmaster to have started the crash restart.
	$node->wait_for_log(qr/all server processes terminated; reinitializing/, $log_offset)
	  if $ra_err =~ /server closed the connection unexpectedly|connection to server was lost/;
	$node->poll_query_until('postgres', 'SELECT 1', '1')
	  or die 'the server does not answer after the runaway statement';
	$r{down_seconds} = sprintf('%.1f', time - $end);

	# the bystander, if still there, is cancelled; pgbench ends by itself
	$node->safe_psql('postgres',
		"SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'oom_bystander'");
	$bystander->finish;
	($r{bystander_error}) = first_error($by_err);
	note "bystander session's stderr:\n$by_err";
	$pgbench->finish;
	$r{pgbench_exit} = $? >> 8;
	%r = (%r, pgbench_figures($pgb_out . $pgb_err));
	note "pgbench (exit status $r{pgbench_exit}):\n$pgb_err$pgb_out";

	my $after = cgroup_counters();
	foreach my $c ('oom_kill', 'failcnt')
	{
		$r{$c} = $after->{$c} - $before->{$c}
		  if defined $after->{$c} && defined $before->{$c};
	}
	$r{peak} = $after->{peak};

	wait_for_crash_report($log_offset);
	my $log = slurp_file($node->logfile, $log_offset);
	$r{log} = $log;
	# "server process (PID n)" up to 17, "client backend (PID n)" from 18 on
	($r{killed_pid}) = $log =~ /(?:server process|client backend) \(PID (\d+)\) was terminated by signal 9: Killed/;
	$r{killed} = defined $r{killed_pid};
	$r{reinitialized} =
	  $log =~ /terminating any other active server processes/
	  && $log =~ /all server processes terminated; reinitializing/;
	$r{recovered} =
	  $log =~ /database system was not properly shut down; automatic recovery in progress/;
	note 'server log meanwhile (crash lines): '
	  . join("\n", '', $log =~ /^.*(?:terminated by signal|terminating any other|Failed process was running|all server processes terminated|not properly shut down|redo done|ready to accept).*$/mg);
	note 'observed: '
	  . join(', ', map { "$_ = " . ($r{$_} // 'undef') } grep { $_ ne 'log' } sort keys %r);
	return \%r;
}

# first_error(stderr): the text and SQLSTATE (undef when none) of psql's first ERROR, FATAL,
# WARNING or PANIC line (printed with VERBOSITY verbose), or else the first line: libpq's own
# messages, like a lost connection, have neither
sub first_error
{
	my ($stderr) = @_;
	if ($stderr =~ /^(?:psql:[^\n]*?: )?(?:ERROR|FATAL|WARNING|PANIC):  (?:([0-9A-Z]{5}): )?(.*)$/m)
	{
		return ($2, $1);
	}
	my ($first) = $stderr =~ /^(?:psql:[^\n]*?: )?(?:error: )?(\S.*)$/m;
	return ($first, undef);
}

# pgbench_figures(output): its clients, transactions processed and aborted clients
sub pgbench_figures
{
	my ($out) = @_;
	my %f;
	($f{pgbench_clients}) = $out =~ /^number of clients: (\d+)/m;
	($f{pgbench_transactions}) = $out =~ /^number of transactions actually processed: (\d+)/m;
	my %aborted = map { $_ => 1 } $out =~ /client (\d+) [^\n]*aborted/g;
	$f{pgbench_aborted} = scalar keys %aborted;
	return %f;
}
