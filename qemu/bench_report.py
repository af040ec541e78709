#!/usr/bin/env python3
"""qemu/bench_report.py OUT BUILD: the statistics and the report of the boot benchmark.

qemu/bench builds the images, boots them and writes what each boot showed into OUT
(BUILD/bench); this reads those facts and writes OUT/results.md, OUT/MODE/chart.dat (the
chart's bars, which qemu/bench hands to gnuplot) and OUT/size/ARCH/per-library.txt.
Python 3 standard library only; tested by tests/bench (a synthetic run, no QEMU).

The facts, one a line, fields split by blanks, "-" where a value was not seen:
  run.txt            "key: value": date, load-before, load-after, boots, modes, icount-shift,
                     scale-mode, arches, variants (a run older than the last two: the arches
                     and rows qemu/bench is given now)
  sizes.txt          IMAGE ARCH BYTES UNCOMPRESSED-BYTES of each initramfs built
  MODE/boots.txt     ARCH VARIANT ROUND UPTIME RUN-INIT WALL, or ARCH VARIANT ROUND FAIL
  MODE/exec.txt      ARCH VARIANT ROUND EXEC: the kernel's timestamp of the real init's exec
  MODE/timings.txt   ARCH VARIANT ROUND STAGE START MS: earlymount's timings of each boot
  MODE/luks-log.txt  ARCH VARIANT ROUND MOUNT MOUNTED STARTING: the kernel's timestamps of
                     earlymount's mount of the opened volume, of the kernel's line that its
                     filesystem is mounted and of earlymount's start of the real init
  MODE/milestones.txt ARCH VARIANT ROUND DISK MOUNTED: the kernel's timestamps of its line
                     that the virtio disk is there (its size) and of its first line that a
                     filesystem is mounted: milestones every initramfs passes, peers included
  scale.txt          ARCH DISKS UPTIME RUN-INIT DEVICES PLAN WALL PROBES SETTLED
  scale-exec.txt     ARCH DISKS EXEC
  plan-times.txt     PARTITIONS MICROSECONDS, a run of `earlymount plan` a line (an older
                     run has plan.txt: PARTITIONS MEDIAN-MS)
  size/ARCH/earlymount.map  the link map of earlymount-init's link

Values stay the text the facts hold until a statistic needs their number, as in the awk this
replaces: a median of an odd count is printed as it was written, of an even count to three
places, so that the report reads as it always has.
"""

import argparse
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Optional

NONE = "-"  # a cell with nothing measured
LIMIT = "limit"
LUKS = "earlymount-luks"


def limit_of(variant):
    """The limit a row is judged against: the one booted the same way."""
    return "limit-smp2" if variant.endswith("-smp2") else LIMIT


def image_of(variant):
    """The row whose image a row boots: a -smp2 row differs in its vCPUs alone, a -noahci
    row in its command line alone."""
    return re.sub(r"-noahci$", "", re.sub(r"-smp2$", "", variant))


# --- numbers ---

