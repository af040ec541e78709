/* The limits of hostile input, each explicit and tested: the longest command line of every
 * arch, disks with 128 and more partitions, GPT names that are no UTF-16, empty, huge and
 * overlapping partitions, duplicate PARTUUIDs. Images are made at test time in a temp dir, with
 * tests/fixtures/mkdisk (those tests are skipped when it or its tools are missing) or byte by
 * byte with tests/fixtures/gpt_image.h. LIMITS_SEED_DIR=DIR also copies each small hostile image
 * there (as regression-limits-NAME.img, the fuzz_probe corpus's naming). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "../fixtures/gpt_image.h"
#include "commands.h"
#include "plan_fixtures.h"
#include "probe.h"
#include "utf8.h"
#include "util.h"

#define MKDISK "tests/fixtures/mkdisk"
#define SEED_MAX_BYTES 80000
#define DISK_GUID "d15c0000-0000-4000-8000-00000000000a"
#define ROOT_PARTUUID "00000a01-0000-4000-8000-000000000000"

/* ---- the command line ---- */

/* COMMAND_LINE_SIZE, terminator included, of the arches earlymount boots on (Linux 6.1,
 * arch/NAME/include/{asm,uapi/asm}/setup.h; riscv64 took 1024 in 6.6). */
static const struct kernel_cmdline_size {
	const char *arch;
	size_t size;
} kernel_cmdline_sizes[] = {
	{ "x86-64", 2048 }, { "x86", 2048 },   { "arm64", 2048 },   { "ppc64le", 2048 },
	{ "arm", 1024 },    { "riscv64", 512 }, { "riscv64 6.6", 1024 }, { "s390x", 4096 },
	{ "loongarch64", 4096 },
};

/* A line of exactly len bytes as a boot loader would fill it: an init= first, module
 * parameters and rd.modules-load= items, and a last init= that must win, padded to len. */
static char *long_line(size_t len, unsigned *n_params, unsigned *n_modules)
{
	static const char tail[] = " init=/sbin/last";
	char *line = malloc(len + 1);
	size_t at = 0;

	assert_non_null(line);
	*n_params = *n_modules = 0;
	at += (size_t)sprintf(line, "init=/first root=PARTUUID=%s", ROOT_PARTUUID);
	while (at + 40 < len - sizeof(tail)) {
		if ((*n_params + *n_modules) % 2 == 0) {
			at += (size_t)sprintf(line + at, " mod%u.param=%u", *n_params, *n_params);
			(*n_params)++;
		} else {
			at += (size_t)sprintf(line + at, " rd.modules-load=m%u", *n_modules);
			(*n_modules)++;
		}
	}
	memcpy(line + at, tail, sizeof(tail) - 1);
	at += sizeof(tail) - 1;
	/* The last value runs to the end of the line. */
	memset(line + at, 'x', len - at);
	line[len] = '\0';
	return line;
}

static void test_cmdline_longest_per_arch(void **state)
{
	static struct options opts;
	char err[256];

	for (size_t i = 0; i < ARRAY_SIZE(kernel_cmdline_sizes); i++) {
		const struct kernel_cmdline_size *k = &kernel_cmdline_sizes[i];
		unsigned n_params, n_modules;
		char *line = long_line(k->size - 1, &n_params, &n_modules);
		char last_module[16];
		int r = cmdline_parse(line, &opts, err, sizeof(err));

		if (r != 0)
			fail_msg("%s: a line of %zu bytes gave %d: %s", k->arch, k->size - 1, r, err);
		assert_int_equal(strlen(line), k->size - 1);
		assert_non_null(opts.init);
		assert_true(startswith(opts.init, "/sbin/lastx"));
		assert_int_equal(strlen(opts.init), strlen(strstr(line, "/sbin/last")));
		assert_string_equal(opts.root, "PARTUUID=" ROOT_PARTUUID);
		assert_int_equal(opts.n_module_params, n_params);
		snprintf(last_module, sizeof(last_module), ",m%u", n_modules - 1);
		assert_non_null(strstr(opts.modules_load, last_module));
		free(line);
	}
	(void)state;
}

