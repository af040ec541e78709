/* earlymount-luks: unlocks one LUKS device with libcryptsetup, for earlymount's PID 1. The
 * contract (arguments, key on stdin, exit codes) is luks/luks_helper.h. A program of its
 * own, so that earlymount itself never links libcryptsetup. */
#include <errno.h>
#include <linux/dm-ioctl.h>
#include <libcryptsetup.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "luks_helper.h"
#include "token_unlock.h"
#include "util.h"
#include "volume_key.h"


static const struct activation_flag {
	const char *option;
	uint32_t flag;
} activation_flags[] = {
	{ "--readonly", CRYPT_ACTIVATE_READONLY },
	{ "--discard", CRYPT_ACTIVATE_ALLOW_DISCARDS },
	{ "--no-read-workqueue", CRYPT_ACTIVATE_NO_READ_WORKQUEUE },
	{ "--no-write-workqueue", CRYPT_ACTIVATE_NO_WRITE_WORKQUEUE },
};

/* Plain dm-crypt's parameters (--plain and its options), as crypt_format() takes them. */
struct plain {
	bool on;
	char cipher[32];      /* "aes" of "aes-cbc-essiv:sha256" */
	const char *mode;     /* "cbc-essiv:sha256"; "plain" when the spec names none */
	unsigned key_bytes;
	const char *hash;     /* NULL: the key is taken as it is */
	uint64_t offset, skip;
};

struct request {
	const char *device;
	const char *header;   /* --header=: a detached LUKS header, or NULL */
	struct plain plain;
	const char *name; /* NULL: test the key only */
	bool header_only; /* check: read the header, no key */
	bool tpm2;        /* the key from a systemd-tpm2 token; stdin holds a PIN */
	struct token_choice tokens; /* --tpm2-device=, --tpm2-pcrs= */
	struct activation act;      /* NAME, the flags, --measure */
};

struct key {
	char *bytes; /* mapped for LUKS_KEY_MAX + 1 bytes, so that a longer key shows */
	size_t len;
};

/* libcryptsetup's last error message, the reason in the helper's one line. */
static char last_error[512];

static void keep_last_error(int level, const char *msg, void *data)
{
	char *p;

	if (level != CRYPT_LOG_ERROR)
		return;
	COPY_STR(last_error, msg);
	/* a message may span lines ("… cannot auto-recover LUKS2.\nPlease run …") */
	for (p = last_error; *p; p++)
		if (*p == '\n')
			*p = ' ';
	while (p > last_error && p[-1] == ' ')
		*--p = '\0';
}

static void usage(FILE *out)
{
	fprintf(out, "usage: earlymount-luks open DEVICE NAME [--readonly] [--discard] [--no-read-workqueue]\n"
		     "                                        [--no-write-workqueue] [--measure]\n"
		     "       earlymount-luks test DEVICE\n"
		     "       earlymount-luks tpm2 DEVICE NAME [the options of open] [--tpm2-device=PATH]\n"
		     "                                        [--tpm2-pcrs=HEXMASK]\n"
		     "       earlymount-luks tpm2-test DEVICE [--tpm2-device=PATH]\n"
		     "       earlymount-luks check DEVICE\n"
		     "Each takes --header=PATH for a detached LUKS header; open and test take --plain\n"
		     "--cipher=NAME-MODE --key-size=BITS [--hash=NAME] [--offset=N] [--skip=N] for plain dm-crypt.\n"
		     "The key is read from standard input until its end (at most %u bytes).\n",
		LUKS_KEY_MAX);
}

/* --plain, --cipher=NAME-MODE, --key-size=BITS, --hash=NAME ("plain": none), --offset=N,
 * --skip=N: 0 when option is one of them, -EINVAL otherwise. */
static int parse_plain(const char *option, struct plain *p)
{
	const char *v;
	char *end = NULL;
	unsigned long long n = 0;
	size_t l;

	if (streq(option, "--plain")) {
		p->on = true;
		return 0;
	}
	if ((v = startswith(option, "--cipher=")) && (l = strcspn(v, "-")) > 0 && l < sizeof(p->cipher)) {
		memcpy(p->cipher, v, l);
		p->cipher[l] = '\0';
		p->mode = v[l] ? v + l + 1 : "plain";
		return 0;
	}
	if ((v = startswith(option, "--hash=")) && *v) {
		p->hash = streq(v, "plain") ? NULL : v;
		return 0;
	}
	if ((v = startswith(option, "--key-size=")) || (v = startswith(option, "--offset=")) ||
	    (v = startswith(option, "--skip=")))
		n = strtoull(v, &end, 10);
	if (!end || end == v || *end || (startswith(option, "--key-size=") && (n == 0 || n % 8 || n > 4096)))
		return -EINVAL;
	if (startswith(option, "--key-size="))
		p->key_bytes = (unsigned)(n / 8);
	else if (startswith(option, "--offset="))
		p->offset = n;
	else
		p->skip = n;
	return 0;
}

