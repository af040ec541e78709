/* A signed PCR policy (systemd's tpm2_pubkey): the key was sealed to "whatever PCR policy the
 * holder of this RSA key signs", and a unified kernel image carries signatures of the PCR 11
 * values it will produce (its .pcrsig section, which systemd-stub hands over as
 * /.extra/tpm2-pcr-signature.json). The TPM takes the PCRs now (PolicyPCR), the signature for
 * that digest is found, the TPM checks it against the public key (LoadExternal,
 * VerifySignature) and accepts the digest as authorized (PolicyAuthorize). Our part is only to
 * find the right signature and to carry bytes: every check is the TPM's. */
#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <string.h>

#include "base64.h"
#include "fileio.h"
#include "json.h"
#include "tpm2_pcr_signature.h"
#include "util.h"

#define TPM_CC_LOAD_EXTERNAL 0x00000167
#define TPM_CC_VERIFY_SIGNATURE 0x00000177
#define TPM_CC_POLICY_AUTHORIZE 0x0000016a
#define TPM_ALG_RSASSA 0x0014
#define RSA_MODULUS_MAX 512 /* 4096 bits */
#define SIGNATURE_JSON_MAX (64 * 1024)
/* TPMA_OBJECT of the loaded public key, as systemd makes it: decrypt, sign, userWithAuth */
#define PUBKEY_ATTRIBUTES 0x00060040

static const char *const signature_paths[] = {
	"/run/systemd/tpm2-pcr-signature.json",
	"/.extra/tpm2-pcr-signature.json",
	"/etc/systemd/tpm2-pcr-signature.json",
};

struct rsa_key {
	const uint8_t *n;
	size_t n_len;
	uint32_t e;
	uint8_t fingerprint[TPM2_SESSION_DIGEST]; /* SHA-256 of the PKCS#1 RSAPublicKey */
};

/* --- the public key: PEM, SubjectPublicKeyInfo, RSAPublicKey (DER, read, not verified) --- */

/* The next DER element of tag at *p: its contents, *p past it; NULL when it is not there. */
static const uint8_t *der_take(const uint8_t **p, const uint8_t *end, uint8_t tag, size_t *len)
{
	const uint8_t *q = *p;
	size_t n;

	if (end - q < 2 || q[0] != tag)
		return NULL;
	n = q[1];
	q += 2;
	if (n & 0x80) {
		size_t bytes = n & 0x7f;

		if (bytes == 0 || bytes > 2 || (size_t)(end - q) < bytes)
			return NULL;
		n = 0;
		for (size_t i = 0; i < bytes; i++)
			n = n << 8 | *q++;
	}
	if ((size_t)(end - q) < n)
		return NULL;
	*p = q + n;
	*len = n;
	return q;
}

static int read_rsa_key(const uint8_t *der, size_t len, struct rsa_key *k)
{
	static const uint8_t rsa_oid[] = { 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01 };
	const uint8_t *p = der, *end = der + len, *spki, *alg, *oid, *bits, *rsa, *e;
	size_t n, oid_len, bits_len, rsa_len, e_len;
	struct sha256_ctx h;

	spki = der_take(&p, end, 0x30, &n);
	if (!spki)
		return -EINVAL;
	p = spki;
	end = spki + n;
	alg = der_take(&p, end, 0x30, &n);
	bits = alg ? der_take(&p, end, 0x03, &bits_len) : NULL;
	oid = alg ? der_take(&alg, alg + n, 0x06, &oid_len) : NULL;
	if (!oid || oid_len != sizeof(rsa_oid) || memcmp(oid, rsa_oid, oid_len) != 0 || !bits ||
	    bits_len < 2 || bits[0] != 0)
		return -EOPNOTSUPP;
	/* the BIT STRING holds the PKCS#1 RSAPublicKey, whose SHA-256 names the key ("pkfp") */
	sha256_init(&h);
	sha256_update(&h, bits_len - 1, bits + 1);
	sha256_digest(&h, sizeof(k->fingerprint), k->fingerprint);
	p = bits + 1;
	end = bits + bits_len;
	rsa = der_take(&p, end, 0x30, &rsa_len);
	p = rsa;
	k->n = rsa ? der_take(&p, rsa + rsa_len, 0x02, &k->n_len) : NULL;
	e = k->n ? der_take(&p, rsa + rsa_len, 0x02, &e_len) : NULL;
	if (!e)
		return -EINVAL;
	while (k->n_len > 0 && k->n[0] == 0) {
		k->n++;
		k->n_len--;
	}
	while (e_len > 0 && e[0] == 0) {
		e++;
		e_len--;
	}
	if (k->n_len == 0 || k->n_len > RSA_MODULUS_MAX || e_len > 4)
		return -EINVAL;
	k->e = 0;
	for (size_t i = 0; i < e_len; i++)
		k->e = k->e << 8 | e[i];
	return 0;
}

