/* crypttab's options and rd.luks.key='s specs (core/luks.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "luks.h"

static struct luks_options o;
static char why[256];

static void test_defaults(void **state)
{
	char text[256];

	assert_int_equal(luks_options_parse(NULL, &o, why, sizeof(why)), 0);
	assert_int_equal(o.tries, LUKS_DEFAULT_TRIES);
	assert_int_equal(o.keyfile_timeout_sec, -1);
	assert_int_equal(o.timeout_sec, 0);
	assert_false(o.readonly || o.discard || o.headless || o.nofail);
	luks_options_format(&o, text, sizeof(text));
	assert_string_equal(text, "");
	(void)state;
}

static void test_words(void **state)
{
	char text[256];

	assert_int_equal(luks_options_parse("discard,read-only,no-read-workqueue,no-write-workqueue,"
					    "tries=0,timeout=1min,keyfile-timeout=10s,"
					    "keyfile-offset=512,keyfile-size=64,headless=yes,nofail,"
					    "luks,x-initrd.attach,,same-cpu-crypt,password-echo=no",
					    &o, why, sizeof(why)), 0);
	assert_true(o.discard && o.readonly && o.no_read_workqueue && o.no_write_workqueue);
	assert_true(o.headless && o.nofail);
	assert_int_equal(o.tries, 0);
	assert_int_equal(o.timeout_sec, 60);
	assert_int_equal(o.keyfile_timeout_sec, 10);
	assert_int_equal(o.keyfile_offset, 512);
	assert_int_equal(o.keyfile_size, 64);
	assert_string_equal(o.unknown, "same-cpu-crypt,password-echo=no");
	luks_options_format(&o, text, sizeof(text));
	assert_string_equal(text, "readonly,discard,no-read-workqueue,no-write-workqueue,headless,"
				  "nofail,tries=0,timeout=60s,keyfile-timeout=10s,keyfile-offset=512,"
				  "keyfile-size=64");
	/* the canonical words read back the same */
	assert_int_equal(luks_options_parse(text, &o, why, sizeof(why)), 0);
	assert_string_equal(o.unknown, "");
	assert_int_equal(luks_options_parse("headless=no", &o, why, sizeof(why)), 0);
	assert_false(o.headless);
	(void)state;
}

/* The TPM2 words: the token filter, the wait, the measurement. */
static void test_tpm2_words(void **state)
{
	char text[256];

	assert_int_equal(luks_options_parse(NULL, &o, why, sizeof(why)), 0);
	assert_int_equal(o.token_timeout_sec, LUKS_DEFAULT_TOKEN_TIMEOUT);
	assert_int_equal(o.tpm2_measure_pcr, LUKS_MEASURE_DEFAULT);
	assert_false(o.tpm2_pcrs_given);
	assert_int_equal(luks_options_parse("tpm2-device=auto,token-timeout=5s,tpm2-pcrs=7+kernel-boot,"
					    "tpm2-measure-pcr=yes,tpm2-measure-bank=sha256:sha1,"
					    "tpm2-pin=yes", &o, why, sizeof(why)), 0);
	assert_int_equal(o.token_timeout_sec, 5);
	assert_true(o.tpm2_pcrs_given);
	assert_int_equal(o.tpm2_pcrs, (1u << 7) | (1u << 11));
	assert_int_equal(o.tpm2_measure_pcr, LUKS_MEASURE_PCR);
	assert_string_equal(o.tpm2_measure_banks, "sha256:sha1");
	assert_string_equal(o.unknown, "");
	luks_options_format(&o, text, sizeof(text));
	assert_string_equal(text, "tpm2-device=auto,token-timeout=5s,tpm2-pcrs=7+11,"
				  "tpm2-measure-pcr=15,tpm2-measure-bank=sha256:sha1");
	assert_int_equal(luks_options_parse(text, &o, why, sizeof(why)), 0);
	assert_int_equal(o.tpm2_pcrs, (1u << 7) | (1u << 11));
	/* a number is a PCR, a boolean word yes or no; an empty tpm2-pcrs= is no PCR */
	assert_int_equal(luks_options_parse("tpm2-measure-pcr=1,tpm2-pcrs=", &o, why, sizeof(why)), 0);
	assert_int_equal(o.tpm2_measure_pcr, 1);
	assert_true(o.tpm2_pcrs_given);
	assert_int_equal(o.tpm2_pcrs, 0);
	assert_int_equal(luks_options_parse("tpm2-measure-pcr=no,token-timeout=0", &o, why,
					    sizeof(why)), 0);
	assert_int_equal(o.tpm2_measure_pcr, LUKS_MEASURE_NO);
	assert_int_equal(o.token_timeout_sec, 0);
	luks_options_format(&o, text, sizeof(text));
	assert_string_equal(text, "token-timeout=0s,tpm2-measure-pcr=no");
	(void)state;
}

