/* A LUKS header comes from the disk: any bytes, as a device whose first bytes hold the
 * header's copies (the first input byte chooses: the JSON alone, or the whole device), must
 * give a header a passphrase can open or a refusal with a reason; an accepted LUKS2 header
 * names at least one usable keyslot among those it counts. */
#include "fuzz.h"
#include "luks_header.h"

struct device {
	const uint8_t *data;
	size_t size;
};

static long read_device(void *ctx, uint64_t offset, void *buf, size_t len)
{
	const struct device *d = ctx;
	size_t n = offset >= d->size ? 0 : d->size - offset < len ? (size_t)(d->size - offset) : len;

	if (n > 0)
		memcpy(buf, d->data + offset, n);
	return (long)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char json[65536];
	struct luks2_summary s;
	struct device d = { data + 1, size ? size - 1 : 0 };
	char why[400] = "";
	int r;

	if (size < 1 || size - 1 >= sizeof(json))
		return 0;
	if (data[0] & 1) {
		memcpy(json, data + 1, size - 1);
		json[size - 1] = '\0';
		r = luks2_json_check(json, size - 1, &s, why, sizeof(why));
		FUZZ_CHECK(r == 0 || r == -EINVAL, "an answer %d", r);
		FUZZ_CHECK(r != 0 || (s.usable >= 1 && s.usable <= s.keyslots), "%u of %u usable",
			   s.usable, s.keyslots);
	} else {
		r = luks_header_check(read_device, &d, &s, why, sizeof(why));
		FUZZ_CHECK(r == 0 || r == -EINVAL, "an answer %d", r);
	}
	FUZZ_CHECK(r == 0 || why[0], "refused without a reason");
	return 0;
}