/* CMDLINE_MAX - 1 is the longest line taken; one byte more and none of it applies. */
static void test_cmdline_max_is_the_bound(void **state)
{
	static struct options opts;
	char err[256];
	unsigned n_params, n_modules;
	char *line = long_line(CMDLINE_MAX - 1, &n_params, &n_modules);
	char *longer = long_line(CMDLINE_MAX, &n_params, &n_modules);
	char *bootconfig = long_line(64 * 1024, &n_params, &n_modules);

	assert_int_equal(cmdline_parse(line, &opts, err, sizeof(err)), 0);
	assert_true(startswith(opts.init, "/sbin/last"));
	assert_int_equal(cmdline_parse(longer, &opts, err, sizeof(err)), -E2BIG);
	assert_string_equal(err, "the kernel command line is 4096 bytes long, over the limit of 4095; "
				 "none of it was applied");
	assert_null(opts.init);
	assert_null(opts.root);
	assert_int_equal(opts.n_module_params, 0);
	assert_int_equal(cmdline_parse(bootconfig, &opts, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "65536 bytes long"));
	free(line);
	free(longer);
	free(bootconfig);
	(void)state;
}

/* ---- the planner on disk models ---- */

static void expect_refusal(struct fixture *f, int r, int want, const char *text)
{
	if (r == want && strstr(f->plan.error, text) && !strchr(f->plan.error, '\n'))
		return;
	fx_dump(f);
	fail_msg("want %d with '%s' in the error; got %d", want, text, r);
}

static void expect_plan(struct fixture *f, int r, const char *root_source)
{
	if (r == 0 && f->plan.n_steps > 0 && strcmp(f->plan.steps[0].source, root_source) == 0)
		return;
	fx_dump(f);
	fail_msg("want a plan mounting %s first; got %d", root_source, r);
}

static const char *partuuid_spec(size_t disk, unsigned number)
{
	static char spec[64];
	char uuid[UUID_STR_LEN];

	snprintf(spec, sizeof(spec), "PARTUUID=%s", fx_partuuid(disk, number, uuid));
	return spec;
}

