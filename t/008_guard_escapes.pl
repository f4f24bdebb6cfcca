# No way around the memory guard: the ways a runaway statement escaped it, each as a real
# shortage in the 1 GB memory cgroup of t/005 (MEMPROBE_TEST_CGROUP; skipped without one), sampled
# every 100ms, with pgbench -S beside every runaway:
#
#   - a runaway that is not the first statement of its query string ("SELECT 1; SELECT f()",
#     also with SET first, and in a procedure after its COMMIT): capped and failed inside the
#     statement, as the only statement of its
#     string is; with the C runaway of the test build, and, where installed, a PL/Python one and a
#     trusted PL/Perl one created by a role with no privilege beyond creating a function;
#   - a runaway called through the fast-path protocol (the FunctionCall message, spoken here
#     directly): cancelled, capped, failed with 53200;
#   - a runaway after SAVEPOINT: capped, failed, and the session's soft data size limit is lifted
#     while it sits idle in the aborted transaction (read from /proc/PID/limits);
#   - a cap that cannot help (1.5GB mapped, untouched, by a process in a 1GB cgroup): its LOG
#     line says so;
#   - another session's pg_cancel_backend() after a guard cancel caught earlier in the same string
#     reaches the client as core's 57014, not as the guard's 53200;
#   - a session keeping 150MB between statements: its small statement is not cancelled for it (the
#     log names it), one that adds a quarter of backend_memory_limit is;
#   - memprobe.backend_memory_limit = 1MB in postgresql.conf before the server starts, with
#     pgbench -S running from the first sample on: one WARNING, no cancel, pgbench completes;
#   - a fast-path call killed (SIGKILL, as the OOM killer sends): the crash report names its
#     function, not the query before it.
# Each (but the last): no OOM kill, no process killed, no restart (the server log has no
# "terminated by signal 9" and no "all server processes terminated").
#
# Works with the PostgreSQL::Test modules of 15, 17 and 18.
#
# Copyright (c) 2026, The memprobe Developers; the PostgreSQL License (LICENSE)

use strict;
use warnings;
use lib 't';
use IO::Socket::UNIX;
use MemprobeCgroup;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

my ($cgroup, $limit) = cgroup_or_skip();
note "cgroup $cgroup, memory limit $limit bytes";

my $node = PostgreSQL::Test::Cluster->new('guard_escapes');
$node->init;
$node->append_conf(
	'postgresql.conf', q{
shared_preload_libraries = 'memprobe'
memprobe.sample_interval = 100ms
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
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION memprobe;
-- grows to mb megabytes, step_mb at a time every pause_ms, never checking for interrupts, then
-- holds them for hold_ms, checking every 10ms (src/testing/runaway.c)
CREATE FUNCTION grow(mb int, step_mb int, pause_ms int, hold_ms int) RETURNS int
  AS '$libdir/memprobe', 'memprobe_test_grow' LANGUAGE C STRICT;
-- mb megabytes mapped but never touched, kept for the session (src/testing/runaway.c)
CREATE FUNCTION reserve(mb int) RETURNS int
  AS '$libdir/memprobe', 'memprobe_test_reserve' LANGUAGE C STRICT;
-- a procedure that commits, then runs away: its CALL is still the statement running
CREATE PROCEDURE commit_then_grow() LANGUAGE plpgsql AS $$
BEGIN
  COMMIT;
  PERFORM grow(2000, 10, 20, 0);
END $$;
CREATE ROLE app LOGIN;
CREATE SCHEMA app AUTHORIZATION app;
});
$node->command_ok(
	[ 'pgbench', '-i', '-q', '-s', '1', '-h', $node->host, '-p', $node->port, 'postgres' ],
	'pgbench -i');

my $has = sub {
	$node->safe_psql('postgres', "SELECT count(*) FROM pg_available_extensions WHERE name = '$_[0]'")
	  eq '1';
};
my $plpython = $has->('plpython3u');
my $plperl = $has->('plperl');
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION plpython3u;
-- appends filled 1MB strings to a list, 10 every 20ms: Python's allocator, no CHECK_FOR_INTERRUPTS
CREATE FUNCTION py_grow(mb int) RETURNS int LANGUAGE plpython3u AS $$
import time
a = []
for i in range(mb):
    a.append(b'x' * (1024 * 1024))
    if i % 10 == 9:
        time.sleep(0.02)
