/* The options and key specs of systemd's LUKS command line (rd.luks.options=,
 * rd.luks.key=), read the way systemd-cryptsetup reads crypttab. Pure. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "luks.h"
#include "parse.h"
#include "tpm2_command.h"
#include "util.h"

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-:_."

enum luks_word {
	WORD_READONLY,
	WORD_DISCARD,
	WORD_NO_READ_WORKQUEUE,
	WORD_NO_WRITE_WORKQUEUE,
	WORD_HEADLESS,
	WORD_NOFAIL,
	WORD_TRIES,
	WORD_TIMEOUT,
	WORD_KEYFILE_TIMEOUT,
	WORD_KEYFILE_OFFSET,
	WORD_KEYFILE_SIZE,
	WORD_TPM2_DEVICE,
	WORD_TOKEN_TIMEOUT,
	WORD_TPM2_PCRS,
	WORD_TPM2_MEASURE_PCR,
	WORD_TPM2_MEASURE_BANK,
	WORD_PLAIN,
	WORD_CIPHER,
	WORD_SIZE,
	WORD_HASH,
	WORD_OFFSET,
	WORD_SKIP,
	WORD_HEADER,
	WORD_IGNORED,
};

enum value_kind {
	VALUE_NONE,
	VALUE_COUNT,
	VALUE_SPAN,
	VALUE_BYTES,
	VALUE_OPTIONAL_BOOL,
	VALUE_DEVICE,
	VALUE_PCRS,       /* PCRs joined by '+', by number or systemd's name */
	VALUE_PCR_OR_BOOL,
	VALUE_BANKS,      /* bank names joined by ':' */
	VALUE_NAME,       /* a cipher's or hash's name: letters, digits, '-', ':', '_', '.' */
	VALUE_PATH,       /* an absolute path (of the image: a device after ':' is refused) */
};

/* crypttab's words earlymount acts on; "luks", "x-initrd.attach" and "initramfs"
 * (cryptsetup-initramfs: put the entry in the image) say what is true anyway. */
static const struct luks_word_name {
	const char *word;
	enum luks_word id;
	enum value_kind value;
} luks_words[] = {
	{ "readonly", WORD_READONLY, VALUE_NONE },
	{ "read-only", WORD_READONLY, VALUE_NONE },
	{ "discard", WORD_DISCARD, VALUE_NONE },
	{ "no-read-workqueue", WORD_NO_READ_WORKQUEUE, VALUE_NONE },
	{ "no-write-workqueue", WORD_NO_WRITE_WORKQUEUE, VALUE_NONE },
	{ "headless", WORD_HEADLESS, VALUE_OPTIONAL_BOOL },
	{ "nofail", WORD_NOFAIL, VALUE_NONE },
	{ "tries", WORD_TRIES, VALUE_COUNT },
	{ "timeout", WORD_TIMEOUT, VALUE_SPAN },
	{ "keyfile-timeout", WORD_KEYFILE_TIMEOUT, VALUE_SPAN },
	{ "keyfile-offset", WORD_KEYFILE_OFFSET, VALUE_BYTES },
	{ "keyfile-size", WORD_KEYFILE_SIZE, VALUE_BYTES },
	{ "tpm2-device", WORD_TPM2_DEVICE, VALUE_DEVICE },
	{ "token-timeout", WORD_TOKEN_TIMEOUT, VALUE_SPAN },
	{ "tpm2-pcrs", WORD_TPM2_PCRS, VALUE_PCRS },
	{ "tpm2-measure-pcr", WORD_TPM2_MEASURE_PCR, VALUE_PCR_OR_BOOL },
	{ "tpm2-measure-bank", WORD_TPM2_MEASURE_BANK, VALUE_BANKS },
	/* plain dm-crypt, as systemd-cryptsetup opens it; cipher=, size= and hash= count only
	 * for plain, offset= and skip= are 512-byte sectors */
	{ "plain", WORD_PLAIN, VALUE_NONE },
	{ "cipher", WORD_CIPHER, VALUE_NAME },
	{ "size", WORD_SIZE, VALUE_COUNT },
	{ "hash", WORD_HASH, VALUE_NAME },
	{ "offset", WORD_OFFSET, VALUE_BYTES },
	{ "skip", WORD_SKIP, VALUE_BYTES },
	/* a detached LUKS header: a file of the image, or PATH:DEVICE on another device */
	{ "header", WORD_HEADER, VALUE_PATH },
	/* a token says itself whether it wants a PIN; systemd reads this word only when it
	 * unseals a key given outside the header, which earlymount does not */
	{ "tpm2-pin", WORD_IGNORED, VALUE_OPTIONAL_BOOL },
	{ "luks", WORD_IGNORED, VALUE_NONE },
	{ "x-initrd.attach", WORD_IGNORED, VALUE_NONE },
	{ "initramfs", WORD_IGNORED, VALUE_NONE },
};

