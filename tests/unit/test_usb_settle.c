/* usb_settle: when USB storage counts as settled, step by step, from snapshots as sysfs and
 * the hubs would show them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "usb_settle.h"

/* A root hub with its driver, and one mass-storage interface scanned, its disk probed. */
static struct usb_snapshot attached_disk(void)
{
	struct usb_snapshot s = { .n_hubs = 1, .n_storage = 1 };

	strcpy(s.hubs[0].name, "usb2");
	s.hubs[0].bound = true;
	strcpy(s.storage[0].name, "2-1:1.0");
	s.storage[0].bound = true;
	s.storage[0].scsi_devices = 1;
	return s;
}

static enum usb_pending check(const struct usb_snapshot *s, const char *want_what)
{
	const char *what;
	enum usb_pending p = usb_settle_check(s, &what);

	if (want_what)
		assert_string_equal(what, want_what);
	else
		assert_null(what);
	return p;
}

static void test_no_usb_is_settled(void **state)
{
	struct usb_snapshot s = { 0 };

	assert_int_equal(check(&s, NULL), USB_SETTLED);
}

static void test_attached_disk_is_settled(void **state)
{
	struct usb_snapshot s = attached_disk();

	assert_int_equal(check(&s, NULL), USB_SETTLED);
}

/* A root hub with empty ports (no device reports a connection): nothing to wait for. */
static void test_empty_hub_is_settled(void **state)
{
	struct usb_snapshot s = { .n_hubs = 2 };

	strcpy(s.hubs[0].name, "usb1");
	strcpy(s.hubs[1].name, "usb2");
	s.hubs[0].bound = s.hubs[1].bound = true;
	assert_int_equal(check(&s, NULL), USB_SETTLED);
}

/* Each step of a USB disk's arrival keeps discovery waiting, and names where. */
static void test_each_step_waits(void **state)
{
	struct usb_snapshot s = attached_disk();

	s.hubs[0].bound = false;
	assert_int_equal(check(&s, "usb2"), USB_PENDING_HUB_DRIVER);
	s = attached_disk();
	s.hubs[0].connected_unenumerated = 1;
	s.hubs[0].first_port = 1;
	assert_int_equal(check(&s, "usb2"), USB_PENDING_ENUMERATION);
	s = attached_disk();
	s.storage[0].bound = false;
	assert_int_equal(check(&s, "2-1:1.0"), USB_PENDING_STORAGE_DRIVER);
	s = attached_disk();
	s.storage[0].scsi_devices = 0;
	assert_int_equal(check(&s, "2-1:1.0"), USB_PENDING_SCAN);
	s = attached_disk();
	s.storage[0].disks_unattached = 1;
	assert_int_equal(check(&s, "2-1:1.0"), USB_PENDING_DISK);
	s = attached_disk();
	s.storage[0].disks_unprobed = 1;
	assert_int_equal(check(&s, "2-1:1.0"), USB_PENDING_DISK);
}

/* A hub whose ports cannot be read may hide a disk: not settled, and the reason given. */
static void test_unreadable_hub_waits(void **state)
{
	struct usb_snapshot s = attached_disk();
	char why[256];
	const char *what;

	s.hubs[0].status_unknown = true;
	s.hubs[0].status_errno = 13; /* EACCES */
	assert_int_equal(usb_settle_check(&s, &what), USB_PENDING_PORT_STATUS);
	usb_settle_describe(&s, USB_PENDING_PORT_STATUS, what, why, sizeof(why));
	assert_non_null(strstr(why, "usb2"));
	assert_non_null(strstr(why, "Permission denied"));
}

/* The hubs come first: an unenumerated device is named before a second interface's scan. */
static void test_first_step_first(void **state)
{
	struct usb_snapshot s = attached_disk();

	s.storage[0].scsi_devices = 0;
	s.hubs[0].connected_unenumerated = 2;
	s.hubs[0].first_port = 3;
	assert_int_equal(check(&s, "usb2"), USB_PENDING_ENUMERATION);
}

static void test_overflow_never_settles(void **state)
{
	struct usb_snapshot s = attached_disk();
	char why[256];

	s.overflow = true;
	assert_int_equal(check(&s, NULL), USB_PENDING_OVERFLOW);
	usb_settle_describe(&s, USB_PENDING_OVERFLOW, NULL, why, sizeof(why));
	assert_non_null(strstr(why, "cannot tell"));
}

static void test_describe_names_port_and_delay(void **state)
{
	struct usb_snapshot s = attached_disk();
	char why[256];

	s.hubs[0].connected_unenumerated = 1;
	s.hubs[0].first_port = 4;
	usb_settle_describe(&s, USB_PENDING_ENUMERATION, "usb2", why, sizeof(why));
	assert_non_null(strstr(why, "USB hub usb2 reports a device on port 4"));
	usb_settle_describe(&s, USB_PENDING_SCAN, "2-1:1.0", why, sizeof(why));
	assert_non_null(strstr(why, "2-1:1.0"));
	assert_non_null(strstr(why, "usb-storage.delay_use="));
	/* a short buffer is cut, never overrun */
	usb_settle_describe(&s, USB_PENDING_SCAN, "2-1:1.0", why, 8);
	assert_int_equal(strlen(why), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_usb_is_settled),
		cmocka_unit_test(test_attached_disk_is_settled),
		cmocka_unit_test(test_empty_hub_is_settled),
		cmocka_unit_test(test_each_step_waits),
		cmocka_unit_test(test_unreadable_hub_waits),
		cmocka_unit_test(test_first_step_first),
		cmocka_unit_test(test_overflow_never_settles),
		cmocka_unit_test(test_describe_names_port_and_delay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