_NUMBER = re.compile(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def num(text):
    """The number awk and sort -n read in TEXT: its leading numeric part, else 0."""
    match = _NUMBER.match(text)
    return float(match.group(0)) if match else 0.0


def middle(numbers):
    """The median of sorted NUMBERS."""
    half = len(numbers) // 2
    return numbers[half] if len(numbers) % 2 else (numbers[half - 1] + numbers[half]) / 2


def median(values):
    """The middle value as written (odd count), the mean of the two middle ones to three
    places (even count), "-" without values."""
    if not values:
        return NONE
    # sort -n; equal numbers in the order of their text, sort's last resort
    ordered = sorted(values, key=lambda v: (num(v), v))
    if len(ordered) % 2:
        return ordered[len(ordered) // 2]
    return "%.3f" % middle([num(v) for v in ordered])


def spread(values):
    """How far the boots of a row differ: (slowest - fastest) / median, in %; "-" under two
    boots."""
    if len(values) < 2:
        return NONE
    ordered = sorted(num(v) for v in values)
    if middle(ordered) <= 0:
        return NONE
    return "%.1f %%" % ((ordered[-1] - ordered[0]) / middle(ordered) * 100)


def ratio(x, base):
    if NONE in (x, base) or num(base) == 0:
        return NONE
    return "%.2f" % (num(x) / num(base))


def verdict(x, base, target):
    """"met" or "missed", with the ratio to three places: X / BASE against TARGET."""
    if NONE in (x, base) or "" in (x, base) or num(base) == 0:
        return "not measured"
    r = num(x) / num(base)
    return "%.3f× (%s)" % (r, "met" if r <= target + 1e-9 else "missed")


def kib(size):
    """SIZE in bytes (text) as whole KiB; "-" for none."""
    return NONE if not size or num(size) == 0 else "%.0f" % (num(size) / 1024)


def whole_ms(secs):
    """SECS (text) as whole ms; "-" for none."""
    return NONE if secs in (NONE, "") else "%.0f" % (num(secs) * 1000)


def ms_after(x, base):
    """How many whole ms X comes after BASE (both seconds, text); "-" for none."""
    return NONE if NONE in (x, base) or x == "" else "%.0f" % ((num(x) - num(base)) * 1000)


def ms_as_s(ms):
    """A timings entry's ms as seconds to three places; "-" without one."""
    return NONE if ms in (None, "") else "%.3f" % (num(ms) / 1000)


# --- the facts ---


def read_rows(path):
    """The lines of PATH split into fields, blank lines left out; none when it is missing."""
    try:
        with open(path, encoding="utf-8") as f:
            return [line.split() for line in f if line.strip()]
    except FileNotFoundError:
        return []


def read_run_info(path):
    """run.txt's "key: value" lines; the first of a key counts."""
    info = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                key, sep, value = line.rstrip("\n").partition(": ")
                if sep:
                    info.setdefault(key, value)
    except FileNotFoundError:
        pass
    return info


@dataclass
class Boot:
    """One boot of a row: boots.txt's line and what its log showed."""

    arch: str
    variant: str
    round: str
    failed: bool
    uptime: str = NONE
    run_init: str = NONE
    wall: Optional[str] = None
    exec: str = NONE
    timings: list = field(default_factory=list)  # each entry's fields: STAGE START MS
    luks_log: Optional[list] = None  # MOUNT MOUNTED STARTING
    milestones: Optional[list] = None  # DISK MOUNTED

    def timing(self, stage, index):
        """Field INDEX (1 start, 2 ms) of the boot's first STAGE entry; None without one."""
        for entry in self.timings:
            if entry[0] == stage:
                return entry[index] if index < len(entry) else ""
        return None

    @property
    def prompt(self):
        """The time at the prompts, s (the passphrase entry)."""
        return ms_as_s(self.timing("passphrase", 2))

    @property
    def answer(self):
        """When the last answer came: the passphrase entry's start, CLOCK_BOOTTIME like the
        probe's uptime."""
        start = self.timing("passphrase", 1)
        return NONE if start in (None, "") else start

    @property
    def after(self):
        """From that answer to the handoff, s (the after-passphrase entry)."""
        return ms_as_s(self.timing("after-passphrase", 2))


def load_boots(run_dir):
    """A mode's boots from its boots.txt, with what their logs showed."""
    boots, by_key = [], {}
    for row in read_rows(os.path.join(run_dir, "boots.txt")):
        boot = Boot(*row[:3], failed=len(row) < 5 or row[3] == "FAIL")
        if not boot.failed:
            boot.uptime, boot.run_init = row[3], row[4]
            boot.wall = row[5] if len(row) > 5 else None
        boots.append(boot)
        by_key[tuple(row[:3])] = boot

    def facts(name):
        rows = read_rows(os.path.join(run_dir, name))
        return [(by_key[tuple(r[:3])], r[3:]) for r in rows if tuple(r[:3]) in by_key]

    for boot, rest in facts("exec.txt"):
        boot.exec = rest[0] if rest else NONE
    for boot, rest in facts("timings.txt"):
        boot.timings.append(rest)
    for boot, rest in facts("luks-log.txt"):
        boot.luks_log = rest
    for boot, rest in facts("milestones.txt"):
        boot.milestones = rest
    return boots


# --- a boot's values ---


def _phase(b):
    return None if b.exec == NONE else "%.3f" % (num(b.exec) - num(b.run_init))


def _between(b, start, end):
    """ms from kernel timestamp START to END of boot B's milestones, None without both."""
    marks = [b.run_init] + (b.milestones or [NONE, NONE]) + [b.exec]
    if NONE in (marks[start], marks[end]) or len(marks) != 4:
        return None
    return "%.1f" % ((num(marks[end]) - num(marks[start])) * 1000)


def _phase_prompt(b):
    return None if b.exec == NONE else "%.3f" % (num(b.exec) - num(b.run_init) - num(b.prompt))


# A boot's value in each column, None where it has none: uptime (the probe's /proc/uptime
# when the real init starts), run-init (the kernel's "Run /init"), wall, exec (the real
# init's exec on the kernel's clock), phase (the initramfs phase: from "Run /init" to that
# exec).
COLUMNS = {
    "uptime": lambda b: b.uptime,
    "run-init": lambda b: b.run_init,
    "wall": lambda b: b.wall,
    "exec": lambda b: None if b.exec == NONE else b.exec,
    "phase": _phase,
    # the phase on the kernel's clock in three: "Run /init" to the virtio disk's line, that
    # to the first mounted line, that to the real init's exec (ms)
    "to-disk": lambda b: _between(b, 0, 1),
    "to-mounted": lambda b: _between(b, 1, 2),
    "to-exec": lambda b: _between(b, 2, 3),
}

# Those three parts, as the milestone table names them.
PARTS = (
    ("to-disk", "`Run /init` to the root's disk"),
    ("to-mounted", "the disk to its root mounted"),
    ("to-exec", "mounted to the real init's exec"),
)
PEERS = ("dracut-systemd", "initramfs-tools")

# Of the boots with a prompt: up-prompt, exec-prompt and phase-prompt (those less the time
# at the prompt), answer-to-init (uptime less the last answer's time: both CLOCK_BOOTTIME),
# after (the after-passphrase entry, which ends at the handoff), prompt (the passphrase
# entry).
PROMPT_COLUMNS = {
    "up-prompt": lambda b: "%.2f" % (num(b.uptime) - num(b.prompt)),
    "exec-prompt": lambda b: None if b.exec == NONE else "%.6f" % (num(b.exec) - num(b.prompt)),
    "phase-prompt": _phase_prompt,
    "answer-to-init": lambda b: "%.2f" % (num(b.uptime) - num(b.answer)),
    "after": lambda b: b.after,
    "prompt": lambda b: b.prompt,
}

# The columns that stand for "to real init", "real init exec'd" and "initramfs phase": with
# the time at the prompt taken out for earlymount-luks, so that it compares with earlymount.
PLAIN_COLUMNS = ("uptime", "exec", "phase")


def main_columns(variant):
    return ("up-prompt", "exec-prompt", "phase-prompt") if variant == LUKS else PLAIN_COLUMNS


def boot_value(boot, column):
    if column in PROMPT_COLUMNS:
        return None if boot.prompt == NONE else PROMPT_COLUMNS[column](boot)
    return COLUMNS[column](boot)


class ModeRun:
    """The boots of one mode, and their statistics per arch and row."""

    def __init__(self, mode, boots):
        self.mode = mode
        self.boots = boots

    def of(self, arch, variant):
        return [b for b in self.boots if b.arch == arch and b.variant == variant]

    def has(self, arch, variant):
        """Whether VARIANT was booted on ARCH in this mode (failed boots count)."""
        return bool(self.of(arch, variant))

    def values(self, arch, variant, column):
        """The values of COLUMN, a good boot each."""
        values = (boot_value(b, column) for b in self.of(arch, variant) if not b.failed)
        return [v for v in values if v is not None]

    def median(self, arch, variant, column):
        return median(self.values(arch, variant, column))

    def spread(self, arch, variant, column):
        return spread(self.values(arch, variant, column))

    def stage_medians(self, arch, variant):
        """[(STAGE, MEDIAN-MS)] of earlymount's stages over every boot of ARCH and VARIANT
        whose log has its timings, in the order the boots met them: by the earliest place a
        stage took in a boot's list, then by name."""
        places, samples = {}, {}
        for boot in self.of(arch, variant):
            entries = [e for e in boot.timings if len(e) == 3 and e[0] != "handoff"]
            for place, (stage, _, value) in enumerate(entries, 1):
                places[stage] = min(place, places.get(stage, place))
                samples.setdefault(stage, []).append(num(value))
        stages = sorted(places, key=lambda s: (places[s], s))
        return [(s, "%.1f" % middle(sorted(samples[s]))) for s in stages]

    def luks_split(self, arch, part):
        """The median over ARCH's earlymount-luks boots of part PART of the time after the
        answer, in ms: 1 the answer to earlymount's "mount /dev/mapper/…" line, 2 that line
        to the kernel's mounted line, 3 that to "starting /sbin/init"."""
        values = []
        for boot in self.of(arch, LUKS):
            marks = boot.luks_log or []
            if boot.answer == NONE or len(marks) < 3 or NONE in marks:
                continue
            points = [num(boot.answer)] + [num(m) for m in marks]
            values.append("%.1f" % ((points[part] - points[part - 1]) * 1000))
        return median(values)


# --- the run ---


@dataclass
class Machine:
    """What the header says of the machine the report is made on."""

    cpus: int
    model: str
    memory_kib: int
    qemu: str
    kernel: str


def read_machine(qemu, kernel):
    model, memory = "", 0
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            match = re.match(r"model name\s*: (.*)", line)
            if match:
                model = match.group(1)
                break
    with open("/proc/meminfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("MemTotal"):
                memory = int(line.split()[1])
    return Machine(len(os.sched_getaffinity(0)), model, memory, qemu, kernel)


class Bench:
    """A run's facts in OUT, the BUILD its binaries are in; the arches, rows, modes and
    shift qemu/bench is given now stand in where run.txt has none."""

    def __init__(self, out, build, machine, *, arches, variants, modes, icount_shift, host_arch):
        self.out, self.build, self.machine, self.host_arch = out, build, machine, host_arch
        self.info = read_run_info(os.path.join(out, "run.txt"))
        self.arches = (self.info.get("arches") or arches).split()
        self.variants = (self.info.get("variants") or variants).split()
        self.modes = (self.info.get("modes") or modes).split()
        self.icount_shift = int(self.info.get("icount-shift") or icount_shift)
        self.sizes = read_rows(os.path.join(out, "sizes.txt"))
        self.runs = {m: ModeRun(m, load_boots(os.path.join(out, m))) for m in self.modes}
        self.link_bytes = {a: read_link_map(os.path.join(out, "size", a)) for a in self.arches}

    def mode_name(self, mode):
        names = {"icount": "deterministic (-icount shift=%d,sleep=on)" % self.icount_shift,
                 "tcg": "plain TCG"}
        return names.get(mode, "")

    def size_of(self, image, arch, column):
        """The initramfs's bytes (column 2) or uncompressed bytes (column 3), "" if unbuilt."""
        for row in self.sizes:
            if row[:2] == [image, arch]:
                return row[column] if column < len(row) else ""
        return ""

    def file_size(self, *path):
        """A file's bytes (text); None when it is missing."""
        try:
            return str(os.stat(os.path.join(*path)).st_size)
        except OSError:
            return None

    def built_size(self, arch, name):
        return self.file_size(self.build, arch, name)

    def booted(self, run, arch, variant):
        """Whether VARIANT is a row of the run that was booted on ARCH in RUN's mode."""
        return variant in self.variants and run.has(arch, variant)

    def rows(self, run, arch):
        """The rows booted on ARCH in RUN's mode, in the run's order."""
        return [v for v in self.variants if run.has(arch, v)]


# --- the tables and notes of a mode ---

MAIN_HEADER = (
    "| initramfs | to real init (s) | spread | ×limit | real init exec'd (s) | spread | ×limit "
    "| initramfs phase (s) | spread | ×limit's | kernel runs /init (s) | wall (s) | image (KiB) "
    "| uncompressed (KiB) | boots ok |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
)


def main_row(bench, run, arch, v):
    cells = ["earlymount-luks¹" if v == LUKS else v]
    for column, limit_column in zip(main_columns(v), PLAIN_COLUMNS):
        x = run.median(arch, v, column)
        limit = run.median(arch, limit_of(v), limit_column)
        cells += [x, run.spread(arch, v, column), ratio(x, limit)]
    boots = run.of(arch, v)
    cells += [
        run.median(arch, v, "run-init"),
        run.median(arch, v, "wall"),
        kib(bench.size_of(image_of(v), arch, 2)),
        kib(bench.size_of(image_of(v), arch, 3)),
        "%d/%d" % (sum(not b.failed for b in boots), len(boots)),
    ]
    return "| " + " | ".join(cells) + " |"


def main_table(bench, run, arch):
    """The table of RUN's mode and ARCH: a row a variant booted."""
    lines = list(MAIN_HEADER) + [main_row(bench, run, arch, v) for v in bench.rows(run, arch)]
    same = bench.size_of("earlymount-same", arch, 2)
    if same:
        lines.append("| (earlymount, the peers' drivers only, --compress zstd: size) "
                     "| | | | | | | | | | | | %s | %s | |"
                     % (kib(same), kib(bench.size_of("earlymount-same", arch, 3))))
    return lines


class Medians:
    """One arch's medians in one mode and its images' KiB, as the notes quote them."""

    def __init__(self, bench, run, arch):
        self.bench, self.run, self.arch = bench, run, arch

    def of(self, variant, column):
        return self.run.median(self.arch, variant, column)

    def up(self, variant):
        return self.of(variant, "uptime")

    def phase(self, variant):
        return self.of(variant, "phase")

    def kib(self, image):
        return kib(self.bench.size_of(image, self.arch, 2))

    def booted(self, variant):
        return self.bench.booted(self.run, self.arch, variant)


def target(at, variant, goal):
    """A target on the time to real init, VARIANT against the limit, judged on the probe's
    uptime (10 ms steps); the same ratio of the real init's exec on the kernel's clock beside
    it."""
    exec_ratio = ratio(at.of(variant, "exec"), at.of(LIMIT, "exec"))
    return "%s, its exec %s×" % (verdict(at.up(variant), at.up(LIMIT), goal), exec_ratio)


def luks_footnote(at):
    return [
        "¹ Less the time at the passphrase prompt (earlymount's `passphrase` timing, median "
        f"{at.of(LUKS, 'prompt')} s: qemu/boot types a second after the prompt shows): to real "
        "init, exec and initramfs phase of each boot, before the median. Wall includes it.",
        "",
    ]


def targets_note(at):
    pinned = "earlymount-partuuid"
    pinned_phase = verdict(at.phase(pinned), at.phase(LIMIT), 1.5)
    if at.run.mode == "icount":
        lines = ["Targets (judged in this mode), the time to real init against the limit's:"]
    else:
        lines = ["The boot-time targets are judged in the deterministic mode; in this mode, "
                 "for comparison:"]
    lines.append(
        f"discovery (earlymount) ≤ 1.15×: {target(at, 'earlymount', 1.15)}; "
        f"pinned (earlymount-partuuid) ≤ 1.05×: {target(at, pinned, 1.05)}; "
        f"pinned initramfs phase ≤ 1.5× the limit's: {pinned_phase}; "
        f"host-only (earlymount-hostonly) ≤ 1.02×: {target(at, 'earlymount-hostonly', 1.02)}."
    )
    # dracut and initramfs-tools copy the host's binaries: they run on the host's arch only
    if at.arch == at.bench.host_arch:
        lines.append("Against the peers, pinned, part by part of the phase (the milestone table "
                     "below): " + "; ".join(peer_verdict(at, pinned, p) for p in PEERS) + ".")
    else:
        lines.append(f"dracut and initramfs-tools copy the host's ({at.bench.host_arch}) binaries "
                     f"into the image: not run on {at.arch}.")
    return lines + [""]


def peer_verdict(at, variant, peer):
    """Whether VARIANT is ahead of PEER in each part of the phase: "ahead of P in 3 of 3
    parts", or which parts it is not ahead in; not measured without both."""
    pairs = [(name, at.of(variant, column), at.of(peer, column)) for column, name in PARTS]
    if any(NONE in (x, p) for _, x, p in pairs):
        return f"{peer}: not measured"
    behind = [name for name, x, p in pairs if num(x) >= num(p)]
    ahead = "ahead of %s in %d of %d parts" % (peer, len(pairs) - len(behind), len(pairs))
    return ahead + ("" if not behind else " (not in: %s)" % ", ".join(behind))


def checkers_note(at):
    """What the filesystem checkers cost: the default image against --no-fsck."""
    e_up, n_up = at.up("earlymount"), at.up("earlymount-nofsck")
    gap = NONE if NONE in (e_up, n_up) else "%+.0f ms" % ((num(e_up) - num(n_up)) * 1000)
    lines = [
        "What the checkers cost (earlymount, the defaults, against earlymount-nofsck; both "
        f"discovery): time to real init {e_up} s against {n_up} s ({ratio(e_up, n_up)}×, {gap}); "
        f"the kernel runs /init at {at.of('earlymount', 'run-init')} s against "
        f"{at.of('earlymount-nofsck', 'run-init')} s (unpacking the bigger image); initramfs phase "
        f"{at.phase('earlymount')} s against {at.phase('earlymount-nofsck')} s; image "
        f"{at.kib('earlymount')} KiB against {at.kib('earlymount-nofsck')} KiB."
    ]
    if at.booted("earlymount-hostonly-nofsck"):
        lines.append(
            f"Host-only: {at.up('earlymount-hostonly')} s against "
            f"{at.up('earlymount-hostonly-nofsck')} s without the checkers; image "
            f"{at.kib('earlymount-hostonly')} KiB against "
            f"{at.kib('earlymount-hostonly-nofsck')} KiB."
        )
    return lines + [""]


def network_note(at):
    """What --network costs a boot that asks for no network: the default image against the
    same with --network, both discovery (the target: no slower, within the spread)."""
    e_up, n_up = at.up("earlymount"), at.up("earlymount-network")
    gap = NONE if NONE in (e_up, n_up) else "%+.0f ms" % ((num(n_up) - num(e_up)) * 1000)
    return [
        "What an image with the network costs a boot without network keys (earlymount-network, "
        f"--network, against earlymount): time to real init {n_up} s against {e_up} s "
        f"({ratio(n_up, e_up)}×, {gap}; target ≤ 1.01×, the spread); the kernel runs /init at "
        f"{at.of('earlymount-network', 'run-init')} s against {at.of('earlymount', 'run-init')} s "
        f"(unpacking the bigger image); image {at.kib('earlymount-network')} KiB against "
        f"{at.kib('earlymount')} KiB.",
        "",
    ]


def smp2_note(at):
    """What a second vCPU gives (plain TCG: icount runs every vCPU on one host thread)."""
    em, pu, lim = "earlymount-smp2", "earlymount-partuuid-smp2", "limit-smp2"
    return [
        f"Two vCPUs (-smp 2): earlymount {at.up(em)} s against {at.up('earlymount')} s with one "
        f"(initramfs phase {at.phase(em)} s against {at.phase('earlymount')} s); "
        f"earlymount-partuuid {at.up(pu)} s against {at.up('earlymount-partuuid')} s "
        f"(phase {at.phase(pu)} s against {at.phase('earlymount-partuuid')} s); "
        f"the limit {at.up(lim)} s against {at.up(LIMIT)} s "
        f"(phase {at.phase(lim)} s against {at.phase(LIMIT)} s). Against the limit on two "
        f"vCPUs: discovery {ratio(at.up(em), at.up(lim))}×, "
        f"pinned {ratio(at.up(pu), at.up(lim))}×.",
        "",
    ]


def verity_note(at):
    v_up, e_up = at.up("earlymount-verity"), at.up("earlymount")
    return [
        "What dm-verity costs (earlymount-verity, roothash= on the same root): time to real init "
        f"{v_up} s against {e_up} s ({ratio(v_up, e_up)}×), initramfs phase "
        f"{at.phase('earlymount-verity')} s against {at.phase('earlymount')} s."
    ]


def luks_note(at):
    k_up, k_ph = at.of(LUKS, "up-prompt"), at.of(LUKS, "phase-prompt")
    e_up, e_ph = at.up("earlymount"), at.phase("earlymount")
    answer_spread = at.run.spread(at.arch, LUKS, "answer-to-init")
    split = [at.run.luks_split(at.arch, part) for part in (1, 2, 3)]
    helper = at.bench.built_size(at.arch, "earlymount-luks") or NONE
    return [
        "What LUKS costs (earlymount-luks: the same root tree in LUKS2, pbkdf2 at mkdisk's 1000 "
        "iterations, so the KDF is not what is measured; the `--luks` image, discovery, the "
        "passphrase typed at the prompt): from the answer to the real init "
        f"{at.of(LUKS, 'answer-to-init')} s (spread {answer_spread}; the probe's uptime less "
        "the time of the answer, both CLOCK_BOOTTIME; earlymount's `after-passphrase` timing, "
        f"which ends at the handoff before the switch, {at.of(LUKS, 'after')} s). Of it, the "
        "unlock (the answer to the mount of the opened volume: the key derivation, the helper's "
        f"activation) {split[0]} ms, then the mount {split[1]} ms (the filesystem's module loads "
        "in it: what the volume holds is known only once it is open), then to the exec of the "
        f"real init {split[2]} ms (medians; the answer on CLOCK_BOOTTIME, the rest on the "
        "kernel's log clock, both from the boot). Time to real init less the time at the prompt "
        f"{k_up} s against {e_up} s ({ratio(k_up, e_up)}×), initramfs phase {k_ph} s against "
        f"{e_ph} s. Initramfs {at.kib(LUKS)} KiB against {at.kib('earlymount')} KiB; the helper "
        f"(build/{at.arch}/earlymount-luks, static, stripped) {helper} bytes."
    ]


def lvm_note(at):
    v_up, p_up = at.up("earlymount-lvm"), at.up("earlymount-partuuid")
    return [
        "What LVM costs (earlymount-lvm: the same root tree on an LV, root=/dev/mapper/vg0-root, "
        "the `--lvm` image), target ≤ 1.10× the plain partition named by root=PARTUUID=: time "
        f"to real init {v_up} s against {p_up} s ({verdict(v_up, p_up, 1.10)}), initramfs phase "
        f"{at.phase('earlymount-lvm')} s against {at.phase('earlymount-partuuid')} s. "
        f"Initramfs {at.kib('earlymount-lvm')} KiB against {at.kib('earlymount')} KiB."
    ]


def musl_note(at):
    u_up, e_up = at.up("earlymount-musl"), at.up("earlymount")
    u_ph, e_ph = at.phase("earlymount-musl"), at.phase("earlymount")
    musl = at.bench.built_size("musl-" + at.arch, "earlymount-init") or NONE
    glibc = at.bench.built_size(at.arch, "earlymount-init") or ""
    return [
        "The musl build as /init (earlymount-musl, the same image and disk, discovery): time to "
        f"real init {u_up} s against {e_up} s ({ratio(u_up, e_up)}×), initramfs phase "
        f"{u_ph} s against {e_ph} s ({ratio(u_ph, e_ph)}×); /init {musl} bytes against {glibc} "
        "(glibc)."
    ]


def size_target_note(at):
    dracut = at.bench.size_of("dracut-systemd", at.arch, 2)
    if not dracut:
        return []
    peers = ratio(at.bench.size_of("earlymount-same", at.arch, 2), dracut)
    default = ratio(at.bench.size_of("earlymount", at.arch, 2), dracut)
    return [
        "Initramfs size, target ≤ 0.10× dracut's for the same drivers: earlymount with the "
        f"peers' drivers is {peers}× (default set: {default}×)."
    ]


# What a row costs against its sibling, said when the row was booted.
NOTES = (
    ("earlymount-nofsck", checkers_note),
    ("earlymount-network", network_note),
    ("earlymount-smp2", smp2_note),
    ("earlymount-verity", verity_note),
    (LUKS, luks_note),
    ("earlymount-lvm", lvm_note),
    ("earlymount-musl", musl_note),
)


def table_notes(bench, run, arch):
    """The lines under the table of RUN's mode and ARCH: targets, what the checkers, two
    vCPUs, verity, LUKS, LVM and musl cost, sizes; each when its rows were booted."""
    at = Medians(bench, run, arch)
    lines = luks_footnote(at) if at.booted(LUKS) else []
    lines += targets_note(at)
    for variant, note in NOTES:
        if at.booted(variant):
            lines += note(at)
    return lines + size_target_note(at) + [""]


def table_row(label, cells):
    return "| %s | %s |" % (label, " | ".join(cells))


def stage_table(run, arch, variants):
    """A markdown table of the stage medians of ARCH, a column a VARIANT with timings, the
    stages in the order the first of them met them; then the kernel's "Run /init" against
    the limit's, which is where a bigger image costs (the kernel unpacks it first; the
    limit's is zstd-compressed, the others' archives are not). No lines without columns."""
    columns = [(v, dict(run.stage_medians(arch, v))) for v in variants]
    columns = [(v, medians) for v, medians in columns if medians]
    if not columns:
        return []
    names = [v for v, _ in columns]
    stages = []
    for _, medians in columns:
        stages += [s for s in medians if s not in stages]
    l_run, l_exec = run.median(arch, LIMIT, "run-init"), run.median(arch, LIMIT, "exec")
    phases = [whole_ms(run.median(arch, v, main_columns(v)[2])) for v in names]
    unpacking = [ms_after(run.median(arch, v, "run-init"), l_run) for v in names]
    execs = [ms_after(run.median(arch, v, main_columns(v)[1]), l_exec) for v in names]
    return (
        [table_row("stage (ms)", names), "|---|" + "---:|" * len(names)]
        + [table_row(s, [medians.get(s, "") for _, medians in columns]) for s in stages]
        + [
            table_row("**initramfs phase** (the stages overlap where they wait side by side)",
                      ["**%s**" % p for p in phases]),
            table_row("kernel runs /init, ms after it does with the limit's image (unpacking; "
                      "below 0: before)", unpacking),
            table_row("**real init exec'd, ms after the limit's** (the phase's difference and "
                      "the line above)", ["**%s**" % e for e in execs]),
        ]
    )


def milestone_table(bench, run, arch):
    """A markdown table of the phase's three parts on the kernel's clock (PARTS), a row a
    variant whose boots showed them, each cell the median ms and its difference to the
    limit's; the peers are measured as earlymount is. No lines without rows."""
    # earlymount-luks's parts hold the time at its prompt
    rows = [v for v in bench.rows(run, arch)
            if v != LUKS and run.median(arch, v, "to-exec") != NONE]
    if not rows:
        return []
    lines = [table_row("ms (against the limit's)", [name for _, name in PARTS] + ["phase"]),
             "|---|" + "---:|" * (len(PARTS) + 1)]
    for v in rows:
        cells = []
        for column in [c for c, _ in PARTS] + ["phase"]:
            x, limit = run.median(arch, v, column), run.median(arch, LIMIT, column)
            if column == "phase":
                x, limit = whole_ms(x), whole_ms(limit)
            diff = "" if NONE in (x, limit) or v == LIMIT else " (%+.0f)" % (num(x) - num(limit))
            cells.append("%.0f%s" % (num(x), diff) if x != NONE else NONE)
        lines.append(table_row(v, cells))
    return lines


# The columns of the stage table: what moves earlymount's initramfs phase, against the limit.
STAGE_COLUMNS = (
    "earlymount", "earlymount-noahci", "earlymount-nofsck", "earlymount-partuuid",
    "earlymount-partuuid-noahci", "earlymount-hostonly", LIMIT,
)

MODE_INTRO = {
    "icount": "The guest's clocks advance by {ns} ns an instruction executed, not with the "
              "host's time: its uptimes do not follow the host's load. Kernel timers (port "
              "scans, msleeps, settles) keep their length in guest time, while CPU work costs "
              "what its instructions count. The targets are judged in this mode.",
    "tcg": "The guest's clock is the host's: single boots vary with the host's load (±20 % on "
           "an idle 2-core machine, more when other jobs run).",
}


def mode_section(bench, run):
    name = bench.mode_name(run.mode)
    intro = MODE_INTRO.get(run.mode, "").format(ns=1 << bench.icount_shift)
    lines = ["## " + name, "", intro, ""]
    for arch in bench.arches:
        lines += ["### %s, %s" % (arch, name), ""] + main_table(bench, run, arch) + [""]
        lines += table_notes(bench, run, arch)
    for arch in bench.arches:
        table = stage_table(run, arch, STAGE_COLUMNS)
        if table:
            lines += ["### Where the initramfs phase goes, %s, %s (medians of "
                      "/run/earlymount/timings)" % (arch, run.mode), ""] + table + [""]
    for arch in bench.arches:
        table = milestone_table(bench, run, arch)
        if table:
            lines += [
                "### The phase on the kernel's clock, every row, %s, %s" % (arch, run.mode),
                "",
                "Medians, from the kernel's log lines every initramfs passes: `Run /init`, the "
                "virtio disk's size, the first filesystem mounted (the root), the real init's "
                "exec. Peers included: what each spends before its disk is there is its own "
                "start and its drivers' inserts; then the root's filesystem module, checks and "
                "mount; then its handoff.",
                "",
            ] + table + [""]
    for arch in bench.arches:
        table = stage_table(run, arch, [LUKS])
        if table:
            lines += [
                "### Where earlymount-luks's initramfs phase goes, %s, %s" % (arch, run.mode),
                "",
                "The prompt falls in one of the stages; `passphrase` is the time at it, "
                "`after-passphrase` from the answer to the handoff (both overlap the stages).",
                "",
            ] + table + [""]
    return lines


# --- the report ---


def header(bench):
    info, machine = bench.info, bench.machine
    return [
        "# earlymount boot benchmark",
        "",
        f"Made by `make bench` (qemu/bench) on {info.get('date') or '?'}. Machine: "
        f"{machine.cpus} x {machine.model}, {machine.memory_kib / 1048576:.1f} GiB, QEMU "
        f"{machine.qemu}, TCG (software emulation; /dev/kvm here cannot boot a kernel), one "
        "vCPU unless the row says -smp2, 512 MiB, direct kernel boot, Debian kernel "
        f"{machine.kernel}.",
        f"Load average before the boots: {info.get('load-before', '')}; after: "
        f"{info.get('load-after') or '?'}. {info.get('boots', '')} boots per row and mode, "
        "alternating (each round: each mode, each arch, each row).",
        "",
        "Time to real init = guest uptime (/proc/uptime, 10 ms steps) the real init (the probe) "
        "reads first thing. Initramfs phase = from the kernel's \"Run /init as init process\" "
        "line to its exec of /sbin/init (TOMOYO's \"Not activating Mandatory Access Control\" "
        "line), both on the kernel's log clock. Medians; spread = (slowest - fastest) / median "
        "of the row's boots. ×limit = against the limit booted the same way (limit-smp2 for the "
        "-smp2 rows). Wall = QEMU start to exit (the probe powers off at once).",
        "",
    ]


def scaling_row(row, exec_time):
    """A row of the scaling table from a scale.txt row and the exec of the real init."""
    a, n, up, run_init, devices, plan, wall, probes, settled = (row + [NONE] * 9)[:9]
    seen = NONE not in (exec_time, run_init) and "" not in (exec_time, run_init)
    phase = "%.3f" % (num(exec_time) - num(run_init)) if seen else NONE
    # the time after settling as a share of the boot: ms / (s * 10) is %
    measured = NONE not in (settled, up) and num(up) > 0
    share = "%.2f" % (num(settled) / (num(up) * 10)) if measured else NONE
    cells = [a, n, "%d" % (num(n) * 16), up, phase, devices, plan, wall, probes, settled, share]
    return "| " + " | ".join(cells) + " |"


def scaling_section(bench):
    """earlymount with 1, 8 and 32 disks of 16 partitions: one boot each."""
    rows = read_rows(os.path.join(bench.out, "scale.txt"))
    if not rows:
        return []
    execs = {tuple(r[:2]): r[2] for r in read_rows(os.path.join(bench.out, "scale-exec.txt"))
             if len(r) > 2}
    return [
        "## Scaling (earlymount), " + bench.mode_name(bench.info.get("scale-mode", "")),
        "",
        "One virtio disk with the root and 15 more partitions, plus N−1 SCSI LUNs (virtio-scsi, "
        "removable media: what qemu/boot offers) of 16 empty partitions each. One boot each.",
        "",
        "Probing = earlymount's time in libblkid on each disk as it appears (the \"probes\" line "
        "of its timings), much of it while the kernel still attaches other LUNs. After settling "
        "= from the moment the last driver load returned (sd_mod returns once every LUN is "
        "probed) to the plan (the \"settled\" line): what discovery adds after the kernel has "
        "attached every disk, against the time to real init.",
        "",
        "| arch | disks | partitions | to real init (s) | initramfs phase (s) | stage devices (ms) "
        "| stage plan (ms) | wall (s) | probing (ms) | after settling (ms) "
        "| after settling, % of boot |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ] + [scaling_row(r, execs.get(tuple(r[:2]), "")) for r in rows] + [""]


def plan_line(bench):
    """`earlymount plan` on a 128-partition image: the median of its runs on the host."""
    times = read_rows(os.path.join(bench.out, "plan-times.txt"))
    if times:
        partitions = times[0][0]
        median_ms = "%.1f" % (num(median([t[1] for t in times])) / 1000)
    else:
        old = read_rows(os.path.join(bench.out, "plan.txt"))
        if not old:
            return []
        partitions, median_ms = old[0][0], old[0][1] if len(old[0]) > 1 else ""
    return [f"`earlymount plan --image` on a disk of {partitions} partitions (host, median of "
            f"21): {median_ms} ms.", ""]


def size_section(bench, arch, first):
    """The binary images get as /init, and where its bytes go."""
    stripped = bench.file_size(bench.out, "size", arch, "earlymount.stripped")
    luks = bench.built_size(arch, "earlymount-luks") or "0"
    lines = ["## Binary size", ""] if first else []
    lines += [
        f"{arch}: /init (earlymount-init, stripped, static glibc) "
        f"{kib(bench.built_size(arch, 'earlymount-init'))} KiB (target ≤ 1536 KiB; earlymount "
        f"with the host commands {kib(bench.built_size(arch, 'earlymount'))} KiB); the same link "
        f"stripped here {kib(stripped)} KiB; the LUKS helper (build/{arch}/earlymount-luks, "
        f"static, stripped; in `--luks` images only) {kib(luks)} KiB. Bytes per library of "
        "earlymount (allocated input sections of the link map, .bss excluded):",
        "",
        "| part | KiB |",
        "|---|---:|",
    ]
    lines += ["| %s | %.0f |" % (name, size / 1024)
              for kind, name, size in bench.link_bytes[arch] if kind == "lib"]
    return lines + [""]


def report(bench):
    lines = header(bench)
    for mode in bench.modes:
        if bench.runs[mode].boots:
            lines += mode_section(bench, bench.runs[mode])
    lines += scaling_section(bench) + plan_line(bench)
    sized = [a for a in bench.arches if bench.link_bytes[a]]
    for arch in sized:
        lines += size_section(bench, arch, first=arch == sized[0])
    return "\n".join(lines) + "\n"


# --- where the bytes of earlymount-init go: its link map ---

# The library an input file of the link belongs to: the first row all of whose patterns match.
LIBRARIES = (
    ("libkmod", (r"libkmod",)),
    ("libblkid", (r"libblkid",)),
    ("liblzma, encoder (builder only)", (r"liblzma", r"encoder|_enc|easy|preset")),
    ("liblzma, decoder", (r"liblzma",)),
    ("libzstd, legacy v0.5-0.7 decoders", (r"libzstd.*(zstd_v0)",)),
    ("libzstd, decompressor", (r"libzstd.*(decompress|ddict)",)),
    ("libzstd, compressor (builder only)", (r"libzstd.*(compress|_fast|_lazy|_ldm|_opt|hist)",)),
    ("libzstd, common", (r"libzstd",)),
    ("zlib (builder only)", (r"libz\.a",)),
    ("glibc", (r"libc\.a|libpthread|libm\.a|libresolv",)),
    ("libgcc+crt", (r"libgcc|crt[^/]*\.o",)),
    ("earlymount", (r"/obj/",)),
)

_HEX = re.compile(r"0x[0-9a-f]+$")
# Sections with no bytes in the file or not loaded: .bss, .tbss, debugging, comments. A
# top-level line names an output section, which decides for the input sections under it.
_UNLOADED_START = re.compile(r"^\.(bss|tbss|debug|comment|note\.gnu\.build)|^ \.(bss|tbss)")
_UNLOADED_SECTION = re.compile(r"^\.(bss|tbss|debug|comment|stab)")


def library_of(path):
    for name, patterns in LIBRARIES:
        if all(re.search(p, path) for p in patterns):
            return name
    return "other"


def map_input_sections(lines):
    """(FILE, BYTES) of each allocated input section with a file size in the memory map part
    of a GNU ld link map."""
    inside = skip = False
    for line in lines:
        if line.startswith("Linker script and memory map"):
            inside = True
            continue
        if not inside:
            continue
        fields = line.split()
        if _UNLOADED_START.search(line):
            skip = True
        if re.match(r"[.a-zA-Z]", line):
            skip = bool(_UNLOADED_SECTION.match(fields[0]))
        if skip:
            continue
        # "[SECTION] ADDRESS SIZE FILE": a long section name stands on a line of its own
        for i in range(len(fields) - 2):
            if _HEX.match(fields[i]) and _HEX.match(fields[i + 1]):
                if int(fields[i + 1], 16):
                    yield fields[i + 2], int(fields[i + 1], 16)
                break


def bytes_per_library(map_path):
    """[(KIND, NAME, BYTES)]: "lib" rows a library, "obj" rows an object of earlymount's
    own; by kind, the most bytes first."""
    per_library, per_object = {}, {}
    with open(map_path, encoding="utf-8", errors="replace") as f:
        for path, size in map_input_sections(f):
            library = library_of(path)
            per_library[library] = per_library.get(library, 0) + size
            if library == "earlymount":
                name = path.rsplit("/", 1)[-1]
                per_object[name] = per_object.get(name, 0) + size
    rows = [("lib", k, v) for k, v in per_library.items()]
    rows += [("obj", k, v) for k, v in per_object.items()]
    # sort -k1,1 -k3,3nr: then the whole line, sort's last resort
    return sorted(rows, key=lambda r: (r[0], -r[2], "%s\t%s\t%d" % r))


def read_link_map(size_dir):
    """bytes_per_library of SIZE_DIR/earlymount.map; none without a map."""
    map_path = os.path.join(size_dir, "earlymount.map")
    return bytes_per_library(map_path) if os.path.isfile(map_path) else []


# --- the chart's bars ---


def chart_label(variant):
    """"em-" for "earlymount-", "ho" for "hostonly", two lines for the longer names: the
    bars' labels must fit side by side ("\\n" is gnuplot's line break)."""
    if variant == LUKS:
        return r"em-luks\n(prompt out)"
    name = re.sub(r"^earlymount-", "em-", variant).replace("hostonly", "ho", 1)
    for pattern, replacement in (
        (r"^em-ho-nofsck$", r"em-ho\\nnofsck"),
        (r"^em-network$", r"em-\\nnetwork"),
        (r"-smp2$", r"\\nsmp2"),
        (r"^dracut-", r"dracut-\\n"),
        (r"^initramfs-", r"initramfs-\\n"),
    ):
        name = re.sub(pattern, replacement, name)
    return name


def chart_data(bench, run):
    """The bars of RUN's mode: "LABEL" KERNEL-PART INITRAMFS-PHASE, a row booted; the first
    line the chart's title (a comment to gnuplot)."""
    lines = ["# Kernel clock when the real init is executed: medians, " + bench.mode_name(run.mode)]
    for arch in bench.arches:
        for v in bench.rows(run, arch):
            kernel = run.median(arch, v, "run-init")
            phase = run.median(arch, v, main_columns(v)[2])
            if NONE not in (kernel, phase):
                lines.append('"%s\\n%s" %s %s' % (chart_label(v), arch, kernel, phase))
    return "\n".join(lines) + "\n"


# --- main ---


def parse_args(argv):
    p = argparse.ArgumentParser(description="The boot benchmark's report, from a run's facts.")
    p.add_argument("out", help="the run's directory (BUILD/bench)")
    p.add_argument("build", help="the BUILD directory of its binaries")
    p.add_argument("--arches", default="x86_64 aarch64", help="for a run.txt without arches")
    p.add_argument("--variants", default="", help="the rows in order, for a run.txt without")
    p.add_argument("--modes", default="icount tcg", help="for a run.txt without modes")
    p.add_argument("--icount-shift", default="0", help="for a run.txt without icount-shift")
    p.add_argument("--host-arch", default=os.uname().machine)
    p.add_argument("--qemu", default="?", help="QEMU's version")
    p.add_argument("--kernel", default="?", help="the Debian kernel's version")
    return p.parse_args(argv)


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv):
    args = parse_args(argv)
    bench = Bench(args.out, args.build, read_machine(args.qemu, args.kernel),
                  arches=args.arches, variants=args.variants, modes=args.modes,
                  icount_shift=args.icount_shift, host_arch=args.host_arch)
    write(os.path.join(args.out, "results.md"), report(bench))
    for mode, run in bench.runs.items():
        if run.boots:
            write(os.path.join(args.out, mode, "chart.dat"), chart_data(bench, run))
    for arch, rows in bench.link_bytes.items():
        if os.path.isfile(os.path.join(args.out, "size", arch, "earlymount.map")):
            write(os.path.join(args.out, "size", arch, "per-library.txt"),
                  "".join("%s\t%s\t%d\n" % r for r in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