/* A disk of n partitions of type fill, each 1 MiB at number MiB (fx_part's layout). */
static size_t disk_of(struct fixture *f, const char *path, unsigned n, const char *fill)
{
	size_t d = fx_disk(f, path, "gpt", "", false);

	for (unsigned i = 1; i <= n; i++)
		fx_part(f, d, i, fill, NULL, "", 0, "ext4");
	return d;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The kernel makes devices for partitions 1-255: the 255th can be the root, the 256th not. */
static void test_256_partitions(void **state)
{
	struct fixture *f = fx_new();
	size_t d = disk_of(f, "/dev/vda", 256, T_LINUX);
	struct timespec t0;
	int r;

	snprintf(fx_get(f, d, 255)->type, UUID_STR_LEN, "%s", T_ROOT_X86_64);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = fx_plan(f);
	print_message("planning a disk of 256 partitions: %.2f ms\n", seconds_since(&t0) * 1e3);
	expect_plan(f, r, partuuid_spec(d, 255));

	snprintf(fx_get(f, d, 255)->type, UUID_STR_LEN, "%s", T_LINUX);
	snprintf(fx_get(f, d, 256)->type, UUID_STR_LEN, "%s", T_ROOT_X86_64);
	r = fx_plan(f);
	expect_refusal(f, r, -EPERM, "root: partition 256 of /dev/vda is numbered outside 1-255, so the "
				     "kernel makes no device for it; move it to a lower entry");
	fx_free(f);
	(void)state;
}

/* A cloned partition table: whichever PARTUUID would be mounted is on two partitions. */
static void test_duplicate_partuuids_among_256(void **state)
{
	struct fixture *f = fx_new();
	size_t d = disk_of(f, "/dev/vda", 255, T_LINUX);
	char uuid[UUID_STR_LEN];
	int r;

	snprintf(fx_get(f, d, 200)->type, UUID_STR_LEN, "%s", T_ROOT_X86_64);
	/* Duplicates among partitions nothing mounts are not earlymount's business. */
	for (unsigned n = 2; n < 100; n++)
		snprintf(fx_get(f, d, n)->partuuid, UUID_STR_LEN, "%s", fx_partuuid(d, 1, uuid));
	r = fx_plan(f);
	expect_plan(f, r, partuuid_spec(d, 200));

	snprintf(fx_get(f, d, 17)->partuuid, UUID_STR_LEN, "%s", fx_partuuid(d, 200, uuid));
	r = fx_plan(f);
	expect_refusal(f, r, -ENOTUNIQ, "PARTUUID 00000001-0000-4000-8000-0000000000c8 is on several "
					"partitions (partition 17 of /dev/vda and partition 200 of /dev/vda;");
	f->opts.root_kind = ROOT_DEVICE;
	f->opts.root = partuuid_spec(d, 200);
	r = fx_plan(f);
	expect_refusal(f, r, -ENOTUNIQ, "matches several partitions (partition 17 of /dev/vda and "
					"partition 200 of /dev/vda): refusing to pick one");
	fx_free(f);
	(void)state;
}

/* Many roots on one disk: the spec's rule (newest version, then lowest number) picks one and
 * says why; many roots on two disks are refused. */
static void test_many_roots(void **state)
{
	struct fixture *f = fx_new();
	size_t a = disk_of(f, "/dev/vda", 255, T_ROOT_X86_64);
	int r;

	/* Versions 1.0 to 1.254 in an order that is not the numbers'. */
	for (unsigned n = 1; n <= 255; n++)
		snprintf(fx_get(f, a, n)->label, 256, "root-1.%u", (n * 97) % 255);
	r = fx_plan(f);
	/* 1.254 is partition n with 97 n = 254 (mod 255): n = 92. */
	expect_plan(f, r, partuuid_spec(a, 92));
	assert_true(fx_has_note(f, "partition 1 (root, label 'root-1.97') passed over: partition 92 "
				   "(label 'root-1.254') has a newer version"));
	assert_int_equal(f->plan.n_notes, PLAN_MAX_NOTES);
	assert_non_null(strstr(f->plan.notes[PLAN_MAX_NOTES - 1], "more notes left out"));

	for (unsigned n = 1; n <= 255; n++)
		snprintf(fx_get(f, a, n)->label, 256, "root");
	r = fx_plan(f);
	expect_plan(f, r, partuuid_spec(a, 1));
	assert_true(fx_has_note(f, "partition 1 has the same version and a lower number"));

	disk_of(f, "/dev/vdb", 128, T_ROOT_X86_64);
	r = fx_plan(f);
	expect_refusal(f, r, -ENOTUNIQ, "2 fixed disks hold an x86-64 root partition: /dev/vda /dev/vdb; "
					"earlymount does not guess");
	fx_free(f);
	(void)state;
}

/* A disk whose partitions 2 (root) and 3 (home) share bytes; 4 is an ESP, 5 swap. */
static size_t overlap_disk(struct fixture *f, const char *pttype)
{
	size_t d = fx_disk(f, "/dev/vda", pttype, "", false);

	fx_part(f, d, 1, T_LINUX, NULL, "", 0, "ext4");
	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	fx_part(f, d, 3, T_HOME, NULL, "home", 0, "ext4");
	fx_part(f, d, 4, T_ESP, NULL, "esp", 0, "vfat");
	fx_part(f, d, 5, T_SWAP, NULL, "swap", 0, "swap");
	fx_get(f, d, 2)->size = 1536 << 10; /* 2 MiB to 3.5 MiB, over home's 3 MiB to 4 MiB */
	return d;
}

static void test_overlapping_partitions(void **state)
{
	struct fixture *f = fx_new();
	size_t d = overlap_disk(f, "gpt");
	int r = fx_plan(f);

	expect_refusal(f, r, -EPERM, "root: partitions 2 and 3 of /dev/vda overlap (bytes 2097152-3670015 "
				     "and 3145728-4194303); refusing to mount either; repair the partition table");
	/* Named on the command line, the root is refused all the same. */
	f->opts.root_kind = ROOT_DEVICE;
	f->opts.root = partuuid_spec(d, 2);
	r = fx_plan(f);
	expect_refusal(f, r, -EPERM, "root: partitions 2 and 3 of /dev/vda overlap");
	/* Home is required: its overlap with the root it is not mounted with still refuses. */
	f->opts.root = partuuid_spec(d, 1);
	r = fx_plan(f);
	expect_refusal(f, r, -EPERM, "home: partitions 3 and 2 of /dev/vda overlap");

	/* The ESP and swap are optional: they are left out, each with a note, and the boot goes on. */
	f->opts.root_kind = ROOT_DISCOVER;
	fx_get(f, d, 2)->size = 1 << 20;
	fx_get(f, d, 4)->size = 2 << 20;
	r = fx_plan(f);
	expect_plan(f, r, partuuid_spec(d, 2));
	assert_int_equal(f->plan.n_steps, 2);
	assert_string_equal(f->plan.steps[1].target, "/sysroot/home");
	assert_true(fx_has_note(f, "esp partition 4 not mounted: partitions 4 and 5 of /dev/vda overlap"));
	assert_true(fx_has_note(f, "swap partition 5 not mounted: partitions 5 and 4 of /dev/vda overlap"));
	fx_free(f);
	(void)state;
}

/* A partition whose probe met a read error (the probe names the sector) is damaged: the root
 * is refused with the sector, never called unformatted; an optional swap is left out. */
static void test_read_errors(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);
	int r;

	fx_part(f, d, 1, T_ROOT_X86_64, NULL, "root", 0, "");
	fx_part(f, d, 2, T_SWAP, NULL, "swap", 0, "");
	snprintf(fx_get(f, d, 1)->read_error, sizeof(fx_get(f, d, 1)->read_error), "sector 2050 of /dev/vda");
	r = fx_plan(f);
	expect_refusal(f, r, -EPERM, "root: partition 1 of /dev/vda cannot be read: a read error at "
				     "sector 2050 of /dev/vda (the disk may be failing");
	fx_get(f, d, 1)->read_error[0] = '\0';
	snprintf(fx_get(f, d, 1)->fstype, sizeof(fx_get(f, d, 1)->fstype), "ext4");
	snprintf(fx_get(f, d, 2)->read_error, sizeof(fx_get(f, d, 2)->read_error), "sector 9000 of /dev/vda");
	r = fx_plan(f);
	expect_plan(f, r, partuuid_spec(d, 1));
	assert_true(fx_has_note(f, "swap partition 2 not mounted: partition 2 of /dev/vda cannot be read"));
	fx_free(f);

	/* the partition table itself unreadable: the disk is named so, not as one without GPT */
	f = fx_new();
	d = fx_disk(f, "/dev/vda", "", "", false);
	snprintf(f->set.disks[d].read_error, sizeof(f->set.disks[d].read_error), "sector 1 of /dev/vda");
	r = fx_plan(f);
	expect_refusal(f, r, -EIO, "/dev/vda cannot be read where its partition table is: a read error "
				   "at sector 1 of /dev/vda");
	fx_free(f);
	(void)state;
}

