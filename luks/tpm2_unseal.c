/* systemd-cryptenroll's sealing, undone with the TPM's own commands (TCG TPM 2.0 Library,
 * part 3). The parent is re-created from the owner hierarchy's seed with the template
 * systemd used (the same seed and template give the same key), or is the persistent SRK the
 * token names. The policy session replays what was sealed: PolicyPCR over the token's PCRs,
 * PolicyPassword for a PIN (it leaves the same policy digest as systemd's PolicyAuthValue).
 * The session's digest is compared with the token's before Unseal, so that changed PCRs are
 * reported as such, and a PIN is never tried against a policy that cannot pass. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "tpm2_client.h"
#include "tpm2_device.h"
#include "tpm2_pcr_signature.h"
#include "tpm2_unseal.h"
#include "util.h"

/* TPMA_OBJECT of systemd's primary key: a restricted decryption key (a storage parent) bound
 * to this TPM, made from its seed, used with its empty authorization. */
#define PRIMARY_ATTRIBUTES                                                                 \
	((1u << 1) /* fixedTPM */ | (1u << 4) /* fixedParent */ |                          \
	 (1u << 5) /* sensitiveDataOrigin */ | (1u << 6) /* userWithAuth */ |              \
	 (1u << 16) /* restricted */ | (1u << 17) /* decrypt */)

/* The public area of systemd's parent (tpm2-util.c's primary templates): a storage key, AES
 * 128 CFB for its children, of the token's algorithm, its unique field empty. */
static void put_primary_template(struct tpm2_writer *w, uint16_t alg)
{
	size_t mark = tpm2_begin_2b(w);

	tpm2_put16(w, alg);
	tpm2_put16(w, TPM2_ALG_SHA256);
	tpm2_put32(w, PRIMARY_ATTRIBUTES);
	tpm2_put_2b(w, NULL, 0); /* authPolicy */
	tpm2_put16(w, TPM_ALG_AES);
	tpm2_put16(w, 128);
	tpm2_put16(w, TPM_ALG_CFB);
	tpm2_put16(w, TPM_ALG_NULL); /* scheme */
	if (alg == TPM2_ALG_ECC) {
		tpm2_put16(w, TPM_ECC_NIST_P256);
		tpm2_put16(w, TPM_ALG_NULL); /* kdf */
		tpm2_put_2b(w, NULL, 0);     /* unique.x */
		tpm2_put_2b(w, NULL, 0);     /* unique.y */
	} else {
		tpm2_put16(w, 2048);
		tpm2_put32(w, 0);        /* exponent: the default */
		tpm2_put_2b(w, NULL, 0); /* unique */
	}
	tpm2_end_2b(w, mark);
}

/* The ECC parent's public point from its TPMT_PUBLIC (part 2, with TPMS_ECC_PARMS): left
 * empty when it cannot be read, and the session is then not salted. */
static void read_ecc_point(struct tpm *tpm, const uint8_t *public, size_t len)
{
	struct tpm2_reader r;
	const uint8_t *x, *y;
	size_t n, x_len, y_len;

	tpm2_reader_init(&r, public, len);
	if (tpm2_get16(&r) != TPM2_ALG_ECC)
		return;
	(void)tpm2_get16(&r);                           /* nameAlg */
	(void)tpm2_get32(&r);                           /* objectAttributes */
	(void)tpm2_get_2b(&r, &n);                      /* authPolicy */
	if (tpm2_get16(&r) != TPM_ALG_NULL)             /* symmetric: keyBits and mode follow */
		(void)tpm2_get32(&r);
	if (tpm2_get16(&r) != TPM_ALG_NULL)             /* scheme: its hash follows */
		(void)tpm2_get16(&r);
	if (tpm2_get16(&r) != TPM_ECC_NIST_P256)        /* curveID */
		return;
	if (tpm2_get16(&r) != TPM_ALG_NULL)             /* kdf: its hash follows */
		(void)tpm2_get16(&r);
	x = tpm2_get_2b(&r, &x_len);
	y = tpm2_get_2b(&r, &y_len);
	if (!x || !y || x_len > TPM2_ECC_COORD || y_len > TPM2_ECC_COORD)
		return;
	memcpy(tpm->parent_x, x, x_len);
	memcpy(tpm->parent_y, y, y_len);
	tpm->parent_x_len = x_len;
	tpm->parent_y_len = y_len;
}

