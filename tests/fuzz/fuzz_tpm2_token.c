/* A systemd-tpm2 token comes from the LUKS2 header on the disk: any bytes must give a token
 * the unseal can use as it is (a keyslot 0 to 31, a blob that fits, a SHA-256 policy digest
 * or none, PCR masks of PCRs 0 to 23) or a refusal with a reason. */
#include "fuzz.h"
#include "tpm2_token.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char json[TPM2_TOKEN_JSON_MAX];
	static struct tpm2_token t;
	char why[300] = "";
	int r;

	if (size >= sizeof(json))
		return 0;
	memcpy(json, data, size);
	json[size] = '\0';
	r = tpm2_token_parse(json, size, &t, why, sizeof(why));
	FUZZ_CHECK(r == 0 || (r == -EINVAL && why[0]), "an answer %d without a reason", r);
	if (r == 0) {
		FUZZ_CHECK(t.keyslot >= 0 && t.keyslot < 32, "keyslot %d", t.keyslot);
		FUZZ_CHECK(t.blob_len > 0 && t.blob_len <= sizeof(t.blob), "a blob of %zu bytes", t.blob_len);
		FUZZ_CHECK(t.policy_hash_len == 0 || t.policy_hash_len == 32, "a policy hash of %zu",
			   t.policy_hash_len);
		FUZZ_CHECK(t.pcrs < 1u << 24 && t.pubkey_pcrs < 1u << 24, "a PCR mask past 23");
		FUZZ_CHECK(tpm2_bank_name(t.bank) != NULL, "an unknown bank");
		FUZZ_CHECK(t.primary_alg == TPM2_ALG_ECC || t.primary_alg == TPM2_ALG_RSA,
			   "primary alg %#x", t.primary_alg);
	}
	return 0;
}