static void test_malformed_values(void **state)
{
	static const char *const bad[] = {
		"tries=", "tries=x", "tries=-1", "tries=99999999999", "timeout=soon", "discard=1",
		"keyfile-offset=0x10", "keyfile-size", "headless=maybe", "keyfile-timeout=",
		"tpm2-pcrs=24", "tpm2-pcrs=7+", "tpm2-pcrs=+7", "tpm2-pcrs=kernel", "tpm2-pcrs",
		"tpm2-measure-pcr=24", "tpm2-measure-pcr=", "tpm2-measure-pcr=maybe",
		"tpm2-measure-bank=", "tpm2-measure-bank=md5", "tpm2-measure-bank=sha256:",
		"tpm2-measure-bank=sm3_256", "token-timeout=soon", "tpm2-pin=maybe",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		if (luks_options_parse(bad[i], &o, why, sizeof(why)) != -EINVAL)
			fail_msg("%s was taken", bad[i]);
		assert_non_null(strstr(why, "LUKS option"));
	}
	(void)state;
}

/* A word that asks for another way of opening the volume is refused, naming the word, even
 * among words that are fine; one that merely looks like it is not. */
static void test_refused_words(void **state)
{
	static const struct {
		const char *text;
		const char *says;
	} refused[] = {
		{ "keyscript=/lib/cryptsetup/scripts/decrypt_keyctl", "no key scripts" },
		{ "discard,tcrypt", "TrueCrypt" },
		{ "tcrypt-veracrypt,tries=1", "VeraCrypt" },
		{ "veracrypt-pim=42", "VeraCrypt" },
		{ "bitlk", "BitLocker" },
		{ "pkcs11-uri=auto", "PKCS#11" },
		{ "fido2-device=auto", "FIDO2" },
	};

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		why[0] = '\0';
		if (luks_options_parse(refused[i].text, &o, why, sizeof(why)) != -EOPNOTSUPP)
			fail_msg("%s was not refused", refused[i].text);
		if (!strstr(why, "LUKS option '") || !strstr(why, refused[i].says))
			fail_msg("%s: '%s'", refused[i].text, why);
	}
	assert_int_equal(luks_options_parse("plainly,headers,keyscripts", &o, why, sizeof(why)), 0);
	assert_string_equal(o.unknown, "plainly,headers,keyscripts");
	(void)state;
}

/* Plain dm-crypt's words and a detached header, of the image or on another device: read,
 * written back in canonical words; a key size that is no whole byte, a relative header, a
 * header that is "/" alone, and plain with a header are malformed. */