static int parse_flag(const char *option, struct request *req)
{
	const char *v;
	char *end;

	if (req->tpm2 && (v = startswith(option, "--tpm2-device=")) && *v) {
		req->tokens.tpm = v;
		return 0;
	}
	if (req->tpm2 && (v = startswith(option, "--tpm2-pcrs=")) && *v) {
		unsigned long mask = strtoul(v, &end, 16);

		req->tokens.pcrs_given = true;
		req->tokens.pcrs = (uint32_t)mask;
		if (!*end && mask < (1ul << 24))
			return 0;
	}
	if (parse_plain(option, &req->plain) == 0)
		return 0;
	if ((v = startswith(option, "--header=")) && v[0] == '/') {
		req->header = v;
		return 0;
	}
	if (streq(option, "--measure") && req->name) {
		req->act.measure = true;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(activation_flags); i++)
		if (streq(activation_flags[i].option, option) && req->name) {
			req->act.flags |= activation_flags[i].flag;
			return 0;
		}
	fprintf(stderr, "earlymount-luks: unknown option '%s'\n", option);
	return -EINVAL;
}

/* A name device-mapper takes, and that stays one file below /dev/mapper. */
static int check_name(const char *name)
{
	if (name[0] && strlen(name) < DM_NAME_LEN && !strchr(name, '/') && !streq(name, ".") &&
	    !streq(name, ".."))
		return 0;
	fprintf(stderr, "earlymount-luks: '%s' is not a device-mapper name (1 to %d characters, no '/')\n",
		name, DM_NAME_LEN - 1);
	return -EINVAL;
}

static int parse_args(int argc, char **argv, struct request *req)
{
	bool open = argc >= 4 && (streq(argv[1], "open") || streq(argv[1], "tpm2"));
	bool test = argc >= 3 && (streq(argv[1], "test") || streq(argv[1], "tpm2-test"));
	bool check = argc >= 3 && streq(argv[1], "check");
	int first_option = open ? 4 : 3;
	int r = 0;

	req->header_only = check;
	req->tpm2 = argc >= 3 && (streq(argv[1], "tpm2") || streq(argv[1], "tpm2-test"));
	if (!open && !test && !check) {
		usage(stderr);
		r = -EINVAL;
		goto out;
	}
	req->device = argv[2];
	if (open) {
		req->name = argv[3];
		req->act.name = req->name;
		r = check_name(req->name);
	}
	for (int i = first_option; i < argc && r == 0; i++)
		r = parse_flag(argv[i], req);
	if (r == 0 && req->plain.on && (req->header || req->tpm2 || check || !req->plain.mode ||
					 !req->plain.key_bytes)) {
		fprintf(stderr, "earlymount-luks: --plain needs --cipher= and --key-size=, and goes with "
				"open or test alone\n");
		r = -EINVAL;
	}
out:
	return r;
}

/* The key goes to memory that is never swapped (where mlock is allowed) and that only grows
 * as it is written: the mapping is the largest key, its pages come with the bytes read. */
