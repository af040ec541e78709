/* The Discoverable Partitions Specification's verity signature partition: a JSON object with
 * the root hash ("rootHash", hex) and a PKCS#7 signature of it ("signature", base64), padded
 * with NUL bytes. Read from the disk, so hostile: every byte string gives a refusal with a
 * reason or a hash and a signature within bounds. Pure; the kernel checks the signature. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "verity.h"

/* What is read of a signature partition: systemd-repart writes a few KiB. */
#define VERITY_SIG_JSON_MAX (64 * 1024)
#define VERITY_SIG_MAX (16 * 1024)
/* Nested arrays and objects skipped in other fields: deeper is no signature partition. */
#define VERITY_SIG_DEPTH_MAX 16

struct verity_sig {
	char root_hash[VERITY_HASH_HEX_MAX + 1];
	uint8_t signature[VERITY_SIG_MAX];
	size_t signature_len;
};

/* Reads the JSON in buf (up to the first NUL byte, or len). 0, or -EINVAL with why naming
 * what is wrong: not JSON, not an object, a field missing, given twice or malformed, a
 * signature larger than VERITY_SIG_MAX. */
int verity_sig_parse(const char *buf, size_t len, struct verity_sig *sig, char *why,
		     size_t why_size);
