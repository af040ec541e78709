/* Which devices a disk can be behind, from their modaliases (q35's and virt's, as coldplug
 * reads them under QEMU). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <cmocka.h>

#include "modalias.h"

struct row {
	const char *alias;
	bool storage;
	bool no_disk;
	bool slow; /* a storage controller whose probe scans slowly */
};

static const struct row rows[] = {
	/* q35's AHCI controller, a virtio-blk on PCI and the virtio disk it makes */
	{ "pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01", true, false, true },
	{ "pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00", true, false, false },
	{ "virtio:d00000002v00001AF4", true, false, false },
	/* shares: virtio 9p and virtiofs are roots too */
	{ "virtio:d00000009v00001AF4", true, false, false },
	{ "virtio:d0000001Av00001AF4", true, false, false },
	/* USB host controller, a platform virtio-mmio device of virt */
	{ "pci:v00001B36d0000000Dsv00001AF4sd00001100bc0Csc03i30", true, false, true },
	{ "of:NvirtioT(null)Cvirtio,mmio", true, false, false },
	/* the likely controllers: NVMe, virtio-scsi on PCI (SCSI's class, virtio's vendor) */
	{ "pci:v00001B36d00000010sv00001AF4sd00001100bc01sc08i02", true, false, false },
	{ "pci:v00001AF4d00001004sv00001AF4sd00000008bc01sc00i00", true, false, false },
	/* the slow ones: a SCSI HBA, SAS, IDE, an SD host, a USB stick's mass-storage interface */
	{ "pci:v00001000d00000030sv00001AF4sd00001100bc01sc00i00", true, false, true },
	{ "pci:v00001000d00000097sv00001000sd00003090bc01sc07i00", true, false, true },
	{ "pci:v00008086d00007010sv00001AF4sd00001100bc01sc01i80", true, false, true },
	{ "pci:v00001B36d00000007sv00001AF4sd00001100bc08sc05i01", true, false, true },
	{ "usb:v46F4p0001d0000dc00dsc00dp00ic08isc06ip50in00", true, false, true },
	/* a USB keyboard's interface is no storage, nor is a hub */
	{ "usb:v0627p0001d0000dc00dsc00dp00ic03isc01ip01in00", true, false, false },
	{ "usb:v1D6Bp0003d0601dc09dsc00dp03ic09isc00ip00in00", true, false, false },
	/* what waits: CPU features, input, HID, q35's SMBus, network, display, entropy */
	{ "cpu:type:x86,ven0000fam0006mod003F:feature:,0000,0001,0002", false, true, false },
	{ "input:b0011v0001p0001eAB41-e0,1,4,11,14,k71,ramlsfw", false, true, false },
	{ "hid:b0003g0001v00000627p00000001", false, true, false },
	{ "serio:ty01pr00id00ex00", false, true, false },
	{ "pci:v00008086d00002930sv00001AF4sd00001100bc0Csc05i00", false, true, false },
	{ "pci:v00001AF4d00001000sv00001AF4sd00000001bc02sc00i00", false, true, false },
	{ "pci:v00001234d00001111sv00001AF4sd00001100bc03sc00i00", false, true, false },
	{ "virtio:d00000004v00001AF4", false, true, false },
	/* neither: not known to hold a disk, nor known not to (an ACPI device, a bridge) */
	{ "acpi:PNP0A08:PNP0A03:", false, false, false },
	{ "pci:v00008086d00002918sv00001AF4sd00001100bc06sc01i00", false, false, false },
	{ "platform:regulatory", false, false, false },
	/* a PCI alias without a class says nothing */
	{ "pci:v00008086d00002918", false, false, false },
	{ "", false, false, false },
};

static void test_table(void **state)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		print_message("%s\n", rows[i].alias);
		assert_int_equal(modalias_may_be_storage(rows[i].alias), rows[i].storage);
		assert_int_equal(modalias_holds_no_disk(rows[i].alias), rows[i].no_disk);
	}
}

/* The two never agree that a device both may hold a disk and holds none. */
static void test_never_both(void **state)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		assert_false(modalias_may_be_storage(rows[i].alias) && modalias_holds_no_disk(rows[i].alias));
}

/* The slow controllers are storage: never a device known to hold no disk. */
static void test_slow(void **state)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		print_message("%s\n", rows[i].alias);
		assert_int_equal(modalias_scans_slowly(rows[i].alias), rows[i].slow);
		assert_true(!rows[i].slow || modalias_may_be_storage(rows[i].alias));
		assert_int_equal(modalias_is_likely_storage(rows[i].alias),
				 rows[i].storage && !rows[i].slow && rows[i].alias[0] != 'u');
	}
}

/* Only CPU features may be left out of a system without udev: input and network may not. */
static void test_cpu_feature(void **state)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		assert_int_equal(modalias_is_cpu_feature(rows[i].alias), rows[i].alias[0] == 'c');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_never_both),
		cmocka_unit_test(test_cpu_feature),
		cmocka_unit_test(test_slow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
