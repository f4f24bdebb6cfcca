# Shared by scripts/demo, scripts/test and bench/run: install what memprobe needs on a Debian
# machine, find or build the server to use, build and install memprobe for it, and run things as
# the unprivileged user PostgreSQL insists on.  Sourced, not run.  Everything here runs as root.
#
# Copyright (c) 2026, The memprobe Developers; the PostgreSQL License (LICENSE)

MEMPROBE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MEMPROBE_USER=${MEMPROBE_USER:-memprobe}
MEMPROBE_WORK=${MEMPROBE_WORK:-/tmp/memprobe-work}

die() { echo "memprobe: $*" >&2; exit 1; }

require_root() {
  [ "$(id -u)" = 0 ] || die "run this as root (or with sudo): it installs packages and memprobe"
}

# apt-get waits this long (seconds) for another apt or dpkg to finish, where it would fail at once
APT_LOCK_TIMEOUT=${MEMPROBE_APT_LOCK_TIMEOUT:-600}

# apt-get install the packages not yet installed (apt-get update first, once per run).
apt_install() {
  local missing=() p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ -z "${MEMPROBE_APT_UPDATED:-}" ]; then
    apt-get update -qq -o DPkg::Lock::Timeout="$APT_LOCK_TIMEOUT"
    MEMPROBE_APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    -o DPkg::Lock::Timeout="$APT_LOCK_TIMEOUT" "${missing[@]}" >/dev/null
}

# Build tools and PostgreSQL 15 from Debian.  A server installed here must not create and start
# a cluster of its own (memprobe's scripts run scratch clusters of their own), and
# createcluster.conf is left as it was.
install_base_packages() {
  local cc=/etc/postgresql-common/createcluster.conf orig
  apt_install postgresql-common
  if ! dpkg -s postgresql-15 >/dev/null 2>&1; then
    # create_main_cluster = false for this install only; the file is put back as it was
    orig=$(mktemp)
    cp -p "$cc" "$orig"
    sed -i 's/^#\?\s*create_main_cluster.*/create_main_cluster = false/' "$cc"
    grep -q '^create_main_cluster = false' "$cc" || echo 'create_main_cluster = false' >>"$cc"
    apt_install postgresql-15 || { cp -p "$orig" "$cc"; rm -f "$orig"; return 1; }
    cp -p "$orig" "$cc"
    rm -f "$orig"
  fi
  apt_install build-essential postgresql-15 postgresql-server-dev-15 postgresql-client-15
}

# The unprivileged user that owns test and demo clusters.
ensure_user() {
  id "$MEMPROBE_USER" >/dev/null 2>&1 ||
    useradd --system --user-group --create-home --home-dir "/var/lib/$MEMPROBE_USER" \
      --shell /bin/bash "$MEMPROBE_USER"
}

as_user() { su "$MEMPROBE_USER" -s /bin/bash -c "$*"; }

# pg_config of a server: "15" is Debian's postgresql-15 package (a copy of it, debian_server_copy);
# "15-cassert", "17" and "18" are assert-enabled source builds made (and cached) by
# scripts/pg-build; "17-release" and "18-release" are optimised source builds, for benchmarks.
pg_config_for() {
  local prefix major
  case "$1" in
    15) debian_server_copy 15 || return 1; return 0 ;;
    15-cassert) major=15; prefix=$("$MEMPROBE_ROOT/scripts/pg-build" 15 cassert) || return 1 ;;
    17|18) major=$1; prefix=$("$MEMPROBE_ROOT/scripts/pg-build" "$1" cassert) || return 1 ;;
    17-release|18-release)
      major=${1%-release}; prefix=$("$MEMPROBE_ROOT/scripts/pg-build" "$major" release) || return 1 ;;
    *) die "unknown server '$1' (use 15, 15-cassert, 17, 18, 17-release or 18-release)" ;;
  esac
  prefix=$(echo "$prefix" | tail -n 1)
  # never fall back silently to another server's pg_config
  if [ ! -x "$prefix/bin/pg_config" ] ||
     ! grep -q "PostgreSQL $major\." <<<"$("$prefix/bin/pg_config" --version)"; then
    echo "memprobe: no PostgreSQL $major build at '$prefix'" >&2
    return 1
  fi
  echo "$prefix/bin/pg_config"
}