/* The token's key: PEM text ("BEGIN PUBLIC KEY") to DER in der. */
static int read_pem(const uint8_t *pem, size_t len, uint8_t *der, size_t size, size_t *der_len)
{
	static const char begin[] = "-----BEGIN PUBLIC KEY-----", end[] = "-----END PUBLIC KEY-----";
	static char text[TPM2_PUBKEY_MAX];
	const char *s = (const char *)pem, *b, *e;
	size_t n = 0;

	b = memmem(s, len, begin, strlen(begin));
	e = b ? memmem(b, len - (size_t)(b - s), end, strlen(end)) : NULL;
	if (!e)
		return -EINVAL;
	for (const char *c = b + strlen(begin); c < e; c++)
		if (!is_space(*c) && *c != '\r' && n < sizeof(text))
			text[n++] = *c;
	return base64_decode(text, n, der, size, der_len) ? 0 : -EINVAL;
}

/* --- the signatures: {"sha256": [{"pcrs": [11], "pkfp": "…", "pol": "…", "sig": "…"}]} --- */

struct wanted {
	uint32_t pcrs;
	const uint8_t *fingerprint;
	const uint8_t *policy;
	uint8_t sig[RSA_MODULUS_MAX];
	size_t sig_len;
	bool found;
	/* the entry being read */
	uint32_t e_pcrs;
	bool e_fp, e_pol;
	uint8_t e_sig[RSA_MODULUS_MAX];
	size_t e_sig_len;
};

/* Whether a hex string is the 32 bytes at want (a hex string of another length is not). */
static bool hex_equals(struct json_reader *r, const uint8_t *want, bool *equal)
{
	char text[2 * TPM2_SESSION_DIGEST + 2];
	size_t n;
	char byte[3];

	if (!json_string(r, text, sizeof(text), &n))
		return false;
	*equal = n == 2 * TPM2_SESSION_DIGEST;
	for (size_t i = 0; *equal && i < TPM2_SESSION_DIGEST; i++) {
		snprintf(byte, sizeof(byte), "%02x", want[i]);
		*equal = (text[2 * i] | 0x20) == byte[0] && (text[2 * i + 1] | 0x20) == byte[1];
	}
	return true;
}

static bool entry_field(struct json_reader *r, const char *key, void *data)
{
	struct wanted *w = data;
	static char text[RSA_MODULUS_MAX * 2];
	size_t n;

	if (streq(key, "pcrs"))
		return json_array(r, tpm2_json_pcr, &w->e_pcrs);
	if (streq(key, "pkfp"))
		return hex_equals(r, w->fingerprint, &w->e_fp);
	if (streq(key, "pol"))
		return hex_equals(r, w->policy, &w->e_pol);
	if (streq(key, "sig"))
		return json_string(r, text, sizeof(text), &n) &&
		       ((n < sizeof(text) &&
			 base64_decode(text, n, w->e_sig, sizeof(w->e_sig), &w->e_sig_len)) ||
			json_fail(r, "a signature that is not base64, or too long"));
	return json_skip(r);
}

