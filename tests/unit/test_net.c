/* The network's pure parts: ip= in the kernel's and dracut's forms (net_ip.c), the lease file
 * klibc's ipconfig writes (net_lease.c), and NFS sources (nfs_source.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "net.h"

static struct net_ip ip_ok(const char *value)
{
	struct net_ip ip;
	const char *why = NULL;

	if (net_ip_parse(value, &ip, &why) != 0)
		fail_msg("ip=%s refused: %s", value, why);
	return ip;
}

static void ip_bad(const char *value)
{
	struct net_ip ip;
	const char *why = NULL;

	if (net_ip_parse(value, &ip, &why) != -EINVAL || !why || !why[0])
		fail_msg("ip=%s accepted", value);
}

static void test_ip_words(void **state)
{
	assert_int_equal(ip_ok("dhcp").method, NET_DHCP);
	assert_int_equal(ip_ok("on").method, NET_DHCP);
	assert_int_equal(ip_ok("any").method, NET_DHCP);
	assert_int_equal(ip_ok("off").method, NET_OFF);
	assert_int_equal(ip_ok("none").method, NET_OFF);
	assert_string_equal(ip_ok("dhcp").iface, "");
	ip_bad("");
	ip_bad("dhcp6");
	ip_bad("ibft");
	ip_bad("bogus");
	(void)state;
}

static void test_ip_dracut_form(void **state)
{
	struct net_ip ip = ip_ok("eth1:dhcp");

	assert_int_equal(ip.method, NET_DHCP);
	assert_string_equal(ip.iface, "eth1");
	/* MTU and MAC are the real system's */
	ip = ip_ok("enp0s3:on:9000:52:54:00:12:34:56");
	assert_string_equal(ip.iface, "enp0s3");
	ip_bad("eth0:auto6");
	ip_bad("eth0:");
	ip_bad("averyveryverylongname0:dhcp");
	(void)state;
}

static void test_ip_kernel_form(void **state)
{
	struct net_ip ip = ip_ok("10.77.0.2:10.77.0.1:10.77.0.254:255.255.255.0:client:eth0:off:10.77.0.53");
	char spec[256];

	assert_int_equal(ip.method, NET_STATIC);
	assert_string_equal(ip.client, "10.77.0.2");
	assert_string_equal(ip.server, "10.77.0.1");
	assert_string_equal(ip.gateway, "10.77.0.254");
	assert_string_equal(ip.netmask, "255.255.255.0");
	assert_string_equal(ip.hostname, "client");
	assert_string_equal(ip.iface, "eth0");
	assert_string_equal(ip.dns0, "10.77.0.53");
	assert_int_equal(net_ip_kernel_form(&ip, "eth0", spec, sizeof(spec)), 0);
	assert_string_equal(spec, "10.77.0.2:10.77.0.1:10.77.0.254:255.255.255.0:client:eth0:off:10.77.0.53");
	/* no interface: the boot's choice goes in */
	ip = ip_ok("10.0.0.5::10.0.0.1:255.0.0.0:::none");
	assert_int_equal(net_ip_kernel_form(&ip, "eth3", spec, sizeof(spec)), 0);
	assert_string_equal(spec, "10.0.0.5::10.0.0.1:255.0.0.0::eth3:off");
	/* the autoconf field empty or dhcp: DHCP, with the server as a hint */
	ip = ip_ok(":10.0.0.9::::eth0:");
	assert_int_equal(ip.method, NET_DHCP);
	assert_string_equal(ip.server, "10.0.0.9");
	ip = ip_ok("::::host:eth0:dhcp");
	assert_int_equal(ip.method, NET_DHCP);
	/* dracut's MTU after autoconf is no DNS server */
	ip = ip_ok("10.0.0.5::10.0.0.1:255.0.0.0::eth0:off:1500");
	assert_string_equal(ip.dns0, "");
	ip_bad("::::host:eth0:off");        /* static without an address */
	ip_bad("10.0.0.300::::h:eth0:off"); /* not an address */
	ip_bad("[fd00::2]::[fd00::1]:64:h:eth0:none");
	ip_bad("10.0.0.5::gateway:255.0.0.0::eth0:off");
	(void)state;
}

static void test_is_ipv4(void **state)
{
	assert_true(net_is_ipv4("0.0.0.0"));
	assert_true(net_is_ipv4("255.255.255.255"));
	assert_false(net_is_ipv4("256.1.1.1"));
	assert_false(net_is_ipv4("1.2.3"));
	assert_false(net_is_ipv4("1.2.3.4.5"));
	assert_false(net_is_ipv4("1..3.4"));
	assert_false(net_is_ipv4("1.2.3.4 "));
	assert_false(net_is_ipv4("0001.2.3.4"));
	assert_false(net_is_ipv4(""));
	(void)state;
}

