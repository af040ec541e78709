/* The contract between PID 1 and earlymount-luks, the static helper that unlocks LUKS devices
 * with libcryptsetup. The helper is a separate binary so that the default earlymount stays
 * small for the systems that need no encryption; `earlymount initramfs --luks` adds it.
 *
 *   earlymount-luks open DEVICE NAME [--readonly] [--discard] [--no-read-workqueue]
 *                                    [--no-write-workqueue] [--measure]
 *       reads the key (a passphrase, or a key file's bytes) from stdin until EOF and opens
 *       DEVICE as /dev/mapper/NAME. --measure: after the activation, one line on stdout,
 *       LUKS_MEASURE_PREFIX then " BANK:HEX" for sha1, sha256, sha384 and sha512, then " "
 *       and the measured string (volume_key.h): what tpm2-measure-pcr= extends the PCR with
 *   earlymount-luks test DEVICE
 *       reads the key the same way and only checks that it opens a key slot
 *   earlymount-luks tpm2 DEVICE NAME [the options of open] [--tpm2-device=PATH]
 *                                    [--tpm2-pcrs=MASK]
 *       opens DEVICE with its systemd-tpm2 tokens: the TPM unseals the key (PATH: the TPM
 *       device, default /dev/tpmrm0); stdin holds the PIN when one was asked for, else
 *       nothing. MASK (hexadecimal): only the tokens sealed to exactly these PCRs
 *   earlymount-luks tpm2-test DEVICE [--tpm2-device=PATH]
 *       the same, only checking that a token's key opens its keyslot
 *   earlymount-luks check DEVICE
 *       reads no key: only checks that DEVICE has a LUKS header libcryptsetup can use, so that
 *       nobody is asked for a passphrase a damaged header would refuse anyway
 *   Each takes --header=PATH: the LUKS header is the file PATH (crypttab's header=), DEVICE
 *   holds the data. open and test take --plain --cipher=NAME-MODE --key-size=BITS
 *   [--hash=NAME] [--offset=SECTORS] [--skip=SECTORS] instead: plain dm-crypt, no header,
 *   the key hashed with NAME ("plain": taken as it is), as systemd-cryptsetup opens it
 *
 * The key is never printed. On failure the helper writes one line to stderr (what failed,
 * libcryptsetup's reason when it gave one) and exits with one of these codes. It writes
 * nothing to the LUKS header. */
#pragma once

/* Where `earlymount initramfs --luks` puts the helper in the image. */
#define LUKS_HELPER_PATH "/usr/lib/earlymount/earlymount-luks"

/* The start of --measure's line. */
#define LUKS_MEASURE_PREFIX "measured-key"

/* The longest key read from stdin: cryptsetup's own default limit for key files (8 MiB). */
#define LUKS_KEY_MAX (8u * 1024 * 1024)

enum luks_helper_exit {
	LUKS_EXIT_OK = 0,
	LUKS_EXIT_FAILED = 1,    /* anything else: no device-mapper, a kernel cipher missing, … */
	LUKS_EXIT_USAGE = 2,     /* bad arguments, or a key longer than LUKS_KEY_MAX */
	LUKS_EXIT_BAD_KEY = 3,   /* the key opens no key slot (libcryptsetup's -EPERM) */
	LUKS_EXIT_NO_HEADER = 4, /* DEVICE holds no LUKS header libcryptsetup can read */
	LUKS_EXIT_EXISTS = 5,    /* /dev/mapper/NAME is already there */
	LUKS_EXIT_NO_TOKEN = 6,  /* tpm2: no token unsealed a key that opens (no TPM, PCRs
				  * changed, no token, …): the passphrase is next */
	LUKS_EXIT_PIN = 7,       /* tpm2: a token needs a PIN, or the PIN given was wrong */
};

/* The kernel modules the helper's calls need, by module name, loaded by PID 1 before it runs
 * the helper and put in the image by `earlymount initramfs --luks` when the kernel has them
 * as modules. libcryptsetup hashes with nettle (its crypto backend here) but decrypts key
 * slots in the kernel (AF_ALG's skcipher, else a temporary dm-crypt device), and dm-crypt
 * needs the volume's cipher; the kernel asks modprobe for a missing algorithm, and the
 * initramfs has none, so the algorithms LUKS2's defaults use (aes-xts-plain64) are named
 * here, with the hashes of dm-crypt's IV modes (essiv:sha256, the essiv template itself: plain
 * dm-crypt's default) and of older volumes' keyslot ciphers. Missing ones are skipped: a kernel may build them in. */
#define LUKS_MODULES                                                                       \
	"dm_mod", "dm_crypt", "af_alg", "algif_hash", "algif_skcipher", "xts", "ecb", "cbc", \
		"hmac", "sha256_generic", "aes_generic", "aesni_intel", "sha256_ssse3",   \
		"aes_ce_blk", "aes_neon_bs", "aes_neon_blk", "sha2_ce", "sha256_arm64",   \
		"sha512_generic", "sha512_ssse3", "sha512_ce", "sha512_arm64", "essiv"
