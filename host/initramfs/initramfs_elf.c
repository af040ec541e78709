/* `earlymount initramfs`: what ELF files tell of themselves. The architecture of /init and
 * of the modules is checked against the image's, and /init must be static. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "initramfs.h"
#include "log.h"
#include "util.h"

#ifndef EM_LOONGARCH
#define EM_LOONGARCH 258
#endif

static const struct elf_arch {
	enum arch arch;
	uint16_t machine;
	unsigned char elf_class;
	unsigned char data;
} elf_arches[] = {
	{ ARCH_X86_64, EM_X86_64, ELFCLASS64, ELFDATA2LSB },
	{ ARCH_AARCH64, EM_AARCH64, ELFCLASS64, ELFDATA2LSB },
	{ ARCH_X86, EM_386, ELFCLASS32, ELFDATA2LSB },
	{ ARCH_ARM, EM_ARM, ELFCLASS32, ELFDATA2LSB },
	{ ARCH_RISCV64, EM_RISCV, ELFCLASS64, ELFDATA2LSB },
	{ ARCH_PPC64LE, EM_PPC64, ELFCLASS64, ELFDATA2LSB },
	{ ARCH_S390X, EM_S390, ELFCLASS64, ELFDATA2MSB },
	{ ARCH_LOONGARCH64, EM_LOONGARCH, ELFCLASS64, ELFDATA2LSB },
};

static enum arch elf_header_arch(const unsigned char *h, size_t len)
{
	uint16_t machine;

	if (len < EI_NIDENT + 4 || memcmp(h, ELFMAG, SELFMAG) != 0)
		return ARCH_INVALID;
	machine = h[EI_DATA] == ELFDATA2MSB ? (uint16_t)(h[18] << 8 | h[19])
					    : (uint16_t)(h[19] << 8 | h[18]);
	for (size_t i = 0; i < ARRAY_SIZE(elf_arches); i++)
		if (elf_arches[i].machine == machine && elf_arches[i].elf_class == h[EI_CLASS] &&
		    elf_arches[i].data == h[EI_DATA])
			return elf_arches[i].arch;
	return ARCH_INVALID;
}

/* The architecture of an ELF file; -ENOEXEC when it is not an ELF file of a known one. */
int elf_file_arch(const char *path, enum arch *arch)
{
	unsigned char header[64];
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r = 0;

	if (fd < 0) {
		r = -errno;
		goto out;
	}
	n = read(fd, header, sizeof(header));
	if (n < 0) {
		r = -errno;
		goto out;
	}
	*arch = elf_header_arch(header, (size_t)n);
	if (*arch == ARCH_INVALID)
		r = -ENOEXEC;
out:
	if (fd >= 0)
		close(fd);
	return r;
}

static uint64_t elf_read(const unsigned char *p, size_t size, bool big_endian)
{
	uint64_t v = 0;

	for (size_t i = 0; i < size; i++)
		v |= (uint64_t)p[big_endian ? size - 1 - i : i] << (8 * i);
	return v;
}

/* Whether the ELF file asks for a program interpreter: a dynamically linked /init cannot
 * start in an initramfs that holds no libc, and the kernel only says "error -2". */
