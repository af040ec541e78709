/* seeds IMAGE OUTDIR NAME [mutate]: turns a disk image made by tests/fixtures/mkdisk into
 * fuzz_probe seeds of 64 KiB. The partition table is kept; each partition is moved next to the
 * table with just the first sectors of its filesystem (enough for libblkid to name it), so
 * the whole disk fits. Writes NAME.img (the header still names its backup at the original
 * end: a truncated disk). With "mutate" (or "some" for a few), also a small copy with only
 * the entries in use and a backup table that fits, and variants of it with hostile header
 * fields and entries, their CRCs made right so that libblkid reads on, plus a few with wrong
 * CRCs. Host tool, not part of earlymount. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define SECTOR 512u
#define MAX_SECTORS 128u /* 64 KiB */
#define GPT_ENTRIES_LBA 2u

struct gpt_header {
	char signature[8];
	uint32_t revision;
	uint32_t header_size;
	uint32_t header_crc32;
	uint32_t reserved;
	uint64_t my_lba;
	uint64_t alternate_lba;
	uint64_t first_usable_lba;
	uint64_t last_usable_lba;
	uint8_t disk_guid[16];
	uint64_t entries_lba;
	uint32_t n_entries;
	uint32_t entry_size;
	uint32_t entries_crc32;
} __attribute__((packed));

struct gpt_entry {
	uint8_t type[16];
	uint8_t uuid[16];
	uint64_t first_lba;
	uint64_t last_lba;
	uint64_t attrs;
	uint16_t name[36];
} __attribute__((packed));

struct mbr_entry {
	uint8_t boot;
	uint8_t chs_first[3];
	uint8_t type;
	uint8_t chs_last[3];
	uint32_t start;
	uint32_t size;
} __attribute__((packed));

struct image {
	uint8_t *bytes;
	size_t size;
};

static const char *out_dir, *base_name;
static unsigned written;
/* Size of the seed being made, in sectors. */
static unsigned sectors = MAX_SECTORS;

static int die(const char *what)
{
	fprintf(stderr, "seeds: %s\n", what);
	exit(1);
}

static struct image read_image(const char *path)
{
	struct image img = { 0 };
	FILE *f = fopen(path, "rb");

	if (!f || fseek(f, 0, SEEK_END) != 0)
		die("cannot open the image");
	img.size = (size_t)ftell(f);
	rewind(f);
	img.bytes = malloc(img.size ? img.size : 1);
	if (!img.bytes || fread(img.bytes, 1, img.size, f) != img.size)
		die("cannot read the image");
	fclose(f);
	return img;
}

static void write_seed(const uint8_t *bytes, size_t size, const char *suffix)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s%s.img", out_dir, base_name, suffix);
	f = fopen(path, "wb");
	if (!f || fwrite(bytes, 1, size, f) != size || fclose(f) != 0)
		die("cannot write a seed");
	written++;
}

/* How many sectors of a filesystem libblkid needs to name it: the ext4 superblock ends at
 * 2 KiB, the swap signature at 4 KiB; FAT reads its boot sector and the start of the FAT. */
static unsigned fs_sectors(const uint8_t *fs, size_t avail)
{
	if (avail >= 2048 && fs[1080] == 0x53 && fs[1081] == 0xef)
		return 4;
	if (avail >= 4096 && memcmp(fs + 4086, "SWAPSPACE2", 10) == 0)
		return 8;
	if (avail >= 512 && fs[510] == 0x55 && fs[511] == 0xaa)
		return 8;
	return 1;
}

/* Copies the first sectors of the partition at src_lba to dst_lba; returns how many. */
static unsigned place_fs(uint8_t *seed, const struct image *img, uint64_t src_lba, unsigned dst_lba,
			 unsigned room)
{
	uint64_t off = src_lba * SECTOR;
	unsigned n;

	if (off >= img->size)
		return 1;
	n = fs_sectors(img->bytes + off, img->size - off);
	if (n > room)
		die("the partitions do not fit in 64 KiB");
	memcpy(seed + (size_t)dst_lba * SECTOR, img->bytes + off, (size_t)n * SECTOR);
	return n;
}

static struct gpt_header *header_at(uint8_t *seed, unsigned lba)
{
	return (struct gpt_header *)(seed + (size_t)lba * SECTOR);
}

static struct gpt_entry *entries_at(uint8_t *seed, const struct gpt_header *h)
{
	return (struct gpt_entry *)(seed + (size_t)h->entries_lba * SECTOR);
}

