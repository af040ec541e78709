/* tests/tpm2's driver: unseals a systemd-tpm2 token (its JSON in a file, as `cryptsetup token
 * export` writes it) through a TPM simulator's socket with earlymount-luks's own code, and
 * prints the passphrase it gives the keyslot, so that the host's cryptsetup can check it.
 *   [TPM2_SIGNATURE=FILE] unseal_tool TOKEN.json SOCKET [PIN]
 * Exit 0; 3 the PIN was refused; 4 the PCRs differ; 5 another refusal (the reason on stderr). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "tpm2_token.h"
#include "tpm2_unseal.h"

int main(int argc, char **argv)
{
	static char json[TPM2_TOKEN_JSON_MAX];
	static struct tpm2_token t;
	uint8_t secret[TPM2_SECRET_MAX];
	char text[TPM2_SECRET_MAX * 2];
	char why[320] = "";
	size_t n, len = 0;
	FILE *f;
	int r;

	if (argc < 3 || argc > 4 || !(f = fopen(argv[1], "r"))) {
		fprintf(stderr, "usage: unseal_tool TOKEN.json SOCKET [PIN]\n");
		return 2;
	}
	n = fread(json, 1, sizeof(json) - 1, f);
	fclose(f);
	r = tpm2_token_parse(json, n, &t, why, sizeof(why));
	if (r == 0)
		r = tpm2_unseal(argv[2], &t, argc == 4 ? argv[3] : NULL, argc == 4 ? strlen(argv[3]) : 0,
				getenv("TPM2_SIGNATURE"), secret, sizeof(secret), &len, why, sizeof(why));
	if (r < 0) {
		fprintf(stderr, "unseal_tool: %s\n", why);
		return r == -EACCES ? 3 : r == -EKEYREJECTED ? 4 : 5;
	}
	base64_encode(secret, len, text, sizeof(text));
	printf("%s", text);
	fprintf(stderr, "unseal_tool: unsealed over %s\n",
		tpm2_unseal_encrypted() ? "an encrypted session" : "a session in clear");
	return 0;
}