/* An MBR's extended partition holds its logical ones, and nested BSD labels lie inside their
 * partition: outside GPT, ranges that meet are no damage. */
static void test_overlap_outside_gpt(void **state)
{
	struct fixture *f = fx_new();
	size_t d = overlap_disk(f, "dos");
	int r;

	f->opts.root_kind = ROOT_DEVICE;
	f->opts.root = partuuid_spec(d, 2);
	r = fx_plan(f);
	expect_plan(f, r, partuuid_spec(d, 2));
	fx_free(f);
	(void)state;
}

/* Hostile sizes: every range is checked without overflow, nothing empty is mounted. */
static void test_zero_and_huge_sizes(void **state)
{
	struct fixture *f = fx_new();
	size_t d = disk_of(f, "/dev/vda", 3, T_LINUX);
	struct part *root = fx_get(f, d, 2);
	int r;

	snprintf(root->type, UUID_STR_LEN, "%s", T_ROOT_X86_64);
	root->size = 0;
	r = fx_plan(f);
	expect_refusal(f, r, -EPERM, "root: partition 2 of /dev/vda is empty (0 bytes): there is nothing "
				     "to mount; repair the partition table");
	/* An empty partition overlaps nothing, and a root beside it is fine. */
	root->size = 1 << 20;
	fx_get(f, d, 3)->start = root->start;
	fx_get(f, d, 3)->size = 0;
	r = fx_plan(f);
	expect_plan(f, r, partuuid_spec(d, 2));

	root->start = UINT64_MAX - 4096;
	root->size = 1 << 20;
	r = fx_plan(f);
	expect_refusal(f, r, -EPERM, "root: partition 2 of /dev/vda claims 1048576 bytes from byte "
				     "18446744073709547519, past the end of any disk");
	/* A partition that claims all of the address space overlaps everything: saturated, not
	 * wrapped to a small range. */
	root->start = 2 << 20;
	fx_get(f, d, 3)->start = 4096;
	fx_get(f, d, 3)->size = UINT64_MAX;
	r = fx_plan(f);
	expect_refusal(f, r, -EPERM, "root: partitions 2 and 3 of /dev/vda overlap");
	root->number = 0;
	r = fx_plan(f);
	expect_refusal(f, r, -EPERM, "partition 0 of /dev/vda is numbered outside 1-255");
	fx_free(f);
	(void)state;
}

/* An empty XBOOTLDR is left out like any optional mount that cannot be made; an empty /srv is
 * refused, as a failure to mount it would stop the boot. */
static void test_zero_size_roles(void **state)
{
	struct fixture *f = fx_new();
	size_t d = disk_of(f, "/dev/vda", 1, T_ROOT_X86_64);
	int r;

	fx_part(f, d, 2, T_XBOOTLDR, NULL, "", 0, "vfat")->size = 0;
	r = fx_plan(f);
	expect_plan(f, r, partuuid_spec(d, 1));
	assert_int_equal(f->plan.n_steps, 1);
	assert_true(fx_has_note(f, "xbootldr partition 2 not mounted: partition 2 of /dev/vda is empty"));
	fx_part(f, d, 3, T_SRV, NULL, "", 0, "ext4")->size = 0;
	r = fx_plan(f);
	expect_refusal(f, r, -EPERM, "srv: partition 3 of /dev/vda is empty (0 bytes)");
	fx_free(f);
	(void)state;
}