/* crypttab's words for what earlymount does not open, or opens only another way: refused,
 * never passed over, so that a volume is not opened other than its entry says. */
static const struct luks_refused {
	const char *word;
	const char *why;
} luks_refused[] = {
	{ "keyscript", "earlymount runs no key scripts; name a key file in the entry's third field, "
		       "or none to be asked for the passphrase" },
	{ "tcrypt", "TrueCrypt and VeraCrypt volumes are not opened by earlymount" },
	{ "tcrypt-hidden", "TrueCrypt and VeraCrypt volumes are not opened by earlymount" },
	{ "tcrypt-system", "TrueCrypt and VeraCrypt volumes are not opened by earlymount" },
	{ "tcrypt-veracrypt", "TrueCrypt and VeraCrypt volumes are not opened by earlymount" },
	{ "veracrypt-pim", "TrueCrypt and VeraCrypt volumes are not opened by earlymount" },
	{ "bitlk", "BitLocker volumes are not opened by earlymount" },
	{ "pkcs11-uri", "PKCS#11 tokens are not read by earlymount; use a passphrase, a key file "
			"or a TPM2 token" },
	{ "fido2-device", "FIDO2 tokens are not read by earlymount; use a passphrase, a key file "
			  "or a TPM2 token" },
};

/* The PCRs systemd names (tpm2-util.c's table, the UAPI's PCR registry). */
static const struct {
	const char *name;
	unsigned pcr;
} pcr_names[] = {
	{ "platform-code", 0 },       { "platform-config", 1 },    { "external-code", 2 },
	{ "external-config", 3 },     { "boot-loader-code", 4 },   { "boot-loader-config", 5 },
	{ "host-platform", 6 },       { "secure-boot-policy", 7 }, { "kernel-initrd", 9 },
	{ "ima", 10 },                { "kernel-boot", 11 },       { "kernel-config", 12 },
	{ "sysexts", 13 },            { "shim-policy", 14 },       { "system-identity", 15 },
	{ "debug", 16 },              { "application-support", 23 },
};

/* One PCR, by number or name: 0, or -EINVAL. */
static int parse_pcr(const char *v, size_t len, unsigned *pcr)
{
	uint64_t n = 0;
	int r = parse_decimal(v, len, TPM2_PCRS - 1, &n);

	*pcr = (unsigned)n;
	for (size_t i = 0; i < ARRAY_SIZE(pcr_names) && r < 0; i++)
		if (strlen(pcr_names[i].name) == len && memcmp(pcr_names[i].name, v, len) == 0) {
			*pcr = pcr_names[i].pcr;
			r = 0;
		}
	return r < 0 ? -EINVAL : 0;
}

/* "7+11", "secure-boot-policy+kernel-boot", "" (no PCR): a mask. */
static int parse_pcr_list(const char *v, size_t len, uint64_t *mask)
{
	int r = 0;

	*mask = 0;
	/* each '+' must be followed by a PCR: "7+" is refused */
	for (size_t at = 0; len && at <= len && r == 0;) {
		size_t n = 0;
		unsigned pcr;

		while (at + n < len && v[at + n] != '+')
			n++;
		r = parse_pcr(v + at, n, &pcr);
		*mask |= UINT64_C(1) << pcr;
		at += n + 1;
	}
	return r;
}

