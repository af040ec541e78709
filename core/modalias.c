/* Classifying device modaliases by whether a disk can be behind them: for the failure report
 * (which devices without a driver matter) and for which drivers a boot may load later. */
#include <stdbool.h>
#include <string.h>

#include "modalias.h"
#include "util.h"

/* Buses a boot disk or its controller sits on. PCI only for the classes of storage and its
 * host controllers. */
static const char *const storage_alias_prefixes[] = {
	"virtio:", "usb:", "scsi:", "mmc:", "sdio:", "nvme:", "of:", "ccw:", "vmbus:", "xen:",
	"pci:", /* narrowed by class below */
};
static const char *const storage_pci_classes[] = {
	"bc01",     /* mass storage: SATA, NVMe, SCSI, IDE */
	"bc0Csc03", /* USB host controllers */
	"bc08sc05", /* SD host controllers */
	"bc00",     /* unclassified: older virtio and vendor devices */
	"bcFF",
};

/* Devices no block device hangs off. The PCI classes are those of the PCI Code and ID
 * Assignment spec; virtio device IDs from the virtio spec (5.x): net 1, console 3, entropy 4,
 * balloon 5, GPU 16, input 18, vsock 19. A network root (NFS, iSCSI) is not earlymount's. */
static const char *const diskless_alias_prefixes[] = {
	"cpu:", "input:", "hid:", "serio:", "hdaudio:", "dmi:",
	"virtio:d00000001v", "virtio:d00000003v", "virtio:d00000004v", "virtio:d00000005v",
	"virtio:d00000010v", "virtio:d00000012v", "virtio:d00000013v",
};
static const char *const diskless_pci_classes[] = {
	"bc02",     /* network */
	"bc03",     /* display */
	"bc04",     /* multimedia: sound, video */
	"bc07",     /* communication: serial ports, modems */
	"bc09",     /* input */
	"bc0Csc05", /* SMBus */
	"bc10",     /* encryption */
	"bc11",     /* signal processing */
};

static bool starts_with_any(const char *s, const char *const *prefixes, size_t n)
{
	bool found = false;

	for (size_t i = 0; i < n && !found; i++)
		found = startswith(s, prefixes[i]) != NULL;
	return found;
}

/* The class part of a PCI modalias ("…bc01sc06i01"), or NULL for another bus. */
static const char *pci_class(const char *alias)
{
	return startswith(alias, "pci:") ? strstr(alias, "bc") : NULL;
}

bool modalias_holds_no_disk(const char *alias)
{
	const char *cls = pci_class(alias);

	if (startswith(alias, "pci:"))
		return cls && starts_with_any(cls, diskless_pci_classes, ARRAY_SIZE(diskless_pci_classes));
	return starts_with_any(alias, diskless_alias_prefixes, ARRAY_SIZE(diskless_alias_prefixes));
}

bool modalias_may_be_storage(const char *alias)
{
	const char *cls = pci_class(alias);

	if (modalias_holds_no_disk(alias))
		return false; /* virtio's entropy or balloon device, say */
	if (startswith(alias, "pci:"))
		return cls && starts_with_any(cls, storage_pci_classes, ARRAY_SIZE(storage_pci_classes));
	return starts_with_any(alias, storage_alias_prefixes, ARRAY_SIZE(storage_alias_prefixes));
}

/* Storage controllers whose probe scans slowly: SATA and IDE ports time out one by one (q35's
 * AHCI: six empty ports, 0.35 s), SCSI HBAs scan their targets, USB storage shows up only
 * after enumeration and usb-storage's delay_use (1 s), SD hosts wait for a card. PCI classes
 * of the PCI Code and ID Assignment spec. NVMe (bc01sc08), virtio and the buses of
 * systems-on-chip (of:, platform: eMMC) are the likely controllers: not listed. */
static const char *const slow_pci_classes[] = {
	"bc01sc00", /* SCSI controllers (virtio's legacy PCI disks say so too: see below) */
	"bc01sc01", /* IDE */
	"bc01sc04", /* RAID */
	"bc01sc05", /* ATA with ADMA */
	"bc01sc06", /* SATA: AHCI */
	"bc01sc07", /* SAS */
	"bc0Csc03", /* USB host controllers */
	"bc08sc05", /* SD host controllers */
};

/* Red Hat's vendor ID for virtio on PCI: its disk and SCSI controller report SCSI's class */
#define VIRTIO_PCI_VENDOR "pci:v00001AF4"

bool modalias_scans_slowly(const char *alias)
{
	const char *cls = pci_class(alias);

	if (startswith(alias, "usb:"))
		return strstr(alias, "ic08") != NULL; /* a mass-storage interface */
	return cls && !startswith(alias, VIRTIO_PCI_VENDOR) &&
	       starts_with_any(cls, slow_pci_classes, ARRAY_SIZE(slow_pci_classes));
}

bool modalias_is_likely_storage(const char *alias)
{
	return modalias_may_be_storage(alias) && !modalias_scans_slowly(alias) &&
	       !startswith(alias, "usb:");
}

bool modalias_is_cpu_feature(const char *alias)
{
	return startswith(alias, "cpu:") != NULL;
}

/* PCI class 02 (network), virtio's device 1, and USB's communications (CDC Ethernet, 02) and
 * wireless-controller-less network interfaces a USB adapter shows as class 02 or 0A */
bool modalias_is_network(const char *alias)
{
	const char *cls = pci_class(alias);

	if (startswith(alias, "pci:"))
		return cls && startswith(cls, "bc02") != NULL;
	return startswith(alias, "virtio:d00000001v") != NULL ||
	       (startswith(alias, "usb:") && (strstr(alias, "ic02") || strstr(alias, "ic0A")));
}
