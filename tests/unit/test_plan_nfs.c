/* The planner for a root or /usr over NFS (plan_nfs.c): which export, which server, and the
 * options the kernel's client is given without mount.nfs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plan_fixtures.h"

static int plan_line(struct fixture *f, const char *line)
{
	char err[256];

	assert_int_equal(cmdline_parse(line, &f->opts, err, sizeof(err)), 0);
	return fx_plan(f);
}

/* The lease the network stage read: an address, and what DHCP named. */
static void lease(struct fixture *f, const char *address, const char *server, const char *path)
{
	f->machine.has_net = true;
	snprintf(f->machine.net.iface, sizeof(f->machine.net.iface), "eth0");
	snprintf(f->machine.net.proto, sizeof(f->machine.net.proto), "dhcp");
	snprintf(f->machine.net.address, sizeof(f->machine.net.address), "%s", address);
	snprintf(f->machine.net.root_server, sizeof(f->machine.net.root_server), "%s", server);
	snprintf(f->machine.net.root_path, sizeof(f->machine.net.root_path), "%s", path);
}

static void want_share(const struct fixture *f, size_t i, const char *source, const char *target,
		       const char *fstype, const char *options)
{
	const struct plan_step *s = &f->plan.steps[i];

	if (i >= f->plan.n_steps || s->op != OP_SHARE || strcmp(s->source, source) != 0 ||
	    strcmp(s->target, target) != 0 || strcmp(s->fstype, fstype) != 0 ||
	    strcmp(s->options, options) != 0 || !s->reason[0]) {
		fx_dump(f);
		fail_msg("step %zu: want share %s %s %s [%s]", i, source, target, fstype, options);
	}
}

static bool fx_has_op(const struct fixture *f, enum plan_op op)
{
	for (size_t i = 0; i < f->plan.n_steps; i++)
		if (f->plan.steps[i].op == op)
			return true;
	return false;
}

static void test_dracut_forms(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);

	/* a local root beside it is never looked at */
	fx_part(f, d, 2, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	lease(f, "10.77.0.100", "", "");
	assert_int_equal(plan_line(f, "ip=dhcp root=nfs:10.77.0.1:/srv/nfs/root"), 0);
	want_share(f, 0, "10.77.0.1:/srv/nfs/root", "/sysroot", "nfs", "ro,vers=3,nolock,addr=10.77.0.1");
	assert_null(f->plan.disk);
	assert_true(fx_has_note(f, "root on NFS: no partitions discovered"));
	fx_free(f);

	/* NFSv4: the client's address for callbacks, no nolock; the source's options kept */
	f = fx_new();
	lease(f, "10.77.0.100", "", "");
	assert_int_equal(plan_line(f, "root=nfs4:10.77.0.1:/srv/nfs/root:rsize=65536 rw"), 0);
	want_share(f, 0, "10.77.0.1:/srv/nfs/root", "/sysroot", "nfs4",
		   "rw,vers=4.2,addr=10.77.0.1,clientaddr=10.77.0.100,rsize=65536");
	fx_free(f);

	/* vers=4.2 on nfs: mounted as nfs4 (its module) */
	f = fx_new();
	lease(f, "10.77.0.100", "", "");
	assert_int_equal(plan_line(f, "root=nfs:10.77.0.1:/r rootflags=vers=4.2"), 0);
	want_share(f, 0, "10.77.0.1:/r", "/sysroot", "nfs4", "ro,addr=10.77.0.1,clientaddr=10.77.0.100,vers=4.2");
	fx_free(f);

	/* systemd's form: root=SERVER:/PATH with the fstype; the user's lock kept */
	f = fx_new();
	assert_int_equal(plan_line(f, "rootfstype=nfs root=10.0.0.1:/export rootflags=lock"), 0);
	want_share(f, 0, "10.0.0.1:/export", "/sysroot", "nfs", "ro,vers=3,addr=10.0.0.1,lock");
	fx_free(f);
	(void)state;
}