# The servers memprobe's scripts test on are theirs alone: never a DBA's.  Debian's PostgreSQL
# (/usr/lib/postgresql/MAJOR, /usr/share/postgresql/MAJOR and /usr/include/postgresql) is used
# through a copy under $MEMPROBE_SERVER_COPIES, hard links where the file system allows (a plain
# copy otherwise), with memprobe's own files unlinked: a test build installed there never writes
# into the package's files, memprobe's package among them, nor under a running server that
# preloads them.  PostgreSQL finds its share and lib directories relative to its binaries, so the
# copy runs as the original does.  Under /var/cache, which only root may write to (root runs the
# copy's pg_config), and not under /tmp: scripts/cgroup2-vm's VM sees the host's root but a /tmp
# of its own.  The copy is made again when Debian's files change (an upgrade, a package adding
# an extension).  Prints the copy's pg_config.
MEMPROBE_SERVER_COPIES=${MEMPROBE_SERVER_COPIES:-/var/cache/memprobe-servers/$(basename "$MEMPROBE_WORK")}
debian_server_copy() {
  local major=$1 copy stamp dirs reason= d
  copy=$MEMPROBE_SERVER_COPIES/debian-$major
  # root-owned, not a symbolic link, and writable by no one else, all the way down
  mkdir -p "$MEMPROBE_SERVER_COPIES"
  d=$MEMPROBE_SERVER_COPIES
  while [ "$d" != / ]; do
    if [ -L "$d" ] || [ "$(stat -c %u "$d")" != 0 ] ||
       { [ -n "$(find "$d" -maxdepth 0 -perm /022)" ] && [ ! -k "$d" ]; }; then
      echo "memprobe: $d is not a directory only root may change: not using $MEMPROBE_SERVER_COPIES" >&2
      return 1
    fi
    d=$(dirname "$d")
  done
  dirs=("/usr/lib/postgresql/$major" "/usr/share/postgresql/$major" /usr/include/postgresql)
  [ -x "/usr/lib/postgresql/$major/bin/pg_config" ] ||
    { echo "memprobe: Debian's postgresql-$major is not installed" >&2; return 1; }
  # what the copy was made from: every file but memprobe's, with its inode and time
  stamp=$(find "${dirs[@]}" -path '*/memprobe*' -prune -o -printf '%p %i %T@\n' | sort | md5sum)
  if [ "$(cat "$copy.stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$copy" "$copy.stamp"
    local d
    for d in "${dirs[@]}"; do
      mkdir -p "$(dirname "$copy$d")"
      cp -al "$d" "$copy$d" 2>/dev/null || { rm -rf "$copy$d"; cp -a "$d" "$copy$d"; } || return 1
    done
    without_memprobe "$copy/usr/lib/postgresql/$major/bin/pg_config" || return 1
    echo "$stamp" >"$copy.stamp"
  fi
  # say so where a DBA's memprobe is there to be touched
  if dpkg -s "postgresql-$major-memprobe" 2>/dev/null | grep -q '^Status: install ok installed'; then
    reason="memprobe's package postgresql-$major-memprobe is installed"
  elif grep -qs "/usr/lib/postgresql/$major/lib/memprobe.so" /proc/[0-9]*/maps; then
    reason="a running server has /usr/lib/postgresql/$major/lib/memprobe.so loaded"
  fi
  [ -z "$reason" ] ||
    echo "memprobe: $reason: building and testing in a copy of Debian's PostgreSQL $major ($copy), leaving those files alone" >&2
  echo "$copy/usr/lib/postgresql/$major/bin/pg_config"
}

# without_memprobe PG_CONFIG: unlinks memprobe's files from that installation (never writing
# through the hard links of a copy); never from a package's directories under /usr
without_memprobe() {
  local pkglib share
  pkglib=$("$1" --pkglibdir) && share=$("$1" --sharedir) || return 1
  case "$pkglib" in /usr/*) return 0 ;; esac
  rm -f "$pkglib"/memprobe.so "$share"/extension/memprobe[.-]*
  rm -rf "$pkglib"/bitcode/memprobe "$pkglib"/bitcode/memprobe.index.bc
}

# Copy the source tree to a fresh directory for one server, build it there with warnings as
# errors and with $MEMPROBE_MAKE_FLAGS (scripts/test's test build), install it into that server,
# and hand the directory to the test user (pg_regress writes results/ and tmp_check/ there).
# Prints the directory.
build_and_install() {
  local server=$1 pgc=$2 dir="$MEMPROBE_WORK/$1"
  case $("$pgc" --pkglibdir) in
    /usr/*) echo "memprobe: not installing into $("$pgc" --pkglibdir), a package's directory" >&2; return 1 ;;
  esac
  rm -rf "$dir"
  mkdir -p "$dir"
  (cd "$MEMPROBE_ROOT" && tar cf - --exclude=.git --exclude=results --exclude=tmp_check \
     --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude=bench/out --exclude=./build \
     --exclude=src/build_version.h .) | (cd "$dir" && tar xf -)
  # the copy has no .git: it carries the version the clone's commit gives (scripts/build-version)
  sh "$MEMPROBE_ROOT/scripts/build-version" >"$dir/.build-version" || return 1
  make -C "$dir" -s PG_CONFIG="$pgc" with_llvm=no COPT=-Werror ${MEMPROBE_MAKE_FLAGS:-} >&2 || return 1
  without_memprobe "$pgc" >&2 || return 1
  make -C "$dir" -s PG_CONFIG="$pgc" with_llvm=no ${MEMPROBE_MAKE_FLAGS:-} install >&2 || return 1
  chown -R "$MEMPROBE_USER:" "$dir"
  chmod 755 "$MEMPROBE_WORK"
  echo "$dir"
}

# suite_counts LOG: "PASSED FAILED", the tests counted by the summary lines pg_regress and
# pg_isolation_regress print into LOG ("All N tests passed." or "M of N tests failed."); "0 0"
# when LOG has none.  scripts/test and scripts/deb-test sum them into their totals.
suite_counts() {
  local p=0 f=0 first second third _
  while read -r first second third _; do
    [ -n "$first" ] || continue
    if [ "$first" = All ]; then
      p=$((p + second))
    else
      f=$((f + first))
      p=$((p + third - first))
    fi
  done < <(grep -Eo 'All [0-9]+ tests passed|[0-9]+ of [0-9]+ tests failed' "$1" || true)
  echo "$p $f"
}
