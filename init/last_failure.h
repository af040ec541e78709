/* The last failure, remembered (docs/booting.md, "After a failure"). A boot that stops and
 * leaves the machine to go down by itself writes one record of it (failure_record.h): into an
 * EFI variable of earlymount's vendor GUID when efivarfs takes it, else into pstore's
 * /dev/pmsg0. The next boot reads it, says it once on the console and in the kernel log, passes
 * it to the real system in LAST_FAILURE_PATH, and deletes it at the handoff: a boot that fails
 * again the same way finds it there and writes nothing, so a machine in a boot loop does not
 * wear its NVRAM out. */
#pragma once

#include "failure_record.h"

/* Where the record goes and comes from: last_failure_system, or a test's files. */
struct last_failure_places {
	const char *efivars;   /* efivarfs */
	const char *pmsg;      /* pstore's device for user space's messages */
	const char *pstore;    /* where pstore is mounted (mounted there when it is not) */
	const char *passed_on; /* the file for the real system */
};

extern const struct last_failure_places last_failure_system;

enum last_failure_source {
	LAST_FAILURE_NONE,
	LAST_FAILURE_EFIVAR,
	LAST_FAILURE_PSTORE,
};

/* What the boot read, for the handoff to delete. */
struct last_failure {
	enum last_failure_source from;
	char pstore_file[512]; /* LAST_FAILURE_PSTORE: the file that held it */
};

/* Writes rec (its action set) for the next boot, once: to the EFI variable, unless it holds
 * this very record already (nothing is written then); else to pmsg. Says where, or why
 * nowhere. 0, or the -errno of the last place tried (-ENOENT: there was none). */
int last_failure_keep(const struct last_failure_places *at, const struct failure_record *rec);

/* Reads the record a failed boot left (the EFI variable first, then pstore's pmsg files),
 * says it as a warning and writes it to at->passed_on. 0; -ENOENT when there is none;
 * -EBADMSG or -EPROTONOSUPPORT when the one there cannot be read (said, and deleted at the
 * handoff all the same); each with lf->from saying where it was. */
int last_failure_load(const struct last_failure_places *at, struct last_failure *lf);

/* At the handoff: deletes the record last_failure_load() found, now passed on. */
void last_failure_forget(const struct last_failure_places *at, struct last_failure *lf);
