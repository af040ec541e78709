/* The systemd-tpm2 token's fields, each read by a row of a table: its JSON name and how its
 * value is taken. Fields systemd added later (tpm2_salt in 253, tpm2_srk in 254, …) are read
 * where earlymount uses them and refused where it cannot (tpm2_pcrlock). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "json.h"
#include "tpm2_token.h"
#include "util.h"

struct reading {
	struct tpm2_token *t;
	bool seen_type, seen_blob, seen_keyslot;
	uint32_t *mask; /* the PCR mask an array fills */
};

/* A string member into buf, whole: false when it is longer than size - 1. */
static bool take_string(struct json_reader *r, char *buf, size_t size, size_t *n)
{
	return json_string(r, buf, size, n) && (*n < size || json_fail(r, "a string too long"));
}

static bool take_base64(struct json_reader *r, uint8_t *out, size_t size, size_t *len)
{
	static char text[TPM2_PUBKEY_MAX * 4 / 3 + 8];
	size_t n;

	return take_string(r, text, sizeof(text), &n) &&
	       (base64_decode(text, n, out, size, len) || json_fail(r, "not base64, or too long"));
}

static int hex_value(char c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				     : -1;
}

static bool take_hex(struct json_reader *r, uint8_t *out, size_t size, size_t *len)
{
	char text[2 * TPM2_POLICY_MAX + 2];
	size_t n;
	bool ok = take_string(r, text, sizeof(text), &n) &&
		  ((n % 2 == 0 && n / 2 <= size) || json_fail(r, "a hex string of the wrong size"));

	for (size_t i = 0; ok && i < n; i += 2) {
		int hi = hex_value(text[i]), lo = hex_value(text[i + 1]);

		ok = (hi >= 0 && lo >= 0) || json_fail(r, "not hex");
		if (ok)
			out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	*len = ok ? n / 2 : 0;
	return ok;
}

bool tpm2_json_pcr(struct json_reader *r, size_t index, void *data)
{
	uint32_t *mask = data;
	uint64_t pcr;

	(void)index;
	if (!json_u64(r, &pcr) || pcr > 23)
		return json_fail(r, "a PCR index from 0 to 23 expected");
	*mask |= 1u << pcr;
	return true;
}

static bool keyslot_element(struct json_reader *r, size_t index, void *data)
{
	struct reading *g = data;
	char text[8];
	size_t n;
	uint64_t slot;

	if (!take_string(r, text, sizeof(text), &n))
		return false;
	if (parse_decimal(text, n, 31, &slot) < 0)
		return json_fail(r, "a keyslot is a number from \"0\" to \"31\"");
	if (index == 0)
		g->t->keyslot = (int)slot;
	g->seen_keyslot = true;
	return true;
}

static bool named(struct json_reader *r, uint16_t *out, bool bank)
{
	char name[16];
	size_t n;

	if (!take_string(r, name, sizeof(name), &n))
		return false;
	if (!bank) {
		*out = streq(name, "ecc") ? TPM2_ALG_ECC : streq(name, "rsa") ? TPM2_ALG_RSA : 0;
		return *out || json_fail(r, "the primary key's algorithm is neither ecc nor rsa");
	}
	*out = tpm2_bank_by_name(name, strlen(name));
	return *out || json_fail(r, "not a PCR bank (" TPM2_BANK_NAMES ")");
}

static bool field(struct json_reader *r, const char *key, void *data)
{
	struct reading *g = data;
	struct tpm2_token *t = g->t;
	char type[32];
	size_t n;

	if (streq(key, "type"))
		return take_string(r, type, sizeof(type), &n) &&
		       (streq(type, "systemd-tpm2") || json_fail(r, "not a systemd-tpm2 token")) &&
		       (g->seen_type = true);
	if (streq(key, "keyslots"))
		return json_array(r, keyslot_element, g);
	if (streq(key, "tpm2-blob"))
		return take_base64(r, t->blob, sizeof(t->blob), &t->blob_len) && (g->seen_blob = true);
	if (streq(key, "tpm2-pcrs"))
		return json_array(r, tpm2_json_pcr, &t->pcrs);
	if (streq(key, "tpm2_pubkey_pcrs"))
		return json_array(r, tpm2_json_pcr, &t->pubkey_pcrs);
	if (streq(key, "tpm2-pcr-bank"))
		return named(r, &t->bank, true);
	if (streq(key, "tpm2-primary-alg"))
		return named(r, &t->primary_alg, false);
	if (streq(key, "tpm2-policy-hash"))
		return take_hex(r, t->policy_hash, sizeof(t->policy_hash), &t->policy_hash_len);
	if (streq(key, "tpm2-pin"))
		return json_bool(r, &t->pin);
	if (streq(key, "tpm2_salt"))
		return take_base64(r, t->salt, sizeof(t->salt), &t->salt_len);
	if (streq(key, "tpm2_srk"))
		return take_base64(r, t->srk, sizeof(t->srk), &t->srk_len);
	if (streq(key, "tpm2_pubkey"))
		return take_base64(r, t->pubkey, sizeof(t->pubkey), &t->pubkey_len);
	if (streq(key, "tpm2_pcrlock"))
		return json_bool(r, &t->pcrlock);
	return json_skip(r);
}

int tpm2_token_parse(const char *json, size_t len, struct tpm2_token *out, char *why,
		     size_t why_size)
{
	struct reading g = { .t = out };
	struct json_reader r;
	int ret = -EINVAL;

	memset(out, 0, sizeof(*out));
	out->bank = TPM2_ALG_SHA256;
	out->primary_alg = TPM2_ALG_ECC;
	json_reader_init(&r, json, len);
	if (!json_object(&r, field, &g) || !json_end(&r))
		set_why(why, why_size, "its JSON is not a token earlymount can read: %s (at byte %zu)",
			r.error, r.pos);
	else if (!g.seen_type || !g.seen_blob || !g.seen_keyslot)
		set_why(why, why_size, "it has no %s", !g.seen_type ? "type"
						       : !g.seen_blob ? "tpm2-blob"
								      : "keyslot");
	else if (out->policy_hash_len && out->policy_hash_len != 32)
		set_why(why, why_size, "its policy hash is %zu bytes, not a SHA-256 digest",
			out->policy_hash_len);
	else
		ret = 0;
	return ret;
}