/* "sha256:sha1": each a bank systemd names. */
static int check_banks(const char *v, size_t len)
{
	int r = len ? 0 : -EINVAL;

	for (size_t at = 0; at <= len && r == 0;) {
		size_t n = 0;

		while (at + n < len && v[at + n] != ':')
			n++;
		r = tpm2_bank_by_name(v + at, n) ? 0 : -EINVAL;
		at += n + 1;
	}
	return r;
}

/* The length of the name of the word w (len bytes): up to its '=', if any. */
static size_t name_length(const char *w, size_t len)
{
	size_t name_len = strcspn(w, "=");

	return name_len < len ? name_len : len;
}

static bool named(const char *w, size_t name_len, const char *word)
{
	return strlen(word) == name_len && strncmp(w, word, name_len) == 0;
}

static const struct luks_word_name *word_by_name(const char *w, size_t len, const char **value)
{
	size_t name_len = name_length(w, len);

	*value = name_len < len ? w + name_len + 1 : NULL;
	for (size_t i = 0; i < ARRAY_SIZE(luks_words); i++)
		if (named(w, name_len, luks_words[i].word))
			return &luks_words[i];
	return NULL;
}

static const struct luks_refused *refused_by_name(const char *w, size_t len)
{
	size_t name_len = name_length(w, len);

	for (size_t i = 0; i < ARRAY_SIZE(luks_refused); i++)
		if (named(w, name_len, luks_refused[i].word))
			return &luks_refused[i];
	return NULL;
}

static void unknown_add(struct luks_options *o, const char *w, size_t len)
{
	size_t used = strlen(o->unknown);

	if (used + len + 2 <= sizeof(o->unknown))
		snprintf(o->unknown + used, sizeof(o->unknown) - used, "%s%.*s", used ? "," : "",
			 (int)len, w);
}

/* header=PATH[:DEVICE]: an absolute path, more than "/", that fits its field */
static int check_path(const char *v, size_t len)
{
	char path[sizeof(((struct luks_options *)0)->header)];
	char device[sizeof(((struct luks_options *)0)->header_device)];
	char spec[sizeof(path) + sizeof(device)];
	int r = len < sizeof(spec) ? 0 : -EINVAL;

	if (r == 0) {
		memcpy(spec, v, len);
		spec[len] = '\0';
		r = luks_key_parse(spec, path, sizeof(path), device, sizeof(device));
	}
	return r == 0 && path[1] ? 0 : -EINVAL;
}

