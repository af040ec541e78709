/* A signature partition's bytes come from the disk: any of them must give a refusal with a
 * reason, or a valid root hash and a signature within bounds. */
#include "fuzz.h"
#include "verity_sig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct verity_sig sig;
	char why[256] = "";

	if (verity_sig_parse((const char *)data, size, &sig, why, sizeof(why)) < 0) {
		FUZZ_CHECK(why[0] && memchr(why, '\0', sizeof(why)), "refused without a reason");
		FUZZ_CHECK(sig.signature_len == 0 && !sig.root_hash[0], "a refusal left data behind");
		return 0;
	}
	FUZZ_CHECK(verity_hash_check(sig.root_hash) == 0, "root hash %s", sig.root_hash);
	FUZZ_CHECK(sig.signature_len > 0 && sig.signature_len <= VERITY_SIG_MAX, "signature of %zu",
		   sig.signature_len);
	return 0;
}
