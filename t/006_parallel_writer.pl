# Parallel StreamScan against a concurrent writer: every result is one snapshot's, as with core's
# Parallel Seq Scan.
#
# A table acct(id, bal, pad) of 20,000 rows (~100 bytes each, a few hundred pages) whose bal sum
# to a constant.  For ten seconds pgbench runs two clients of a writer that keeps the sum:
# transfers of an amount between two random accounts in one transaction (two UPDATEs: HOT
# chains, dead versions, pruning while the table is scanned) and a churn of rows of balance 0
# (two INSERTs and a DELETE: the table grows).  Meanwhile one session, with parallel plans
# forced on the small table (two workers), runs queries whose results are fixed in any one
# snapshot (the sum; the count of the 20,000 original rows; no row whose pad does not match its
# id), through parallel StreamScan and through core's Parallel Seq Scan by turns
# (memprobe.enable_parallel_streamscan), with and without the leader taking part
# (parallel_leader_participation: without it the workers read every page, so a worker that
# scanned with a snapshot other than the leader's could not go unseen).  A torn snapshot (a
# worker's that is not the leader's) breaks the sum or the count.  Now and then a REPEATABLE
# READ transaction takes its snapshot, lets the writer commit more, and reads every row twice,
# through parallel StreamScan and through core's Parallel Seq Scan: the two digests must be
# identical.  The plans are checked to be those parallel plans, and EXPLAIN ANALYZE during the
# writer's run to have launched both workers, StreamScan's workers reading pages.
#
# Works with the PostgreSQL::Test modules of 15, 17 and 18.
#
# Copyright (c) 2026, The memprobe Developers; the PostgreSQL License (LICENSE)

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

my $rows = 20_000;
my $total = $rows * 1000;
my $writer_seconds = 10;
# most iterations of the checking loop; it ends with the writer anyway
my $max_iterations = 150;
# a REPEATABLE READ round every that many iterations
my $rr_every = 5;

my $node = PostgreSQL::Test::Cluster->new('parallel_writer');
$node->init;
$node->append_conf(
	'postgresql.conf', q{
shared_preload_libraries = 'memprobe'
max_worker_processes = 8
max_parallel_workers = 8
# vacuum during the run too: pages set all-visible, tuples removed under the scans
autovacuum_naptime = 1s
jit = off
# pgbench's thousands of statements a second would fill the log
log_statement = none
});
$node->start;

# pad: 64 characters made from the id (so that a row's text can be checked against its id)
$node->safe_psql(
	'postgres', qq{
CREATE EXTENSION memprobe;
CREATE TABLE acct (id int PRIMARY KEY, bal int NOT NULL, pad text NOT NULL)
  WITH (fillfactor = 80, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 2000);
INSERT INTO acct SELECT g, 1000, rpad(g::text, 64, '.') FROM generate_series(1, $rows) g;
CREATE SEQUENCE acct_new START @{[ $rows + 1 ]};
VACUUM ANALYZE acct;
});
my $pages = $node->safe_psql('postgres', "SELECT pg_relation_size('acct') / 8192");
cmp_ok($pages, '>=', 200, "acct has several hundred pages ($pages)");
is($node->safe_psql('postgres', 'SELECT sum(bal), count(*) FROM acct'),
	"$total|$rows", "the balances sum to $total");