static int create_primary(struct tpm *tpm, uint16_t alg, uint32_t *handle)
{
	int r;

	tpm2_begin(tpm, TPM_ST_SESSIONS, TPM_CC_CREATE_PRIMARY);
	tpm2_put32(&tpm->w, TPM_RH_OWNER);
	tpm2_put_password_session(&tpm->w, NULL, 0);
	tpm2_put16(&tpm->w, 4); /* inSensitive: empty userAuth and data */
	tpm2_put16(&tpm->w, 0);
	tpm2_put16(&tpm->w, 0);
	put_primary_template(&tpm->w, alg);
	tpm2_put_2b(&tpm->w, NULL, 0); /* outsideInfo */
	tpm2_put32(&tpm->w, 0);        /* creationPCR: none */
	r = tpm2_run(tpm, "TPM2_CreatePrimary");
	if (r == 0) {
		const uint8_t *public = NULL;
		size_t n = 0;

		*handle = tpm2_get32(&tpm->r);
		if (tpm2_response_parameters(&tpm->r) == 0)
			public = tpm2_get_2b(&tpm->r, &n);
		if (public)
			read_ecc_point(tpm, public, n);
		else
			r = tpm2_refused(tpm, "TPM2_CreatePrimary", -EPROTO);
	}
	return r;
}

#define TPM_CC_READ_PUBLIC 0x00000173

/* The persistent SRK a token names (tpm2_srk: an ESYS_TR as tpm2-tss serializes it: the
 * handle, the key's name, a resource type, its public area): there, and the key of that name,
 * else the token was sealed under another key. */
static int use_srk(struct tpm *tpm, const struct tpm2_token *t, uint32_t *handle)
{
	struct tpm2_reader srk;
	const uint8_t *want, *public, *name;
	size_t want_len, public_len, name_len;
	int r;

	tpm2_reader_init(&srk, t->srk, t->srk_len);
	*handle = tpm2_get32(&srk);
	want = tpm2_get_2b(&srk, &want_len);
	if (!want || *handle >> 24 != 0x81) {
		set_why(tpm->why, tpm->why_size, "its tpm2_srk names no persistent key");
		return -EINVAL;
	}
	tpm2_begin(tpm, TPM_ST_NO_SESSIONS, TPM_CC_READ_PUBLIC);
	tpm2_put32(&tpm->w, *handle);
	r = tpm2_run(tpm, "TPM2_ReadPublic");
	if (r == 0) {
		public = tpm2_get_2b(&tpm->r, &public_len);
		name = tpm2_get_2b(&tpm->r, &name_len);
		if (!public || !name)
			r = tpm2_refused(tpm, "TPM2_ReadPublic", -EPROTO);
		else if (name_len != want_len || memcmp(name, want, name_len) != 0) {
			r = -EKEYREJECTED;
			set_why(tpm->why, tpm->why_size, "the TPM's key at 0x%08x is not the SRK the "
				"key was sealed under (another TPM, or its storage was cleared)", *handle);
		} else
			read_ecc_point(tpm, public, public_len);
	} else if (r != -EACCES && r != -ENOLCK)
		set_why(tpm->why, tpm->why_size, "the TPM has no key at 0x%08x, the SRK the key "
			"was sealed under (another TPM, or its storage was cleared)", *handle);
	return r;
}

/* The blob is the sealed object's TPM2B_PRIVATE then its TPM2B_PUBLIC, sizes included:
 * both go to TPM2_Load as they are, once they are seen to fill the blob exactly. */
