/* The phase words go to the TPM with TPM2_PCR_Event, which hashes them in every active bank
 * itself: the same values as systemd's per-bank extend of the word's digests (no NUL, no
 * newline), with no hash code here. The record is systemd's JSON-SEQ line, which
 * systemd-pcrlock reads back. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "efivars.h"
#include "fileio.h"
#include "log.h"
#include "pcr_phase.h"
#include "tpm2_command.h"
#include "tpm2_device.h"
#include "util.h"

#define PHASE_PCR 11
#define STUB_PCR_VARIABLE "StubPcrKernelImage"
#define MEASURE_LOG_DIR "/run/log/systemd"
#define MEASURE_LOG MEASURE_LOG_DIR "/tpm2-measure.log"

/* systemd's boot ID form: 32 hex digits, no dashes. */
static void boot_id(char out[33])
{
	char text[64] = "";
	size_t n = 0;

	read_file_at(AT_FDCWD, "/proc/sys/kernel/random/boot_id", text, sizeof(text));
	for (const char *c = text; *c && n < 32; c++)
		if (*c != '-' && *c != '\n')
			out[n++] = *c;
	out[n] = '\0';
}

static void record(const char *word, const struct tpm2_digests *d)
{
	char line[1024], id[33];
	struct timespec now;
	size_t used;
	int fd, r;

	clock_gettime(CLOCK_REALTIME, &now);
	boot_id(id);
	used = (size_t)snprintf(line, sizeof(line), "\x1e{\"pcr\":%d,\"digests\":[", PHASE_PCR);
	for (size_t i = 0; i < d->n && used < sizeof(line); i++) {
		used += (size_t)snprintf(line + used, sizeof(line) - used,
					 "%s{\"hashAlg\":\"%s\",\"digest\":\"", i ? "," : "", d->d[i].name);
		for (size_t k = 0; k < d->d[i].size && used < sizeof(line); k++)
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%02x", d->d[i].bytes[k]);
		used += (size_t)snprintf(line + used, sizeof(line) - used, "\"}");
	}
	if (used < sizeof(line))
		snprintf(line + used, sizeof(line) - used,
			 "],\"content_type\":\"systemd\",\"content\":{\"string\":\"%s\",\"bootId\":\"%s\","
			 "\"timestamp\":%lld,\"eventType\":\"phase\"}}\n",
			 word, id, (long long)now.tv_sec * 1000000 + now.tv_nsec / 1000);
	r = make_directories(MEASURE_LOG_DIR, 0755);
	fd = r < 0 ? r : open(MEASURE_LOG, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	r = fd < 0 ? (fd == -1 ? -errno : fd) : 0;
	if (r == 0) {
		flock(fd, LOCK_EX);
		r = write_all(fd, line, strlen(line));
		close(fd);
	}
	if (r < 0)
		log_warn("%s was measured into PCR %d, but unable to record it in %s: %s", word,
			 PHASE_PCR, MEASURE_LOG, strerror(-r));
}

/* 0 with the digests the TPM extended, or -errno, or a TPM response code (> 0). */
static int extend(const char *word, struct tpm2_digests *d)
{
	uint8_t cmd[TPM2_COMMAND_MAX], resp[TPM2_COMMAND_MAX];
	int fd = tpm2_device_open();
	int len = tpm2_build_pcr_event(PHASE_PCR, word, strlen(word), cmd, sizeof(cmd));
	int r = fd < 0 ? fd : len;

	if (r >= 0)
		r = tpm2_device_transceive(fd, cmd, (size_t)len, resp, sizeof(resp));
	if (r >= 0)
		r = tpm2_parse_pcr_event(resp, (size_t)r, d);
	if (fd >= 0)
		close(fd);
	return r;
}

static void names(const struct tpm2_digests *d, char *out, size_t size)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < d->n && used < size; i++)
		used += (size_t)snprintf(out + used, size - used, "%s%s", i ? ", " : "", d->d[i].name);
}

/* Says why word was not measured (r from extend()). */
static void report_failure(const char *word, int r)
{
	if (r == -ENOENT)
		log_warn("systemd-stub measured the kernel into PCR %d, but this kernel drives no TPM "
			 "(no /dev/tpmrm0): %s is not measured, and a key sealed to that phase will not "
			 "unseal", PHASE_PCR, word);
	else if (r < 0)
		log_warn("unable to measure %s into PCR %d: %s", word, PHASE_PCR, strerror(-r));
	else
		log_warn("the TPM refused to measure %s into PCR %d: response code 0x%x", word,
			 PHASE_PCR, (unsigned)r);
}

void pcr_phase_measure(const char *word)
{
	struct tpm2_digests d;
	char value[16], banks[64];
	int r = efivar_read_string(EFIVARS_DIR, STUB_PCR_VARIABLE, EFI_LOADER_VENDOR, value,
				   sizeof(value));

	if (r == -ENOENT)
		goto out;
	if (r < 0 || !streq(value, "11")) {
		log_warn("%s is not 11 but '%s': %s is not measured, as systemd would not",
			 STUB_PCR_VARIABLE, r < 0 ? "?" : value, word);
		goto out;
	}
	r = extend(word, &d);
	if (r != 0) {
		report_failure(word, r);
		goto out;
	}
	names(&d, banks, sizeof(banks));
	log_info("measured %s into PCR %d (%s)", word, PHASE_PCR, banks);
	record(word, &d);
out:
	return;
}
