/* systemd's credentials as an initrd gathers them (systemd's docs/CREDENTIALS.md): their
 * names, and the credentials of the command line and of SMBIOS type 11 strings. Data in,
 * data out: the boot reads the sources and writes the files (init/handoff/credentials_import.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* systemd's limits: a name of at most NAME_MAX bytes, 1 MiB a credential and 1 MiB for all
 * of one import (the boot loader's encrypted ones, and the others). */
#define CREDENTIAL_NAME_MAX 255
#define CREDENTIAL_SIZE_MAX (1024 * 1024)
#define CREDENTIALS_TOTAL_MAX (1024 * 1024)

/* A name systemd takes: 1 to 255 printable ASCII bytes, no '/' or ':', not "." or "..". */
bool credential_name_valid(const char *name, size_t len);

/* Called for each credential found, its value decoded. Returns 0, or -errno to stop. */
typedef int credential_fn(const char *name, const uint8_t *value, size_t len, void *data);
/* Called for each malformed one, with why it was passed over (never its value). */
typedef void credential_bad_fn(const char *what, const char *why, void *data);

struct credential_walk {
	credential_fn *found;
	credential_bad_fn *bad;
	void *data;
};

/* The credentials of systemd.set_credential=NAME:VALUE and systemd.set_credential_binary=
 * NAME:BASE64 on the command line line, in its order; 0 or what found returned. */
int credentials_from_cmdline(const char *line, const struct credential_walk *w);

/* The credentials of one SMBIOS type 11 structure as the kernel gives it
 * (/sys/firmware/dmi/entries/11-N/raw): its strings io.systemd.credential:NAME=VALUE and
 * io.systemd.credential.binary:NAME=BASE64. */
int credentials_from_smbios11(const uint8_t *raw, size_t len, const struct credential_walk *w);