/* The CRCs of a header whose entries lie inside the seed (others keep what they had). */
static void gpt_fix_crcs(uint8_t *seed, struct gpt_header *h)
{
	uint64_t bytes = (uint64_t)h->n_entries * h->entry_size;

	if (h->entries_lba < sectors && bytes <= (sectors - h->entries_lba) * SECTOR)
		h->entries_crc32 = (uint32_t)crc32(0, (const uint8_t *)entries_at(seed, h), (uInt)bytes);
	h->header_crc32 = 0;
	if (h->header_size >= 92 && h->header_size <= SECTOR)
		h->header_crc32 = (uint32_t)crc32(0, (const uint8_t *)h, h->header_size);
}

/* Entries up to the last one in use, in whole sectors. */
static uint32_t used_entries(const struct gpt_entry *e, uint32_t n)
{
	static const uint8_t unused[16];
	uint32_t used = 0;

	for (uint32_t i = 0; i < n; i++)
		if (memcmp(e[i].type, unused, sizeof(unused)) != 0)
			used = i + 1;
	return (used + 3) / 4 * 4;
}

/* GPT: the table from LBA 1, then the partitions packed up to last_lba. small: only the
 * entries in use, the partitions right after them, and the seed cut to hold a backup. */
static void compact_gpt(const struct image *img, uint8_t *seed, unsigned last_lba, bool small)
{
	const struct gpt_header *src = (const struct gpt_header *)(img->bytes + SECTOR);
	struct gpt_header *h = header_at(seed, 1);
	struct gpt_entry *e;
	unsigned next, entry_sectors;

	if (img->size < 34 * SECTOR || memcmp(src->signature, "EFI PART", 8) != 0 || src->entry_size != 128)
		die("not a GPT image with 128-byte entries");
	memcpy(seed, img->bytes, SECTOR);
	/* The protective MBR covers the disk as it now is. */
	memcpy(h, src, sizeof(*h));
	h->entries_lba = GPT_ENTRIES_LBA;
	if (small)
		h->n_entries = used_entries((const struct gpt_entry *)(img->bytes + src->entries_lba * SECTOR),
					    src->n_entries);
	entry_sectors = (unsigned)((uint64_t)h->n_entries * h->entry_size / SECTOR);
	memcpy(entries_at(seed, h), img->bytes + src->entries_lba * SECTOR, (size_t)entry_sectors * SECTOR);
	h->first_usable_lba = GPT_ENTRIES_LBA + entry_sectors;
	h->last_usable_lba = last_lba;
	next = (unsigned)h->first_usable_lba;
	e = entries_at(seed, h);
	for (uint32_t i = 0; i < h->n_entries; i++) {
		static const uint8_t unused[16];
		unsigned n;

		if (memcmp(e[i].type, unused, sizeof(unused)) == 0)
			continue;
		n = place_fs(seed, img, e[i].first_lba, next, last_lba + 1 - next);
		e[i].first_lba = next;
		e[i].last_lba = next + n - 1;
		next += n;
	}
	if (small) {
		h->last_usable_lba = next - 1;
		sectors = next + entry_sectors + 1;
	}
	/* The protective MBR covers the disk as it now is. */
	((struct mbr_entry *)(seed + 446))->size = sectors - 1;
	gpt_fix_crcs(seed, h);
}

/* A backup table that fits: its entries right before the last LBA, the header on it. */
static void add_gpt_backup(uint8_t *seed)
{
	struct gpt_header *h = header_at(seed, 1), *b = header_at(seed, sectors - 1);
	unsigned entry_sectors = (unsigned)((uint64_t)h->n_entries * h->entry_size / SECTOR);

	h->alternate_lba = sectors - 1;
	gpt_fix_crcs(seed, h);
	memcpy(b, h, sizeof(*b));
	b->my_lba = sectors - 1;
	b->alternate_lba = 1;
	b->entries_lba = sectors - 1 - entry_sectors;
	memcpy(entries_at(seed, b), entries_at(seed, h), (size_t)entry_sectors * SECTOR);
	gpt_fix_crcs(seed, b);
}

static void compact_dos(const struct image *img, uint8_t *seed)
{
	struct mbr_entry *e = (struct mbr_entry *)(seed + 446);
	unsigned next = 2;

	memcpy(seed, img->bytes, SECTOR);
	for (int i = 0; i < 4; i++) {
		unsigned n;

		if (!e[i].type)
			continue;
		n = place_fs(seed, img, e[i].start, next, MAX_SECTORS - next);
		e[i].start = next;
		e[i].size = n;
		next += n;
	}
}

