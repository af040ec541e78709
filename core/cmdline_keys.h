/* Shared by the files of the command line alone: the setters its key table calls, one file an
 * area (cmdline_<area>.c), and what they have in common. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cmdline.h"

/* 0 or -errno; on -EINVAL *why says what is wrong with the value. */
typedef int key_handler(struct options *o, const char *value, const char **why);

/* cmdline_root.c: root= and mount.usr=, their fstypes, ro and rw, init=. */
key_handler cmdline_set_root, cmdline_set_rootfstype, cmdline_set_ro, cmdline_set_rw,
	cmdline_set_usr, cmdline_set_usrfstype, cmdline_set_init;

/* cmdline_discovery.c: systemd.gpt_auto=, earlymount.disk=, earlymount.fallback=,
 * systemd.machine_id=, systemd.image_policy=, systemd.image_filter=. */
key_handler cmdline_set_gpt_auto, cmdline_set_disk, cmdline_set_fallback, cmdline_set_machine_id,
	cmdline_set_image_policy, cmdline_set_image_filter;

/* cmdline_extra.c: systemd.mount-extra=, rd.systemd.mount-extra=, systemd.swap-extra=. */
key_handler cmdline_set_mount_extra, cmdline_set_swap_extra;
/* cmdline_extra.c: systemd.set_credential=, systemd.set_credential_binary= (counted, never
 * stored or shown), systemd.import_credentials=. */
key_handler cmdline_set_credential, cmdline_set_import_credentials;
/* cmdline_extra.c: systemd.tpm2_wait=, whether a TPM2 token waits for its TPM. */
key_handler cmdline_set_tpm2_wait;

/* cmdline_console.c: rd.vconsole.keymap=, vconsole.keymap=. */
key_handler cmdline_set_keymap;

/* cmdline_verity.c: systemd.verity=, roothash=, usrhash=, systemd.verity_{root,usr}_*=. */
key_handler cmdline_set_verity, cmdline_set_roothash, cmdline_set_usrhash,
	cmdline_set_verity_root_data, cmdline_set_verity_root_hash, cmdline_set_verity_root_options,
	cmdline_set_verity_usr_data, cmdline_set_verity_usr_hash, cmdline_set_verity_usr_options;

/* cmdline_luks.c: rd.luks= and rd.luks.{crypttab,uuid,name,options,key}=, and their luks.
 * forms. */
key_handler cmdline_set_luks, cmdline_set_luks_crypttab, cmdline_set_luks_uuid, cmdline_set_luks_name, cmdline_set_luks_options,
	cmdline_set_luks_key;

/* cmdline_stacks.c: rd.lvm= (rd.lvm.vg= and rd.lvm.lv= are lists). */
key_handler cmdline_set_lvm;
/* cmdline_stacks.c: rd.md= and earlymount.md_degraded= (rd.md.uuid= is a list). */
key_handler cmdline_set_md;
key_handler cmdline_set_md_degraded;

/* cmdline_fsck.c: fsck.mode= and fsck.repair=. */
key_handler cmdline_set_fsck_mode, cmdline_set_fsck_repair;

/* cmdline_volatile.c: systemd.volatile=. */
key_handler cmdline_set_volatile;

/* cmdline_resume.c: resume=, resume_offset=, noresume. */
key_handler cmdline_set_resume, cmdline_set_resume_offset, cmdline_set_noresume;

/* cmdline_failure.c: emergency, rd.emergency[=ACTION], rd.shell=, panic=, rd.break. */
key_handler cmdline_set_emergency, cmdline_set_rd_emergency, cmdline_set_shell, cmdline_set_panic,
	cmdline_set_break;

/* cmdline_log.c: quiet, debug. */
key_handler cmdline_set_quiet, cmdline_set_debug;

/* cmdline_wait.c: rootwait, rd.timeout=, rootdelay=. */
key_handler cmdline_set_rootwait, cmdline_set_timeout, cmdline_set_rootdelay;

/* cmdline_watchdog.c: rd.watchdog=, systemd.watchdog_device=. */
key_handler cmdline_set_watchdog, cmdline_set_watchdog_device;

/* cmdline_net.c: ip=, rd.neednet=, rd.net.timeout.dhcp=, nfsroot=, netroot=. */
key_handler cmdline_set_ip, cmdline_set_neednet, cmdline_set_dhcp_timeout, cmdline_set_nfsroot,
	cmdline_set_netroot;

/* cmdline_share.c: the share a value names by dracut's prefixes (virtiofs:TAG, virtfs:TAG for
 * 9p), its tag in *tag, SHARE_NONE without a prefix; the share an fstype names, SHARE_NONE for
 * any other (or NULL). */
enum share_fs cmdline_share_prefix(const char *value, const char **tag);
enum share_fs cmdline_share_from_fstype(const char *fstype);

/* cmdline_store.c: s copied into o's storage, *out pointing at it; 0 or -E2BIG. */
int cmdline_store(struct options *o, const char *s, const char **out);
/* Likewise, but an empty value resets *field to NULL, as if the key had not been given. */
int cmdline_store_or_reset(struct options *o, const char *value, const char **field);
/* The non-empty comma-separated items of value appended to *list, the last string in
 * storage; 0 or -E2BIG. */
int cmdline_list_append(struct options *o, const char **list, const char *value);

/* cmdline_value.c: the forms of value keys of several areas take. */

/* A key's words and the values they stand for. */
struct word_value {
	const char *word;
	int value;
};

/* The value of word in table; -EINVAL when it is not there. */
int cmdline_word_lookup(const struct word_value *table, size_t n, const char *word, int *value);
/* A boolean key into *field (the bare key, a NULL value, means yes); 0 or -EINVAL. */
int cmdline_set_bool(const char *value, bool *field, const char **why);
/* A path, or a UUID=, PARTUUID=, LABEL= or PARTLABEL= tag with a value. */
bool cmdline_is_device_spec(const char *s);