# The writer.  A transfer updates the lower id first: two clients updating the same two rows in
# opposite orders could deadlock, and pgbench would abort the client.  Its amount is signed, so
# money moves both ways.  The churn inserts two rows of balance 0 and deletes one inserted
# twenty ids before (by either client; it may be gone already); the transfers never touch them.
my $transfer = $node->basedir . '/transfer.sql';
my $churn = $node->basedir . '/churn.sql';
append_to_file(
	$transfer, qq{\\set r1 random(1, $rows)
\\set r2 random(1, $rows)
\\set lo least(:r1, :r2)
\\set hi greatest(:r1, :r2)
\\set d random(-100, 100)
BEGIN;
UPDATE acct SET bal = bal - :d WHERE id = :lo;
UPDATE acct SET bal = bal + :d WHERE id = :hi;
COMMIT;
});
append_to_file(
	$churn, q{BEGIN;
INSERT INTO acct SELECT n, 0, rpad(n::text, 64, '.')
  FROM (SELECT nextval('acct_new') AS n FROM generate_series(1, 2)) s;
SELECT currval('acct_new') - 20 AS old \gset
DELETE FROM acct WHERE id = :old AND bal = 0;
COMMIT;
});

# The checks: each query's result is the same in every snapshot.  "id <= N" and "bal <> 0" are
# page-loop quals of StreamScan (on int columns); the last one reads the text column.
my %checks = (
	plain => [ "SELECT sum(bal), count(*) FILTER (WHERE id <= $rows) FROM acct", "$total|$rows" ],
	'page qual on id' =>
	  [ "SELECT sum(bal), count(*) FROM acct WHERE id <= $rows", "$total|$rows" ],
	'page qual on bal' => [ 'SELECT sum(bal) FROM acct WHERE bal <> 0', $total ],
	'text column' => [
		"SELECT sum(bal), count(*) FILTER (WHERE id <= $rows),
		        count(*) FILTER (WHERE pad <> rpad(id::text, 64, '.'))
		   FROM acct WHERE id > 0", "$total|$rows|0"
	],);
my @check_names = sort keys %checks;
# every row, in one digest, with the sum and the highest id
my $digest_query =
  q{SELECT md5(string_agg(id || ':' || bal || ':' || pad, ',' ORDER BY id)), sum(bal), max(id) FROM acct};

my %variant = (
	streamscan => {
		set => 'SET memprobe.enable_parallel_streamscan = on',
		node => 'Parallel Custom Scan (MemprobeStreamScan) on acct',
		name => 'parallel StreamScan'
	},
	core => {
		set => 'SET memprobe.enable_parallel_streamscan = off',
		node => 'Parallel Seq Scan on acct',
		name => "core's Parallel Seq Scan"
	},);

my $s = $node->background_psql('postgres', on_error_stop => 0);
# sequential scans only: once the writer has grown the table, "id <= 20000" can be planned as an
# index scan on the primary key
$s->query_safe(
	q{SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
	  SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
	  SET enable_indexscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off});

# --- the plans are the parallel ones

foreach my $v (sort keys %variant)
{
	my @wrong;
	foreach my $q ((map { $checks{$_}[0] } @check_names), $digest_query)
	{
		my ($plan) = run_sql("$variant{$v}{set}; EXPLAIN (COSTS OFF) $q");
		push @wrong, $plan
		  unless $plan =~ /Gather/
		  && $plan =~ /Workers Planned: 2/
		  && $plan =~ /\Q$variant{$v}{node}\E/
		  && ($v eq 'core' || $plan !~ /Seq Scan/);
	}
	is(scalar(@wrong), 0,
		"with $variant{$v}{set}, every query's plan is a Gather over $variant{$v}{node}")
	  or diag join("\n", @wrong);
}

# --- the writer, and the checks while it runs

my ($pgb_out, $pgb_err) = ('', '');
my $pgbench;
{
	local $ENV{PGAPPNAME} = 'acct_writer';
	$pgbench = IPC::Run::start(
		[
			'pgbench', '-n', '-c', '2', '-j', '2', '-T', $writer_seconds,
			'-f', "$transfer\@3", '-f', "$churn\@1",
			'-h', $node->host, '-p', $node->port, 'postgres'
		],
		'>', \$pgb_out, '2>', \$pgb_err);
}
my $writer_start = time;
$node->poll_query_until('postgres',
	"SELECT count(*) = 2 FROM pg_stat_activity WHERE application_name = 'acct_writer'")
  or die "the writer did not connect: $pgb_err";

