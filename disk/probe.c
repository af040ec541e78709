/* The disk model from libblkid: the partition table, its partitions, and the filesystem
 * in each. Works on image files as well as block devices; opens read-only. */
#include <blkid/blkid.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dps.h"
#include "log.h"
#include "luks_header.h"
#include "probe.h"
#include "utf8.h"
#include "util.h"
#include "verity_sig.h"

/* The kernel exposes at most 256 partitions of a disk (DISK_MAX_PARTS); more is hostile. */
#define PROBE_MAX_PARTS 256
/* libblkid counts partition start and size in 512-byte sectors whatever the disk's sectors. */
#define BLKID_SECTOR 512ULL

static void copy_lower(char *dst, size_t size, const char *src)
{
	(void)copy_str(dst, size, src ? src : ""); /* truncation is harmless: no known value is that long */
	for (char *c = dst; *c; c++)
		*c = (char)tolower((unsigned char)*c);
}

/* /dev/vda -> /dev/vda2, /dev/nvme0n1 -> /dev/nvme0n1p2. */
static int part_devpath(const char *disk_path, unsigned number, char *out, size_t size)
{
	size_t len = strlen(disk_path);
	bool digit = len > 0 && isdigit((unsigned char)disk_path[len - 1]);
	int n = snprintf(out, size, "%s%s%u", disk_path, digit ? "p" : "", number);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static void lookup_value(blkid_probe pr, const char *name, char *out, size_t size)
{
	const char *value = NULL;

	if (blkid_probe_lookup_value(pr, name, &value, NULL) == 0 && value)
		(void)copy_str(out, size, value);
}

#define READ_SCAN_BYTES (256 * 1024) /* what libblkid's superblock probes read, and more */
#define SCAN_BLOCK 4096

/* A read of len bytes from start failed: the first 512-byte sector of them (at most
 * READ_SCAN_BYTES) that cannot be read, named in out ("sector 2050 of /dev/vda"; "" when every
 * one reads now). Sector by sector around the failing block with O_DIRECT, which reads just
 * that sector (through the page cache a read is a whole page); where O_DIRECT is refused, the
 * page's first sector. */
static void locate_read_error(int fd, const char *disk_path, uint64_t start, uint64_t len,
			      char *out, size_t size)
{
	static char buf[SCAN_BLOCK] __attribute__((aligned(SCAN_BLOCK)));
	char path[64];
	uint64_t end = len < READ_SCAN_BYTES ? len : READ_SCAN_BYTES;
	uint64_t bad = UINT64_MAX, block = UINT64_MAX;
	int direct;

	out[0] = '\0';
	for (uint64_t off = 0; off < end && block == UINT64_MAX; off += SCAN_BLOCK)
		if (pread(fd, buf, SCAN_BLOCK, (off_t)(start + off)) < 0)
			block = start + off;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	direct = block != UINT64_MAX ? open(path, O_RDONLY | O_DIRECT | O_CLOEXEC) : -1;
	for (uint64_t s = block; direct >= 0 && s < block + SCAN_BLOCK && bad == UINT64_MAX; s += 512)
		if (pread(direct, buf, 512, (off_t)s) < 0 && errno == EIO)
			bad = s;
	if (direct >= 0)
		close(direct);
	if (bad == UINT64_MAX)
		bad = block;
	if (bad != UINT64_MAX)
		snprintf(out, size, "sector %" PRIu64 " of %.60s", bad / 512, disk_path);
}

/* Fills fstype, fsuuid, fslabel of part from its byte range of fd; "" when nothing or
 * several things are recognised (an ambiguous partition must not be mounted, and it holds
 * data: fs_ambiguous says so, and the planner says it where it would have used it). */
static void probe_filesystem(int fd, const struct disk *disk, struct part *part)
{
	blkid_probe pr = blkid_new_probe();
	char name[256];
	int r;

	disk_part_name(disk, part, name, sizeof(name));
	if (!pr) {
		log_warn("unable to probe %s: out of memory", name);
		goto out;
	}
	if (blkid_probe_set_device(pr, fd, (blkid_loff_t)part->start, (blkid_loff_t)part->size) < 0) {
		log_warn("unable to probe %s: cannot read its range", name);
		goto out;
	}
	blkid_probe_enable_partitions(pr, 0);
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_UUID | BLKID_SUBLKS_LABEL);
	r = blkid_do_safeprobe(pr);
	part->fs_ambiguous = r == -2;
	if (r < 0 && r != -2) {
		locate_read_error(fd, disk->path, part->start, part->size, part->read_error,
				  sizeof(part->read_error));
		log_warn("unable to probe %s: read error%s%s", name, part->read_error[0] ? " at " : "",
			 part->read_error);
	}
	if (r != 0)
		goto out;
	lookup_value(pr, "TYPE", part->fstype, sizeof(part->fstype));
	lookup_value(pr, "UUID", part->fsuuid, sizeof(part->fsuuid));
	lookup_value(pr, "LABEL", part->fslabel, sizeof(part->fslabel));
	lookup_value(pr, "UUID_SUB", part->fsuuid_sub, sizeof(part->fsuuid_sub));
out:
	if (pr)
		blkid_free_probe(pr);
}

