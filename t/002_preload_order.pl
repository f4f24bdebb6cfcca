# memprobe beside pg_stat_statements and auto_explain, preloaded first and last.
#
# All three hook the executor (and pg_stat_statements and memprobe ProcessUtility) and chain
# to each other.  sql/coexist.sql checks pg_stat_statements beside memprobe in SQL; this checks
# what only the server log shows, with auto_explain logging every plan with ANALYZE and BUFFERS
# (nested statements too), for each order:
#   - queries with memprobe's nodes return core's rows;
#   - auto_explain's plans name memprobe's Custom Scan nodes, with the row counts and loops of
#     core's nodes in the same place (memprobe's nodes run right under the instrumentation
#     auto_explain turns on) and a Buffers line;
#   - EXPLAIN ANALYZE still shows the Storage lines;
#   - pg_stat_statements' and memprobe_statements' call counts agree for each queryid;
#   - the server log has no ERROR, WARNING, assertion failure or crash.
#
# Works with the PostgreSQL::Test modules of 15, 17 and 18.
#
# Copyright (c) 2026, The memprobe Developers; the PostgreSQL License (LICENSE)

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my %orders = (
	'memprobe first' => 'memprobe, pg_stat_statements, auto_explain',
	'memprobe last' => 'pg_stat_statements, auto_explain, memprobe',);

# the settings that turn memprobe's nodes off, for core's results and plans
my $core =
  'SET memprobe.enable_streamscan = off; SET memprobe.enable_material = off; SET memprobe.enable_stores = off; ';
my $nestloop =
  'SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_memoize = off; ';

foreach my $order (sort keys %orders)
{
	my $name = $order =~ s/ /_/r;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf(
		'postgresql.conf', qq{
shared_preload_libraries = '$orders{$order}'
auto_explain.log_min_duration = 0
auto_explain.log_analyze = on
auto_explain.log_buffers = on
auto_explain.log_nested_statements = on
pg_stat_statements.track = all
memprobe.track = all
max_parallel_workers_per_gather = 0
jit = off
});
	$node->start;
	my $pre18 = $node->pg_version < 18;
	is($node->safe_psql('postgres', 'SHOW shared_preload_libraries'),
		$orders{$order}, "$order: preloaded as $orders{$order}");

	$node->safe_psql(
		'postgres', q{
CREATE EXTENSION memprobe;
CREATE EXTENSION pg_stat_statements;
CREATE TABLE t (id int, k int, pad text);
INSERT INTO t SELECT g, g % 100, md5(g::text) FROM generate_series(1, 50000) g;
DELETE FROM t WHERE id % 9 = 0;
CREATE TABLE small AS SELECT g AS a, repeat('p', 100) AS b FROM generate_series(1, 500) g;
ANALYZE t, small;
CREATE FUNCTION t_count(n int) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  RETURN (SELECT count(*) FROM t WHERE k = n);
END $$;
SELECT pg_stat_statements_reset() IS NOT NULL;
SELECT memprobe_statements_reset();
});

	# name => [ settings, query, memprobe's node as auto_explain logs it, core's node ]
	my %queries = (
		'StreamScan with a page-loop qual' => [
			'', 'SELECT id, k, pad FROM t WHERE k = 5',
			'Custom Scan (MemprobeStreamScan) on t', 'Seq Scan on t'
		],
		'StreamScan, whole table' => [
			'', 'SELECT count(*), sum(k) FROM t',
			'Custom Scan (MemprobeStreamScan) on t', 'Seq Scan on t'
		],
		'StreamScan in a nested statement' => [
			'', 'SELECT t_count(7)',
			'Custom Scan (MemprobeStreamScan) on t', 'Seq Scan on t'
		],
		'WindowAgg over StreamScan' => [
			'', 'SELECT id, lag(k, 10) OVER (ORDER BY id) FROM t WHERE id < 5000',
			'Custom Scan (MemprobeStreamScan) on t', 'Seq Scan on t'
		],
		'CTE over StreamScan' => [
			'',
			'WITH c AS MATERIALIZED (SELECT id, k FROM t WHERE k < 3) SELECT a.id, b.k FROM c a JOIN c b USING (id)',
			'Custom Scan (MemprobeStreamScan) on t',
			'Seq Scan on t'
		],);
	if ($pre18)
	{
		$queries{'GenMaterial'} = [
			"${nestloop}SET memprobe.enable_streamscan = off; ",
			'SELECT o.a, i.a AS ia FROM small o JOIN small i ON i.a > o.a * 100',
			'Custom Scan (MemprobeMaterial)',
			'Materialize'
		];
	}

	foreach my $q (sort keys %queries)
	{
		my ($settings, $query, $ours, $theirs) = @{ $queries{$q} };
		my ($rows_ours, $plan_ours) = run_logged($node, $settings, $query);
		my ($rows_core, $plan_core) = run_logged($node, "$settings$core", $query);
		is($rows_ours, $rows_core, "$order, $q: same rows as core's");
		my $n_ours = node_figures($plan_ours, $ours);
		my $n_core = node_figures($plan_core, $theirs);
		ok(defined $n_ours, "$order, $q: auto_explain logged $ours")
		  or diag("plan logged:\n$plan_ours");
		ok(defined $n_core, "$order, $q: auto_explain logged $theirs with memprobe's nodes off")
		  or diag("plan logged:\n$plan_core");
		next unless defined $n_ours && defined $n_core;
		is($n_ours->{rows}, $n_core->{rows},
			"$order, $q: $ours counts core's rows and loops ($n_ours->{rows})");
		ok($n_ours->{buffers}, "$order, $q: $ours has a Buffers line")
		  if $ours =~ /StreamScan/;
		# a whole-table scan's buffers: as many blocks as core's scan touches
		is($n_ours->{blocks}, $n_core->{blocks},
			"$order, $q: $ours touches as many blocks as core's scan ($n_ours->{blocks})")
		  if $q eq 'StreamScan, whole table';
	}

	# EXPLAIN ANALYZE's Storage lines, with auto_explain instrumenting the same query
	foreach my $q ('WindowAgg over StreamScan', 'CTE over StreamScan')
	{
		like(
			$node->safe_psql(
				'postgres', "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $queries{$q}[1]"),
			qr/Storage: (Memory|Disk)  Maximum Storage: \d+kB/,
			"$order, $q: EXPLAIN ANALYZE shows a Storage line");
	}

	# the same queryids with the same calls in both (utility statements are pg_stat_statements'
	# alone: memprobe measures executors)
	my $agree = $node->safe_psql(
		'postgres', q{
SELECT count(*) FILTER (WHERE m.calls = s.calls) || ' of ' || count(*)
       || ' agree; differ: ' || coalesce(string_agg(s.query || ' ' || s.calls || '/' || coalesce(m.calls::text, 'none'), '; ') FILTER (WHERE m.calls IS DISTINCT FROM s.calls), '')
  FROM pg_stat_statements s
  LEFT JOIN memprobe_statements m USING (userid, dbid, queryid, toplevel)
 WHERE s.query ~ '\m(t|small)\M' AND s.query !~* '^\s*(CREATE|ANALYZE|DELETE|INSERT|EXPLAIN)'});
	like($agree, qr/^(\d+) of \1 agree; differ: $/,
		"$order: pg_stat_statements' and memprobe_statements' calls agree ($agree)");
	unlike($agree, qr/^0 of/, "$order: and there are such statements");

	my $log = slurp_file($node->logfile);
	my @bad = $log =~ /^.*\b(?:ERROR|WARNING|FATAL|PANIC):.*$|^TRAP:.*$|^.*server process.*terminated.*$/mg;
	is(scalar(@bad), 0, "$order: no ERROR, WARNING or crash in the server log")
	  or diag(join("\n", @bad));
	$node->stop;
}