/* One mutation: a copy of seed changed by fn, CRCs fixed unless keep_crc. */
typedef void mutate_fn(uint8_t *seed, struct gpt_header *h, struct gpt_entry *e, uint64_t arg);

static void variant(const uint8_t *seed, const char *suffix, mutate_fn *fn, uint64_t arg, bool fix)
{
	static uint8_t copy[MAX_SECTORS * SECTOR];
	struct gpt_header *h = header_at(copy, 1);

	memcpy(copy, seed, sizeof(copy));
	fn(copy, h, entries_at(copy, h), arg);
	if (fix)
		gpt_fix_crcs(copy, h);
	write_seed(copy, (size_t)sectors * SECTOR, suffix);
}

static void set_n_entries(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v) { h->n_entries = (uint32_t)v; }
static void set_entry_size(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v) { h->entry_size = (uint32_t)v; }
static void set_header_size(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v) { h->header_size = (uint32_t)v; }
static void set_first_usable(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v) { h->first_usable_lba = v; }
static void set_last_usable(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v) { h->last_usable_lba = v; }
static void set_entries_lba(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v) { h->entries_lba = v; }
static void set_my_lba(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v) { h->my_lba = v; }
static void flip_header_crc(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v) { h->header_crc32 ^= (uint32_t)v; }
static void flip_entries_crc(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v) { h->entries_crc32 ^= (uint32_t)v; }
static void break_signature(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v) { h->signature[0] = 'X'; }
static void wipe_pmbr(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v) { memset(s, 0, SECTOR); }
static void set_last_lba(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v) { e[0].last_lba = v; }
static void set_first_lba(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v) { e[0].first_lba = v; }
static void set_attrs(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v) { e[0].attrs = v; }

/* The second partition laid over the first. */
static void overlap(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v)
{
	e[1].first_lba = e[0].first_lba;
	e[1].last_lba = e[0].last_lba + v;
}

/* Every partition with the first one's PARTUUID: a cloned disk. */
static void clone_uuids(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v)
{
	for (uint32_t i = 1; i < h->n_entries && i < 128; i++)
		if (e[i].first_lba)
			memcpy(e[i].uuid, e[0].uuid, sizeof(e[0].uuid));
}

/* Names: 36 UTF-16 units with no terminator, a lone surrogate, a control character. */
static void hostile_name(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v)
{
	for (int i = 0; i < 36; i++)
		e[0].name[i] = (uint16_t)(v == 0 ? 0x00e9 : v == 1 ? 0xd800 + i : 0x0007);
}

/* A hybrid MBR: the protective partition and a FAT one beside it. */
static void hybrid_mbr(uint8_t *s, struct gpt_header *h, struct gpt_entry *e, uint64_t v)
{
	struct mbr_entry *m = (struct mbr_entry *)(s + 446);

	m[1].type = 0x0c;
	m[1].start = (uint32_t)e[0].first_lba;
	m[1].size = (uint32_t)(e[0].last_lba - e[0].first_lba + 1);
}