static bool is_signature_partition(const struct part *part)
{
	const struct dps_type *type = dps_type_from_uuid(part->type);

	return type && (type->role == DPS_ROOT_VERITY_SIG || type->role == DPS_USR_VERITY_SIG);
}

/* The root hash a signature partition carries: the planner pairs the data and hash
 * partitions by it. The signature itself is read again when the device is set up. */
static void read_signature_partition(int fd, struct part *part)
{
	static struct verity_sig sig;
	size_t want = part->size < VERITY_SIG_JSON_MAX ? (size_t)part->size : VERITY_SIG_JSON_MAX;
	char *json = calloc(1, want + 1);
	ssize_t n = json ? pread(fd, json, want, (off_t)part->start) : -1;

	if (n < 0)
		snprintf(part->verity_sig_error, sizeof(part->verity_sig_error), "unreadable: %s",
			 json ? strerror(errno) : "out of memory");
	else if (verity_sig_parse(json, (size_t)n, &sig, part->verity_sig_error,
				  sizeof(part->verity_sig_error)) == 0)
		COPY_STR(part->verity_sig_hash, sig.root_hash);
	free(json);
}

static bool is_hash_partition(const struct part *part)
{
	const struct dps_type *type = dps_type_from_uuid(part->type);

	return type && (type->role == DPS_ROOT_VERITY || type->role == DPS_USR_VERITY);
}

/* A hash partition's superblock, read with the same parser the setup uses: the planner then
 * refuses a damaged one before anything is set up, and `earlymount plan --image` says so. */
static void read_verity_superblock(int fd, struct part *part)
{
	uint8_t sb[VERITY_SB_SIZE];
	struct verity_geometry g;
	ssize_t n = pread(fd, sb, sizeof(sb), (off_t)part->start);

	if (n < 0)
		snprintf(part->verity_sb_error, sizeof(part->verity_sb_error), "unreadable: %s",
			 strerror(errno));
	else if (verity_sb_parse(sb, (size_t)n, 0, &g, part->verity_sb_error,
				 sizeof(part->verity_sb_error)) == 0)
		part->verity_sb_error[0] = '\0';
}

struct part_reader {
	int fd;
	uint64_t start, size;
};

/* Reads within the partition only: what lies past its end is not its header. */
static long read_in_part(void *ctx, uint64_t offset, void *buf, size_t len)
{
	const struct part_reader *pr = ctx;
	size_t want = offset >= pr->size ? 0 : pr->size - offset < len ? (size_t)(pr->size - offset) : len;
	size_t got = 0;
	ssize_t n = 1;

	while (got < want && n > 0) {
		n = pread(pr->fd, (char *)buf + got, want - got, (off_t)(pr->start + offset + got));
		if (n > 0)
			got += (size_t)n;
	}
	return n < 0 ? -errno : (long)got;
}

/* A LUKS volume's header, checked as the unlock would need it: the planner refuses a damaged
 * one before asking for a passphrase, and `earlymount plan --image` says so. */