/* ---- probing real images, then planning ---- */

struct images {
	char dir[64];
	char path[128];
	struct disk_set set;
};

static int setup(void **state)
{
	struct images *im = calloc(1, sizeof(*im));

	assert_non_null(im);
	strcpy(im->dir, "/tmp/test_limits.XXXXXX");
	assert_non_null(mkdtemp(im->dir));
	snprintf(im->path, sizeof(im->path), "%s/disk.img", im->dir);
	*state = im;
	return 0;
}

static int teardown(void **state)
{
	struct images *im = *state;
	char cmd[128];

	disk_set_free(&im->set);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", im->dir);
	assert_int_equal(system(cmd), 0);
	free(im);
	return 0;
}

/* Runs mkdisk IMAGE ARGS; skips the test when it cannot. */
static void mkdisk(const struct images *im, const char *args)
{
	size_t size = strlen(args) + 256;
	char *cmd = malloc(size);

	assert_non_null(cmd);
	if (access(MKDISK, R_OK) != 0) {
		fprintf(stderr, "skipping: %s not found (run from the source tree)\n", MKDISK);
		free(cmd);
		skip();
	}
	snprintf(cmd, size, "sh %s '%s' %s >/dev/null", MKDISK, im->path, args);
	if (system(cmd) != 0) {
		fprintf(stderr, "skipping: mkdisk failed (sfdisk and mkfs.ext4 are needed)\n");
		free(cmd);
		skip();
	}
	free(cmd);
}

/* mkdisk arguments for n partitions of 1 MiB, the last an ext4 root, with fixed PARTUUIDs
 * (deriving them costs mkdisk a process each). */
static char *many_parts_args(const char *options, unsigned n)
{
	size_t size = 256 + (size_t)n * 80;
	char *args = malloc(size);
	size_t at;

	assert_non_null(args);
	at = (size_t)snprintf(args, size, "--id %s %s", DISK_GUID, options);
	for (unsigned i = 1; i < n; i++)
		at += (size_t)snprintf(args + at, size - at, " 'type=linux size=1 uuid=00000a%02x-0000-4000-8000-%012u'",
				       i & 0xff, i);
	snprintf(args + at, size - at, " 'type=root size=4 fs=ext4 name=root uuid=%s'", ROOT_PARTUUID);
	return args;
}

static struct disk *probe_new(struct images *im, const char *path)
{
	struct disk *disk = disk_set_add(&im->set);

	assert_non_null(disk);
	assert_int_equal(probe_disk(path, disk), 0);
	return disk;
}

/* Plans the disk set as earlymount plan would on x86-64; the caller frees it. */
static struct plan *plan_images(struct images *im, int *result)
{
	static struct options opts;
	struct machine machine = { .arch = ARCH_X86_64 };
	struct plan_input in = { .opts = &opts, .disks = &im->set, .machine = &machine };
	struct plan *plan = calloc(1, sizeof(*plan));

	assert_non_null(plan);
	options_init(&opts);
	*result = fx_refusal_checked(plan_build(&in, plan), plan, &im->set);
	/* Whatever the disk: a plan, or a refusal that says why in one line. */
	assert_true(*result == 0 || (*result < 0 && plan->error[0] && !strchr(plan->error, '\n')));
	return plan;
}

/* Probes and plans a disk of n partitions made by sfdisk, the root the last; prints the time. */
static void probe_many(struct images *im, const char *options, unsigned n)
{
	char *args = many_parts_args(options, n);
	const struct disk *disk;
	struct timespec t0;
	struct plan *plan;
	int r;

	mkdisk(im, args);
	free(args);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	disk = probe_new(im, im->path);
	plan = plan_images(im, &r);
	print_message("probe and plan of %u partitions: %.0f ms (ASan build)\n", n,
		      seconds_since(&t0) * 1e3);
	assert_int_equal(disk->n_parts, n);
	assert_int_equal(disk->parts[n - 1].number, n);
	assert_string_equal(disk->parts[n - 1].fstype, "ext4");
	if (r != 0)
		fail_msg("%s", plan->error);
	assert_string_equal(plan->steps[0].source, "PARTUUID=" ROOT_PARTUUID);
	assert_non_null(strstr(plan->steps[0].reason, "partition"));
	/* Bounded, generously for a shared machine: the planner is linear, libblkid probes each
	 * partition once. */
	assert_true(seconds_since(&t0) < 20.0);
	free(plan);
}

