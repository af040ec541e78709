/* Unlocking at boot. libcryptsetup lives in earlymount-luks, a helper added to the image
 * only when it is asked for, so this file runs it: the key goes down a pipe, one line of
 * reason comes back on failure, and the exit code says which failure (luks_helper.h). The
 * order is systemd's: the key file, then the TPM2 tokens (with a PIN when one asks for it),
 * then a passphrase; a passphrase that opened one volume is tried on the next before anyone
 * is asked again. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ask_password.h"
#include "child.h"
#include "file_device.h"
#include "fileio.h"
#include "log.h"
#include "luks.h"
#include "luks_helper.h"
#include "luks_key.h"
#include "luks_measure.h"
#include "node_wait.h"
#include "paths.h"
#include "tpm2_measure.h"
#include "luks_open.h"
#include "timing.h"
#include "util.h"

#define HELPER_MESSAGE 256
#define HEADER_MOUNT EARLYMOUNT_RUN "/header-device"
#define HELPER_OUTPUT 1024 /* the message, and the measurement line (luks_helper.h) */
#define CACHED_MAX 4

/* Passphrases typed at this boot, newest first; wiped by luks_forget(). */
static struct {
	char text[ASK_PASSWORD_MAX];
	size_t len;
} cached[CACHED_MAX];
static size_t n_cached;
static double prompt_seconds;
static double answered_at;

static void cache_add(const char *text, size_t len)
{
	if (n_cached == 0)
		(void)mlock(cached, sizeof(cached));
	memmove(&cached[1], &cached[0], sizeof(cached[0]) * (CACHED_MAX - 1));
	memcpy(cached[0].text, text, len);
	cached[0].len = len;
	if (n_cached < CACHED_MAX)
		n_cached++;
}

double luks_prompt_seconds(void)
{
	return prompt_seconds;
}

double luks_answered_at(void)
{
	return answered_at;
}

void luks_forget(void)
{
	explicit_bzero(cached, sizeof(cached));
	n_cached = 0;
}

