/* Credentials come from the firmware (SMBIOS type 11 structures) and the command line, and a
 * UKI's headers from whoever built it: any bytes must give credentials with valid names and
 * values of at most 1 MiB, or refusals, and PE headers whose sections lie within their table.
 * The first byte chooses the reader. */
#include "credentials.h"
#include "fuzz.h"
#include "pe_file.h"

static int found(const char *name, const uint8_t *value, size_t len, void *data)
{
	FUZZ_CHECK(credential_name_valid(name, strlen(name)), "a credential with a bad name");
	FUZZ_CHECK(len <= CREDENTIAL_SIZE_MAX, "a credential of %zu bytes", len);
	FUZZ_CHECK(len == 0 || value, "a value without bytes");
	(*(unsigned *)data)++;
	return 0;
}

static void bad(const char *what, const char *why, void *data)
{
	FUZZ_CHECK(what && why && why[0], "a refusal without a reason");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char line[8192];
	static struct pe_file pe;
	unsigned n = 0;
	const struct credential_walk w = { found, bad, &n };
	char why[160];

	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		(void)credentials_from_smbios11(data + 1, size - 1, &w);
		break;
	case 1:
		if (size - 1 >= sizeof(line))
			return 0;
		memcpy(line, data + 1, size - 1);
		line[size - 1] = '\0';
		(void)credentials_from_cmdline(line, &w);
		break;
	default:
		if (pe_parse(data + 1, size - 1, &pe, why, sizeof(why)) == 0) {
			FUZZ_CHECK(pe.n_sections <= PE_SECTIONS_MAX, "%zu sections", pe.n_sections);
			FUZZ_CHECK(pe.section_alignment && !(pe.section_alignment & (pe.section_alignment - 1)),
				   "alignment %u", pe.section_alignment);
			FUZZ_CHECK(pe_end_address(&pe) % pe.section_alignment == 0, "an unaligned end");
		} else {
			FUZZ_CHECK(why[0], "refused without a reason");
		}
	}
	return 0;
}
