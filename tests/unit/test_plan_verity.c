/* The planner's dm-verity decisions (core/plan/plan_verity.c): which partitions a root hash
 * names, the steps that set up and mount the device, and the refusals. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plan_fixtures.h"

#define T_USR_VERITY_X86_64 "77ff5f63-e7b6-4633-acf4-1565b864c0e6"
/* The halves of HASH and USRHASH, as the spec derives PARTUUIDs from them. */
#define HASH "6fd5c1a7a7ae4f2b9d0e0f8f3e7b2c1a0aaf6ee3d3d3b8b1c2e2f9a8b7c6d5e4"
#define HASH_DATA "6fd5c1a7-a7ae-4f2b-9d0e-0f8f3e7b2c1a"
#define HASH_TREE "0aaf6ee3-d3d3-b8b1-c2e2-f9a8b7c6d5e4"
#define USRHASH "11112222333344445555666677778888999900001111222233334444aaaabbbb"
#define USRHASH_DATA "11112222-3333-4444-5555-666677778888"
#define USRHASH_TREE "99990000-1111-2222-3333-4444aaaabbbb"

static void dump(const struct fixture *f)
{
	print_message("error: %s\n", f->plan.error);
	for (size_t i = 0; i < f->plan.n_steps; i++)
		print_message("step %s %s -> %s (%s)\n", plan_op_name(f->plan.steps[i].op),
			      f->plan.steps[i].source, f->plan.steps[i].target, f->plan.steps[i].options);
	for (size_t i = 0; i < f->plan.n_notes; i++)
		print_message("note: %s\n", f->plan.notes[i]);
}

static int plan_with(struct fixture *f, const char *line)
{
	assert_int_equal(cmdline_parse(line, &f->opts, NULL, 0), 0);
	return fx_plan(f);
}

/* A line with a malformed value: reported by the parser, kept for the planner to refuse. */
static int plan_with_any(struct fixture *f, const char *line)
{
	(void)cmdline_parse(line, &f->opts, NULL, 0);
	return fx_plan(f);
}

static void want_error(struct fixture *f, int r, int want, const char *text)
{
	if (r != want || !strstr(f->plan.error, text)) {
		dump(f);
		fail_msg("want %d and an error with '%s'; got %d", want, text, r);
	}
}

static void want_note(struct fixture *f, const char *text)
{
	if (!fx_has_note(f, text)) {
		dump(f);
		fail_msg("no note contains '%s'", text);
	}
}

/* A/B roots: the older one is the verified one, the newer has no hash of its own. */
static size_t verity_disk(struct fixture *f)
{
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);

	fx_part(f, d, 1, T_ROOT_X86_64, HASH_DATA, "root-1", 0, "ext4");
	fx_part(f, d, 2, T_ROOT_VERITY_X86_64, HASH_TREE, "root-1-verity", 0, "");
	fx_part(f, d, 3, T_ROOT_X86_64, NULL, "root-2", 0, "ext4");
	fx_part(f, d, 4, T_USR_X86_64, USRHASH_DATA, "usr", 0, "erofs");
	fx_part(f, d, 5, T_USR_VERITY_X86_64, USRHASH_TREE, "usr-verity", 0, "");
	return d;
}

static void test_roothash_picks_the_partitions_it_names(void **state)
{
	struct fixture *f = fx_new();
	const struct plan_step *s;
	int r;

	verity_disk(f);
	r = plan_with(f, "roothash=" HASH);
	if (r != 0)
		dump(f);
	assert_int_equal(r, 0);
	s = &f->plan.steps[0];
	assert_int_equal(s->op, OP_VERITY);
	assert_string_equal(s->source, "PARTUUID=" HASH_DATA);
	assert_string_equal(s->hash_source, "PARTUUID=" HASH_TREE);
	assert_string_equal(s->target, "/dev/mapper/root");
	assert_string_equal(s->root_hash, HASH);
	assert_int_equal(s->part->number, 1);
	assert_int_equal(s->hash_part->number, 2);
	s = &f->plan.steps[1];
	assert_int_equal(s->op, OP_MOUNT);
	assert_string_equal(s->source, "/dev/mapper/root");
	assert_string_equal(s->target, SYSROOT);
	assert_string_equal(s->fstype, "ext4");
	assert_null(s->part); /* mounted through the device, never the partition itself */
	assert_non_null(strstr(s->options, "ro"));
	assert_non_null(strstr(s->options, "norecovery"));
	/* /usr is not verified without usrhash=: said so */
	want_note(f, "partition 5 (usr-verity) not used: no usrhash=");
	fx_free(f);
	(void)state;
}

