# memprobe on a streaming hot standby.
#
# A primary and a hot standby, both with memprobe preloaded.  CREATE EXTENSION on the primary
# reaches the standby; after the primary changed a table in every way a scan must see right
# (inserts, deletes, updates, aborted transactions, a transaction still open), the standby's
# StreamScan, GenMaterial (15, 17) and tuple stores return what core's nodes return, EXPLAIN
# ANALYZE shows Storage lines, and the reporting functions work there.  Last, a recovery conflict
# cancels a standby query in the middle of a StreamScan: the session gets the conflict error,
# still works, and holds no more memory contexts than before the query.
#
# Works with the PostgreSQL::Test modules of 15, 17 and 18.
#
# The sampler (memprobe_samples) runs on the standby as on the primary.
#
# Copyright (c) 2026, The memprobe Developers; the PostgreSQL License (LICENSE)

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf(
	'postgresql.conf', q{
shared_preload_libraries = 'memprobe'
memprobe.publish_interval = 0
# no vacuum but the test's own: with max_standby_streaming_delay = 0 on the standby, any cleanup
# replayed there while a standby query pins the page would cancel that query
autovacuum = off
max_parallel_workers_per_gather = 0
jit = off
shared_buffers = 16MB
});
$primary->start;

# GenMaterial and memprobe's tuple stores exist on 15 and 17 only (18's core does the same).
my $pre18 = $primary->pg_version < 18;

$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
# a conflicting query is cancelled at once (the last test)
$standby->append_conf(
	'postgresql.conf', q{
max_standby_streaming_delay = 0
hot_standby_feedback = off
});
$standby->start;

# --- the extension and the data, made on the primary after the standby started

$primary->safe_psql('postgres', 'CREATE EXTENSION memprobe');
# a table of ~1,300 pages (big), one that the primary keeps changing (chg), and a small one for
# nested loops
$primary->safe_psql(
	'postgres', q{
CREATE TABLE big (id int, k int, pad text);
INSERT INTO big SELECT g, g % 1000, md5(g::text) || repeat('x', g % 50)
  FROM generate_series(1, 100000) g;
CREATE TABLE small AS SELECT g AS a, repeat('p', 100) AS b FROM generate_series(1, 500) g;
CREATE TABLE side (a int);
-- blocks the standby query of the last test when it reaches the row it is called for
CREATE FUNCTION wait_here() RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE 'contexts while scanning: % (memprobe''s WindowAgg store: %)',
    (SELECT count(*) FROM memprobe_contexts),
    (SELECT count(*) FROM memprobe_contexts WHERE name = 'memprobe WindowAgg tuples');
  PERFORM pg_advisory_lock(4242);
  RETURN true;
END $$;
ANALYZE big, small;
});

# committed changes: deletes, updates (a new version of the row, on the same page or another)
$primary->safe_psql(
	'postgres', q{
DELETE FROM big WHERE id % 7 = 0;
UPDATE big SET k = k + 1 WHERE id % 11 = 0;
UPDATE big SET pad = pad || repeat('y', 200) WHERE id % 97 = 0;
INSERT INTO big SELECT g, g % 1000, 'late' FROM generate_series(100001, 101000) g;
});

# aborted ones: an insert, a delete, an update
$primary->safe_psql(
	'postgres', q{
BEGIN; INSERT INTO big SELECT g, 42, 'aborted' FROM generate_series(1, 3000) g; ROLLBACK;
BEGIN; DELETE FROM big WHERE id % 5 = 0; ROLLBACK;
BEGIN; UPDATE big SET k = -1 WHERE id % 13 = 0; ROLLBACK;
});

# one still open while the standby reads: its rows and changes must stay invisible there
my $open = $primary->background_psql('postgres');
$open->query_safe(
	q{
BEGIN;
INSERT INTO big SELECT g, 42, 'open' FROM generate_series(1, 2000) g;
DELETE FROM big WHERE id % 3 = 0;
UPDATE big SET k = -2 WHERE id % 17 = 0;
});