my (%ran, %wrong, %explained, @violations);
my %rr = (rounds => 0, changed => 0);
my $iterations = 0;
while ($iterations < $max_iterations && time < $writer_start + $writer_seconds - 0.5)
{
	$iterations++;
	# by turns: the leader reads pages too, or only the workers do
	my $leader = $iterations % 2 ? 'on' : 'off';
	run_sql("SET parallel_leader_participation = $leader");
	foreach my $name (@check_names)
	{
		# by turns which of the two goes first
		my @order = $iterations % 4 < 2 ? qw(streamscan core) : qw(core streamscan);
		foreach my $v (@order)
		{
			my ($q, $want) = @{ $checks{$name} };
			my ($out, $err) = run_sql("$variant{$v}{set}; $q");
			$ran{$v}{$name}++;
			next if $out eq $want && $err eq '';
			$wrong{$v}++;
			push @violations, "$variant{$v}{name}, $name, leader $leader: got '$out', want '$want'"
			  . ($err ne '' ? ", error: $err" : '');
		}
	}
	explain_analyze($leader) if $iterations % 5 == 3;
	rr_round($leader) if $iterations % $rr_every == 0;
}
$pgbench->finish;
my $pgbench_exit = $? >> 8;
my ($tps) = $pgb_out =~ /^tps = ([\d.]+)/m;
my ($transactions) = $pgb_out =~ /^number of transactions actually processed: (\d+)/m;
note "pgbench (exit status $pgbench_exit):\n$pgb_out$pgb_err";

note sprintf "%d iterations in %.1f s while the writer ran", $iterations, time - $writer_start;
# (the writer's sessions report their counts as they exit: these may lag a little)
note 'acct afterwards: '
  . $node->safe_psql('postgres',
	q{SELECT pg_relation_size('acct') / 8192 || ' pages, ' || n_tup_upd || ' updates (' || n_tup_hot_upd
	         || ' HOT), ' || n_tup_ins || ' inserts, ' || n_tup_del || ' deletes, '
	         || autovacuum_count || ' autovacuums'
	    FROM pg_stat_user_tables WHERE relname = 'acct'});
