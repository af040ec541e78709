/* The tokens are read through libcryptsetup (crypt_token_json_get: the header it verified)
 * and parsed by lib/tpm2_token.c, the reader the plan's header check uses too. */
#include <errno.h>
#include <libcryptsetup.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base64.h"
#include "luks_helper.h"
#include "token_unlock.h"
#include "tpm2_token.h"
#include "tpm2_unseal.h"
#include "util.h"
#include "volume_key.h"

#define TOKENS_MAX 32

/* One token: LUKS_EXIT_OK once it opened; the reason in why otherwise. */
static int try_token(struct crypt_device *cd, int id, const struct activation *a,
		     const struct token_choice *choice, const char *pin, size_t pin_len, char *why,
		     size_t why_size)
{
	static struct tpm2_token t;
	uint8_t secret[TPM2_SECRET_MAX];
	char passphrase[TPM2_SECRET_MAX * 4 / 3 + 4];
	const char *json = NULL;
	size_t len = 0, n;
	int code = LUKS_EXIT_NO_TOKEN;
	int r;

	if (crypt_token_json_get(cd, id, &json) < 0 || !json)
		goto out;
	r = tpm2_token_parse(json, strlen(json), &t, why, why_size);
	if (r < 0)
		goto out;
	if (choice->pcrs_given && t.pcrs != choice->pcrs) {
		set_why(why, why_size, "sealed to other PCRs than tpm2-pcrs= names");
		goto out;
	}
	r = tpm2_unseal(choice->tpm, &t, pin, pin_len, NULL, secret, sizeof(secret), &len, why, why_size);
	if (r == -EACCES)
		code = LUKS_EXIT_PIN;
	if (r < 0)
		goto out;
	n = base64_encode(secret, len, passphrase, sizeof(passphrase));
	r = activate(cd, a, t.keyslot, passphrase, n);
	if (r >= 0) {
		code = LUKS_EXIT_OK;
		/* said on success too, for PID 1's log: how the key came */
		set_why(why, why_size, "token %d, keyslot %d, %s", id, t.keyslot,
			tpm2_unseal_encrypted() ? "over an encrypted session"
						: "in clear (an RSA parent)");
	}
	else if (r == -EEXIST)
		code = LUKS_EXIT_EXISTS;
	else if (r == -EPERM)
		set_why(why, why_size, "the key it unsealed opens no keyslot (was keyslot %d "
			"replaced since the key was enrolled?)", t.keyslot);
	else {
		code = LUKS_EXIT_FAILED;
		set_why(why, why_size, "%s", strerror(-r));
	}
out:
	explicit_bzero(secret, sizeof(secret));
	explicit_bzero(passphrase, sizeof(passphrase));
	return code;
}

int token_unlock(struct crypt_device *cd, const struct activation *a,
		 const struct token_choice *choice, const char *pin, size_t pin_len, char *why,
		 size_t why_size)
{
	char reason[256] = "", first[300] = "";
	int code = LUKS_EXIT_NO_TOKEN;
	bool any = false, pin_wanted = false;

	for (int id = 0; id < TOKENS_MAX && code != LUKS_EXIT_OK; id++) {
		const char *type = NULL;
		crypt_token_info info = crypt_token_status(cd, id, &type);

		if (info == CRYPT_TOKEN_INACTIVE || info == CRYPT_TOKEN_INVALID || !type ||
		    !streq(type, "systemd-tpm2"))
			continue;
		any = true;
		reason[0] = '\0';
		code = try_token(cd, id, a, choice, pin, pin_len, reason, sizeof(reason));
		if (code == LUKS_EXIT_PIN)
			pin_wanted = true;
		if (code != LUKS_EXIT_OK && !first[0])
			snprintf(first, sizeof(first), "token %d: %s", id, reason);
		if (code == LUKS_EXIT_EXISTS || code == LUKS_EXIT_FAILED)
			break;
		if (code == LUKS_EXIT_PIN)
			code = LUKS_EXIT_NO_TOKEN; /* another token may need none */
	}
	if (code == LUKS_EXIT_NO_TOKEN && pin_wanted)
		code = LUKS_EXIT_PIN;
	if (!any)
		set_why(why, why_size, "no systemd-tpm2 token");
	else if (code != LUKS_EXIT_OK)
		set_why(why, why_size, "%s", first);
	else
		set_why(why, why_size, "%s", reason);
	return code;
}