static int load(struct tpm *tpm, uint32_t parent, const struct tpm2_token *t, uint32_t *handle)
{
	struct tpm2_reader blob;
	size_t n_private, n_public;
	int r;

	tpm2_reader_init(&blob, t->blob, t->blob_len);
	(void)tpm2_get_2b(&blob, &n_private);
	(void)tpm2_get_2b(&blob, &n_public);
	if (blob.bad || blob.pos != blob.len || n_private == 0 || n_public == 0) {
		set_why(tpm->why, tpm->why_size, "its tpm2-blob is not a sealed object (a private "
			"and a public part, %zu bytes in all)", t->blob_len);
		return -EINVAL;
	}
	tpm2_begin(tpm, TPM_ST_SESSIONS, TPM_CC_LOAD);
	tpm2_put32(&tpm->w, parent);
	tpm2_put_password_session(&tpm->w, NULL, 0);
	tpm2_put_bytes(&tpm->w, t->blob, t->blob_len);
	r = tpm2_run(tpm, "TPM2_Load");
	if (r == 0) {
		const uint8_t *name;

		*handle = tpm2_get32(&tpm->r);
		name = tpm2_response_parameters(&tpm->r) == 0 ? tpm2_get_2b(&tpm->r, &n_private) : NULL;
		if (!name || n_private > sizeof(tpm->item_name))
			r = tpm2_refused(tpm, "TPM2_Load", -EPROTO);
		else {
			memcpy(tpm->item_name, name, n_private);
			tpm->item_name_len = n_private;
		}
	}
	return r;
}

/* A policy session, salted with the ECC parent when its point is known, so that the Unseal's
 * answer comes encrypted: the secret never crosses the bus in clear. */
static int start_policy_session(struct tpm *tpm, uint32_t parent, uint32_t *session)
{
	uint8_t point[4 + 2 * TPM2_ECC_COORD];
	struct tpm2_session *s = &tpm->session;
	const uint8_t *nonce;
	size_t n;
	int r = tpm2_session_nonce(s->nonce_caller);

	tpm->salted = r == 0 && tpm->parent_x_len &&
		      tpm2_session_ecc_salt(tpm->parent_x, tpm->parent_x_len, tpm->parent_y,
					    tpm->parent_y_len, point, s) == 0;
	tpm2_begin(tpm, TPM_ST_NO_SESSIONS, TPM_CC_START_AUTH_SESSION);
	tpm2_put32(&tpm->w, tpm->salted ? parent : TPM_RH_NULL); /* tpmKey */
	tpm2_put32(&tpm->w, TPM_RH_NULL);                        /* bind */
	tpm2_put_2b(&tpm->w, s->nonce_caller, sizeof(s->nonce_caller));
	if (tpm->salted) {
		tpm2_put_2b(&tpm->w, point, sizeof(point));
		tpm2_put8(&tpm->w, TPM_SE_POLICY);
		tpm2_put16(&tpm->w, TPM_ALG_AES);
		tpm2_put16(&tpm->w, 128);
		tpm2_put16(&tpm->w, TPM_ALG_CFB);
	} else {
		tpm2_put_2b(&tpm->w, NULL, 0);
		tpm2_put8(&tpm->w, TPM_SE_POLICY);
		tpm2_put16(&tpm->w, TPM_ALG_NULL);
	}
	tpm2_put16(&tpm->w, TPM2_ALG_SHA256);
	r = r < 0 ? r : tpm2_run(tpm, "TPM2_StartAuthSession");
	if (r == 0) {
		*session = tpm2_get32(&tpm->r);
		nonce = tpm2_get_2b(&tpm->r, &n);
		if (!nonce || n != sizeof(s->nonce_tpm))
			r = tpm2_refused(tpm, "TPM2_StartAuthSession", -EPROTO);
		else
			memcpy(s->nonce_tpm, nonce, n);
	}
	if (r == 0 && tpm->salted)
		tpm2_session_derive(s);
	return r;
}

/* The PIN: proven with an HMAC in a salted session (PolicyAuthValue), else sent as it is
 * (PolicyPassword); both leave the policy digest systemd sealed with. */
static int policy_pin(struct tpm *tpm, uint32_t session)
{
	tpm2_begin(tpm, TPM_ST_NO_SESSIONS, tpm->salted ? TPM_CC_POLICY_AUTH_VALUE : TPM_CC_POLICY_PASSWORD);
	tpm2_put32(&tpm->w, session);
	return tpm2_run(tpm, tpm->salted ? "TPM2_PolicyAuthValue" : "TPM2_PolicyPassword");
}

#define SESSION_ENCRYPT 0x40 /* TPMA_SESSION encrypt: the response's first parameter */