# a committed transaction after the open one's changes: its commit flushes their WAL too, so
# the standby has replayed them once it has caught up
$primary->safe_psql('postgres', 'INSERT INTO side VALUES (1)');
$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));

is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't', 'the standby is in recovery');
is( $standby->safe_psql('postgres',
		"SELECT extname FROM pg_extension WHERE extname = 'memprobe'"),
	'memprobe',
	'CREATE EXTENSION on the primary reached the standby');
cmp_ok($standby->safe_psql('postgres', "SELECT pg_relation_size('big') / 8192"),
	'>', 1000, 'big has more than 1000 pages');

# --- StreamScan, GenMaterial and stores against core's nodes, on the standby

# plan_of(setting, query): the EXPLAIN (COSTS OFF) text of query with setting applied
sub plan_of
{
	my ($settings, $query) = @_;
	return $standby->safe_psql('postgres', "$settings; EXPLAIN (COSTS OFF) $query");
}

# rows_of(settings, query): a row count and an md5 of query's rows in a fixed order
sub rows_of
{
	my ($settings, $query) = @_;
	return $standby->safe_psql('postgres',
		"$settings; SELECT count(*) || ' ' || coalesce(md5(string_agg(r::text, '|' ORDER BY r::text)), '-') FROM ($query) r"
	);
}

# compare(name, settings, switch, node_on, node_off, query): after settings, with switch on,
# query's plan has node_on (and with it off, node_off), and both return the same rows
sub compare
{
	my ($name, $settings, $switch, $node_on, $node_off, $query) = @_;
	my $on = "${settings}SET $switch = on";
	my $off = "${settings}SET $switch = off";
	like(plan_of($on, $query), qr/\Q$node_on\E/, "$name: $node_on in the plan");
	like(plan_of($off, $query),
		qr/\Q$node_off\E/, "$name: $node_off in the plan with $switch off");
	my $rows = rows_of($on, $query);
	is($rows, rows_of($off, $query), "$name: same rows as core ($rows)");
}

my $ss = 'Custom Scan (MemprobeStreamScan) on big';
my %scans = (
	'whole table' => 'SELECT id, k, pad FROM big',
	'int = const (page-loop qual)' => 'SELECT id, k, pad FROM big WHERE k = 42',
	'int < const (page-loop qual)' => 'SELECT id, k FROM big WHERE k < 10',
	'int = const on an updated row' => 'SELECT id, k, pad FROM big WHERE id = 11 * 97',
	'two quals, one not a page-loop qual' =>
	  "SELECT id, k FROM big WHERE k < 500 AND pad LIKE '%y%'",
	'count only' => 'SELECT count(*) FROM big WHERE id > 50000',);
foreach my $name (sort keys %scans)
{
	compare("StreamScan, $name", '', 'memprobe.enable_streamscan',
		$ss, 'Seq Scan on big', $scans{$name});
}
# the open transaction's rows, the aborted ones and the deleted ones are not seen
is( $standby->safe_psql('postgres',
		"SELECT count(*) FROM big WHERE pad IN ('open', 'aborted') OR (id % 7 = 0 AND id <= 100000)"),
	'0',
	'StreamScan: no row of the open or aborted transactions, no deleted row');
is( $standby->safe_psql('postgres', 'SELECT count(*) FROM big WHERE k = -2 OR k = -1'),
	'0', 'StreamScan: no version of the open or aborted updates');

my $nestloop =
  'SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_memoize = off; ';
if ($pre18)
{
	compare(
		'GenMaterial',
		"${nestloop}SET memprobe.enable_streamscan = off; ",
		'memprobe.enable_material',
		'Custom Scan (MemprobeMaterial)',
		'Materialize',
		'SELECT o.a, i.a AS ia, i.b FROM small o JOIN small i ON i.a > o.a * 100');
}
my $window = 'SELECT id, lag(k, 50) OVER (ORDER BY id) AS l FROM big WHERE id < 30000';
my $cte =
  'WITH c AS MATERIALIZED (SELECT id, k FROM big WHERE k < 100) SELECT a.id, b.k FROM c a JOIN c b USING (id)';
