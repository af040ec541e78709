/* The one flat JSON object of a signature partition, read with the strict reader of json.c:
 * the two fields it needs are taken, any other value is skipped. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base64.h"
#include "json.h"
#include "util.h"
#include "verity_sig.h"

#define KEY_MAX 32

/* The two fields the specification gives a meaning to; the rest is skipped. */
static bool member(struct json_reader *r, struct verity_sig *sig, bool *seen_hash, bool *seen_sig,
		   char *b64, size_t b64_size)
{
	char key[KEY_MAX];
	size_t n = 0;

	if (!json_string(r, key, sizeof(key), NULL) || !json_take(r, ':'))
		return json_fail(r, "a member name and ':' expected");
	if (streq(key, "rootHash")) {
		if (*seen_hash)
			return json_fail(r, "rootHash given twice");
		*seen_hash = true;
		if (!json_string(r, sig->root_hash, sizeof(sig->root_hash), &n))
			return false;
		if (n >= sizeof(sig->root_hash) || verity_hash_check(sig->root_hash) < 0)
			return json_fail(r, "rootHash is not a root hash in hex");
		return true;
	}
	if (streq(key, "signature")) {
		if (*seen_sig)
			return json_fail(r, "signature given twice");
		*seen_sig = true;
		if (!json_string(r, b64, b64_size, &n))
			return false;
		if (n >= b64_size || !base64_decode(b64, n, sig->signature, sizeof(sig->signature),
						    &sig->signature_len))
			return json_fail(r, "signature is not base64, or larger than 16 KiB");
		return true;
	}
	return json_skip(r);
}

int verity_sig_parse(const char *buf, size_t len, struct verity_sig *sig, char *why,
		     size_t why_size)
{
	char b64[VERITY_SIG_MAX / 3 * 4 + 8];
	struct json_reader r;
	bool seen_hash = false, seen_sig = false, ok;

	memset(sig, 0, sizeof(*sig));
	json_reader_init(&r, buf, len);
	ok = json_take(&r, '{') || json_fail(&r, "not a JSON object");
	if (ok && !json_take(&r, '}')) {
		do
			ok = member(&r, sig, &seen_hash, &seen_sig, b64, sizeof(b64));
		while (ok && json_take(&r, ','));
		ok = ok && (json_take(&r, '}') || json_fail(&r, "',' or '}' expected"));
	}
	ok = ok && json_end(&r);
	if (ok && !seen_hash)
		ok = json_fail(&r, "no rootHash");
	if (ok && !seen_sig)
		ok = json_fail(&r, "no signature");
	if (ok)
		return 0;
	set_why(why, why_size, "%s (at byte %zu)", r.error, r.pos);
	memset(sig, 0, sizeof(*sig));
	return -EINVAL;
}
