/* `earlymount initramfs --host-only`: from what sysfs and mountinfo say of the devices behind
 * this host's / and /usr to the names of the modules the image needs. Pure: the walk that
 * fills these records is host/initramfs/initramfs_hostonly.c, the names are resolved by libkmod. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define HOSTONLY_MAX_DEVICES 32
#define HOSTONLY_NAME_MAX 256

/* One device between a mounted filesystem and its bus: the block device itself, a partition's
 * disk, the disk's controller, the controller's bus. Empty strings where sysfs has nothing. */
struct hostonly_device {
	char path[HOSTONLY_NAME_MAX];     /* below /sys/devices, for messages */
	char driver[HOSTONLY_NAME_MAX];   /* the name driver links to; "" when unbound */
	char module[HOSTONLY_NAME_MAX];   /* the name driver/module links to; "" when built in */
	char modalias[HOSTONLY_NAME_MAX];
	char dm_uuid[HOSTONLY_NAME_MAX];  /* a device-mapper device's dm/uuid */
	char dm_name[HOSTONLY_NAME_MAX];  /* and its dm/name */
	char md_level[32];                /* an md array's md/level ("raid1"), "" for others */
	char md_metadata[64];             /* its md/metadata_version ("1.2", "external:imsm") */
};

/* One of the host's mount points that the image must reach. */
struct hostonly_mount {
	const char *where;  /* "/", "/usr" */
	char fstype[64];
	char source[HOSTONLY_NAME_MAX];
	bool block;         /* mounted from a block device (major != 0) */
	unsigned btrfs_devices; /* btrfs: how many devices the filesystem has (sysfs/fs/btrfs),
				 * each of them walked into devices[] */
	struct hostonly_device devices[HOSTONLY_MAX_DEVICES];
	size_t n_devices;
};

#define HOSTONLY_MAX_CRYPT 8

/* A dm-crypt volume in a chain, as the running system opened it. */
struct hostonly_crypt {
	char name[128];  /* its dm name: what crypttab calls it */
	char uuid[37];   /* its LUKS header's UUID, "" for plain dm-crypt */
	char where[HOSTONLY_NAME_MAX]; /* the first mount point found on it ("/", "/usr") */
};

/* What the image needs. */
struct hostonly_choice {
	/* module names, "fs-TYPE" and modaliases, each to be looked up by libkmod */
	char names[4 * HOSTONLY_MAX_DEVICES + 16][HOSTONLY_NAME_MAX];
	size_t n;
	bool luks;   /* a dm-crypt device is in a chain: the image needs the LUKS helper */
	bool verity; /* a dm-verity device is in a chain */
	bool lvm;    /* an LVM2 logical volume is in a chain: the image needs lvm */
	bool md;     /* an md array is in a chain: the image needs mdadm */
	bool network; /* a mount is over NFS: the image needs --network (and the host's NICs'
		       * drivers, which the walk adds) */
	/* the dm-crypt volumes in the chains, each once: the crypttab entries the boot needs */
	struct hostonly_crypt crypt[HOSTONLY_MAX_CRYPT];
	size_t n_crypt;
	/* what earlymount cannot assemble, in words ("/ is on md RAID, raid1 (md0)"); "" when
	 * every device in the chains is one it can */
	char unsupported[2 * HOSTONLY_NAME_MAX];
};

/* Adds what mount m needs to choice (names already there are not added twice); an NFS mount
 * sets network and adds its modules.
 * 0; -ENOTBLK when m is not on a block device (there are no drivers to pick);
 * -EOPNOTSUPP when a device of its chain is one earlymount cannot assemble (choice->unsupported
 * says which); -ENOBUFS when the choice is full. */
int hostonly_choose(const struct hostonly_mount *m, struct hostonly_choice *choice);

/* Adds the module of filesystem type fstype ("fs-TYPE") and those it needs beside it (vfat's
 * codepages). 0, -ENOBUFS when the choice is full, -ENAMETOOLONG for an absurd type. */
int hostonly_choose_fstype(const char *fstype, struct hostonly_choice *choice);

/* Adds a network controller's modalias (the host's interfaces, for an NFS root). 0 or
 * -ENOBUFS. */
int hostonly_choose_modalias(const char *modalias, struct hostonly_choice *choice);

/* The walk (host/initramfs/initramfs_hostonly.c): fills m, whose where the caller set, from
 * the mountinfo file and the sysfs tree at sysfs (a resolved path): its type, its source and
 * the chain of devices under it. 0; -ENODATA when nothing is mounted at where; -errno. */
int hostonly_read_mount(const char *sysfs, const char *mountinfo, struct hostonly_mount *m);

/* Adds what a host booted through UEFI needs: efivarfs, where the boot loader's
 * LoaderDevicePartUUID is read. 0 or -ENOBUFS. */
int hostonly_choose_efi(struct hostonly_choice *choice);
