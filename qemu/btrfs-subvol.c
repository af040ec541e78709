/* btrfs-subvol DIR NAME: makes the subvolume DIR/NAME of a mounted btrfs, for the stack
 * images' guest (qemu/stack-image), which has busybox but no btrfs-progs. The kernel does the
 * work (BTRFS_IOC_SUBVOL_CREATE); exit 1 with a message when it refuses. */
#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct btrfs_ioctl_vol_args args = { .fd = 0 };
	int dir, r = 1;

	if (argc != 3 || strlen(argv[2]) >= sizeof(args.name)) {
		fprintf(stderr, "usage: btrfs-subvol DIR NAME\n");
		return 2;
	}
	strcpy(args.name, argv[2]);
	dir = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		fprintf(stderr, "btrfs-subvol: %s: %s\n", argv[1], strerror(errno));
	else if (ioctl(dir, BTRFS_IOC_SUBVOL_CREATE, &args) < 0)
		fprintf(stderr, "btrfs-subvol: %s/%s: %s\n", argv[1], argv[2], strerror(errno));
	else
		r = 0;
	if (dir >= 0)
		close(dir);
	return r;
}