return len(a)
$$;
}) if $plpython;
$node->safe_psql('postgres', 'CREATE EXTENSION plperl') if $plperl;
# a trusted language: the application role creates its own runaway in its own schema
$node->safe_psql(
	'postgres', q{
SET ROLE app;
CREATE FUNCTION app.pl_grow(int) RETURNS int LANGUAGE plperl AS $$
my (@a, $spin);
for my $i (1 .. $_[0]) {
    push @a, 'x' x (1024 * 1024);
    $spin += $_ for 1 .. 100000;
}
return scalar @a;
$$;
}) if $plperl;

# the server's log from offset on: no process killed, no restart
sub no_kill
{
	my ($what, $offset) = @_;
	my $log = slurp_file($node->logfile, $offset);
	unlike($log, qr/terminated by signal 9/, "$what: no process killed");
	unlike($log, qr/all server processes terminated/, "$what: no restart");
	return $log;
}

# runaway(what, code): runs code (which returns its client's stderr) with pgbench -S beside it;
# checks no OOM kill, no process killed, pgbench's exit status 0; returns (stderr, the log)
sub runaway
{
	my ($what, $code) = @_;
	my $oom_before = cgroup_counters()->{oom_kill};
	my $log_offset = -s $node->logfile;
	my $bench_out = '';
	my $bench = IPC::Run::start(
		[ 'pgbench', '-n', '-S', '-c', '2', '-T', '6', '-h', $node->host, '-p', $node->port, 'postgres' ],
		'>', \$bench_out, '2>', \$bench_out);
	usleep(500_000);
	my $err = $code->();
	$bench->finish;
	is($? >> 8, 0, "$what: pgbench -S beside it completes");
	unlike($bench_out, qr/ERROR/, "$what: and gets no error");
	my $oom_after = cgroup_counters()->{oom_kill};
	is($oom_after - $oom_before, 0, "$what: no OOM kill")
	  if defined $oom_before && defined $oom_after;
	return ($err, no_kill($what, $log_offset));
}