/* The authorization area: the policy session, with the password (unsalted) or an HMAC over
 * the command and a fresh nonce, asking for the answer encrypted (salted). */
static int put_policy_session(struct tpm *tpm, uint32_t session, uint32_t code,
			      const uint8_t *auth, size_t auth_len)
{
	struct tpm2_session *s = &tpm->session;
	uint8_t hmac[TPM2_SESSION_DIGEST];
	size_t mark = tpm2_begin_sized32(&tpm->w);
	int r = 0;

	tpm2_put32(&tpm->w, session);
	if (tpm->salted) {
		r = tpm2_session_nonce(s->nonce_caller);
		memcpy(s->auth, auth, auth_len);
		s->auth_len = auth_len;
		tpm2_session_command_hmac(s, code, tpm->item_name, tpm->item_name_len, NULL, 0,
					  SESSION_ENCRYPT, hmac);
		tpm2_put_2b(&tpm->w, s->nonce_caller, sizeof(s->nonce_caller));
		tpm2_put8(&tpm->w, SESSION_ENCRYPT);
		tpm2_put_2b(&tpm->w, hmac, sizeof(hmac));
	} else {
		tpm2_put_2b(&tpm->w, NULL, 0); /* nonceCaller */
		tpm2_put8(&tpm->w, 0);         /* attributes: the session ends with the command */
		tpm2_put_2b(&tpm->w, auth, auth_len);
	}
	tpm2_end_sized32(&tpm->w, mark);
	return r;
}

/* A salted session's answer: its HMAC checked, then its data decrypted. */
static int open_response(struct tpm *tpm, uint8_t *data, size_t len, const uint8_t *params,
			 size_t params_len)
{
	struct tpm2_session *s = &tpm->session;
	const uint8_t *nonce, *hmac;
	size_t nonce_len, hmac_len;
	uint8_t attrs;

	tpm->r.len = tpm2_get32(&(struct tpm2_reader){ tpm->resp + 2, 4, 0, false });
	nonce = tpm2_get_2b(&tpm->r, &nonce_len);
	attrs = tpm2_get8(&tpm->r);
	hmac = tpm2_get_2b(&tpm->r, &hmac_len);
	if (!nonce || !hmac || nonce_len != sizeof(s->nonce_tpm))
		return tpm2_refused(tpm, "TPM2_Unseal", -EPROTO);
	memcpy(s->nonce_tpm, nonce, nonce_len);
	if (!tpm2_session_response_ok(s, TPM_CC_UNSEAL, params, params_len, attrs, hmac, hmac_len)) {
		set_why(tpm->why, tpm->why_size, "the TPM's answer to TPM2_Unseal does not carry the "
			"session's HMAC: it was altered on its way, or did not come from this TPM");
		return -EPROTO;
	}
	tpm2_session_decrypt_response(s, data, len);
	return 0;
}

static int unseal(struct tpm *tpm, uint32_t item, uint32_t session, const uint8_t *auth,
		  size_t auth_len, uint8_t *out, size_t size, size_t *len)
{
	const uint8_t *d, *params = NULL;
	size_t params_len = 0;
	int r;

	tpm2_begin(tpm, TPM_ST_SESSIONS, TPM_CC_UNSEAL);
	tpm2_put32(&tpm->w, item);
	r = put_policy_session(tpm, session, TPM_CC_UNSEAL, auth, auth_len);
	if (r == 0)
		r = tpm2_run(tpm, "TPM2_Unseal");
	if (r == 0) {
		d = NULL;
		if (tpm2_response_parameters(&tpm->r) == 0) {
			params = tpm->r.p + tpm->r.pos;
			params_len = tpm->r.len - tpm->r.pos;
			d = tpm2_get_2b(&tpm->r, len);
		}
		if (!d || *len == 0 || *len > size)
			r = tpm2_refused(tpm, "TPM2_Unseal", -EPROTO);
		else {
			memcpy(out, d, *len);
			if (tpm->salted)
				r = open_response(tpm, out, *len, params, params_len);
		}
	}
	return r;
}