static void test_probe_128_partitions(void **state)
{
	probe_many(*state, "", 128);
}

/* sfdisk's table-length: a GPT of 256 entries, 200 of them used. */
static void test_probe_200_of_256_entries(void **state)
{
	probe_many(*state, "--entries 256", 200);
}

/* Copies a small hostile image into $LIMITS_SEED_DIR as a fuzz_probe regression seed. */
static void keep_seed(const char *path, const char *name)
{
	const char *dir = getenv("LIMITS_SEED_DIR");
	struct stat st;
	char cmd[512];

	if (!dir || stat(path, &st) != 0 || st.st_size > SEED_MAX_BYTES)
		return;
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/regression-limits-%s.img'", path, dir, name);
	assert_int_equal(system(cmd), 0);
}

/* A GPT image of sectors sectors and n_entries empty entries, left open for edits. */
static void small_gpt(struct gpt_image *g, const char *path, uint64_t sectors, uint32_t n_entries)
{
	assert_int_equal(gpt_create(path, sectors, n_entries, DISK_GUID), 0);
	assert_int_equal(gpt_open(g, path), 0);
}

/* Just enough of a squashfs superblock for libblkid: the magic and version 4. */
static void put_squashfs(const char *path, uint64_t lba)
{
	uint8_t sb[GPT_SECTOR] = { 'h', 's', 'q', 's' };
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	gpt_put(sb + 28, 4, 2);
	assert_int_equal(pwrite(fd, sb, sizeof(sb), (off_t)(lba * GPT_SECTOR)), sizeof(sb));
	assert_int_equal(close(fd), 0);
}

/* 32 KiB, small enough for a fuzz seed: 4 entries, the first an x86-64 root over LBAs 34-49
 * (squashfs, written by small_root_close()); LBAs 3-61 are usable. Left open for edits. */
#define SMALL_SECTORS 64
#define SMALL_ROOT_LBA 34

static void small_root_open(struct gpt_image *g, const char *path)
{
	small_gpt(g, path, SMALL_SECTORS, 4);
	assert_int_equal(gpt_set_entry(g, 0, T_ROOT_X86_64, ROOT_PARTUUID, SMALL_ROOT_LBA,
				       SMALL_ROOT_LBA + 15, 0), 0);
}

static void small_root_close(struct gpt_image *g, const char *path)
{
	assert_int_equal(gpt_close(g), 0);
	put_squashfs(path, SMALL_ROOT_LBA);
}

/* A partition numbered 300 by its place in a GPT of 1024 entries (the kernel stops at 255),
 * and a GPT whose 300 entries all hold a partition (earlymount keeps the first 256). */
static void test_probe_entries_past_255(void **state)
{
	struct images *im = *state;
	struct gpt_image g;
	struct disk *disk;
	struct plan *plan;
	char uuid[UUID_STR_LEN];
	int r;

	small_gpt(&g, im->path, 2048, 1024);
	assert_int_equal(gpt_set_entry(&g, 299, T_ROOT_X86_64, ROOT_PARTUUID, 1024, 1031, 0), 0);
	assert_int_equal(gpt_close(&g), 0);
	disk = probe_new(im, im->path);
	assert_int_equal(disk->n_parts, 1);
	assert_int_equal(disk->parts[0].number, 300);
	plan = plan_images(im, &r);
	assert_int_equal(r, -EPERM);
	assert_non_null(strstr(plan->error, "partition 300 of"));
	assert_non_null(strstr(plan->error, "numbered outside 1-255"));
	free(plan);
	keep_seed(im->path, "entry-300");

	disk_set_free(&im->set);
	small_gpt(&g, im->path, 512, 300);
	for (uint32_t i = 0; i < 300; i++) {
		snprintf(uuid, sizeof(uuid), "00000b00-0000-4000-8000-%012u", i + 1);
		assert_int_equal(gpt_set_entry(&g, i, i == 0 ? T_ROOT_X86_64 : T_LINUX, uuid, 80 + i, 80 + i, 0), 0);
	}
	assert_int_equal(gpt_close(&g), 0);
	disk = probe_new(im, im->path);
	assert_int_equal(disk->n_parts, 256);
	assert_int_equal(disk->parts[255].number, 256);
	plan = plan_images(im, &r);
	/* The root is there; it holds no filesystem, and the refusal says so. */
	assert_int_equal(r, -EPERM);
	assert_non_null(strstr(plan->error, "root: no filesystem recognised on partition 1 of"));
	free(plan);
}