static void test_plain_and_header(void **state)
{
	char out[256];

	assert_int_equal(luks_options_parse("plain,cipher=aes-xts-plain64,size=512,hash=sha256,"
					    "offset=2048,skip=8,discard", &o, why, sizeof(why)), 0);
	assert_true(o.plain);
	assert_string_equal(o.cipher, "aes-xts-plain64");
	assert_int_equal(o.key_size_bits, 512);
	assert_string_equal(o.hash, "sha256");
	assert_int_equal(o.offset, 2048);
	assert_int_equal(o.skip, 8);
	luks_options_format(&o, out, sizeof(out));
	assert_string_equal(out, "discard,plain,cipher=aes-xts-plain64,size=512,hash=sha256,"
				 "offset=2048,skip=8");
	assert_int_equal(luks_options_parse("luks,header=/etc/keys/root.hdr", &o, why, sizeof(why)), 0);
	assert_string_equal(o.header, "/etc/keys/root.hdr");
	luks_options_format(&o, out, sizeof(out));
	assert_string_equal(out, "header=/etc/keys/root.hdr");
	assert_int_equal(luks_options_parse("plain,size=257", &o, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "multiple of 8"));
	assert_string_equal(o.header_device, "");
	assert_int_equal(luks_options_parse("header=/keys/root.hdr:LABEL=stick,discard", &o, why,
					    sizeof(why)), 0);
	assert_string_equal(o.header, "/keys/root.hdr");
	assert_string_equal(o.header_device, "LABEL=stick");
	assert_true(o.discard);
	luks_options_format(&o, out, sizeof(out));
	assert_string_equal(out, "discard,header=/keys/root.hdr:LABEL=stick");
	assert_int_equal(luks_options_parse("header=hdr.img", &o, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "PATH:DEVICE"));
	assert_int_equal(luks_options_parse("header=/:UUID=1234", &o, why, sizeof(why)), -EINVAL);
	assert_int_equal(luks_options_parse("plain,header=/h", &o, why, sizeof(why)), -EINVAL);
	assert_int_equal(luks_options_parse("cipher=aes cbc", &o, why, sizeof(why)), -EINVAL);
	(void)state;
}

static void test_unknown_words_are_cut_not_overflowed(void **state)
{
	char many[1024] = "";

	for (int i = 0; i < 60; i++)
		strcat(many, "unknown-word,");
	assert_int_equal(luks_options_parse(many, &o, why, sizeof(why)), 0);
	assert_true(strlen(o.unknown) < sizeof(o.unknown));
	(void)state;
}

static void test_key_specs(void **state)
{
	char path[32], device[32];

	assert_int_equal(luks_key_parse("/etc/root.key", path, sizeof(path), device, sizeof(device)), 0);
	assert_string_equal(path, "/etc/root.key");
	assert_string_equal(device, "");
	assert_int_equal(luks_key_parse("/k:LABEL=usb", path, sizeof(path), device, sizeof(device)), 0);
	assert_string_equal(path, "/k");
	assert_string_equal(device, "LABEL=usb");
	assert_int_equal(luks_key_parse("/a:b/k:/dev/sdb1", path, sizeof(path), device,
					 sizeof(device)), 0);
	assert_string_equal(path, "/a:b/k");
	assert_string_equal(device, "/dev/sdb1");
	assert_int_equal(luks_key_parse("/k:", path, sizeof(path), device, sizeof(device)), 0);
	assert_string_equal(path, "/k:");
	assert_int_equal(luks_key_parse("k", path, sizeof(path), device, sizeof(device)), -EINVAL);
	assert_int_equal(luks_key_parse(NULL, path, sizeof(path), device, sizeof(device)), -EINVAL);
	assert_int_equal(luks_key_parse("/a-path-longer-than-the-buffer-is", path, sizeof(path), device,
					sizeof(device)), -ENAMETOOLONG);
	assert_int_equal(luks_key_parse("/k:UUID=0123456789abcdef0123456789abcdef", path,
					sizeof(path), device, sizeof(device)), -ENAMETOOLONG);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_tpm2_words),
		cmocka_unit_test(test_malformed_values),
		cmocka_unit_test(test_refused_words),
		cmocka_unit_test(test_plain_and_header),
		cmocka_unit_test(test_unknown_words_are_cut_not_overflowed),
		cmocka_unit_test(test_key_specs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