my $rcte =
  'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5000) SELECT n FROM r';
foreach my $q ([ 'WindowAgg', $window ], [ 'CTE Scan', $cte ], [ 'Recursive Union', $rcte ])
{
	is( rows_of('SET memprobe.enable_stores = on', $q->[1]),
		rows_of('SET memprobe.enable_stores = off', $q->[1]),
		"$q->[0] store: same rows as core's");
	like(
		$standby->safe_psql(
			'postgres', "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $q->[1]"),
		qr/Storage: (Memory|Disk)  Maximum Storage: \d+kB/,
		"$q->[0]: EXPLAIN ANALYZE shows a Storage line");
}

# --- reporting, on the standby

is( $standby->safe_psql('postgres',
		"SELECT count(*) > 10 AND bool_or(name = 'TopMemoryContext') FROM memprobe_contexts"),
	't',
	'memprobe_contexts on the standby');

# each one a top-level statement of its own session
$standby->safe_psql('postgres', 'SELECT count(*) AS standby_calls FROM big WHERE k = 7')
  for 1 .. 3;
is( $standby->safe_psql('postgres',
		"SELECT calls FROM memprobe_statements WHERE query LIKE '%standby_calls%' AND query NOT LIKE '%memprobe_statements%'"
	),
	'3',
	'memprobe_statements on the standby counts the standby\'s calls');
is( $primary->safe_psql('postgres',
		"SELECT count(*) FROM memprobe_statements WHERE query LIKE '%standby_calls%' AND query NOT LIKE '%memprobe_statements%'"
	),
	'0',
	'and the primary has no entry for them');

# the session of the conflict test (below)
my $victim = $standby->background_psql('postgres', on_error_stop => 0);
my $victim_pid = $victim->query_safe('SELECT pg_backend_pid()');
my $contexts_query = q{SELECT name || coalesce(' ' || ident, '') || ' ' || level FROM memprobe_contexts ORDER BY 1};
# the scan feeds a WindowAgg (a memprobe store on 15 and 17), and stops at id 30001 in
# wait_here() until the advisory lock is free: $other holds it
my $victim_query = q{SELECT count(n) FROM
  (SELECT id, row_number() OVER () AS n FROM big WHERE id <> 30001 OR wait_here()) s};
# once to the end first (wait_here() takes the lock and the session lets it go), so that the
# caches it fills (PL/pgSQL's plans, relation and catalog caches) are there before and after
$victim->query("$victim_query; SELECT pg_advisory_unlock_all()");
$victim->{stderr} = '';
# another standby session: it holds the advisory lock the conflict test waits on
my $other = $standby->background_psql('postgres');
my $other_pid = $other->query_safe(
	'SELECT pg_advisory_lock(4242); SELECT count(*) FROM big WHERE k = 3; SELECT pg_backend_pid()');
($other_pid) = $other_pid =~ /(\d+)\s*$/;
ok( $standby->poll_query_until(
		'postgres',
		"SELECT total_bytes > 0 AND contexts > 0 FROM memprobe_backends WHERE pid = $other_pid"),
	'memprobe_backends shows another standby session');
is( $standby->safe_psql('postgres',
		"SELECT count(*) > 0 AND bool_or(name = 'TopMemoryContext') FROM memprobe_backend_contexts($other_pid)"
	),
	't',
	'memprobe_backend_contexts(pid) of another standby session');