static int read_key(struct key *key)
{
	size_t size = LUKS_KEY_MAX + 1;
	ssize_t n = 0;
	int r = 0;

	key->bytes = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (key->bytes == MAP_FAILED) {
		key->bytes = NULL;
		r = -errno;
		goto out;
	}
	(void)mlock2(key->bytes, size, MLOCK_ONFAULT);
	(void)madvise(key->bytes, size, MADV_DONTDUMP);
	while (key->len < size) {
		n = read(STDIN_FILENO, key->bytes + key->len, size - key->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		key->len += (size_t)n;
	}
	if (n < 0)
		r = -errno;
	else if (key->len > LUKS_KEY_MAX)
		r = -EFBIG;
out:
	return r;
}

static void wipe_key(struct key *key)
{
	if (!key->bytes)
		return;
	explicit_bzero(key->bytes, key->len);
	munmap(key->bytes, LUKS_KEY_MAX + 1);
	key->bytes = NULL;
	key->len = 0;
}

/* Reports a failure to open DEVICE or load its header, and says which exit code it is. The
 * header's hashes are nettle's (libcryptsetup's backend), so no kernel module is involved. */
static int report_load_failure(const struct request *req, int r)
{
	fprintf(stderr, "earlymount-luks: unable to read the LUKS header of %s: %s\n", req->device,
		last_error[0] ? last_error
		: r == -EINVAL ? "no LUKS header found"
			       : strerror(-r));
	return r == -ENOMEM ? LUKS_EXIT_FAILED : LUKS_EXIT_NO_HEADER;
}

/* Reports a failed activation (or key test) and says which exit code it is. */
static int report_activation_failure(const struct request *req, int r)
{
	const char *reason = last_error[0] ? last_error : strerror(-r);
	int code = LUKS_EXIT_FAILED;

	if (r == -EPERM) {
		reason = "the key opens no key slot";
		code = LUKS_EXIT_BAD_KEY;
	} else if (r == -EEXIST) {
		code = LUKS_EXIT_EXISTS;
		if (!last_error[0])
			reason = "/dev/mapper has a device of that name already";
	}
	if (req->name)
		fprintf(stderr, "earlymount-luks: unable to open %s as %s: %s\n", req->device, req->name, reason);
	else
		fprintf(stderr, "earlymount-luks: unable to unlock a key slot of %s: %s\n", req->device, reason);
	return code;
}

/* Activating a LUKS2 device whose reencryption was interrupted first finishes the
 * interrupted step on the disk: the helper writes nothing, so that is left to cryptsetup. */
static int refuse_crashed_reencryption(struct crypt_device *cd, const struct request *req)
{
	if (!req->name || crypt_reencrypt_status(cd, NULL) != CRYPT_REENCRYPT_CRASH)
		return 0;
	fprintf(stderr, "earlymount-luks: unable to open %s as %s: its LUKS2 reencryption was interrupted, and "
			"recovering it writes to the disk: run 'cryptsetup repair %s' from another system\n",
		req->device, req->name, req->device);
	return LUKS_EXIT_FAILED;
}

static int unlock_by_token(struct crypt_device *cd, const struct request *req,
			   const struct key *key)
{
	char why[320];
	int code = token_unlock(cd, &req->act, &req->tokens, key->len ? key->bytes : NULL,
				key->len, why, sizeof(why));

	/* on success too: the one line says which token opened it, and how its key came */
	fprintf(stderr, "earlymount-luks: %s\n", why);
	return code;
}

/* Plain dm-crypt: no header, so nothing tells a wrong passphrase from a right one; the
 * parameters are set up in memory (crypt_format() writes nothing for CRYPT_PLAIN). */
static int unlock_plain(const struct request *req, const struct key *key)
{
	const struct plain *p = &req->plain;
	struct crypt_params_plain params = { .hash = p->hash, .offset = p->offset, .skip = p->skip };
	struct crypt_device *cd = NULL;
	int code = LUKS_EXIT_OK;
	int r = crypt_init(&cd, req->device);

	if (r == 0)
		r = crypt_format(cd, CRYPT_PLAIN, p->cipher, p->mode, NULL, NULL, p->key_bytes, &params);
	if (r == 0 && req->name)
		r = activate(cd, &req->act, CRYPT_ANY_SLOT, key->bytes, key->len);
	if (r < 0)
		code = report_activation_failure(req, r);
	crypt_free(cd);
	return code;
}

static int unlock(const struct request *req, const struct key *key)
{
	struct crypt_device *cd = NULL;
	int code = LUKS_EXIT_OK;
	int r;

	if (req->plain.on) {
		code = unlock_plain(req, key);
		goto out;
	}
	r = req->header ? crypt_init_data_device(&cd, req->header, req->device)
			: crypt_init(&cd, req->device);
	if (r == 0)
		r = crypt_load(cd, CRYPT_LUKS, NULL);
	if (r < 0) {
		code = report_load_failure(req, r);
		goto out;
	}
	code = refuse_crashed_reencryption(cd, req);
	if (code != LUKS_EXIT_OK || req->header_only)
		goto out;
	if (req->tpm2) {
		code = unlock_by_token(cd, req, key);
		goto out;
	}
	r = activate(cd, &req->act, CRYPT_ANY_SLOT, key->bytes, key->len);
	if (r < 0)
		code = report_activation_failure(req, r);
out:
	crypt_free(cd);
	return code;
}

int main(int argc, char **argv)
{
	struct request req = { 0 };
	struct key key = { 0 };
	int code = LUKS_EXIT_USAGE;
	int r;

	if (argc == 2 && (streq(argv[1], "--help") || streq(argv[1], "-h"))) {
		usage(stdout);
		code = LUKS_EXIT_OK;
		goto out;
	}
	if (parse_args(argc, argv, &req) < 0)
		goto out;
	/* the key must not reach a core file */
	(void)prctl(PR_SET_DUMPABLE, 0);
	r = req.header_only ? 0 : read_key(&key);
	if (r < 0) {
		code = r == -EFBIG ? LUKS_EXIT_USAGE : LUKS_EXIT_FAILED;
		if (r == -EFBIG)
			fprintf(stderr, "earlymount-luks: the key on standard input is longer than %u bytes\n",
				LUKS_KEY_MAX);
		else
			fprintf(stderr, "earlymount-luks: unable to read the key from standard input: %s\n",
				strerror(-r));
		goto out;
	}
	crypt_set_log_callback(NULL, keep_last_error, NULL);
	/* Without metadata locks libcryptsetup also skips the automatic repair of a damaged
	 * LUKS2 header copy (luks2_disk_metadata.c), its one write on load; and PID 1 runs no
	 * other cryptsetup that a lock would guard against, nor needs /run/cryptsetup then. */
	crypt_metadata_locking(NULL, 0);
	code = unlock(&req, &key);
out:
	wipe_key(&key);
	return code;
}
