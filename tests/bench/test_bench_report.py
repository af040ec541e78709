"""tests/bench: qemu/bench_report.py on a synthetic run (fixture/run), no QEMU.

fixture/run holds the facts qemu/bench writes (run.txt, sizes.txt, icount/boots.txt,
exec.txt, timings.txt, luks-log.txt, scale*.txt, plan-times.txt, a link map) for 3 boots of
earlymount, luks and the limit, 2 of earlymount-partuuid, 1 good and 1 failed of
earlymount-nofsck. fixture/expected.md is what qemu/bench's awk wrote for that run (its logs
made from the facts) before the report moved to Python: the report must keep its content.
"""

import importlib.util
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixture")
sys.dont_write_bytecode = True  # no __pycache__ in qemu/
_spec = importlib.util.spec_from_file_location(
    "bench_report", os.path.join(HERE, "..", "..", "qemu", "bench_report.py"))
br = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(br)

# The machine fixture/expected.md was written on.
MACHINE = br.Machine(cpus=2, model="AMD EPYC", memory_kib=24683772, qemu="7.2.22",
                     kernel="6.1.0-57-amd64")
VARIANTS = "earlymount earlymount-partuuid earlymount-nofsck earlymount-luks limit"
# The built files the report states the size of (earlymount-luks's helper is missing).
BUILT = {"x86_64/earlymount-init": 1540104, "x86_64/earlymount": 1658920,
         "bench/size/x86_64/earlymount.stripped": 1500000}


class FixtureRun(unittest.TestCase):
    """A copy of fixture/run as BUILD/bench, with the built files beside it."""

    def setUp(self):
        self.build = tempfile.mkdtemp(prefix="bench-report-")
        self.addCleanup(shutil.rmtree, self.build)
        self.out = os.path.join(self.build, "bench")
        shutil.copytree(os.path.join(FIXTURE, "run"), self.out)
        for path, size in BUILT.items():
            os.makedirs(os.path.dirname(os.path.join(self.build, path)), exist_ok=True)
            with open(os.path.join(self.build, path), "wb") as f:
                f.truncate(size)

    def bench(self, variants=VARIANTS, host_arch="x86_64"):
        return br.Bench(self.out, self.build, MACHINE, arches="x86_64", variants=variants,
                        modes="icount tcg", icount_shift="0", host_arch=host_arch)

    def run_txt_without(self, *keys):
        path = os.path.join(self.out, "run.txt")
        with open(path, encoding="utf-8") as f:
            lines = [line for line in f if line.split(":")[0] not in keys]
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(lines)


class TheReport(FixtureRun):
    def test_report_is_the_one_the_shell_wrote(self):
        with open(os.path.join(FIXTURE, "expected.md"), encoding="utf-8") as f:
            expected = f.read()
        self.maxDiff = None
        self.assertEqual(br.report(self.bench()).splitlines(), expected.splitlines())

    def test_main_writes_the_report_and_the_chart_data(self):
        br.main([self.out, self.build, "--qemu", "7.2.22", "--kernel", "6.1.0-57-amd64"])
        with open(os.path.join(self.out, "results.md"), encoding="utf-8") as f:
            self.assertIn("| earlymount-partuuid | 2.305 |", f.read())
        with open(os.path.join(self.out, "icount", "chart.dat"), encoding="utf-8") as f:
            self.assertEqual(f.read(), (
                "# Kernel clock when the real init is executed: medians, "
                "deterministic (-icount shift=0,sleep=on)\n"
                '"earlymount\\nx86_64" 1.725800 1.236\n'
                '"em-partuuid\\nx86_64" 1.724 0.583\n'
                '"em-nofsck\\nx86_64" 1.714259 1.222\n'
                '"em-luks\\n(prompt out)\\nx86_64" 1.732090 1.476\n'
                '"limit\\nx86_64" 1.757291 0.495\n'))
        self.assertTrue(os.path.exists(os.path.join(self.out, "size", "x86_64", "per-library.txt")))


