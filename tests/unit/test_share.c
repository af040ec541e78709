/* init/mounts/share.c on a fake sysfs: which tags are there, when a share counts as present, and
 * what the messages say (9p's mount_tag; virtiofs with and without /sys/fs/virtiofs). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fileio.h"
#include "share.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256], dir[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	memcpy(dir, path, sizeof(dir));
	*strrchr(dir, '/') = '\0';
	assert_int_equal(make_directories(dir, 0755), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/test-share.XXXXXX");
	assert_non_null(mkdtemp(root));
	(void)state;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	(void)state;
	return system(cmd);
}

static void test_modules(void **state)
{
	assert_string_equal(share_modules("9p")[0], "9pnet_virtio");
	assert_string_equal(share_modules("virtiofs")[0], "virtiofs");
	assert_null(share_modules("ext4"));
	(void)state;
}

static void test_9p_tags(void **state)
{
	char msg[256];

	share_describe(root, "9p", msg, sizeof(msg));
	assert_non_null(strstr(msg, "no 9p share at all"));
	assert_false(share_present(root, "9p", "host"));
	/* the kernel's mount_tag ends in a NUL, no newline */
	put("bus/virtio/drivers/9pnet_virtio/virtio1/mount_tag", "host");
	put("bus/virtio/drivers/9pnet_virtio/virtio2/mount_tag", "data\n");
	put("bus/virtio/drivers/9pnet_virtio/bind", "");
	assert_true(share_present(root, "9p", "host"));
	assert_true(share_present(root, "9p", "data"));
	assert_false(share_present(root, "9p", "hos"));
	share_describe(root, "9p", msg, sizeof(msg));
	assert_non_null(strstr(msg, "the 9p shares there are tagged "));
	assert_non_null(strstr(msg, "'host'"));
	assert_non_null(strstr(msg, "'data'"));
	(void)state;
}

static void test_virtiofs_without_tags(void **state)
{
	char msg[256];

	assert_false(share_present(root, "virtiofs", "root"));
	put("bus/virtio/drivers/virtiofs/virtio0/driver_override", "");
	/* Linux 6.1: no /sys/fs/virtiofs, any bound device counts; the mount reads the tag */
	assert_true(share_present(root, "virtiofs", "anything"));
	share_describe(root, "virtiofs", msg, sizeof(msg));
	assert_non_null(strstr(msg, "1 virtiofs device, whose tag this kernel does not show"));
	(void)state;
}

static void test_virtiofs_with_tags(void **state)
{
	char msg[256];

	put("bus/virtio/drivers/virtiofs/virtio0/driver_override", "");
	put("fs/virtiofs/0/tag", "root\n");
	assert_true(share_present(root, "virtiofs", "root"));
	assert_false(share_present(root, "virtiofs", "other"));
	share_describe(root, "virtiofs", msg, sizeof(msg));
	assert_non_null(strstr(msg, "tagged 'root'"));
	assert_false(share_present(root, "ext4", "root"));
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modules),
		cmocka_unit_test_setup_teardown(test_9p_tags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_virtiofs_without_tags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_virtiofs_with_tags, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
