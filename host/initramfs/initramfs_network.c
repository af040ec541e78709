/* `earlymount initramfs --network`: klibc's ipconfig (what initramfs-tools configures its
 * network with) and its library from the tools root, the drivers of the network controllers
 * machines commonly boot from, and NFS's modules. PID 1 loads none of it unless the command
 * line asks for the network (ip=, rd.neednet=1, an NFS root): the image grows, the boot does
 * not slow. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "initramfs.h"
#include "log.h"
#include "paths.h"
#include "util.h"

/* Where Debian's klibc-utils puts it, relative to the tools root. */
#define KLIBC_IPCONFIG "usr/lib/klibc/bin/ipconfig"

/* Virtual machines' and the common wired controllers' drivers, by Debian's names (what a
 * kernel lacks is left out); --module adds any other, a host-only image adds the host's. */
static const char *const network_modules[] = {
	"virtio_net", "e1000", "e1000e", "igb", "igc", "ixgbe", "r8169", "tg3", "bnxt_en",
	/* USB adapters, and the Raspberry Pi's built-in ones */
	"cdc_ether", "r8152", "ax88179_178a", "smsc95xx", "lan78xx",
	/* NFS: the version's module brings nfs, sunrpc and lockd */
	"nfsv3", "nfsv4",
};

static int choose_network_modules(struct builder *b)
{
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(network_modules) && r == 0; i++) {
		r = initramfs_choose_module(b, network_modules[i]);
		if (r == 0 && !name_list_has(&b->builtin, network_modules[i]))
			b->n_net_modules++;
		if (r == -ENOENT)
			r = 0;
	}
	return r;
}

int initramfs_choose_network_modules(struct builder *b)
{
	return b->network ? choose_network_modules(b) : 0;
}

int initramfs_add_network(struct builder *b)
{
	return b->network ? initramfs_add_program(b, KLIBC_IPCONFIG, EARLYMOUNT_IPCONFIG + 1, "--network",
						  "klibc-utils", &b->net_files, &b->net_bytes)
			  : 0;
}
