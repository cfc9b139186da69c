# SPDX-License-Identifier: GPL-2.0-only
"""The guest's /init: a busybox sh script that sets the guest up, runs the
caller's command and sends the results out on the second serial port.

What goes out on that port (ttyS1), one line each, read by qemu.py:

    HOTPATH-GUEST init              init started (the KVM probe waits for it)
    HOTPATH-GUEST setup-failed WHY  a mount or module load failed; no command ran
    HOTPATH-GUEST out-begin         then /out as a gzipped tar archive in base64
    HOTPATH-GUEST out-end
    HOTPATH-GUEST status N          the command's exit status, written last

The serial line is text (the tty turns \\n into \\r\\n), hence base64; it
is also slow, about 200 KB/s under TCG (the guest's 8250 driver), hence
gzip: keep /out to results, not bulk data. The console (ttyS0) carries the
kernel's log and the command's output.
"""

from collections.abc import Sequence

MARK = "HOTPATH-GUEST"
COMMAND_PATH = "/hotpath/command"
MODULES_DIR = "/hotpath/modules"
HOST_TAG = "hostroot"

_PROLOGUE = f"""#!/bin/busybox sh
/bin/busybox mkdir -p /bin /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/tmp
mkdir -p /proc /sys /dev /tmp /out
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /out
exec 3>/dev/ttyS1
say() {{ echo "{MARK} $*" >&3; }}
fail() {{ say "setup-failed $*"; echo "{MARK}: setup failed: $*"; sync; reboot -f; }}
say init
for ko in {MODULES_DIR}/*.ko; do
    [ -e "$ko" ] || continue
    insmod "$ko" || fail "insmod $ko"
done
"""

# The host's / read-only at /host, with the guest's own /proc, /sys, /dev
# and /tmp over it, so that `chroot /host PROGRAM` runs the host's programs
# against the guest's kernel. /tmp is the same inside and out, and HOME is
# /tmp: the host's home is read-only in there. Host folders under /tmp that
# must stay visible (this checkout, when it lives there: a CI clone) are
# bound back in at their own paths, read-only, from the host's /tmp kept
# aside at /host-tmp.
_SHARE_HOST = f"""mkdir -p /host /host-tmp
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 {HOST_TAG} /host \\
    || fail "9p mount of the host's /"
mount -t proc proc /host/proc || fail "/host/proc"
mount -t sysfs sysfs /host/sys || fail "/host/sys"
mount -t devtmpfs devtmpfs /host/dev || fail "/host/dev"
mount -o bind /host/tmp /host-tmp || fail "/host-tmp"
"""
# After the folders kept: rbind, so that their mounts come along.
_SHARE_TMP = """mount -o rbind /tmp /host/tmp || fail "/host/tmp"
"""


def _keep(folder: str) -> str:
    """Bind the host's /tmp/FOLDER back at /tmp/FOLDER (inside and out)."""
    return (
        f'mkdir -p "/tmp/{folder}" && mount -o bind "/host-tmp/{folder}" "/tmp/{folder}"'
        f' || fail "/tmp/{folder}"\n'
    )


_EPILOGUE = f"""cd /tmp
sh {COMMAND_PATH} 3>&- </dev/null
status=$?
say out-begin
(cd /out && tar czf - .) | base64 >&3
say out-end
say status $status
sync
reboot -f
"""


def init_script(share_host_root: bool, keep_under_tmp: Sequence[str] = ()) -> str:
    """/init; keep_under_tmp: folders relative to the host's /tmp to keep
    visible in the shared root (share_host_root only)."""
    share = ""
    if share_host_root:
        share = _SHARE_HOST + "".join(_keep(f) for f in keep_under_tmp) + _SHARE_TMP
    return _PROLOGUE + share + _EPILOGUE
