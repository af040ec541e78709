/* The verity device is made read-only from a superblock and a root hash the kernel checks
 * every block against: nothing here hashes, and nothing is written to either partition. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <linux/keyctl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dm.h"
#include "util.h"
#include "verity.h"
#include "verity_open.h"
#include "verity_sig.h"

#define SECTOR 512

/* The device's number as the table names it, and its size when bytes is given. */
static int device_facts(const char *path, char number[32], uint64_t *bytes)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || (bytes && ioctl(fd, BLKGETSIZE64, bytes) < 0))
		r = -errno;
	else if (!S_ISBLK(st.st_mode))
		r = -ENOTBLK;
	else
		snprintf(number, 32, "%u:%u", major(st.st_rdev), minor(st.st_rdev));
	close(fd);
	return r;
}

static int read_superblock(const char *hash_dev, uint64_t offset, uint8_t buf[VERITY_SB_SIZE])
{
	int fd = open(hash_dev, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int r = 0;

	if (fd < 0)
		return -errno;
	n = pread(fd, buf, VERITY_SB_SIZE, (off_t)offset);
	if (n < 0)
		r = -errno;
	else if (n < VERITY_SB_SIZE)
		r = -ENODATA;
	close(fd);
	return r;
}

/* cryptsetup's form, so that veritysetup status and systemd recognise the device later. */
static void verity_dm_uuid(const struct verity_geometry *g, const char *name, char *out,
			   size_t size)
{
	char hex[33];
	size_t n = 0;

	for (const char *s = g->uuid; *s && n < 32; s++)
		if (*s != '-')
			hex[n++] = *s;
	hex[n] = '\0';
	snprintf(out, size, "CRYPT-VERITY-%s-%s", hex, name);
}

/* The signature partition read again at the moment of use, its hash compared with the one
 * planned, and its signature handed to the kernel as a "user" key of this thread's keyring,
 * where dm-verity's root_hash_sig_key_desc finds it. The key serial, or -errno with why. */
static long signature_key(const struct verity_request *req, const char *desc, char *why,
			  size_t why_size)
{
	static struct verity_sig sig;
	static char json[VERITY_SIG_JSON_MAX];
	char reason[128];
	int fd = open(req->sig_dev, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, json, sizeof(json));
	long key;

	if (n < 0) {
		key = -errno;
		set_why(why, why_size, "unable to read the signature partition %s: %s", req->sig_dev,
			strerror((int)-key));
	} else if (verity_sig_parse(json, (size_t)n, &sig, reason, sizeof(reason)) < 0) {
		set_why(why, why_size, "the signature partition %s is unusable: %s", req->sig_dev,
			reason);
		key = -EINVAL;
	} else if (strcasecmp(sig.root_hash, req->root_hash) != 0) {
		set_why(why, why_size, "the signature partition %s changed since it was read: it "
			"now signs %.16s…", req->sig_dev, sig.root_hash);
		key = -ESTALE;
	} else {
		key = syscall(SYS_add_key, "user", desc, sig.signature, sig.signature_len,
			      KEY_SPEC_THREAD_KEYRING);
		if (key < 0) {
			key = -errno;
			set_why(why, why_size, "unable to hand the signature on %s to the kernel: %s "
				"(a kernel without keyrings cannot check it)", req->sig_dev,
				strerror((int)-key));
		}
	}
	if (fd >= 0)
		close(fd);
	return key;
}

static const char *create_hint(int err)
{
	switch (err) {
	case ENOKEY:
	case EKEYREJECTED:
	case EBADMSG:
	case EKEYEXPIRED:
		return " — the kernel could not check the root hash's signature: the certificate it "
		       "was made with must be in the kernel's trusted keyrings";
	case ENODEV:
		return " — the kernel has no device-mapper: the initramfs needs dm_verity and dm_mod";
	case EEXIST:
		return " — a device of that name exists already";
	case EINVAL:
		return " — the kernel refused the table: its reason is in the kernel log above";
	default:
		return "";
	}
}

int verity_open(const struct verity_request *req, char *why, size_t why_size)
{
	uint8_t sb[VERITY_SB_SIZE];
	struct verity_geometry g;
	struct verity_options o;
	char data_no[32], hash_no[32], table[VERITY_TABLE_MAX], uuid[160], reason[256];
	uint64_t data_bytes = 0;
	char key_desc[64];
	const char *failed;
	long key = 0;
	dev_t dev;
	int r = verity_options_parse(req->options, &o, reason, sizeof(reason));

	if (r < 0) {
		set_why(why, why_size, "%s", reason);
		goto out;
	}
	failed = req->data_dev;
	r = device_facts(req->data_dev, data_no, &data_bytes);
	if (r == 0) {
		failed = req->hash_dev;
		r = device_facts(req->hash_dev, hash_no, NULL);
	}
	if (r < 0) {
		set_why(why, why_size, "unable to open %s for dm-verity: %s", failed, strerror(-r));
		goto out;
	}
	r = read_superblock(req->hash_dev, o.hash_offset, sb);
	if (r == 0)
		r = verity_sb_parse(sb, sizeof(sb), o.hash_offset, &g, reason, sizeof(reason));
	else
		snprintf(reason, sizeof(reason), "%s", strerror(-r));
	if (r < 0) {
		set_why(why, why_size, "the hash partition %s is unusable: %s — was it made by "
			"veritysetup format or systemd-repart (Verity=hash)?", req->hash_dev, reason);
		goto out;
	}
	/* block sizes are powers of two from 512 bytes: the area is whole sectors */
	if (verity_data_bytes(&g) > data_bytes) {
		r = -EINVAL;
		set_why(why, why_size, "the verity superblock on %s covers %" PRIu64 " bytes, but "
			"the data partition %s has %" PRIu64 ": the two do not belong together",
			req->hash_dev, verity_data_bytes(&g), req->data_dev, data_bytes);
		goto out;
	}
	if (req->sig_dev) {
		snprintf(key_desc, sizeof(key_desc), "earlymount:verity:%s", req->name);
		key = signature_key(req, key_desc, why, why_size);
		if (key < 0) {
			r = (int)key;
			goto out;
		}
	}
	r = verity_table(&g, data_no, hash_no, req->root_hash, &o, req->sig_dev ? key_desc : NULL,
			 table, sizeof(table));
	if (r < 0) {
		set_why(why, why_size, "the verity table for %s is too long", req->name);
		goto out;
	}
	verity_dm_uuid(&g, req->name, uuid, sizeof(uuid));
	r = dm_create(req->name, uuid,
		      &(struct dm_target){ "verity", verity_data_bytes(&g) / SECTOR, table }, true,
		      &dev);
	if (r < 0)
		set_why(why, why_size, "unable to set up dm-verity " DM_MAPPER_DIR "/%s over %s "
			"and %s: %s%s", req->name, req->data_dev, req->hash_dev, strerror(-r),
			create_hint(-r));
out:
	/* the kernel keeps its own copy: the key must not outlive the table load in PID 1 */
	if (key > 0)
		syscall(SYS_keyctl, KEYCTL_INVALIDATE, key);
	return r;
}