static int elf_is_dynamic(const char *path, bool *dynamic)
{
	unsigned char h[64], ph[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool is64, be;
	uint64_t phoff;
	unsigned phentsize, phnum;
	int r = -ENOEXEC;

	*dynamic = false;
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		goto out;
	is64 = h[EI_CLASS] == ELFCLASS64;
	be = h[EI_DATA] == ELFDATA2MSB;
	phoff = is64 ? elf_read(h + 32, 8, be) : elf_read(h + 28, 4, be);
	phentsize = (unsigned)elf_read(h + (is64 ? 54 : 42), 2, be);
	phnum = (unsigned)elf_read(h + (is64 ? 56 : 44), 2, be);
	for (unsigned i = 0; i < phnum; i++) {
		if (pread(fd, ph, sizeof(ph), (off_t)(phoff + (uint64_t)i * phentsize)) != (ssize_t)sizeof(ph))
			goto out;
		if (elf_read(ph, 4, be) == PT_INTERP)
			*dynamic = true;
	}
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	return r;
}

/* A binary the image runs: where it goes, the option that names another, what it is. */
struct image_binary {
	const char *as;
	const char *option;
	const char *program;
	const char *if_missing; /* added to the message when the file is not there */
};

static const struct image_binary init_binary = { "/init", "--init", "earlymount", "" };
static const struct image_binary luks_binary = {
	"the LUKS helper", "--luks-helper", "earlymount-luks",
	" ('make luks' builds it beside earlymount, 'make install' puts it in PREFIX/lib/earlymount/;"
	" or pass --luks-helper PATH)",
};

static const struct image_binary lvm_binary = {
	"lvm2's tool", "--lvm-tool", "lvm",
	" ('make' builds a static one from Debian's lvm2 source beside earlymount, 'make install'"
	" puts it in PREFIX/lib/earlymount/; or pass --lvm-tool PATH)",
};

static const struct image_binary md_binary = {
	"mdadm", "--md-tool", "mdadm",
	" ('make' builds a static one from Debian's mdadm source beside earlymount, 'make install'"
	" puts it in PREFIX/lib/earlymount/; or pass --md-tool PATH)",
};

/* The kernel runs /init, and /init the helper, in an image without a libc: each must be a
 * static executable of the image's architecture. */
static int check_binary(struct builder *b, const char *path, const struct image_binary *what,
			uint64_t *size)
{
	struct stat st;
	enum arch arch;
	bool dynamic;
	int r;

	if (stat(path, &st) < 0) {
		r = -errno;
		log_err("unable to use %s as %s: %s%s", path, what->as, strerror(-r),
			r == -ENOENT ? what->if_missing : "");
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -ENOEXEC;
		log_err("unable to use %s as %s: not a regular file", path, what->as);
		goto out;
	}
	*size = (uint64_t)st.st_size;
	r = elf_file_arch(path, &arch);
	if (r < 0) {
		log_err("unable to use %s as %s: %s", path, what->as,
			r == -ENOEXEC ? "not an ELF executable of a known architecture" : strerror(-r));
	} else if (arch != b->arch) {
		log_err("%s is built for %s, but the image is for %s: pass %s with an %s built for %s, or --arch %s",
			path, arch_name(arch), arch_name(b->arch), what->option, what->program,
			arch_name(b->arch), arch_name(arch));
		r = -ENOEXEC;
	}
	if (r == 0)
		r = elf_is_dynamic(path, &dynamic);
	if (r == 0 && dynamic) {
		log_err("%s is dynamically linked, and the initramfs holds no libraries: use the static %s that make builds",
			path, what->program);
		r = -ENOEXEC;
	} else if (r < 0 && r != -ENOEXEC) {
		log_err("unable to read %s: %s", path, strerror(-r));
	}
out:
	return r;
}

int initramfs_check_init(struct builder *b, const char *init)
{
	return check_binary(b, init, &init_binary, &b->init_size);
}

int initramfs_check_luks_helper(struct builder *b, const char *path)
{
	return check_binary(b, path, &luks_binary, &b->luks_helper_size);
}

int initramfs_check_lvm_tool(struct builder *b, const char *path)
{
	return check_binary(b, path, &lvm_binary, &b->lvm_tool_size);
}

int initramfs_check_md_tool(struct builder *b, const char *path)
{
	return check_binary(b, path, &md_binary, &b->md_tool_size);
}

/* The program interpreter and the DT_NEEDED names of a dynamically linked ELF file, read
 * whole into memory (a checker or a libc: a few MiB at most). */
#define ELF_FILE_MAX (64u << 20)

struct elf_image {
	unsigned char *data;
	size_t size;
	bool is64, be;
};

static int elf_load(const char *path, struct elf_image *e)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r = 0;

	*e = (struct elf_image){ 0 };
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (st.st_size < 64 || (uint64_t)st.st_size > ELF_FILE_MAX) {
		r = -ENOEXEC;
		goto out;
	}
	e->size = (size_t)st.st_size;
	e->data = malloc(e->size);
	if (!e->data)
		r = -ENOMEM;
	else if (pread(fd, e->data, e->size, 0) != (ssize_t)e->size)
		r = -EIO;
	else if (memcmp(e->data, ELFMAG, SELFMAG) != 0)
		r = -ENOEXEC;
	e->is64 = r == 0 && e->data[EI_CLASS] == ELFCLASS64;
	e->be = r == 0 && e->data[EI_DATA] == ELFDATA2MSB;
out:
	if (fd >= 0)
		close(fd);
	return r;
}

