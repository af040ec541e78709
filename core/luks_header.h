/* A LUKS header as the disk holds it, checked for what the boot's unlock needs (the LUKS2
 * on-disk format: a 4 KiB binary header, then the JSON metadata, and a second copy of both).
 * Data in, data out: the probe reads the bytes, the planner refuses what the boot would, and
 * `earlymount plan --image` says so before the boot. The checksums are libcryptsetup's to
 * verify, at the unlock. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LUKS_BINARY_HEADER 4096
/* The largest header LUKS2 allows: 4 MiB, JSON area included. */
#define LUKS2_HEADER_MAX (4 * 1024 * 1024)
#define LUKS2_KEYSLOTS_MAX 32

struct luks_binary {
	unsigned version;  /* 1 or 2 */
	uint64_t hdr_size; /* LUKS2: this copy's binary header and JSON area */
};

/* The binary header at the start of bytes (len of them) as copy 1 (magic LUKS\xba\xbe) or
 * copy 2 (SKUL\xba\xbe): 0, or -EINVAL with why. */
int luks_binary_parse(const uint8_t *bytes, size_t len, int copy, struct luks_binary *out,
		      char *why, size_t why_size);

struct luks2_summary {
	unsigned keyslots;     /* keyslots of the header */
	unsigned usable;       /* of those, opened by a passphrase or key file into a segment */
	char tokens[96];       /* "systemd-fido2 (keyslot 1), …": what the unlock does not use */
	unsigned tpm2_tokens;  /* systemd-tpm2 tokens the unlock can try */
	bool tpm2_pin;         /* one of them wants a PIN */
	char tpm2_error[160];  /* why a systemd-tpm2 token cannot be used ("" when all can) */
	/* every segment has dm-integrity: an "integrity" object whose type is not "none" (what
	 * cryptsetup luksFormat --integrity writes); false when there is no segment */
	bool integrity;
};

/* The JSON metadata of a LUKS2 header (len bytes, or up to a NUL): 0 when a passphrase or key
 * file can open a segment through it, else -EINVAL with why: malformed JSON, a part the
 * format requires missing, a requirement libcryptsetup will not meet at boot (an interrupted
 * reencryption), no keyslot a digest ties to a segment. */
int luks2_json_check(const char *json, size_t len, struct luks2_summary *out, char *why,
		     size_t why_size);

/* Both: the header of a LUKS device from its first bytes and, for LUKS2, the second copy at
 * its offset (read_at reads len bytes at offset into buf: the bytes read, or -errno). The
 * first usable copy wins, as in libcryptsetup. 0, or -EINVAL with why naming both copies'
 * faults. */
typedef long luks_read_fn(void *ctx, uint64_t offset, void *buf, size_t len);
int luks_header_check(luks_read_fn *read_at, void *ctx, struct luks2_summary *out, char *why,
		      size_t why_size);