# the sampler runs in recovery too: the startup process replaying WAL and another session, with
# their private memory
ok( $standby->poll_query_until(
		'postgres',
		"SELECT count(*) = 2 FROM memprobe_samples()
		  WHERE private_bytes > 0 AND (backend_type = 'startup' OR pid = $other_pid)"),
	'the sampler samples the standby\'s processes, the startup process among them');

# --- a recovery conflict cancels a standby query in the middle of a StreamScan

# (the list first: its sort leaves a cache context behind the first time)
note "contexts before: " . $victim->query_safe($contexts_query);
my $before = $victim->query_safe('SELECT count(*) FROM memprobe_contexts');
like(plan_of('SET memprobe.enable_streamscan = on', $victim_query), qr/\Q$ss\E/, 'conflict: the query scans with StreamScan');
$victim->query_until(qr/started/, "\\echo started\n$victim_query;\n");
ok( $standby->poll_query_until(
		'postgres',
		"SELECT wait_event = 'advisory' FROM pg_stat_activity WHERE pid = $victim_pid"),
	'conflict: the query waits in the middle of its scan');

# remove rows its snapshot may see, and vacuum them away: the standby cancels the query when it
# replays that
$open->query_safe('ROLLBACK');
my $log_offset = -s $standby->logfile;
$primary->safe_psql('postgres', 'DELETE FROM big WHERE id > 60000');
$primary->safe_psql('postgres', 'VACUUM big');
$primary->wait_for_catchup($standby);
ok( $standby->poll_query_until(
		'postgres',
		"SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $victim_pid AND wait_event = 'advisory'"),
	'conflict: the query no longer waits');

# the standby cancelled it; the next statement in that session sees the error, and the session
# still works
ok($standby->log_contains(qr/canceling statement due to conflict with recovery/, $log_offset),
	'conflict: the standby logged the cancellation');
# Core may end the session instead, a moment after the cancel ("terminating connection due to
# conflict with recovery"): when the startup process, still waiting for the buffer pin, signals
# the conflict again while the session is aborting the query, the signal leaves a cancel pending
# that core turns into FATAL once the session is idle.  A race of core's (seen once in CI, on
# 15-cassert), not memprobe's: the checks that need the same session are then left out.
usleep(300_000);
my $terminated = $standby->log_contains(
	qr/\[$victim_pid\] .*FATAL:  terminating connection due to conflict with recovery/, $log_offset);
SKIP:
{
	skip 'core ended the session after the cancel (a second conflict signal while it aborted)',
	  $pre18 ? 7 : 6
	  if $terminated;
	my $after = $victim->query('SELECT count(*) FROM memprobe_contexts');
	like($victim->{stderr}, qr/canceling statement due to conflict with recovery/,
		'conflict: the query got the recovery conflict error');
	like($victim->{stderr}, qr/contexts while scanning: (\d+) \(memprobe's WindowAgg store: (\d+)\)/,
		'conflict: the query was in wait_here()');
	my ($during, $memprobe_during) =
	  $victim->{stderr} =~ /contexts while scanning: (\d+) \(memprobe's WindowAgg store: (\d+)\)/;
	$victim->{stderr} = '';
	note "contexts after: " . $victim->query_safe($contexts_query);
	cmp_ok($during, '>', $before, "conflict: the query held more contexts ($during) than before ($before)");
	cmp_ok($memprobe_during, '>', 0, 'conflict: memprobe\'s WindowAgg store context existed')
	  if $pre18;
	is($after, $before, 'conflict: the session holds as many contexts as before the query');
	is( $victim->query_safe(
			"SELECT count(*) FROM memprobe_contexts WHERE name = 'memprobe WindowAgg tuples'"),
		'0',
		'conflict: no WindowAgg store context left in the session');
	is( $victim->query_safe('SELECT count(*) FROM big WHERE id > 60000'),
		'0', 'conflict: the session still works and sees the vacuumed table');
}
is( $standby->safe_psql('postgres', 'SELECT count(*) FROM big WHERE id > 60000'),
	'0', 'conflict: a new standby session sees the vacuumed table');
is( rows_of('SET memprobe.enable_streamscan = on', 'SELECT id, k, pad FROM big'),
	rows_of('SET memprobe.enable_streamscan = off', 'SELECT id, k, pad FROM big'),
	'after the vacuum: StreamScan returns core\'s rows');

$victim->quit unless $terminated;
$other->quit;
$open->quit;

# no crash, no assertion failure, no memprobe warning on either node
foreach my $node ($primary, $standby)
{
	my $log = slurp_file($node->logfile);
	unlike($log, qr/TRAP:|server process .* was terminated|WARNING:.*memprobe/,
		$node->name . ': no crash and no memprobe warning in the log');
}

$standby->stop;
$primary->stop;
done_testing();
