/* The failure record's text: written within its cap, read back, and refused whenever the bytes
 * are not one whole record as earlymount wrote it (cut, changed, hostile); found among other
 * writers' bytes in a pmsg buffer. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "failure_record.h"
#include "sha256.h"

static struct failure_record sample(void)
{
	struct failure_record rec = { 0 };

	strcpy(rec.version, "0.1.0");
	strcpy(rec.stage, "plan");
	strcpy(rec.action, "reboot");
	strcpy(rec.device, "PARTUUID=6a3e2c3b-0000-4000-8000-000000000001");
	strcpy(rec.cmdline, "0123456789abcdef");
	strcpy(rec.plan, "fedcba9876543210");
	strcpy(rec.message, "gave up waiting for the root partition: no partition with PARTUUID …");
	return rec;
}

/* body + its check line, as the writer seals it. */
static size_t seal(const char *body, char *out, size_t size)
{
	uint8_t digest[SHA256_DIGEST_SIZE];
	char hex[FAILURE_RECORD_DIGEST_HEX + 1];

	sha256(body, strlen(body), digest);
	failure_record_hex(digest, hex);
	return (size_t)snprintf(out, size, "%scheck %s\n", body, hex);
}

static int decode_sealed(const char *body, struct failure_record *rec)
{
	char text[4096];
	size_t len = seal(body, text, sizeof(text));

	return failure_record_decode(text, len, rec);
}

static void test_round_trip(void **state)
{
	struct failure_record rec = sample(), back;
	char text[FAILURE_RECORD_MAX + 1];
	int len = failure_record_encode(&rec, text, sizeof(text));

	assert_true(len > 0);
	assert_int_equal(strlen(text), len);
	assert_non_null(strstr(text, "earlymount-failure 1\nversion 0.1.0\nstage plan\naction reboot\n"
				     "device PARTUUID=6a3e2c3b-0000-4000-8000-000000000001\n"
				     "cmdline 0123456789abcdef\nplan fedcba9876543210\nmessage gave up"));
	assert_int_equal(failure_record_decode(text, (size_t)len, &back), 0);
	assert_memory_equal(&rec, &back, sizeof(rec));
}

static void test_empty_fields_are_left_out(void **state)
{
	struct failure_record rec = sample(), back;
	char text[FAILURE_RECORD_MAX + 1];
	int len;

	rec.device[0] = '\0';
	rec.plan[0] = '\0';
	len = failure_record_encode(&rec, text, sizeof(text));
	assert_true(len > 0);
	assert_null(strstr(text, "\ndevice"));
	assert_null(strstr(text, "\nplan"));
	assert_int_equal(failure_record_decode(text, (size_t)len, &back), 0);
	assert_string_equal(back.device, "");
	assert_string_equal(back.plan, "");
}

static void test_what_it_needs(void **state)
{
	struct failure_record rec = sample();
	char text[FAILURE_RECORD_MAX + 1];

	rec.stage[0] = '\0';
	assert_int_equal(failure_record_encode(&rec, text, sizeof(text)), -EINVAL);
	rec = sample();
	assert_int_equal(failure_record_encode(&rec, text, FAILURE_RECORD_MAX), -ENOSPC);
}

/* Every field full, and a message far over the cap: the record stays within it, the fields
 * before the message whole, the message cut and marked, never inside a UTF-8 sequence. */
static void test_the_cap(void **state)
{
	struct failure_record rec = sample(), back;
	char text[FAILURE_RECORD_MAX + 1];
	size_t cut;
	int len;

	memset(rec.version, 'v', sizeof(rec.version) - 1);
	memset(rec.stage, 's', sizeof(rec.stage) - 1);
	memset(rec.action, 'a', sizeof(rec.action) - 1);
	memset(rec.device, 'd', sizeof(rec.device) - 1);
	for (size_t i = 0; i + 3 < sizeof(rec.message); i += 3)
		memcpy(rec.message + i, "\xe2\x80\xa6", 3); /* U+2026 */
	len = failure_record_encode(&rec, text, sizeof(text));
	assert_true(len > 0 && len <= FAILURE_RECORD_MAX);
	assert_int_equal(failure_record_decode(text, (size_t)len, &back), 0);
	assert_string_equal(back.device, rec.device);
	assert_string_equal(back.stage, rec.stage);
	cut = strlen(back.message);
	assert_true(cut > 500);
	assert_string_equal(back.message + cut - 3, "...");
	assert_int_equal((cut - 3) % 3, 0);
}

