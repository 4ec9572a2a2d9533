#!/bin/bash
# Runs bin/docmill serve under the restrictions of deploy/docmill.service
# as far as they can be applied without systemd as PID 1, and sends it one
# job per engine family, so that a change to the unit's hardening can be
# tried on a machine (or container) where systemd does not run services:
#
#   private mounts, /proc with hidepid=invisible (ProtectProc), /home
#   hidden (ProtectHome), a minimal /dev (PrivateDevices), an unprivileged
#   uid (65534) with no capabilities, even in its bounding set, and
#   no_new_privs (User=, CapabilityBoundingSet=, NoNewPrivileges=), a user
#   namespace of its own (PrivateUsers), and a seccomp filter allowing
#   what SystemCallFilter= and RestrictAddressFamilies= allow (the groups
#   expanded by systemd-analyze).
#
# With "--protect-kernel-tunables" it also covers /proc/sys as
# ProtectKernelTunables does: the jail must then fail (the reason the
# unit leaves it off).
#
# Needs root, bin/docmill (make build), the engines (make deps),
# systemd-analyze and python3-seccomp (apt-get install python3-seccomp).
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 1; }
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/bin/docmill
[ -x "$bin" ] || { echo "no $bin: make build" >&2; exit 1; }
extra=""
[ "${1:-}" = "--protect-kernel-tunables" ] && extra="mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys"
work=$(mktemp -d)
chmod 755 "$work"
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/data" "$work/in" && chown 65534:65534 "$work/data" "$work/in"
cp "$bin" "$work/docmill"
port=18$((RANDOM % 900 + 100))

cat > "$work/filter.py" <<'PY'
import errno, os, subprocess, sys, seccomp
out = subprocess.run(["systemd-analyze", "syscall-filter"], capture_output=True, text=True).stdout
groups, cur = {}, None
for line in out.splitlines():
    s = line.strip()
    if not s or s.startswith("#"):
        continue
    if not line.startswith(" ") and s.startswith("@"):
        cur = s.split()[0]; groups[cur] = []
    elif cur:
        groups[cur].append(s.split()[0])
def expand(names, seen):
    res = set()
    for n in names:
        if n.startswith("@"):
            if n not in seen:
                seen.add(n); res |= expand(groups.get(n, []), seen)
        else:
            res.add(n)
    return res
allowed = expand(sys.argv[1].split(), set())
f = seccomp.SyscallFilter(defaction=seccomp.ERRNO(errno.EPERM))
for name in sorted(allowed - {"socket"}):
    try:
        f.add_rule(seccomp.ALLOW, name)
    except Exception:
        pass  # not a system call of this architecture
for family in map(int, sys.argv[2].split()):
    f.add_rule(seccomp.ALLOW, "socket", seccomp.Arg(0, seccomp.EQ, family))
f.load()
os.execv(sys.argv[3], sys.argv[3:])
PY

unit=$root/deploy/docmill.service
filter=$(sed -n 's/^SystemCallFilter=//p' "$unit")
families=$(sed -n 's/^RestrictAddressFamilies=//p' "$unit" | sed 's/AF_UNIX/1/; s/AF_INET6/10/; s/AF_INET/2/; s/AF_NETLINK/16/')
unshare -m --propagation private bash -c "
set -e
mount -t proc -o hidepid=invisible proc /proc
mount -t tmpfs tmpfs /home
mkdir $work/dev && mount -t tmpfs -o mode=755,nosuid tmpfs $work/dev
for n in null zero full random urandom tty; do touch $work/dev/\$n; mount --bind /dev/\$n $work/dev/\$n; done
mkdir $work/dev/pts $work/dev/shm && ln -s pts/ptmx $work/dev/ptmx && mount --move $work/dev /dev
${extra:-true}
exec setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs --bounding-set=-all --inh-caps=-all \
  unshare --user --map-current-user /usr/bin/python3 $work/filter.py '$filter' '$families' \
  $work/docmill serve --data-dir $work/data --addr 127.0.0.1:$port --dev-key=false --log-level warn
" > "$work/out" 2> "$work/log" &
pid=$!
for _ in $(seq 60); do curl -sf "127.0.0.1:$port/healthz" >/dev/null && break; kill -0 $pid 2>/dev/null || break; sleep 1; done
curl -sf "127.0.0.1:$port/healthz" >/dev/null || { echo "the server did not start:"; cat "$work/log"; exit 1; }
sandbox=$(curl -s "127.0.0.1:$port/readyz" | python3 -c 'import json,sys; print(json.load(sys.stdin)["engines"]["sandbox"])')
echo "sandbox: $sandbox"
if [ -n "$extra" ]; then
	case $sandbox in *"'available': True"*) echo "FAIL: the jail works under ProtectKernelTunables"; exit 1;; esac
	echo "ok: the jail is refused under ProtectKernelTunables"; exit 0
fi
export DOCMILL_URL=http://127.0.0.1:$port
DOCMILL_KEY=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$work/docmill" accounts create --plan pro --name try --data-dir "$work/data" | grep dm_live_)
export DOCMILL_KEY
cd "$work/in"
printf '<html><body><h1>Jail</h1><p>Under the unit.</p></body></html>' > page.html
printf 'A text document.\n' > note.txt
"$work/docmill" process -o page.pdf html-to-pdf page.html      # Chromium
"$work/docmill" process -o page.png pdf-to-png page.pdf        # poppler
"$work/docmill" process -o small.pdf compress-pdf page.pdf     # Ghostscript
"$work/docmill" process -o note.pdf word-to-pdf note.txt       # LibreOffice
"$work/docmill" process -o ocr.pdf ocr-pdf page.pdf            # OCRmyPDF, Tesseract
echo "ok: every engine ran in its jail under the unit's restrictions"
