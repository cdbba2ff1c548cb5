#!/usr/bin/env bash
# The Debian package, end to end, with the real tools: builds it
# (packaging/build-deb.sh: one release build), `dpkg -i`, then checks that
#   - intersticed --check-config accepts the shipped /etc/interstice/interstice.yaml,
#     and `interstice --version`/`intersticed --version` run;
#   - every path of packaging/deb/README.md's installed-files list is
#     installed, and the package installs nothing that list does not cover;
#   - the conffile, the group, the man pages, the completions, the Slurm
#     plugins' entry points, the C header and library (a C program built
#     against /usr/include and the system library path, and run);
#   - the shipped config and binary start a daemon (as the unit does: group
#     interstice) whose socket a member of that group reaches, others not;
#   - under no_new_privs (the unit's NoNewPrivileges=yes), root's cloud job
#     still runs as execution.user: the daemon only drops privileges;
#   - a reinstall keeps an edited conffile;
#   - `systemd-analyze verify` accepts the installed unit (when available);
#   - lintian reports no error (warnings are printed);
#   - `dpkg --purge` leaves none of the files, nor /etc/interstice,
#     /var/lib/interstice, /run/interstice (the group stays, as documented).
# It installs system-wide, so it runs as root only, refuses to run when the
# package is already installed (it would purge someone's install), and
# purges on every exit, failed or not. `cargo test -p interstice-tests
# --test package` runs it; extra arguments go to `cargo build`.
set -euo pipefail
cd "$(dirname "$0")/.."
# dpkg needs the sbin directories (ldconfig, start-stop-daemon), which a
# CI job's PATH may lack.
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

log() { printf 'test-deb: %s (%ss)\n' "$*" "$SECONDS" >&2; }
fail() {
    echo "test-deb: FAIL: $*" >&2
    exit 1
}

[ "$(id -u)" -eq 0 ] || fail "must run as root: it installs the package system-wide"
for tool in dpkg dpkg-query cc nm curl setpriv; do
    command -v "$tool" >/dev/null || fail "$tool is missing (scripts/prerequisites.sh)"
done
if dpkg-query -W -f='${Status}' interstice 2>/dev/null | grep -q 'installed'; then
    fail "the interstice package is installed on this machine: this test installs and purges it, remove it first (dpkg --purge interstice)"
fi
# Purge deletes these: never someone else's (a daemon run by hand, say).
for path in /etc/interstice /var/lib/interstice /run/interstice; do
    [ -e "$path" ] && fail "$path exists: this test's purge would delete it; move it away first"
done
group_existed=no
getent group interstice >/dev/null && group_existed=yes
scratch=$(mktemp -d)
daemon_pid=

cleanup() {
    local status=$?
    set +e
    [ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
    if dpkg-query -W -f='${Status}' interstice 2>/dev/null | grep -q 'installed'; then
        dpkg --purge interstice >/dev/null 2>&1 || echo "test-deb: cleanup: dpkg --purge interstice failed" >&2
    fi
    [ "$group_existed" = no ] && getent group interstice >/dev/null && groupdel interstice
    # A job's working directory is its own tmpfs until the daemon removes it.
    awk -v dir="$scratch/" 'index($2, dir) == 1 { print $2 }' /proc/mounts | xargs -r -n1 umount -l
    rm -rf "$scratch"
    exit "$status"
}
trap cleanup EXIT

# The list of installed files, as documented.
mapfile -t listed < <(sed -n '/<!-- installed-files -->/,/<!-- \/installed-files -->/p' packaging/deb/README.md |
    grep '^/')
[ "${#listed[@]}" -gt 10 ] || fail "packaging/deb/README.md has no installed-files list"

log "building the package"
deb=$(bash packaging/build-deb.sh "$@" | tail -n 1)
[ -f "$deb" ] || fail "build-deb.sh printed '$deb', not a .deb"
log "built $deb ($(du -h "$deb" | cut -f1))"

log "dpkg -i"
dpkg -i "$deb" >&2 || fail "dpkg -i $deb"

log "the installed programs and config"
out=$(/usr/sbin/intersticed --check-config --config /etc/interstice/interstice.yaml) ||
    fail "the shipped /etc/interstice/interstice.yaml does not pass --check-config"
[ "$out" = "/etc/interstice/interstice.yaml: ok" ] || fail "--check-config said: $out"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
# `interstice 0.1.0 (abc123def456)`: the version and the revision the daemon's build script computed.
case "$(/usr/bin/interstice --version)" in
"interstice $version ("?*")") ;;
*) fail "interstice --version: $(/usr/bin/interstice --version)" ;;
esac
[ "$(/usr/sbin/intersticed --version)" = "intersticed $version" ] ||
    fail "intersticed --version: $(/usr/sbin/intersticed --version)"
bad=$scratch/bad.yaml
printf 'engine:\n  procs: 4\n  no_such_key: 1\n' >"$bad"
if /usr/sbin/intersticed --check-config --config "$bad" 2>"$scratch/bad.err"; then
    fail "--check-config accepted an unknown key"
