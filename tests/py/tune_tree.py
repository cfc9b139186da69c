# SPDX-License-Identifier: GPL-2.0-only
"""A fake kernel tree for the tuning lab's tests, and profiles to apply to it.

make_root() builds proc/sys, debugfs and a block device whose /sys/block
entry is a link, as on a real kernel, printing what a 6.1-like kernel
prints; nothing the tests do with it touches the host's settings.
"""

from pathlib import Path

# What a 6.1-like kernel prints, tabs and brackets included.
FILES = {
    "proc/sys/kernel/sched_autogroup_enabled": "1\n",
    "proc/sys/kernel/timer_migration": "1\n",
    "proc/sys/kernel/osrelease": "6.1.0-fake\n",
    "proc/sys/vm/swappiness": "60\n",
    "proc/sys/vm/page-cluster": "3\n",
    "proc/sys/vm/fake_delay": "1\n",
    "proc/sys/net/ipv4/tcp_rmem": "4096\t131072\t6291456\n",
    "sys/kernel/debug/sched/migration_cost_ns": "500000\n",
    "sys/kernel/debug/sched/features": "GENTLE_FAIR_SLEEPERS START_DEBIT NO_NEXT_BUDDY "
    "LAST_BUDDY TTWU_QUEUE\n",
    "sys/devices/virtual/block/vda/queue/scheduler": "none [mq-deadline] kyber\n",
    "sys/devices/virtual/block/vda/queue/read_ahead_kb": "128\n",
    "sys/devices/virtual/block/vda/queue/iostats": "1\n",
}
READ_ONLY = ("proc/sys/kernel/osrelease",)


def make_root(base: Path) -> Path:
    root = base / "fakeroot"
    for relative, text in FILES.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o444 if relative in READ_ONLY else 0o644)
    (root / "sys/block").mkdir(parents=True)
    (root / "sys/block/vda").symlink_to("../devices/virtual/block/vda")
    return root


def tree(root: Path) -> dict[str, str]:
    """Every file's text under proc/ and sys/ (links followed as the kernel's are)."""
    out = {}
    for relative in FILES:
        out[relative] = (root / relative).read_text()
    return out


def reprint(root: Path) -> None:
    """What the kernel does after a write that a plain file does not: print the
    scheduler with all choices (the chosen one bracketed), and every feature."""
    sched = root / "sys/devices/virtual/block/vda/queue/scheduler"
    chosen = sched.read_text().split()
    if len(chosen) == 1:
        sched.write_text(
            " ".join(f"[{c}]" if c == chosen[0] else c for c in ("none", "mq-deadline", "kyber"))
            + "\n"
        )
    features = root / "sys/kernel/debug/sched/features"
    words = features.read_text().split()
    if len(words) == 1:
        full = FILES["sys/kernel/debug/sched/features"].split()
        name = words[0].removeprefix("NO_")
        features.write_text(
            " ".join(words[0] if w.removeprefix("NO_") == name else w for w in full) + "\n"
        )


def profile(base: Path, body: str, name: str = "test") -> Path:
    path = base / f"{name}.toml"
    path.write_text(f'[profile]\nsummary = "test profile"\n\n{body}')
    return path


def setting(key: str, value: str, extra: str = "") -> str:
    """One [[setting]]: key is TOML (a quoted string or a list), value TOML."""
    return (
        f'[[setting]]\nkey = {key}\nvalue = {value}\nreason = "because"\nsource = "test"\n{extra}\n'
    )


BASIC = (
    setting('"kernel.sched_autogroup_enabled"', "0")
    + setting('"vm.swappiness"', "10")
    + setting('"net.ipv4.tcp_rmem"', '"4096 87380 6291456"')
    + setting('["kernel.sched_migration_cost_ns", "debugfs:sched/migration_cost_ns"]', '"1ms"')
    + setting('"sched_feature:NEXT_BUDDY"', "true")
    + setting('"block:vd*:scheduler"', '"none"')
    + setting('"block:vd*:read_ahead_kb"', "0")
)


REPO = Path(__file__).resolve().parents[2]


def apply_args(root: Path, prof: Path, *extra: str) -> list[str]:
    return ["tune", "apply", str(prof), "--root", str(root), *extra]


def evaluate_args(prof: Path, root: Path, rounds: int, command: str, *extra: str) -> list[str]:
    """`hotpath tune evaluate` on the fake tree with one workload, no warm-up."""
    return ["tune", "evaluate", str(prof), "--root", str(root), "--rounds", str(rounds),
            "--warmup", "0", "--command", command, *extra]  # fmt: skip


def normal(text: str) -> str:
    return " ".join(text.split())
