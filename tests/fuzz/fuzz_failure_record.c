/* The failure record comes back from NVRAM or from RAM that survived a reset: any bytes must
 * be refused, or read into a record that writes back to the same fields within the cap. The
 * same bytes as a pmsg buffer: a record found there lies inside it and reads alone. */
#include "failure_record.h"
#include "fuzz.h"

static void check_round_trip(const struct failure_record *rec)
{
	static char text[FAILURE_RECORD_MAX + 1];
	struct failure_record again;
	char line[2 * FAILURE_RECORD_MAX];
	int len = failure_record_encode(rec, text, sizeof(text));

	FUZZ_CHECK(len > 0 && len <= FAILURE_RECORD_MAX, "encode gave %d", len);
	FUZZ_CHECK(failure_record_decode(text, (size_t)len, &again) == 0, "its own record refused");
	FUZZ_CHECK(memcmp(rec, &again, sizeof(again)) == 0, "the record changed on its way back");
	failure_record_describe(rec, line, sizeof(line));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct failure_record rec;
	size_t at = 0, len = 0;
	int r = failure_record_decode((const char *)data, size, &rec);

	FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -EPROTONOSUPPORT, "decode gave %d", r);
	if (r == 0)
		check_round_trip(&rec);
	r = failure_record_find((const char *)data, size, &rec, &at, &len);
	FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -ENOENT, "find gave %d", r);
	if (r == 0) {
		struct failure_record alone;

		FUZZ_CHECK(at < size && len <= size - at && len <= FAILURE_RECORD_MAX, "found outside");
		FUZZ_CHECK(failure_record_decode((const char *)data + at, len, &alone) == 0 &&
				   memcmp(&alone, &rec, sizeof(rec)) == 0,
			   "the record found does not read alone");
		check_round_trip(&rec);
	}
	return 0;
}