/* all: every row; else the few that change what the planner sees. */
static void gpt_mutations(const uint8_t *seed, bool all)
{
	static const struct {
		const char *suffix;
		mutate_fn *fn;
		uint64_t arg;
		bool fix;
	} table[] = {
		{ "-entries-0", set_n_entries, 0, true },
		{ "-entries-1", set_n_entries, 1, true },
		{ "-entries-129", set_n_entries, 129, true },
		{ "-entries-1024", set_n_entries, 1024, true },
		{ "-entries-huge", set_n_entries, 0xffffffff, true },
		{ "-entries-2g", set_n_entries, 0x80000000, true },
		{ "-entry-size-0", set_entry_size, 0, true },
		{ "-entry-size-64", set_entry_size, 64, true },
		{ "-entry-size-127", set_entry_size, 127, true },
		{ "-entry-size-256", set_entry_size, 256, true },
		{ "-entry-size-huge", set_entry_size, 0xffffffff, true },
		{ "-header-size-0", set_header_size, 0, true },
		{ "-header-size-91", set_header_size, 91, true },
		{ "-header-size-513", set_header_size, 513, true },
		{ "-header-size-huge", set_header_size, 0xffffffff, true },
		{ "-first-usable-0", set_first_usable, 0, true },
		{ "-first-usable-past-last", set_first_usable, 200, true },
		{ "-last-usable-huge", set_last_usable, UINT64_MAX, true },
		{ "-last-usable-0", set_last_usable, 0, true },
		{ "-entries-lba-0", set_entries_lba, 0, true },
		{ "-entries-lba-1", set_entries_lba, 1, true },
		{ "-entries-lba-end", set_entries_lba, 126, true },
		{ "-entries-lba-huge", set_entries_lba, UINT64_MAX / SECTOR, true },
		{ "-my-lba-2", set_my_lba, 2, true },
		{ "-bad-header-crc", flip_header_crc, 1, false },
		{ "-bad-entries-crc", flip_entries_crc, 0x80, false },
		{ "-no-signature", break_signature, 0, true },
		{ "-no-pmbr", wipe_pmbr, 0, true },
		{ "-hybrid-mbr", hybrid_mbr, 0, true },
		{ "-part-end-before-start", set_last_lba, 1, true },
		{ "-part-end-huge", set_last_lba, UINT64_MAX, true },
		{ "-part-end-past-disk", set_last_lba, MAX_SECTORS + 10, true },
		{ "-part-start-0", set_first_lba, 0, true },
		{ "-part-start-huge", set_first_lba, UINT64_MAX - 1, true },
		{ "-attrs-all", set_attrs, UINT64_MAX, true },
		{ "-attrs-63-60-59", set_attrs, UINT64_C(0x9800000000000000), true },
		{ "-overlap", overlap, 0, true },
		{ "-overlap-longer", overlap, 3, true },
		{ "-cloned-uuids", clone_uuids, 0, true },
		{ "-name-full", hostile_name, 0, true },
		{ "-name-surrogates", hostile_name, 1, true },
		{ "-name-control", hostile_name, 2, true },
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (all || table[i].fn == clone_uuids || table[i].fn == overlap || table[i].fn == set_attrs)
			variant(seed, table[i].suffix, table[i].fn, table[i].arg, table[i].fix);
}

/* An extended partition whose EBR links to itself: a chain that never ends. */
static void dos_ebr_loop(const uint8_t *seed)
{
	uint8_t copy[MAX_SECTORS * SECTOR];
	struct mbr_entry *m = (struct mbr_entry *)(copy + 446), *ebr;
	const unsigned ebr_lba = 100;

	memcpy(copy, seed, sizeof(copy));
	m[1] = (struct mbr_entry){ .type = 0x05, .start = ebr_lba, .size = 20 };
	ebr = (struct mbr_entry *)(copy + ebr_lba * SECTOR + 446);
	memset(ebr, 0, 4 * sizeof(*ebr));
	ebr[0] = (struct mbr_entry){ .type = 0x83, .start = 1, .size = 4 };
	ebr[1] = (struct mbr_entry){ .type = 0x05, .start = 0, .size = 20 };
	copy[ebr_lba * SECTOR + 510] = 0x55;
	copy[ebr_lba * SECTOR + 511] = 0xaa;
	write_seed(copy, sizeof(copy), "-ebr-loop");
}

static void gpt_seeds(const struct image *img, uint8_t *seed, const char *mode)
{
	bool all = mode && strcmp(mode, "mutate") == 0;

	/* 128 entries and room for a backup the header does not point at. */
	compact_gpt(img, seed, MAX_SECTORS - 34, false);
	write_seed(seed, (size_t)sectors * SECTOR, "");
	if (!mode)
		return;
	/* Mutations of a small copy: more of each run goes into the table. */
	memset(seed, 0, MAX_SECTORS * SECTOR);
	compact_gpt(img, seed, 0, true);
	add_gpt_backup(seed);
	write_seed(seed, (size_t)sectors * SECTOR, "-small");
	gpt_mutations(seed, all);
	/* The primary unreadable: libblkid falls back to the backup. */
	header_at(seed, 1)->signature[0] = 'X';
	write_seed(seed, (size_t)sectors * SECTOR, "-backup-only");
}

int main(int argc, char **argv)
{
	static uint8_t seed[MAX_SECTORS * SECTOR];
	struct image img;

	if (argc < 4 || argc > 5)
		die("usage: seeds IMAGE OUTDIR NAME [mutate|some]");
	out_dir = argv[2];
	base_name = argv[3];
	img = read_image(argv[1]);
	if (img.size >= 2 * SECTOR && memcmp(img.bytes + SECTOR, "EFI PART", 8) == 0) {
		gpt_seeds(&img, seed, argc == 5 ? argv[4] : NULL);
	} else {
		compact_dos(&img, seed);
		write_seed(seed, sizeof(seed), "");
		if (argc == 5)
			dos_ebr_loop(seed);
	}
	free(img.bytes);
	printf("seeds: %s: %u seeds\n", base_name, written);
	return 0;
}
