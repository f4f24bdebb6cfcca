# memprobe.log_min_memory: one LOG line for each statement whose memory reached the setting,
# read whole in the server log (sql/log_min_memory.sql checks which statements log, by SQLSTATE).
#
# Checked:
#   - off by default: a sort of some 24MB logs nothing;
#   - at 10MB (set with ALTER SYSTEM and a reload): 1,000 small statements in one session log
#     no line;
#   - the 24MB sort logs exactly one line, with the query id and the executor figure that
#     memprobe_statements shows for it, its largest node (the Sort) and its normalised text,
#     and without the statement repeated (errhidestmt);
#   - a statement that fails after its sort logs its line too, after its error, said failed.
#
# Works with the PostgreSQL::Test modules of 15, 17 and 18.
#
# Copyright (c) 2026, The memprobe Developers; the PostgreSQL License (LICENSE)

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('log_min_memory');
$node->init;
$node->append_conf(
	'postgresql.conf', q{
shared_preload_libraries = 'memprobe'
max_parallel_workers_per_gather = 0
jit = off
log_statement = none
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION memprobe');

# an in-memory sort of 500,000 rows of two integers: some 24MB in its Sort node
my $sort = q{SET work_mem = '64MB';
SELECT sum(h) FROM (SELECT g, g + 1 AS h FROM generate_series(1, 500000) g ORDER BY g DESC OFFSET 0) s;};
my $sort_text =
  'SELECT sum(h) FROM (SELECT g, g + $1 AS h FROM generate_series($2, $3) g ORDER BY g DESC OFFSET $4) s';

# the lines logged since $offset
sub lines_since
{
	my ($offset) = @_;
	my $log = substr(slurp_file($node->logfile), $offset);
	my @lines = $log =~ /^.*LOG:  statement memory: .*$/mg;
	return ($log, @lines);
}

# off by default
my $offset = -s $node->logfile;
is($node->safe_psql('postgres', 'SHOW memprobe.log_min_memory'), '-1', 'off by default');
$node->safe_psql('postgres', $sort);
my ($log, @lines) = lines_since($offset);
is(scalar(@lines), 0, 'off: the 24MB sort logs nothing');

$node->safe_psql('postgres',
	"ALTER SYSTEM SET memprobe.log_min_memory = '10MB'; SELECT pg_reload_conf()");
$node->poll_query_until('postgres', "SELECT current_setting('memprobe.log_min_memory') = '10MB'")
  or die 'the setting was not reloaded';

# 1,000 small statements in one session: none logs
$node->safe_psql('postgres', 'CREATE TABLE small AS SELECT g AS id FROM generate_series(1, 100) g');
$offset = -s $node->logfile;
my $small = join("\n",
	map { $_ % 2 ? "SELECT count(*) FROM small WHERE id <= $_;" : "SELECT $_ + 1;" } 1 .. 1000);
my $out = $node->safe_psql('postgres', $small);
is(scalar(split /\n/, $out), 1000, '1,000 small statements ran');
($log, @lines) = lines_since($offset);
is(scalar(@lines), 0, 'at 10MB they log no line');

# the sort: one line, with its query id, figures, node and text
$offset = -s $node->logfile;
$node->safe_psql('postgres', $sort);
($log, @lines) = lines_since($offset);
is(scalar(@lines), 1, 'at 10MB the 24MB sort logs exactly one line');
my ($exec_kb, $private, $queryid) =
  ($lines[0] // '') =~ /statement memory: executor (\d+) kB, private (\d+ kB|not sampled), query id (-?\d+)$/;
ok(defined $queryid, "the line has its figures and query id: $lines[0]");
like($log, qr/DETAIL:  Largest node: Sort, (\d+) kB\. Query: \Q$sort_text\E$/m,
	'its detail names the Sort and the normalised text');
my ($sort_kb) = $log =~ /Largest node: Sort, (\d+) kB/;
ok($sort_kb > 20 * 1024 && $sort_kb < 60 * 1024, "the Sort took some 24MB ($sort_kb kB)");
unlike($log, qr/STATEMENT:/, 'the statement is not repeated');
my ($view_id, $view_kb) = split /\|/,
  $node->safe_psql('postgres',
	"SELECT queryid, max_exec_mem_bytes / 1024 FROM memprobe_statements WHERE query = '$sort_text'");
is($queryid, $view_id, 'the query id is memprobe_statements\'');
ok($exec_kb == $view_kb || $view_kb > $exec_kb,
	"the executor figure is memprobe_statements' ($exec_kb kB, most $view_kb kB)");

# a statement that fails after its sort: its error, then its line
$offset = -s $node->logfile;
my ($ret, $stdout, $stderr) = $node->psql('postgres',
	q{SET work_mem = '64MB';
SELECT sum(1 / (g - 1)) FROM (SELECT g, g + 1 AS h FROM generate_series(1, 500000) g ORDER BY g DESC OFFSET 0) s;});
like($stderr, qr/division by zero/, 'the failing statement fails');
($log, @lines) = lines_since($offset);
is(scalar(@lines), 1, 'and logs one line');
like($log, qr/ERROR:  division by zero.*LOG:  statement memory: executor \d+ kB.*\n.*DETAIL:  The statement failed; its figures are those sampled before the error\. Query: SELECT sum\(\$1 \/ \(g - \$2\)\)/s,
	'after its error, said failed, with its normalised text');

$node->stop;
done_testing();