static int parse_value(const struct luks_word_name *f, const char *v, size_t len, uint64_t *n)
{
	char text[64];
	int sec = 0;
	int r = -EINVAL;

	switch (f->value) {
	case VALUE_NONE:
		r = v ? -EINVAL : 0;
		break;
	case VALUE_OPTIONAL_BOOL:
		*n = 1;
		r = 0;
		if (v && len < sizeof(text)) {
			memcpy(text, v, len);
			text[len] = '\0';
			r = parse_boolean(text);
			*n = r > 0;
		} else if (v) {
			r = -EINVAL;
		}
		break;
	case VALUE_COUNT:
		r = v ? parse_decimal(v, len, INT_MAX, n) : -EINVAL;
		break;
	case VALUE_BYTES:
		r = v ? parse_decimal(v, len, UINT64_MAX, n) : -EINVAL;
		break;
	case VALUE_DEVICE: /* the value is taken by luks_options_parse() */
		r = v && len > 0 && len < sizeof(((struct luks_options *)0)->tpm2_device) &&
				    (v[0] == '/' || (len == 4 && memcmp(v, "auto", 4) == 0))
			    ? 0
			    : -EINVAL;
		break;
	case VALUE_PCRS:
		r = v ? parse_pcr_list(v, len, n) : -EINVAL;
		break;
	case VALUE_PCR_OR_BOOL:
		r = -EINVAL;
		if (v && len < sizeof(text)) {
			unsigned pcr;

			memcpy(text, v, len);
			text[len] = '\0';
			r = parse_pcr(v, len, &pcr);
			*n = (uint64_t)pcr;
			if (r < 0 && (r = parse_boolean(text)) >= 0)
				*n = r ? LUKS_MEASURE_PCR : (uint64_t)(int64_t)LUKS_MEASURE_NO;
		}
		break;
	case VALUE_BANKS:
		r = v && len < sizeof(((struct luks_options *)0)->tpm2_measure_banks)
			    ? check_banks(v, len)
			    : -EINVAL;
		break;
	case VALUE_NAME: /* taken by luks_options_parse() */
		r = v && len > 0 && len < sizeof(((struct luks_options *)0)->cipher) &&
				    len < sizeof(((struct luks_options *)0)->hash) &&
				    strspn(v, NAME_CHARS) >= len
			    ? 0
			    : -EINVAL;
		break;
	case VALUE_PATH: /* taken by luks_options_parse() */
		r = v ? check_path(v, len) : -EINVAL;
		break;
	case VALUE_SPAN:
		if (v && len < sizeof(text)) {
			memcpy(text, v, len);
			text[len] = '\0';
			r = parse_time_span(text, &sec);
			*n = (uint64_t)sec;
		}
		break;
	}
	return r < 0 ? -EINVAL : 0;
}

static void apply_word(struct luks_options *o, enum luks_word id, uint64_t n)
{
	switch (id) {
	case WORD_READONLY: o->readonly = true; break;
	case WORD_DISCARD: o->discard = true; break;
	case WORD_NO_READ_WORKQUEUE: o->no_read_workqueue = true; break;
	case WORD_NO_WRITE_WORKQUEUE: o->no_write_workqueue = true; break;
	case WORD_HEADLESS: o->headless = n != 0; break;
	case WORD_NOFAIL: o->nofail = true; break;
	case WORD_TRIES: o->tries = (int)n; break;
	case WORD_TIMEOUT: o->timeout_sec = (int)n; break;
	case WORD_KEYFILE_TIMEOUT: o->keyfile_timeout_sec = (int)n; break;
	case WORD_KEYFILE_OFFSET: o->keyfile_offset = n; break;
	case WORD_KEYFILE_SIZE: o->keyfile_size = n; break;
	case WORD_TOKEN_TIMEOUT: o->token_timeout_sec = (int)n; break;
	case WORD_TPM2_PCRS:
		o->tpm2_pcrs_given = true;
		o->tpm2_pcrs = (uint32_t)n;
		break;
	case WORD_TPM2_MEASURE_PCR: o->tpm2_measure_pcr = (int)(int64_t)n; break;
	case WORD_PLAIN: o->plain = true; break;
	case WORD_SIZE: o->key_size_bits = (unsigned)n; break;
	case WORD_OFFSET: o->offset = n; break;
	case WORD_SKIP: o->skip = n; break;
	case WORD_CIPHER: break;
	case WORD_HASH: break;
	case WORD_HEADER: break;
	case WORD_TPM2_DEVICE: break;
	case WORD_TPM2_MEASURE_BANK: break;
	case WORD_IGNORED: break;
	}
}

/* The value of a word that is text (cipher=, hash=, header=) into its field; parse_value()
 * checked that it fits. */
static void set_text(struct luks_options *o, enum luks_word id, const char *v, size_t len)
{
	char text[sizeof(o->header) + sizeof(o->header_device)];

	snprintf(text, sizeof(text), "%.*s", (int)len, v);
	if (id == WORD_HEADER)
		(void)luks_key_parse(text, o->header, sizeof(o->header), o->header_device,
				     sizeof(o->header_device));
	else
		(void)copy_str(id == WORD_CIPHER ? o->cipher : o->hash,
			       id == WORD_CIPHER ? sizeof(o->cipher) : sizeof(o->hash), text);
}