# psql(user, args...): one psql run; its stderr and stdout
sub psql
{
	my ($user, @args) = @_;
	my ($o, $e) = ('', '');
	IPC::Run::run(
		[ 'psql', '-XAtq', '-v', 'VERBOSITY=verbose', (defined $user ? ('-U', $user) : ()),
		  '-d', $node->connstr('postgres'), @args ],
		'>', \$o, '2>', \$e, IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	chomp $o;
	return ($e, $o);
}

my $capped = qr/memprobe lowered the data size limit of process \d+ to \d+ MB/;
my $limits = q{SELECT regexp_replace(pg_read_file('/proc/self/limits'), '.*Max data size +(\S+).*', '\1', 's')};

# --- 1. a runaway that is not the first statement of its string

my @multi = (
	[ 'C runaway second in its string', 'SELECT 1 ; SELECT grow(2000, 10, 20, 0)', qr/ERROR:  53200: out of memory/ ],
	[ 'C runaway after SET in its string', q{SET work_mem = '64MB' ; SELECT 1 ; SELECT grow(2000, 10, 20, 0)},
	  qr/ERROR:  53200: out of memory/ ],
	[ 'C runaway after COMMIT in a procedure', 'CALL commit_then_grow()', qr/ERROR:  53200: out of memory/ ]);
push @multi,
  [ 'PL/Python runaway second in its string', 'SELECT 1 ; SELECT py_grow(3000)', qr/ERROR:  38000: MemoryError/ ]
  if $plpython;
foreach my $m (@multi)
{
	my ($what, $sql, $error) = @$m;
	my $out;
	my ($err, $log) = runaway($what, sub {
		my $e;
		($e, $out) = psql(undef, '-c', $sql, '-c', 'SELECT grow(300, 50, 0, 0)', '-c', $limits);
		return $e;
	});
	note "$what: $err";
	like($err, $error, "$what: it fails inside the statement");
	like($log, $capped, "$what: the guard capped it");
	like($out, qr/^300\nunlimited$/m, "$what: the session goes on, its next statement takes 300MB, its limit lifted");
}

SKIP:
{
	skip 'PL/Perl (plperl) is not installed for this server', 6 unless $plperl;
	my $out;
	my ($err, $log) = runaway('trusted PL/Perl runaway of a plain role, second in its string', sub {
		my $e;
		($e, $out) = psql('app', '-c', 'SELECT 1 ; SELECT app.pl_grow(3000)');
		return $e;
	});
	note "PL/Perl: $err";
	like($err, qr/ERROR:  (53200|XX000)/, 'PL/Perl runaway of a plain role: it fails inside the statement');
	like($log, $capped, 'PL/Perl runaway of a plain role: the guard capped it');
}

# --- 2. a runaway called through the fast-path protocol

# the protocol's messages, spoken over the server's socket as the test's user
sub pg_connect
{
	my $sock = IO::Socket::UNIX->new(Peer => $node->host . '/.s.PGSQL.' . $node->port)
	  or die "could not connect: $!";
	my $params = join('', map { "$_\0" } user => ($ENV{PGUSER} // scalar getpwuid($<)), database => 'postgres') . "\0";
	print $sock pack('NN', 8 + length($params), 196608) . $params;
	my $pid;
	while (my ($type, $body) = pg_read($sock))
	{
		die 'startup failed: ' . $body if $type eq 'E';
		$pid = unpack('N', $body) if $type eq 'K';
		last if $type eq 'Z';
	}
	return ($sock, $pid);
}

sub pg_read
{
	my ($sock) = @_;
	my $head = '';
	while (length($head) < 5)
	{
		my $got = sysread($sock, $head, 5 - length($head), length($head));
		next if !defined $got && $!{EINTR};	# pgbench beside it ended: SIGCHLD
		return () unless $got;
	}
	my ($type, $len) = unpack('aN', $head);
	my $body = '';
	while (length($body) < $len - 4)
	{
		my $got = sysread($sock, $body, $len - 4 - length($body), length($body));
		next if !defined $got && $!{EINTR};
		return () unless $got;
	}
	return ($type, $body);
}

# fastpath(sock, fid, text args): the FunctionCall message; the error's fields, or the result
sub fastpath
{
	my ($sock, $fid, @args) = @_;
	my $body = pack('Nnnn', $fid, 1, 0, scalar @args) . join('', map { pack('N', length $_) . $_ } @args) . pack('n', 0);
	print $sock 'F' . pack('N', 4 + length $body) . $body;
	my ($error, $result);
	while (my ($type, $msg) = pg_read($sock))
	{
		$error = { map { substr($_, 0, 1) => substr($_, 1) } grep { length } split /\0/, $msg } if $type eq 'E';
		$result = substr($msg, 4) if $type eq 'V';
		last if $type eq 'Z';
	}
	return $error ? "ERROR: $error->{C}: $error->{M}" : $result;
}

my $grow_oid = $node->safe_psql('postgres', q{SELECT 'grow'::regproc::oid});
{
	my ($sock, $pid);
	my $small;
	my ($err, $log) = runaway('fast-path runaway', sub {
		($sock, $pid) = pg_connect();
		my $e = fastpath($sock, $grow_oid, '2000', '10', '20', '0');
		$small = fastpath($sock, $grow_oid, '300', '50', '0', '0');
		return $e;
	});
	note "fast-path: $err";
	like($err, qr/^ERROR: 53200: /, 'fast-path runaway: it fails inside the call with 53200');
	like($log, qr/canceling the statement of process $pid /, 'fast-path runaway: the guard cancelled it');
	like($log, qr/memprobe lowered the data size limit of process $pid to \d+ MB\n[^\n]*DETAIL:  Its statement \(query id 0\) grew /, 'fast-path runaway: the guard capped it');
	is($small, '300', 'fast-path: the session goes on, its next call takes 300MB');
	like(slurp_file("/proc/$pid/limits"), qr/Max data size\s+unlimited/, 'fast-path: its limit is lifted');
	close $sock;
}

# --- 3. a runaway after SAVEPOINT: no cap while idle in the aborted transaction

{
	my ($in, $out, $err) = ('', '', '');
	my $h;
	my $pid;
	my ($e, $log) = runaway('runaway after SAVEPOINT', sub {
		$h = IPC::Run::start(
			[ 'psql', '-XAtq', '-v', 'VERBOSITY=verbose', '-d', $node->connstr('postgres') ],
			'<', \$in, '>', \$out, '2>', \$err, IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
		$in .= "SELECT pg_backend_pid();\nBEGIN;\nSAVEPOINT s;\nSELECT grow(2000, 10, 20, 0);\n\\echo done\n";
		$h->pump until $out =~ /done/;
		return $err;
	});
	($pid) = $out =~ /^(\d+)/;
	like($e, qr/ERROR:  53200: out of memory/, 'runaway after SAVEPOINT: it fails inside the statement');
	like($log, $capped, 'runaway after SAVEPOINT: the guard capped it');
	is($node->safe_psql('postgres', "SELECT state FROM pg_stat_activity WHERE pid = $pid"),
		'idle in transaction (aborted)', 'runaway after SAVEPOINT: the session is idle in the aborted transaction');
	like(slurp_file("/proc/$pid/limits"), qr/Max data size\s+unlimited/,
		'runaway after SAVEPOINT: its data size limit is lifted while it sits there');
	$in .= "ROLLBACK TO s;\nSELECT grow(300, 50, 0, 0);\nCOMMIT;\n\\q\n";
	$h->finish;
	like($out, qr/^300$/m, 'runaway after SAVEPOINT: after ROLLBACK TO, its next statement takes 300MB');
}

# --- a cap that cannot help: the process has mapped (1.5GB reserved, untouched) more than the
# server can give, so a data size limit above what it has mapped stops nothing; the log says so

{
	my $out;
	my ($err, $log) = runaway('a cap that cannot help', sub {
		my $e;
		# 5MB every 40ms to 750MB, past the cancel (300MB left) and the cap's grace
		($e, $out) = psql(undef, '-c', 'SELECT reserve(1500) ; SELECT grow(750, 5, 40, 0)');
		return $e;
	});
	# the runaway mallocs anew, which the cap stops; touching the reserved memory it would not
	like($err, qr/ERROR:  53200: /, 'a cap that cannot help: the statement fails with 53200');
	like($log, qr/DETAIL:  Its statement \(query id -?\d+\) grew from [^\n]* without acting on the cancel\.  The limit cannot help: it leaves the process room for \d+(\.\d)? (MB|GB) more than it holds, and the server can give only \d+ MB\./,
		'a cap that cannot help: its LOG line says so');
}

# --- the race: the statement ends just as the sampler lowers its limit (the sampler held 2s
# between marking the process capped and lowering the limit, memprobe.test_cap_delay, test
# builds only): the limit is lifted again, and the session is never left capped

SKIP:
{
	skip 'a production build has no test delays', 4
	  unless $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_settings WHERE name = 'memprobe.test_cap_delay'") eq '1';
	$node->append_conf('postgresql.conf',
		"memprobe.min_available_memory = 0\nmemprobe.backend_memory_limit = 200MB\nmemprobe.test_cap_delay = 2000\n");
	$node->reload;
	usleep(300_000);
	my ($in, $out, $err) = ('', '', '');
	my $h;
	my ($e, $log) = runaway('the cap races the statement\'s end', sub {
		$h = IPC::Run::start(
			[ 'psql', '-XAtq', '-v', 'VERBOSITY=verbose', '-d', $node->connstr('postgres') ],
			'<', \$in, '>', \$out, '2>', \$err, IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
		# grows past the cancel (at 200MB) for ~200ms without taking it, past the cap's grace, then
		# takes it at once, while the sampler waits to lower the limit
		$in .= "SELECT pg_backend_pid();\nSELECT grow(300, 10, 20, 5000);\n\\echo done\n";
		$h->pump until $out =~ /done/;
		# the sampler's delay over, the session idle
		usleep(2_500_000);
		return $err;
	});
	my ($pid) = $out =~ /^(\d+)/;
	like($e, qr/ERROR:  53200: canceling statement due to memprobe\.backend_memory_limit\nDETAIL:  The backend's memory, [\d.]+ MB, exceeded the limit of 200(?:\.\d+)? MB\./,
		'the cap races the statement\'s end: the statement takes the cancel');
	like($log, qr/memprobe lifted the data size limit of process $pid again\n[^\n]*DETAIL:  Its statement ended while the limit was being lowered\./,
		'the cap races the statement\'s end: the sampler saw it end and lifted the limit');
	like(slurp_file("/proc/$pid/limits"), qr/Max data size\s+unlimited/,
		'the cap races the statement\'s end: the idle session has no limit');
	$in .= "SELECT grow(150, 50, 0, 0);\n\\q\n";
	$h->finish;
	like($out, qr/^150$/m, 'the cap races the statement\'s end: its next statement takes 150MB');
	$node->append_conf('postgresql.conf', "memprobe.test_cap_delay = 0\n");
	$node->reload;
}

# --- 5. a user's cancel after a guard cancel caught earlier in the same string

# the runaways' sessions gone (a PL's allocator keeps what it had until its process exits)
$node->poll_query_until('postgres',
	"SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'client backend'")
  or die 'the runaways\' sessions did not end';
$node->append_conf('postgresql.conf', "memprobe.min_available_memory = 0\nmemprobe.backend_memory_limit = 200MB\n");
$node->reload;
usleep(300_000);
{
	my $log_offset = -s $node->logfile;
	my ($o, $e) = ('', '');
	my $h = IPC::Run::start(
		[
			'psql', '-XAtq', '-v', 'VERBOSITY=verbose', '-d', $node->connstr('postgres'), '-c',
			q{DO $$ BEGIN PERFORM grow(300, 300, 0, 5000); EXCEPTION WHEN out_of_memory THEN RAISE NOTICE 'caught: %', SQLERRM; END $$ ; SELECT pg_sleep(3)}
		],
		'>', \$o, '2>', \$e, IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	# the guard's cancel lands within a few samples; the sleep begins after it
	my $deadline = time + 20;
	$h->pump_nb, usleep(10_000) while $e !~ /caught/ && time < $deadline;
	usleep(500_000);
	$node->safe_psql('postgres',
		q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE 'DO $$ BEGIN PERFORM grow%' AND pid <> pg_backend_pid()});
	$h->finish;
	note "user's cancel after a caught guard cancel: $e";
	like($e, qr/NOTICE:  00000: caught: canceling statement due to memprobe\.backend_memory_limit/,
		"user's cancel after a caught guard cancel: the guard's cancel was caught");
	like($e, qr/ERROR:  57014: canceling statement due to user request/,
		"user's cancel after a caught guard cancel: the user's cancel reaches the client as 57014");
	unlike($e, qr/ERROR:  53200/, "user's cancel after a caught guard cancel: not as the guard's 53200");
	no_kill("user's cancel", $log_offset);
}

# --- what a process keeps between statements: its next statement is not cancelled for it

$node->append_conf('postgresql.conf', "memprobe.backend_memory_limit = 0\n");
$node->reload;
{
	my ($in, $out, $err) = ('', '', '');
	my $h = IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'VERBOSITY=verbose', '-d', $node->connstr('postgres') ],
		'<', \$in, '>', \$out, '2>', \$err, IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	# a 150MB setting value stays in the session's memory after the statement
	$in .= q{SELECT pg_backend_pid(), length(set_config('memprobe_test.big', repeat('x', 150000000), false));} . "\n\\echo held\n";
	$h->pump until $out =~ /held/;
	my ($pid) = $out =~ /^(\d+)\|/m;
	my $log_offset = -s $node->logfile;
	$node->append_conf('postgresql.conf', "memprobe.backend_memory_limit = 100MB\n");
	$node->reload;
	# sampled idle, holding it
	usleep(500_000);
	$in .= "SELECT 'slept', pg_sleep(1);\n\\echo small\n";
	$h->pump until $out =~ /small/;
	like($out, qr/^slept\|$/m, 'a session holding 150MB between statements: its small statement is not cancelled');
	is($err, '', 'a session holding 150MB between statements: no error');
	my $log = slurp_file($node->logfile, $log_offset);
	like($log, qr/LOG:  memprobe does not cancel the statement of process $pid \(client backend\) for memprobe\.backend_memory_limit\n[^\n]*DETAIL:  The process held \d+ MB between statements, and its statement added \d+ (kB|MB)\./,
		'a session holding 150MB between statements: the log names it');
	like($log, qr/HINT:  Terminating the process with pg_terminate_backend\(\) frees what it keeps between statements/, 'a session holding 150MB between statements: with the hint');
	unlike($log, qr/canceling the statement of process $pid /, 'a session holding 150MB between statements: nothing cancelled');
	# a statement that adds a quarter of the limit itself is cancelled
	$in .= "SELECT grow(50, 50, 0, 2000);\n\\echo grown\n\\q\n";
	$h->finish;
	like($err, qr/ERROR:  53200: canceling statement due to memprobe\.backend_memory_limit\nDETAIL:  The backend's memory, [\d.]+ MB, exceeded the limit of 100(?:\.\d+)? MB\./,
		'a session holding 150MB between statements: a statement adding 50MB is cancelled');
}

# --- 4. backend_memory_limit below any backend, set before the server starts

$node->append_conf('postgresql.conf', "memprobe.backend_memory_limit = 1MB\n");
$node->stop;
my $log_offset = -s $node->logfile;
$node->start;
enter_cgroup($node);
{
	my $bench_out = '';
	my $bench = IPC::Run::start(
		[ 'pgbench', '-n', '-S', '-c', '4', '-T', '3', '-h', $node->host, '-p', $node->port, 'postgres' ],
		'>', \$bench_out, '2>', \$bench_out);
	my ($e, $o) = psql(undef, '-c', 'SELECT pg_sleep(0.5)', '-c', 'SELECT cancels_backend_memory_limit FROM memprobe_guard');
	$bench->finish;
	is($? >> 8, 0, '1MB limit before start: pgbench -S beside it completes');
	unlike($bench_out, qr/canceling statement due to memprobe/, '1MB limit before start: no pgbench statement cancelled');
	is($e, '', "1MB limit before start: a DBA's pg_sleep(0.5) is not cancelled");
	is($o, "\n0", '1MB limit before start: the guard cancelled nothing');
	my $log = no_kill('1MB limit before start', $log_offset);
	my @warnings = $log =~ /WARNING:  memprobe\.backend_memory_limit is below what an? (idle|fresh) backend holds\n[^\n]*DETAIL:  It is 1(?:\.0+)? MB, /g;
	is(scalar @warnings, 1, '1MB limit before start: one WARNING');
	unlike($log, qr/memprobe has no statement to cancel in process \d+ \((checkpointer|walwriter|background writer|[^)]*launcher)\)/,
		'1MB limit before start: nothing logged about processes the setting does not apply to');
}

# --- a fast-path call is named in the crash report by its function, not by the query before it

$node->append_conf('postgresql.conf', "memprobe.backend_memory_limit = 0\nrestart_after_crash = on\n");
$node->reload;
{
	my ($sock, $pid) = pg_connect();
	$node->safe_psql('postgres', 'SELECT 1');	# a query before it, in another session
	# 200MB held for 10s: the call does not return before the kill
	my $body = pack('Nnnn', $grow_oid, 1, 0, 4) . join('', map { pack('N', length $_) . $_ } '200', '200', '0', '10000') . pack('n', 0);
	print $sock 'F' . pack('N', 4 + length $body) . $body;
	# the crash file is written at most once a second
	usleep(2_500_000);
	my $log_offset = -s $node->logfile;
	kill 'KILL', $pid;
	$node->wait_for_log(qr/memprobe sampled process \d+ \([^)]*\) holding the most memory before the server restarted/, $log_offset);
	my $log = slurp_file($node->logfile, $log_offset);
	like($log, qr/memprobe sampled process $pid \(client backend\) holding the most memory before the server restarted\n[^\n]*DETAIL:  At its last sample, at [^,]+, it held \d+ MB of private memory, running query id 0: fastpath function call: public\.grow \(OID $grow_oid\)/,
		'a fast-path call killed: the crash report names its function');
	close $sock;
}

$node->stop;
done_testing();
