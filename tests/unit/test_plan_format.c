/* The plan printers: exact, stable JSON with every string escaped, and aligned text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plan_format.h"
#include "util.h"

struct captured {
	char *text;
	size_t len;
};

static void capture(const struct plan *plan, void (*format)(const struct plan *, FILE *), struct captured *c)
{
	FILE *out = open_memstream(&c->text, &c->len);

	assert_non_null(out);
	format(plan, out);
	assert_int_equal(fclose(out), 0);
}

static struct plan_step *add_step(struct plan *plan, enum plan_op op, const char *source, const char *target,
				  const char *fstype, const char *options, const char *reason)
{
	struct plan_step *s = &plan->steps[plan->n_steps++];

	s->op = op;
	COPY_STR(s->source, source);
	COPY_STR(s->target, target);
	COPY_STR(s->fstype, fstype);
	COPY_STR(s->options, options);
	COPY_STR(s->reason, reason);
	return s;
}

static struct plan *sample_plan(struct disk *disk)
{
	struct plan *plan = calloc(1, sizeof(*plan));

	assert_non_null(plan);
	COPY_STR(disk->path, "full.raw");
	COPY_STR(disk->pttype, "gpt");
	COPY_STR(disk->ptuuid, "0e6d1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b");
	plan->disk = disk;
	add_step(plan, OP_MOUNT, "PARTUUID=aaaaaaaa-1111-4111-8111-111111111111", SYSROOT, "ext4", "ro,nodev",
		 "root: the only x86-64 root partition");
	add_step(plan, OP_MKDIR, "", SYSROOT "/efi", "", "", "mount point of the ESP")->mode = 0755;
	add_step(plan, OP_TMPFS, "tmpfs", SYSROOT "/var", "tmpfs", "mode=0755", "systemd.volatile=state");
	COPY_STR(plan->notes[plan->n_notes++], "no machine ID: /var partitions are not used");
	return plan;
}

static void test_json_exact(void **state)
{
	struct disk disk = { 0 };
	struct plan *plan = sample_plan(&disk);
	struct captured c;

	capture(plan, plan_format_json, &c);
	assert_string_equal(c.text,
			    "{\n"
			    "  \"disk\": \"full.raw\",\n"
			    "  \"steps\": [\n"
			    "    {\"op\": \"mount\", \"source\": \"PARTUUID=aaaaaaaa-1111-4111-8111-111111111111\", "
			    "\"target\": \"/sysroot\", \"fstype\": \"ext4\", \"options\": \"ro,nodev\", "
			    "\"reason\": \"root: the only x86-64 root partition\"},\n"
			    "    {\"op\": \"mkdir\", \"source\": \"\", \"target\": \"/sysroot/efi\", \"fstype\": \"\", "
			    "\"options\": \"\", \"mode\": \"0755\", \"reason\": \"mount point of the ESP\"},\n"
			    "    {\"op\": \"tmpfs\", \"source\": \"tmpfs\", \"target\": \"/sysroot/var\", "
			    "\"fstype\": \"tmpfs\", \"options\": \"mode=0755\", \"reason\": \"systemd.volatile=state\"}\n"
			    "  ],\n"
			    "  \"init\": \"\",\n"
			    "  \"needs\": [{\"kind\": \"module\", \"name\": \"ext4\"}],\n"
			    "  \"notes\": [\n"
			    "    \"no machine ID: /var partitions are not used\"\n"
			    "  ]\n"
			    "}\n");
	free(c.text);
	free(plan);
}

static void test_json_stable(void **state)
{
	struct disk disk = { 0 };
	struct plan *plan = sample_plan(&disk);
	struct captured a, b;

	capture(plan, plan_format_json, &a);
	capture(plan, plan_format_json, &b);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.text, b.text, a.len);
	free(a.text);
	free(b.text);
	free(plan);
}

static void test_json_empty(void **state)
{
	struct plan *plan = calloc(1, sizeof(*plan));
	struct captured c;

	assert_non_null(plan);
	COPY_STR(plan->init, "/usr/lib/systemd/systemd");
	capture(plan, plan_format_json, &c);
	assert_string_equal(c.text, "{\n  \"disk\": null,\n  \"steps\": [],\n"
				    "  \"init\": \"/usr/lib/systemd/systemd\",\n  \"needs\": [],\n"
				    "  \"notes\": []\n}\n");
	free(c.text);
	free(plan);
}

/* What the initramfs needs, from the steps: each once, programs with the builder's option. */
static void test_text_needs(void **state)
{
	struct plan *plan = calloc(1, sizeof(*plan));
	struct captured c;

	assert_non_null(plan);
	add_step(plan, OP_UNLOCK, "UUID=x", "/dev/mapper/crypt", "", "", "");
	add_step(plan, OP_ACTIVATE, "/dev/mapper/crypt", "/dev/mapper/vg0-root", "", "", "");
	add_step(plan, OP_ACTIVATE, "/dev/mapper/crypt", "/dev/mapper/vg0-usr", "", "", "");
	add_step(plan, OP_FSCK, "/dev/mapper/vg0-root", SYSROOT, "ext3", "-a", "");
	add_step(plan, OP_MOUNT, "/dev/mapper/vg0-root", SYSROOT, "ext3", "rw", "");
	add_step(plan, OP_MOUNT, "/dev/mapper/vg0-usr", SYSROOT "/usr", "", "ro", "");
	add_step(plan, OP_TMPFS, "tmpfs", SYSROOT "/tmp", "tmpfs", "", "");
	capture(plan, plan_format_text, &c);
	assert_non_null(strstr(c.text, "\nneeds: earlymount-luks (--luks), lvm (--lvm); modules "
				       "dm_crypt, dm_mod, ext4; checkers fsck.ext3\n"));
	free(c.text);
	capture(plan, plan_format_json, &c);
	assert_non_null(strstr(c.text, "\"needs\": [{\"kind\": \"program\", \"name\": "
				       "\"earlymount-luks\", \"option\": \"--luks\"}, "));
	free(c.text);
	free(plan);
	(void)state;
}