# run_logged(node, settings, query): the query's rows (a count and an md5) and what the server
# logged while it ran (auto_explain's plans)
sub run_logged
{
	my ($node, $settings, $query) = @_;
	my $offset = -s $node->logfile;
	my $rows = $node->safe_psql('postgres',
		"$settings$query \\g /dev/null\n"
		  . "SELECT count(*) || ' ' || coalesce(md5(string_agg(r::text, '|' ORDER BY r::text)), '-') FROM ($query) r"
	);
	return ($rows, slurp_file($node->logfile, $offset));
}

# node_figures(log, node): for the first plan node in log whose line has node, its "rows=R
# loops=L" (as "R x L"), whether a Buffers line follows it, and the blocks that line counts
sub node_figures
{
	my ($log, $node) = @_;
	my @lines = split /\n/, $log;
	for (my $i = 0; $i < @lines; $i++)
	{
		next unless index($lines[$i], $node) >= 0;
		my ($rows, $loops) = $lines[$i] =~ /actual .*rows=([\d.]+) loops=(\d+)/
		  or next;
		my %f = (rows => "$rows x $loops", buffers => 0, blocks => 0);
		my ($indent) = $lines[$i] =~ /^(\s*)/;
		for (my $j = $i + 1; $j < @lines; $j++)
		{
			my ($ind) = $lines[$j] =~ /^(\s*)/;
			last if $lines[$j] =~ /->/ || length($ind) <= length($indent);
			if ($lines[$j] =~ /Buffers: shared (.*)/)
			{
				my $counts = $1;
				$f{buffers} = 1;
				$f{blocks} += $_ for ($counts =~ /(?:hit|read)=(\d+)/g);
			}
		}
		return \%f;
	}
	return undef;
}

done_testing();