static void pcr_list(uint32_t pcrs, char *out, size_t size)
{
	size_t used = 0;

	out[0] = '\0';
	for (unsigned i = 0; i < 24 && used < size; i++)
		if (pcrs & 1u << i)
			used += (size_t)snprintf(out + used, size - used, "%s%u", used ? "," : "", i);
}

/* The policy session as sealed, its digest checked against the token's. */
static int satisfy_policy(struct tpm *tpm, const struct tpm2_token *t, uint32_t session,
			  const char *signature)
{
	uint8_t digest[TPM2_POLICY_MAX];
	size_t len = 0;
	char pcrs[64];
	int r = 0;

	if (t->pubkey_len)
		r = tpm2_policy_signed_pcrs(tpm, session, t, signature);
	if (r == 0 && t->pcrs)
		r = tpm2_policy_pcr(tpm, session, t->bank, t->pcrs);
	if (r == 0 && t->pin)
		r = policy_pin(tpm, session);
	if (r == 0 && t->policy_hash_len)
		r = tpm2_policy_digest(tpm, session, digest, &len);
	if (r == 0 && t->policy_hash_len &&
	    (len != t->policy_hash_len || memcmp(digest, t->policy_hash, len) != 0)) {
		pcr_list(t->pcrs, pcrs, sizeof(pcrs));
		r = -EKEYREJECTED;
		set_why(tpm->why, tpm->why_size, "the TPM's PCRs %s (%s) are not those the key was "
			"sealed to: the firmware, boot loader or kernel changed, or the key was sealed "
			"on another machine", pcrs, tpm2_bank_name(t->bank));
	}
	return r;
}

static int unsupported(const struct tpm2_token *t, char *why, size_t why_size)
{
	int r = -EOPNOTSUPP;

	if (t->pcrlock)
		set_why(why, why_size, "it is sealed to a pcrlock policy, which earlymount does not "
			"read");
	else
		r = 0;
	return r;
}

static bool last_encrypted;

bool tpm2_unseal_encrypted(void)
{
	return last_encrypted;
}

int tpm2_unseal(const char *device, const struct tpm2_token *t, const char *pin, size_t pin_len,
		const char *signature, uint8_t *out, size_t size, size_t *len, char *why,
		size_t why_size)
{
	static struct tpm tpm;
	/* primary: made here and flushed; parent: the persistent SRK, kept */
	uint32_t primary = 0, parent = 0, item = 0, session = 0;
	uint8_t auth[32];
	size_t auth_len = 0;
	int r = unsupported(t, why, why_size);

	if (r < 0)
		return r;
	tpm = (struct tpm){ .why = why, .why_size = why_size };
	tpm.fd = device ? tpm2_device_open_path(device) : tpm2_device_open();
	if (tpm.fd < 0) {
		r = tpm.fd == -ENOENT ? -ENODEV : tpm.fd;
		set_why(why, why_size, "no TPM2 device (%s): %s", device ? device : "/dev/tpmrm0",
			strerror(-tpm.fd));
		return r;
	}
	if (t->pin && !pin) {
		r = -EACCES;
		set_why(why, why_size, "it needs a PIN");
		goto out;
	}
	if (t->srk_len)
		r = use_srk(&tpm, t, &parent);
	else
		r = create_primary(&tpm, t->primary_alg, &primary);
	if (r == 0)
		r = load(&tpm, primary ? primary : parent, t, &item);
	if (r == 0 && t->pin)
		auth_len = tpm2_pin_auth(pin, pin_len, t->salt, t->salt_len, auth);
	if (r == 0)
		r = start_policy_session(&tpm, primary ? primary : parent, &session);
	if (r == 0)
		r = satisfy_policy(&tpm, t, session, signature);
	if (r == 0) {
		r = unseal(&tpm, item, session, auth, auth_len, out, size, len);
		last_encrypted = r == 0 && tpm.salted;
		if (r == 0)
			session = 0; /* ended by the command */
	}
	tpm2_flush(&tpm, session);
	tpm2_flush(&tpm, item);
	tpm2_flush(&tpm, primary);
out:
	explicit_bzero(auth, sizeof(auth));
	explicit_bzero(tpm.resp, sizeof(tpm.resp));
	tpm2_session_wipe(&tpm.session);
	close(tpm.fd);
	return r;
}
