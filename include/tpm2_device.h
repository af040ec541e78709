/* The kernel's TPM character device: one command, one response. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The resource manager's /dev/tpmrm0, else the raw /dev/tpm0: a file descriptor, or -errno
 * (-ENOENT when the kernel drives no TPM). */
int tpm2_device_open(void);

/* path: a TPM character device, or a Unix socket where a TPM simulator (swtpm) takes
 * commands as the device would, for tests. A file descriptor, or -errno. */
int tpm2_device_open_path(const char *path);

/* Sends cmd and reads the whole response into resp: its length, or -errno (-EPROTO when the
 * response is cut short or larger than size). */
int tpm2_device_transceive(int fd, const uint8_t *cmd, size_t len, uint8_t *resp, size_t size);