static void test_lease(void **state)
{
	static const char text[] =
		"DEVICE='eth0'\nPROTO='dhcp'\nIPV4ADDR='10.77.0.100'\nIPV4BROADCAST='10.77.0.255'\n"
		"IPV4NETMASK='255.255.255.0'\nIPV4GATEWAY='10.77.0.1'\nIPV4DNS0='0.0.0.0'\n"
		"IPV4DNS1='0.0.0.0'\nHOSTNAME=''\nROOTSERVER='10.77.0.1'\n"
		"ROOTPATH='10.77.0.1:/srv/nfs/root'\nfilename=''\nbroken line\nUPTIME='3'";
	struct net_lease l;

	assert_int_equal(net_lease_parse(text, strlen(text), &l), 0);
	assert_string_equal(l.iface, "eth0");
	assert_string_equal(l.proto, "dhcp");
	assert_string_equal(l.address, "10.77.0.100");
	assert_string_equal(l.netmask, "255.255.255.0");
	assert_string_equal(l.gateway, "10.77.0.1");
	assert_string_equal(l.dns0, ""); /* 0.0.0.0: not given */
	assert_string_equal(l.root_server, "10.77.0.1");
	assert_string_equal(l.root_path, "10.77.0.1:/srv/nfs/root");
	/* no address: no lease; a value too long for its field is passed over */
	assert_int_equal(net_lease_parse("DEVICE=eth0\n", 12, &l), -EINVAL);
	assert_int_equal(net_lease_parse("IPV4ADDR='10.0.0.1'\nDEVICE='waytoolonganinterfacename'\n", 54, &l), 0);
	assert_string_equal(l.iface, "");
	assert_int_equal(net_lease_parse("", 0, &l), -EINVAL);
	(void)state;
}

static void test_nfs_dracut(void **state)
{
	struct nfs_source s = { 0 };
	const char *why = NULL;

	assert_int_equal(nfs_source_from_dracut("10.0.0.1:/srv/root", &s, &why), 0);
	assert_string_equal(s.server, "10.0.0.1");
	assert_string_equal(s.path, "/srv/root");
	assert_string_equal(s.options, "");
	assert_false(s.v4);
	assert_int_equal(nfs_source_from_dracut("10.0.0.1:/srv/root:vers=4.2,rsize=8192", &s, &why), 0);
	assert_string_equal(s.options, "vers=4.2,rsize=8192");
	/* no server: the boot takes ip='s or DHCP's */
	assert_int_equal(nfs_source_from_dracut("/srv/root", &s, &why), 0);
	assert_string_equal(s.server, "");
	/* DHCP's root-path may carry the prefix */
	assert_int_equal(nfs_source_from_dracut("nfs4:10.0.0.1:/export", &s, &why), 0);
	assert_true(s.v4);
	assert_string_equal(s.path, "/export");
	assert_int_equal(nfs_source_from_dracut("server.lan:/srv", &s, &why), -EINVAL);
	assert_non_null(strstr(why, "host names"));
	assert_int_equal(nfs_source_from_dracut("10.0.0.1:srv", &s, &why), -EINVAL);
	assert_int_equal(nfs_source_from_dracut("10.0.0.1", &s, &why), -EINVAL);
	(void)state;
}

static void test_nfs_kernel(void **state)
{
	struct nfs_source s = { 0 };
	const char *why = NULL;

	assert_int_equal(nfs_source_from_nfsroot("10.0.0.1:/srv/root,vers=3,tcp", NULL, &s, &why), 0);
	assert_string_equal(s.server, "10.0.0.1");
	assert_string_equal(s.path, "/srv/root");
	assert_string_equal(s.options, "vers=3,tcp");
	/* %s is the client's address, as the kernel's nfsroot= has it */
	assert_int_equal(nfs_source_from_nfsroot("/srv/%s/root", "10.0.0.7", &s, &why), 0);
	assert_string_equal(s.server, "");
	assert_string_equal(s.path, "/srv/10.0.0.7/root");
	assert_int_equal(nfs_source_from_nfsroot("/srv/%s", NULL, &s, &why), 0);
	assert_string_equal(s.path, "/srv/%s");
	/* a colon in the path after its first slash is the path's */
	assert_int_equal(nfs_source_from_nfsroot("/srv/a:b", NULL, &s, &why), 0);
	assert_string_equal(s.path, "/srv/a:b");
	assert_int_equal(nfs_source_from_nfsroot("srv", NULL, &s, &why), -EINVAL);
	assert_int_equal(nfs_source_from_nfsroot("host:/srv", NULL, &s, &why), -EINVAL);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ip_words),   cmocka_unit_test(test_ip_dracut_form),
		cmocka_unit_test(test_ip_kernel_form), cmocka_unit_test(test_is_ipv4),
		cmocka_unit_test(test_lease),      cmocka_unit_test(test_nfs_dracut),
		cmocka_unit_test(test_nfs_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