/* A field of the file, 0 past its end (the walk below then stops). */
static uint64_t elf_field(const struct elf_image *e, uint64_t off, size_t size)
{
	return off + size <= e->size ? elf_read(e->data + off, size, e->be) : 0;
}

struct elf_phdr {
	uint64_t type, offset, vaddr, filesz;
};

static struct elf_phdr elf_phdr_at(const struct elf_image *e, uint64_t off)
{
	if (e->is64)
		return (struct elf_phdr){ elf_field(e, off, 4), elf_field(e, off + 8, 8),
					  elf_field(e, off + 16, 8), elf_field(e, off + 32, 8) };
	return (struct elf_phdr){ elf_field(e, off, 4), elf_field(e, off + 4, 4),
				  elf_field(e, off + 8, 4), elf_field(e, off + 16, 4) };
}

/* The file offset of a virtual address, through the PT_LOAD segment that maps it. */
static uint64_t elf_vaddr_offset(const struct elf_image *e, uint64_t vaddr)
{
	uint64_t phoff = elf_field(e, e->is64 ? 32 : 28, e->is64 ? 8 : 4);
	unsigned phentsize = (unsigned)elf_field(e, e->is64 ? 54 : 42, 2);
	unsigned phnum = (unsigned)elf_field(e, e->is64 ? 56 : 44, 2);

	for (unsigned i = 0; i < phnum; i++) {
		struct elf_phdr ph = elf_phdr_at(e, phoff + (uint64_t)i * phentsize);

		if (ph.type == PT_LOAD && vaddr >= ph.vaddr && vaddr < ph.vaddr + ph.filesz)
			return vaddr - ph.vaddr + ph.offset;
	}
	return UINT64_MAX;
}

/* A NUL-terminated string inside the file, or NULL. */
static const char *elf_string(const struct elf_image *e, uint64_t off)
{
	if (off >= e->size || !memchr(e->data + off, '\0', e->size - off))
		return NULL;
	return (const char *)e->data + off;
}

static int elf_add_needed(const struct elf_image *e, const struct elf_phdr *dyn,
			  struct name_list *needed)
{
	size_t entsize = e->is64 ? 16 : 8, half = entsize / 2;
	uint64_t strtab = UINT64_MAX;
	int r = 0;

	for (uint64_t off = dyn->offset; off + entsize <= dyn->offset + dyn->filesz; off += entsize)
		if (elf_field(e, off, half) == DT_STRTAB)
			strtab = elf_vaddr_offset(e, elf_field(e, off + half, half));
	for (uint64_t off = dyn->offset; off + entsize <= dyn->offset + dyn->filesz && r == 0;
	     off += entsize) {
		const char *name;

		if (elf_field(e, off, half) != DT_NEEDED)
			continue;
		name = strtab == UINT64_MAX ? NULL
					    : elf_string(e, strtab + elf_field(e, off + half, half));
		r = name ? name_list_add(needed, name) : -ENOEXEC;
	}
	return r;
}

int elf_dependencies(const char *path, char *interp, size_t interp_size, struct name_list *needed)
{
	struct elf_image e = { 0 };
	uint64_t phoff;
	unsigned phentsize, phnum;
	int r = elf_load(path, &e);

	interp[0] = '\0';
	if (r < 0)
		goto out;
	phoff = elf_field(&e, e.is64 ? 32 : 28, e.is64 ? 8 : 4);
	phentsize = (unsigned)elf_field(&e, e.is64 ? 54 : 42, 2);
	phnum = (unsigned)elf_field(&e, e.is64 ? 56 : 44, 2);
	for (unsigned i = 0; i < phnum && r == 0; i++) {
		struct elf_phdr ph = elf_phdr_at(&e, phoff + (uint64_t)i * phentsize);
		const char *s;

		if (ph.type == PT_INTERP) {
			s = elf_string(&e, ph.offset);
			r = s ? copy_str(interp, interp_size, s) : -ENOEXEC;
		} else if (ph.type == PT_DYNAMIC) {
			r = elf_add_needed(&e, &ph, needed);
		}
	}
out:
	free(e.data);
	return r;
}