static void test_what_is_written_is_one_line_of_text(void **state)
{
	struct failure_record rec = sample(), back;
	char text[FAILURE_RECORD_MAX + 1];
	int len;

	strcpy(rec.message, "line one\nline two\twith a tab \x01 and \xff\xfe bytes");
	strcpy(rec.device, "/dev/vda\n2");
	len = failure_record_encode(&rec, text, sizeof(text));
	assert_int_equal(failure_record_decode(text, (size_t)len, &back), 0);
	assert_string_equal(back.message, "line one line two with a tab   and ?? bytes");
	assert_string_equal(back.device, "/dev/vda 2");
}

/* Whatever length a record is cut to, it is no record. */
static void test_every_cut_is_refused(void **state)
{
	struct failure_record rec = sample(), back;
	char text[FAILURE_RECORD_MAX + 1];
	int len = failure_record_encode(&rec, text, sizeof(text));

	for (int n = 0; n < len; n++)
		assert_int_equal(failure_record_decode(text, (size_t)n, &back), -EBADMSG);
}

/* And whichever byte changes, in whatever way. */
static void test_every_change_is_refused(void **state)
{
	struct failure_record rec = sample(), back;
	char text[FAILURE_RECORD_MAX + 1];
	int len = failure_record_encode(&rec, text, sizeof(text));

	for (int i = 0; i < len; i++)
		for (unsigned bit = 0; bit < 8; bit++) {
			text[i] ^= (char)(1u << bit);
			assert_int_not_equal(failure_record_decode(text, (size_t)len, &back), 0);
			text[i] ^= (char)(1u << bit);
		}
	assert_int_equal(failure_record_decode(text, (size_t)len, &back), 0);
}

static void test_hostile_records(void **state)
{
	static const char *const refused[] = {
		"",                                               /* nothing before the check */
		"stage plan\naction reboot\nmessage m\n",         /* no header */
		"earlymount-failure x\nstage plan\naction reboot\nmessage m\n",
		"earlymount-failure 0\nstage plan\naction reboot\nmessage m\n",
		"earlymount-failure 1\naction reboot\nmessage m\n",  /* no stage */
		"earlymount-failure 1\nstage plan\nmessage m\n",     /* no action */
		"earlymount-failure 1\nstage plan\naction reboot\n", /* no message */
		"earlymount-failure 1\nstage plan\nstage mount\naction reboot\nmessage m\n",
		"earlymount-failure 1\nstage \naction reboot\nmessage m\n",
		"earlymount-failure 1\nstage\naction reboot\nmessage m\n",
		"earlymount-failure 1\nstage plan\naction reboot\nmessage a\tb\n",
		"earlymount-failure 1\nstage plan\naction reboot\nmessage a\x7f\n",
		"earlymount-failure 1\nstage plan\naction reboot\nmessage \xc0\xaf\n", /* overlong */
		"earlymount-failure 1\nstage plan\naction reboot\nmessage m\ncmdline 0123\n",
		"earlymount-failure 1\nstage plan\naction reboot\nmessage m\nplan 0123456789ABCDEF\n",
		"earlymount-failure 1\nstage plan\naction reboot\nmessage m\nBad-Key x\n",
		"earlymount-failure 1\nstage plan\naction reboot\nmessage m\n\n",
		/* a stage longer than its field */
		"earlymount-failure 1\nstage 0123456789012345678901234567890123456789\naction reboot\n"
		"message m\n",
	};
	struct failure_record back;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (decode_sealed(refused[i], &back) != -EBADMSG)
			fail_msg("accepted: \"%s\"", refused[i]);
	/* a NUL inside */
	{
		char text[256];
		size_t len = seal("earlymount-failure 1\nstage plan\naction reboot\nmessage m@n\n", text,
				  sizeof(text));

		*strchr(text, '@') = '\0';
		assert_int_equal(failure_record_decode(text, len, &back), -EBADMSG);
	}
	/* more than the cap, however well-formed */
	{
		static char body[FAILURE_RECORD_MAX + 64], text[sizeof(body) + 64];
		size_t len;

		strcpy(body, "earlymount-failure 1\nstage plan\naction reboot\nmessage ");
		memset(body + strlen(body), 'm', FAILURE_RECORD_MAX - strlen(body));
		strcat(body, "\n");
		len = seal(body, text, sizeof(text));
		assert_true(len > FAILURE_RECORD_MAX);
		assert_int_equal(failure_record_decode(text, len, &back), -EBADMSG);
	}
	/* nothing after the check */
	{
		char text[256];
		size_t len = seal("earlymount-failure 1\nstage plan\naction reboot\nmessage m\n", text,
				  sizeof(text));

		text[len] = 'x';
		assert_int_equal(failure_record_decode(text, len + 1, &back), -EBADMSG);
	}
}