class Statistics(unittest.TestCase):
    def test_median_of_an_odd_count_is_the_middle_value_as_written(self):
        self.assertEqual(br.median(["2.97", "2.95", "2.96"]), "2.96")
        self.assertEqual(br.median(["1.725800"]), "1.725800")

    def test_median_of_an_even_count_is_the_mean_to_three_places(self):
        self.assertEqual(br.median(["2.31", "2.30"]), "2.305")
        self.assertEqual(br.median(["1", "2", "4", "10"]), "3.000")

    def test_median_of_nothing_is_not_measured(self):
        self.assertEqual(br.median([]), "-")

    def test_spread_needs_two_boots(self):
        self.assertEqual(br.spread(["2.94"]), "-")
        self.assertEqual(br.spread([]), "-")
        self.assertEqual(br.spread(["2.95", "2.97", "2.96"]), "0.7 %")
        self.assertEqual(br.spread(["0", "0"]), "-")

    def test_ratio(self):
        self.assertEqual(br.ratio("2.96", "2.25"), "1.32")
        for x, base in (("-", "2.25"), ("2.96", "-"), ("2.96", "0.000")):
            self.assertEqual(br.ratio(x, base), "-")

    def test_verdict_met_missed_not_measured(self):
        self.assertEqual(br.verdict("2.305", "2.25", 1.05), "1.024× (met)")
        self.assertEqual(br.verdict("2.96", "2.25", 1.15), "1.316× (missed)")
        # the target itself meets it
        self.assertEqual(br.verdict("2.1", "2", 1.05), "1.050× (met)")
        for x, base in (("-", "2.25"), ("2.96", "-"), ("", "2.25"), ("2.96", "0")):
            self.assertEqual(br.verdict(x, base, 1.15), "not measured")

    def test_kib(self):
        self.assertEqual(br.kib("1540104"), "1504")
        for none in (None, "", "0"):
            self.assertEqual(br.kib(none), "-")


class Rows(FixtureRun):
    def test_failed_boots_count_in_boots_ok_only(self):
        table = br.main_table(self.bench(), self.bench().runs["icount"], "x86_64")
        row = next(r for r in table if r.startswith("| earlymount-nofsck |"))
        self.assertEqual(row, "| earlymount-nofsck | 2.94 | - | 1.31 | 2.936071 | - | 1.30 "
                              "| 1.222 | - | 2.47 | 1.714259 | 8.37 | 6094 | 6094 | 1/2 |")

    def test_rows_in_the_runs_order_when_booted(self):
        bench = self.bench()
        self.assertEqual(bench.rows(bench.runs["icount"], "x86_64"), VARIANTS.split())

    def test_an_old_run_txt_takes_the_order_given(self):
        self.run_txt_without("variants", "arches")
        bench = self.bench(variants="limit earlymount-verity earlymount-luks earlymount")
        # earlymount-verity has no boots: no row; the others as given, none more
        self.assertEqual(bench.rows(bench.runs["icount"], "x86_64"),
                         ["limit", "earlymount-luks", "earlymount"])
        table = br.main_table(bench, bench.runs["icount"], "x86_64")
        self.assertEqual([r.split(" | ")[0] for r in table[2:5]],
                         ["| limit", "| earlymount-luks¹", "| earlymount"])

    def test_peers_only_on_the_host_arch(self):
        bench = self.bench(host_arch="aarch64")
        note = br.targets_note(br.Medians(bench, bench.runs["icount"], "x86_64"))
        self.assertIn("dracut and initramfs-tools copy the host's (aarch64) binaries into the "
                      "image: not run on x86_64.", note)


class Luks(FixtureRun):
    def values(self, column):
        return self.bench().runs["icount"].values("x86_64", "earlymount-luks", column)

    def test_the_prompt_columns(self):
        # boot 1: uptime 4.29, Run /init 1.732093, exec 4.289659, passphrase at 3.837154 for
        # 1082.420 ms, after-passphrase 441.617 ms
        self.assertEqual(self.values("prompt")[0], "1.082")
        self.assertEqual(self.values("up-prompt")[0], "3.21")
        self.assertEqual(self.values("exec-prompt")[0], "3.207659")
        self.assertEqual(self.values("phase-prompt")[0], "1.476")
        self.assertEqual(self.values("answer-to-init")[0], "0.45")
        self.assertEqual(self.values("after")[0], "0.442")

    def test_boots_without_a_prompt_have_no_prompt_columns(self):
        run = self.bench().runs["icount"]
        self.assertEqual(run.values("x86_64", "earlymount", "up-prompt"), [])
        self.assertEqual(run.median("x86_64", "earlymount", "prompt"), "-")

    def test_the_time_after_the_answer_split(self):
        run = self.bench().runs["icount"]
        self.assertEqual([run.luks_split("x86_64", part) for part in (1, 2, 3)],
                         ["75.6", "360.6", "15.9"])