/* src into dst, cut to fit. */
static void copy_cut(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The helper's output: its message (the first other line) into msg, its measurement line
 * into measured (may be NULL). */
static void split_output(char *out, char *msg, size_t msg_size, char *measured,
			 size_t measured_size)
{
	bool have_msg = false;

	msg[0] = '\0';
	if (measured)
		measured[0] = '\0';
	for (char *line = out, *next; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (startswith(line, LUKS_MEASURE_PREFIX " ")) {
			if (measured)
				copy_cut(measured, measured_size, line);
		} else if (!have_msg) {
			copy_cut(msg, msg_size, line);
			have_msg = true;
		}
	}
}

static void read_output(int fd, char *msg, size_t size)
{
	size_t used = 0;
	char sink[128];

	for (;;) {
		ssize_t n = used + 1 < size ? read(fd, msg + used, size - 1 - used)
					    : read(fd, sink, sizeof(sink));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (used + 1 < size)
			used += (size_t)n;
	}
	msg[used] = '\0';
}

/* Runs the helper with key on its stdin: its exit code, or -errno when it could not run. msg
 * gets its one line of reason, measured its measurement line (may be NULL). */
static int run_helper(const char *const argv[], const char *key, size_t len, char *msg,
		      size_t msg_size, char *measured, size_t measured_size)
{
	static char out[HELPER_OUTPUT];
	int key_pipe[2] = { -1, -1 }, msg_pipe[2] = { -1, -1 };
	struct sigaction ignore = { .sa_handler = SIG_IGN }, saved;
	int status = 0;
	pid_t pid;
	int r = 0;

	msg[0] = '\0';
	if (pipe2(key_pipe, O_CLOEXEC) < 0 || pipe2(msg_pipe, O_CLOEXEC) < 0) {
		r = -errno;
		goto out;
	}
	r = child_start(&(struct child_spec){ .argv = argv, .in = key_pipe[0], .out = msg_pipe[1],
					     .err = msg_pipe[1], .exec_failed = LUKS_EXIT_FAILED },
			&pid);
	if (r < 0)
		goto out;
	close(key_pipe[0]);
	close(msg_pipe[1]);
	key_pipe[0] = msg_pipe[1] = -1;
	/* a helper that died early must not take PID 1 with it through SIGPIPE */
	sigaction(SIGPIPE, &ignore, &saved);
	(void)write_all(key_pipe[1], key, len);
	sigaction(SIGPIPE, &saved, NULL);
	close(key_pipe[1]);
	key_pipe[1] = -1;
	read_output(msg_pipe[0], out, sizeof(out));
	split_output(out, msg, msg_size, measured, measured_size);
	r = child_wait(pid, &status);
	if (r < 0)
		goto out;
	r = WIFEXITED(status) ? WEXITSTATUS(status) : LUKS_EXIT_FAILED;
	if (!WIFEXITED(status))
		snprintf(msg, msg_size, "%s was killed by signal %d", argv[0], WTERMSIG(status));
out:
	for (int i = 0; i < 2; i++) {
		if (key_pipe[i] >= 0)
			close(key_pipe[i]);
		if (msg_pipe[i] >= 0)
			close(msg_pipe[i]);
	}
	return r;
}

/* The header is read before anyone is asked: a damaged one would refuse every passphrase. */
static int check_header(const struct luks_request *req, const struct luks_options *o,
			char *why, size_t why_size)
{
	char header[sizeof("--header=") + sizeof(o->header)];
	const char *argv[] = { LUKS_HELPER_PATH, "check", req->device, header, NULL };
	char msg[HELPER_MESSAGE];
	int code;

	/* plain dm-crypt has no header to read, nor any passphrase it would refuse */
	if (o->plain)
		return 0;
	snprintf(header, sizeof(header), "--header=%s", o->header);
	if (!o->header[0])
		argv[3] = NULL;
	code = run_helper(argv, "", 0, msg, sizeof(msg), NULL, 0);
	if (code == LUKS_EXIT_OK)
		return 0;
	if (code == LUKS_EXIT_NO_HEADER)
		set_why(why, why_size, "%s holds no LUKS header earlymount-luks can read: %s — the "
			"header may be damaged; restore it from a luksHeaderBackup", req->device, msg);
	else
		set_why(why, why_size, "unable to read the LUKS header of %s: %s — the kernel may lack "
			"its crypto API (af_alg, algif_hash, algif_skcipher): build the image with "
			"earlymount initramfs --luks", req->device,
			code < 0 ? strerror(-code) : msg[0] ? msg : "earlymount-luks failed");
	return code < 0 ? code : code == LUKS_EXIT_NO_HEADER ? -EINVAL : -EIO;
}

/* The helper's arguments, and the text of those that carry a value. */
struct helper_args {
	const char *argv[24];
	char header[sizeof("--header=") + sizeof(((struct luks_options *)0)->header)];
	char cipher[sizeof("--cipher=") + sizeof(((struct luks_options *)0)->cipher)];
	char hash[sizeof("--hash=") + sizeof(((struct luks_options *)0)->hash)];
	char size[32], offset[48], skip[48];
};

/* Plain dm-crypt as systemd-cryptsetup opens it: aes-cbc-essiv:sha256 with a 256-bit key
 * unless the options say otherwise, the passphrase hashed with ripemd160, a key file's bytes
 * taken as they are (hash "plain"). */
static size_t plain_args(struct helper_args *a, size_t n, const struct luks_options *o,
			 bool from_file)
{
	const char *hash = o->hash[0] ? o->hash : from_file ? "plain" : "ripemd160";

	snprintf(a->cipher, sizeof(a->cipher), "--cipher=%s",
		 o->cipher[0] ? o->cipher : "aes-cbc-essiv:sha256");
	snprintf(a->size, sizeof(a->size), "--key-size=%u", o->key_size_bits ? o->key_size_bits : 256);
	snprintf(a->hash, sizeof(a->hash), "--hash=%s", hash);
	snprintf(a->offset, sizeof(a->offset), "--offset=%llu", (unsigned long long)o->offset);
	snprintf(a->skip, sizeof(a->skip), "--skip=%llu", (unsigned long long)o->skip);
	a->argv[n++] = "--plain";
	a->argv[n++] = a->cipher;
	a->argv[n++] = a->size;
	a->argv[n++] = a->hash;
	a->argv[n++] = a->offset;
	a->argv[n++] = a->skip;
	return n;
}

/* The helper's arguments for opening req's device, the command and its options; from_file:
 * the key is a key file's. */
static size_t open_args(struct helper_args *a, const char *command, const struct luks_request *req,
			const struct luks_options *o, bool from_file)
{
	size_t n = 0;

	a->argv[n++] = LUKS_HELPER_PATH;
	a->argv[n++] = command;
	a->argv[n++] = req->device;
	a->argv[n++] = req->name;
	if (o->readonly)
		a->argv[n++] = "--readonly";
	if (o->discard)
		a->argv[n++] = "--discard";
	if (o->no_read_workqueue)
		a->argv[n++] = "--no-read-workqueue";
	if (o->no_write_workqueue)
		a->argv[n++] = "--no-write-workqueue";
	if (o->tpm2_measure_pcr >= 0 && !o->plain)
		a->argv[n++] = "--measure";
	if (o->header[0]) {
		snprintf(a->header, sizeof(a->header), "--header=%s", o->header);
		a->argv[n++] = a->header;
	}
	if (o->plain)
		n = plain_args(a, n, o, from_file);
	a->argv[n] = NULL;
	return n;
}

/* A failure of the helper other than a wrong key: -errno, with why. */
static int helper_failure(const struct luks_request *req, int code, const char *msg, char *why,
			  size_t why_size)
{
	int r;

	switch (code) {
	case LUKS_EXIT_NO_HEADER:
		r = -EINVAL;
		set_why(why, why_size, "%s holds no LUKS header earlymount-luks can read: %s — the "
			"header may be damaged; restore it from a luksHeaderBackup", req->device, msg);
		break;
	case LUKS_EXIT_EXISTS:
		r = -EEXIST;
		set_why(why, why_size, "unable to unlock %s: /dev/mapper/%s exists already — give "
			"the volume another name with rd.luks.name=", req->device, req->name);
		break;
	default:
		r = code < 0 ? code : -EIO;
		set_why(why, why_size, "unable to unlock %s as /dev/mapper/%s: %s — the kernel may "
			"lack dm-crypt or the volume's cipher: build the image with earlymount "
			"initramfs --luks", req->device, req->name,
			code < 0 ? strerror(-code) : msg[0] ? msg : "earlymount-luks failed");
		break;
	}
	return r;
}

/* After an opening with --measure: the volume key's measurement. */
static void measure(const struct luks_request *req, const struct luks_options *o, int code,
		    const char *measured)
{
	if (code != LUKS_EXIT_OK || o->tpm2_measure_pcr < 0)
		return;
	if (measured[0])
		luks_measure_volume_key(req->prompt, o, o->tpm2_measure_pcr, measured);
	else
		log_warn("%s: earlymount-luks did not measure the volume key: PCR %d is not extended",
			 req->prompt, o->tpm2_measure_pcr);
}

/* Opens req's device with key (a key file's when from_file). 0; -EPERM when the key opens no
 * key slot; else -errno with why set: what the helper said, and what to try. */
static int try_key(const struct luks_request *req, const struct luks_options *o,
		   const char *key, size_t len, bool from_file, char *why, size_t why_size)
{
	static struct helper_args a;
	char msg[HELPER_MESSAGE], measured[HELPER_OUTPUT];
	int code;

	open_args(&a, "open", req, o, from_file);
	code = run_helper(a.argv, key, len, msg, sizeof(msg), measured, sizeof(measured));
	measure(req, o, code, measured);
	return code == LUKS_EXIT_OK	     ? 0
	       : code == LUKS_EXIT_BAD_KEY ? -EPERM
					   : helper_failure(req, code, msg, why, why_size);
}

/* 0; -ENOKEY with why saying what was wrong with the key file (the passphrase comes next);
 * else the helper's failure. */
static int try_key_file(const struct luks_request *req, const struct luks_options *o,
			char *why, size_t why_size)
{
	struct luks_key key;
	int r = luks_key_read(req->key_file, req->key_device, o, req->ensure_fs, req->data, &key,
			      why, why_size);

	if (r < 0) {
		r = -ENOKEY;
		goto out;
	}
	r = try_key(req, o, key.bytes, key.len, true, why, why_size);
	luks_key_free(&key);
	if (r == -EPERM) {
		set_why(why, why_size, "key file %s opens no key slot of %s", req->key_file,
			req->device);
		r = -ENOKEY;
	}
out:
	return r;
}

enum tpm_wait { TPM_WAIT, TPM_NOT_ASKED, TPM_SAID_NO, TPM_FIRMWARE_SAW_NONE };

/* Whether a TPM that is not there yet is worth waiting for. systemd-cryptsetup waits only
 * for a volume whose options name tpm2-device= (which systemd-gpt-auto-generator gives a
 * discovered volume under a measuring stub), and not when an EFI firmware saw no TPM (no
 * TPM2 ACPI table, no event log of its measurements); systemd.tpm2_wait= overrides both. */
static enum tpm_wait tpm_wait_rule(const struct luks_request *req, const struct luks_options *o)
{
	bool efi_saw_none = access("/sys/firmware/efi", F_OK) == 0 &&
			    access("/sys/firmware/acpi/tables/TPM2", F_OK) < 0 &&
			    access("/sys/kernel/security/tpm0/binary_bios_measurements", F_OK) < 0;

	if (req->tpm2_wait >= 0)
		return req->tpm2_wait ? TPM_WAIT : TPM_SAID_NO;
	if (!o->tpm2_device[0] && !(req->discovered && tpm2_stub_measured("the TPM wait")))
		return TPM_NOT_ASKED;
	return efi_saw_none ? TPM_FIRMWARE_SAW_NONE : TPM_WAIT;
}

static const char *const tpm_wait_reasons[] = {
	[TPM_WAIT] = " appeared within token-timeout=",
	[TPM_NOT_ASKED] = " (tpm2-device= would wait for one)",
	[TPM_SAID_NO] = " (systemd.tpm2_wait=no)",
	[TPM_FIRMWARE_SAW_NONE] = " (the firmware saw none)",
};

/* The TPM to ask, as the helper's argument: tpm2-device= names one, else the kernel's,
 * waited for token-timeout= as tpm_wait_rule() says. NULL when there is none, with *rule. */
static const char *tpm_device(const struct luks_request *req, const struct luks_options *o,
			      char *arg, size_t size, enum tpm_wait *rule)
{
	const char *named[] = { o->tpm2_device, NULL };
	const char *kernel[] = { "/dev/tpmrm0", "/dev/tpm0", NULL };
	const char *const *paths = o->tpm2_device[0] && !streq(o->tpm2_device, "auto") ? named
											 : kernel;
	int found = node_wait(paths, false, 0, NULL);
	/* node_wait() counts milliseconds in an int */
	int wait_ms = o->token_timeout_sec > INT_MAX / 1000 ? INT_MAX : o->token_timeout_sec * 1000;

	*rule = found < 0 ? tpm_wait_rule(req, o) : TPM_WAIT;
	if (found < 0 && *rule == TPM_WAIT) {
		if (o->token_timeout_sec)
			log_info("%s: waiting up to %d s for a TPM to unseal its TPM2 token "
				 "(token-timeout=)", req->prompt, o->token_timeout_sec);
		else
			log_info("%s: waiting for a TPM to unseal its TPM2 token (token-timeout=0: "
				 "no limit)", req->prompt);
		found = node_wait(paths, false, wait_ms ? wait_ms : -1, req->watch);
	}
	if (found < 0)
		return NULL;
	snprintf(arg, size, "--tpm2-device=%s", paths[found]);
	return arg;
}

/* The TPM2 tokens: 0; -ENOKEY when none unsealed a key that opens (the reason logged, the
 * passphrase comes next); else the helper's failure. A token that wants a PIN gets one
 * asked for, tries= times at most: the TPM counts wrong PINs toward its lockout. */
static int try_tpm2(const struct luks_request *req, const struct luks_options *o, char *why,
		    size_t why_size)
{
	static struct helper_args a;
	const char **argv = a.argv;
	char prompt[512], pin[ASK_PASSWORD_MAX], device_arg[96], pcrs_arg[32], msg[HELPER_MESSAGE];
	char measured[HELPER_OUTPUT];
	int len = 0, attempt = 0, code;
	double asked;
	enum tpm_wait rule;
	int r = -ENOKEY;
	size_t n;

	if (!tpm_device(req, o, device_arg, sizeof(device_arg), &rule)) {
		set_why(why, why_size, "no TPM2 device%s to unseal its TPM2 token%s",
			o->tpm2_device[0] && !streq(o->tpm2_device, "auto") ? " at tpm2-device=" : "",
			tpm_wait_reasons[rule]);
		log_warn("%s: %s%s", req->prompt, why, o->headless ? "" : "; asking for the passphrase");
		goto out;
	}
	(void)mlock(pin, sizeof(pin));
	n = open_args(&a, "tpm2", req, o, false);
	argv[n++] = device_arg;
	if (o->tpm2_pcrs_given) {
		snprintf(pcrs_arg, sizeof(pcrs_arg), "--tpm2-pcrs=%x", (unsigned)o->tpm2_pcrs);
		argv[n++] = pcrs_arg;
	}
	argv[n] = NULL;
	snprintf(prompt, sizeof(prompt), "Please enter TPM2 PIN for disk %s: ", req->prompt);
	for (;;) {
		code = run_helper(argv, pin, (size_t)len, msg, sizeof(msg), measured,
				  sizeof(measured));
		if (code != LUKS_EXIT_PIN || (attempt && o->tries && attempt >= o->tries) || o->headless)
			break;
		if (attempt)
			log_warn("%s: %s", req->prompt, msg);
		attempt++;
		asked = timing_now();
		len = ask_password(prompt, o->timeout_sec, req->watch, pin, sizeof(pin));
		answered_at = timing_now();
		prompt_seconds += answered_at - asked;
		if (len < 0) {
			snprintf(msg, sizeof(msg), "no PIN was typed");
			break;
		}
	}
	explicit_bzero(pin, sizeof(pin));
	munlock(pin, sizeof(pin));
	if (code == LUKS_EXIT_OK) {
		r = 0;
		log_info("%s: opened with its TPM2 token (%s)", req->prompt,
			 startswith(msg, "earlymount-luks: ") ? msg + strlen("earlymount-luks: ") : msg);
		measure(req, o, code, measured);
	} else if (code == LUKS_EXIT_NO_TOKEN || code == LUKS_EXIT_PIN) {
		set_why(why, why_size, "the TPM2 token did not open it: %s",
			msg[0] ? msg : "earlymount-luks failed");
		log_warn("%s: %s%s", req->prompt, why, o->headless ? "" : "; asking for the passphrase");
	} else
		r = helper_failure(req, code, msg, why, why_size);
out:
	return r;
}

static int try_cached(const struct luks_request *req, const struct luks_options *o, char *why,
		      size_t why_size)
{
	int r = -ENOKEY;

	for (size_t i = 0; i < n_cached && r == -ENOKEY; i++) {
		r = try_key(req, o, cached[i].text, cached[i].len, false, why, why_size);
		if (r == -EPERM)
			r = -ENOKEY;
	}
	if (r == 0)
		log_info("%s: opened with a passphrase typed earlier", req->prompt);
	return r;
}

static int ask_until_open(const struct luks_request *req, const struct luks_options *o,
			  char *why, size_t why_size)
{
	char prompt[512];
	char typed[ASK_PASSWORD_MAX];
	int attempt = 0;
	int r = -EPERM;

	(void)mlock(typed, sizeof(typed));
	snprintf(prompt, sizeof(prompt), "Please enter passphrase for disk %s: ", req->prompt);
	while (r == -EPERM && (o->tries == 0 || attempt < o->tries)) {
		double asked = timing_now();
		int len = ask_password(prompt, o->timeout_sec, req->watch, typed, sizeof(typed));

		answered_at = timing_now();
		prompt_seconds += answered_at - asked;
		attempt++;
		if (len < 0) {
			r = len;
			set_why(why, why_size, "no passphrase for %s: %s", req->prompt,
				len == -ETIMEDOUT ? "the prompt timed out (timeout=)"
				: len == -E2BIG ? "the line was longer than 511 bytes"
						: "there is no console to ask on");
			break;
		}
		r = try_key(req, o, typed, (size_t)len, false, why, why_size);
		if (r == 0)
			cache_add(typed, (size_t)len);
		else if (r == -EPERM && o->tries && attempt < o->tries)
			log_warn("wrong passphrase for %s, %d left", req->prompt, o->tries - attempt);
		else if (r == -EPERM && !o->tries)
			log_warn("wrong passphrase for %s; try again", req->prompt);
	}
	if (r == -EPERM)
		set_why(why, why_size, "unable to unlock %s: %d wrong passphrase%s — earlymount reads "
			"the keyboard with the kernel's default (US) layout; boot a rescue system "
			"to check the passphrase with cryptsetup open --test-passphrase", req->prompt,
			attempt, attempt == 1 ? "" : "s");
	explicit_bzero(typed, sizeof(typed));
	munlock(typed, sizeof(typed));
	return r;
}

/* header=PATH:DEVICE: DEVICE mounted read-only for the time of the unlock, o->header then
 * the path under it. */
static int mount_header_device(const struct luks_request *req, struct luks_options *o,
			       char *why, size_t why_size)
{
	const char *device = req->header_device && req->header_device[0] ? req->header_device
									  : o->header_device;
	char path[sizeof(o->header)];
	int r = (size_t)snprintf(path, sizeof(path), "%s%s", HEADER_MOUNT, o->header) < sizeof(path)
			? 0
			: -ENAMETOOLONG;

	if (r < 0)
		set_why(why, why_size, "%s: the header path %s is too long", req->prompt, o->header);
	else
		r = file_device_mount(device, o->keyfile_timeout_sec, HEADER_MOUNT, "header",
				      req->ensure_fs, req->data, why, why_size);
	if (r == 0)
		memcpy(o->header, path, sizeof(path));
	return r;
}

int luks_open(const struct luks_request *req, char *why, size_t why_size)
{
	struct luks_options o;
	char key_why[256] = "", tpm_why[320] = "";
	bool header_mounted = false;
	int r = luks_options_parse(req->options, &o, why, why_size);

	if (r < 0)
		goto out;
	if (o.header_device[0]) {
		r = mount_header_device(req, &o, why, why_size);
		if (r < 0)
			goto out;
		header_mounted = true;
	}
	o.tpm2_measure_pcr = luks_measure_pcr(&o, req->identity, req->prompt);
	if (access(LUKS_HELPER_PATH, X_OK) < 0) {
		r = -ENOENT;
		set_why(why, why_size, "%s is encrypted and this initramfs cannot unlock it: it has "
			"no %s — build the image with earlymount initramfs --luks", req->prompt,
			LUKS_HELPER_PATH);
		goto out;
	}
	/* plain: a key file gives the key's bytes, keyfile-size= aside, as systemd reads it */
	if (o.plain)
		o.keyfile_size = (o.key_size_bits ? o.key_size_bits : 256) / 8;
	r = check_header(req, &o, why, why_size);
	if (r < 0)
		goto out;
	r = -ENOKEY;
	if (req->key_file && req->key_file[0]) {
		r = try_key_file(req, &o, key_why, sizeof(key_why));
		if (r == -ENOKEY)
			log_warn("%s: %s%s", req->prompt, key_why,
				 o.headless ? "" : "; asking for the passphrase");
		else if (r < 0)
			set_why(why, why_size, "%s", key_why);
	}
	if (r == -ENOKEY && req->tpm2_tokens) {
		r = try_tpm2(req, &o, tpm_why, sizeof(tpm_why));
		if (r < 0 && r != -ENOKEY)
			set_why(why, why_size, "%s", tpm_why);
	}
	/* plain dm-crypt takes any passphrase: one typed for another volume is never tried */
	if (r == -ENOKEY && !o.plain)
		r = try_cached(req, &o, why, why_size);
	if (r == -ENOKEY && o.headless)
		set_why(why, why_size, "unable to unlock %s: headless is set and %s", req->prompt,
			tpm_why[0] ? tpm_why : key_why[0] ? key_why : "no key file was given");
	else if (r == -ENOKEY)
		r = ask_until_open(req, &o, why, why_size);
out:
	if (header_mounted)
		file_device_umount(HEADER_MOUNT);
	return r;
}