foreach my $v (sort keys %variant)
{
	my $sum = 0;
	$sum += $_ for values %{ $ran{$v} };
	note "checks through $variant{$v}{name}: $sum ("
	  . join(', ', map { "$_ " . ($ran{$v}{$_} // 0) } @check_names)
	  . '), wrong: ' . ($wrong{$v} // 0);
}
note "REPEATABLE READ rounds: $rr{rounds}, in $rr{changed} of which the writer had changed "
  . 'the table by the end of the transaction; wrong: ' . ($wrong{rr} // 0);
foreach my $v (sort keys %variant)
{
	my $e = $explained{$v} // {};
	note "EXPLAIN ANALYZE through $variant{$v}{name}: "
	  . ($e->{runs} // 0)
	  . ' runs, '
	  . ($e->{two_workers} // 0)
	  . ' with Workers Launched: 2'
	  . ($v ne 'streamscan' ? '' : ', pages read by its workers: '
		  . ($e->{worker_pages_leader_on} // 0) . ' with the leader taking part, '
		  . ($e->{worker_pages_leader_off} // 0) . ' without');
}

is($pgbench_exit, 0, 'the writer (pgbench) exits 0') or diag $pgb_err;
cmp_ok($transactions // 0, '>', 100, "and committed transactions (" . ($transactions // 0)
	  . ", tps " . ($tps // '?') . ')');
cmp_ok($ran{$_}{$check_names[0]} // 0, '>=', 10, "at least 10 rounds of checks through $variant{$_}{name}")
  for sort keys %variant;
is(scalar(@violations), 0,
	'every result while the writer ran was one snapshot\'s: the sum, the original rows, the pads')
  or diag join("\n", @violations[ 0 .. ($#violations < 19 ? $#violations : 19) ]);
cmp_ok($rr{rounds}, '>=', 3, 'REPEATABLE READ rounds ran');
cmp_ok($rr{changed}, '>', 0, 'and the writer changed the table during some of them');
foreach my $v (sort keys %variant)
{
	cmp_ok($explained{$v}{two_workers} // 0,
		'>', 0, "EXPLAIN ANALYZE during the writer's run: $variant{$v}{name} launched 2 workers");
}
cmp_ok($explained{streamscan}{worker_pages} // 0,
	'>', 0, "and parallel StreamScan's workers read pages");

# after the writer: the table is still right, and both scans agree on it
my %after = map { $_ => scalar(run_sql("$variant{$_}{set}; $digest_query")) } keys %variant;
is($after{streamscan}, $after{core}, 'after the writer, both scans return the same rows');
like($after{streamscan}, qr/^\w{32}\|$total\|\d+$/, "and the balances still sum to $total");

$s->quit;
$node->stop;
done_testing();


# run_sql(sql): the checking session's output and its stderr (cleared before)
sub run_sql
{
	my ($sql) = @_;
	$s->{stderr} = '';
	my $out = $s->query($sql);
	my $err = $s->{stderr};
	chomp $err;
	return wantarray ? ($out, $err) : $out;
}

# explain_analyze(leader): EXPLAIN ANALYZE of a check through each scan, counting the runs that
# launched both workers and (StreamScan's "Pages:" line) the pages the workers read
sub explain_analyze
{
	my ($leader) = @_;
	foreach my $v (sort keys %variant)
	{
		my ($plan, $err) = run_sql("$variant{$v}{set}; EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) "
			  . $checks{'page qual on id'}[0]);
		note "EXPLAIN ANALYZE, $variant{$v}{name}, leader $leader:\n$plan$err";
		$explained{$v}{runs}++;
		$explained{$v}{two_workers}++
		  if $plan =~ /Workers Launched: 2/ && $plan =~ /\Q$variant{$v}{node}\E/;
		if ($plan =~ /Pages: \d+ .*\(leader \d+; workers (\d+), (\d+)\)/)
		{
			$explained{$v}{worker_pages} += $1 + $2;
			$explained{$v}{"worker_pages_leader_$leader"} += $1 + $2;
		}
	}
}

# rr_round(leader): a REPEATABLE READ transaction takes its snapshot, the writer commits more,
# then every row is read through both scans in that transaction: the digests must be the same,
# with the constant sum.  Afterwards, outside the transaction, a new digest tells whether the
# writer had changed the table meanwhile.
sub rr_round
{
	my ($leader) = @_;
	$rr{rounds}++;
	my ($first, $err) = run_sql(
		'BEGIN ISOLATION LEVEL REPEATABLE READ; ' . $variant{streamscan}{set} . '; ' . $checks{plain}[0]);
	rr_wrong("first statement, leader $leader: got '$first'" . ($err ne '' ? ", error: $err" : ''))
	  if $first ne $checks{plain}[1] || $err ne '';
	usleep(200_000);
	my %got;
	foreach my $v (qw(streamscan core))
	{
		($got{$v}, $err) = run_sql("$variant{$v}{set}; $digest_query");
		rr_wrong("$variant{$v}{name}, leader $leader: error: $err") if $err ne '';
	}
	run_sql('COMMIT');
	rr_wrong("leader $leader: parallel StreamScan '$got{streamscan}', core's '$got{core}'")
	  if $got{streamscan} ne $got{core} || $got{core} !~ /^\w{32}\|$total\|\d+$/;
	my $now = run_sql("$variant{core}{set}; $digest_query");
	$rr{changed}++ if $now ne $got{core};
}

sub rr_wrong
{
	my ($what) = @_;
	$wrong{rr}++;
	push @violations, "REPEATABLE READ, $what";
}