class Stages(FixtureRun):
    def test_peer_verdict_part_by_part(self):
        class At:
            def of(self, variant, column):
                parts = {"earlymount-partuuid": ("87", "445", "11"),
                         "dracut-systemd": ("1062", "582", "294"),
                         "initramfs-tools": ("480", "440", "45"),
                         "limit": ("66", "429", "-")}
                return dict(zip(("to-disk", "to-mounted", "to-exec"), parts[variant]))[column]
        self.assertEqual(br.peer_verdict(At(), "earlymount-partuuid", "dracut-systemd"),
                         "ahead of dracut-systemd in 3 of 3 parts")
        self.assertEqual(br.peer_verdict(At(), "earlymount-partuuid", "initramfs-tools"),
                         "ahead of initramfs-tools in 2 of 3 parts "
                         "(not in: the disk to its root mounted)")
        self.assertEqual(br.peer_verdict(At(), "earlymount-partuuid", "limit"),
                         "limit: not measured")

    def test_stage_order_is_the_earliest_place_then_the_name(self):
        # boot 2 has fsck where the others have plan (4th): fsck sorts before plan
        medians = self.bench().runs["icount"].stage_medians("x86_64", "earlymount")
        self.assertEqual(medians, [("apifs", "0.9"), ("cmdline", "0.2"), ("devices", "6.9"),
                                   ("fsck", "12.2"), ("plan", "1185.0"), ("mount", "1.4")])

    def test_handoff_and_the_version_line_are_not_stages(self):
        stages = dict(self.bench().runs["icount"].stage_medians("x86_64", "earlymount-luks"))
        self.assertNotIn("handoff", stages)
        self.assertNotIn("earlymount", stages)

    def test_missing_cells_and_columns(self):
        table = br.stage_table(self.bench().runs["icount"], "x86_64", br.STAGE_COLUMNS)
        self.assertEqual(table[0], "| stage (ms) | earlymount | earlymount-partuuid | limit |")
        self.assertIn("| fsck | 12.2 |  |  |", table)
        self.assertIn("| root-wait |  |  | 0.0 |", table)
        self.assertEqual([r.split(" |")[0][2:] for r in table[2:10]],
                         ["apifs", "cmdline", "devices", "fsck", "plan", "mount", "modules",
                          "root-wait"])

    def test_no_table_without_timings(self):
        run = self.bench().runs["icount"]
        self.assertEqual(br.stage_table(run, "x86_64", ["earlymount-lvm"]), [])


class LinkMap(unittest.TestCase):
    def test_bytes_per_library(self):
        rows = br.bytes_per_library(
            os.path.join(FIXTURE, "run", "size", "x86_64", "earlymount.map"))
        self.assertEqual(rows, [
            ("lib", "earlymount", 0x30 + 0x400 + 0x200),
            ("lib", "glibc", 0x300),  # libc's .tbss left out
            ("lib", "libblkid", 0x200),
            # equal sums in the order of their lines
            ("lib", "libkmod", 0x100),
            ("lib", "liblzma, decoder", 0x100),
            ("lib", "libzstd, decompressor", 0x100),
            ("lib", "other", 0x100),
            ("lib", "libzstd, common", 0x80),
            ("lib", "libgcc+crt", 0x24 + 0x20),  # crt1.o's build-id note counts
            ("lib", "liblzma, encoder (builder only)", 0x40),
            ("obj", "plan.o", 0x430),  # its .bss, debug info and discarded .text left out
            ("obj", "cmdline.o", 0x200),
        ])

    def test_library_of(self):
        for path, library in (
            ("/usr/lib/liblzma.a(easy_preset.o)", "liblzma, encoder (builder only)"),
            ("build/zstd/x86_64/lib/libzstd.a(zstd_v05.o)", "libzstd, legacy v0.5-0.7 decoders"),
            ("build/zstd/x86_64/lib/libzstd.a(zstd_lazy.o)", "libzstd, compressor (builder only)"),
            ("/usr/lib/x86_64-linux-gnu/libz.a(inflate.o)", "zlib (builder only)"),
            ("/usr/lib/gcc/x86_64-linux-gnu/12/crtend.o", "libgcc+crt"),
        ):
            self.assertEqual(br.library_of(path), library)


class Chart(unittest.TestCase):
    def test_labels_fit_side_by_side(self):
        for variant, label in (
            ("earlymount", "earlymount"),
            ("earlymount-hostonly", "em-ho"),
            ("earlymount-hostonly-nofsck", r"em-ho\nnofsck"),
            ("earlymount-partuuid-smp2", r"em-partuuid\nsmp2"),
            ("limit-smp2", r"limit\nsmp2"),
            ("dracut-systemd", r"dracut-\nsystemd"),
            ("initramfs-tools", r"initramfs-\ntools"),
            ("earlymount-luks", r"em-luks\n(prompt out)"),
        ):
            self.assertEqual(br.chart_label(variant), label)


if __name__ == "__main__":
    unittest.main()