static void test_versions(void **state)
{
	struct failure_record back;

	assert_int_equal(decode_sealed("earlymount-failure 2\nanything\n", &back), -EPROTONOSUPPORT);
	/* a later version's field, within this version: passed over */
	assert_int_equal(decode_sealed("earlymount-failure 1\nstage plan\nboot-count 3\naction "
				       "reboot\nmessage m\n",
				       &back),
			 0);
	assert_string_equal(back.stage, "plan");
	assert_string_equal(back.message, "m");
}

/* A pmsg buffer: another writer's lines, NUL bytes, a damaged record, then a whole one. */
static void test_found_among_other_bytes(void **state)
{
	struct failure_record rec = sample(), found;
	char text[FAILURE_RECORD_MAX + 1];
	int len = failure_record_encode(&rec, text, sizeof(text));
	char buf[4096];
	size_t used = 0, at = 0, rec_len = 0;

	static const char other[] = "logd: hello\n\0\0\0earlymount-failure 1\nstage x\n";

	memcpy(buf, other, sizeof(other) - 1);
	used = sizeof(other) - 1;
	memcpy(buf + used, text, (size_t)len);
	buf[used + 30] ^= 1; /* damaged */
	used += (size_t)len;
	memcpy(buf + used, "\nother\n", 7);
	used += 7;
	assert_int_equal(failure_record_find(buf, used, &found, &at, &rec_len), -EBADMSG);
	memcpy(buf + used, text, (size_t)len);
	used += (size_t)len;
	memcpy(buf + used, "\0tail", 5);
	used += 5;
	assert_int_equal(failure_record_find(buf, used, &found, &at, &rec_len), 0);
	assert_int_equal(rec_len, len);
	assert_memory_equal(buf + at, text, (size_t)len);
	assert_memory_equal(&found, &rec, sizeof(rec));
	/* after another writer's line that did not end */
	memcpy(buf, "logd: no newline", 16);
	memcpy(buf + 16, text, (size_t)len);
	assert_int_equal(failure_record_find(buf, 16 + (size_t)len, &found, &at, &rec_len), 0);
	assert_int_equal(at, 16);
	assert_int_equal(failure_record_find("no record here\n", 15, &found, &at, &rec_len), -ENOENT);
	assert_int_equal(failure_record_find("", 0, &found, &at, &rec_len), -ENOENT);
	/* cut at the end of the buffer */
	assert_int_equal(failure_record_find(text, (size_t)len - 1, &found, &at, &rec_len), -EBADMSG);
}

static void test_described_in_one_line(void **state)
{
	struct failure_record rec = sample();
	char line[2048];

	failure_record_describe(&rec, line, sizeof(line));
	assert_string_equal(line, "the last boot failed at stage plan on "
				  "PARTUUID=6a3e2c3b-0000-4000-8000-000000000001: gave up waiting "
				  "for the root partition: no partition with PARTUUID … (then reboot; "
				  "earlymount 0.1.0, command line 0123456789abcdef, plan "
				  "fedcba9876543210)");
	rec.device[0] = rec.plan[0] = rec.version[0] = '\0';
	failure_record_describe(&rec, line, sizeof(line));
	assert_non_null(strstr(line, "failed at stage plan: gave"));
	assert_non_null(strstr(line, "earlymount of an unknown version"));
	assert_non_null(strstr(line, "plan none)"));
}

static void test_hex(void **state)
{
	uint8_t digest[SHA256_DIGEST_SIZE];
	char hex[FAILURE_RECORD_DIGEST_HEX + 1];

	/* SHA-256 of "abc" begins ba7816bf8f01cfea */
	sha256("abc", 3, digest);
	failure_record_hex(digest, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_empty_fields_are_left_out),
		cmocka_unit_test(test_what_it_needs),
		cmocka_unit_test(test_the_cap),
		cmocka_unit_test(test_what_is_written_is_one_line_of_text),
		cmocka_unit_test(test_every_cut_is_refused),
		cmocka_unit_test(test_every_change_is_refused),
		cmocka_unit_test(test_hostile_records),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_found_among_other_bytes),
		cmocka_unit_test(test_described_in_one_line),
		cmocka_unit_test(test_hex),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