static void test_usrhash_with_a_tmpfs_root(void **state)
{
	struct fixture *f = fx_new();
	int r;

	verity_disk(f);
	r = plan_with(f, "root=tmpfs usrhash=" USRHASH " systemd.verity_usr_options=ignore-zero-blocks");
	if (r != 0)
		dump(f);
	assert_int_equal(r, 0);
	assert_int_equal(f->plan.steps[0].op, OP_TMPFS);
	assert_int_equal(f->plan.steps[1].op, OP_VERITY);
	assert_string_equal(f->plan.steps[1].target, "/dev/mapper/usr");
	assert_string_equal(f->plan.steps[1].options, "ignore-zero-blocks");
	assert_string_equal(f->plan.steps[2].source, "/dev/mapper/usr");
	assert_string_equal(f->plan.steps[2].target, SYSROOT "/usr");
	assert_string_equal(f->plan.steps[2].fstype, "erofs");
	fx_free(f);
	(void)state;
}

static void test_hash_of_another_image(void **state)
{
	struct fixture *f = fx_new();

	verity_disk(f);
	want_error(f, plan_with(f, "roothash=abababababababababababababababababababababababababababababababab"),
		   -ENOENT,
		   "roothash= names no partition of /dev/vda");
	fx_free(f);
	(void)state;
}

static void test_missing_hash_partition(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);

	fx_part(f, d, 1, T_ROOT_X86_64, HASH_DATA, "root", 0, "ext4");
	want_error(f, plan_with(f, "roothash=" HASH), -ENOENT,
		   "names no root-verity partition of /dev/vda: none has PARTUUID " HASH_TREE);
	fx_free(f);
	(void)state;
}

/* The hash's halves on partitions of the wrong types: usr data under roothash=. */
static void test_wrong_types(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);

	fx_part(f, d, 1, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	fx_part(f, d, 2, T_USR_X86_64, HASH_DATA, "usr", 0, "ext4");
	fx_part(f, d, 3, T_ROOT_VERITY_X86_64, HASH_TREE, "v", 0, "");
	want_error(f, plan_with(f, "roothash=" HASH), -EPERM,
		   "names partition 2 of /dev/vda, but it is of type");
	fx_free(f);
	(void)state;
}

static void test_named_devices(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);
	int r;

	fx_part(f, d, 1, T_LINUX, NULL, "data", 0, "squashfs");
	fx_part(f, d, 2, T_LINUX, NULL, "hashes", 0, "");
	r = plan_with(f, "root=/dev/mapper/root roothash=" HASH " systemd.verity_root_data=PARTLABEL=data "
		      "systemd.verity_root_hash=PARTLABEL=hashes "
		      "systemd.verity_root_options=restart-on-corruption,fec-roots=2");
	if (r != 0)
		dump(f);
	assert_int_equal(r, 0);
	assert_string_equal(f->plan.steps[0].source, "PARTLABEL=data");
	assert_string_equal(f->plan.steps[0].hash_source, "PARTLABEL=hashes");
	assert_string_equal(f->plan.steps[0].options, "restart-on-corruption");
	assert_string_equal(f->plan.steps[1].source, "/dev/mapper/root");
	assert_string_equal(f->plan.steps[1].fstype, "squashfs");
	want_note(f, "left out what earlymount does not know: fec-roots=2");
	fx_free(f);
	(void)state;
}