/* GPT names are UTF-16 that nothing checks: lone surrogates, U+FFFF, no terminator. */
static const uint16_t hostile_names[][GPT_NAME_UNITS] = {
	{ 'r', 0xd800, 'o', 0xdc00, 'o', 0xffff, 't', 0xd83d, 0xde00, 0xdbff },
	{ 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff,
	  0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff,
	  0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xdfff, 0xd800 },
	{ 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9,
	  0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9,
	  0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x00e9, 0x20ac },
	{ 0x0007, '\n', 0x001b, '[', '2', 'J', 0x007f, 0x0085, 0x2028, 0xfeff, 0xfffe },
};

static bool is_utf8(const char *s)
{
	char copy[1024];

	snprintf(copy, sizeof(copy), "%s", s);
	return utf8_sanitize(copy) == 0;
}

/* A JSON value starting at *s (RFC 8259, enough to tell a valid document); advances *s. */
static bool json_value(const char **s);

static void json_space(const char **s)
{
	while (**s == ' ' || **s == '\n' || **s == '\t' || **s == '\r')
		(*s)++;
}

static bool json_string_ok(const char **s)
{
	const unsigned char *p = (const unsigned char *)*s + 1;

	for (; *p && *p != '"'; p++) {
		if (*p < 0x20)
			return false;
		if (*p == '\\' && strchr("\"\\/bfnrtu", *++p) == NULL)
			return false;
	}
	*s = (const char *)p + 1;
	return *p == '"';
}

static bool json_list(const char **s, char close, bool keyed)
{
	(*s)++;
	json_space(s);
	if (**s == close) {
		(*s)++;
		return true;
	}
	for (;;) {
		if (keyed) {
			if (**s != '"' || !json_string_ok(s))
				return false;
			json_space(s);
			if (*(*s)++ != ':')
				return false;
		}
		if (!json_value(s))
			return false;
		if (**s == close) {
			(*s)++;
			return true;
		}
		if (*(*s)++ != ',')
			return false;
		json_space(s);
	}
}

static bool json_value(const char **s)
{
	bool ok;

	json_space(s);
	if (**s == '{')
		ok = json_list(s, '}', true);
	else if (**s == '[')
		ok = json_list(s, ']', false);
	else if (**s == '"')
		ok = json_string_ok(s);
	else if (**s == '-' || (**s >= '0' && **s <= '9'))
		ok = (strtod(*s, (char **)s), true);
	else if (startswith(*s, "true") || startswith(*s, "null") || startswith(*s, "false"))
		ok = (*s += **s == 'f' ? 5 : 4, true);
	else
		ok = false;
	json_space(s);
	return ok;
}

/* Runs `earlymount plan ARGS...` as main() would; returns its exit code, stdout in out. */
static int run_plan(const struct images *im, char **argv, int argc, char *out, size_t size)
{
	char path[160];
	int saved = dup(STDOUT_FILENO), fd, r;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/stdout", im->dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	fflush(stdout);
	assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	r = cmd_plan(argc, argv);
	fflush(stdout);
	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	n = pread(fd, out, size - 1, 0);
	close(fd);
	assert_true(n >= 0);
	out[n] = '\0';
	return r;
}

/* A root named with each hostile name: the label read is UTF-8, and `earlymount plan` prints
 * valid text and valid JSON that show it. */
static void test_hostile_names(void **state)
{
	struct images *im = *state;
	static char out[16384];
	char *text[] = { "plan", "--image", im->path, "--arch", "x86-64", NULL };
	char *json[] = { "plan", "--image", im->path, "--arch", "x86-64", "--json", NULL };

	for (size_t i = 0; i < ARRAY_SIZE(hostile_names); i++) {
		const struct disk *disk;
		struct gpt_image g;
		const char *s = out;
		char name[32];

		small_root_open(&g, im->path);
		gpt_put_name(gpt_entry(&g, 0), hostile_names[i], GPT_NAME_UNITS);
		small_root_close(&g, im->path);
		disk_set_free(&im->set);
		snprintf(name, sizeof(name), "name-%zu", i);
		keep_seed(im->path, name);

		assert_int_equal(run_plan(im, text, 5, out, sizeof(out)), 0);
		assert_true(is_utf8(out));
		assert_non_null(strstr(out, "root: partition 1 (label '"));
		assert_int_equal(run_plan(im, json, 6, out, sizeof(out)), 0);
		assert_true(is_utf8(out));
		if (!json_value(&s) || *s != '\0')
			fail_msg("name %zu: invalid JSON at offset %td:\n%s", i, s - out, out);
		disk = probe_new(im, im->path);
		assert_int_equal(disk->n_parts, 1);
		if (!is_utf8(disk->parts[0].label))
			fail_msg("name %zu: probe_disk kept a label that is not UTF-8 (disk/probe.c must "
				 "utf8_sanitize() it)", i);
	}
}