static void test_kernel_form(void **state)
{
	struct fixture *f = fx_new();

	assert_int_equal(plan_line(f, "root=/dev/nfs nfsroot=10.77.0.1:/srv/nfs/root,vers=3,tcp "
				      "ip=10.77.0.2::10.77.0.1:255.255.255.0:client:eth0:off"),
			 0);
	want_share(f, 0, "10.77.0.1:/srv/nfs/root", "/sysroot", "nfs", "ro,nolock,addr=10.77.0.1,vers=3,tcp");
	fx_free(f);

	/* nfsroot= without a server: ip='s second field; %s the client's address */
	f = fx_new();
	lease(f, "10.77.0.2", "", "");
	assert_int_equal(plan_line(f, "root=/dev/nfs nfsroot=/clients/%s "
				      "ip=10.77.0.2:10.77.0.9:10.77.0.1:255.255.255.0::eth0:off"),
			 0);
	want_share(f, 0, "10.77.0.9:/clients/10.77.0.2", "/sysroot", "nfs", "ro,vers=3,nolock,addr=10.77.0.9");
	fx_free(f);

	/* no nfsroot=: DHCP's root-path; a path alone takes DHCP's next server */
	f = fx_new();
	lease(f, "10.77.0.100", "10.77.0.1", "/srv/nfs/root");
	assert_int_equal(plan_line(f, "ip=dhcp root=/dev/nfs systemd.volatile=overlay"), 0);
	want_share(f, 0, "10.77.0.1:/srv/nfs/root", "/sysroot", "nfs", "ro,vers=3,nolock,addr=10.77.0.1");
	assert_true(fx_has_op(f, OP_OVERLAY)); /* a tmpfs over the NFS root */
	fx_free(f);

	/* rootfstype=nfs4 with /dev/nfs */
	f = fx_new();
	lease(f, "10.77.0.100", "", "10.77.0.1:/srv/nfs/root");
	assert_int_equal(plan_line(f, "rootfstype=nfs4 root=/dev/nfs"), 0);
	want_share(f, 0, "10.77.0.1:/srv/nfs/root", "/sysroot", "nfs4", "ro,vers=4.2,addr=10.77.0.1,clientaddr=10.77.0.100");
	fx_free(f);
	(void)state;
}

static void test_refusals(void **state)
{
	struct fixture *f = fx_new();

	/* the lease named no root-path */
	lease(f, "10.77.0.100", "10.77.0.1", "");
	assert_int_equal(plan_line(f, "ip=dhcp root=/dev/nfs"), -EINVAL);
	assert_non_null(strstr(f->plan.error, "root-path"));
	fx_free(f);

	/* no server anywhere */
	f = fx_new();
	lease(f, "10.77.0.100", "", "");
	assert_int_equal(plan_line(f, "root=nfs:/srv/root"), -EINVAL);
	assert_non_null(strstr(f->plan.error, "names no server"));
	fx_free(f);

	/* a root-path naming a host */
	f = fx_new();
	lease(f, "10.77.0.100", "", "server.lan:/srv");
	assert_int_equal(plan_line(f, "root=/dev/nfs"), -EINVAL);
	assert_non_null(strstr(f->plan.error, "host names"));
	fx_free(f);

	/* a verity hash has no device over NFS */
	f = fx_new();
	assert_int_equal(plan_line(f, "root=nfs:10.0.0.1:/r roothash=" /* 64 hex digits */
				      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
			 -EINVAL);
	fx_free(f);
	(void)state;
}

static void test_usr_over_nfs(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "/dev/vda", "gpt", "", false);

	fx_part(f, d, 1, T_ROOT_X86_64, NULL, "root", 0, "ext4");
	assert_int_equal(plan_line(f, "root=PARTLABEL=root mount.usr=nfs:10.0.0.1:/usr"), 0);
	for (size_t i = 0; i < f->plan.n_steps; i++)
		if (f->plan.steps[i].op == OP_SHARE) {
			want_share(f, i, "10.0.0.1:/usr", "/sysroot/usr", "nfs", "ro,vers=3,nolock,addr=10.0.0.1");
			fx_free(f);
			return;
		}
	fx_dump(f);
	fail_msg("no /usr share");
}

static void test_wants_network(void **state)
{
	struct options o;
	char err[256];

	options_init(&o);
	assert_false(options_want_network(&o));
	assert_int_equal(cmdline_parse("ip=off root=/dev/vda1", &o, err, sizeof(err)), 0);
	assert_false(options_want_network(&o));
	options_init(&o);
	assert_int_equal(cmdline_parse("rd.neednet=1", &o, err, sizeof(err)), 0);
	assert_true(options_want_network(&o));
	options_init(&o);
	assert_int_equal(cmdline_parse("root=nfs:10.0.0.1:/r", &o, err, sizeof(err)), 0);
	assert_true(options_want_network(&o));
	options_init(&o);
	assert_int_equal(cmdline_parse("root=/dev/vda2 ip=eth0:dhcp", &o, err, sizeof(err)), 0);
	assert_true(options_want_network(&o));
	/* the refused network roots say what they are */
	options_init(&o);
	assert_int_equal(cmdline_parse("root=iscsi:10.0.0.1::::iqn.x", &o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "iSCSI"));
	options_init(&o);
	assert_int_equal(cmdline_parse("netroot=nbd:10.0.0.1:disk", &o, err, sizeof(err)), -EINVAL);
	options_init(&o);
	assert_int_equal(cmdline_parse("netroot=nfs:10.0.0.1:/r", &o, err, sizeof(err)), 0);
	assert_int_equal(o.root_share, SHARE_NFS);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dracut_forms), cmocka_unit_test(test_kernel_form),
		cmocka_unit_test(test_refusals),     cmocka_unit_test(test_usr_over_nfs),
		cmocka_unit_test(test_wants_network),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