static void test_contradictions(void **state)
{
	static const struct {
		const char *line;
		const char *error;
	} bad[] = {
		{ "root=/dev/vda3 roothash=" HASH, "names another device: give root=/dev/mapper/root" },
		{ "root=/dev/mapper/root", "root=/dev/mapper/root needs roothash=" },
		{ "mount.usr=/dev/mapper/usr", "needs usrhash=" },
		{ "mount.usr=/dev/vda4 usrhash=" USRHASH, "give mount.usr=/dev/mapper/usr" },
		{ "root=tmpfs roothash=" HASH, "nothing to verify" },
		{ "roothash=6fd5c1a7", "is not a root hash" },
		{ "usrhash=zz", "refusing to boot usr unverified" },
		{ "roothash=" HASH " systemd.verity_root_data=vda1", "matches no partition" },
		{ "roothash=" HASH " systemd.verity_root_options=panic-on-corruption,ignore-corruption",
		  "two corruption modes" },
		{ "roothash=" HASH " systemd.verity_root_options=hash-offset=x", "hash-offset=x" },
		{ "root=/dev/mapper/root roothash=" HASH " systemd.verity_root_data=PARTLABEL=root-2 "
		  "systemd.verity_root_hash=PARTLABEL=root-2", "cannot hold both" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fixture *f = fx_new();
		int r;

		verity_disk(f);
		r = plan_with_any(f, bad[i].line);
		if (r >= 0 || !strstr(f->plan.error, bad[i].error)) {
			dump(f);
			fail_msg("'%s': want an error with '%s', got %d", bad[i].line, bad[i].error, r);
		}
		fx_free(f);
	}
	(void)state;
}

/* systemd.verity=no: what systemd does, the partitions mounted as if no hash were given. */
static void test_verity_off(void **state)
{
	struct fixture *f = fx_new();
	int r;

	verity_disk(f);
	r = plan_with(f, "roothash=" HASH " systemd.verity=no");
	assert_int_equal(r, 0);
	want_note(f, "systemd.verity=no: roothash= ignored, mounted unverified");
	assert_int_equal(f->plan.steps[0].op, OP_MOUNT);
	assert_string_equal(f->plan.steps[0].source, "PARTUUID=00000001-0000-4000-8000-000000000003");
	fx_free(f);
	(void)state;
}

static void test_clone_refused(void **state)
{
	struct fixture *f = fx_new();
	size_t d;

	verity_disk(f);
	d = fx_disk(f, "/dev/vdb", "gpt", "", false);
	fx_part(f, d, 1, T_LINUX, HASH_DATA, "clone", 0, "ext4");
	want_error(f, plan_with(f, "root=/dev/mapper/root roothash=" HASH), -ENOTUNIQ,
		   "several partitions carry");
	fx_free(f);
	(void)state;
}

static void test_rw_stays_read_only(void **state)
{
	struct fixture *f = fx_new();

	verity_disk(f);
	assert_int_equal(plan_with(f, "roothash=" HASH " usrhash=" USRHASH " rw mount.usrflags=rw"), 0);
	want_note(f, "root mounted read-only although rw was given: a dm-verity device");
	want_note(f, "usr mounted read-only although rw was given: a dm-verity device");
	assert_int_equal(f->plan.steps[2].op, OP_VERITY);
	assert_non_null(strstr(f->plan.steps[3].options, "ro"));
	fx_free(f);
	(void)state;
}

#define T_ROOT_VERITY_SIG_X86_64 "41092b05-9fc8-4523-994f-2def0408b176"
/* A hash whose halves name root-2 (partition 3) and a hash partition 7. */

/* The discovered root's hash, signed on the disk: verified with it, the signature named. */
static void test_signed_hash_on_the_disk(void **state)
{
	struct fixture *f = fx_new();
	size_t d = verity_disk(f);
	struct part *sig;
	int r;

	fx_part(f, d, 7, T_ROOT_VERITY_X86_64, "abcdef00-1234-4000-8000-0000000000c7", "v2", 0, "");
	sig = fx_part(f, d, 8, T_ROOT_VERITY_SIG_X86_64, NULL, "sig2", 0, "");
	strcpy(sig->verity_sig_hash, "0000000100004000800000000000000" "3abcdef001234400080000000000000c7");
	r = plan_with(f, "systemd.verity_root_options=check-at-most-once");
	if (r != 0)
		dump(f);
	assert_int_equal(r, 0);
	assert_int_equal(f->plan.steps[0].op, OP_VERITY);
	assert_int_equal(f->plan.steps[0].part->number, 3);
	assert_int_equal(f->plan.steps[0].hash_part->number, 7);
	assert_ptr_equal(f->plan.steps[0].sig_part, sig);
	assert_string_equal(f->plan.steps[0].sig_source, "PARTUUID=00000001-0000-4000-8000-000000000008");
	assert_string_equal(f->plan.steps[0].options, "check-at-most-once");
	/* the hash came from the disk: the A/B fallback may still pass it over */
	assert_true(f->plan.root_discovered);
	want_note(f, "the hash signed on the disk");
	want_note(f, "partition 2 (root-verity) not used: root is verified with partition 7");
	fx_free(f);
	(void)state;
}

/* root= names the signed data partition itself: no verity from the signature (systemd's
 * gpt-auto does not run then either), and the note says so truly; and a refusal about a hash
 * that came from the signature partition names that partition, not roothash=. */
static void test_signature_words(void **state)
{
	struct fixture *f = fx_new();
	size_t d = verity_disk(f);
	struct part *sig;

	fx_part(f, d, 7, T_ROOT_VERITY_X86_64, "abcdef00-1234-4000-8000-0000000000c7", "v2", 0, "");
	sig = fx_part(f, d, 8, T_ROOT_VERITY_SIG_X86_64, NULL, "sig2", 0, "");
	strcpy(sig->verity_sig_hash, "0000000100004000800000000000000" "3abcdef001234400080000000000000c7");
	assert_int_equal(plan_with(f, "root=PARTUUID=00000001-0000-4000-8000-000000000003"), 0);
	want_note(f, "partition 8 (root-verity-sig) not used: it signs partition 3, which root= names "
		     "itself; a signature is used when discovery picks the root (or give roothash=)");
	fx_free(f);

	/* the signed hash names a hash partition that is not there */
	f = fx_new();
	d = verity_disk(f);
	sig = fx_part(f, d, 8, T_ROOT_VERITY_SIG_X86_64, NULL, "sig2", 0, "");
	strcpy(sig->verity_sig_hash, "0000000100004000800000000000000" "3abcdef001234400080000000000000c7");
	want_error(f, plan_with(f, ""), -ENOENT, "the hash signed on partition 8 of /dev/vda names no "
		   "root-verity partition of");
	fx_free(f);
	(void)state;
}

/* A disk that signs its versions: the newest, unsigned, is passed over for the signed one
 * (anyone who can write the disk could add an unsigned "root-99"). */
static void test_unsigned_version_on_a_signed_disk(void **state)
{
	static const char *const lines[] = { "", "systemd.verity=no" };

	for (size_t i = 0; i < 2; i++) {
		struct fixture *f = fx_new();
		size_t d = verity_disk(f);
		struct part *sig = fx_part(f, d, 6, T_ROOT_VERITY_SIG_X86_64, NULL, "sig", 0, "");
		int r;

		strcpy(sig->verity_sig_hash, HASH); /* names root-1, not the newest */
		r = plan_with(f, lines[i]);
		if (r != 0)
			dump(f);
		assert_int_equal(r, 0);
		if (i == 0) {
			assert_int_equal(f->plan.steps[0].op, OP_VERITY);
			assert_int_equal(f->plan.steps[0].part->number, 1);
			want_note(f, "partition 3 (root, label 'root-2') passed over: the disk signs its "
				     "versions and this one has no signature");
		} else { /* systemd.verity=no: the newest again, unverified */
			assert_int_equal(f->plan.steps[0].op, OP_MOUNT);
			assert_ptr_equal(f->plan.steps[0].part, fx_get(f, d, 3));
		}
		fx_free(f);
	}
	(void)state;
}

/* A signature partition that cannot be read might be the root's: refused, not guessed. */
static void test_unusable_signature_refused(void **state)
{
	struct fixture *f = fx_new();
	size_t d = verity_disk(f);
	struct part *sig = fx_part(f, d, 6, T_ROOT_VERITY_SIG_X86_64, NULL, "sig", 0, "");

	strcpy(sig->verity_sig_error, "no signature (at byte 80)");
	want_error(f, plan_with(f, ""), -EPERM,
		   "partition 6 of /dev/vda (root-verity-sig) is unusable: no signature (at byte 80) — the "
		   "root, partition 3 of /dev/vda, cannot be verified");
	fx_free(f);
	f = fx_new();
	d = verity_disk(f);
	sig = fx_part(f, d, 6, T_ROOT_VERITY_SIG_X86_64, NULL, "sig", 0, "");
	strcpy(sig->verity_sig_error, "no signature (at byte 80)");
	assert_int_equal(plan_with(f, "systemd.verity=0"), 0);
	want_note(f, "partition 6 (root-verity-sig) unusable: no signature");
	fx_free(f);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roothash_picks_the_partitions_it_names),
		cmocka_unit_test(test_usrhash_with_a_tmpfs_root),
		cmocka_unit_test(test_hash_of_another_image),
		cmocka_unit_test(test_missing_hash_partition),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_named_devices),
		cmocka_unit_test(test_contradictions),
		cmocka_unit_test(test_verity_off),
		cmocka_unit_test(test_clone_refused),
		cmocka_unit_test(test_rw_stays_read_only),
		cmocka_unit_test(test_signed_hash_on_the_disk),
		cmocka_unit_test(test_signature_words),
		cmocka_unit_test(test_unsigned_version_on_a_signed_disk),
		cmocka_unit_test(test_unusable_signature_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