/* Hostile GPTs: the small root image with a /home whose range, or headers whose claims, are
 * set here. The prober skips what lies outside the disk or reads
 * it as it is; the planner then plans the root, or refuses in one line. */
struct hostile_gpt {
	const char *name;
	uint64_t first, last;           /* the /home's LBAs */
	uint32_t n_entries, entry_size; /* what the headers claim; 0 leaves the field */
	bool both_headers;              /* else only the primary: libblkid reads the backup */
	size_t n_parts;                 /* what probe_disk keeps */
	const char *plan_error;         /* what the refusal says; NULL: the root is planned */
};

static const struct hostile_gpt hostile_gpts[] = {
	{ "sound", 50, 57, 0, 0, false, 2, NULL },
	{ "last-before-first", 50, 49, 0, 0, false, 2, "home: partition 2 of" },
	{ "last-far-before-first", 50, 40, 0, 0, false, 1, NULL },
	{ "past-last-usable", 50, 62, 0, 0, false, 1, NULL },
	{ "first-past-disk", 4096, 4100, 0, 0, false, 1, NULL },
	{ "last-max", 50, UINT64_MAX, 0, 0, false, 1, NULL },
	{ "first-max", UINT64_MAX, 49, 0, 0, false, 1, NULL },
	{ "overlap", 40, 57, 0, 0, false, 2, "root: partitions 1 and 2 of" },
	{ "entries-huge-primary", 50, 57, UINT32_MAX, 0, false, 2, NULL },
	{ "entries-huge", 50, 57, UINT32_MAX, 0, true, 0, "has no partition table, not GPT" },
	{ "entries-2g", 50, 57, 0x80000000u, 0, true, 0, "has no partition table, not GPT" },
	{ "entry-size-huge", 50, 57, 0, UINT32_MAX, true, 0, "has no partition table, not GPT" },
};

static void test_hostile_entries_and_headers(void **state)
{
	struct images *im = *state;

	for (size_t i = 0; i < ARRAY_SIZE(hostile_gpts); i++) {
		const struct hostile_gpt *h = &hostile_gpts[i];
		struct gpt_image g;
		struct disk *disk;
		struct plan *plan;
		int r;

		disk_set_free(&im->set);
		small_root_open(&g, im->path);
		assert_int_equal(gpt_set_entry(&g, 1, T_HOME, "00000a02-0000-4000-8000-000000000000",
					       h->first, h->last, 0), 0);
		for (int copy = 0; copy < (h->both_headers ? 2 : 1); copy++) {
			uint8_t *header = copy ? g.backup : g.primary;

			if (h->n_entries)
				gpt_put(header + GPT_H_N_ENTRIES, h->n_entries, 4);
			if (h->entry_size)
				gpt_put(header + GPT_H_ENTRY_SIZE, h->entry_size, 4);
		}
		small_root_close(&g, im->path);
		disk = probe_new(im, im->path);
		if (disk->n_parts != h->n_parts)
			fail_msg("%s: probe kept %zu partitions, want %zu", h->name, disk->n_parts, h->n_parts);
		for (size_t p = 0; p < disk->n_parts; p++)
			assert_true(part_end(&disk->parts[p]) <= SMALL_SECTORS * GPT_SECTOR);
		plan = plan_images(im, &r);
		if (!h->plan_error && r != 0)
			fail_msg("%s: want a plan, got: %s", h->name, plan->error);
		if (h->plan_error && (r == 0 || !strstr(plan->error, h->plan_error)))
			fail_msg("%s: want a refusal with '%s', got %d: %s", h->name, h->plan_error, r, plan->error);
		free(plan);
		if (i > 0)
			keep_seed(im->path, h->name);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmdline_longest_per_arch),
		cmocka_unit_test(test_cmdline_max_is_the_bound),
		cmocka_unit_test(test_256_partitions),
		cmocka_unit_test(test_duplicate_partuuids_among_256),
		cmocka_unit_test(test_many_roots),
		cmocka_unit_test(test_overlapping_partitions),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_overlap_outside_gpt),
		cmocka_unit_test(test_zero_and_huge_sizes),
		cmocka_unit_test(test_zero_size_roles),
		cmocka_unit_test_setup_teardown(test_probe_128_partitions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_200_of_256_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_entries_past_255, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_entries_and_headers, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
