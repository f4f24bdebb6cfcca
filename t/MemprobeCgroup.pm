# A test server in a memory cgroup: the helpers t/005_out_of_memory.pl and t/007_guard_choices.pl
# share.  MEMPROBE_TEST_CGROUP names a directory this user may move processes into, with a memory
# limit between 512MB and 4GB (scripts/memory-cgroup makes one; scripts/test sets it).  The
# postmaster and its children are moved there after start, so every process the postmaster forks
# later is in it too, and only the server is limited.
#
# Copyright (c) 2026, The memprobe Developers; the PostgreSQL License (LICENSE)

package MemprobeCgroup;

use strict;
use warnings;
use Exporter 'import';
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(cgroup_or_skip cgroup_counters enter_cgroup all_in_cgroup server_pids proc_stat);

our $cgroup;

# cgroup_or_skip(): MEMPROBE_TEST_CGROUP, checked; skips the whole file without one, and dies
# when it is set but unusable (a broken harness, not a reason to skip)
sub cgroup_or_skip
{
	$cgroup = $ENV{MEMPROBE_TEST_CGROUP};
	if (!defined $cgroup || $cgroup eq '')
	{
		plan skip_all =>
		  'MEMPROBE_TEST_CGROUP does not name a memory cgroup to run the server in (scripts/memory-cgroup makes one; scripts/test sets it)';
	}
	my $limit = -d $cgroup && -w "$cgroup/cgroup.procs" ? cgroup_counters()->{limit} : undef;
	if (!defined $limit || $limit < 512 * 1024 * 1024 || $limit > 4 * 1024 * 1024 * 1024)
	{
		# a runaway statement would take all the machine's memory without a limit
		diag("MEMPROBE_TEST_CGROUP=$cgroup: not a cgroup directory whose cgroup.procs this user may write, with a memory limit between 512MB and 4GB ("
			  . ($limit // 'none') . ')');
		die 'unusable MEMPROBE_TEST_CGROUP';
	}
	return ($cgroup, $limit);
}

# the node's postmaster and its live children
sub server_pids
{
	my ($node) = @_;
	my ($pm) = slurp_file($node->data_dir . '/postmaster.pid') =~ /^(\d+)/;
	my @pids = ($pm);
	foreach my $stat (glob '/proc/[0-9]*/stat')
	{
		my ($pid, $state, $ppid) = proc_stat($stat) or next;
		push @pids, $pid if $ppid == $pm && $state ne 'Z';
	}
	return @pids;
}

# proc_stat(/proc/PID/stat): the pid, state and parent's pid, or () for a process gone
sub proc_stat
{
	my $s = eval { slurp_file($_[0]) } // return ();
	# "pid (comm) state ppid ...", comm possibly with spaces or parentheses
	return $s =~ /^(\d+) \(.*\) (\S+) (\d+) /s;
}

# enter_cgroup(node): moves the postmaster, then its children, into the cgroup
sub enter_cgroup
{
	my ($node) = @_;
	my ($pm) = server_pids($node);
	move_into_cgroup($pm);
	# listed after the postmaster moved: the children it forks from now on are born there
	my (undef, @children) = server_pids($node);
	move_into_cgroup($_) foreach @children;
	all_in_cgroup($node) or die "the server's processes are not all in $cgroup";
	note 'server processes in the cgroup: ' . join(' ', server_pids($node));
}

sub move_into_cgroup
{
	my ($pid) = @_;
	open(my $fh, '>', "$cgroup/cgroup.procs") or die "could not open $cgroup/cgroup.procs: $!";
	print $fh "$pid\n";
	# a child may have exited meanwhile; cgroup v2 lets this user move it only from inside the
	# delegated tree (scripts/memory-cgroup enter)
	close($fh)
	  or $!{ESRCH}
	  or die "could not move process $pid into $cgroup: $!";
}

# whether the postmaster and all its children are in the cgroup
sub all_in_cgroup
{
	my ($node) = @_;
	my @pids = server_pids($node);
	my %in = map { $_ => 1 } split /\s+/, slurp_file("$cgroup/cgroup.procs");
	# not those that exited meanwhile: an exiting process leaves its group before its parent
	# reaps it
	my @out = grep { !$in{$_} && ((proc_stat("/proc/$_/stat"))[1] // 'Z') ne 'Z' } @pids;
	diag "not in $cgroup: @out" if @out;
	return !@out;
}

# the cgroup's limit, OOM kills, times it hit its limit and peak usage (bytes), from cgroup v1's
# memory.* files or v2's; undef where a file is missing
sub cgroup_counters
{
	my %c;
	my $read = sub {
		my $f = "$cgroup/$_[0]";
		return -f $f ? slurp_file($f) : undef;
	};
	if (defined(my $v1 = $read->('memory.limit_in_bytes')))
	{
		$c{limit} = $v1 + 0;
		($c{oom_kill}) = ($read->('memory.oom_control') // '') =~ /^oom_kill (\d+)/m;
		$c{failcnt} = $read->('memory.failcnt') + 0;
		$c{peak} = $read->('memory.max_usage_in_bytes') + 0;
	}
	elsif (defined(my $max = $read->('memory.max')))
	{
		$c{limit} = $max =~ /^(\d+)/ ? $1 : undef;
		my $events = $read->('memory.events') // '';
		($c{oom_kill}) = $events =~ /^oom_kill (\d+)/m;
		($c{failcnt}) = $events =~ /^max (\d+)/m;
		$c{peak} = ($read->('memory.peak') // '') =~ /^(\d+)/ ? $1 : undef;
	}
	# "unlimited" in v1 is a huge number
	undef $c{limit} if defined $c{limit} && $c{limit} >= 2**62;
	return \%c;
}

1;
