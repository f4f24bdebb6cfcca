# memprobe_preloading_clusters: prints "VERSION/CLUSTER (port PORT, STATUS)" for each cluster of
# PostgreSQL #MAJOR# (pg_lsclusters) whose configuration has memprobe in shared_preload_libraries.
# The value is the last setting found in /etc/postgresql/#MAJOR#/CLUSTER/postgresql.conf, then
# conf.d/*.conf beside it (Debian's include_dir), then postgresql.auto.conf in the cluster's data
# directory (ALTER SYSTEM) where it is readable: the order the server reads them in with Debian's
# default configuration.  Never fails: a maintainer script must not break apt over a warning.
# (Inserted by debian/rules into the package's prerm and postinst.)
memprobe_preloading_clusters() {
    command -v pg_lsclusters >/dev/null 2>&1 || return 0
    pg_lsclusters -h 2>/dev/null | while read -r ver cluster port status owner datadir rest; do
        [ "$ver" = "#MAJOR#" ] || continue
        confdir=/etc/postgresql/$ver/$cluster
        value=$(
            for f in "$confdir/postgresql.conf" "$confdir"/conf.d/*.conf "$datadir/postgresql.auto.conf"; do
                [ -f "$f" ] && [ -r "$f" ] && cat "$f"
            done 2>/dev/null |
            grep -iE "^[[:space:]]*shared_preload_libraries([[:space:]]|=)" | tail -n 1 |
            sed -E "s/^[^=']*=?[[:space:]]*//; /^'/{s/^'([^']*)'.*/\1/;b}; s/[[:space:]#].*//" |
            tr -d ' "\t'
        ) || true
        case ",$value," in
            *,memprobe,*|*,memprobe.so,*|*,\$libdir/memprobe,*|*,\$libdir/memprobe.so,*)
                echo "$ver/$cluster (port $port, $status)" ;;
        esac
    done || true
}