/* What plain dm-crypt needs to make its key: a size in whole bytes, and a header is LUKS's. */
static int check_plain(const struct luks_options *o, char *why, size_t why_size)
{
	int r = 0;

	if (o->key_size_bits && (o->key_size_bits % 8 || o->key_size_bits > 4096)) {
		r = -EINVAL;
		set_why(why, why_size, "LUKS option 'size=%u': a key size in bits, a multiple of 8 up "
			"to 4096, expected", o->key_size_bits);
	} else if (o->plain && o->header[0]) {
		r = -EINVAL;
		set_why(why, why_size, "LUKS options 'plain' and 'header=': plain dm-crypt has no header");
	}
	return r;
}

int luks_options_parse(const char *text, struct luks_options *o, char *why, size_t why_size)
{
	int r = 0;

	memset(o, 0, sizeof(*o));
	o->tries = LUKS_DEFAULT_TRIES;
	o->keyfile_timeout_sec = -1;
	o->token_timeout_sec = LUKS_DEFAULT_TOKEN_TIMEOUT;
	o->tpm2_measure_pcr = LUKS_MEASURE_DEFAULT;
	for (const char *w = text ? text : ""; *w && r == 0;) {
		size_t len = strcspn(w, ",");
		const char *value;
		const struct luks_word_name *f = word_by_name(w, len, &value);
		const struct luks_refused *refused = f ? NULL : refused_by_name(w, len);
		uint64_t n = 0;

		if (refused) {
			r = -EOPNOTSUPP;
			set_why(why, why_size, "LUKS option '%.*s': %s", (int)len, w, refused->why);
		} else if (f) {
			r = parse_value(f, value, value ? len - (size_t)(value - w) : 0, &n);
			if (r < 0)
				set_why(why, why_size, "LUKS option '%.*s': %s", (int)len, w,
					f->value == VALUE_NONE ? "takes no value"
					: f->value == VALUE_SPAN ? "a time span expected (10s, 2min)"
					: f->value == VALUE_OPTIONAL_BOOL ? "yes or no expected"
					: f->value == VALUE_DEVICE ? "auto or a device path expected"
					: f->value == VALUE_PCRS ? "PCRs joined by '+' expected (7+11)"
					: f->value == VALUE_PCR_OR_BOOL ? "yes, no or a PCR (0 to 23) expected"
					: f->value == VALUE_BANKS ? "banks joined by ':' expected ("
								    TPM2_BANK_NAMES ")"
					: f->value == VALUE_NAME ? "a cipher's or hash's name expected"
					: f->value == VALUE_PATH ? "an absolute path expected, of the image "
								   "or PATH:DEVICE on another device"
					: "a number expected");
			else
				apply_word(o, f->id, n);
			if (r == 0 && f->value == VALUE_DEVICE)
				snprintf(o->tpm2_device, sizeof(o->tpm2_device), "%.*s",
					 (int)(len - (size_t)(value - w)), value);
			if (r == 0 && f->value == VALUE_BANKS)
				snprintf(o->tpm2_measure_banks, sizeof(o->tpm2_measure_banks), "%.*s",
					 (int)(len - (size_t)(value - w)), value);
			if (r == 0 && (f->value == VALUE_NAME || f->value == VALUE_PATH))
				set_text(o, f->id, value, len - (size_t)(value - w));
		} else if (len) {
			unknown_add(o, w, len);
		}
		w += len;
		w += *w == ',';
	}
	if (r == 0)
		r = check_plain(o, why, why_size);
	return r;
}