static bool entry(struct json_reader *r, size_t index, void *data)
{
	struct wanted *w = data;

	(void)index;
	w->e_pcrs = 0;
	w->e_fp = w->e_pol = false;
	w->e_sig_len = 0;
	if (!json_object(r, entry_field, w))
		return false;
	if (!w->found && w->e_pcrs == w->pcrs && w->e_fp && w->e_pol && w->e_sig_len) {
		memcpy(w->sig, w->e_sig, w->e_sig_len);
		w->sig_len = w->e_sig_len;
		w->found = true;
	}
	return true;
}

static bool bank(struct json_reader *r, const char *key, void *data)
{
	/* systemd verifies with SHA-256 alone: the other banks' signatures cannot be used */
	return streq(key, "sha256") ? json_array(r, entry, data) : json_skip(r);
}

static int find_signature(struct tpm *tpm, struct wanted *w, const char *path)
{
	static char json[SIGNATURE_JSON_MAX];
	struct json_reader r;
	const char *used = path;
	ssize_t n = -ENOENT;

	for (size_t i = 0; !path && i < ARRAY_SIZE(signature_paths) && n == -ENOENT; i++) {
		used = signature_paths[i];
		n = read_file_at(AT_FDCWD, used, json, sizeof(json));
	}
	if (path)
		n = read_file_at(AT_FDCWD, path, json, sizeof(json));
	if (n < 0) {
		set_why(tpm->why, tpm->why_size, "it is sealed to a signed PCR policy, and the "
			"signatures %s cannot be read: %s", path ? path : "(tpm2-pcr-signature.json, "
			"from a unified kernel image's .pcrsig section)", strerror((int)-n));
		return n == -ENOENT ? -EKEYREJECTED : (int)n;
	}
	json_reader_init(&r, json, (size_t)n);
	if (!json_object(&r, bank, w) || !json_end(&r)) {
		set_why(tpm->why, tpm->why_size, "%s is not a PCR signature file: %s (at byte %zu)",
			used, r.error, r.pos);
		return -EINVAL;
	}
	if (!w->found) {
		set_why(tpm->why, tpm->why_size, "%s has no signature of the TPM's PCR values by "
			"the token's key: the PCRs are not those of the signed boot", used);
		return -EKEYREJECTED;
	}
	return 0;
}

/* --- the TPM's part --- */

static int load_external(struct tpm *tpm, const struct rsa_key *k, uint32_t *handle,
			 uint8_t *name, size_t *name_len)
{
	size_t mark;
	const uint8_t *p;
	int r;

	tpm2_begin(tpm, TPM_ST_NO_SESSIONS, TPM_CC_LOAD_EXTERNAL);
	tpm2_put16(&tpm->w, 0); /* inPrivate: none */
	mark = tpm2_begin_2b(&tpm->w);
	tpm2_put16(&tpm->w, TPM2_ALG_RSA);
	tpm2_put16(&tpm->w, TPM2_ALG_SHA256);
	tpm2_put32(&tpm->w, PUBKEY_ATTRIBUTES);
	tpm2_put16(&tpm->w, 0);            /* authPolicy */
	tpm2_put16(&tpm->w, TPM_ALG_NULL); /* symmetric */
	tpm2_put16(&tpm->w, TPM_ALG_NULL); /* scheme */
	tpm2_put16(&tpm->w, (uint16_t)(k->n_len * 8));
	tpm2_put32(&tpm->w, k->e);
	tpm2_put_2b(&tpm->w, k->n, k->n_len);
	tpm2_end_2b(&tpm->w, mark);
	tpm2_put32(&tpm->w, TPM_RH_OWNER);
	r = tpm2_run(tpm, "TPM2_LoadExternal");
	if (r == 0) {
		*handle = tpm2_get32(&tpm->r);
		p = tpm2_get_2b(&tpm->r, name_len);
		if (!p || *name_len > 2 + TPM2_POLICY_MAX)
			r = tpm2_refused(tpm, "TPM2_LoadExternal", -EPROTO);
		else
			memcpy(name, p, *name_len);
	}
	return r;
}

