/* Unlocks a LUKS device at boot through earlymount-luks (luks_helper.h): with a key file, a
 * passphrase typed earlier at this boot, or one asked for on the consoles. Effect layer. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct ask_watch;

struct luks_request {
	const char *name;       /* the device-mapper name: "root", "home", "luks-UUID" */
	const char *device;     /* the LUKS device node */
	const char *options;    /* crypttab's words (luks.h), as the plan gives them */
	const char *key_file;   /* "" or NULL: ask */
	const char *key_device; /* the device spec key_file is on; "" or NULL: the initramfs */
	/* the node (or spec) of the device a detached header is on (header=PATH:DEVICE), as the
	 * executor found it; "" or NULL: header= names a file of the image, or none */
	const char *header_device;
	const char *prompt;     /* what the passphrase prompt names */
	/* loads the module of a filesystem (the key device's); may be NULL */
	int (*ensure_fs)(const char *fstype, void *data);
	void *data;
	/* what the passphrase prompt does while it waits (ask_password.h); may be NULL */
	const struct ask_watch *watch;
	/* the systemd-tpm2 tokens the probe found in the header: none, no TPM asked */
	unsigned tpm2_tokens;
	/* a discovered root or /var: its volume key is measured into PCR 15 unless
	 * tpm2-measure-pcr= says otherwise (systemd-gpt-auto-generator's choice) */
	bool identity;
	/* a partition discovery found (not one named on the command line): under a measuring
	 * stub it waits for its TPM as tpm2-device=auto would (systemd-gpt-auto-generator) */
	bool discovered;
	/* systemd.tpm2_wait=: 1 wait for a TPM that is not there yet, 0 never, -1 as
	 * systemd-cryptsetup (unless the firmware of an EFI boot saw no TPM) */
	int tpm2_wait;
};

/* 0, or -errno with why saying what failed and what to try: -EPERM after the last wrong
 * passphrase, -ENOKEY when no key was at hand (headless), else the helper's failure. */
int luks_open(const struct luks_request *req, char *why, size_t why_size);

/* Seconds on CLOCK_BOOTTIME (timing.h) since which earlymount has been waiting for people
 * at passphrase prompts in all, and when the last passphrase was answered (0: never asked). */
double luks_prompt_seconds(void);
double luks_answered_at(void);

/* Wipes the passphrases kept for the other volumes of this boot: before the real init runs. */
void luks_forget(void);