/* Labels reach the output through reasons and notes, and a label may hold anything. */
static void test_json_escaping(void **state)
{
	struct plan *plan = calloc(1, sizeof(*plan));
	struct captured c;

	assert_non_null(plan);
	add_step(plan, OP_MOUNT, "PARTLABEL=a\"b\\c", "/sysroot", "ext4", "", "tab\there\nnl \x01\x1f\x7f end");
	COPY_STR(plan->notes[plan->n_notes++], "\xc3\xa4 \xe2\x82\xac \xf0\x9f\x90\xa7 ok");
	COPY_STR(plan->notes[plan->n_notes++], "bad \xff \xc0\xaf \xed\xa0\x80 \xe2\x82");
	capture(plan, plan_format_json, &c);
	assert_non_null(strstr(c.text, "\"source\": \"PARTLABEL=a\\\"b\\\\c\""));
	assert_non_null(strstr(c.text, "\"reason\": \"tab\\u0009here\\u000anl \\u0001\\u001f\\u007f end\""));
	assert_non_null(strstr(c.text, "\"\xc3\xa4 \xe2\x82\xac \xf0\x9f\x90\xa7 ok\""));
	/* invalid, overlong, surrogate, truncated: each bad byte becomes U+FFFD */
	assert_non_null(strstr(c.text, "\"bad \\ufffd \\ufffd\\ufffd \\ufffd\\ufffd\\ufffd \\ufffd\\ufffd\""));
	for (size_t i = 0; i < c.len; i++)
		assert_true((unsigned char)c.text[i] >= 0x20 || c.text[i] == '\n');
	free(c.text);
	free(plan);
}

/* A field filled to the last byte without a terminator must not be read past. */
static void test_json_unterminated(void **state)
{
	struct plan *plan = calloc(1, sizeof(*plan));
	struct captured c;

	assert_non_null(plan);
	add_step(plan, OP_MOUNT, "", "", "", "", "");
	memset(plan->steps[0].fstype, 'x', sizeof(plan->steps[0].fstype));
	memset(plan->init, 'y', sizeof(plan->init));
	capture(plan, plan_format_json, &c);
	assert_non_null(strstr(c.text, "\"fstype\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\","));
	free(c.text);
	free(plan);
}

static const char *line_containing(const char *text, const char *needle)
{
	const char *hit = strstr(text, needle);

	assert_non_null(hit);
	while (hit > text && hit[-1] != '\n')
		hit--;
	return hit;
}

static void test_text(void **state)
{
	struct disk disk = { 0 };
	struct plan *plan = sample_plan(&disk);
	struct captured c;
	const char *mount, *tmpfs, *reason;

	COPY_STR(plan->notes[plan->n_notes++], "label \"x\ny\" seen");
	capture(plan, plan_format_text, &c);
	assert_non_null(strstr(c.text, "disk: full.raw (gpt 0e6d1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b)\n"));
	mount = line_containing(c.text, "PARTUUID=aaaaaaaa");
	tmpfs = line_containing(c.text, "/sysroot/var");
	/* columns line up: the target starts at the same offset on both lines */
	assert_int_equal(strstr(mount, "/sysroot") - mount, strstr(tmpfs, "/sysroot/var") - tmpfs);
	assert_non_null(strstr(c.text, "mode=0755\n"));
	reason = line_containing(c.text, "root: the only");
	assert_int_equal(strstr(reason, "root:") - reason, strstr(mount, "PARTUUID") - mount);
	assert_non_null(strstr(c.text, "\ninit: /sbin/init (fallbacks "));
	assert_non_null(strstr(c.text, "  - label \"x\\x0ay\" seen\n"));
	free(c.text);
	free(plan);
}

static void test_text_init_given(void **state)
{
	struct plan *plan = calloc(1, sizeof(*plan));
	struct captured c;

	assert_non_null(plan);
	COPY_STR(plan->init, "/usr/lib/systemd/systemd");
	capture(plan, plan_format_text, &c);
	assert_string_equal(c.text, "disk: none discovered\nsteps:\ninit: /usr/lib/systemd/systemd\n");
	free(c.text);
	free(plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_exact),
		cmocka_unit_test(test_json_stable),
		cmocka_unit_test(test_json_empty),
		cmocka_unit_test(test_json_escaping),
		cmocka_unit_test(test_text_needs),
		cmocka_unit_test(test_json_unterminated),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_text_init_given),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
