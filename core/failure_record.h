/* The record a boot leaves when it stops and the machine then goes down by itself (a reboot,
 * power-off or halt, or the watchdog's reset): where it stopped and why, for the next boot to
 * say (docs/booting.md, "After a failure"). Pure: its text, written and read back with every
 * check a record from NVRAM or RAM needs; init/last_failure.c keeps it, the host command
 * `earlymount last-failure` shows it.
 *
 * The text, one "KEY VALUE" line each, in this order:
 *   earlymount-failure 1
 *   version 0.1.0               earlymount's
 *   stage plan                  the stage that failed (boot.c's names, or "handoff")
 *   action reboot               reboot, poweroff, halt or watchdog: what came next
 *   device PARTUUID=…           what the boot was at, when known (else no line)
 *   cmdline 0123456789abcdef    FAILURE_RECORD_DIGEST_HEX hex digits of the SHA-256 of the
 *                               kernel command line, /proc/cmdline without its newline
 *   plan 0123456789abcdef       … of the plan's steps (plan_digest()); no line without a plan
 *   message gave up waiting …   the failure's message, cut to fit the cap
 *   check 0123456789abcdef      … of every byte before this line: a record cut short or
 *                               changed in NVRAM or RAM is known as damaged */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "sha256.h"

/* earlymount's own vendor GUID for the EFI variables it writes, made at random once; no other
 * vendor writes under it. */
#define EARLYMOUNT_EFI_VENDOR "2bc4121b-0f83-482d-9d5d-8f1df7ec0dfa"
#define FAILURE_RECORD_EFI_NAME "EarlymountLastFailure"

/* The whole record, in bytes, at most: the size of each variable the kernel's efi-pstore
 * writes (its record_size, 1024), which firmware is known to take. NVRAM is shared with the
 * boot entries and the Secure Boot keys, 64-256 KiB on most machines; a record never grows. */
#define FAILURE_RECORD_MAX 1024
/* 64 bits of SHA-256: enough to tell two command lines or plans apart, short to read. */
#define FAILURE_RECORD_DIGEST_HEX 16
#define FAILURE_RECORD_MAGIC "earlymount-failure"
#define FAILURE_RECORD_VERSION 1

struct failure_record {
	char version[16];
	char stage[32];
	char action[16];
	char device[256];                              /* "" when unknown */
	char cmdline[FAILURE_RECORD_DIGEST_HEX + 1];   /* the digests, lower-case hex */
	char plan[FAILURE_RECORD_DIGEST_HEX + 1];      /* "" without a plan */
	char message[FAILURE_RECORD_MAX];
};

/* The first FAILURE_RECORD_DIGEST_HEX hex digits of digest. */
void failure_record_hex(const uint8_t digest[SHA256_DIGEST_SIZE],
			char out[FAILURE_RECORD_DIGEST_HEX + 1]);

/* The record's text into out (size at least FAILURE_RECORD_MAX + 1, terminated): control
 * characters become spaces and bytes that are no UTF-8 '?', and the message is cut (ending in
 * "...") to keep the whole within FAILURE_RECORD_MAX. Its length, or -ENOSPC when out is
 * smaller. */
int failure_record_encode(const struct failure_record *rec, char *out, size_t size);

/* Reads a record from the len bytes at data, which must be one whole record and nothing
 * else: 0; -EBADMSG when it is not one (cut short, changed, longer than FAILURE_RECORD_MAX,
 * a NUL, a control character or a byte that is no UTF-8, a field too long or given twice, a
 * field it needs missing: stage, action, message); -EPROTONOSUPPORT when a later version of
 * the format wrote it. Lines of keys it does not know are passed over (a later version's
 * fields). rec is zeroed on failure. */
int failure_record_decode(const char *data, size_t len, struct failure_record *rec);

/* The last whole record among the len bytes at data, whatever else they hold before or after
 * it (pstore's pmsg buffer, which other writers share; NUL bytes too): 0 with *at and *rec_len where its text
 * is, -EBADMSG when there was one but none reads whole, -ENOENT when there was none. */
int failure_record_find(const char *data, size_t len, struct failure_record *rec, size_t *at,
			size_t *rec_len);

/* One line: "the last boot failed at stage plan on PARTUUID=…: MESSAGE (then reboot;
 * earlymount 0.1.0, command line 0123…, plan 4567…)". snprintf's result. */
int failure_record_describe(const struct failure_record *rec, char *buf, size_t size);
