/* The TPM's side of a measurement (lib/tpm2_command.c builds the commands) and systemd's
 * record of it: one JSON text per event, after an RS byte (RFC 7464), with the boot ID and a
 * CLOCK_BOOTTIME timestamp in microseconds, as systemd's tpm2_userspace_log() writes it. */
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
#include "tpm2_device.h"
#include "tpm2_measure.h"
#include "util.h"

#define STUB_PCR_VARIABLE "StubPcrKernelImage"
#define MEASURE_LOG_DIR "/run/log/systemd"
#define MEASURE_LOG MEASURE_LOG_DIR "/tpm2-measure.log"

bool tpm2_stub_measured(const char *what)
{
	char value[16];
	int r = efivar_read_string(EFIVARS_DIR, STUB_PCR_VARIABLE, EFI_LOADER_VENDOR, value,
				   sizeof(value));

	if (r != -ENOENT && (r < 0 || !streq(value, "11")))
		log_warn("%s is not 11 but '%s': %s is not measured, as systemd would not",
			 STUB_PCR_VARIABLE, r < 0 ? "?" : value, what);
	return r >= 0 && streq(value, "11");
}

/* One command, one response. */
static int transceive(const char *device, const uint8_t *cmd, int len, uint8_t *resp,
		      size_t size)
{
	int fd = device ? tpm2_device_open_path(device) : tpm2_device_open();
	int r = fd < 0 ? fd : len;

	if (r >= 0)
		r = tpm2_device_transceive(fd, cmd, (size_t)len, resp, size);
	if (fd >= 0)
		close(fd);
	return r;
}

int tpm2_measure_banks(const char *device, struct tpm2_digests *banks)
{
	uint8_t cmd[TPM2_COMMAND_MAX], resp[TPM2_COMMAND_MAX];
	int r = transceive(device, cmd, tpm2_build_get_pcr_banks(cmd, sizeof(cmd)), resp,
			   sizeof(resp));

	return r < 0 ? r : tpm2_parse_get_pcr_banks(resp, (size_t)r, banks);
}

int tpm2_measure_event(unsigned pcr, const char *data, struct tpm2_digests *d)
{
	uint8_t cmd[TPM2_COMMAND_MAX], resp[TPM2_COMMAND_MAX];
	int len = tpm2_build_pcr_event(pcr, data, strlen(data), cmd, sizeof(cmd));
	int r = len < 0 ? len : transceive(NULL, cmd, len, resp, sizeof(resp));

	return r < 0 ? r : tpm2_parse_pcr_event(resp, (size_t)r, d);
}

int tpm2_measure_extend(const char *device, unsigned pcr, const struct tpm2_digests *d)
{
	uint8_t cmd[TPM2_COMMAND_MAX], resp[TPM2_COMMAND_MAX];
	int len = tpm2_build_pcr_extend(pcr, d, cmd, sizeof(cmd));
	int r = len < 0 ? len : transceive(device, cmd, len, resp, sizeof(resp));

	return r < 0 ? r : tpm2_parse_pcr_extend(resp, (size_t)r);
}

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

/* s as a JSON string's contents: '"' and '\' escaped, control bytes as \u00XX. */
static size_t json_escape(const char *s, char *out, size_t size)
{
	size_t used = 0;

	for (const unsigned char *c = (const unsigned char *)s; *c && used < size; c++)
		used += (size_t)(*c == '"' || *c == '\\' ? snprintf(out + used, size - used, "\\%c", *c)
				 : *c < ' '		 ? snprintf(out + used, size - used, "\\u%04x", *c)
							 : snprintf(out + used, size - used, "%c", *c));
	return used;
}

void tpm2_measure_record(unsigned pcr, const struct tpm2_digests *d, const char *string,
			 const char *event_type)
{
	char line[2048], id[33];
	struct timespec now;
	size_t used;
	int fd, r;

	clock_gettime(CLOCK_BOOTTIME, &now);
	boot_id(id);
	used = (size_t)snprintf(line, sizeof(line), "\x1e{\"pcr\":%u,\"digests\":[", pcr);
	for (size_t i = 0; i < d->n && used < sizeof(line); i++) {
		used += (size_t)snprintf(line + used, sizeof(line) - used,
					 "%s{\"hashAlg\":\"%s\",\"digest\":\"", i ? "," : "", d->d[i].name);
		for (size_t k = 0; k < d->d[i].size && used < sizeof(line); k++)
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%02x", d->d[i].bytes[k]);
		used += (size_t)snprintf(line + used, sizeof(line) - used, "\"}");
	}
	if (used < sizeof(line))
		used += (size_t)snprintf(line + used, sizeof(line) - used,
					 "],\"content_type\":\"systemd\",\"content\":{\"string\":\"");
	if (used < sizeof(line))
		used += json_escape(string, line + used, sizeof(line) - used);
	if (used < sizeof(line))
		snprintf(line + used, sizeof(line) - used,
			 "\",\"bootId\":\"%s\",\"timestamp\":%lld,\"eventType\":\"%s\"}}\n", id,
			 (long long)now.tv_sec * 1000000 + now.tv_nsec / 1000, event_type);
	r = make_directories(MEASURE_LOG_DIR, 0755);
	fd = r < 0 ? r : open(MEASURE_LOG, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	r = fd < 0 ? (fd == -1 ? -errno : fd) : 0;
	if (r == 0) {
		flock(fd, LOCK_EX);
		r = write_all(fd, line, strlen(line));
		close(fd);
	}
	if (r < 0)
		log_warn("%s was measured into PCR %u, but unable to record it in %s: %s", string,
			 pcr, MEASURE_LOG, strerror(-r));
}

void tpm2_measure_bank_names(const struct tpm2_digests *d, char *out, size_t size)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < d->n && used < size; i++)
		used += (size_t)snprintf(out + used, size - used, "%s%s", i ? ", " : "", d->d[i].name);
}
