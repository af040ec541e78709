/* LUKS as systemd's cryptsetup generator reads the command line: the options of
 * rd.luks.options= (crypttab's words) and the key specs of rd.luks.key=. Pure: the planner
 * checks them, the plan carries them as text, and the unlocking reads them again. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LUKS_DEFAULT_TRIES 3
#define LUKS_DEFAULT_TOKEN_TIMEOUT 30 /* seconds a TPM is waited for, as systemd-cryptsetup */
#define LUKS_MEASURE_DEFAULT (-2)     /* tpm2-measure-pcr= not given */
#define LUKS_MEASURE_NO (-1)
#define LUKS_MEASURE_PCR 15           /* tpm2-measure-pcr=yes: systemd's "system identity" */

struct luks_options {
	bool readonly;
	bool discard;
	bool no_read_workqueue;
	bool no_write_workqueue;
	bool headless;           /* never ask: a key file or nothing */
	bool nofail;             /* a volume that stays locked does not stop the boot */
	int tries;               /* passphrase attempts; 0: until one works */
	int timeout_sec;         /* how long a prompt waits; 0: forever */
	int keyfile_timeout_sec; /* how long to wait for the key file's device; -1: not given */
	uint64_t keyfile_offset; /* bytes of the key file skipped */
	uint64_t keyfile_size;   /* bytes of the key file read; 0: all of it */
	char tpm2_device[64];    /* tpm2-device=: "auto", a device path, "" when not given */
	int token_timeout_sec;   /* token-timeout=: how long a TPM is waited for; 0: forever */
	bool tpm2_pcrs_given;    /* tpm2-pcrs=: only the tokens sealed to exactly these PCRs */
	uint32_t tpm2_pcrs;
	int tpm2_measure_pcr;    /* tpm2-measure-pcr=: 0 to 23, LUKS_MEASURE_NO or _DEFAULT */
	char tpm2_measure_banks[48]; /* tpm2-measure-bank=: "sha256:sha1", "" for the TPM's */
	/* plain dm-crypt (plain): the cipher (cipher=, "" for aes-cbc-essiv:sha256), the key size
	 * in bits (size=, 0 for 256), the passphrase's hash (hash=, "" for ripemd160 with a
	 * passphrase and none with a key file; "plain": none), sectors of the device before the
	 * data (offset=) and of the IV (skip=) */
	bool plain;
	char cipher[64];
	unsigned key_size_bits;
	char hash[64];
	uint64_t offset;
	uint64_t skip;
	/* header=PATH[:DEVICE]: a detached LUKS header, a file of the image, or of the
	 * filesystem on DEVICE (a device spec: /dev path, UUID=, LABEL=, …) when given */
	char header[64 * 2];
	char header_device[64 * 2];
	char unknown[128];       /* words not known, comma-separated, for a note */
};

/* Parses crypttab's comma-separated options (rd.luks.options=). Unknown words are collected
 * in o->unknown, not refused: a line written for systemd still boots. 0; -EINVAL with why
 * saying which value is malformed; -EOPNOTSUPP with why naming a word that asks to open the
 * volume in a way earlymount does not (keyscript=, tcrypt, bitlk, pkcs11-uri=, fido2-device=):
 * such a volume is refused, never opened another way. */
int luks_options_parse(const char *text, struct luks_options *o, char *why, size_t why_size);
/* The options in their canonical words, defaults left out ("" when none). */
void luks_options_format(const struct luks_options *o, char *out, size_t size);

/* Splits a key spec PATH[:DEVICE] of rd.luks.key=. The path must be absolute; DEVICE is a
 * device spec (a /dev path, UUID=, LABEL=, …) whose filesystem holds PATH, "" when absent.
 * 0, -EINVAL (not a key spec) or -ENAMETOOLONG. */
int luks_key_parse(const char *spec, char *path, size_t path_size, char *device,
		   size_t device_size);
