/* The root's fstab as the initramfs reads it: which entries, and what of each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fstab.h"

static void parse(const char *text, struct fstab *f)
{
	fstab_parse_initrd(text, strlen(text), f);
}

static void test_usr_and_initrd_entries_only(void **state)
{
	static struct fstab f;
	const struct fstab_entry *e;

	parse("# /etc/fstab: static file system information.\n"
	      "UUID=1111 / ext4 errors=remount-ro 0 1\n"
	      "  \t\n"
	      "UUID=2222 /usr ext4 defaults,nofail,x-systemd.device-timeout=5 0 2\n"
	      "/dev/mapper/vg0-var /var ext4 defaults 0 2\n"
	      "LABEL=data /srv/data xfs noatime,x-initrd.mount\n"
	      "LABEL=later /srv/later xfs x-initrd.mount,noauto 0 0\n"
	      "UUID=3333 none swap sw 0 0\n"
	      "tmpfs /tmp tmpfs defaults 0 0\n",
	      &f);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.bad_line, 0);
	e = fstab_find(&f, "/usr");
	assert_non_null(e);
	assert_string_equal(e->what, "UUID=2222");
	assert_string_equal(e->type, "ext4");
	assert_string_equal(e->options, "");
	assert_int_equal(e->rw, -1);
	assert_true(e->nofail);
	assert_int_equal(e->passno, 2);
	assert_int_equal(e->line, 4);
	e = fstab_find(&f, "/srv/data");
	assert_non_null(e);
	assert_string_equal(e->options, "noatime");
	assert_int_equal(e->passno, 0);
	assert_null(fstab_find(&f, "/var"));
	assert_null(fstab_find(&f, "/srv/later"));
	(void)state;
}

/* \040 in fields, /dev/disk/by-* links (with udev's \x escapes) as the specs they stand for,
 * trailing slashes, auto as no type, ro and rw apart from the kernel's options */
static void test_escapes_links_and_words(void **state)
{
	static struct fstab f;
	const struct fstab_entry *e;

	parse("/dev/disk/by-label/my\\x20usr /usr/ auto ro,noatime,comment=x,_netdev 0 1\n"
	      "/dev/disk/by-partuuid/abcd /mnt/a\\040b ext4 rw,x-initrd.mount,discard\n"
	      "/dev/disk/by-uuid/ /mnt/c ext4 x-initrd.mount\n",
	      &f);
	assert_int_equal(f.n, 3);
	e = fstab_find(&f, "/usr");
	assert_non_null(e);
	assert_string_equal(e->what, "LABEL=my usr");
	assert_string_equal(e->type, "");
	assert_string_equal(e->options, "noatime");
	assert_int_equal(e->rw, 0);
	assert_true(e->network);
	e = fstab_find(&f, "/mnt/a b");
	assert_non_null(e);
	assert_string_equal(e->what, "PARTUUID=abcd");
	assert_int_equal(e->rw, 1);
	assert_string_equal(e->options, "");
	assert_string_equal(fstab_find(&f, "/mnt/c")->what, "/dev/disk/by-uuid/");
	(void)state;
}

static void test_bad_lines_are_named(void **state)
{
	static struct fstab f;
	char big[2048];

	parse("onlyonefield\nUUID=1 /usr ext4 defaults 0 x\nnfs:/x relative ext4 x-initrd.mount\n", &f);
	assert_int_equal(f.bad_line, 1);
	assert_non_null(strstr(f.bad_why, "fewer than two fields"));
	assert_int_equal(f.n, 1);
	assert_int_equal(f.entries[0].passno, 0);
	/* a network type is marked so */
	parse("server:/usr /usr nfs defaults 0 0\n", &f);
	assert_true(f.entries[0].network);
	/* a line too long for the reader is skipped whole, the next one read */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	parse(big, &f);
	assert_int_equal(f.n, 0);
	assert_int_equal(f.bad_line, 1);
	/* no NUL needed, and no end of line */
	fstab_parse_initrd("UUID=9 /usr ext4 ro", 19, &f);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.entries[0].rw, 0);
	(void)state;
}

static void test_too_many_entries_are_counted(void **state)
{
	static struct fstab f;
	char text[4096] = "";

	for (int i = 0; i < FSTAB_MAX_ENTRIES + 3; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "LABEL=l%d /m/%d ext4 x-initrd.mount\n", i, i);
	parse(text, &f);
	assert_int_equal(f.n, FSTAB_MAX_ENTRIES);
	assert_int_equal(f.dropped, 3);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usr_and_initrd_entries_only),
		cmocka_unit_test(test_escapes_links_and_words),
		cmocka_unit_test(test_bad_lines_are_named),
		cmocka_unit_test(test_too_many_entries_are_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
