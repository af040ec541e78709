/* The prober on hostile disk images (a stranger's USB stick), then the planner on what it
 * found: the bytes become a memfd that libblkid reads as an image file. */
#include <sys/mman.h>
#include <unistd.h>

#include "cmdline.h"
#include "fuzz.h"
#include "log.h"
#include "probe.h"

static const uint8_t known_machine_id[16] = {
	0xcc, 0x1f, 0xed, 0x1f, 0x50, 0xba, 0x43, 0xcd, 0xa3, 0x95, 0x77, 0x33, 0x3c, 0x5d, 0x05, 0x04,
};

static int image_fd = -1;
static char image_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	image_fd = memfd_create("fuzz_probe", MFD_CLOEXEC);
	FUZZ_CHECK(image_fd >= 0, "memfd_create failed");
	snprintf(image_path, sizeof(image_path), "/proc/self/fd/%d", image_fd);
	/* The prober warns about every odd table; a warning per run only slows the fuzzer. */
	log_set_max_level(getenv("FUZZ_VERBOSE") ? LOG_DEBUG : LOG_ERR);
	return 0;
}

static void write_image(const uint8_t *data, size_t size)
{
	size_t done = 0;

	FUZZ_CHECK(ftruncate(image_fd, 0) == 0, "ftruncate failed");
	while (done < size) {
		ssize_t n = pwrite(image_fd, data + done, size - done, (off_t)done);

		FUZZ_CHECK(n > 0, "pwrite failed");
		done += (size_t)n;
	}
}

static void check_disk(const struct disk *disk)
{
	FUZZ_CHECK(FUZZ_TERMINATED(disk->pttype) && FUZZ_TERMINATED(disk->ptuuid),
		   "pttype or ptuuid not terminated");
	FUZZ_CHECK(disk->n_parts <= 256, "%zu partitions kept", disk->n_parts);
	for (size_t i = 0; i < disk->n_parts; i++) {
		const struct part *p = &disk->parts[i];

		FUZZ_CHECK(FUZZ_TERMINATED(p->type) && FUZZ_TERMINATED(p->partuuid) &&
			   FUZZ_TERMINATED(p->label) && FUZZ_TERMINATED(p->fstype) &&
			   FUZZ_TERMINATED(p->fsuuid) && FUZZ_TERMINATED(p->fslabel) &&
			   FUZZ_TERMINATED(p->devpath), "a field of partition %zu is not terminated", i);
		/* The prober keeps only partitions that lie inside the image. */
		FUZZ_CHECK(p->start <= UINT64_MAX - p->size, "partition %zu wraps around", i);
		FUZZ_CHECK(p->devpath[0] == '\0', "an image file's partition %zu has devpath %s", i,
			   p->devpath);
	}
}

static void plan_disk(const struct disk_set *set, const struct machine *machine,
		      const uint8_t *data, size_t size)
{
	static void *opts_mem, *plan_mem;
	struct options *opts = fuzz_reused(&opts_mem, sizeof(*opts));
	struct plan *plan = fuzz_reused(&plan_mem, sizeof(*plan));
	struct plan_input in = { .opts = opts, .disks = set, .machine = machine };
	int r;

	options_init(opts);
	r = plan_build(&in, plan);
	fuzz_format_plan(plan);
	fuzz_check_plan(r, plan, set);
	fuzz_check_refusal(r, plan, set, data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct disk_set set = { 0 };
	struct machine machine = { .arch = ARCH_X86_64 };
	struct disk *disk = disk_set_add(&set);
	int r;

	FUZZ_CHECK(disk, "out of memory");
	write_image(data, size);
	r = probe_disk(image_path, disk);
	FUZZ_CHECK(r == 0 || r == -ENOMEM || r == -EIO, "probe_disk returned %d", r);
	check_disk(disk);
	plan_disk(&set, &machine, data, size);
	/* Again as the firmware's disk on a machine with an ID: the ESP and /var rules run too. */
	machine.has_machine_id = true;
	memcpy(machine.machine_id, known_machine_id, sizeof(machine.machine_id));
	if (disk->n_parts)
		snprintf(machine.loader_partuuid, sizeof(machine.loader_partuuid), "%s",
			 disk->parts[0].partuuid);
	plan_disk(&set, &machine, data, size);
	disk_set_free(&set);
	return 0;
}