fi
grep -q no_such_key "$scratch/bad.err" || fail "--check-config did not name the bad key: $(cat "$scratch/bad.err")"

log "every documented file is installed, every installed file documented"
mapfile -t installed < <(dpkg -L interstice | while read -r path; do
    [ -f "$path" ] || [ -L "$path" ] && echo "$path"
done)
for pattern in "${listed[@]}"; do
    found=no
    for path in "${installed[@]}"; do
        # shellcheck disable=SC2053 # the pattern is a glob
        [[ $path == $pattern ]] && { found=yes; break; }
    done
    [ "$found" = yes ] || fail "packaging/deb/README.md lists $pattern, which the package does not install"
done
for path in "${installed[@]}"; do
    covered=no
    for pattern in "${listed[@]}"; do
        # shellcheck disable=SC2053
        [[ $path == $pattern ]] && { covered=yes; break; }
    done
    [ "$covered" = yes ] || fail "the package installs $path, which packaging/deb/README.md does not list"
done
log "${#installed[@]} files, ${#listed[@]} documented paths"

dpkg-query -W -f='${Conffiles}\n' interstice | grep -q '^ /etc/interstice/interstice.yaml ' ||
    fail "/etc/interstice/interstice.yaml is not a conffile"
getent group interstice >/dev/null || fail "the package did not create the interstice group"
grep -qx 'g interstice - -' /usr/lib/sysusers.d/interstice.conf || fail "sysusers.d file without the group line"
zcat /usr/share/man/man8/intersticed.8.gz | grep -q '^\.TH intersticed 8' || fail "intersticed.8 is no section-8 page"
zcat /usr/share/man/man1/interstice-submit.1.gz | grep -q '^\.TH interstice-submit 1' ||
    fail "no man page for interstice submit"
if zcat /usr/share/man/man1/*.gz | grep -q __generate; then fail "a man page shows the hidden __generate"; fi
bash -n /usr/share/bash-completion/completions/interstice || fail "the bash completion is not valid bash"
grep -q -- '--check-config' /usr/share/bash-completion/completions/intersticed ||
    fail "the intersticed bash completion lacks --check-config"
# `qos generate` is spelled `…__subcmd__generate` in the script; the hidden command would be `…____generate`.
if sed 's/__subcmd__generate//g' /usr/share/bash-completion/completions/interstice | grep -q __generate; then
    fail "bash completion offers __generate"
fi

log "Slurm plugins, C header and library"
exports() { nm -D --defined-only "$1" | awk '{print $3}'; }
for symbol in plugin_name plugin_type plugin_version job_submit job_modify; do
    exports /usr/lib/interstice/slurm/job_submit_interstice.so | grep -qx "$symbol" ||
        fail "job_submit_interstice.so does not export $symbol"
done
for symbol in plugin_name plugin_type plugin_version slurm_spank_init; do
    exports /usr/lib/interstice/slurm/spank_interstice.so | grep -qx "$symbol" ||
        fail "spank_interstice.so does not export $symbol"
done
cat >"$scratch/client.c" <<'EOF'
#include <interstice.h>
#include <stdio.h>
int main(void) {
    struct interstice_client *client = NULL;
    /* No daemon there: the call must fail cleanly with a named result. */
    interstice_result rc = interstice_client_new("/nonexistent/interstice.sock", 50, &client);
    if (rc == INTERSTICE_RESULT_OK) {
        rc = interstice_client_health(client);
        interstice_client_free(client);
    }
    printf("%s\n", interstice_result_name(rc));
    return rc == INTERSTICE_RESULT_OK;
}
EOF
cc -Wall -Werror -o "$scratch/client" "$scratch/client.c" -linterstice_ffi ||
    fail "a C program does not build against /usr/include/interstice.h and -linterstice_ffi"
"$scratch/client" >"$scratch/client.out" || fail "the C client ran wrong: $(cat "$scratch/client.out")"
log "C client against no daemon: $(cat "$scratch/client.out")"

log "the installed daemon with the shipped config, as the unit runs it"
# What RuntimeDirectory=, StateDirectory= and Group=interstice give it.
install -d -m 0750 -o root -g interstice /run/interstice
install -d -m 0711 -o root -g interstice /var/lib/interstice /var/lib/interstice-work
setpriv --regid=interstice --clear-groups \
    /usr/sbin/intersticed --config /etc/interstice/interstice.yaml 2>"$scratch/daemon.log" &
daemon_pid=$!
for _ in $(seq 100); do
    [ -S /run/interstice/interstice.sock ] && break
    kill -0 "$daemon_pid" 2>/dev/null || fail "intersticed exited: $(cat "$scratch/daemon.log")"
    sleep 0.1