static void read_luks_header(int fd, struct part *part)
{
	struct part_reader pr = { fd, part->start, part->size };
	struct luks2_summary summary = { 0 };

	if (luks_header_check(read_in_part, &pr, &summary, part->luks_error,
			      sizeof(part->luks_error)) == 0)
		part->luks_error[0] = '\0';
	part->luks_integrity = part->luks_error[0] == '\0' && summary.integrity;
	COPY_STR(part->luks_tokens, summary.tokens);
	part->luks_tpm2 = summary.tpm2_tokens;
	part->luks_tpm2_pin = summary.tpm2_pin;
	COPY_STR(part->luks_tpm2_error, summary.tpm2_error);
}

/* Converts libblkid's sectors to bytes; false when the partition does not lie inside the
 * device (hostile or truncated tables), which the kernel would not expose either. */
static bool part_range(blkid_partition par, uint64_t disk_size, uint64_t *start, uint64_t *size)
{
	blkid_loff_t s = blkid_partition_get_start(par);
	blkid_loff_t n = blkid_partition_get_size(par);

	if (s < 0 || n < 0 || (uint64_t)s > disk_size / BLKID_SECTOR || (uint64_t)n > disk_size / BLKID_SECTOR)
		return false;
	*start = (uint64_t)s * BLKID_SECTOR;
	*size = (uint64_t)n * BLKID_SECTOR;
	return *start <= disk_size && *size <= disk_size - *start;
}

static int add_partition(int fd, bool is_blockdev, struct disk *disk, blkid_partition par,
			 uint64_t disk_size, const struct probe_filter *filter)
{
	struct part *part;
	uint64_t start, size;
	int number = blkid_partition_get_partno(par);
	const char *type = blkid_partition_get_type_string(par);
	const char *name = blkid_partition_get_name(par);
	int r = 0;

	if (!part_range(par, disk_size, &start, &size)) {
		log_warn("partition %d of %s lies beyond the end of the disk (%llu bytes); skipped", number,
			 disk->path, (unsigned long long)disk_size);
		goto out;
	}
	part = disk_add_part(disk);
	if (!part) {
		r = -ENOMEM;
		goto out;
	}
	part->number = number > 0 ? (unsigned)number : 0;
	if (type)
		copy_lower(part->type, sizeof(part->type), type);
	else
		snprintf(part->type, sizeof(part->type), "0x%02x", (unsigned)blkid_partition_get_type(par) & 0xffu);
	copy_lower(part->partuuid, sizeof(part->partuuid), blkid_partition_get_uuid(par));
	(void)copy_str(part->label, sizeof(part->label), name ? name : "");
	/* libblkid writes an unpaired UTF-16 surrogate of the name as bytes no UTF-8 reader takes */
	utf8_sanitize(part->label);
	part->flags = (uint64_t)blkid_partition_get_flags(par);
	part->start = start;
	part->size = size;
	if (is_blockdev) {
		r = part_devpath(disk->path, part->number, part->devpath, sizeof(part->devpath));
		if (r < 0)
			goto out;
	}
	if (size > 0 && is_signature_partition(part))
		read_signature_partition(fd, part);
	else if (size > 0 && is_hash_partition(part))
		read_verity_superblock(fd, part);
	else if (size > 0 && (!filter || filter->want_filesystem(part, filter->data)))
		probe_filesystem(fd, disk, part);
	if (streq(part->fstype, "crypto_LUKS"))
		read_luks_header(fd, part);
out:
	return r;
}

/* A device without a partition table: one part, PART_WHOLE_DEVICE, when its whole holds
 * something libblkid recognises, or several things (which the planner then names). */
static int add_whole_device(int fd, bool is_blockdev, struct disk *disk, uint64_t disk_size,
			    const struct probe_filter *filter)
{
	struct part whole = { .number = PART_WHOLE_DEVICE, .size = disk_size };
	struct part *part;
	int r = 0;

	if (disk_size == 0 || (filter && !filter->want_filesystem(&whole, filter->data)))
		goto out;
	probe_filesystem(fd, disk, &whole);
	if (!whole.fstype[0] && !whole.fs_ambiguous)
		goto out;
	if (streq(whole.fstype, "crypto_LUKS"))
		read_luks_header(fd, &whole);
	if (is_blockdev && COPY_STR(whole.devpath, disk->path) < 0)
		goto out;
	part = disk_add_part(disk);
	if (!part) {
		r = -ENOMEM;
		goto out;
	}
	*part = whole;
out:
	return r;
}