void luks_options_format(const struct luks_options *o, char *out, size_t size)
{
	struct { bool on; const char *word; } flags[] = {
		{ o->readonly, "readonly" },
		{ o->discard, "discard" },
		{ o->no_read_workqueue, "no-read-workqueue" },
		{ o->no_write_workqueue, "no-write-workqueue" },
		{ o->headless, "headless" },
		{ o->nofail, "nofail" },
	};
	size_t used = 0;

	if (size == 0)
		return;
	out[0] = '\0';
#define ADD(...) \
	do { \
		if (used < size) \
			used += (size_t)snprintf(out + used, size - used, __VA_ARGS__); \
	} while (0)
	for (size_t i = 0; i < ARRAY_SIZE(flags); i++)
		if (flags[i].on)
			ADD("%s%s", used ? "," : "", flags[i].word);
	if (o->tries != LUKS_DEFAULT_TRIES)
		ADD("%stries=%d", used ? "," : "", o->tries);
	if (o->timeout_sec)
		ADD("%stimeout=%ds", used ? "," : "", o->timeout_sec);
	if (o->keyfile_timeout_sec >= 0)
		ADD("%skeyfile-timeout=%ds", used ? "," : "", o->keyfile_timeout_sec);
	if (o->keyfile_offset)
		ADD("%skeyfile-offset=%" PRIu64, used ? "," : "", o->keyfile_offset);
	if (o->keyfile_size)
		ADD("%skeyfile-size=%" PRIu64, used ? "," : "", o->keyfile_size);
	if (o->tpm2_device[0])
		ADD("%stpm2-device=%s", used ? "," : "", o->tpm2_device);
	if (o->token_timeout_sec != LUKS_DEFAULT_TOKEN_TIMEOUT)
		ADD("%stoken-timeout=%ds", used ? "," : "", o->token_timeout_sec);
	if (o->tpm2_pcrs_given) {
		ADD("%stpm2-pcrs=", used ? "," : "");
		for (unsigned pcr = 0, first = 1; pcr < TPM2_PCRS; pcr++)
			if (o->tpm2_pcrs & (UINT32_C(1) << pcr)) {
				ADD("%s%u", first ? "" : "+", pcr);
				first = 0;
			}
	}
	if (o->tpm2_measure_pcr == LUKS_MEASURE_NO)
		ADD("%stpm2-measure-pcr=no", used ? "," : "");
	else if (o->tpm2_measure_pcr >= 0)
		ADD("%stpm2-measure-pcr=%d", used ? "," : "", o->tpm2_measure_pcr);
	if (o->tpm2_measure_banks[0])
		ADD("%stpm2-measure-bank=%s", used ? "," : "", o->tpm2_measure_banks);
	if (o->plain)
		ADD("%splain", used ? "," : "");
	if (o->cipher[0])
		ADD("%scipher=%s", used ? "," : "", o->cipher);
	if (o->key_size_bits)
		ADD("%ssize=%u", used ? "," : "", o->key_size_bits);
	if (o->hash[0])
		ADD("%shash=%s", used ? "," : "", o->hash);
	if (o->offset)
		ADD("%soffset=%" PRIu64, used ? "," : "", o->offset);
	if (o->skip)
		ADD("%sskip=%" PRIu64, used ? "," : "", o->skip);
	if (o->header[0])
		ADD("%sheader=%s%s%s", used ? "," : "", o->header, o->header_device[0] ? ":" : "",
		    o->header_device);
#undef ADD
}

int luks_key_parse(const char *spec, char *path, size_t path_size, char *device,
		   size_t device_size)
{
	const char *colon = spec ? strrchr(spec, ':') : NULL;
	size_t path_len;
	int r = -EINVAL;

	if (!spec || spec[0] != '/')
		goto out;
	/* A colon at the end names no device: it belongs to the path. */
	if (colon && !colon[1])
		colon = NULL;
	path_len = colon ? (size_t)(colon - spec) : strlen(spec);
	r = -ENAMETOOLONG;
	if (path_len >= path_size || (colon && strlen(colon + 1) >= device_size))
		goto out;
	memcpy(path, spec, path_len);
	path[path_len] = '\0';
	r = copy_str(device, device_size, colon ? colon + 1 : "");
out:
	return r;
}