/* The TPM's ticket that the key signed the digest, as it returned it (TPMT_TK_VERIFIED). */
static int verify_signature(struct tpm *tpm, uint32_t key, const uint8_t *approved,
			    const struct wanted *w, uint8_t *ticket, size_t *ticket_len)
{
	uint8_t digest[TPM2_SESSION_DIGEST];
	struct sha256_ctx h;
	int r;

	sha256_init(&h);
	sha256_update(&h, TPM2_SESSION_DIGEST, approved);
	sha256_digest(&h, sizeof(digest), digest);
	tpm2_begin(tpm, TPM_ST_NO_SESSIONS, TPM_CC_VERIFY_SIGNATURE);
	tpm2_put32(&tpm->w, key);
	tpm2_put_2b(&tpm->w, digest, sizeof(digest));
	tpm2_put16(&tpm->w, TPM_ALG_RSASSA);
	tpm2_put16(&tpm->w, TPM2_ALG_SHA256);
	tpm2_put_2b(&tpm->w, w->sig, w->sig_len);
	r = tpm2_run(tpm, "TPM2_VerifySignature");
	if (r == 0) {
		*ticket_len = tpm->r.len - tpm->r.pos;
		if (*ticket_len > 2 + 4 + 2 + TPM2_POLICY_MAX)
			r = tpm2_refused(tpm, "TPM2_VerifySignature", -EPROTO);
		else
			memcpy(ticket, tpm->r.p + tpm->r.pos, *ticket_len);
	} else if (r == -EIO)
		set_why(tpm->why, tpm->why_size, "the TPM found the PCR policy's signature not made by "
			"the token's key (TPM2_VerifySignature)");
	return r;
}

static int policy_authorize(struct tpm *tpm, uint32_t session, const uint8_t *approved,
			    const uint8_t *name, size_t name_len, const uint8_t *ticket,
			    size_t ticket_len)
{
	tpm2_begin(tpm, TPM_ST_NO_SESSIONS, TPM_CC_POLICY_AUTHORIZE);
	tpm2_put32(&tpm->w, session);
	tpm2_put_2b(&tpm->w, approved, TPM2_SESSION_DIGEST);
	tpm2_put_2b(&tpm->w, NULL, 0); /* policyRef */
	tpm2_put_2b(&tpm->w, name, name_len);
	tpm2_put_bytes(&tpm->w, ticket, ticket_len);
	return tpm2_run(tpm, "TPM2_PolicyAuthorize");
}

int tpm2_policy_signed_pcrs(struct tpm *tpm, uint32_t session, const struct tpm2_token *t,
			    const char *signature)
{
	static uint8_t der[TPM2_PUBKEY_MAX];
	static struct wanted w;
	uint8_t approved[TPM2_POLICY_MAX], name[2 + TPM2_POLICY_MAX], ticket[2 + 4 + 2 + TPM2_POLICY_MAX];
	size_t der_len, approved_len = 0, name_len = 0, ticket_len = 0;
	struct rsa_key k;
	uint32_t key = 0;
	int r = read_pem(t->pubkey, t->pubkey_len, der, sizeof(der), &der_len);

	if (r == 0)
		r = read_rsa_key(der, der_len, &k);
	if (r < 0) {
		set_why(tpm->why, tpm->why_size, "its tpm2_pubkey is not an RSA public key in PEM");
		return r == -EOPNOTSUPP ? r : -EINVAL;
	}
	r = tpm2_policy_pcr(tpm, session, TPM2_ALG_SHA256, t->pubkey_pcrs);
	if (r == 0)
		r = tpm2_policy_digest(tpm, session, approved, &approved_len);
	if (r == 0 && approved_len != TPM2_SESSION_DIGEST)
		r = tpm2_refused(tpm, "TPM2_PolicyGetDigest", -EPROTO);
	if (r == 0) {
		memset(&w, 0, sizeof(w));
		w.pcrs = t->pubkey_pcrs;
		w.fingerprint = k.fingerprint;
		w.policy = approved;
		r = find_signature(tpm, &w, signature);
	}
	if (r == 0)
		r = load_external(tpm, &k, &key, name, &name_len);
	if (r == 0)
		r = verify_signature(tpm, key, approved, &w, ticket, &ticket_len);
	if (r == 0)
		r = policy_authorize(tpm, session, approved, name, name_len, ticket, ticket_len);
	tpm2_flush(tpm, key);
	return r;
}