static int probe_partitions(int fd, bool is_blockdev, struct disk *disk,
			    const struct probe_filter *filter)
{
	blkid_probe pr = blkid_new_probe();
	blkid_partlist list;
	blkid_parttable table;
	uint64_t disk_size;
	int n, r = 0;

	if (!pr) {
		r = -ENOMEM;
		goto out;
	}
	if (blkid_probe_set_device(pr, fd, 0, 0) < 0) {
		r = errno > 0 ? -errno : -EIO;
		goto out;
	}
	disk_size = (uint64_t)blkid_probe_get_size(pr);
	disk->sector_size = blkid_probe_get_sectorsize(pr);
	blkid_probe_enable_superblocks(pr, 0);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);

	/* No list or no table: a disk without a partition table, whose whole may hold a
	 * filesystem (a logical volume, an md array) or a stack's member. */
	list = blkid_probe_get_partitions(pr);
	table = list ? blkid_partlist_get_table(list) : NULL;
	if (!table) {
		/* no table, or none that could be read: which, the planner says */
		locate_read_error(fd, disk->path, 0, disk_size, disk->read_error, sizeof(disk->read_error));
		if (disk->read_error[0])
			log_warn("unable to read the partition table of %s: read error at %s", disk->path,
				 disk->read_error);
		r = add_whole_device(fd, is_blockdev, disk, disk_size, filter);
		goto out;
	}
	/* The planner accepts only "gpt"; the others are named in its messages. */
	(void)COPY_STR(disk->pttype, blkid_parttable_get_type(table) ?: "");
	copy_lower(disk->ptuuid, sizeof(disk->ptuuid), blkid_parttable_get_id(table));

	n = blkid_partlist_numof_partitions(list);
	if (n > PROBE_MAX_PARTS) {
		log_warn("%s lists %d partitions; only the first %d are used", disk->path, n, PROBE_MAX_PARTS);
		n = PROBE_MAX_PARTS;
	}
	for (int i = 0; i < n && r == 0; i++) {
		blkid_partition par = blkid_partlist_get_partition(list, i);

		if (par)
			r = add_partition(fd, is_blockdev, disk, par, disk_size, filter);
	}
out:
	if (pr)
		blkid_free_probe(pr);
	return r;
}

int probe_disk_filtered(const char *path, struct disk *disk, const struct probe_filter *filter)
{
	struct stat st;
	int fd = -1, r;

	r = COPY_STR(disk->path, path);
	if (r < 0)
		goto out;
	/* O_NONBLOCK: a FIFO given by mistake must not hang the open. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		r = -EISDIR;
		goto out;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		r = -ENOTBLK;
		goto out;
	}
	/* An empty file has nothing to probe, and libblkid refuses a zero-sized device. */
	if (S_ISREG(st.st_mode) && st.st_size == 0)
		goto out;
	r = probe_partitions(fd, S_ISBLK(st.st_mode), disk, filter);
out:
	if (fd >= 0)
		close(fd);
	return r;
}

int probe_disk(const char *path, struct disk *disk)
{
	return probe_disk_filtered(path, disk, NULL);
}

int probe_device_fstype(const char *path, char *fstype, size_t size)
{
	blkid_probe pr = blkid_new_probe_from_filename(path);
	int r = pr ? 0 : -errno ? -errno : -ENOMEM;

	if (size)
		fstype[0] = '\0';
	if (r < 0)
		goto out;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	r = blkid_do_safeprobe(pr);
	if (r == 0)
		lookup_value(pr, "TYPE", fstype, size);
	/* nothing (1) or an ambiguous device (-2) leaves fstype empty; only a read error fails */
	r = r == -1 ? -EIO : 0;
out:
	if (pr)
		blkid_free_probe(pr);
	return r;
}