done
[ -S /run/interstice/interstice.sock ] || fail "no socket at /run/interstice/interstice.sock: $(cat "$scratch/daemon.log")"
[ -f /var/lib/interstice/interstice.sqlite ] || fail "no state in /var/lib/interstice"
socket_mode=$(stat -c '%a %U:%G' /run/interstice/interstice.sock)
[ "$socket_mode" = "660 root:interstice" ] || fail "the socket is $socket_mode, not 660 root:interstice"
# A member of the interstice group (the slurm user after `usermod -aG
# interstice slurm`) reaches the daemon; the same user without it does not.
as_nobody() { setpriv --reuid=nobody --regid=nogroup "$@"; }
reach() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 --unix-socket /run/interstice/interstice.sock http://localhost/healthz; }
code=$(as_nobody --groups=interstice bash -c "$(declare -f reach); reach" || true)
[ "$code" != 000 ] || fail "a member of the interstice group cannot reach the daemon's socket"
log "a member of group interstice: GET /healthz answered $code"
code=$(as_nobody --clear-groups bash -c "$(declare -f reach); reach" || true)
[ "$code" = 000 ] || fail "a user outside the interstice group reached the daemon (HTTP $code)"
kill -TERM "$daemon_pid"
wait "$daemon_pid" || fail "intersticed did not exit 0 on SIGTERM: $(cat "$scratch/daemon.log")"
daemon_pid=

log "a cloud job under NoNewPrivileges, as the unit runs the daemon"
# The unit's NoNewPrivileges=yes only forbids gaining privileges through
# execve; the job wrapper drops them (initgroups, setresgid, setresuid), so
# root's job runs as execution.user, with no_new_privs set.
chmod 0711 "$scratch"
cat >"$scratch/nnp.yaml" <<YAML
api: {socket: $scratch/nnp.sock}
state_dir: $scratch/state
engine: {procs: 2}
backend: {type: embedded}
execution: {user: nobody, grace_seconds: 1}
node: {busy_margin_cpus: 1000}
log_level: warn
YAML
setpriv --no-new-privs --regid=interstice --clear-groups \
    /usr/sbin/intersticed --config "$scratch/nnp.yaml" 2>"$scratch/nnp.log" &
daemon_pid=$!
for _ in $(seq 100); do
    [ -S "$scratch/nnp.sock" ] && break
    kill -0 "$daemon_pid" 2>/dev/null || fail "intersticed under no_new_privs exited: $(cat "$scratch/nnp.log")"
    sleep 0.1
done
/usr/bin/interstice submit --daemon "$scratch/nnp.sock" --walltime 30 --slo 600 -- \
    /bin/sh -c 'id -un; grep NoNewPrivs /proc/self/status' >"$scratch/submit.out" ||
    fail "submit under no_new_privs: $(cat "$scratch/submit.out") $(cat "$scratch/nnp.log")"
job_out="$scratch/state/jobs/1/stdout"
for _ in $(seq 100); do
    [ -s "$job_out" ] && grep -q NoNewPrivs "$job_out" && break
    sleep 0.1
done
printf 'nobody\nNoNewPrivs:\t1\n' | cmp -s - "$job_out" ||
    fail "root's job under no_new_privs did not run as nobody: $(cat "$job_out" 2>&1) $(cat "$scratch/nnp.log")"
kill -TERM "$daemon_pid"
wait "$daemon_pid" || fail "intersticed under no_new_privs did not exit 0 on SIGTERM: $(cat "$scratch/nnp.log")"
daemon_pid=

if command -v systemd-analyze >/dev/null; then
    log "systemd-analyze verify"
    systemd-analyze verify /usr/lib/systemd/system/intersticed.service 2>"$scratch/verify.log" ||
        fail "systemd-analyze verify: $(cat "$scratch/verify.log")"
    if grep -i intersticed "$scratch/verify.log"; then fail "systemd-analyze verify warns about the unit"; fi
    security=$(systemd-analyze security --offline=true /usr/lib/systemd/system/intersticed.service 2>/dev/null |
        tail -n 1 || true)
    [ -n "$security" ] && log "systemd-analyze security: $security"
else
    log "systemd-analyze is not installed: unit not verified"
fi

if command -v lintian >/dev/null; then
    log "lintian"
    lintian --fail-on error "$deb" >&2 ||
        fail "lintian reports errors (above)"
else
    fail "lintian is missing (scripts/prerequisites.sh)"
fi

log "reinstall keeps an edited conffile"
echo "# edited by test-deb" >>/etc/interstice/interstice.yaml
dpkg -i "$deb" >&2 || fail "dpkg -i over the installed package"
tail -n 1 /etc/interstice/interstice.yaml | grep -qx "# edited by test-deb" ||
    fail "reinstalling replaced the edited /etc/interstice/interstice.yaml"

log "dpkg --purge"
dpkg --purge interstice >&2 || fail "dpkg --purge"
for path in "${installed[@]}" /etc/interstice /var/lib/interstice /run/interstice; do
    [ -e "$path" ] || [ -L "$path" ] && fail "$path is left after dpkg --purge"
done
if dpkg-query -W -f='${Status}' interstice 2>/dev/null | grep -q 'installed'; then
    fail "dpkg still lists the package after --purge"
fi
getent group interstice >/dev/null || fail "purge removed the interstice group, which packaging/deb/README.md says stays"
log "ok: $(basename "$deb") installs, runs and purges cleanly"
